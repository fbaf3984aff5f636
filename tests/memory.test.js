// The heap must not creep: layers free what they take, and views are never stale after growth.
import test from 'node:test';
import assert from 'node:assert/strict';
import { loadAttention } from '../web/src/attention.js';
import { seededRandom, randomMatrix } from './seeded.js';

const mha = await loadAttention();

test('thousands of create / forward / dispose cycles leave the heap flat after warm-up', () => {
  const random = seededRandom(7);
  const cycle = () => {
    const h = 1 + Math.floor(random() * 8), dk = 1 + Math.floor(random() * 16), L = 1 + Math.floor(random() * 64);
    const d = h * dk;
    const layer = mha.createLayer({ dModel: d, heads: h, maxLen: L + Math.floor(random() * 16) });
    const q = randomMatrix(random, L * d);
    layer.forward({ q, k: q, v: q, wo: randomMatrix(random, d * d) });
    layer.dispose();
    mha.randomState(Math.floor(random() * 1000)).randn(L, d);
  };
  for (let i = 0; i < 300; i++) cycle();
  const warm = mha.memoryBytes();
  for (let i = 0; i < 3000; i++) cycle();
  assert.equal(mha.memoryBytes(), warm);
});

test('views taken after the heap grows see the new memory', () => {
  const small = mha.createLayer({ dModel: 4, heads: 2, maxLen: 3 });
  const q = [[1, 1, 0, 0], [0, 2, 0, 2], [0, 0, 1, 1]];
  small.forward({ q, k: q, v: q });
  const before = mha.memoryBytes();
  const big = mha.createLayer({ dModel: 512, heads: 8, maxLen: 1024 }); // ~70 MB: forces growth
  assert.ok(mha.memoryBytes() > before, 'the heap grew');
  const a = small.attention(0);
  assert.equal(a.length, 9);
  assert.equal(a[0], 1, 'causal 猫 row starts with 1');
  big.dispose();
  small.dispose();
});
