// Shared K/V heads against multi-head attention with the same query heads, in one run: a layer of
// grouped-query (1 < kvHeads < h) or multi-query (kvHeads = 1) attention against the same layer with
// kvHeads = h (projection mode, W^O, causal, scaled), the samples interleaved so both see the same machine.
// `npm run bench` (tests/bench/core.js) prints these rows after its own on the single-threaded wasm core;
// alone, with the same options:
//   node tests/bench/gqa.js [--quick] [--rounds N]
// Each layer's output is checked against the float64 reference (tests/reference.js) before timing, at the
// shapes small enough for it.
import { pathToFileURL } from 'node:url';
import { loadAttention } from '../../web/src/attention.js';
import { referenceAttention } from '../reference.js';
import { seededRandom, randomMatrix, maxAbsDiff } from '../seeded.js';

// [L, d_model, h, the kvHeads to time]: GQA groups of 2 and 4 heads, and MQA.
export const KV_SHAPES = [
  [128, 256, 8, [4, 2, 1]],
  [256, 768, 12, [6, 3, 1]],
  [1024, 768, 12, [6, 3, 1]],
];

function seconds(fn, reps) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < reps; i++) fn();
  return Number(process.hrtime.bigint() - start) / 1e9 / reps;
}

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// Multiply-adds of a causal-free dense count, as core.js counts MHA (8·L·d² + 4·L²·d), with K and V projected to
// kvHeads·d_k columns: what the time ratio would be if every step ran at the same speed.
const flops = (L, d, kvd) => 4 * L * d * d + 4 * L * d * kvd + 4 * L * L * d;

/** One row per kvHeads at each shape (kvHeads = h first): median seconds and the ratio to kvHeads = h. */
export function benchSharedKV(mha, { rounds = 9, batchSeconds = 0.05, shapes = KV_SHAPES } = {}) {
  const rows = [];
  for (const [L, d, h, shared] of shapes) {
    const random = seededRandom(L * 31 + d);
    const m = (n, s) => Float32Array.from(randomMatrix(random, n, s));
    const spread = 1 / Math.sqrt(d), dk = d / h;
    const x = m(L * d, 1), wq = m(d * d, 2 * spread), wo = m(d * d, spread);
    const runs = [h, ...shared].map((kvHeads) => {
      const inputs = { x, wq, wk: m(d * kvHeads * dk, 2 * spread), wv: m(d * kvHeads * dk, spread), wo, causal: true };
      const layer = mha.createLayer({ dModel: d, heads: h, maxLen: L, kvHeads });
      const forward = () => layer.forward(inputs);
      forward();
      if (L * d * d <= 128 * 256 * 256) {
        const want = referenceAttention({ ...inputs, d, h, kvHeads });
        const error = maxAbsDiff(layer.output(), want.output);
        if (!(error < 1e-4)) throw new Error(`L ${L}, d ${d}, h ${h}, kvHeads ${kvHeads}: output off the reference by ${error}`);
      }
      const reps = Math.max(1, Math.round(batchSeconds / Math.max(seconds(forward, 1), 1e-9)));
      return { kvHeads, layer, forward, reps, samples: [] };
    });
    for (let round = 0; round < rounds; round++) for (const run of runs) run.samples.push(seconds(run.forward, run.reps));
    const mhaSeconds = median(runs[0].samples);
    for (const run of runs) {
      run.layer.dispose();
      const kind = run.kvHeads === h ? 'MHA' : run.kvHeads === 1 ? 'MQA' : 'GQA';
      rows.push({ L, dModel: d, heads: h, kvHeads: run.kvHeads, kind, medianSeconds: median(run.samples), vsMHA: median(run.samples) / mhaSeconds,
        flopsVsMHA: flops(L, d, run.kvHeads * dk) / flops(L, d, d) });
    }
  }
  return rows;
}

export function printSharedKV(rows) {
  console.log('\nshared K/V heads, single-threaded wasm core, projection mode, W^O, causal (time ÷ MHA with the same h, one run):');
  console.log('  L     d_model  h   kvHeads  kind  median      vs MHA  its operations vs MHA');
  for (const r of rows) {
    console.log(`  ${String(r.L).padEnd(5)} ${String(r.dModel).padEnd(8)} ${String(r.heads).padEnd(3)} ${String(r.kvHeads).padEnd(8)} ` +
      `${r.kind.padEnd(5)} ${`${(r.medianSeconds * 1e3).toFixed(2)} ms`.padEnd(11)} ${`${r.vsMHA.toFixed(2)}×`.padEnd(7)} ${r.flopsVsMHA.toFixed(2)}×`);
  }
  const slower = rows.filter((r) => r.vsMHA > 1.05);
  console.log(`  target: every GQA and MQA layer no slower than MHA with the same query heads (within 5 %): ${slower.length ? `NOT MET (${slower.map((r) => `L ${r.L} kvHeads ${r.kvHeads}`).join(', ')})` : 'met'}`);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const i = args.indexOf('--rounds');
  const quick = args.includes('--quick');
  const mha = await loadAttention({ threads: 1 });
  printSharedKV(benchSharedKV(mha, { rounds: i >= 0 ? Number(args[i + 1]) : quick ? 3 : 9, batchSeconds: quick ? 0.02 : 0.05 }));
}
