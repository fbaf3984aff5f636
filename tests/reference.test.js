// The C core against the independent float64 reference, on seeded random shapes.
import test from 'node:test';
import assert from 'node:assert/strict';
import { loadAttention } from '../web/src/attention.js';
import { referenceAttention } from './reference.js';
import { seededRandom, randomMatrix, maxAbsDiff } from './seeded.js';

const mha = await loadAttention();

// [L, d, h]: one head, one column per head, one token, odd sizes, GPT-2's width.
const shapes = [
  [1, 4, 1], [1, 8, 8], [3, 4, 2], [3, 4, 4], [5, 6, 3], [7, 5, 5], [9, 12, 1], [16, 64, 8],
  [17, 30, 6], [33, 16, 16], [64, 64, 4], [4, 768, 12], [6, 768, 1],
];

for (const [L, d, h] of shapes) {
  for (const causal of [false, true]) {
    test(`L ${L}, d_model ${d}, h ${h}, causal ${causal}: projection mode matches the reference`, () => {
      const random = seededRandom(L * 1000 + d * 10 + h + (causal ? 7 : 0));
      const spread = 1 / Math.sqrt(d); // keeps the scores in a range where softmax is not one-hot
      const inputs = {
        x: randomMatrix(random, L * d, 1),
        wq: randomMatrix(random, d * d, spread * 2),
        wk: randomMatrix(random, d * d, spread * 2),
        wv: randomMatrix(random, d * d, spread),
        wo: randomMatrix(random, d * d, spread),
      };
      const scale = random() < 0.8;
      const layer = mha.createLayer({ dModel: d, heads: h, maxLen: L });
      layer.forward({ ...inputs, causal, scale });
      const want = referenceAttention({ ...inputs, d, h, causal, scale });
      const tolerance = 2e-5 * Math.sqrt(d);
      assert.ok(maxAbsDiff(layer.q(), want.q) < tolerance, 'Q');
      for (let i = 0; i < h; i++) {
        assert.ok(maxAbsDiff(layer.scores(i), want.scores[i]) < tolerance, `scores of head ${i}`);
        assert.ok(maxAbsDiff(layer.attention(i), want.attention[i]) < tolerance, `attention of head ${i}`);
        assert.ok(maxAbsDiff(layer.headOutput(i), want.heads[i]) < tolerance, `output of head ${i}`);
      }
      assert.ok(maxAbsDiff(layer.concat(), want.concat) < tolerance, 'concat');
      assert.ok(maxAbsDiff(layer.output(), want.output) < tolerance, 'output');
      layer.dispose();
    });
  }
}

test('QKV mode with W^O matches the reference, h = d_model', () => {
  const random = seededRandom(42);
  const [L, d, h] = [5, 8, 8];
  const inputs = { q: randomMatrix(random, L * d, 2), k: randomMatrix(random, L * d, 2), v: randomMatrix(random, L * d), wo: randomMatrix(random, d * d) };
  const layer = mha.createLayer({ dModel: d, heads: h, maxLen: 10 });
  layer.forward({ ...inputs, causal: false });
  const want = referenceAttention({ ...inputs, d, h, causal: false });
  assert.ok(maxAbsDiff(layer.output(), want.output) < 1e-5);
  layer.dispose();
});
