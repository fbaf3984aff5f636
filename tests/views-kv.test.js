// §10's views of writing with the key-value cache (web/heads/cache-view.js's cacheView, web/gpt2/views.js's
// generationView, the poetry writer paused after 一步), pure functions from the numbers and the words to DOM,
// against golden HTML in tests/golden/views/ (UPDATE_GOLDEN=1 rewrites them), in both languages, with the
// weights drawn checked against a forward of the same text and the counts against stepCost's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseHTML } from 'linkedom';
import { loadAttention } from '../web/src/attention.js';
import { show } from '../web/ui/dom.js';
import { openPoems, inputIds, Continuation } from '../web/poems/runs.js';
import { continuationView, tokenLabel } from '../web/poems/views.js';
import { cacheView, stepCost } from '../web/heads/cache-view.js';
import { generationView } from '../web/gpt2/views.js';
import { generation } from '../web/gpt2/generate.js';
import { gpt2Input, mergedTokens } from '../web/gpt2/tokens.js';
import { lastRows, layerHead } from '../web/heads/heads.js';
import { gpt2File, randomWeights } from './gpt-reference.js';
import { seededRandom } from './seeded.js';
import { matchGolden } from './golden.js';
import { POEMS_TEXT } from '../web/poems/strings.js';
import { GPT2_TEXT } from '../web/gpt2/strings.js';

const mha = await loadAttention();
const { document } = parseHTML('<!doctype html><html><body></body></html>');
const shown = (view) => show(document.createElement('div'), view);
const bars = (node, id) => [...node.querySelectorAll(`#${id} g.bar`)].map((bar) => Number(bar.dataset.value));
const count = (value) => value.toLocaleString('en-US');

test('the poetry writer after two steps: the new query against the 8 cached rows, the cache\'s size, the step\'s cost', async () => {
  const poems = await openPoems(mha, null);
  const { layers, heads, dModel, vocabSize } = poems.model.config;
  const writer = new Continuation(poems, mha, { ids: inputIds(poems, '床前明月光'), off: [], temperature: 0, verse: true, repetition: true, rows: true });
  writer.advance(1000, 3);
  const { ids, rows, stepped, steps } = writer.last;
  assert.deepEqual({ length: ids.length, stepped, steps }, { length: 8, stepped: true, steps: 3 });
  const index = 5;
  // The row a forward of the same text gives (a step's attention is the forward's to the bit: tests/gpt.test.js).
  const L = ids.length;
  const want = poems.model.forward(ids).attention(...layerHead(index, heads)).slice((L - 1) * L);
  for (const lang of ['zh', 'en']) {
    const t = POEMS_TEXT[lang];
    const continuation = { prompt: '床前明月光', added: writer.added.map((id) => tokenLabel(t, poems.vocabulary, id)).join(''), temperature: 0, seed: 1,
      repetition: true, pastTheEnd: false, done: false, paused: true, count: writer.added.length, run: 1 };
    const view = shown([...continuationView(t, continuation), ...cacheView(t, { prefix: 'poem', step: steps, index, heads, config: { layers, dModel, vocabSize },
      entries: ids.map((id, i) => ({ label: tokenLabel(t, poems.vocabulary, id), weight: rows[index][i] })) })]);
    matchGolden(`views/kv-poem-${lang}.html`, view);
    assert.equal(view.querySelector('p.muted').textContent, t.paused(3));
    bars(view, 'poem-cache-row').forEach((weight, i) => assert.ok(Math.abs(weight - want[i]) < 1e-6, `row ${i}: ${weight} against ${want[i]}`));
    const cost = stepCost({ layers, dModel, vocabSize }, 8);
    assert.equal(view.querySelector('#poem-cache-cost').textContent, t.cache.cost(count(cost.cached), count(cost.full), (cost.full / cost.cached).toFixed(1)));
    assert.equal(view.querySelector('#poem-cache-size').textContent, t.cache.size(8, '24', '3', layers));
  }
});

