// §10's decoding with the key-value cache, its pure pieces: what a step costs with the cache and without
// (web/heads/cache-view.js, against a hand count for GPT-2 small), GPT-2's byte tokens merged back into whole
// characters (web/gpt2/tokens.js's mergedTokens; web/heads/heads.js's mergedAttention for a head's map), and GPT-2's generation (web/gpt2/generate.js) on a small model
// in GPT-2's layout: the same seed writes the same tokens, temperature 0 the likeliest after a forward of the whole
// text each time. That a step's logits are a full forward's is the core's to test (tests/gpt-decode.test.js, steps
// against forwards within 2e-6 of the largest logit; c/tests/test_gpt.c's test_step).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadAttention } from '../web/src/attention.js';
import { stepCost, cacheRowBytes, cacheView } from '../web/heads/cache-view.js';
import { parseHTML } from 'linkedom';
import { show } from '../web/ui/dom.js';
import { mergedTokens, gpt2Input, gpt2TokenBytes, gpt2TokenLabel, characterRuns, END_OF_TEXT } from '../web/gpt2/tokens.js';
import { mergedPositions, mergedAttention } from '../web/heads/heads.js';
import { generation, chooseToken } from '../web/gpt2/generate.js';
import { gpt2File, randomWeights } from './gpt-reference.js';
import { seededRandom } from './seeded.js';
import { POEMS_TEXT } from '../web/poems/strings.js';
import { GPT2_TEXT } from '../web/gpt2/strings.js';

const GPT2_SMALL = { layers: 12, dModel: 768, vocabSize: 50257 };

test('a step of GPT-2 small at 64 tokens: 124.7 M multiply-adds with the cache, 5.51 G without, counted by hand', () => {
  // Per block, the new position: q, k, v 3·768², W^O 768², the MLP 2·4·768² = 12·768² = 7,077,888; its query
  // against 64 keys and its weights times 64 values, 2·64·768 = 98,304. The logits row: 768·50,257 = 38,597,376.
  assert.equal(stepCost(GPT2_SMALL, 64).cached, 12 * (7077888 + 98304) + 38597376);
  assert.equal(stepCost(GPT2_SMALL, 64).cached, 124711680);
  // Without the cache every position again: 64·7,077,888 a block, each query r against r keys and r values,
  // 2·768·(1 + … + 64) = 768·64·65 = 3,194,880; the same one logits row.
  assert.equal(stepCost(GPT2_SMALL, 64).full, 12 * (64 * 7077888 + 3194880) + 38597376);
  // One token: nothing is cached, the two are the same.
  assert.equal(stepCost(GPT2_SMALL, 1).cached, stepCost(GPT2_SMALL, 1).full);
  // K and V of 768 floats in 12 blocks: 72 KiB a token.
  assert.equal(cacheRowBytes(GPT2_SMALL), 12 * 2 * 768 * 4);
});

