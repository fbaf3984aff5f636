// Training the heads (c/lib/train.h through mha.createTrainer), in wasm: the loss falls, a seed fixes
// everything, two heads beat one on the two-view task and take the two views, bad arguments throw
// MHAError with stable codes. (The gradient check is a native C test: c/tests/test_train.c, tests/native.slow.test.js.)
import test from 'node:test';
import assert from 'node:assert/strict';
import { loadAttention, MHAError } from '../web/src/attention.js';
import { headViews as views } from '../web/training/views.js';

const mha = await loadAttention();

test('the loss falls in wasm, and the trainer reports its state', () => {
  const trainer = mha.createTrainer({ heads: 2 });
  try {
    assert.equal(trainer.steps, 0);
    assert.ok(Number.isNaN(trainer.loss()), 'no loss before a step');
    const before = trainer.evaluate();
    assert.ok(before.loss > 2, `an untrained model is near chance (ln 16 ≈ 2.77), got ${before.loss}`);
    const last = trainer.step(300);
    assert.equal(trainer.steps, 300);
    assert.equal(last, trainer.loss());
    const after = trainer.evaluate();
    assert.ok(after.loss < 0.2 * before.loss, `held-out loss ${before.loss} → ${after.loss}`);
    assert.ok(after.accuracy > before.accuracy + 0.5);
  } finally {
    trainer.dispose();
  }
});

test('a seed fixes the weights, the batches and the example; reset replays them', () => {
  const a = mha.createTrainer({ heads: 4, seed: 99 });
  const b = mha.createTrainer({ heads: 4, seed: 99 });
  const c = mha.createTrainer({ heads: 4, seed: 100 });
  try {
    assert.deepEqual(a.example, b.example);
    const lossesA = [a.step(5), a.step(5), a.step(5)];
    const lossesB = [b.step(5), b.step(5), b.step(5)];
    assert.deepEqual(lossesA, lossesB);
    assert.deepEqual(a.weights().wq.slice(), b.weights().wq.slice());
    assert.notDeepEqual(c.weights().wq.slice(), b.weights().wq.slice());
    b.reset();
    assert.equal(b.steps, 0);
    assert.deepEqual([b.step(5), b.step(5), b.step(5)], lossesA);
    assert.deepEqual(a.attention(3).slice(), b.attention(3).slice());
  } finally {
    [a, b, c].forEach((t) => t.dispose());
  }
});

test('h = 2 beats h = 1 on the default task at the same d_model and parameter count', () => {
  const one = mha.createTrainer({ heads: 1 });
  const two = mha.createTrainer({ heads: 2 });
  try {
    assert.equal(one.paramCount, two.paramCount);
    one.step(600);
    two.step(600);
    const r1 = one.evaluate();
    const r2 = two.evaluate();
    assert.ok(r2.accuracy >= 0.95, `h = 2 accuracy ${r2.accuracy}`);
    assert.ok(r1.accuracy < 0.9, `h = 1 accuracy ${r1.accuracy}`);
    assert.ok(r2.loss < 0.25 * r1.loss, `h = 2 loss ${r2.loss} vs h = 1 loss ${r1.loss}`);
  } finally {
    one.dispose();
    two.dispose();
  }
});


test('after training the two heads take the two views, and ablation shows it', () => {
  const trainer = mha.createTrainer({ heads: 2, seed: 3 });
  try {
    const L = trainer.seqLen;
    const untrained = [0, 1].map((i) => views(trainer.attention(i), L));
    assert.ok(untrained.every((v) => v.previous < 0.6 && v.first < 0.6), `random heads have no view yet: ${JSON.stringify(untrained)}`);
    trainer.step(400);
    const trained = [0, 1].map((i) => views(trainer.attention(i), L));
    const prevHead = trained[0].previous > trained[1].previous ? 0 : 1;
    const firstHead = 1 - prevHead;
    assert.ok(trained[prevHead].previous > 0.9, `one head looks one step back: ${JSON.stringify(trained)}`);
    assert.ok(trained[firstHead].first > 0.9, `the other looks at the start: ${JSON.stringify(trained)}`);

    const all = trainer.evaluate();
    const withoutPrev = trainer.evaluate({ enabled: [prevHead !== 0, prevHead !== 1] });
    const withoutFirst = trainer.evaluate({ enabled: [firstHead !== 0, firstHead !== 1] });
    assert.ok(withoutPrev.previous.accuracy < all.previous.accuracy - 0.5, 'without the look-back head the previous token is lost');
    assert.ok(withoutPrev.first.accuracy > 0.9, 'but the first token is still known');
    assert.ok(withoutFirst.first.accuracy < all.first.accuracy - 0.5, 'without the look-at-start head the first token is lost');
    assert.ok(withoutFirst.loss > all.loss && withoutPrev.loss > all.loss);

    const { previous, first } = trainer.predict();
    const ex = trainer.example;
    assert.deepEqual(previous, ex.map((_, r) => ex[Math.max(r - 1, 0)]));
    assert.deepEqual(first, ex.map(() => ex[0]));
  } finally {
    trainer.dispose();
  }
});