test('the poetry writer past its window and at its first step: the cost and size it says are those of what it computed', async () => {
  const poems = await openPoems(mha, null);
  const { layers, heads, dModel, vocabSize, context } = poems.model.config;
  const config = { layers, dModel, vocabSize };
  const lines = '朝辞白帝彩云间，千里江陵一日还。\n两岸猿声啼不住，轻舟已过万重山。\n';
  const ids = inputIds(poems, lines.repeat(Math.ceil(context / [...lines].length))).slice(0, context - 1); // one short of the window
  const writer = new Continuation(poems, mha, { ids, off: [], temperature: 0, count: 3, rows: true });
  const states = [];
  for (let step = 0; step < 3; step++) {
    writer.advance(1000, 1);
    states.push({ ...writer.last });
  }
  // A fresh model: the first step reads the whole text; the second is a step from the cache; the third's window moved.
  assert.deepEqual(states.map(({ reused, slid, ids: window }) => ({ reused, slid, length: window.length })),
    [{ reused: 0, slid: false, length: context - 1 }, { reused: context - 1, slid: false, length: context }, { reused: 0, slid: true, length: context }]);
  for (const lang of ['zh', 'en']) {
    const t = POEMS_TEXT[lang];
    const view = (last) => shown(cacheView(t, { prefix: 'poem', step: last.steps, index: 0, heads, config, reused: last.reused, full: last.full,
      entries: last.ids.map((id, i) => ({ label: tokenLabel(t, poems.vocabulary, id), weight: 1 / last.ids.length })) }));
    const [first, second, slid] = states.map(view);
    const whole = (length) => t.cache.costWhole(count(stepCost(config, length, 0).full), length);
    assert.equal(first.querySelector('#poem-cache-cost').textContent, whole(context - 1));
    const step = stepCost(config, context);
    assert.equal(second.querySelector('#poem-cache-cost').textContent, t.cache.cost(count(step.cached), count(step.full), (step.full / step.cached).toFixed(1)));
    // The window is the context now: the cache grows no more, the next character moves it.
    assert.equal(second.querySelector('#poem-cache-size').textContent, t.cache.sizeFull(context, String(context * 3), layers));
    assert.equal(first.querySelector('#poem-cache-size').textContent, t.cache.size(context - 1, String((context - 1) * 3), '3', layers));
    assert.equal(slid.querySelector('#poem-cache-cost').textContent, whole(context));
    assert.equal(slid.querySelector('#poem-cache-size').textContent, t.cache.sizeFull(context, String(context * 3), layers));
  }
});

test('a first step after the text was analysed computes no position: it says so, and reads the last character\'s query', async () => {
  const poems = await openPoems(mha, null);
  const { layers, heads, dModel, vocabSize } = poems.model.config;
  const config = { layers, dModel, vocabSize };
  const ids = inputIds(poems, '白日依山尽，');
  poems.model.forward(ids); // the analysis of the text, as the page runs it before the writer starts
  const writer = new Continuation(poems, mha, { ids, off: [], temperature: 0, count: 1, rows: true });
  writer.advance(1000, 1);
  assert.equal(writer.last.reused, ids.length, 'every position was kept');
  for (const lang of ['zh', 'en']) {
    const t = POEMS_TEXT[lang];
    const last = writer.last;
    const view = shown(cacheView(t, { prefix: 'poem', step: last.steps, index: 0, heads, config, reused: last.reused,
      entries: last.ids.map((id) => ({ label: tokenLabel(t, poems.vocabulary, id), weight: 1 / last.ids.length })) }));
    const cost = stepCost(config, ids.length, ids.length);
    assert.equal(cost.cached, dModel * vocabSize, 'the logits of the last position alone');
    const node = view.querySelector('#poem-cache-cost');
    assert.equal(node.getAttribute('data-computed'), '0');
    assert.equal(node.textContent, t.cache.costNone(count(cost.cached), count(cost.full), (cost.full / cost.cached).toFixed(1)));
    assert.equal(view.querySelector('#poem-cache-row figcaption').textContent, t.cache.rowTitleKept(1, t.tileName(0, 0), '，'));
  }
});

