// Training with K/V heads shared by groups of query heads: mha.createTrainer({ kvHeads }) (c/lib/train.c). kvHeads =
// heads is the multi-head trainer bit for bit, kvHeads = 1 (multi-query) learns §9's task, one seed gives MHA, GQA
// and MQA the same data for the page to show side by side, and bad counts throw as createLayer's do. (The gradient
// check of the shared heads' backward is native: c/tests/test_train.c, run by tests/native.slow.test.js.)
import test from 'node:test';
import assert from 'node:assert/strict';
import { loadAttention, MHAError } from '../web/src/attention.js';
import { TRAIN_EXAMPLE, headViews as views } from '../web/training/views.js';

const mha = await loadAttention();

// step(50) six times from seed 0, then evaluate(): what the trainer gave before it took kvHeads (commit 5c55600).
const BEFORE = {
  1: { losses: [1.9903247356414795, 1.4844433069229126, 1.1210215091705322, 0.939022958278656, 0.9899611473083496, 0.9457072019577026], eval: 0.9000709006514425 },
  2: { losses: [2.0764896869659424, 1.5251195430755615, 1.1326985359191895, 0.6748348474502563, 0.10299568623304367, 0.007554597221314907], eval: 0.00887631847225827 },
  4: { losses: [2.157353639602661, 1.7007113695144653, 1.2847048044204712, 0.36966291069984436, 0.03618711233139038, 0.0038270503282546997], eval: 0.004007536037675989 },
};

/** A trainer's losses of step(50) six times, its held-out loss after them, and head `last`'s attention. */
function run(options) {
  const trainer = mha.createTrainer(options);
  try {
    const losses = Array.from({ length: 6 }, () => trainer.step(50));
    return { losses, eval: trainer.evaluate().loss, attention: trainer.attention(options.heads - 1).slice() };
  } finally {
    trainer.dispose();
  }
}

test('kvHeads = heads (and 0) is the multi-head trainer: the same losses, bit for bit, as before kvHeads', () => {
  for (const heads of [1, 2, 4]) {
    const plain = run({ heads });
    for (const kvHeads of [heads, 0]) {
      const shared = run({ heads, kvHeads });
      assert.deepEqual(shared.losses, BEFORE[heads].losses, `h ${heads}, kvHeads ${kvHeads}: the batch losses`);
      assert.equal(shared.eval, BEFORE[heads].eval, `h ${heads}, kvHeads ${kvHeads}: the held-out loss`);
      assert.deepEqual(shared.attention, plain.attention);
    }
    assert.deepEqual(plain.losses, BEFORE[heads].losses, `h ${heads} without kvHeads`);
  }
});

test('kvHeads = 1 (multi-query) learns the two-view task: the loss falls and both targets are right', () => {
  for (const heads of [2, 4]) {
    const trainer = mha.createTrainer({ heads, kvHeads: 1 });
    try {
      assert.equal(trainer.kvHeads, 1);
      assert.deepEqual(Array.from({ length: heads }, (_, i) => trainer.kvGroup(i)), Array(heads).fill(0));
      const before = trainer.evaluate();
      trainer.step(400);
      const after = trainer.evaluate();
      assert.ok(after.loss < 0.1 * before.loss, `h ${heads}, MQA: held-out loss ${before.loss} → ${after.loss}`);
      assert.ok(after.previous.accuracy > 0.95 && after.first.accuracy > 0.95, `h ${heads}, MQA: ${JSON.stringify(after)}`);
    } finally {
      trainer.dispose();
    }
  }
});

test("shared K/V shrinks wk and wv to dModel × kvHeads·dK, and the example is createLayer({ kvHeads })'s forward", () => {
  const trainer = mha.createTrainer({ heads: 4, kvHeads: 2, seed: 5 });
  const layer = mha.createLayer({ dModel: 8, heads: 4, maxLen: 8, kvHeads: 2 });
  try {
    trainer.step(50);
    assert.equal(trainer.paramCount, 736 - 2 * 8 * 4, 'wk and wv lose 8·4 numbers each');
    assert.deepEqual([0, 1, 2, 3].map((i) => trainer.kvGroup(i)), [0, 0, 1, 1]);
    assert.equal(trainer.kvWidth, 4);
    const w = Object.fromEntries(Object.entries(trainer.weights()).map(([k, v]) => [k, v.slice()]));
    assert.equal(w.wq.length, 64);
    assert.equal(w.wk.length, 32);
    assert.equal(w.wv.length, 32);
    const x = new Float32Array(64);
    trainer.example.forEach((t, r) => {
      for (let j = 0; j < 8; j++) x[r * 8 + j] = w.tokenEmbedding[t * 8 + j] + w.positionEmbedding[r * 8 + j];
    });
    layer.forward({ x, wq: w.wq, wk: w.wk, wv: w.wv, wo: w.wo });
    for (const i of [0, 1, 2, 3]) assert.deepEqual(trainer.attention(i).slice(), layer.attention(i).slice());
    assert.deepEqual(trainer.k().slice(), layer.k().slice());
    assert.equal(trainer.k().length, 8 * 4);
    assert.deepEqual(trainer.output().slice(), layer.output().slice());
  } finally {
    trainer.dispose();
    layer.dispose();
  }
});

// What §9's page runs (web/training/panel.js): seed 0, its example sentence, 1500 steps. h = 4 is the h whose
// heads/2 is neither 1 nor h.
const PAGE = { seed: 0, steps: 1500, heads: 4 };

