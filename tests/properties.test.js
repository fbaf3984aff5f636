// Properties that hold for every input, checked on seeded random cases.
import test from 'node:test';
import assert from 'node:assert/strict';
import { loadAttention } from '../web/src/attention.js';
import { seededRandom, randomMatrix } from './seeded.js';

const mha = await loadAttention();
const random = seededRandom(2024);
const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));

/** Fisher–Yates, driven by the seeded generator. */
function shuffled(items) {
  for (let i = items.length - 1; i > 0; i--) {
    const j = int(0, i);
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

/** A random QKV case: L tokens, h heads of d_k columns. */
function randomCase() {
  const h = int(1, 6), dk = int(1, 5), L = int(1, 12);
  const d = h * dk;
  return { L, d, h, dk, q: randomMatrix(random, L * d, 3), k: randomMatrix(random, L * d, 3), v: randomMatrix(random, L * d, 3) };
}

test('every attention row sums to 1, and masked entries are exactly 0', () => {
  for (let n = 0; n < 200; n++) {
    const { L, d, h, q, k, v } = randomCase();
    const causal = n % 2 === 0;
    const layer = mha.createLayer({ dModel: d, heads: h, maxLen: L });
    layer.forward({ q, k, v, causal });
    for (let i = 0; i < h; i++) {
      const a = layer.attention(i);
      for (let r = 0; r < L; r++) {
        const row = a.subarray(r * L, r * L + L);
        assert.ok(Math.abs(row.reduce((s, x) => s + x, 0) - 1) < 1e-5, `row ${r} of head ${i} sums to 1`);
        if (causal) for (let c = r + 1; c < L; c++) assert.equal(row[c], 0, `masked (${r}, ${c})`);
        assert.ok(row.every((x) => x >= 0));
      }
    }
    layer.dispose();
  }
});

test('a switched-off head zeroes exactly its own concat columns and nothing else', () => {
  for (let n = 0; n < 100; n++) {
    const { L, d, h, dk, q, k, v } = randomCase();
    const off = int(0, h - 1);
    const layer = mha.createLayer({ dModel: d, heads: h, maxLen: L });
    const all = layer.forward({ q, k, v }).concat().slice();
    const enabled = Array.from({ length: h }, (_, i) => i !== off);
    const ablated = layer.forward({ q, k, v, enabled }).concat();
    for (let r = 0; r < L; r++) {
      for (let c = 0; c < d; c++) {
        const mine = Math.floor(c / dk) === off;
        assert.equal(ablated[r * d + c], mine ? 0 : all[r * d + c], `row ${r}, column ${c}`);
      }
    }
    layer.dispose();
  }
});

test('permuting the heads of q, k, v permutes the concat blocks the same way', () => {
  const permuteBlocks = (a, L, d, dk, order) => {
    const out = new Float64Array(a.length);
    for (let r = 0; r < L; r++) order.forEach((from, to) => {
      for (let c = 0; c < dk; c++) out[r * d + to * dk + c] = a[r * d + from * dk + c];
    });
    return out;
  };
  for (let n = 0; n < 100; n++) {
    const { L, d, h, dk, q, k, v } = randomCase();
    const order = shuffled(Array.from({ length: h }, (_, i) => i));
    const layer = mha.createLayer({ dModel: d, heads: h, maxLen: L });
    const plain = layer.forward({ q, k, v }).concat().slice();
    const [pq, pk, pv] = [q, k, v].map((a) => permuteBlocks(a, L, d, dk, order));
    const permuted = layer.forward({ q: pq, k: pk, v: pv }).concat();
    assert.deepEqual(Array.from(permuted), Array.from(permuteBlocks(plain, L, d, dk, order)));
    layer.dispose();
  }
});

test('the split bill is 4·d_model² for every head count that divides d_model', () => {
  for (let n = 0; n < 200; n++) {
    const d = int(1, 2048);
    const divisors = Array.from({ length: d }, (_, i) => i + 1).filter((h) => d % h === 0);
    const heads = divisors[int(0, divisors.length - 1)];
    const { naive, split } = mha.paramCount({ dModel: d, heads });
    assert.equal(split, 4 * d * d);
    assert.equal(naive, heads * 3 * d * d);
  }
});