test('a step\'s cost and the cache\'s sentences, over 400 seeded states in both languages: what the step computed, said truly', () => {
  const { document } = parseHTML('<!doctype html><html><body></body></html>');
  const random = seededRandom(8);
  const pick = (n) => Math.floor(random() * n);
  const count = (value) => value.toLocaleString('en-US');
  for (let trial = 0; trial < 400; trial++) {
    const config = { layers: 1 + pick(12), dModel: 8 * (1 + pick(96)), vocabSize: 10 + pick(50000) };
    const length = 1 + pick(70);
    const reused = [0, length - 1, pick(length)][pick(3)];
    // Counted here a position at a time: each new position's blocks, and its query against the keys up to its own.
    let cached = config.dModel * config.vocabSize;
    for (let p = reused + 1; p <= length; p++) cached += config.layers * (12 * config.dModel ** 2 + 2 * p * config.dModel);
    const cost = stepCost(config, length, reused);
    assert.equal(cost.cached, cached);
    assert.equal(cost.full, stepCost(config, length, 0).cached);
    // Entries of one to three cache rows each (a character of byte tokens), `length` rows in all.
    const entries = [];
    for (let rows = 0; rows < length;) {
      const take = Math.min(length - rows, 1 + pick(3));
      entries.push({ label: `t${entries.length}`, weight: random(), rows: take });
      rows += take;
    }
    const full = random() < 0.3;
    for (const lang of ['zh', 'en']) {
      for (const words of [POEMS_TEXT[lang], { ...POEMS_TEXT[lang], ...GPT2_TEXT[lang] }]) {
        const node = show(document.createElement('div'), cacheView(words, { prefix: 'x', step: 1 + pick(60), entries, index: 0, heads: 1, config, length, reused, full }));
        const w = words.cache;
        const computed = length - reused;
        const ratio = (cost.full / cost.cached).toFixed(1);
        assert.equal(node.querySelector('#x-cache-cost').textContent, computed === 1 ? w.cost(count(cost.cached), count(cost.full), ratio)
          : computed === length ? w.costWhole(count(cost.full), length) : w.costPart(count(cost.cached), computed, count(cost.full), ratio));
        const kb = (bytes) => (bytes / 1024).toLocaleString('en-US', { maximumFractionDigits: bytes < 10240 ? 1 : 0 });
        const bytes = cacheRowBytes(config);
        assert.equal(node.querySelector('#x-cache-size').textContent, full ? w.sizeFull(length, kb(length * bytes), config.layers)
          : w.size(length, kb(length * bytes), kb(bytes), config.layers));
        // The bar of the earlier entries names how many cache rows it sums, not how many entries.
        const labels = [...node.querySelectorAll('#x-cache-row text')].map((text) => text.textContent);
        if (entries.length > 16) {
          const rows = entries.slice(0, entries.length - 16).reduce((sum, entry) => sum + entry.rows, 0);
          assert.ok(labels.includes(w.earlierRows(rows)), `${rows} rows: ${labels.slice(0, 3)}`);
        }
      }
    }
  }
});

test('byte tokens merged: 猫 from its three, a split character kept as bytes until complete, bytes that begin none as ⟨xx⟩', () => {
  const cat = gpt2Input('猫', 64).slice(1);
  assert.equal(cat.length, 3, 'GPT-2 writes 猫 as three byte tokens');
  assert.deepEqual(mergedTokens([END_OF_TEXT, ...cat]), [{ from: 0, to: 0, label: '<|endoftext|>' }, { from: 1, to: 3, label: '猫' }]);
  // Two of its three bytes: no character yet, each byte its own token until the third comes.
  assert.deepEqual(mergedTokens(cat.slice(0, 2)).map(({ label }) => label), ['⟨e7⟩', '⟨8c⟩']);
  // A lone continuation byte, and a lead byte followed by a word: neither can be a character.
  assert.deepEqual(mergedTokens([cat[1], ...gpt2Input(' the', 64).slice(1)]).map(({ label }) => label), ['⟨8c⟩', '␣the']);
  assert.deepEqual(mergedTokens([cat[0], ...gpt2Input(' the', 64).slice(1), ...cat]).map(({ label }) => label), ['⟨e7⟩', '␣the', '猫']);
  // Characters whose bytes are split differently (吃 in two tokens), with words around them.
  const ids = gpt2Input('猫吃鱼 the cat', 64);
  assert.deepEqual(mergedTokens(ids).map(({ label }) => label), ['<|endoftext|>', '猫', '吃', '鱼', '␣the', '␣cat']);
});

