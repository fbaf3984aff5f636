// §10, the poetry model's section, in Chromium: it loads when scrolled to, with progress; its figures,
// role scores, held-out loss, predictions and continuations are the API's numbers for the same input
// (computed again here, in Node or in the page); zh and en; 375 px; keyboard; axe-core.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBrowserAndServer, openPage, lessonDrawn, seriousAxeViolations, scrollSettled, longTasksOver, excusedFromProbe } from './browser.js';
import { loadAttention } from '../web/src/attention.js';
import { evaluationWindows } from '../web/poems/baselines.js';
import { TILE_LEVELS, FUTURE_COLOR, weightColor } from '../web/draw/index.js';
import { roleQueries, tokenKinds } from '../web/poems/head-roles.js';
import { HEAD_ROLES, emptyTally, tallyHead, tallyScores, labelRole } from '../web/heads/roles.js';
import { Continuation, firstLine } from '../web/poems/runs.js';
import { POEMS_TEXT } from '../web/poems/strings.js';

const mha = await loadAttention();
const { model, encode, card } = await mha.loadPoemModel();
const { layers, heads, vocabSize } = model.config;
const vocabulary = JSON.parse(model.metadata.vocabulary);
const kinds = tokenKinds(vocabulary);
const LOAD_MS = 180000; // a shared 2-core machine: the model and 31 poems take a while

/** What the API's writer adds to `text` with the page's rules (verse; the repetition rule unless switched off). */
function writtenByApi(text, { temperature, seed = 1, repetition = true, pastTheEnd = false }) {
  const continuation = new Continuation({ model, vocabulary, kinds }, mha, { ids: [0, ...encode(text)], off: [], temperature, seed, pastTheEnd, verse: true, repetition });
  while (!continuation.advance(1000));
  return { added: continuation.added.map((id) => vocabulary[id]).join(''), ended: continuation.ended };
}

let env;
before(async () => {
  env = await startBrowserAndServer();
});
after(async () => {
  await env?.close();
});

/** Opens the page (its long tasks probed), checks the model waits for the section, scrolls to it and waits for the held-out loss. */
async function openSection(query = '', viewport = { width: 1280, height: 900 }, options = {}) {
  const opened = await openPage(env.browser, env.baseUrl + query, { baseUrl: env.baseUrl, viewport, probe: true, ...options });
  const { page } = opened;
  await lessonDrawn(page); // §10's code comes after the first figure; the page is drawn once it is built
  assert.equal(await page.$('.poem-tile'), null, 'nothing is loaded before the section comes into view');
  // From the scroll until the loss is shown the learner is told what is happening, with no blank moment.
  await page.evaluate(() => {
    const status = document.querySelector('#poems-status');
    window.statusSeen = [];
    new MutationObserver(() => window.statusSeen.push({
      text: status.textContent.trim(), loss: Boolean(document.querySelector('#poem-loss-all[data-value]:not([data-value=""])')),
    })).observe(status, { childList: true, subtree: true, characterData: true });
  });
  await scrollToPoems(page);
  await lossShown(page, 'poem-loss-all');
  const blank = await page.evaluate(() => window.statusSeen.filter(({ text, loss }) => !loss && text === '').length);
  assert.equal(blank, 0, 'the status is never blank before the loss is shown');
  return opened;
}

/**
 * Scrolls to §10 until its model starts loading (or, on a fast machine, has loaded between two looks): a
 * section above that is still drawing may push it away again.
 */
async function scrollToPoems(page) {
  for (let tries = 1; ; tries++) {
    await page.locator('#poems-section').scrollIntoViewIfNeeded();
    try {
      return await page.waitForSelector('#poems-status progress, #poem-loss-all[data-value]:not([data-value=""])', { timeout: tries < 5 ? 5000 : LOAD_MS });
    } catch (error) {
      if (tries === 5) throw error;
    }
  }
}

const lossShown = (page, id) => page.waitForSelector(`#${id}[data-value]:not([data-value=""])`, { timeout: LOAD_MS });

/** Scrolls a part of the section into view and waits for it to catch up: parts away from the screen are drawn when they come near. */
async function inView(page, selector) {
  // A part the section builds anew (a language switch rebuilds them all) may be replaced under the scroll: again.
  for (let tries = 0; ; tries++) {
    try {
      await page.locator(selector).scrollIntoViewIfNeeded();
      break;
    } catch (error) {
      if (tries >= 3 || !/not attached/.test(error.message)) throw error;
    }
  }
  await page.waitForSelector(`${selector}:not([data-pending])`);
}

/**
 * Scrolls to a control and waits until the section has been still for a moment: the parts near the screen
 * are drawn when they come near, and a part above the control drawn after Playwright placed its click
 * would move the control from under it.
 */
async function settle(page, selector) {
  await page.locator(selector).scrollIntoViewIfNeeded();
  await page.waitForFunction(() => new Promise((resolve) => {
    const body = document.querySelector('#poems-body');
    let timer = 0;
    const observer = new MutationObserver(() => {
      clearTimeout(timer);
      timer = setTimeout(done, 300);
    });
    function done() {
      observer.disconnect();
      resolve(true);
    }
    observer.observe(body, { subtree: true, childList: true, attributes: true, characterData: true });
    timer = setTimeout(done, 300);
  }));
  await page.locator(selector).scrollIntoViewIfNeeded();
}

/** The text the section analyses, as the page holds it. */
const shownText = (page) => page.inputValue('#poems-section textarea');

/** Softmax of one row of logits: the k likeliest [id, p]. */
function top(logits, row, k = 5) {
  const scores = Array.from(logits.subarray(row * vocabSize, (row + 1) * vocabSize));
  const max = Math.max(...scores);
  const sum = scores.reduce((total, score) => total + Math.exp(score - max), 0);
  return scores.map((score, id) => [id, Math.exp(score - max) / sum]).sort((a, b) => b[1] - a[1]).slice(0, k);
}

