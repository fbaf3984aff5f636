// §10 writes with the key-value cache, in Chromium: the poetry model's 一步 writes one character and draws the
// new query against the cached rows, the cache's size and the step's multiply-adds (cache-view.js's counts);
// 写完 writes the poem on. GPT-2 (a small file in GPT-2's exact layout, as gpt2.browser.test.js opens) generates
// from the sentence, greedy and seeded, the tokens those of generate.js in Node with the same model, Chinese bytes
// merged into characters (in the tiles and the enlarged head too), its speed on screen, a head switched off kept
// off, 停 ending it at once. In Chinese and English, at 1280 and 375 px, axe clean.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBrowserAndServer, openPage, lessonDrawn, seriousAxeViolations } from './browser.js';
import { loadAttention } from '../web/src/attention.js';
import { gpt2File, randomWeights } from './gpt-reference.js';
import { seededRandom } from './seeded.js';
import { gpt2Input, mergedTokens } from '../web/gpt2/tokens.js';
import { generation } from '../web/gpt2/generate.js';
import { stepCost } from '../web/heads/cache-view.js';
import { GPT2_TEXT } from '../web/gpt2/strings.js';
import { POEMS_TEXT } from '../web/poems/strings.js';
import { firstLine } from '../web/poems/runs.js';
import { TEXT } from '../web/page/text.js';
import { SEED_MAX } from '../web/shared/lesson.js';

const LOAD_MS = 120000;
const config = { layers: 2, heads: 2, dModel: 16, context: 80, vocab: 50257 };
const file = gpt2File(config, randomWeights(config, seededRandom(21), { spread: 0.5 }));
const mha = await loadAttention();
const model = await mha.loadModel(file, { maxTokens: 64 });
const poems = await mha.loadPoemModel();

/** What generate.js writes in Node on the same model: the merged labels of prompt and tokens. */
function written(text, count, temperature = 0, seed = 1, disabled = []) {
  const prompt = gpt2Input(text, 64);
  const random = temperature > 0 ? mha.randomState(seed) : null;
  const ids = [...prompt, ...[...generation(model, prompt, { count, temperature, random, disabled })].map(({ id }) => id)];
  return { ids, labels: mergedTokens(ids).map(({ label }) => label) };
}

let env;
before(async () => (env = await startBrowserAndServer()));
after(async () => {
  await env?.close();
  model.dispose();
});

async function openPoems(lang, width) {
  const opened = await openPage(env.browser, `${env.baseUrl}?lang=${lang}`, { baseUrl: env.baseUrl, viewport: { width, height: 900 } });
  await lessonDrawn(opened.page);
  for (let tries = 0; !(await opened.page.$('#poem-step')); tries++) {
    await opened.page.locator('#poems-section').scrollIntoViewIfNeeded();
    await opened.page.waitForSelector('#poem-step', { timeout: tries < 5 ? 5000 : LOAD_MS }).catch((error) => {
      if (tries >= 5) throw error;
    });
  }
  return opened;
}

