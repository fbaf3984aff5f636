// Model.step, rewind and freeCache (the key-value cache of c/lib/gpt.h's gpt_step) on both models: a GPT-2-layout
// file this test writes and the lesson's poetry model, on one thread and on two. Every step gives what a forward of
// the whole text gives (every block's q|k|v and attention to the bit, the logits, summed another way, within 2e-6 of the
// largest;
// and the float64 reference's numbers), across rewinds, up to the cache's edge and past it; text sampled a step at a
// time from a seed is the same text again, and the same as sampled with forwards.
import test from 'node:test';
import assert from 'node:assert/strict';
import { loadAttention } from '../web/src/attention.js';
import { attentionLoader } from '../web/src/load.js';
import { gpt2File, randomWeights, referenceGpt } from './gpt-reference.js';
import { maxAbsDiff, seededRandom } from './seeded.js';

const cores = { 1: await attentionLoader()({ threads: 1 }), 2: await loadAttention({ threads: 2 }) };
// A context past the kernels' 64-row blocks, so the steps cross one.
const config = { layers: 2, heads: 4, dModel: 32, context: 80, vocab: 61 };
const weights = randomWeights(config, seededRandom(5));
const file = gpt2File(config, weights);

/** Everything a forward leaves, copied: the logits, and every block's q|k|v and every head's attention. */
function results(model) {
  const { layers, heads } = model.config;
  const kept = [];
  for (let l = 0; l < layers; l++) {
    kept.push(model.qkv(l).slice());
    for (let h = 0; h < heads; h++) kept.push(model.attention(l, h).slice());
  }
  return { logits: model.logits().slice(), kept };
}

const bitsOf = (x) => Buffer.from(x.buffer, x.byteOffset, x.byteLength);

/** Whether results a (of steps) are b's (of a forward): q|k|v and attention to the bit, logits within 2e-6 of the largest. */
function sameResults(a, b) {
  if (a.kept.length !== b.kept.length || !a.kept.every((x, i) => bitsOf(x).equals(bitsOf(b.kept[i])))) return false;
  const scale = b.logits.reduce((most, x) => Math.max(most, Math.abs(x)), 1);
  return a.logits.length === b.logits.length && a.logits.every((x, i) => Math.abs(x - b.logits[i]) <= 2e-6 * scale);
}

/** `text`'s tokens decoded one step at a time on `cached`, rewound now and then: every step as `fresh`'s forward. */
function decodeAgainstForwards(cached, fresh, text, random) {
  const ids = [];
  let rewinds = 0;
  for (let i = 0; ids.length < cached.maxTokens; i++) {
    if (ids.length > 2 && random() < 0.06) {
      ids.length -= 1 + Math.floor(random() * Math.min(ids.length - 1, 10));
      cached.rewind(ids.length);
      assert.equal(cached.length, ids.length);
      rewinds++;
      continue;
    }
    ids.push(text[i % text.length]);
    cached.step(ids.at(-1));
    assert.equal(cached.length, ids.length);
    assert.equal(cached.reused, ids.length - 1, 'one new position');
    fresh.forward([(ids[0] + 1) % fresh.config.vocabSize]); // nothing shared: every position computed
    fresh.forward(ids);
    assert.ok(sameResults(results(cached), results(fresh)), `${ids.length} tokens: not what a forward gives`);
  }
  assert.ok(rewinds >= 2, `${rewinds} rewinds`);
  return ids;
}