/** The held-out loss with heads off, by the card's protocol, written out here rather than taken from the page's code. */
function heldOutLossWith(disabled) {
  let total = 0;
  let targets = 0;
  for (const poem of card.heldOut.poems) {
    for (const { input, target } of evaluationWindows(Array.from(encode(poem.body)), model.config.context)) {
      const logits = model.forward(input, { disabled }).logits();
      target.forEach((next, row) => {
        const scores = logits.subarray(row * vocabSize, (row + 1) * vocabSize);
        let max = -Infinity;
        for (const score of scores) max = Math.max(max, score);
        let sum = 0;
        for (const score of scores) sum += Math.exp(score - max);
        total += max + Math.log(sum) - scores[next];
        targets++;
      });
    }
  }
  return total / targets;
}

/** Every tile's pixels read back from its canvas, as colours: { index, size, colors: ['#rrggbb' of each cell] }. */
const tileColors = (page) => page.$$eval('.poem-tile', (tiles) => tiles.map((tile) => {
  const canvas = tile.querySelector('canvas');
  const cells = Number(canvas.dataset.cells); // the canvas keeps room for the longest text: its top-left corner shows
  const bytes = canvas.getContext('2d').getImageData(0, 0, cells, cells).data;
  const colors = [];
  for (let at = 0; at < bytes.length; at += 4) colors.push(`#${[...bytes.subarray(at, at + 3)].map((byte) => byte.toString(16).padStart(2, '0')).join('')}${bytes[at + 3] === 255 ? '' : '?'}`);
  return { index: Number(tile.dataset.index), size: cells, colors };
}));
/** The colour band each colour is, as draw/color.js's scale gives them. */
const bandOfColor = new Map(Array.from({ length: TILE_LEVELS }, (_, level) => [weightColor((level + 0.5) / TILE_LEVELS), level]));

// The page analyses at most 64 positions (⟨始⟩ and 63 characters), the length its figures are drawn for; the
// shipped model reads 128, and the notes say both.
const ANALYSED = 63;

test('a chosen poem longer than the page analyses says how many of its lines are shown, and what the model reads', async () => {
  assert.ok(card.model.context - 1 > ANALYSED, 'the shipped model reads further than the page analyses');
  const { page, context, errors } = await openSection();
  const lines = (body) => body.split('\n').filter(Boolean).length;
  // 古从军行 (101 characters) fits the model's window whole, not the page's.
  const long = card.heldOut.poems.findIndex((poem) => [...poem.body].length > 70 && [...poem.body].length < card.model.context - 1 && lines(poem.body) > 4);
  await page.selectOption('#poem-menu', String(long));
  await page.waitForFunction((title) => document.querySelector('#poem-menu').selectedOptions[0].textContent.startsWith(title), card.heldOut.poems[long].title);
  const shown = lines(await shownText(page));
  assert.ok(shown < lines(card.heldOut.poems[long].body));
  assert.ok([...await shownText(page)].length <= ANALYSED);
  assert.equal(await page.textContent('#poem-clipped'),
    `这首诗有 ${lines(card.heldOut.poems[long].body)} 行；这一页一次最多分析 ${ANALYSED} 个字（模型本身能读 ${card.model.context - 1} 个），这里放得下前 ${shown} 行。`);
  // A poem that fits whole says nothing.
  const short = card.heldOut.poems.findIndex((poem) => [...poem.body].length < 40);
  await page.selectOption('#poem-menu', String(short));
  await page.waitForFunction(() => document.querySelector('#poem-clipped').textContent === '');
  assert.deepEqual(errors, []);
  await context.close();
});

