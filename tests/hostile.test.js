// Hostile and careless input to the JS API: finite numbers or a coded error, and an instance nothing can corrupt.
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
const eye = (scale = 1) => Array.from({ length: 16 }, (_, i) => (i % 5 === 0 ? scale : 0));

/** The lesson's 猫 row of head 1 on a fresh layer: the shared instance still computes. */
function lessonStillWorks() {
  const layer = mha.createLayer({ dModel: 4, heads: 2, maxLen: 3 });
  layer.forward({ ...lesson, causal: false });
  assert.deepEqual(round2(layer.attention(0).subarray(0, 3)), [0.25, 0.25, 0.5], 'the instance still computes');
  layer.dispose();
}

function rejects(bad, code, message, details) {
  assert.throws(bad, (error) => {
    assert.ok(error instanceof MHAError, `an MHAError, got ${error}`);
    assert.equal(error.code, code);
    assert.match(error.message, message);
    if (details) assert.deepEqual(error.details, details);
    return true;
  });
  lessonStillWorks();
}

test('finite input that overflows float32 fails with NOT_FINITE naming the stage and place', () => {
  const layer = mha.createLayer({ dModel: 4, heads: 2, maxLen: 8 });
  rejects(() => layer.forward({ q: [1e20, 1e20, 1, 1], k: [1e20, 1e20, 1, 1], v: [1, 2, 3, 4] }), 'NOT_FINITE',
    /scores of head 0 overflow float32 .* at row 0/, { name: 'scores', head: 0, row: 0 });
  rejects(() => layer.forward({ q: [0, 0, 1, 1, 1, 1, 1e20, 1e20], k: [0, 0, 1, 1, 1, 1, -1e20, -1e20], v: [1, 2, 3, 4, 5, 6, 7, 8] }),
    'NOT_FINITE', /scores of head 1 overflow float32 .* at row 1/, { name: 'scores', head: 1, row: 1 });
  rejects(() => layer.forward({ x: [1, 1, 1, 3e38], wq: eye(), wk: eye(), wv: eye(10) }), 'NOT_FINITE',
    /v = x·wv overflows float32 .* at row 0, column 3/, { name: 'v', row: 0, column: 3 });
  rejects(() => layer.forward({ x: [1e20, 1, 1, 1], wq: eye(1e30), wk: eye(), wv: eye() }), 'NOT_FINITE',
    /q = x·wq overflows/, { name: 'q', row: 0, column: 0 });
  rejects(() => layer.forward({ q: [1, 2, 3, 4], k: [1, 2, 3, 4], v: [1, 2, 3, 4], wo: eye(3e38) }), 'NOT_FINITE',
    /output = concat·wo overflows float32 .* at row 0, column 1/, { name: 'output', row: 0, column: 1 });
  rejects(() => layer.forward({ ...lesson, q: [[1, NaN, 0, 0], ...lesson.q.slice(1)] }), 'NOT_FINITE',
    /q has NaN at row 0, column 1/, { name: 'q', row: 0, column: 1 });
  // Large but representable everywhere: finite results, no error.
  layer.forward({ q: [1e15, 1e15, 1, 1], k: [1e15, 1e15, 1, 1], v: [1, 2, 3, 4], wo: eye(1e30) });
  assert.ok(layer.output().every(Number.isFinite));
  // A forward that failed half-way leaves no result to read, rather than half-computed buffers.
  assert.throws(() => layer.forward({ q: [1e20, 1e20, 1, 1], k: [1e20, 1e20, 1, 1], v: [1, 2, 3, 4] }));
  assert.equal(layer.length, 0);
  assert.throws(() => layer.attention(0), (error) => error.code === 'NO_FORWARD');
  layer.dispose();
});

test('scores under the causal mask, first computed when asked for, overflow with a coded error too', () => {
  const layer = mha.createLayer({ dModel: 4, heads: 2, maxLen: 2 });
  // q_0 · k_1 overflows, but row 0 never looks at key 1: the forward is fine, its scores are not.
  layer.forward({ q: [1e20, 0, 0, 0, 0, 1, 0, 0], k: [1, 0, 0, 0, 1e20, 0, 0, 0], v: [1, 2, 3, 4, 5, 6, 7, 8] });
  assert.ok(layer.output().every(Number.isFinite));
  rejects(() => layer.scores(0), 'NOT_FINITE', /scores of head 0 overflow .* at row 0, column 1, under the causal mask/,
    { name: 'scores', head: 0, row: 0, column: 1 });
  assert.ok(layer.scores(1).every(Number.isFinite), "head 1's scores are fine");
  layer.dispose();
});

test('the fast kernels catch overflow too, causal and not', () => {
  const d = 64, L = 40;
  const layer = mha.createLayer({ dModel: d, heads: 4, maxLen: L });
  const q = new Float32Array(L * d).fill(0.5);
  q.fill(1e20, 30 * d + 16, 30 * d + 32); // row 30, head 1's columns
  for (const causal of [true, false]) {
    rejects(() => layer.forward({ q, k: q, v: q, causal }), 'NOT_FINITE', /scores of head 1 overflow/, { name: 'scores', head: 1, row: 30 });
    rejects(() => layer.forward({ q, k: q, v: q, causal, plain: true }), 'NOT_FINITE', /scores of head 1 overflow/, { name: 'scores', head: 1, row: 30 });
  }
  layer.dispose();
});