test('one seed trains MHA, GQA and MQA on the same data: losses and per-head views to show side by side', (t) => {
  const kinds = [PAGE.heads, PAGE.heads / 2, 1].map((kvHeads) => {
    const trainer = mha.createTrainer({ heads: PAGE.heads, kvHeads, seed: PAGE.seed });
    trainer.setExample(TRAIN_EXAMPLE);
    return { kvHeads, trainer };
  });
  try {
    const [full, ...shared] = kinds.map((k) => k.trainer);
    const fullWeights = full.weights();
    for (const trainer of shared) {
      // Same data and same other weights; each group starts as MHA's K/V head of its first query head.
      assert.deepEqual(trainer.example, full.example);
      const w = trainer.weights();
      for (const name of ['tokenEmbedding', 'positionEmbedding', 'wq', 'wo', 'readout']) assert.deepEqual(w[name], fullWeights[name], name);
      for (let i = 0; i < PAGE.heads; i++) {
        const first = trainer.kvGroup(i) * (PAGE.heads / trainer.kvHeads);
        if (first === i) assert.deepEqual(trainer.attention(i).slice(), full.attention(i).slice(), `kvHeads ${trainer.kvHeads}: head ${i} starts as MHA's`);
      }
    }
    const report = kinds.map(({ kvHeads, trainer }) => {
      const curve = [];
      while (trainer.steps < PAGE.steps) curve.push([trainer.steps + 250, trainer.step(250)]);
      const all = trainer.evaluate();
      const headViews = Array.from({ length: PAGE.heads }, (_, i) => views(trainer.attention(i), trainer.seqLen));
      const off = headViews.map((_, i) => trainer.evaluate({ enabled: headViews.map((__, j) => j !== i) }));
      return { kvHeads, paramCount: trainer.paramCount, curve, all, headViews, off };
    });
    for (const { kvHeads, paramCount, curve, all, headViews, off } of report) {
      t.diagnostic(`h ${PAGE.heads}, kvHeads ${kvHeads} (${paramCount} parameters): batch loss ${curve.map(([s, l]) => `${s} ${l.toExponential(2)}`).join(', ')}; ` +
        `held-out ${all.loss.toExponential(2)}, accuracy ${all.accuracy}; heads (previous/first weight, held-out loss without it) ` +
        headViews.map((v, i) => `${v.previous.toFixed(2)}/${v.first.toFixed(2)} ${off[i].loss.toFixed(2)}`).join(', '));
      const where = `kvHeads ${kvHeads}: ${JSON.stringify({ curve, loss: all.loss, headViews })}`;
      assert.equal(paramCount, 736 - 2 * 8 * (8 - kvHeads * 2), where);
      assert.ok(curve.every(([, loss]) => Number.isFinite(loss)) && curve.at(-1)[1] < 0.01 * curve[0][1] + 0.01, where);
      assert.ok(all.accuracy > 0.99, where);
      // Some head looks one step back, some head at the start, and switching the look-back head off loses the previous token.
      const previous = headViews.findIndex((v) => v.previous > 0.9);
      assert.ok(previous >= 0 && headViews.some((v) => v.first > 0.9), where);
      const lookBack = headViews.map((v, i) => [v.previous, i]).filter(([v]) => v > 0.9).map(([, i]) => i);
      if (lookBack.length === 1) assert.ok(off[lookBack[0]].previous.accuracy < 0.5, `${where}: without its one look-back head`);
    }
  } finally {
    kinds.forEach((k) => k.trainer.dispose());
  }
});

test('bad kvHeads throw as createLayer does: KV_HEADS_NOT_DIVISOR with both counts, BAD_SIZE for no count', () => {
  const code = (fn, want) => assert.throws(fn, (e) => e instanceof MHAError && e.code === want && e.message.length > 10, want);
  for (const kvHeads of [3, 8]) {
    assert.throws(() => mha.createTrainer({ heads: 4, kvHeads }), (e) => e.code === 'KV_HEADS_NOT_DIVISOR' &&
      e.message === `kvHeads ${kvHeads} does not divide heads 4` && e.details.kvHeads === kvHeads && e.details.heads === 4);
  }
  for (const kvHeads of [NaN, -1, 1.5, '2', null]) code(() => mha.createTrainer({ heads: 4, kvHeads }), 'BAD_SIZE');
  code(() => mha.createTrainer({ heads: 4, kvHeads: 2 ** 40 }), 'TOO_LARGE');
  assert.throws(() => mha.createTrainer({ heads: 4, kv_heads: 2 }), /did you mean 'kvHeads'/);
  const trainer = mha.createTrainer({ heads: 4, kvHeads: 2 });
  code(() => trainer.kvGroup(4), 'HEAD_INDEX');
  assert.throws(() => trainer.kvGroup(-1), /this trainer has heads 0 to 3/);
  trainer.dispose();
});

test("the page's training host takes kvHeads and says which group each head reads", async () => {
  const { createTrainingHost } = await import('../web/training/train-worker.js');
  const messages = [];
  const send = createTrainingHost((message) => messages.push(message));
  await send({ type: 'init', heads: 4, kvHeads: 2, maxSteps: 8 });
  const ready = messages.find((m) => m.type === 'ready');
  assert.equal(ready.kvHeads, 2);
  assert.deepEqual(ready.kvGroups, [0, 0, 1, 1]);
  assert.equal(ready.paramCount, 672);
  messages.length = 0;
  await send({ type: 'init', heads: 2 });
  assert.deepEqual(messages.find((m) => m.type === 'ready').kvGroups, [0, 1], 'without kvHeads, one group a head');
  messages.length = 0;
  await send({ type: 'init', heads: 4, kvHeads: 3 });
  const error = messages.find((m) => m.type === 'error');
  assert.equal(error.code, 'KV_HEADS_NOT_DIVISOR');
  assert.deepEqual(error.details, { kvHeads: 3, heads: 4 });
  await send({ type: 'dispose' });
});