for (const threads of [1, 2]) {
  const mha = cores[threads];

  test(`${threads} thread(s), a GPT-2-layout file: each step what a forward of the whole text gives, across rewinds, to the cache's edge`, async () => {
    const cached = await mha.loadModel(file);
    const fresh = await mha.loadModel(file);
    const text = Array.from({ length: 97 }, (_, i) => (i * 23 + 7) % config.vocab);
    const ids = decodeAgainstForwards(cached, fresh, text, seededRandom(threads));
    assert.equal(cached.length, config.context);
    const want = referenceGpt(weights, config, ids);
    const scale = Math.max(1, ...want.logits.map(Math.abs));
    assert.ok(maxAbsDiff(cached.logits(), want.logits) < 2e-5 * scale, 'the float64 reference\'s logits');
    for (let l = 0; l < config.layers; l++) {
      for (let h = 0; h < config.heads; h++) assert.ok(maxAbsDiff(cached.attention(l, h), want.attention[l][h]) < 1e-5, `layer ${l} head ${h}`);
    }
    // Past the edge, and a bad id: refused with a sentence, the cache as it was.
    const before = results(cached);
    assert.throws(() => cached.step(1), (error) => error.code === 'SEQ_TOO_LONG' && /cache is full: it holds 80 tokens/.test(error.message) &&
      error.details.count === 81 && error.details.max === 80);
    assert.throws(() => cached.step(config.vocab), { code: 'TOKEN_RANGE' });
    assert.throws(() => cached.step(1.5), { code: 'BAD_ARGUMENT' });
    assert.throws(() => cached.step(1, { disabled: [[2, 0]] }), { code: 'HEAD_INDEX' });
    assert.equal(cached.length, 80);
    assert.ok(sameResults(results(cached), before) && results(cached).logits.every((x, i) => x === before.logits[i]), 'a refused step keeps the cache');
    for (const bad of [-1, 81, 2.5, '3']) assert.throws(() => cached.rewind(bad), { code: 'BAD_SIZE' }, `rewind(${bad})`);
    // A head switched off: every position again, still the bits of a forward.
    cached.rewind(30).step(5, { disabled: [[1, 2]] });
    assert.equal(cached.reused, 0);
    fresh.forward([...ids.slice(0, 30), 5], { disabled: [[1, 2]] });
    assert.ok(sameResults(results(cached), results(fresh)));
    // Freed: nothing to read, then a step starts a text of its own in a cache taken again.
    cached.freeCache();
    assert.equal(cached.length, 0);
    assert.throws(() => cached.logits(), { code: 'NO_FORWARD' });
    cached.step(7).step(8);
    fresh.forward([7, 8]);
    assert.ok(sameResults(results(cached), results(fresh)), 'after freeCache');
    cached.freeCache().forward(ids.slice(0, 9));
    fresh.forward(ids.slice(0, 9));
    assert.ok(sameResults(results(cached), results(fresh)), 'a forward after freeCache');
    cached.dispose();
    assert.throws(() => cached.step(1), { code: 'DISPOSED' });
    assert.throws(() => cached.rewind(0), { code: 'DISPOSED' });
    assert.throws(() => cached.freeCache(), { code: 'DISPOSED' });
    fresh.dispose();
  });

  test(`${threads} thread(s), the poetry model: each step what a forward gives, to the edge of its context`, async () => {
    const poems = await mha.loadPoemModel();
    const fresh = await mha.loadPoemModel();
    const text = Array.from(poems.encode('床前明月光，疑是地上霜。举头望明月，低头思故乡。'));
    decodeAgainstForwards(poems.model, fresh.model, text, seededRandom(10 + threads));
    assert.equal(poems.model.length, poems.model.config.context);
    assert.throws(() => poems.model.step(text[0]), { code: 'SEQ_TOO_LONG' });
    poems.model.dispose();
    fresh.model.dispose();
  });
}

test('maxTokens sizes the cache: a step past it is refused naming maxTokens, and rewinding makes room', async () => {
  const model = await cores[1].loadModel(file, { maxTokens: 3 });
  model.forward([1, 2]).step(3);
  assert.throws(() => model.step(4), (error) => error.code === 'SEQ_TOO_LONG' && /loaded for \(maxTokens\)/.test(error.message));
  model.rewind(1).step(4).step(5);
  const fresh = await cores[1].loadModel(file);
  fresh.forward([1, 4, 5]);
  assert.ok(sameResults(results(model), results(fresh)));
  model.dispose();
  fresh.dispose();
});

/** `count` tokens after `prompt` sampled from softmax(logits ÷ 0.8) with numpy's generator of `seed`, by steps or by forwards. */
function sample(mha, model, prompt, count, seed, { steps }) {
  const random = mha.randomState(seed);
  const ids = [...prompt];
  model.forward(prompt);
  const vocab = model.config.vocabSize;
  while (ids.length < prompt.length + count) {
    const last = model.logits().subarray((model.length - 1) * vocab);
    const top = Math.max(...last);
    const weights = Array.from(last, (x) => Math.exp((x - top) / 0.8));
    let left = random.randomSample(1)[0] * weights.reduce((a, b) => a + b, 0);
    let next = weights.findIndex((w) => (left -= w) < 0);
    if (next < 0) next = vocab - 1;
    ids.push(next);
    if (steps) model.step(next);
    else {
      model.forward([(ids[0] + 1) % vocab]); // every position computed again
      model.forward(ids);
    }
  }
  return ids;
}

test('generation from a seed: the same text again, the same with steps as with forwards, on 1 and 2 threads; another seed, another text', async () => {
  const poems = await cores[1].loadPoemModel();
  const prompt = Array.from(poems.encode('春眠不觉晓，'));
  const texts = [];
  for (const threads of [1, 2]) {
    const model = threads === 1 ? poems.model : (await cores[2].loadPoemModel()).model;
    texts.push(sample(cores[threads], model, prompt, 40, 7, { steps: true }));
    texts.push(sample(cores[threads], model, prompt, 40, 7, { steps: true }));
    texts.push(sample(cores[threads], model, prompt, 40, 7, { steps: false }));
    if (threads === 2) model.dispose();
  }
  for (const text of texts) assert.deepEqual(text, texts[0]);
  assert.notDeepEqual(sample(cores[1], poems.model, prompt, 40, 8, { steps: true }), texts[0]);
  assert.equal(texts[0].length, prompt.length + 40);
  poems.model.dispose();
});