test('a getter that disposes the layer or the trainer cannot corrupt the shared instance', () => {
  const layer = mha.createLayer({ dModel: 4, heads: 2, maxLen: 3 });
  const disposing = { length: 2, get 0() { layer.dispose(); return true; }, 1: true };
  rejects(() => layer.forward({ ...lesson, enabled: disposing }), 'DISPOSED', /disposed/);
  const again = mha.createLayer({ dModel: 4, heads: 2, maxLen: 3 });
  const rows = new Proxy(lesson.v, { get: (target, key) => (key === '2' && again.dispose(), target[key]) });
  rejects(() => again.forward({ ...lesson, v: rows }), 'DISPOSED', /disposed/);

  const trainer = mha.createTrainer({ heads: 2 });
  const killer = { length: 2, get 0() { trainer.dispose(); return true; }, 1: true };
  rejects(() => trainer.evaluate({ enabled: killer }), 'DISPOSED', /trainer was disposed/);
  const other = mha.createTrainer({ heads: 2 });
  const killer2 = { length: 2, get 0() { other.dispose(); return true; }, 1: true };
  rejects(() => other.predict({ enabled: killer2 }), 'DISPOSED', /trainer was disposed/);
  const third = mha.createTrainer({ heads: 2 });
  const tokens = new Proxy(Array(8).fill(1), { get: (target, key) => (key === '7' && third.dispose(), target[key]) });
  rejects(() => third.setExample(tokens), 'DISPOSED', /trainer was disposed/);
  assert.ok(mha.randomState(1).randn(3).every(Number.isFinite), 'randn still works');
});

test('a getter that grows the heap mid-call does not leave the call writing through stale views', () => {
  const layer = mha.createLayer({ dModel: 4, heads: 2, maxLen: 3 });
  const held = [];
  const growing = { length: 2, get 0() { held.push(mha.createLayer({ dModel: 256, heads: 4, maxLen: 512 })); return true; }, 1: true };
  layer.forward({ ...lesson, causal: false, enabled: growing });
  assert.deepEqual(round2(layer.attention(0).subarray(0, 3)), [0.25, 0.25, 0.5]);
  held.forEach((l) => l.dispose());
  layer.dispose();
});

test('indices and sizes that would wrap at 2³² are refused', () => {
  const layer = mha.createLayer({ dModel: 4, heads: 2, maxLen: 3 });
  layer.forward({ ...lesson });
  for (const head of [2 ** 32, 2 ** 32 + 1, -(2 ** 32), 2 ** 53, Infinity]) {
    rejects(() => layer.attention(head), 'HEAD_INDEX', /does not exist/);
  }
  rejects(() => mha.createLayer({ dModel: -(2 ** 32) + 4, heads: 2, maxLen: 8 }), 'BAD_SIZE', /d_model must be a positive whole number, got -4294967292/);
  rejects(() => mha.createLayer({ dModel: 4, heads: 2 ** 32 + 2, maxLen: 8 }), 'TOO_LARGE', /heads 4294967298 is far too large/);
  rejects(() => mha.paramCount({ dModel: 2 ** 32 + 4, heads: 2 }), 'TOO_LARGE', /far too large/);
  rejects(() => layer.forward({ q: { length: 1e10 }, k: lesson.k, v: lesson.v }), 'SEQ_TOO_LONG', /2500000000 tokens but .* maxLen 3/);
  rejects(() => layer.forward({ q: { length: 1e10 + 1 }, k: lesson.k, v: lesson.v }), 'BAD_LENGTH', /not a whole number of rows/);
  for (const length of [-1, Infinity, NaN, 2.5, '3']) {
    rejects(() => layer.forward({ q: { length }, k: lesson.k, v: lesson.v }), 'BAD_LENGTH', /its length is/);
    rejects(() => layer.forward({ ...lesson, enabled: { length } }), 'BAD_LENGTH', /one true\/false per head/);
  }
  const endlessRow = new Proxy([1, 2, 3, 4], { get: (target, key) => (key === 'length' ? 1e10 : target[key]) });
  rejects(() => layer.forward({ q: [endlessRow], k: lesson.k, v: lesson.v }), 'BAD_LENGTH', /q\[0\] has 10000000000 numbers, more than the 12/);
  rejects(() => layer.forward({ ...lesson, wo: { length: 2 ** 40 } }), 'BAD_LENGTH', /more than the 16/);
  const trainer = mha.createTrainer({ heads: 2 });
  rejects(() => trainer.step(2 ** 32 + 1), 'TOO_LARGE', /far too large/);
  rejects(() => trainer.attention(2 ** 32), 'HEAD_INDEX', /does not exist/);
  rejects(() => trainer.setExample({ length: 1e10 }), 'BAD_LENGTH', /more than/);
  rejects(() => trainer.setExample([0, 1, 2, 3, 4, 5, 6, 2 ** 32]), 'BAD_INPUT', /token 4294967296 at position 7 is outside the vocabulary 0 to 15/);
  trainer.dispose();
  layer.dispose();
});