for (const [lang, width] of [['en', 1280], ['zh', 375]]) {
  test(`the poetry writer, ${lang} at ${width} px: 一步 writes a character and draws the cache, 写完 writes the poem on`, async () => {
    const { page, errors } = await openPoems(lang, width);
    const t = POEMS_TEXT[lang];
    await page.fill('#poems-section textarea', '床前明月光');
    await page.locator('#poem-step').scrollIntoViewIfNeeded();
    // Before a step the cache's column says what will fill it.
    assert.equal(await page.textContent('#poem-cache-empty'), t.cache.empty);
    await page.click('#poem-step');
    await page.waitForFunction(() => document.querySelector('#poem-cache-size')?.dataset.rows === '6');
    assert.equal(await page.$('#poem-cache-empty'), null);
    // The first step reads the text: every position again, or none where the analysis above had computed them all.
    const { layers, dModel, vocabSize } = poems.model.config;
    const first = Number(await page.getAttribute('#poem-cache-cost', 'data-computed'));
    const firstCost = stepCost({ layers, dModel, vocabSize }, 6, 6 - first);
    const said = (value) => value.toLocaleString('en-US');
    assert.equal(await page.textContent('#poem-cache-cost'), first === 0
      ? t.cache.costNone(said(firstCost.cached), said(firstCost.full), (firstCost.full / firstCost.cached).toFixed(1))
      : t.cache.costWhole(said(firstCost.full), 6), `${first} positions computed`);
    await page.click('#poem-step');
    // The prompt's ⟨始⟩ and five characters, and the one written: 7 rows, each 3 layers' K and V of 128 floats
    // (3,072 bytes; 21 KB in all).
    await page.waitForFunction(() => document.querySelector('#poem-cache-size')?.dataset.rows === '7');
    assert.equal([...await page.textContent('#poem-added')].length, 2);
    assert.equal(await page.textContent('#poem-continuation p.muted'), t.paused(2));
    assert.equal(await page.textContent('#poem-cache-size'), t.cache.size(7, '21', '3', layers));
    const cost = stepCost({ layers, dModel, vocabSize }, 7);
    assert.equal(await page.getAttribute('#poem-cache-cost', 'data-cached'), String(cost.cached));
    assert.equal(await page.textContent('#poem-cache-cost'), t.cache.cost(cost.cached.toLocaleString('en-US'), cost.full.toLocaleString('en-US'), (cost.full / cost.cached).toFixed(1)));
    // The new query's row for the head picked: a bar for each cached row, its weights summing to 1.
    const bars = await page.$$eval('#poem-cache-row g.bar', (groups) => groups.map((g) => Number(g.dataset.value)));
    assert.equal(bars.length, 7);
    assert.ok(Math.abs(bars.reduce((a, b) => a + b, 0) - 1) < 1e-4);
    assert.match(await page.textContent('#poem-cache-row figcaption'), lang === 'zh' ? /^第 2 步，层1 头1：/ : /^Step 2, L1 · H1: /);
    await page.click('#poem-to-end');
    await page.waitForFunction(() => document.querySelector('#poem-continuation p.muted')?.textContent.match(/[：:]$/), null, { timeout: 60000 });
    assert.ok([...await page.textContent('#poem-added')].length > 2, 'written on from where it stopped');
    assert.deepEqual(await seriousAxeViolations(page), []);
    assert.deepEqual(errors, []);
    await page.context().close();
  });
}

