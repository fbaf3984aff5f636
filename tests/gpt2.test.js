// The GPT-2 worker's runs (web/gpt2/runs.js) on a small file in GPT-2's layout with GPT-2's vocabulary: with
// heads switched off, typing one more token keeps the rows before (model.reused > 0) though every run needs a
// forward with those heads off and one with every head on; and each run's attention and top 5 are those of
// fresh forwards of the same ids.
import test from 'node:test';
import assert from 'node:assert/strict';
import { loadAttention } from '../web/src/attention.js';
import { topNext } from '../web/heads/next-tokens.js';
import { gpt2Runs } from '../web/gpt2/runs.js';
import { gpt2Input } from '../web/gpt2/tokens.js';
import { gpt2File, randomWeights } from './gpt-reference.js';
import { seededRandom } from './seeded.js';

const config = { layers: 2, heads: 2, dModel: 16, context: 80, vocab: 50257 };
const file = gpt2File(config, randomWeights(config, seededRandom(31), { spread: 0.5 }));
const mha = await loadAttention();
const TEXT = 'Mr and Mrs Dursley lived in a small house. Mr and Mrs';

/** What a run must give: every head's attention and every row's top 5 ids, from a model of its own. */
async function fresh(ids, off) {
  const model = await mha.loadModel(file);
  model.forward(ids, { disabled: off });
  const attention = Array.from({ length: 4 }, (_, i) => Array.from(model.attention(Math.floor(i / 2), i % 2)));
  const top = ids.map((_, row) => topNext(model.logits(), row, config.vocab).map(({ id }) => id));
  model.dispose();
  return { attention, top };
}

function sameAs(got, want, which) {
  assert.deepEqual(got.attention.map((weights) => Array.from(weights)), want.attention, `${which}: attention`);
  assert.deepEqual(got.top[which].map((row) => row.map(({ id }) => id)), want.top, `${which}: top 5`);
}

test('with heads off, typing on keeps the rows before in one of the two forwards; switching heads runs one forward; every result is a fresh forward\'s', async () => {
  const model = await mha.loadModel(file);
  const runs = gpt2Runs(model);
  const off = [[1, 0]];
  const words = TEXT.split(' ');
  const ids = (count) => gpt2Input(words.slice(0, count).join(' '), 64);

  // Every head on: one forward, then one more word keeps the rows before.
  let result = runs.run(ids(8), []);
  assert.equal(result.top.now, null);
  sameAs(result, await fresh(ids(8), []), 'all');
  result = runs.run(ids(9), []);
  assert.equal(result.reused.all, ids(8).length);

  // A head switched off, the text unchanged: every head's top 5 is kept, so only the heads-off forward runs.
  result = runs.run(ids(9), off);
  assert.deepEqual(result.reused, { all: null, now: 0 });
  sameAs(result, await fresh(ids(9), off), 'now');
  assert.deepEqual(result.top.all.map((row) => row.map(({ id }) => id)), (await fresh(ids(9), [])).top);

  // Typing on with the head off: each run begins with the heads the model last ran, which keeps the rows before.
  for (let count = 10; count <= words.length; count++) {
    result = runs.run(ids(count), off);
    const kept = result.reused.now || result.reused.all;
    assert.equal(kept, ids(count - 1).length, `${count} words: ${JSON.stringify(result.reused)}`);
    if (count === 10) assert.equal(result.reused.now, ids(9).length, 'after a switch, the heads-off forward keeps the rows');
    sameAs(result, await fresh(ids(count), off), 'now');
    assert.deepEqual(result.top.all.map((row) => row.map(({ id }) => id)), (await fresh(ids(count), [])).top);
  }
  // Back to a shorter text, heads still off: its every-head top 5 are known, so one forward.
  result = runs.run(ids(9), off);
  assert.equal(result.reused.all, null);
  sameAs(result, await fresh(ids(9), off), 'now');
  model.dispose();
});
