// Bad input gets an MHAError with a code and a readable message, and the instance keeps working.
import test from 'node:test';
import assert from 'node:assert/strict';
import { loadAttention, MHAError } from '../web/src/attention.js';
import { round2 } from './seeded.js';

const mha = await loadAttention();
const lesson = {
  q: [[1, 1, 0, 0], [0, 2, 0, 2], [0, 0, 1, 1]],
  k: [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]],
  v: [[1, 0, 1, 0], [0, 1, 0, 1], [2, 0, 0, 2]],
};

/** Runs `bad`, expects an MHAError with `code` and a message matching `message`, then a good forward. */
function rejects(bad, code, message) {
  assert.throws(bad, (error) => {
    assert.ok(error instanceof MHAError, `an MHAError, got ${error}`);
    assert.equal(error.code, code);
    assert.match(error.message, message);
    return true;
  });
  const layer = mha.createLayer({ dModel: 4, heads: 2, maxLen: 3 });
  layer.forward({ ...lesson, causal: false });
  assert.deepEqual(round2(layer.attention(0).subarray(0, 3)), [0.25, 0.25, 0.5], 'the instance still computes');
  layer.dispose();
}

const withEntry = (rows, r, c, value) => rows.map((row, i) => row.map((x, j) => (i === r && j === c ? value : x)));

test('a head count that does not divide d_model', () => {
  rejects(() => mha.createLayer({ dModel: 768, heads: 7, maxLen: 4 }), 'HEADS_NOT_DIVISOR', /heads 7 does not divide d_model 768/);
  rejects(() => mha.paramCount({ dModel: 10, heads: 4 }), 'HEADS_NOT_DIVISOR', /heads 4 does not divide d_model 10/);
});

