// Grouped-query and multi-query attention against PyTorch in float64: tests/fixtures/gqa.json, made by
// tests/fixtures/make_gqa_fixtures.py (torch 1.13: K/V repeated per group with repeat_interleave, then the math
// of scaled_dot_product_attention). The inputs are exact in float32; the tolerance is reference.test.js's.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadAttention } from '../web/src/attention.js';
import { maxAbsDiff } from './seeded.js';

const mha = await loadAttention();
const { cases } = JSON.parse(readFileSync(new URL('./fixtures/gqa.json', import.meta.url), 'utf8'));

test('the fixture covers MQA, GQA and MHA, with and without the causal mask', () => {
  assert.ok(cases.length >= 50, `${cases.length} cases`);
  for (const kind of [(c) => c.kvHeads === 1 && c.h > 1, (c) => c.kvHeads === c.h, (c) => c.kvHeads > 1 && c.kvHeads < c.h]) {
    assert.ok(cases.some((c) => kind(c) && c.causal) && cases.some((c) => kind(c) && !c.causal));
  }
});

test('every case: each head\'s weights and the concat match torch in float64', () => {
  for (const { L, d, h, kvHeads, causal, q, k, v, attention, concat } of cases) {
    const where = `L ${L}, d ${d}, h ${h}, kvHeads ${kvHeads}, causal ${causal}`;
    const layer = mha.createLayer({ dModel: d, heads: h, maxLen: L, kvHeads });
    layer.forward({ q, k, v, causal });
    const tolerance = 2e-5 * Math.sqrt(d);
    for (let i = 0; i < h; i++) {
      const error = maxAbsDiff(layer.attention(i), attention.slice(i * L * L, (i + 1) * L * L));
      assert.ok(error < tolerance, `${where}: head ${i}'s weights off by ${error}`);
    }
    const error = maxAbsDiff(layer.concat(), concat);
    assert.ok(error < tolerance, `${where}: concat off by ${error}`);
    layer.dispose();
  }
});