test('unknown options are refused with the likely intended one', () => {
  const layer = mha.createLayer({ dModel: 4, heads: 2, maxLen: 3 });
  rejects(() => layer.forward({ ...lesson, casual: false }), 'BAD_ARGUMENT', /unknown option 'casual' for forward; did you mean 'causal'\?/,
    { option: 'casual', suggestion: 'causal' });
  rejects(() => layer.forward({ ...lesson, is_causal: false }), 'BAD_ARGUMENT', /did you mean 'causal'/);
  rejects(() => layer.forward({ ...lesson, attn_mask: [] }), 'BAD_ARGUMENT', /'attn_mask'.*did you mean 'causal'/);
  rejects(() => layer.forward({ ...lesson, key_padding_mask: [] }), 'BAD_ARGUMENT', /unknown option 'key_padding_mask'/);
  rejects(() => layer.forward({ ...lesson, bias: [1, 2, 3, 4] }), 'BAD_ARGUMENT', /unknown option 'bias'/);
  rejects(() => layer.forward({ ...lesson, Scale: false }), 'BAD_ARGUMENT', /did you mean 'scale'/);
  rejects(() => layer.forward('q'), 'BAD_ARGUMENT', /forward takes an options object, got "q"/);
  rejects(() => layer.forward([lesson.q]), 'BAD_ARGUMENT', /options object/);
  rejects(() => mha.createLayer({ dModel: 4, heads: 2, maxlen: 3 }), 'BAD_ARGUMENT', /did you mean 'maxLen'/);
  rejects(() => mha.createLayer({ d_model: 4, heads: 2, maxLen: 3 }), 'BAD_ARGUMENT', /did you mean 'dModel'/);
  rejects(() => mha.createLayer({ dModel: 4, num_heads: 2, maxLen: 3 }), 'BAD_ARGUMENT', /did you mean 'heads'/);
  rejects(() => mha.paramCount({ dModel: 4, head: 2 }), 'BAD_ARGUMENT', /did you mean 'heads'/);
  rejects(() => mha.createTrainer({ heads: 2, learningRate: 0.1 }), 'BAD_ARGUMENT', /unknown option 'learningRate' for createTrainer/);
  const trainer = mha.createTrainer({ heads: 2 });
  rejects(() => trainer.evaluate({ enable: [true, false] }), 'BAD_ARGUMENT', /did you mean 'enabled'/);
  rejects(() => trainer.predict({ disabled: [0] }), 'BAD_ARGUMENT', /unknown option 'disabled' for predict/);
  trainer.dispose();
  layer.dispose();
});

test('every call has a bounded cost: too many steps at once is refused at once', () => {
  const trainer = mha.createTrainer({ heads: 2 });
  const started = performance.now();
  rejects(() => trainer.step(2 ** 31 - 1), 'TOO_LARGE', /one call may do \(at most \d+ steps\); call step again/);
  assert.ok(performance.now() - started < 2000, 'refused without doing the work');
  assert.equal(trainer.steps, 0, 'nothing was done');
  trainer.step(10);
  assert.equal(trainer.steps, 10);
  rejects(() => mha.randomState(1).randn(2 ** 13, 2 ** 12), 'TOO_LARGE', /too many \(at most 16777216\)/);
  trainer.dispose();
});

test('a trainer whose one evaluation or one step would take minutes is refused at create, naming the limit', () => {
  const big = { heads: 4, dModel: 64, seqLen: 256, vocab: 4096, batch: 1 };
  for (const evalCount of [64, 256, 1024, 65536]) {
    rejects(() => mha.createTrainer({ ...big, evalCount }), 'TOO_LARGE', new RegExp(`evaluating evalCount ${evalCount} sequences .* one call may do \\(evalCount at most 6\\)`));
  }
  rejects(() => mha.createTrainer({ ...big, batch: 8, evalCount: 1 }), 'TOO_LARGE', /one step of batch 8 .* \(batch at most 2\)/);
  rejects(() => mha.createTrainer({ heads: 8, dModel: 1024, seqLen: 256, batch: 1, evalCount: 1 }), 'TOO_LARGE', /make them smaller/);
  const largest = mha.createTrainer({ ...big, evalCount: 6 });
  rejects(() => largest.step(3), 'TOO_LARGE', /\(at most 2 steps\)/);
  largest.dispose();
  // The default trainer: 20,000 steps were accepted and ran for 14-21 s; about a thousand fit in a call.
  const trainer = mha.createTrainer({ heads: 2 });
  rejects(() => trainer.step(20000), 'TOO_LARGE', /\(at most 10\d\d steps\); call step again/);
  assert.equal(trainer.steps, 0);
  trainer.step(1000);
  assert.equal(trainer.steps, 1000);
  trainer.dispose();
});