test('scrolled to, the model loads with progress; a held-out poem shows every head as the API computes it, with the roles of head-roles.js and the card', async () => {
  const { page, context, errors } = await openSection();
  const poemIndex = 3;
  await page.selectOption('#poem-menu', String(poemIndex));
  await page.waitForFunction((title) => document.querySelector('#poem-menu').selectedOptions[0].textContent.startsWith(title), card.heldOut.poems[poemIndex].title);
  const text = await shownText(page);
  assert.ok(card.heldOut.poems[poemIndex].body.startsWith(text) && text.length > 10, 'the poem\'s opening lines');
  const ids = [0, ...encode(text)];
  const L = ids.length;

  // Every tile's colour bands are the bands of model.attention() in the page's own core, cell for cell.
  const expected = await page.evaluate(async ({ ids, layers, heads }) => {
    const { loadAttention } = await import('/src/attention.js');
    const { model: pageModel } = await (await loadAttention()).loadPoemModel();
    pageModel.forward(ids);
    return Array.from({ length: layers * heads }, (_, i) => Array.from(pageModel.attention(Math.floor(i / heads), i % heads)));
  }, { ids, layers, heads });
  await inView(page, '#poem-tiles'); // the training section above may have grown since, and pushed them off screen
  const tiles = await tileColors(page);
  assert.equal(tiles.length, layers * heads);
  for (const { index, size, colors } of tiles) {
    assert.equal(size, L, `tile ${index}: a pixel per cell`);
    for (let row = 0; row < L; row++) {
      for (let col = 0; col < L; col++) {
        const color = colors[row * L + col];
        if (col > row) assert.equal(color, FUTURE_COLOR, `tile ${index} cell ${row},${col}: the future`);
        else assert.equal(bandOfColor.get(color), Math.min(31, Math.floor(expected[index][row * L + col] * 32)), `tile ${index} cell ${row},${col} (${color})`);
      }
    }
  }

  // The enlarged head: every cell's value is the API's, exactly. Then the roles, for a few heads.
  model.forward(ids);
  const attention = Array.from({ length: layers * heads }, (_, i) => model.attention(Math.floor(i / heads), i % heads).slice());
  const queries = roleQueries(ids, kinds);
  for (const index of [0, layers * heads - 1, Math.floor(layers * heads / 2)]) {
    await page.click(`.poem-tile[data-index="${index}"]`);
    await page.waitForSelector(`.poem-tile[data-index="${index}"][aria-pressed="true"]`);
    await inView(page, '#poem-big');
    const values = await page.$$eval('#poem-heatmap g.cell', (cells) => cells.map((c) => Number(c.dataset.value)));
    assert.deepEqual(values, expected[index], `head ${index}: the enlarged heatmap is model.attention()`);
    const scores = tallyScores(tallyHead(emptyTally(), attention[index], L, queries)).scores;
    const recorded = card.headRoles.heads.find((h) => h.layer === Math.floor(index / heads) && h.head === index % heads);
    await inView(page, '#poem-roles');
    for (const { name } of HEAD_ROLES) {
      const shown = (where) => page.getAttribute(`.role-score[data-role="${name}"][data-where="${where}"]`, 'data-value');
      if (scores[name] === null) assert.equal(await page.$(`.role-score[data-role="${name}"][data-where="text"]`), null, `${name} does not apply`);
      else assert.ok(Math.abs(Number(await shown('text')) - scores[name]) < 1e-5, `head ${index} ${name} on the text`);
      assert.ok(Math.abs(Number(await shown('held-out')) - recorded[name]) < 2e-4, `head ${index} ${name} held out: ${await shown('held-out')} vs card ${recorded[name]}`);
      assert.equal(Number(await shown('fresh')), card.headRoles.fresh.heads[index][name], `head ${index} ${name} on the fresh test set`);
    }
    // The verdict and the tile name the head by the fresh test set's numbers.
    const role = labelRole(card.headRoles.fresh.heads[index], card.headRoles.fresh.chance);
    const name = role ? POEMS_TEXT.zh.roleNames[role] : POEMS_TEXT.zh.mixed;
    assert.equal(await page.textContent(`.poem-tile[data-index="${index}"] .tile-role`), name);
    // The verdict defines its role again: lesson mode hides the table's definitions.
    assert.ok((await page.textContent('#poem-roles')).includes(role ? POEMS_TEXT.zh.verdict(name, POEMS_TEXT.zh.roleExplains[role]) : POEMS_TEXT.zh.verdictMixed));
  }
  const loss = Number(await page.getAttribute('#poem-loss-all', 'data-value'));
  assert.ok(Math.abs(loss - card.heldOutLoss) <= 0.01 * card.heldOutLoss, `held-out loss ${loss}, card ${card.heldOutLoss}`);
  // In words a Chinese learner can use: the loss named with its unit, no file path, no English token.
  assert.match(await page.textContent('.poem-loss'), /^留出诗上每字的平均交叉熵（单位：nat；越低，模型猜下一个字猜得越准），全部头开启： [\d.]+ nat$/);
  assert.doesNotMatch(await page.textContent('#poems-section'), /web\/poems|\.json|token|nats/);
  assert.deepEqual(await seriousAxeViolations(page), []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('switching heads off changes the held-out loss and the top 5 as the API computes them, and the URL keeps them', async () => {
  const { page, context, errors } = await openSection();
  const text = await shownText(page);
  await page.selectOption('#poem-position', '5');
  await settle(page, '#poem-off-0-0');
  await page.check('#poem-off-0-0');
  await settle(page, `#poem-off-${layers - 1}-${heads - 1}`);
  await page.check(`#poem-off-${layers - 1}-${heads - 1}`);
  const disabled = [[0, 0], [layers - 1, heads - 1]];
  await lossShown(page, 'poem-loss-now');
  // The enlarged head (layer 1 head 1, the first) is one of them: its caption and its steps say it is off, and
  // the heatmap outlines the query's row, the position picked.
  await inView(page, '#poem-steps');
  await page.waitForSelector('#poem-steps-off');
  await inView(page, '#poem-big');
  assert.match(await page.textContent('#poem-heatmap figcaption'), /已关掉/);
  assert.equal(await page.getAttribute('#poem-heatmap rect.focus-row', 'y'),
    String(Number(await page.getAttribute('#poem-heatmap g.cell[data-row="5"][data-col="0"] rect', 'y')) - 2));
  // The switches: one line a layer, as the tiles.
  const lineTop = (id) => page.$eval(id, (input) => Math.round(input.getBoundingClientRect().top));
  assert.equal(await lineTop(`#poem-off-0-${heads - 1}`), await lineTop('#poem-off-0-0'), 'a layer\'s switches on one line');
  assert.ok(await lineTop('#poem-off-1-0') > await lineTop('#poem-off-0-0'), 'the next layer on the next line');
  const loss = Number(await page.getAttribute('#poem-loss-now', 'data-value'));
  const want = heldOutLossWith(disabled);
  assert.ok(Math.abs(loss - want) < 1e-4 * want, `with heads off ${loss}, the API ${want}`);
  assert.notEqual(loss, Number(await page.getAttribute('#poem-loss-all', 'data-value')));

  const ids = [0, ...encode(text)];
  const shownTop = (id) => page.$$eval(`#${id} li`, (items) => items.map((li) => [Number(li.dataset.id), Number(li.dataset.p)]));
  await inView(page, '#poem-prediction');
  for (const [id, options] of [['poem-top-all', undefined], ['poem-top-now', { disabled }]]) {
    const want5 = top(model.forward(ids, options).logits(), 5);
    const got = await shownTop(id);
    assert.deepEqual(got.map(([next]) => next), want5.map(([next]) => next), id);
    got.forEach(([, p], i) => assert.ok(Math.abs(p - want5[i][1]) < 1e-5, `${id} ${i}: ${p} vs ${want5[i][1]}`));
  }
  assert.notDeepEqual(await shownTop('poem-top-all'), await shownTop('poem-top-now'));
  // Typing on with the heads off: both lists are the API's for the new last character (every head on, from
  // the page's twin of the model once it has loaded; the heads off, from the model itself).
  for (const more of ['春', '春眠', '春眠不']) {
    const typed = `${Array.from(text).slice(0, 20).join('')}${more}`;
    await page.fill('#poems-section textarea', typed);
    const typedIds = [0, ...encode(typed)];
    await page.selectOption('#poem-position', String(typedIds.length - 1));
    await inView(page, '#poem-prediction');
    for (const [id, options] of [['poem-top-all', undefined], ['poem-top-now', { disabled }]]) {
      const want5 = top(model.forward(typedIds, options).logits(), typedIds.length - 1);
      const got = await shownTop(id);
      assert.deepEqual(got.map(([next]) => next), want5.map(([next]) => next), `${id} after ${typed}`);
      got.forEach(([, p], i) => assert.ok(Math.abs(p - want5[i][1]) < 1e-5, `${id} ${i}: ${p} vs ${want5[i][1]}`));
    }
  }
  await inView(page, '#poem-tiles');
  const faded = await page.$$eval('.poem-tile canvas', (canvases) => canvases.map((canvas) => [canvas.classList.contains('off'), getComputedStyle(canvas).opacity]));
  assert.deepEqual(faded, Array.from({ length: layers * heads }, (_, i) => (i === 0 || i === layers * heads - 1 ? [true, '0.35'] : [false, '1'])), 'the switched-off heads\' tiles are faded');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('poff') !== null);
  assert.equal(new URL(page.url()).searchParams.get('poff'), `1.1,${layers}.${heads}`);
  assert.deepEqual(errors, []);
  await context.close();
});

test('typing redraws the tiles on screen at once; the predictions far below wait with their old numbers and show the new ones when scrolled to', async () => {
  const [first, second] = card.heldOut.poems.map((poem) => poem.body.split('\n')[0]);
  const { page, context, errors } = await openSection('?pt=' + encodeURIComponent(first));
  const shownTop = () => page.$$eval('#poem-top-all li', (items) => items.map((li) => Number(li.dataset.id)));
  // Whole lines, ending 。: the page first shows the position before their last character, which it predicts.
  const topOf = (text) => {
    const ids = [0, ...encode(text)];
    assert.match(text, /\p{Script=Han}。$/u);
    return top(model.forward(ids).logits(), ids.length - 3).map(([id]) => id);
  };
  await inView(page, '#poem-prediction');
  assert.deepEqual(await shownTop(), topOf(first));
  // Lines of the learner's own: the menu names no held-out poem.
  assert.equal(await page.$eval('#poem-menu', (menu) => menu.selectedOptions[0].textContent), POEMS_TEXT.zh.ownLines);
  await page.locator('#poems-section textarea').scrollIntoViewIfNeeded();
  // The page sees what is on the screen now through its IntersectionObservers. One made now is told in the
  // same batch as theirs, after them, or later: once it is told, theirs have been.
  await page.evaluate(() => new Promise((resolve) => {
    const observer = new IntersectionObserver(() => (observer.disconnect(), resolve()));
    observer.observe(document.body);
  }));
  const typed = `${first}\n${second}`;
  await page.fill('#poems-section textarea', typed);
  const length = 1 + encode(typed).length;
  assert.equal(await page.$eval('.poem-tile[data-index="0"] canvas', (canvas) => canvas.dataset.cells), String(length), 'the tiles show the new text');
  // Its length × length cells, and no more, fill the tile's picture: the canvas is scaled up so, and cropped.
  const shown = await page.$eval('.poem-tile[data-index="0"] .tile-picture', (picture) => {
    const canvas = picture.querySelector('canvas');
    const box = picture.getBoundingClientRect();
    const drawn = canvas.getBoundingClientRect(); // transformed: the whole canvas, as drawn
    return { box: [box.width, box.height], cellsShown: (box.width / drawn.width) * canvas.width, corner: [drawn.left - box.left, drawn.top - box.top], overflow: getComputedStyle(picture).overflow };
  });
  assert.ok(Math.abs(shown.box[0] - shown.box[1]) < 0.5 && shown.box[0] > 50, `a square picture: ${shown.box}`);
  assert.ok(Math.abs(shown.cellsShown - length) < 1e-3, `${shown.cellsShown} cells across the picture, want ${length}`);
  assert.deepEqual([shown.corner, shown.overflow], [[0, 0], 'hidden'], 'the canvas starts at the picture\'s corner; the rest is cropped');
  assert.equal(await page.getAttribute('#poem-tiles', 'data-pending'), null);
  assert.equal(await page.getAttribute('#poem-prediction', 'data-pending'), '', 'the predictions wait');
  assert.deepEqual(await shownTop(), topOf(first));
  await inView(page, '#poem-prediction');
  assert.deepEqual(await shownTop(), topOf(typed));
  assert.notDeepEqual(topOf(typed), topOf(first));
  assert.deepEqual(errors, []);
  await context.close();
});

test('a pasted 1,920-character poem: the address keeps its first 256 characters and says so in the share box, and reloading it opens them', async () => {
  const { page, context, errors } = await openSection();
  const poem = Array.from(card.heldOut.poems.map(({ body }) => body).join('\n')).slice(0, 1920).join('');
  const kept = Array.from(poem).slice(0, 256).join('');
  assert.equal(Array.from(poem).length, 1920);
  await page.fill('#poems-section textarea', poem);
  await page.waitForFunction(() => new URLSearchParams(location.search).has('pt'));
  const address = await page.evaluate(() => location.href);
  assert.ok(address.length < 8000, `the address has ${address.length} characters`);
  assert.equal(new URL(address).searchParams.get('pt'), kept);
  await page.locator('#share-section').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.querySelector('#share-left-out')?.textContent);
  assert.equal(await page.textContent('#share-left-out'), '诗太长，链接里只保留了前 256 个字。');
  assert.equal(await page.inputValue('#share-link'), address, 'the share box offers the address the page wrote');

  const response = await page.reload();
  assert.equal(response.status(), 200);
  await lessonDrawn(page);
  await scrollToPoems(page);
  await page.waitForSelector('#poems-section textarea', { timeout: LOAD_MS });
  assert.equal(await shownText(page), kept);
  assert.deepEqual(errors, []);
  await context.close();
});

// The longest task the test allows while a continuation runs: its steps held the page 150–250 ms each with a
// pasted megabyte kept (130–420 ms in the issue); kept to 1,024 characters, the same run on a shared, loaded
// 2-core machine had tasks of up to 110 ms, so 100 ms would flake, and 150 ms still tells the two apart.
const CONTINUATION_TASK_MS = 150;

test('a megabyte pasted in the poem box: the section keeps its first 1,024 characters before any work, and a continuation runs in short tasks', async () => {
  const { page, context, errors } = await openSection();
  const line = '白日依山尽，黄河入海流。\n';
  // A real paste, from the clipboard (the test's writing a megabyte to it is its own work). The page takes the
  // paste itself and puts in only what it keeps: the browser's taking a megabyte into the box held the page 80–260 ms.
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await excusedFromProbe(page, 'the test writes a megabyte to the clipboard', () => page.evaluate((text) => navigator.clipboard.writeText(text), line.repeat(Math.ceil(2 ** 20 / line.length))));
  await page.evaluate(() => addEventListener('paste', (event) => (window.pasteTakenByPage = event.defaultPrevented)));
  await page.focus('#poems-section textarea');
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Control+V');
  assert.equal(await page.evaluate(() => window.pasteTakenByPage), true, 'the page put the paste in, not the browser');
  // What every redraw goes over is the text kept, and the box shows it.
  assert.equal(await page.$eval('#poems-section textarea', (box) => Array.from(box.value).length), 1024);
  assert.equal(await page.textContent('#poem-clipped'), `这一页一次最多分析 ${ANALYSED} 个字（模型本身一次能读 ${card.model.context - 1} 个，这一页的图是按 ${ANALYSED + 1} 个位置画的），后面的没有分析。`);
  await page.waitForFunction(() => new URLSearchParams(location.search).has('pt'));
  assert.equal(Array.from(await page.evaluate(() => new URLSearchParams(location.search).get('pt'))).length, 256);
  await settle(page, '#poem-continue');
  await longTasksOver(page, 0);
  await page.click('#poem-continue');
  await page.waitForFunction(() => document.querySelector('#poem-continuation p.muted')?.textContent.match(/续写：$/) && document.querySelector('#poem-added'), null, { timeout: 60000 });
  assert.ok((await page.textContent('#poem-added')).length > 0);
  assert.deepEqual(await longTasksOver(page, CONTINUATION_TASK_MS), [], `no task over ${CONTINUATION_TASK_MS} ms while it continues`);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the held-out measure runs in a worker of its own; where none can start, the page measures the same loss itself', async () => {
  const losses = [];
  for (const blocked of [false, true]) {
    const { page, context, errors } = await openPage(env.browser, 'about:blank', { baseUrl: env.baseUrl });
    if (blocked) await context.route('**/poems-worker.js', (route) => route.abort());
    const workers = [];
    page.on('worker', (worker) => workers.push(new URL(worker.url()).pathname));
    await page.goto(`${env.baseUrl}?poff=1.1`);
    await lessonDrawn(page);
    await scrollToPoems(page);
    await lossShown(page, 'poem-loss-now');
    losses.push(Number(await page.getAttribute('#poem-loss-now', 'data-value')));
    if (!blocked) {
      assert.ok(workers.some((path) => path.endsWith('/poems-worker.js')), `workers: ${workers}`);
      assert.deepEqual(errors, []);
    }
    await context.close();
  }
  const want = heldOutLossWith([[0, 0]]);
  for (const loss of losses) assert.ok(Math.abs(loss - want) < 1e-4 * want, `with head 1.1 off ${loss}, the API ${want}`);
});

test('continuing the lines: greedy gives the same text twice; with a temperature a seed repeats itself, and says so, and another seed differs', async () => {
  const { page, context, errors } = await openSection('?pt=' + encodeURIComponent('白日依山尽，黄河入海流。\n'));
  const continueWith = async (temperature, seed) => {
    await page.fill('#poem-seed', String(seed));
    await page.$eval('#poems-section input[type="range"]', (input, value) => {
      input.value = value;
      input.dispatchEvent(new Event('input', { bubbles: true }));
    }, String(temperature));
    await page.evaluate(() => document.querySelector('#poem-added')?.remove());
    await settle(page, '#poem-continue');
    await page.click('#poem-continue');
    await page.waitForFunction(() => document.querySelector('#poem-continuation p.muted')?.textContent.match(/续写：$|:$/) && document.querySelector('#poem-added'), null, { timeout: 60000 });
    return page.textContent('#poem-added');
  };
  const greedy = await continueWith(0, 1);
  assert.ok(greedy.length > 0);
  assert.equal(await continueWith(0, 2), greedy, 'greedy ignores the seed and repeats itself');
  assert.equal(await page.$('#poem-again'), null, 'another seed is not "the same settings"');
  // Run again with the same settings, the text is the same, and the page says it ran (the page redraws only
  // what changed: without the run's count a second run, done in one slice, would change nothing on screen).
  const sampled = await continueWith(1, 5);
  assert.equal(await continueWith(1, 5), sampled, 'the same seed, the same continuation');
  assert.match(await page.textContent('#poem-again'), /^同样的设置第 2 次续写，和上一次一字不差：同一个种子/);
  assert.equal(await continueWith(1, 5), sampled);
  assert.match(await page.textContent('#poem-again'), /第 3 次/);
  assert.notEqual(await continueWith(1, 6), sampled, 'another seed, another continuation');
  assert.equal(await page.$('#poem-again'), null);
  assert.notEqual(sampled, greedy);
  const text = '白日依山尽，黄河入海流。\n';
  assert.equal(sampled, writtenByApi(text, { temperature: 1, seed: 5 }).added, 'the API\'s writer, its rules and all');
  assert.equal(greedy, writtenByApi(text, { temperature: 0 }).added);
  // The repetition rule, on at first, switched off: the API's writer without it, and the page says so.
  assert.equal(await page.isChecked('#poem-repetition'), true);
  assert.match(await page.textContent('#poem-repetition-note'), new RegExp(`减 ${card.repetition.penalty}`));
  await page.uncheck('#poem-repetition');
  const unruled = await continueWith(1, 5);
  assert.equal(unruled, writtenByApi(text, { temperature: 1, seed: 5, repetition: false }).added);
  assert.match(await page.textContent('#poem-continuation p.muted'), /^允许重复、温度 1、种子 5 的续写：$/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('characters the model does not know are drawn as □, and a line says why; a poem of its own has none', async () => {
  const text = 'the cat 吃鱼';
  const { page, context, errors } = await openSection(`?lang=en&pt=${encodeURIComponent(text)}`);
  const unknown = [...encode(text)].filter((id) => id === 1).length;
  assert.equal(unknown, 8, 'letters and spaces are outside the vocabulary; 吃 and 鱼 are in it');
  assert.match(await page.textContent('#poem-unknown'), /^8 characters are outside the model's vocabulary and drawn as □: it learned only the \d+ characters/);
  await page.fill('#poems-section textarea', '吃鱼');
  await page.waitForFunction(() => document.querySelector('#poem-unknown').textContent === '');
  assert.deepEqual(errors, []);
  await context.close();
});

test('in English at 375 px: nothing overflows, every control is reached with the keyboard, axe finds nothing serious', async () => {
  const { page, context, errors } = await openSection('?lang=en&pp=1', { width: 375, height: 800 });
  assert.equal(await page.textContent('#poems-section-title'), '10. Real heads in a trained model');
  await inView(page, '#poem-roles');
  assert.match(await page.textContent('#poem-verdict'), /^Verdict: /);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page is ${overflow} px wider than the screen`);
  const sectionWidth = await page.$eval('#poems-section', (section) => section.scrollWidth - section.clientWidth);
  assert.ok(sectionWidth <= 0, `the section overflows by ${sectionWidth} px`);
  // From the poem menu, Tab reaches the text, a tile (Enter picks it), and later a head's switch (Space turns it off).
  await page.focus('#poem-menu');
  const tabUntil = async (selector, most = 60) => {
    for (let i = 0; i < most; i++) {
      await page.keyboard.press('Tab');
      if (await page.evaluate((s) => document.activeElement.matches(s), selector)) return;
    }
    assert.fail(`Tab never reached ${selector}`);
  };
  await tabUntil('#poems-section textarea');
  await tabUntil('.poem-tile[data-index="1"]');
  await page.keyboard.press('Enter');
  await page.waitForSelector('.poem-tile[data-index="1"][aria-pressed="true"]');
  await inView(page, '#poem-big');
  assert.match(await page.textContent('#poem-heatmap figcaption'), /Layer 1 head 2/);
  await tabUntil('#poem-off-0-0');
  await page.keyboard.press('Space');
  await lossShown(page, 'poem-loss-now');
  await tabUntil('#poem-continue');
  // This section only: at 375 px other sections' wide code blocks have findings of their own.
  assert.deepEqual((await seriousAxeViolations(page, '#poems-section')).map((v) => `${v.id}: ${v.nodes[0]?.target}`), []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('guided examples set a poem, a head and a position; the card says what switching a head off costs; one button switches off a role', async () => {
  const { page, context, errors } = await openSection();
  const buttons = await page.$$('#poem-guided button');
  assert.equal(buttons.length, card.guided.length);
  assert.ok(card.guided.length >= 3, `${card.guided.length} guided examples`);
  for (const [i, { index, poem, position, role }] of card.guided.entries()) {
    await page.click(`#poem-guided button:nth-of-type(${i + 1})`);
    await page.waitForSelector(`.poem-tile[data-index="${index}"][aria-pressed="true"]`);
    assert.equal(await page.inputValue('#poem-menu'), String(poem));
    assert.equal(await page.inputValue('#poem-position'), String(position));
    await inView(page, '#poem-roles');
    // The head's own role is where the example points, measured on the poem shown.
    const { layer, head } = card.guided[i];
    assert.match(await page.textContent('#poem-roles-title'), new RegExp(`${layer + 1}.*${head + 1}`));
    assert.equal(Number(await page.getAttribute('#poem-ablation', 'data-value')), card.ablation.heads[index].all);
    assert.ok(await page.$(`#poem-roles tr[data-role="${role}"]`));
    // The address (and so a shared link) keeps the enlarged head and its position.
    await page.waitForFunction(([h, p]) => new URLSearchParams(location.search).get('phead') === h && new URLSearchParams(location.search).get('ppos') === p,
      [index ? String(index) : null, String(position)]);
  }
  // The four steps of the last example's head: the q and k shown are the API's, the working gives its weight;
  // another key picked shows that key's.
  const last = card.guided.at(-1);
  const ids = [0, ...encode(await shownText(page))];
  const L = ids.length;
  const dK = model.config.dModel / heads;
  model.forward(ids);
  const qkv = model.qkv(last.layer);
  const weights = model.attention(last.layer, last.head);
  const sliceOf = (position, part) => Array.from(qkv.subarray(position * 3 * model.config.dModel + part * model.config.dModel + last.head * dK).subarray(0, dK));
  for (const key of [null, 0]) {
    if (key !== null) await page.selectOption('#poem-key', String(key));
    await inView(page, '#poem-steps');
    const shownKey = Number(await page.inputValue('#poem-key'));
    if (key !== null) assert.equal(shownKey, key);
    else assert.equal(weights[last.position * L + shownKey], Math.max(...weights.subarray(last.position * L, (last.position + 1) * L)), 'the heaviest key first');
    await page.waitForFunction((want) => Math.abs(Number(document.querySelector('#poem-steps [data-step="core"]')?.dataset.value) - want) < 1e-5, weights[last.position * L + shownKey]);
    const cells = await page.$$eval('#poem-qk g.cell', (nodes) => nodes.map((node) => Number(node.dataset.value)));
    // The page's core may fuse multiply-adds (web/dist/mha-core-fma.wasm): the last bits may differ from Node's.
    const want = [...sliceOf(last.position, 0), ...sliceOf(shownKey, 1)];
    assert.equal(cells.length, 2 * dK);
    cells.forEach((value, i) => assert.ok(Math.abs(value - want[i]) < 1e-5 * Math.max(1, Math.abs(want[i])), `cell ${i}: ${value}, the API ${want[i]}`));
    assert.equal(await page.getAttribute('#poem-steps [data-step="core"]', 'data-agrees'), 'true');
    assert.ok(Math.abs(Number(await page.getAttribute('#poem-steps [data-step="core"]', 'data-value')) - weights[last.position * L + shownKey]) < 1e-5);
  }
  // A role's button switches off exactly the heads the card finds playing it.
  const roleButton = await page.$('#poem-off-roles button');
  const role = await roleButton.getAttribute('data-role');
  const { fresh } = card.headRoles;
  const want = fresh.heads.flatMap((scores, i) => (labelRole(scores, fresh.chance) === role ? [i] : []));
  await roleButton.click();
  await page.waitForFunction((n) => document.querySelectorAll('#poem-off input:checked').length === n, want.length);
  const checked = await page.$$eval('#poem-off input:checked', (inputs) => inputs.map((input) => Number(input.dataset.layer) * 100 + Number(input.dataset.head)));
  assert.deepEqual(checked.sort((a, b) => a - b), want.map((i) => Math.floor(i / heads) * 100 + (i % heads)).sort((a, b) => a - b));
  // One button switches every head on again, and waits, greyed, until a head is off.
  assert.equal(await page.isDisabled('#poem-all-on'), false);
  await page.click('#poem-all-on');
  await page.waitForFunction(() => !document.querySelector('#poem-off input:checked') && document.querySelector('#poem-all-on').disabled);
  await roleButton.click();
  await page.waitForFunction((n) => document.querySelectorAll('#poem-off input:checked').length === n, want.length);
  // A second role's button adds its heads to those off already.
  const other = (await page.$$('#poem-off-roles button[data-role]'))[1];
  const otherRole = await other.getAttribute('data-role');
  const both = new Set([...want, ...fresh.heads.flatMap((scores, i) => (labelRole(scores, fresh.chance) === otherRole ? [i] : []))]);
  await other.click();
  await page.waitForFunction((n) => document.querySelectorAll('#poem-off input:checked').length === n, both.size);
  const union = await page.$$eval('#poem-off input:checked', (inputs) => inputs.map((input) => Number(input.dataset.layer) * 100 + Number(input.dataset.head)));
  assert.deepEqual(union.sort((a, b) => a - b), [...both].map((i) => Math.floor(i / heads) * 100 + (i % heads)).sort((a, b) => a - b));
  await page.click('#poem-all-on');
  await roleButton.click();
  await page.waitForFunction((n) => document.querySelectorAll('#poem-off input:checked').length === n, want.length);
  // §10 with all of this shown passes axe in both languages, at 1280 px and on a phone (where the map gives way to bars).
  for (const lang of ['zh', 'en']) {
    if (lang === 'en') {
      await page.click('#lang-switch');
      await lossShown(page, 'poem-loss-all');
    }
    for (const width of [1280, 375]) {
      await page.setViewportSize({ width, height: 900 });
      await inView(page, '#poem-roles');
      const bars = await page.$eval('#poem-bars', (figure) => getComputedStyle(figure).display !== 'none');
      assert.equal(bars, width === 375, `${lang} ${width}: the row's bars show on a phone only`);
      assert.deepEqual((await seriousAxeViolations(page, '#poems-section')).map((v) => `${lang} ${width}: ${v.id}: ${v.nodes[0]?.target}`), []);
    }
  }
  assert.deepEqual(errors, []);
  await context.close();
});

test('a guide button brings the head it enlarges into view: smoothly, or at once for a learner who asks for less motion', async () => {
  // Records how the page asks to scroll the enlarged head, to tell a smooth scroll from a jump.
  const init = () => {
    window.scrolledTo = [];
    const scroll = Element.prototype.scrollIntoView;
    Element.prototype.scrollIntoView = function (options) {
      window.scrolledTo.push({ id: this.id, behavior: options?.behavior });
      return scroll.call(this, options);
    };
  };
  for (const reducedMotion of ['no-preference', 'reduce']) {
    const { page, context, errors } = await openSection('', undefined, { reducedMotion, init });
    for (const [i, { index }] of card.guided.entries()) {
      await settle(page, `#poem-guided button:nth-of-type(${i + 1})`);
      await page.click(`#poem-guided button:nth-of-type(${i + 1})`);
      await page.waitForFunction(() => window.scrolledTo.some(({ id }) => id === 'poem-big'));
      await scrollSettled(page);
      const box = await page.$eval('#poem-big', (big) => {
        const { top, height } = big.getBoundingClientRect();
        return { top, height, window: innerHeight };
      });
      // Scrolled to its start: the page scrolls by whole pixels, so a fraction of one may stay above the window.
      assert.ok(box.top > -1 && box.top < box.window / 2 && box.height > 100, `${reducedMotion}: the enlarged head at ${JSON.stringify(box)}`);
      // What comes into view is the head the button picked, drawn.
      await page.waitForSelector(`#poem-big:not([data-pending])`);
      const [layer, head] = [Math.floor(index / heads), index % heads];
      // Named with the role the guide showed it for.
      assert.equal(await page.textContent('#poem-heatmap figcaption'), `${POEMS_TEXT.zh.bigTitle(layer, head)} · ${POEMS_TEXT.zh.roleNames[card.guided[i].role]}`);
      const behaviors = await page.evaluate(() => window.scrolledTo.filter(({ id }) => id === 'poem-big').map(({ behavior }) => behavior));
      assert.deepEqual(behaviors, [reducedMotion === 'reduce' ? 'auto' : 'smooth']);
      await page.evaluate(() => (window.scrolledTo = []));
    }
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test('continuing a complete poem writes a new one from its first line, and says so; writing past the end works too', async () => {
  const { page, context, errors } = await openSection();
  const poem = await shownText(page);
  assert.deepEqual(writtenByApi(poem, { temperature: 0 }), { added: '', ended: true }, 'the default held-out poem is complete: the writer ends it at once');
  await page.$eval('#poems-section input[type="range"]', (input) => {
    input.value = '0';
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });
  // Clicks `button` and waits for the continuation it starts: the old one is cleared away first (a button
  // inside it still works, detached), so that what comes is new.
  const written = async (button) => {
    await settle(page, button);
    await page.evaluate((selector) => {
      const clicked = document.querySelector(selector);
      document.querySelector('#poem-continuation').replaceChildren();
      clicked.click();
    }, button);
    await page.waitForFunction(() => document.querySelector('#poem-continuation p.muted')?.textContent.match(/续写：$/) && document.querySelector('#poem-added'), null, { timeout: 60000 });
    return page.textContent('#poem-added');
  };
  // The poem is complete: the text becomes its first line, and a new poem is written from it.
  const line = firstLine(poem);
  assert.ok(line.length < poem.length && line.endsWith('\n'), JSON.stringify(line));
  const fresh = writtenByApi(line, { temperature: 0 });
  assert.ok(fresh.added.length > 0 && fresh.ended);
  assert.equal(await written('#poem-continue'), fresh.added);
  assert.equal(await page.textContent('#poem-restarted'), POEMS_TEXT.zh.restarted);
  assert.equal(await shownText(page), line);
  assert.equal(await page.textContent('#poem-continuation .poem-output'), line + fresh.added);
  assert.equal(await page.textContent('#poem-ended'), POEMS_TEXT.zh.poemEnded((line + fresh.added).match(/[，。？！；]/g).length));
  assert.equal(await page.textContent('#poem-past-end'), '不管结尾，接着写');

  // Past the end: the poem as it stands, the part written too, written on, never ended, as the API writes it.
  const past = writtenByApi(line + fresh.added, { temperature: 0, pastTheEnd: true });
  assert.ok(past.added.length > 0 && !past.ended);
  assert.equal(await written('#poem-past-end'), past.added);
  assert.equal(await shownText(page), line + fresh.added);
  assert.match(await page.textContent('#poem-continuation p.muted'), /^不让它收尾、温度 0 的续写：$/);
  assert.equal(await page.$('#poem-restarted'), null);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the held-out measure starts once the model is ready, wherever the learner is; until it is done the role table says it waits, and how far it has come', async () => {
  const { page, context, errors } = await openPage(env.browser, 'about:blank', { baseUrl: env.baseUrl });
  // The model's file and the measure's worker are held back, to be let go when the test has scrolled away.
  const held = (pattern) => {
    let release;
    const requested = new Promise((resolve) => context.route(pattern, (route) => {
      resolve();
      new Promise((go) => (release = go)).then(() => route.continue());
    }));
    return { requested, release: () => release() };
  };
  const modelFile = held('**/poems.safetensors');
  const worker = held('**/poems-worker.js');
  await page.goto(env.baseUrl);
  await lessonDrawn(page);
  await page.locator('#poems-section').scrollIntoViewIfNeeded();
  await modelFile.requested;
  // Away to the top of the page: the section is no longer drawn, and the page knows it (its observers have told it).
  await page.evaluate(() => new Promise((resolve) => {
    scrollTo(0, 0);
    requestAnimationFrame(() => {
      const observer = new IntersectionObserver(() => (observer.disconnect(), resolve()));
      observer.observe(document.body);
    });
  }));
  modelFile.release();
  await Promise.race([worker.requested, new Promise((resolve, reject) => setTimeout(() => reject(new Error('no measure began while §10 was away')), LOAD_MS))]);
  // Whenever the role table shows no held-out number, it says why.
  await page.evaluate(() => {
    window.blankTables = 0;
    new MutationObserver(() => {
      const roles = document.querySelector('#poem-roles');
      if (!roles?.querySelector('table')) return;
      const numbers = roles.querySelector('.role-score[data-where="held-out"]');
      const waiting = roles.querySelector('#poem-roles-waiting')?.textContent.trim();
      if (!numbers && !waiting) window.blankTables++;
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await page.locator('#poems-section').scrollIntoViewIfNeeded();
  await page.waitForSelector('#poem-roles', { state: 'attached' });
  await inView(page, '#poem-roles');
  assert.equal(await page.$('#poem-roles .role-score[data-where="held-out"]'), null, 'the worker is still held: nothing is measured');
  assert.equal(await page.textContent('#poem-roles-waiting'), `${POEMS_TEXT.zh.heldOutWaiting(card.heldOut.poems.length, 0, 0)} `);
  assert.equal(await page.isVisible('#poem-roles-waiting progress'), true);
  worker.release();
  await page.waitForSelector('#poem-roles .role-score[data-where="held-out"]', { timeout: LOAD_MS });
  assert.equal(await page.$('#poem-roles-waiting'), null, 'measured: the note is gone');
  assert.equal(await page.evaluate(() => window.blankTables), 0);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a card as build/train.js writes it, before card-measures.js adds the fresh set: heads named by the held-out poems, the writer without its numbers', async () => {
  const { page, context, errors } = await openPage(env.browser, env.baseUrl, { baseUrl: env.baseUrl, viewport: { width: 1280, height: 900 } });
  const bare = structuredClone(card);
  delete bare.headRoles.fresh;
  delete bare.repetition;
  await context.route('**/poems/poems.card.json', (route) => route.fulfill({ contentType: 'application/json', body: JSON.stringify(bare) }));
  await lessonDrawn(page);
  await scrollToPoems(page);
  await lossShown(page, 'poem-loss-all');
  await inView(page, '#poem-tiles');
  const want = card.headRoles.heads.map((scores) => {
    const role = labelRole(scores, card.headRoles.chance);
    return role ? POEMS_TEXT.zh.roleNames[role] : POEMS_TEXT.zh.mixed;
  });
  assert.deepEqual(await page.$$eval('.poem-tile .tile-role', (roles) => roles.map((role) => role.textContent)), want);
  await inView(page, '#poem-roles');
  await page.waitForSelector('.role-score[data-where="text"]');
  assert.equal(await page.$('.role-score[data-where="fresh"]'), null, 'no fresh column');
  assert.equal(await page.$('#poem-repetition-note'), null);
  await settle(page, '#poem-continue');
  await page.click('#poem-continue');
  await page.waitForSelector('#poem-added', { timeout: 60000 });
  assert.deepEqual(errors, []);
  await context.close();
});
