// The lesson's own numbers: the 猫吃鱼 table (§三), the shape chain and the bill (§一, §六).
import test from 'node:test';
import assert from 'node:assert/strict';
import { loadAttention } from '../web/src/attention.js';
import { round2 } from './seeded.js';

const mha = await loadAttention();

// 猫, 吃, 鱼 × 4 dims, exactly as the lesson's table gives them.
const lesson = {
  q: [[1, 1, 0, 0], [0, 2, 0, 2], [0, 0, 1, 1]],
  k: [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]],
  v: [[1, 0, 1, 0], [0, 1, 0, 1], [2, 0, 0, 2]],
};

test('猫吃鱼 with h = 2, scale on and the mask off reproduces the lesson table', () => {
  const layer = mha.createLayer({ dModel: 4, heads: 2, maxLen: 3 });
  layer.forward({ ...lesson, causal: false });
  assert.deepEqual(round2(layer.attention(0)), [0.25, 0.25, 0.5, 0.11, 0.45, 0.45, 0.33, 0.33, 0.33]);
  assert.deepEqual(round2(layer.attention(1)), [0.33, 0.33, 0.33, 0.16, 0.67, 0.16, 0.4, 0.4, 0.2]);
  assert.deepEqual(round2(layer.headOutput(0).subarray(0, 2)), [1.26, 0.25]);
  assert.deepEqual(round2(layer.headOutput(1).subarray(0, 2)), [0.33, 1.0]);
  assert.deepEqual(round2(layer.concat().subarray(0, 4)), [1.26, 0.25, 0.33, 1.0]);
  assert.deepEqual(round2(layer.scores(0).subarray(0, 3)), [0.71, 0.71, 1.41], 'scaled scores of 猫 in head 1');
  assert.deepEqual(Array.from(layer.output()), Array.from(layer.concat()), 'W^O defaults to the identity');
  layer.dispose();
});

test('猫吃鱼 with the causal mask: 猫 sees only itself, the upper triangle is exactly 0', () => {
  const layer = mha.createLayer({ dModel: 4, heads: 2, maxLen: 3 });
  layer.forward({ ...lesson, causal: true });
  for (const head of [0, 1]) {
    const a = layer.attention(head);
    assert.deepEqual(Array.from(a.subarray(0, 3)), [1, 0, 0]);
    assert.equal(a[5], 0);
  }
  // Scores are before the mask, so the masked half is still there to draw.
  assert.deepEqual(round2(layer.scores(0).subarray(0, 3)), [0.71, 0.71, 1.41]);
  layer.dispose();
});

test('scale off divides by nothing: head 1 猫 scores are the raw dot products', () => {
  const layer = mha.createLayer({ dModel: 4, heads: 2, maxLen: 3 });
  layer.forward({ ...lesson, causal: false, scale: false });
  assert.deepEqual(Array.from(layer.scores(0).subarray(0, 3)), [1, 1, 2]);
  layer.dispose();
});

test('the shape chain of the first demo: X 3×8, h = 2 → Q_i 3×4, A_i 3×3, head 3×4, concat 3×8, output 3×8', () => {
  const layer = mha.createLayer({ dModel: 8, heads: 2, maxLen: 3 });
  const rs = mha.randomState(10);
  const x = rs.randn(3, 8);
  const [wq, wk, wv] = [0, 1, 2].map(() => rs.randn(8, 8).map((w) => w * 0.5));
  layer.forward({ x, wq, wk, wv, wo: rs.randn(8, 8) });
  assert.equal(layer.length, 3);
  assert.equal(layer.dK, 4);
  assert.equal(layer.q().length, 3 * 8);
  assert.equal(layer.attention(0).length, 3 * 3);
  assert.equal(layer.headOutput(1).length, 3 * 4);
  assert.equal(layer.concat().length, 3 * 8);
  assert.equal(layer.output().length, 3 * 8);
  layer.dispose();
});

test("the bill: GPT-2's naive 21,233,664 against split 2,359,296, and 4·d² whatever h", () => {
  assert.deepEqual(mha.paramCount({ dModel: 768, heads: 12 }), { naive: 21233664, split: 2359296, wq: 589824, wk: 589824, wv: 589824, wo: 589824, kvCacheBytes: 6144 });
  for (const heads of [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 768]) {
    const { naive, split } = mha.paramCount({ dModel: 768, heads });
    assert.equal(split, 4 * 768 * 768, `split for h = ${heads}`);
    assert.equal(naive, heads * 3 * 768 * 768, `naive for h = ${heads}`);
  }
  assert.equal(mha.paramCount({ dModel: 4096, heads: 32 }).naive, 32 * 3 * 4096 * 4096, 'large counts stay exact');
});

test('the bill of shared K/V heads: Llama-2-70B-like GQA and MQA, each weight and a token\'s cache from the core', () => {
  // d 8192, 64 query heads, 8 K/V heads of 128: W_K and W_V are 8192 × 1024; a token's K and V in float16, 4 KB.
  assert.deepEqual(mha.paramCount({ dModel: 8192, heads: 64, kvHeads: 8, bytesPerValue: 2 }), {
    naive: 64 * 3 * 8192 ** 2, split: 2 * 8192 ** 2 + 2 * 8192 * 1024, wq: 8192 ** 2, wk: 8192 * 1024, wv: 8192 * 1024, wo: 8192 ** 2, kvCacheBytes: 4096,
  });
  for (const kvHeads of [1, 2, 3, 4, 6, 12]) {
    const bill = mha.paramCount({ dModel: 768, heads: 12, kvHeads });
    assert.equal(bill.split, 2 * 768 ** 2 + 2 * 768 * kvHeads * 64, `split for h_kv = ${kvHeads}`);
    assert.equal(bill.kvCacheBytes, 2 * kvHeads * 64 * 4, `cache for h_kv = ${kvHeads}`);
  }
  assert.deepEqual(mha.paramCount({ dModel: 768, heads: 12, kvHeads: 12 }), mha.paramCount({ dModel: 768, heads: 12 }), 'h_kv = h is the multi-head bill');
  const layer = mha.createLayer({ dModel: 12, heads: 6, maxLen: 2, kvHeads: 2 });
  assert.deepEqual([0, 1, 2, 3, 4, 5].map((i) => layer.kvGroup(i)), [0, 0, 0, 1, 1, 1]);
  assert.equal(layer.kvWidth, 4);
  layer.dispose();
});

test('inputs may be flat arrays, nested arrays or Float32Arrays, with the same result', () => {
  const layer = mha.createLayer({ dModel: 4, heads: 2, maxLen: 3 });
  const flat = Object.fromEntries(Object.entries(lesson).map(([name, rows]) => [name, rows.flat()]));
  const typed = Object.fromEntries(Object.entries(flat).map(([name, values]) => [name, Float32Array.from(values)]));
  const results = [lesson, flat, typed].map((inputs) => Array.from(layer.forward({ ...inputs, causal: false }).output()));
  assert.deepEqual(results[1], results[0]);
  assert.deepEqual(results[2], results[0]);
  layer.dispose();
});