test("the trainer's example attention is mha_forward on x = E[t] + P with its current weights", () => {
  const trainer = mha.createTrainer({ heads: 2, seed: 5 });
  const layer = mha.createLayer({ dModel: 8, heads: 2, maxLen: 8 });
  try {
    trainer.step(50);
    trainer.setExample([1, 2, 3, 4, 5, 6, 7, 0]);
    assert.deepEqual(trainer.example, [1, 2, 3, 4, 5, 6, 7, 0]);
    const w = Object.fromEntries(Object.entries(trainer.weights()).map(([k, v]) => [k, v.slice()]));
    assert.equal(w.tokenEmbedding.length, 16 * 8);
    assert.equal(w.positionEmbedding.length, 8 * 8);
    assert.equal(w.readout.length, 8 * 32);
    assert.equal(w.readoutBias.length, 32);
    const x = new Float32Array(64);
    trainer.example.forEach((t, r) => {
      for (let j = 0; j < 8; j++) x[r * 8 + j] = w.tokenEmbedding[t * 8 + j] + w.positionEmbedding[r * 8 + j];
    });
    layer.forward({ x, wq: w.wq, wk: w.wk, wv: w.wv, wo: w.wo });
    for (const i of [0, 1]) assert.deepEqual(trainer.attention(i).slice(), layer.attention(i).slice());
    assert.deepEqual(trainer.output().slice(), layer.output().slice());
    assert.equal(trainer.headOutput(1).length, 8 * 4);
    assert.equal(trainer.q().length, 64);
  } finally {
    trainer.dispose();
    layer.dispose();
  }
});

test('bad arguments throw MHAError with stable codes', () => {
  const code = (fn, want) => assert.throws(fn, (e) => e instanceof MHAError && e.code === want && e.message.length > 10, want);
  code(() => mha.createTrainer({ heads: 3 }), 'HEADS_NOT_DIVISOR');
  assert.throws(() => mha.createTrainer({ heads: 3 }), /heads 3 does not divide d_model 8/);
  code(() => mha.createTrainer({}), 'BAD_SIZE');
  code(() => mha.createTrainer({ heads: 0 }), 'BAD_SIZE');
  code(() => mha.createTrainer({ heads: 2, vocab: 1 }), 'BAD_SIZE');
  code(() => mha.createTrainer({ heads: 2, seqLen: 100000 }), 'TOO_LARGE');
  code(() => mha.createTrainer({ heads: 2, seed: -1 }), 'BAD_ARGUMENT');
  code(() => mha.createTrainer({ heads: 2, seed: 1.5 }), 'BAD_ARGUMENT');
  code(() => mha.createTrainer({ heads: 2, lr: '0.1' }), 'BAD_ARGUMENT');
  code(() => mha.createTrainer({ heads: 2, lr: NaN }), 'NOT_FINITE');
  code(() => mha.createTrainer({ heads: 2, lr: -1 }), 'BAD_INPUT');

  const trainer = mha.createTrainer({ heads: 2 });
  code(() => trainer.step(-1), 'BAD_SIZE');
  code(() => trainer.step(1.5), 'BAD_SIZE');
  code(() => trainer.attention(2), 'HEAD_INDEX');
  code(() => trainer.attention(-1), 'HEAD_INDEX');
  code(() => trainer.evaluate({ enabled: [true] }), 'BAD_LENGTH');
  code(() => trainer.setExample([1, 2, 3]), 'BAD_LENGTH');
  code(() => trainer.setExample([0, 1, 2, 16, 0, 0, 0, 0]), 'BAD_INPUT');
  assert.throws(() => trainer.setExample([0, 1, 2, 16, 0, 0, 0, 0]), /token 16 at position 3/);
  code(() => trainer.setExample([0, 1, 2, 'x', 0, 0, 0, 0]), 'BAD_ARGUMENT');
  assert.equal(trainer.step(0), trainer.loss(), 'zero steps is fine');
  trainer.dispose();
  trainer.dispose(); // twice is fine
  code(() => trainer.step(1), 'DISPOSED');
  code(() => trainer.attention(0), 'DISPOSED');
});

test("the page's training host (web/training/train-worker.js) trains, pauses with ablation, resets and switches h", async () => {
  const { createTrainingHost } = await import('../web/training/train-worker.js');
  const messages = [];
  let wake = () => {};
  const send = createTrainingHost((message) => {
    messages.push(message);
    wake();
  });
  const next = (type) => new Promise((resolve) => {
    const look = () => {
      const found = messages.findIndex((m) => m.type === type);
      if (found >= 0) {
        wake = () => {};
        return resolve(messages.splice(0, found + 1).pop());
      }
      wake = look;
    };
    look();
  });

  await send({ type: 'init', heads: 2, example: [6, 4, 0, 1, 2, 11, 8, 9], stepsPerTick: 50, maxSteps: 400 });
  const ready = await next('ready');
  assert.deepEqual(ready.example, [6, 4, 0, 1, 2, 11, 8, 9]);
  assert.equal(ready.paramCount, 736);
  const first = await next('progress');
  assert.equal(first.steps, 0);
  assert.equal(first.attention.length, 2);

  await send({ type: 'start' });
  let done;
  do done = await next('progress'); while (!done.done);
  assert.equal(done.steps, 400);
  const ablation = await next('ablation');
  assert.ok(done.eval.accuracy > 0.95, `accuracy ${done.eval.accuracy}`);
  const v = done.attention.map((a) => views(a, 8));
  assert.ok(Math.max(v[0].previous, v[1].previous) > 0.8 && Math.max(v[0].first, v[1].first) > 0.8, JSON.stringify(v));
  assert.ok(ablation.off.every((e) => e.loss > ablation.all.loss + 0.5));

  await send({ type: 'reset' });
  assert.equal((await next('progress')).steps, 0);
  await send({ type: 'init', heads: 4 });
  assert.equal((await next('ready')).heads, 4);
  assert.equal((await next('progress')).attention.length, 4);
  await send({ type: 'init', heads: 3 });
  assert.equal((await next('error')).code, 'HEADS_NOT_DIVISOR');
  await send({ type: 'dispose' });
});
