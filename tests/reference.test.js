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

// Shared K/V heads (grouped-query and multi-query attention): [L, d, h, kvHeads].
const kvShapes = [[3, 4, 2, 1], [5, 8, 4, 2], [7, 12, 6, 3], [9, 16, 8, 1], [16, 64, 8, 2], [33, 48, 12, 4], [70, 64, 8, 4], [4, 768, 12, 1]];

for (const [L, d, h, kvHeads] of kvShapes) {
  test(`L ${L}, d_model ${d}, h ${h}, kvHeads ${kvHeads}: both modes match the reference, causal and not`, () => {
    const random = seededRandom(L * 1000 + d * 10 + h * 3 + kvHeads);
    const spread = 1 / Math.sqrt(d), kvd = (d / h) * kvHeads;
    const inputs = {
      x: randomMatrix(random, L * d, 1), wq: randomMatrix(random, d * d, spread * 2), wk: randomMatrix(random, d * kvd, spread * 2),
      wv: randomMatrix(random, d * kvd, spread), wo: randomMatrix(random, d * d, spread),
    };
    const qkv = { q: randomMatrix(random, L * d, 1), k: randomMatrix(random, L * kvd, 1), v: randomMatrix(random, L * kvd, 1) };
    const layer = mha.createLayer({ dModel: d, heads: h, maxLen: L, kvHeads });
    const tolerance = 2e-5 * Math.sqrt(d);
    for (const causal of [false, true]) {
      for (const given of [inputs, { ...qkv, wo: inputs.wo }]) {
        layer.forward({ ...given, causal });
        const want = referenceAttention({ ...given, d, h, kvHeads, causal });
        assert.ok(maxAbsDiff(layer.k(), want.k) < tolerance, 'K, L × kvHeads·d_k');
        for (let i = 0; i < h; i++) {
          assert.equal(layer.kvGroup(i), Math.floor((i * kvHeads) / h));
          assert.ok(maxAbsDiff(layer.attention(i), want.attention[i]) < tolerance, `attention of head ${i}`);
          assert.ok(maxAbsDiff(layer.headOutput(i), want.heads[i]) < tolerance, `output of head ${i}`);
        }
        assert.ok(maxAbsDiff(layer.output(), want.output) < tolerance, 'output');
      }
    }
    layer.dispose();
  });
}

test('seeded property: kvHeads = h is multi-head attention bit for bit; kvHeads = 1 gives every head the same K', () => {
  const random = seededRandom(37);
  for (let round = 0; round < 40; round++) {
    const h = 1 + Math.floor(random() * 6), dk = 1 + Math.floor(random() * 5), d = h * dk, L = 1 + Math.floor(random() * 9);
    const inputs = { x: randomMatrix(random, L * d, 1), wq: randomMatrix(random, d * d), wk: randomMatrix(random, d * d), wv: randomMatrix(random, d * d) };
    const causal = random() < 0.5;
    const plain = referenceAttention({ ...inputs, d, h, causal }), same = referenceAttention({ ...inputs, d, h, kvHeads: h, causal });
    for (const name of ['scores', 'attention', 'heads']) assert.deepEqual(same[name], plain[name], `reference ${name}, round ${round}`);
    assert.deepEqual(same.output, plain.output);
    // The core too: a layer given kvHeads = h is the layer without it, bit for bit.
    const [a, b] = [undefined, h].map((kvHeads) => mha.createLayer({ dModel: d, heads: h, maxLen: L, kvHeads }));
    a.forward({ ...inputs, causal });
    b.forward({ ...inputs, causal });
    assert.deepEqual(b.output(), a.output(), `core output, round ${round}`);
    for (let i = 0; i < h; i++) assert.deepEqual(b.attention(i), a.attention(i));
    a.dispose();
    b.dispose();
    // kvHeads = 1: one K (and V) for all heads, d × d_k weights.
    const mqa = { ...inputs, wk: randomMatrix(random, d * dk), wv: randomMatrix(random, d * dk) };
    const one = referenceAttention({ ...mqa, d, h, kvHeads: 1, causal });
    for (let i = 1; i < h; i++) assert.deepEqual(one.keys[i], one.keys[0], `head ${i}'s K is head 0's, round ${round}`);
  }
});
