// The lesson's two numpy programs (§六), rebuilt from the numpy-compatible generator and
// compared with what numpy computed (tests/fixtures/numpy.json, made by make_fixtures.py).
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadAttention } from '../web/src/attention.js';
import { maxAbsDiff } from './seeded.js';

const fixtures = JSON.parse(readFileSync(new URL('./fixtures/numpy.json', import.meta.url)));
const mha = await loadAttention();
const flat = (rows) => Float64Array.from(rows.flat(Infinity));
const scaled = (values, factor) => values.map((value) => value * factor);

/** Draws the demo's matrices in the demo's order from RandomState(seed). */
function drawDemo(seed, xShape, order, factors) {
  const rs = mha.randomState(seed);
  const drawn = {};
  for (const name of order) drawn[name] = name === 'X' ? rs.randn(...xShape) : scaled(rs.randn(8, 8), factors[name]);
  return drawn;
}

test('seed 10 demo: X and the weights are numpy’s exact doubles, and every head matches numpy', () => {
  const demo = fixtures.demo10;
  const drawn = drawDemo(10, [3, 8], ['X', 'Wq', 'Wk', 'Wv', 'Wo'], demo.weightScale);
  for (const name of ['X', 'Wq', 'Wk', 'Wv', 'Wo']) assert.deepEqual(Array.from(drawn[name]), Array.from(flat(demo[name])), name);

  const layer = mha.createLayer({ dModel: 8, heads: 2, maxLen: 3 });
  layer.forward({ x: drawn.X, wq: drawn.Wq, wk: drawn.Wk, wv: drawn.Wv, wo: drawn.Wo, causal: true, scale: true });
  demo.heads.forEach((head, i) => {
    assert.ok(maxAbsDiff(layer.attention(i), flat(head.A)) < 1e-5, `A_${i + 1}`);
    assert.ok(maxAbsDiff(layer.headOutput(i), flat(head.head)) < 1e-4, `head_${i + 1}`);
  });
  assert.ok(maxAbsDiff(layer.concat(), flat(demo.concat)) < 1e-4, 'concat');
  assert.ok(maxAbsDiff(layer.output(), flat(demo.output)) < 1e-4, 'output');
  layer.dispose();
});

test('seed 11 demo: the attention tables print as numpy prints them', () => {
  const demo = fixtures.demo11;
  const drawn = drawDemo(11, [4, 8], ['X', 'Wq', 'Wk', 'Wv', 'Wo'], demo.weightScale);
  for (const name of ['X', 'Wq', 'Wk', 'Wv', 'Wo']) assert.deepEqual(Array.from(drawn[name]), Array.from(flat(demo[name])), name);

  const layer = mha.createLayer({ dModel: 8, heads: 2, maxLen: 4 });
  layer.forward({ x: drawn.X, wq: drawn.Wq, wk: drawn.Wk, wv: drawn.Wv, wo: drawn.Wo });
  demo.A.forEach((table, i) => {
    const got = layer.attention(i);
    assert.ok(maxAbsDiff(got, flat(table)) < 1e-5, `A[${i}]`);
    // numpy's precision=2 print of row 3, rebuilt from our numbers.
    const row3 = Array.from(got.subarray(12, 16), (value) => value.toFixed(2));
    const printed = demo.printedRow3[i].replace(/[[\]]/g, '').trim().split(/\s+/).map(Number);
    assert.deepEqual(row3.map(Number), printed, `row 3 of head ${i + 1}`);
  });
  assert.ok(maxAbsDiff(layer.output(), flat(demo.output)) < 1e-4, 'output');
  assert.equal(layer.output().length, 4 * 8, 'output shape (4, 8)');
  layer.dispose();
});