test('where the writer ends a poem it counts its lines, over 200 seeded poems in both languages', () => {
  const random = seededRandom(12);
  const pieces = ['白日依山尽', '，', '。', '\n', '？', '！', '；', '黄河入海流', '春'];
  const text = () => Array.from({ length: Math.floor(random() * 12) }, () => pieces[Math.floor(random() * pieces.length)]).join('');
  for (let trial = 0; trial < 200; trial++) {
    const prompt = text(), added = text() || '春';
    for (const lang of ['zh', 'en']) {
      const t = POEMS_TEXT[lang];
      const view = shown(continuationView(t, { prompt, added, temperature: 0, seed: 1, repetition: true, pastTheEnd: false, done: true, ended: true, count: [...added].length, run: 1 }));
      assert.equal(view.querySelector('#poem-ended').textContent, t.poemEnded((prompt + added).match(/[，。？！；]/g)?.length ?? 0));
    }
  }
});

test('a poem already whole, asked again, gets nothing added and is not said to be "the same text again"', () => {
  for (const lang of ['zh', 'en']) {
    const t = POEMS_TEXT[lang];
    const base = { prompt: '白日依山尽，黄河入海流。', temperature: 0.8, seed: 1, repetition: true, offCount: 0, pastTheEnd: false, done: true, ended: true, run: 3 };
    const whole = shown(continuationView(t, { ...base, added: '', count: 0 }));
    assert.equal(whole.querySelector('#poem-ended').textContent, t.poemComplete);
    assert.equal(whole.querySelector('#poem-again'), null);
    const again = shown(continuationView(t, { ...base, added: '欲穷千里目，更上一层楼。', count: 12 }));
    assert.equal(again.querySelector('#poem-again').textContent, t.continuedAgain(3, 0.8));
  }
});

test('the writer\'s line says how many heads were off when it wrote, in both languages', () => {
  for (const count of [0, 1, 3]) {
    for (const lang of ['zh', 'en']) {
      const t = POEMS_TEXT[lang];
      const view = shown(continuationView(t, { prompt: '白日依山尽，', added: '黄河入海流。', temperature: 0.8, seed: 1, repetition: true, offCount: count, pastTheEnd: false, done: true, ended: false, count: 6, run: 1 }));
      const line = view.querySelector('p.muted').textContent;
      assert.equal(line, t.continued(0.8, 1, false, true, count));
      const said = lang === 'zh' ? line.match(/关掉 (\d+) 个头/) : line.match(/with (\d+) heads? switched off/);
      assert.equal(said ? Number(said[1]) : 0, count, line);
    }
  }
});

test('GPT-2\'s generation: merged characters, its speed, and past 16 cached rows the earlier ones summed into one bar', async () => {
  const config = { layers: 2, heads: 2, dModel: 16, context: 80, vocab: 50257 };
  const model = await mha.loadModel(gpt2File(config, randomWeights(config, seededRandom(31), { spread: 0.5 })), { maxTokens: 64 });
  const prompt = gpt2Input('The cat sat on the mat, 猫吃鱼', 64);
  const ids = [...prompt, ...[...generation(model, prompt, { count: 10 })].map(({ id }) => id)];
  const rows = lastRows(model);
  const gen = { key: '1', prompt: prompt.length, ids, tokens: mergedTokens(ids), rows, steps: 10, ms: 125, forwardMs: 12.4, done: true, stopped: false, temperature: 0, seed: 1 };
  const index = 3;
  const { layers, heads, dModel, vocabSize } = model.config;
  for (const lang of ['zh', 'en']) {
    const words = { ...POEMS_TEXT[lang], ...GPT2_TEXT[lang] };
    const view = shown(generationView(words, gen, { index, heads, config: model.config, limit: 64 }));
    matchGolden(`views/kv-gpt2-${lang}.html`, view);
    const labels = [...view.querySelectorAll('#gpt2-gen-tokens code')].map((code) => code.textContent);
    assert.ok(labels.includes('␣猫') && labels.includes('吃') && labels.includes('鱼'), labels.join(' '));
    assert.equal(view.querySelectorAll('#gpt2-gen-tokens .gpt2-token-written').length, gen.tokens.filter(({ to }) => to >= prompt.length).length);
    assert.equal(view.querySelector('#gpt2-speed').textContent, words.speed('80.0', '12.5', '12', 0));
    // 16 bars of the latest entries and one for the rest, every weight of the new query's row counted once.
    const drawn = bars(view, 'gpt2-cache-row');
    assert.equal(drawn.length, 17);
    const entries = gen.tokens.length;
    const rest = gen.tokens.slice(0, entries - 16).reduce((sum, { from, to }) => sum + rows[index].slice(from, to + 1).reduce((a, b) => a + b, 0), 0);
    assert.ok(Math.abs(drawn[0] - rest) < 1e-6);
    assert.ok(Math.abs(drawn.reduce((a, b) => a + b, 0) - 1) < 1e-5);
    const cost = stepCost({ layers, dModel, vocabSize }, ids.length);
    assert.equal(view.querySelector('#gpt2-cache-cost').dataset.cached, String(cost.cached));
  }
  model.dispose();
});

