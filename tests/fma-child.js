// Run by fma.test.js in a Node with relaxed SIMD (Node 20: --experimental-wasm-relaxed-simd): loads the cores
// each way and prints, as JSON, what the test checks. Each `fresh(…)` is the package's entry with a loader of its
// own (attentionLoader), so a fresh core: attention.js's own loadAttention is the page's one instance.
import { readFileSync } from 'node:fs';
import * as attention from '../web/src/attention.js';
import { attentionLoader } from '../web/src/load.js';
import { LESSON_EXAMPLE } from '../web/shared/lesson.js';
import { referenceAttention } from './reference.js';
import { seededRandom, randomMatrix, maxAbsDiff, round2 } from './seeded.js';

const fresh = () => ({ ...attention, loadAttention: attentionLoader() });
const { fmaAvailable, loadAttention } = await fresh('fused');
const fused = await loadAttention();
const unfused = await (await fresh('unfused')).loadAttention({ fma: false });
// The fused single-threaded core loaded alone, as a worker handed its module would.
const fusedSingle = await (await fresh('fused-single')).loadAttention({ wasm: readFileSync(new URL('../web/dist/mha-core-fma.wasm', import.meta.url)) });

// Big enough that the products and heads are spread over the threads (c/lib/pool.c: from 1 M multiply-adds).
const random = seededRandom(20261202);
const d = 256, h = 8, L = 192;
const m = (n, spread) => Float32Array.from(randomMatrix(random, n, spread));
const big = { x: m(L * d, 1), wq: m(d * d, 0.12), wk: m(d * d, 0.12), wv: m(d * d, 0.06), wo: m(d * d, 0.06), causal: true };
const outputOf = (mha) => {
  const layer = mha.createLayer({ dModel: d, heads: h, maxLen: L });
  const output = Array.from(layer.forward(big).output());
  layer.dispose();
  return output;
};
const want = referenceAttention({ ...big, d, h, scale: true }).output;

const { q, k, v } = LESSON_EXAMPLE;
const lessonLayer = fused.createLayer({ dModel: 4, heads: 2, maxLen: 3 });
lessonLayer.forward({ q, k, v, causal: false });

const outputs = { fused: outputOf(fused), unfused: outputOf(unfused), fusedSingle: outputOf(fusedSingle) };
console.log(JSON.stringify({
  fmaAvailable: fmaAvailable(),
  kinds: { fused: [fused.fma, fused.threads], unfused: [unfused.fma, unfused.threads], fusedSingle: [fusedSingle.fma, fusedSingle.threads] },
  fromReference: Object.fromEntries(Object.entries(outputs).map(([name, output]) => [name, maxAbsDiff(output, want)])),
  fusedEqualsFusedSingle: outputs.fused.every((value, i) => Object.is(value, outputs.fusedSingle[i])),
  bitsDifferFromUnfused: outputs.fused.filter((value, i) => value !== outputs.unfused[i]).length,
  tolerance: 2e-5 * Math.sqrt(d),
  lesson: [round2(lessonLayer.attention(0)), round2(lessonLayer.attention(1)), round2(lessonLayer.headOutput(0).subarray(0, 2))],
}));