test('一步 on the page\'s whole poem keeps it: the page says it is whole and offers a new poem or writing on, and writing on goes on from it, a step at a time', async () => {
  const { page, errors } = await openPoems('zh', 1280);
  const t = POEMS_TEXT.zh;
  const poem = await page.inputValue('#poems-section textarea');
  await page.locator('#poem-step').scrollIntoViewIfNeeded();
  await page.click('#poem-step');
  await page.waitForSelector('#poem-ended');
  assert.equal(await page.textContent('#poem-ended'), t.poemComplete);
  assert.equal(await page.inputValue('#poems-section textarea'), poem, 'the poem analysed above stays');
  assert.equal(await page.$('#poem-restarted'), null);
  assert.ok(await page.isVisible('#poem-restart'));
  // Asked after 一步, writing on goes a step at a time too: one character, then 写完 writes the rest.
  await page.click('#poem-past-end');
  await page.waitForFunction((paused) => document.querySelector('#poem-continuation p.muted')?.textContent === paused, t.paused(1));
  await page.click('#poem-to-end');
  await page.waitForFunction(() => document.querySelector('#poem-continuation p.muted')?.textContent.match(/续写：$/) && document.querySelector('#poem-added')?.textContent, null, { timeout: 60000 });
  assert.equal(await page.inputValue('#poems-section textarea'), poem, 'written on from the whole poem');
  assert.ok((await page.textContent('#poem-continuation .poem-output')).startsWith(poem));
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('一步 on the whole poem, then a new poem from the first line: written a step at a time, the next 一步 going on with it', async () => {
  const { page, errors } = await openPoems('zh', 1280);
  const t = POEMS_TEXT.zh;
  const line = firstLine(await page.inputValue('#poems-section textarea'));
  await page.locator('#poem-step').scrollIntoViewIfNeeded();
  await page.click('#poem-step');
  await page.waitForSelector('#poem-ended');
  await page.click('#poem-restart');
  // ⟨始⟩ and the first line: the character written joins the cache at the next step.
  const rows = 1 + [...line].length;
  await page.waitForFunction((rows) => document.querySelector('#poem-cache-size')?.dataset.rows === String(rows), rows);
  assert.equal(await page.inputValue('#poems-section textarea'), line);
  assert.equal([...await page.textContent('#poem-added')].length, 1);
  assert.equal(await page.textContent('#poem-continuation p.muted'), t.paused(1));
  const first = await page.textContent('#poem-added');
  await page.click('#poem-step');
  await page.waitForFunction((rows) => document.querySelector('#poem-cache-size')?.dataset.rows === String(rows), rows + 1);
  assert.ok((await page.textContent('#poem-added')).startsWith(first), 'the same poem, one character longer');
  assert.deepEqual(errors, []);
  await page.context().close();
});

/** Sets a range input as a learner dragging it would. */
const slide = (page, selector, value) => page.$eval(selector, (input, v) => {
  input.value = String(v);
  input.dispatchEvent(new Event('input', { bubbles: true }));
}, value);

const shownTokens = (page) => page.$$eval('#gpt2-gen-tokens code', (codes) => codes.map((code) => code.textContent));

for (const [lang, width] of [['zh', 1280], ['en', 375]]) {
  test(`GPT-2 generates, ${lang} at ${width} px: greedy and seeded as generate.js in Node, bytes merged into characters, tokens a second shown`, async () => {
    const { page, errors } = await openPage(env.browser, `${env.baseUrl}?lang=${lang}`, { baseUrl: env.baseUrl, viewport: { width, height: 900 } });
    const t = GPT2_TEXT[lang];
    await lessonDrawn(page);
    await page.locator('#poems-section').scrollIntoViewIfNeeded();
    await page.check('#poem-source-gpt2');
    await page.setInputFiles('#gpt2-drop input[type=file]', { name: 'tiny-gpt2.safetensors', mimeType: 'application/octet-stream', buffer: Buffer.from(file) });
    await page.waitForSelector('#gpt2-body:not([hidden]) #gpt2-generate', { timeout: LOAD_MS });
    const text = 'The cat sat on the';
    await page.fill('#gpt2-body textarea', text);
    await page.fill('#gpt2-count', '10');
    await page.click('#gpt2-generate');
    await page.waitForFunction((want) => document.querySelector('#gpt2-gen-status')?.textContent === want, t.generated(10, 0, 1, false), { timeout: LOAD_MS });
    const greedy = written(text, 10);
    assert.deepEqual(await shownTokens(page), greedy.labels);
    assert.equal(await page.getAttribute('#gpt2-cache-size', 'data-rows'), String(greedy.ids.length));
    const perSecond = Number(await page.getAttribute('#gpt2-speed', 'data-per-second'));
    assert.ok(perSecond > 0);
    const { stepMs, forwardMs, kept } = await page.$eval('#gpt2-speed', (p) => ({ ...p.dataset }));
    // The generation's forward keeps what it shares with the page's run before it (all, when that run was of this sentence).
    assert.ok(Number(kept) <= gpt2Input(text, 64).length);
    assert.equal(await page.textContent('#gpt2-speed'), t.speed(perSecond.toFixed(1), stepMs, forwardMs, Number(kept)));
    assert.ok(Math.abs(1000 / Number(stepMs) - perSecond) < 0.1 * perSecond, 'tokens a second from the steps\' milliseconds');
    const bars = await page.$$eval('#gpt2-cache-row g.bar', (groups) => groups.map((g) => Number(g.dataset.value)));
    assert.ok(Math.abs(bars.reduce((a, b) => a + b, 0) - 1) < 1e-4, 'the new query\'s weights over the cache sum to 1');
    // Sampled at temperature 1 with seed 7, from a Chinese prompt: 猫 shown as one character, not its three bytes.
    const chinese = '我的猫';
    await page.fill('#gpt2-body textarea', chinese);
    // The tiles and the enlarged head read 我 and 猫 as one position each: 4 where GPT-2 reads 7 tokens.
    await page.waitForFunction(() => document.querySelector('#gpt2-tokens')?.dataset.key === '|我的猫' && document.querySelector('#gpt2-tiles')?.dataset.drawn === '4');
    assert.deepEqual(await page.$$eval('#gpt2-tiles canvas', (canvases) => canvases.map((canvas) => canvas.dataset.cells)), ['4', '4', '4', '4']);
    assert.equal(await page.textContent('#gpt2-merged-tiles'), t.mergedTiles);
    const big = await page.textContent('#gpt2-big');
    assert.ok(big.includes('猫') && !big.includes('⟨'), big);
    await slide(page, '#gpt2-generate-controls input[type=range]', 1);
    await page.fill('#gpt2-seed', '7');
    await page.click('#gpt2-generate');
    await page.waitForFunction((want) => document.querySelector('#gpt2-gen-status')?.textContent === want, t.generated(10, 1, 7, false), { timeout: LOAD_MS });
    const sampled = written(chinese, 10, 1, 7);
    const shown = await shownTokens(page);
    assert.deepEqual(shown, sampled.labels);
    assert.deepEqual(shown.slice(0, 4), ['<|endoftext|>', '我', '的', '猫'], 'the prompt\'s characters whole');
    // A head switched off stays off while it writes.
    await page.check('#gpt2-off-1-0');
    await page.click('#gpt2-generate');
    await page.waitForFunction((want) => document.querySelector('#gpt2-gen-status')?.textContent === want, t.generated(10, 1, 7, false, 1), { timeout: LOAD_MS });
    assert.deepEqual(await shownTokens(page), written(chinese, 10, 1, 7, [[1, 0]]).labels);
    // Stop, pressed as soon as it can be: the worker ends the generation at its next step.
    await page.fill('#gpt2-count', '50'); // of the 57 the 7 tokens of 我的猫 leave
    await page.evaluate(async () => {
      document.querySelector('#gpt2-generate').click();
      await new Promise((resolve) => setTimeout(resolve));
      document.querySelector('#gpt2-stop').click();
    });
    await page.waitForFunction((word) => document.querySelector('#gpt2-gen-status')?.textContent.startsWith(word), lang === 'zh' ? '停下了。' : 'Stopped. ', { timeout: LOAD_MS });
    const stoppedAt = (await page.$$eval('#gpt2-gen-tokens .gpt2-token-written', (codes) => codes.length));
    assert.ok(stoppedAt < 60, `stopped after ${stoppedAt} tokens`);
    assert.equal(await page.isDisabled('#gpt2-stop'), true);
    assert.deepEqual(await seriousAxeViolations(page), []);
    assert.deepEqual(errors, []);
    await page.context().close();
  });
}

/** "cat cat …": a token a word, after <|endoftext|>. */
const cats = (words) => Array(words).fill('cat').join(' ');
const statusIs = (page, want) => page.waitForFunction((w) => document.querySelector('#gpt2-gen-status')?.textContent === w, want, { timeout: LOAD_MS });
const roomIs = (page, want) => page.waitForFunction((w) => document.querySelector('#gpt2-room')?.textContent === w, want, { timeout: LOAD_MS });

for (const lang of ['zh', 'en']) {
  test(`GPT-2's limits said truly, ${lang}: the model's context and the page's 64, a long text's tokens, the room left, and number boxes that give their range`, async () => {
    const { page, errors } = await openPage(env.browser, `${env.baseUrl}?lang=${lang}`, { baseUrl: env.baseUrl, viewport: { width: 1280, height: 900 } });
    const t = GPT2_TEXT[lang];
    const { wholeRange } = TEXT[lang];
    await lessonDrawn(page);
    await page.locator('#poems-section').scrollIntoViewIfNeeded();
    // The poet's seed: out of its range it says the range and the seed in use, never "not a number"; leaving puts it back.
    for (const typed of ['-3', '2.5', '1e30', '4294967296', '']) {
      await page.fill('#poem-seed', typed);
      assert.equal(await page.textContent('#poem-seed-hint'), wholeRange(0, SEED_MAX, 1), typed);
      await page.$eval('#poem-seed', (box) => box.blur());
      assert.equal(await page.inputValue('#poem-seed'), '1');
      assert.equal(await page.textContent('#poem-seed-hint'), '', 'no sentence beside the seed in use');
    }
    await page.check('#poem-source-gpt2');
    await page.setInputFiles('#gpt2-drop input[type=file]', { name: 'tiny-gpt2.safetensors', mimeType: 'application/octet-stream', buffer: Buffer.from(file) });
    await page.waitForSelector('#gpt2-body:not([hidden]) #gpt2-generate', { timeout: LOAD_MS });
    // The load line: the model's context (80 in this file) and the 64 this page reads.
    assert.ok((await page.textContent('#gpt2-model')).endsWith(lang === 'zh' ? '模型一次最多能读 80 个词元；这一页只读前 64 个。' : 'The model reads at most 80 tokens at once; this page reads the first 64.'));
    // Sentences of 20, 60, 63 and 1,100 words: the whole text's tokens, those read, and the room left to write.
    for (const words of [20, 60, 63, 1100]) {
      const total = words + 1;
      const read = Math.min(total, 64);
      await page.fill('#gpt2-body textarea', cats(words));
      await roomIs(page, t.room(total, 64, 20));
      assert.equal(await page.textContent('#gpt2-tokens-count'), t.tokensTitle(total, read), `${words} words`);
      assert.equal(await page.$$eval('#gpt2-tokens .gpt2-token', (tokens) => tokens.length), read);
      assert.equal(await page.isDisabled('#gpt2-generate'), total >= 64, `${words} words: Generate waits for a shorter sentence`);
      // The count box takes 1 to the room left (63 where there is none), and says so for anything else.
      const most = total >= 64 ? 63 : 64 - total;
      for (const typed of ['0', '-5', String(most + 1), '100', '2.5']) {
        await page.fill('#gpt2-count', typed);
        assert.equal(await page.textContent('#gpt2-count-hint'), wholeRange(1, most, 20), `${words} words, ${typed}`);
      }
      await page.$eval('#gpt2-count', (box) => box.blur());
      assert.equal(await page.inputValue('#gpt2-count'), '20');
      assert.equal(await page.textContent('#gpt2-count-hint'), '');
    }
    // Pressed before the sentence's tokens were counted (the button not yet held back), the worker's count says it.
    await page.evaluate(() => {
      const button = document.querySelector('#gpt2-generate');
      button.disabled = false;
      button.click();
    });
    await statusIs(page, t.room(1101, 64, 20));
    assert.equal(await page.$('#gpt2-gen-tokens'), null, 'no "0 tokens written" and no empty list');
    // 60 words leave 3 of the 20 asked for: said before, written, and the cache's end said after.
    await page.fill('#gpt2-body textarea', cats(60));
    await roomIs(page, t.room(61, 64, 20));
    await page.click('#gpt2-generate');
    await statusIs(page, t.generated(3, 0, 1, false));
    assert.equal(await page.textContent('#gpt2-cache-full'), t.cacheFull(64));
    // The seed: its range and the seed in use, then nothing once it is back.
    await page.fill('#gpt2-seed', '-3');
    assert.equal(await page.textContent('#gpt2-seed-hint'), wholeRange(0, SEED_MAX, 1));
    await page.$eval('#gpt2-seed', (box) => box.blur());
    assert.equal(await page.textContent('#gpt2-seed-hint'), '');
    assert.deepEqual(errors, []);
    await page.context().close();
  });
}
