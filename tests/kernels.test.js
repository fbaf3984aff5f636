// The wasm core's fast SIMD kernels against its plain reference loops (forward({ plain: true }))
// and against the float64 reference, on shapes chosen to hit every edge of the kernels' tiles.
import test from 'node:test';
import assert from 'node:assert/strict';
import { loadAttention } from '../web/src/attention.js';
import { referenceAttention } from './reference.js';
import { seededRandom, randomMatrix, maxAbsDiff } from './seeded.js';

const mha = await loadAttention();

// [L, d, h]: L = 1, h = 1, h = d, d_k not a multiple of 4, and sizes either side of the
// kernels' 4-row and 8/16-column tiles, 64-row blocks and 256-deep blocks. (The smallest few,
// like the lesson's 3×4, take the plain loops either way: the core does so below toy sizes.)
const shapes = [
  [1, 1, 1], [1, 4, 1], [1, 8, 8], [2, 3, 1], [3, 4, 2], [3, 4, 4], [5, 6, 3], [7, 5, 5],
  [9, 12, 1], [13, 15, 5], [16, 64, 4], [16, 64, 8], [17, 30, 6], [31, 7, 7], [33, 16, 16],
  [63, 20, 4], [64, 64, 4], [65, 36, 3], [70, 9, 1], [100, 24, 8], [129, 48, 12], [8, 260, 4],
  [20, 257, 1], [300, 12, 2], [130, 256, 8], [40, 768, 12], [1, 64, 8], [1, 100, 4], [2, 16, 16], [4, 6, 3],
];

const tensors = (layer, h) => ({
  q: layer.q().slice(),
  k: layer.k().slice(),
  v: layer.v().slice(),
  scores: Array.from({ length: h }, (_, i) => layer.scores(i).slice()),
  attention: Array.from({ length: h }, (_, i) => layer.attention(i).slice()),
  heads: Array.from({ length: h }, (_, i) => layer.headOutput(i).slice()),
  concat: layer.concat().slice(),
  output: layer.output().slice(),
});

function compare(got, want, tolerance, what) {
  for (const name of ['q', 'k', 'v', 'concat', 'output']) {
    const diff = maxAbsDiff(got[name], want[name]);
    assert.ok(diff < tolerance, `${what}: ${name} differs by ${diff}`);
  }
  got.attention.forEach((a, i) => {
    const diff = maxAbsDiff(a, want.attention[i]);
    assert.ok(diff < tolerance, `${what}: attention of head ${i} differs by ${diff}`);
  });
  got.scores.forEach((a, i) => {
    const diff = maxAbsDiff(a, want.scores[i]);
    assert.ok(diff < tolerance, `${what}: scores of head ${i} differ by ${diff}`);
  });
  got.heads.forEach((a, i) => {
    const diff = maxAbsDiff(a, want.heads[i]);
    assert.ok(diff < tolerance, `${what}: output of head ${i} differs by ${diff}`);
  });
}

for (const [index, [L, d, h]] of shapes.entries()) {
  for (const causal of [false, true]) {
    test(`L ${L}, d_model ${d}, h ${h}, causal ${causal}: fast kernels match the plain loops and the reference`, () => {
      const random = seededRandom(9000 + index * 2 + (causal ? 1 : 0));
      const spread = 1 / Math.sqrt(d);
      const inputs = {
        x: Float32Array.from(randomMatrix(random, L * d, 1)),
        wq: Float32Array.from(randomMatrix(random, d * d, spread * 2)),
        wk: Float32Array.from(randomMatrix(random, d * d, spread * 2)),
        wv: Float32Array.from(randomMatrix(random, d * d, spread)),
        wo: Float32Array.from(randomMatrix(random, d * d, spread)),
      };
      const scale = index % 4 !== 3;
      const enabled = Array.from({ length: h }, (_, i) => h === 1 || i % 3 !== 1);
      const layer = mha.createLayer({ dModel: d, heads: h, maxLen: L + (index % 3) });
      const fast = tensors(layer.forward({ ...inputs, causal, scale, enabled }), h);
      const plain = tensors(layer.forward({ ...inputs, causal, scale, enabled, plain: true }), h);
      const tolerance = 2e-5 * Math.sqrt(d);
      compare(fast, plain, tolerance, 'fast vs plain');

      const want = referenceAttention({ ...inputs, d, h, causal, scale, enabled });
      compare(fast, want, tolerance, 'fast vs reference');
      for (const [i, a] of fast.attention.entries()) {
        for (let r = 0; r < L; r++) {
          let sum = 0;
          for (let c = 0; c < L; c++) {
            sum += a[r * L + c];
            if (causal && c > r) assert.equal(a[r * L + c], 0, `masked weight head ${i} [${r}][${c}]`);
          }
          assert.ok(Math.abs(sum - 1) < 1e-5, `row ${r} of head ${i} sums to ${sum}`);
        }
      }
      layer.dispose();
    });
  }
}

test('QKV mode: fast kernels match the plain loops, with and without W^O', () => {
  const random = seededRandom(77);
  for (const [L, d, h] of [[3, 4, 2], [37, 40, 5], [12, 6, 6]]) {
    const q = Float32Array.from(randomMatrix(random, L * d, 2));
    const k = Float32Array.from(randomMatrix(random, L * d, 2));
    const v = Float32Array.from(randomMatrix(random, L * d));
    const wo = Float32Array.from(randomMatrix(random, d * d, 1 / Math.sqrt(d)));
    const layer = mha.createLayer({ dModel: d, heads: h, maxLen: L });
    for (const withWo of [false, true]) {
      const args = { q, k, v, wo: withWo ? wo : undefined, causal: false };
      const fast = tensors(layer.forward(args), h);
      const plain = tensors(layer.forward({ ...args, plain: true }), h);
      compare(fast, plain, 2e-5 * Math.sqrt(d), `L ${L}, d ${d}, h ${h}, W^O ${withWo}`);
    }
    layer.dispose();
  }
});