test('GPT-2\'s room to write: said from the sentence\'s tokens, the tokens read and the count asked, and when there is none, instead of "0 written"', () => {
  const numbers = (said) => (said.replace(/GPT-2/g, '').match(/\d+/g) ?? []).map(Number);
  for (const lang of ['zh', 'en']) {
    const words = { ...POEMS_TEXT[lang], ...GPT2_TEXT[lang] };
    for (const limit of [64, 32]) {
      for (const total of [1, 2, 20, limit - 2, limit - 1, limit, limit + 1, 1101]) {
        for (const asked of [1, 5, 20, 63]) {
          const said = words.room(total, limit, asked);
          const room = Math.max(0, limit - total);
          if (room === 0) {
            // The sentence's tokens, the page's limit, and the longest sentence that leaves room.
            assert.deepEqual(numbers(said), [total, limit, limit - 1], `${lang}: ${said}`);
            assert.match(said, /没有位置|no room/);
          } else {
            assert.deepEqual(numbers(said), asked > room ? [total, limit, room, asked, room] : [total, limit, room], `${lang}: ${said}`);
          }
        }
      }
      // A generation whose sentence left no room says so in its status, and shows no "0 tokens written".
      const gen = { key: '1', prompt: 0, ids: [], tokens: [], rows: null, steps: 0, ms: 0, forwardMs: 0, reused: 0, done: true, stopped: false, temperature: 0, seed: 1, offCount: 0, count: 20, total: limit + 37 };
      const view = shown(generationView(words, gen, { index: 0, heads: 12, config: { layers: 12, heads: 12, dModel: 768 }, limit }));
      const status = view.querySelector('#gpt2-gen-status');
      assert.equal(status.textContent, words.room(limit + 37, limit, 20));
      assert.equal(status.dataset.noRoom, 'true');
      assert.equal(view.textContent.includes(words.generated(0, 0, 1, false, 0)), false);
      // With room, the status is the count written, as before.
      const written = shown(generationView(words, { ...gen, total: limit - 1 }, { index: 0, heads: 12, config: { layers: 12, heads: 12, dModel: 768 }, limit }));
      assert.equal(written.querySelector('#gpt2-gen-status').textContent, words.generated(0, 0, 1, false, 0));
    }
  }
});

test('GPT-2\'s load line says the model\'s context and, where shorter, the tokens this page reads', () => {
  for (const lang of ['zh', 'en']) {
    for (const [context, read] of [[1024, 64], [80, 64], [64, 64], [32, 32]]) {
      const config = { layers: 12, heads: 12, dModel: 768, context, vocabSize: 50257 };
      const said = GPT2_TEXT[lang].model('GPT-2 small · model.safetensors', '548', config, read);
      const numbers = (said.replace(/GPT-2/g, '').match(/\d+/g) ?? []).map(Number);
      assert.deepEqual(numbers, [548, 12, 12, 768, 50257, context, ...(read < context ? [read] : [])], `${lang}: ${said}`);
    }
  }
});