test('K/V heads that do not divide the heads, more of them than heads, negative or not a number', () => {
  const details = (kvHeads, heads) => (error) => error.code === 'KV_HEADS_NOT_DIVISOR' && error.details.kvHeads === kvHeads && error.details.heads === heads;
  rejects(() => mha.createLayer({ dModel: 8, heads: 4, maxLen: 4, kvHeads: 3 }), 'KV_HEADS_NOT_DIVISOR', /kvHeads 3 does not divide heads 4/);
  rejects(() => mha.createLayer({ dModel: 8, heads: 4, maxLen: 4, kvHeads: 8 }), 'KV_HEADS_NOT_DIVISOR', /kvHeads 8 does not divide heads 4/);
  assert.throws(() => mha.createLayer({ dModel: 8, heads: 4, maxLen: 4, kvHeads: 3 }), details(3, 4), 'details name both counts');
  assert.throws(() => mha.paramCount({ dModel: 768, heads: 12, kvHeads: 5 }), details(5, 12));
  rejects(() => mha.createLayer({ dModel: 8, heads: 4, maxLen: 4, kvHeads: -1 }), 'BAD_SIZE', /kvHeads must be a whole number ≥ 0, got -1/);
  rejects(() => mha.createLayer({ dModel: 8, heads: 4, maxLen: 4, kvHeads: NaN }), 'BAD_SIZE', /kvHeads must be a whole number ≥ 0, got NaN/);
  rejects(() => mha.createLayer({ dModel: 8, heads: 4, maxLen: 4, kvHeads: '2' }), 'BAD_SIZE', /got "2"/);
  rejects(() => mha.paramCount({ dModel: 8, heads: 4, kvHeads: 1.5 }), 'BAD_SIZE', /kvHeads must be a whole number ≥ 0, got 1.5/);
  rejects(() => mha.paramCount({ dModel: 8, heads: 4, bytesPerValue: 0 }), 'BAD_SIZE', /bytesPerValue must be a positive whole number, got 0/);
  rejects(() => mha.paramCount({ dModel: 8, heads: 4, bytesPerValue: 65 }), 'BAD_SIZE', /bytesPerValue must be 1 to 64, got 65/);
  // Shared K/V heads are kvHeads·d_k wide: k, v, wk and wv of the multi-head widths are refused, naming the width.
  const layer = mha.createLayer({ dModel: 4, heads: 2, maxLen: 3, kvHeads: 1 });
  rejects(() => layer.forward(lesson), 'BAD_LENGTH', /k must be q's 3 rows of 2 numbers \(6\): q has 12 numbers, k has 12/);
  rejects(() => layer.forward({ x: lesson.q, wq: new Float32Array(16), wk: new Float32Array(6), wv: new Float32Array(8) }), 'BAD_LENGTH', /wk must be d_model × kvHeads·d_k = 4×2 = 8 numbers, got 6/);
  rejects(() => layer.kvGroup(2), 'HEAD_INDEX', /head 2 does not exist/);
  layer.forward({ q: lesson.q, k: lesson.k.map((row) => row.slice(0, 2)), v: lesson.v.map((row) => row.slice(0, 2)) });
  assert.equal(layer.length, 3, 'the right widths compute');
  layer.dispose();
});

test('zero, negative and non-whole sizes', () => {
  rejects(() => mha.createLayer({ dModel: 0, heads: 1, maxLen: 4 }), 'BAD_SIZE', /d_model must be a positive whole number, got 0/);
  rejects(() => mha.createLayer({ dModel: 4, heads: -2, maxLen: 4 }), 'BAD_SIZE', /heads must be a positive whole number, got -2/);
  rejects(() => mha.createLayer({ dModel: 4, heads: 2, maxLen: 0 }), 'BAD_SIZE', /maxLen must be a positive whole number, got 0/);
  rejects(() => mha.createLayer({ dModel: 4.5, heads: 1, maxLen: 4 }), 'BAD_SIZE', /d_model must be a positive whole number, got 4.5/);
  rejects(() => mha.createLayer({ dModel: '4', heads: 1, maxLen: 4 }), 'BAD_SIZE', /got "4"/);
  rejects(() => mha.createLayer(), 'BAD_SIZE', /got undefined/);
  rejects(() => mha.paramCount({ dModel: NaN, heads: 1 }), 'BAD_SIZE', /got NaN/);
});

test('sizes too large to allocate', () => {
  rejects(() => mha.createLayer({ dModel: 4096, heads: 64, maxLen: 100000 }), 'TOO_LARGE', /maxLen 100000 would need \d+ MB/);
  rejects(() => mha.createLayer({ dModel: 4, heads: 2, maxLen: 2 ** 40 }), 'TOO_LARGE', /maxLen 1099511627776 is far too large/);
  // Each fits the per-layer limit, but not all at once in a 2 GB heap.
  const held = [];
  assert.throws(() => {
    for (let i = 0; i < 4; i++) held.push(mha.createLayer({ dModel: 1024, heads: 64, maxLen: 2048 }));
  }, (error) => error.code === 'OUT_OF_MEMORY' && /not enough memory for d_model 1024, heads 64, maxLen 2048/.test(error.message));
  assert.ok(held.length >= 1, 'the largest promised shape fits at least once');
  held.forEach((layer) => layer.dispose());
  const layer = mha.createLayer({ dModel: 4, heads: 2, maxLen: 3 });
  assert.deepEqual(round2(layer.forward({ ...lesson, causal: false }).attention(0).subarray(0, 3)), [0.25, 0.25, 0.5]);
  layer.dispose();
});

test('NaN or ±Infinity anywhere in the inputs or weights', () => {
  const layer = mha.createLayer({ dModel: 4, heads: 2, maxLen: 3 });
  rejects(() => layer.forward({ ...lesson, q: withEntry(lesson.q, 1, 2, NaN) }), 'NOT_FINITE', /q has NaN at row 1, column 2/);
  rejects(() => layer.forward({ ...lesson, v: withEntry(lesson.v, 2, 3, Infinity) }), 'NOT_FINITE', /v has Infinity at row 2, column 3/);
  rejects(() => layer.forward({ ...lesson, k: withEntry(lesson.k, 0, 0, -Infinity) }), 'NOT_FINITE', /k has -Infinity at row 0, column 0/);
  const wo = Array.from({ length: 16 }, (_, i) => (i === 9 ? NaN : 0));
  rejects(() => layer.forward({ ...lesson, wo }), 'NOT_FINITE', /wo has NaN at row 2, column 1/);
  const eye = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
  const x = lesson.q.flat();
  rejects(() => layer.forward({ x, wq: eye, wk: eye.map((w, i) => (i === 15 ? NaN : w)), wv: eye }), 'NOT_FINITE', /wk has NaN at row 3, column 3/);
  rejects(() => layer.forward({ ...lesson, q: withEntry(lesson.q, 0, 1, 1e39) }), 'NOT_FINITE', /q has Infinity at row 0, column 1/);
  rejects(() => layer.forward({ ...lesson, q: withEntry(lesson.q, 0, 1, 'a') }), 'BAD_ARGUMENT', /q\[0\]\[1\] must be a number, got "a"/);
  layer.forward({ ...lesson, causal: false });
  assert.deepEqual(round2(layer.attention(1).subarray(3, 6)), [0.16, 0.67, 0.16], 'the same layer still works');
  layer.dispose();
});

test('a sequence longer than maxLen, lengths that do not fit, missing inputs', () => {
  const layer = mha.createLayer({ dModel: 4, heads: 2, maxLen: 3 });
  const four = [...lesson.q, [1, 2, 3, 4]];
  rejects(() => layer.forward({ q: four, k: four, v: four }), 'SEQ_TOO_LONG', /4 tokens but this layer was created with maxLen 3/);
  rejects(() => layer.forward({ q: [1, 2, 3, 4, 5], k: [1, 2, 3, 4, 5], v: [1, 2, 3, 4, 5] }), 'BAD_LENGTH', /q has 5 numbers, which is not a whole number of rows of d_model 4/);
  rejects(() => layer.forward({ ...lesson, v: lesson.v.slice(0, 2) }), 'BAD_LENGTH', /q has 12 numbers, v has 8/);
  rejects(() => layer.forward({ ...lesson, q: [[1, 1, 0, 0], [0, 2, 0]] }), 'BAD_LENGTH', /row 0 has 4 numbers, row 1 has 3/);
  rejects(() => layer.forward({ ...lesson, wo: [1, 0, 0, 1] }), 'BAD_LENGTH', /wo must be d_model × d_model = 4×4 = 16 numbers, got 4/);
  rejects(() => layer.forward({ x: lesson.q, wq: new Float32Array(16) }), 'BAD_INPUT', /projection mode needs wk/);
  rejects(() => layer.forward({ q: lesson.q, k: lesson.k }), 'BAD_INPUT', /v is missing/);
  rejects(() => layer.forward({ x: lesson.q, ...lesson }), 'BAD_INPUT', /not both/);
  rejects(() => layer.forward({ ...lesson, wq: lesson.q }), 'BAD_INPUT', /wq, wk and wv project x/);
  rejects(() => layer.forward({ q: [], k: [], v: [] }), 'BAD_SIZE', /the sequence is empty/);
  rejects(() => layer.forward({ q: 'abc', k: [], v: [] }), 'BAD_ARGUMENT', /q must be an array of numbers/);
  rejects(() => layer.forward({ ...lesson, enabled: [true] }), 'BAD_LENGTH', /one true\/false per head \(2\)/);
  layer.dispose();
});

test('a head index out of range, and results before any forward', () => {
  const layer = mha.createLayer({ dModel: 4, heads: 2, maxLen: 3 });
  rejects(() => layer.output(), 'NO_FORWARD', /call forward first/);
  layer.forward({ ...lesson });
  rejects(() => layer.attention(2), 'HEAD_INDEX', /head 2 does not exist: this layer has heads 0 to 1/);
  rejects(() => layer.scores(-1), 'HEAD_INDEX', /head -1 does not exist/);
  rejects(() => layer.headOutput(0.5), 'HEAD_INDEX', /head 0.5 does not exist/);
  rejects(() => layer.attention('0'), 'HEAD_INDEX', /head "0" does not exist/);
  layer.dispose();
});

test('a forward refused by the checks leaves no result, as one the core refuses does', () => {
  const layer = mha.createLayer({ dModel: 4, heads: 2, maxLen: 3 });
  const refusals = [[{ ...lesson, v: lesson.v.slice(0, 2) }, 'BAD_LENGTH'], [{ q: [], k: [], v: [] }, 'BAD_SIZE'],
    [{ ...lesson, enabled: [true] }, 'BAD_LENGTH'], [{ ...lesson, mask: true }, 'BAD_ARGUMENT'], [{ ...lesson, wo: [1, 0, 0, 1] }, 'BAD_LENGTH'], [{ ...lesson, q: [[NaN, 1, 0, 0], ...lesson.q.slice(1)] }, 'NOT_FINITE']];
  for (const [options, code] of refusals) {
    layer.forward({ ...lesson });
    rejects(() => layer.forward(options), code, /./);
    assert.equal(layer.length, 0, `${code}: no length`);
    for (const read of [() => layer.output(), () => layer.attention(0), () => layer.q()]) rejects(read, 'NO_FORWARD', /call forward first/);
  }
  layer.forward({ ...lesson });
  assert.equal(layer.length, 3);
  layer.dispose();
});

test('a call on a disposed layer', () => {
  const layer = mha.createLayer({ dModel: 4, heads: 2, maxLen: 3 });
  layer.forward({ ...lesson });
  layer.dispose();
  layer.dispose(); // twice is harmless
  rejects(() => layer.forward({ ...lesson }), 'DISPOSED', /disposed/);
  rejects(() => layer.attention(0), 'DISPOSED', /disposed/);
});

test('bad seeds for the random generator', () => {
  for (const seed of [-1, 2 ** 32, 1.5, NaN, '10', undefined]) {
    rejects(() => mha.randomState(seed), 'BAD_ARGUMENT', /seed must be a whole number from 0 to 4294967295/);
  }
  rejects(() => mha.randomState(1).randn(2, -1), 'BAD_ARGUMENT', /whole numbers ≥ 0, got -1/);
});