test('byte tokens merged, over 300 seeded texts of split characters and words: the entries cover every token once, in order, and a merged one is its bytes\' text', () => {
  const pool = [...new Set(gpt2Input('猫吃鱼 the cat 😀 é', 64).slice(1))];
  const random = seededRandom(5);
  for (let trial = 0; trial < 300; trial++) {
    const ids = Array.from({ length: 1 + Math.floor(random() * 12) }, () => pool[Math.floor(random() * pool.length)]);
    const entries = mergedTokens(ids);
    assert.deepEqual(entries.flatMap(({ from, to }) => Array.from({ length: to - from + 1 }, (_, k) => from + k)), ids.map((_, i) => i));
    for (const { from, to, label } of entries) {
      if (from === to && label === gpt2TokenLabel(ids[from])) continue;
      const bytes = Uint8Array.from(ids.slice(from, to + 1).flatMap((id) => [...gpt2TokenBytes(id)]));
      assert.equal(label, new TextDecoder('utf-8', { fatal: true }).decode(bytes).replaceAll(' ', '␣'), `${ids}: ${from}..${to}`);
    }
  }
});

test('a head\'s map read by characters: 猫\'s three byte tokens one row (the last one\'s query) and one column (their sum)', () => {
  const ids = gpt2Input('猫a', 64); // <|endoftext|>, 猫's three bytes, a
  const { groups, labels, of } = mergedPositions(ids.map(gpt2TokenLabel), characterRuns(ids));
  assert.deepEqual(labels, ['<|endoftext|>', '猫', 'a']);
  assert.deepEqual(groups, [{ from: 0, to: 0 }, { from: 1, to: 3 }, { from: 4, to: 4 }]);
  assert.deepEqual(of, [0, 1, 1, 1, 2]);
  // A causal 5 × 5 map whose row r gives each of its r + 1 positions the same share.
  const L = 5;
  const weights = Float32Array.from({ length: L * L }, (_, i) => (i % L <= Math.floor(i / L) ? 1 / (Math.floor(i / L) + 1) : 0));
  const merged = Array.from(mergedAttention(weights, L, groups), (w) => Math.round(w * 1000) / 1000);
  // Row 猫 is token 3's query: 1/4 on <|endoftext|>, 3/4 on 猫's bytes, 0 on a (after it); row a is token 4's: 1/5, 3/5, 1/5.
  assert.deepEqual(merged, [1, 0, 0, 0.25, 0.75, 0, 0.2, 0.6, 0.2]);
  // Nothing to merge: the same map.
  assert.equal(mergedAttention(weights, L, Array.from({ length: L }, (_, i) => ({ from: i, to: i }))), weights);
});

const config = { layers: 2, heads: 2, dModel: 16, context: 80, vocab: 50257 };
const mha = await loadAttention();
const model = await mha.loadModel(gpt2File(config, randomWeights(config, seededRandom(21), { spread: 0.5 })), { maxTokens: 64 });
const prompt = gpt2Input('The cat sat on the', 64);
const write = (options) => [...generation(model, prompt, options)].map(({ id }) => id);

test('generation: a seed always writes the same tokens; temperature 0 the likeliest after the whole text each step', () => {
  const sampled = write({ count: 12, temperature: 1, random: mha.randomState(7) });
  assert.equal(sampled.length, 12);
  assert.deepEqual(write({ count: 12, temperature: 1, random: mha.randomState(7) }), sampled, 'seed 7 again');
  assert.notDeepEqual(write({ count: 12, temperature: 1, random: mha.randomState(8) }), sampled, 'another seed');
  const greedy = write({ count: 8 });
  // Each token as a forward of the whole text so far would choose it (no cache).
  const ids = [...prompt];
  const { vocabSize } = model.config;
  for (const id of greedy) {
    const logits = model.forward(ids).logits();
    assert.equal(id, chooseToken(logits.subarray((ids.length - 1) * vocabSize), 0, null));
    ids.push(id);
  }
});

test('generation stops where the cache is full (maxTokens), and its steps hold the new query\'s attention', () => {
  const written = [...generation(model, gpt2Input('The cat sat on the', 64), { count: 100 })];
  assert.equal(written.length, 64 - prompt.length);
  assert.equal(model.length, 64);
  const row = model.attention(1, 1).subarray(63 * 64);
  assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-5, 'the last query\'s weights sum to 1');
  assert.ok(written.every(({ ms }) => ms >= 0));
});
