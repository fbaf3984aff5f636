// The lesson page in real Chromium: it loads cleanly, every drawn number matches the core, controls work,
// the URL carries the state, and axe-core finds no serious problems. Screenshots go to tests/artifacts/.
// Tests that open the same link share one page load per describe block (see sharedPage).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { startBrowserAndServer, openPage, lessonDrawn, viewsDrawn, HANG_MS, seriousAxeViolations, ensureArtifactsDir, touchDrag, scrollSettled, drawnNear, longTasksOver, tasksOverProbe, excusedFromProbe } from './browser.js';

let env;
before(async () => {
  env = await startBrowserAndServer();
});
after(async () => {
  await env?.close();
});

/** Opens the page (with an optional query) and waits until it has drawn every section. */
async function load(query = '', options = {}) {
  const opened = await openPage(env.browser, env.baseUrl + query, { baseUrl: env.baseUrl, probe: true, ...options });
  await lessonDrawn(opened.page);
  return opened;
}

/**
 * One page load for the tests of the describe block that calls this; they run in order on it. A test
 * there that changes the lesson's state puts it back with the page's own controls and waits for the
 * address to say so (backTo), so the next test finds the page as the link opened it.
 */
function sharedPage(query = '', options = {}) {
  const shared = {};
  before(async () => Object.assign(shared, await load(query, options)));
  after(() => shared.context?.close());
  return shared;
}

/** Waits until the address is `query` again: it carries every change of the state (written 150 ms after it). */
const backTo = (page, query = '') => page.waitForFunction((wanted) => location.search === wanted, query);

/** Sets an entry of the hand example through its editor: a click selects it, its slider sets it. */
async function setEntry(page, matrix, row, col, value) {
  await page.click(`.drag-number[data-matrix="${matrix}"][data-row="${row}"][data-col="${col}"]`);
  await page.fill('#entry-range', String(value));
}

/** Steps the pipeline's animation back to its start with its own button, until it is disabled at the overview. */
async function rewind(page) {
  await drawnNear(page, '#pipeline'); // off screen, the buttons are left as they were last drawn
  while (!(await page.isDisabled('#step-back'))) await page.click('#step-back');
}

const longestTask = (page) => page.evaluate(() => Math.max(0, ...window.longTasks));
/**
 * The page's longest task may be at most 200 ms on a quiet machine. These machines are shared, so the
 * bound scales with the page's own ordinary longest task (its first build and draw), measured in the
 * same run: a big model may not block longer than 3× that (before the fix it was about 80×).
 */
const taskBound = (ordinary) => Math.max(200, 3 * ordinary);

/** Two animation frames: the page redraws on the next frame after an input. */
const settle = (page) => page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));

/** A head's softmax weights as drawn, once its card is near the screen (see drawnNear). */
async function weightsOf(page, head) {
  await drawnNear(page, `#head-${head}-weights`);
  return page.$$eval(`#head-${head}-weights svg g.cell`, (cells) => cells.map((c) => ({
    row: Number(c.dataset.row), col: Number(c.dataset.col), value: Number(c.dataset.value), text: c.querySelector('text').textContent,
  })));
}

const rowText = (cells, row) => cells.filter((c) => c.row === row).map((c) => c.text);

/** axe-core on the page as it stands finds no serious or critical violations. */
async function assertAxeClean(page) {
  const violations = await seriousAxeViolations(page);
  assert.deepEqual(violations.map((v) => `${v.id}: ${v.nodes.length} × ${v.nodes[0]?.target}`), []);
}

/** The pipeline splits q, k and v alike; §3 and §4 each colour by one scale, whose key says its numbers. */
async function checkOneScalePerFigure(page, errors) {
  await page.locator('#pipeline').scrollIntoViewIfNeeded();
  await settle(page);
  for (const matrix of ['q', 'k', 'v']) assert.equal(await page.locator(`#pipeline g.stage[data-part="split"] g[data-matrix="${matrix}"]`).count(), 2, matrix);
  // §3: the lesson's scores reach 2.00 (dots) and 1.41 (scaled); the key says so, and 2.00 is darker.
  const ticks = await page.$$eval('#hand-legends svg:nth-of-type(2) text', (t) => t.slice(1).map((x) => x.textContent));
  assert.deepEqual(ticks, ['-2.00', '0.00', '2.00']);
  /** The fill of the cell with the largest value in a figure. */
  const fillOfLargest = (figure) => page.$$eval(`${figure} svg g.cell`, (cells) => {
    const largest = cells.reduce((a, b) => (Number(b.dataset.value) > Number(a.dataset.value) ? b : a));
    return [Number(largest.dataset.value).toFixed(2), largest.querySelector('rect').getAttribute('fill')];
  });
  const [dots, scaled, output] = [await fillOfLargest('#head-0-dots'), await fillOfLargest('#head-0-scaled'), await fillOfLargest('#output-figure')];
  assert.deepEqual([dots[0], scaled[0], output[0]], ['2.00', '1.41', '1.26']);
  assert.ok(dots[1] !== scaled[1] && dots[1] !== output[1], 'smaller numbers, lighter colours');
  // §4: the figure carries its key, with the numbers of its one signed scale.
  const keyTicks = await page.$$eval('#pipeline g.key svg.mha-legend:nth-of-type(2) text', (t) => t.slice(1).map((x) => x.textContent));
  assert.deepEqual(keyTicks, ['-2.00', '0.00', '2.00']);
  assert.deepEqual(errors, []);
}

/** The lesson ends with a recap and links to the two papers, which open in a new tab; nothing is fetched. */
async function checkRecapAndReading(page, errors, offline) {
  assert.ok(await page.locator('#recap li').count() >= 4);
  const links = await page.$$eval('#reading-list a', (anchors) => anchors.map((a) => [a.href, a.target, a.rel]));
  assert.deepEqual(links, [['https://arxiv.org/abs/1706.03762', '_blank', 'noopener'], ['https://arxiv.org/abs/1905.10650', '_blank', 'noopener']]);
  await page.focus('#reading-list a');
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('href')), 'https://arxiv.org/abs/1706.03762');
  assert.deepEqual(offline, [], 'nothing is fetched from the network');
  assert.deepEqual(errors, []);
}

/** Training: the last step label fits the loss figure, and a lone head (tapped on a phone) is named, not "not yet divided". */
async function checkTrainingLabels(page, errors, lang, { tap }) {
  await page.locator('.mha-train').scrollIntoViewIfNeeded();
  await page.waitForSelector('.mha-train svg.loss-curve', { timeout: HANG_MS });
  const fits = await page.$eval('.mha-train svg.loss-curve', (svg) => {
    const last = [...svg.querySelectorAll('text')].find((text) => text.textContent === '1500');
    const box = last.getBBox();
    return box.x + box.width <= svg.viewBox.baseVal.width;
  });
  assert.ok(fits, `${lang}: the label 1500 ends inside the figure`);
  const oneHead = '.mha-train input[type="radio"][value="1"]';
  if (tap) await page.tap(oneHead);
  else await page.click(oneHead);
  await page.waitForFunction(() => document.querySelectorAll('.mha-train figure.train-head').length === 1, null, { timeout: HANG_MS });
  const caption = await page.textContent('.mha-train figure.train-head figcaption');
  assert.doesNotMatch(caption, /还没分工|no view yet/, caption);
  assert.match(caption, lang === 'zh' ? /看前一个词|看句首|无工可分/ : /one step back|at the start|nothing to divide/, caption);
  // The h picked is in the address; back to the default for the tests after.
  await page.waitForFunction(() => new URLSearchParams(location.search).get('th') === '1');
  await page.click('.mha-train input[type="radio"][value="2"]');
  await page.waitForFunction(() => !new URLSearchParams(location.search).has('th'));
  assert.deepEqual(errors, []);
}

/**
 * Copy link, pressed (or tapped) right after jumping to its section and before the address bar is written
 * (150 ms after a change), copies the current state without #share-section; the bill goes back after.
 */
async function checkCopyLink(page, errors, context, { tap }) {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.baseUrl });
  await page.fill('#bill-heads', '8');
  await page.click('nav a[href="#share-section"]');
  if (tap) await page.tap('#share-copy');
  else {
    await page.focus('#share-copy');
    await page.keyboard.press('Enter');
  }
  const link = await page.inputValue('#share-link');
  assert.equal(link, `${env.baseUrl}?bh=8`);
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);
  assert.deepEqual(errors, []);
  await page.fill('#bill-heads', '12');
  await backTo(page);
}

/** A 150-character word typed in the views' sentence box is refused, and the views keep inside their card. */
async function checkLongWordRefused(page, errors, width) {
  await page.locator('#views-sentence').scrollIntoViewIfNeeded();
  await page.waitForSelector('#grid-figure svg g.tile');
  await page.fill('#views-sentence', `the ${'x'.repeat(150)} cat`);
  await settle(page);
  const error = page.locator('#views-section .error');
  assert.equal(await error.getAttribute('data-code'), 'TOKEN_TOO_LONG');
  assert.equal(await error.textContent(), '第 2 个词“xxxxxxxxxxxx…”有 150 个字符，一个词最多 12 个字符。');
  const card = await page.locator('#views-section').boundingBox();
  for (const selector of ['#focus-token', '#views-section .error', '#lines-figure', '#grid-figure']) {
    const box = await page.locator(selector).boundingBox();
    assert.ok(box.x + box.width <= card.x + card.width, `${selector} ends at ${box.x + box.width} px, the card at ${card.x + card.width} px (${width} px window)`);
  }
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= width);
  assert.deepEqual(errors, []);
}

/** Every word of the line view (its side headings, "query" and "looked at", and the sentence's words) lies inside the figure. */
async function checkLineWordsInside(page, errors, label) {
  await drawnNear(page, '#lines-figure');
  const outside = await page.$eval('#lines-figure svg', (svg) => {
    const width = svg.viewBox.baseVal.width;
    return [...svg.querySelectorAll('text')].filter((text) => {
      const box = text.getBBox();
      return box.x < 0 || box.x + box.width > width;
    }).map((text) => text.textContent);
  });
  assert.deepEqual(outside, [], `${label}: cut at the figure's edge`);
  assert.deepEqual(errors, []);
}

const quizAt = (page) => page.getAttribute('#quiz-card', 'data-question');
const quizFeedback = async (page) => ({ kind: (await page.getAttribute('#quiz-feedback', 'class')).replace('feedback', '').trim(), text: await page.textContent('#quiz-feedback') });

describe('the page as it opens, in Chinese at 1280 px: one page load', () => {
  const lesson = sharedPage();

  test('the page loads offline with no console errors, says when every section is drawn, and a full-page screenshot is written', async () => {
    const { page, errors, offline } = lesson;
    assert.equal(await page.getAttribute('html', 'data-lesson'), 'drawn');
    // Drawn far below the window too: §8's concat and the views' grid, one tile per head.
    assert.equal(await page.locator('#ablation-concat svg g.cell').count(), 12);
    assert.equal(await page.locator('#grid-figure svg g.tile').count(), 2);
    await page.screenshot({ path: `${ensureArtifactsDir()}page-desktop.png`, fullPage: true });
    assert.deepEqual(errors, []);
    assert.deepEqual(offline, [], 'no request leaves the local server');
    assert.equal(await page.getAttribute('html', 'lang'), 'zh-CN');
  });

  test('axe-core finds no serious violations in Chinese on a desktop', async () => {
    await assertAxeClean(lesson.page);
  });

  test('the default state is the lesson table with the mask off, giving the lesson\'s numbers', async () => {
    const { page } = lesson;
    const head1 = await weightsOf(page, 0);
    const head2 = await weightsOf(page, 1);
    assert.deepEqual(rowText(head1, 0), ['0.25', '0.25', '0.50']);
    assert.deepEqual(rowText(head1, 1), ['0.11', '0.45', '0.45']);
    assert.deepEqual(rowText(head1, 2), ['0.33', '0.33', '0.33']);
    assert.deepEqual(rowText(head2, 0), ['0.33', '0.33', '0.33']);
    assert.deepEqual(rowText(head2, 1), ['0.16', '0.67', '0.16']);
    assert.deepEqual(rowText(head2, 2), ['0.40', '0.40', '0.20']);
    const concatRow = await page.$$eval('#concat-figure svg g.cell[data-row="0"] text', (t) => t.map((x) => x.textContent));
    assert.deepEqual(concatRow, ['1.26', '0.25', '0.33', '1.00']);
    assert.equal(await page.isChecked('#hand-mask'), false);
    assert.ok(await page.isVisible('#mask-note'));
  });

  test('the pipeline splits q, k and v alike, and §3 and §4 each colour by one scale their key states', async () => {
    await checkOneScalePerFigure(lesson.page, lesson.errors);
  });

  test('the lesson ends with a recap and links to the two papers that open in a new tab', async () => {
    await checkRecapAndReading(lesson.page, lesson.errors, lesson.offline);
  });

  test('the formula is typeset and a focused symbol lights its part of the pipeline', async () => {
    const { page } = lesson;
    assert.ok(await page.locator('#formula-section .katex').count() > 0);
    await page.focus('button.symbol[data-symbol="wq"]');
    await settle(page);
    assert.match(await page.textContent('#symbol-notes li.lit'), /4×2/);
    assert.ok(await page.locator('#formula-pipeline g.stage.highlighted[data-part="split"]').count() === 2);
    await page.$eval('button.symbol[data-symbol="wq"]', (symbol) => symbol.blur());
  });

  test('the code demo prints what Python prints for seed 11', async () => {
    const { page } = lesson;
    const text = await page.textContent('#demo-b-output');
    assert.ok(text.includes('[[1.   0.   0.   0.  ]\n [0.22 0.78 0.   0.  ]\n [0.17 0.05 0.77 0.  ]\n [0.16 0.16 0.2  0.47]]'), text);
    assert.ok(text.includes('[[1.   0.   0.   0.  ]\n [0.49 0.51 0.   0.  ]\n [0.35 0.4  0.25 0.  ]\n [0.29 0.24 0.24 0.24]]'), text);
    assert.ok(text.includes('[0.16 0.16 0.2  0.47] vs [0.29 0.24 0.24 0.24]'));
    const first = await page.textContent('#demo-a-output');
    assert.ok(first.includes('21,233,664') && first.includes('2,359,296') && first.includes('True'));
    assert.ok(first.includes('Q_i(3, 4) A_i(3, 3)') && first.includes('(3, 8) → @ W^O(8,8) → (3, 8)'));
    await page.fill('#seed2', '12');
    await settle(page);
    assert.notEqual(await page.textContent('#demo-b-output'), text);
    await page.fill('#seed2', '11');
    await backTo(page);
  });

  test('the code demo says the seed changes program 2, and program 1\'s output does not depend on it', async () => {
    const { page } = lesson;
    const first = await page.textContent('#demo-a-output');
    await page.fill('#seed1', '12345');
    await settle(page);
    assert.equal(await page.textContent('#demo-a-output'), first);
    assert.match(await page.textContent('#seed-a-note'), /打印结果却一字不变/);
    const order = await page.evaluate(() => {
      const [programA, programB] = document.querySelectorAll('#code-section h3');
      const hint = document.getElementById('seed-b-hint');
      const follows = (a, b) => Boolean(a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING);
      return { afterProgramB: follows(programB, hint), beforeSeed2: follows(hint, document.getElementById('seed2')), afterProgramA: follows(programA, hint) };
    });
    assert.deepEqual(order, { afterProgramB: true, beforeSeed2: true, afterProgramA: true });
    assert.doesNotMatch(await page.textContent('#code-section > p'), /种子试试/);
    await page.fill('#seed1', '10');
    await backTo(page);
  });

  test('a bad seed gives an inline error with its code', async () => {
    const { page, errors } = lesson;
    await page.fill('#seed1', '-1');
    await settle(page);
    assert.equal(await page.locator('#code-section .error').getAttribute('data-code'), 'BAD_ARGUMENT');
    assert.deepEqual(errors, []);
    await page.fill('#seed1', '10');
    await backTo(page);
  });

  test('the bill shows GPT-2\'s numbers and an inline error for a head count that does not divide', async () => {
    const { page } = lesson;
    assert.equal(await page.textContent('#bill-naive'), '21,233,664');
    assert.equal(await page.textContent('#bill-split'), '2,359,296');
    assert.equal(await page.textContent('#bill-ratio'), '9');
    await page.fill('#bill-heads', '7');
    await settle(page);
    const error = page.locator('#bill .error');
    assert.equal(await error.getAttribute('data-code'), 'HEADS_NOT_DIVISOR');
    assert.match(await error.innerText(), /^头数 h = 7 不能整除 d_model = 768/, 'the sentence comes first, with no code before it');
    assert.doesNotMatch(await page.textContent('#bill'), /NaN|HEADS_NOT_DIVISOR/);
    await page.fill('#bill-heads', '0');
    await settle(page);
    assert.equal(await page.locator('#bill .error').getAttribute('data-code'), 'BAD_SIZE');
    await page.fill('#bill-heads', '12');
    await backTo(page);
  });

  test('the causal mask zeroes the upper triangle of every head', async () => {
    const { page } = lesson;
    await page.check('#hand-mask');
    await settle(page);
    for (const head of [0, 1]) {
      const cells = await weightsOf(page, head);
      for (const cell of cells.filter((c) => c.col > c.row)) assert.equal(cell.value, 0, `head ${head} (${cell.row}, ${cell.col})`);
      assert.equal(cells.find((c) => c.row === 0 && c.col === 0).value, 1);
    }
    await page.uncheck('#hand-mask');
    await backTo(page);
  });

  test('moving a q slider sets the head-1 heatmap cell to exactly what the core computes', async () => {
    const { page } = lesson;
    await setEntry(page, 'q', 0, 0, 2.5);
    await settle(page);
    const shown = (await weightsOf(page, 0)).find((c) => c.row === 0 && c.col === 2);
    const expected = await page.evaluate(async () => {
      const { loadAttention } = await import('/src/attention.js');
      const mha = await loadAttention();
      const layer = mha.createLayer({ dModel: 4, heads: 2, maxLen: 8 });
      layer.forward({ q: [[2.5, 1, 0, 0], [0, 2, 0, 2], [0, 0, 1, 1]], k: [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]], v: [[1, 0, 1, 0], [0, 1, 0, 1], [2, 0, 0, 2]], causal: false, scale: true });
      const value = layer.attention(0)[2];
      layer.dispose();
      return value;
    });
    assert.equal(shown.value, expected);
    assert.equal(shown.text, expected.toFixed(2));
    assert.notEqual(shown.text, '0.50', 'the cell changed from the lesson value');
    assert.equal(await page.textContent('.drag-number[data-matrix="q"][data-row="0"][data-col="0"]'), '2.5');
    await setEntry(page, 'q', 0, 0, 1);
    await backTo(page);
  });

  test('dragging a number with the mouse (right or up) and pressing arrow keys both edit it', async () => {
    const { page } = lesson;
    const handle = page.locator('.drag-number[data-matrix="k"][data-row="1"][data-col="1"]');
    await handle.scrollIntoViewIfNeeded();
    const box = await handle.boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 + 40, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    assert.equal(await handle.textContent(), '1.5');
    await handle.focus();
    await page.keyboard.press('ArrowLeft');
    assert.equal(await handle.textContent(), '1.4');
    assert.equal(await handle.getAttribute('aria-valuenow'), '1.4');
    // With a mouse, up counts like right (touch edits only sideways, so that a swipe can scroll).
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2 - 16, { steps: 4 });
    await page.mouse.up();
    assert.equal(await handle.textContent(), '1.6');
    await setEntry(page, 'k', 1, 1, 1);
    await backTo(page);
  });

  test('switching a head off zeroes its concat columns', async () => {
    const { page } = lesson;
    await page.uncheck('#ablate-1');
    await settle(page);
    const concatOf = (selector) => page.$$eval(`${selector} svg g.cell`, (cells) => cells.map((c) => [Number(c.dataset.col), Number(c.dataset.value)]));
    const concat = await concatOf('#ablation-concat');
    assert.ok(concat.filter(([col]) => col >= 2).every(([, v]) => v === 0));
    assert.ok(concat.filter(([col]) => col < 2).some(([, v]) => v !== 0));
    // The hand section, off screen meanwhile, catches up when it scrolls into view.
    await drawnNear(page, '#concat-figure');
    assert.deepEqual(await concatOf('#concat-figure'), concat);
    const diff = await page.$$eval('#ablation-diff svg g.cell', (cells) => cells.map((c) => Number(c.dataset.value)));
    assert.ok(diff.some((v) => v !== 0));
    await page.check('#ablate-1');
    await backTo(page);
  });

  test('switching h changes the number of heatmaps', async () => {
    const { page } = lesson;
    for (const heads of [1, 4, 2]) {
      await page.check(`input[name="hand-heads"][value="${heads}"]`);
      await settle(page);
      assert.equal(await page.locator('#heads .head-card').count(), heads);
      // Sections off screen redraw when they scroll into view.
      await drawnNear(page, '#pipeline');
      assert.equal(await page.locator('#pipeline g.stage[data-part="weights"]').count(), heads);
      await page.locator('#hand').scrollIntoViewIfNeeded();
    }
    await backTo(page);
  });

  test('stepping the animation moves the caption and the highlighted stage', async () => {
    const { page } = lesson;
    const caption0 = await page.textContent('#step-caption');
    await page.click('#step-forward');
    await settle(page);
    assert.deepEqual(await page.$$eval('#pipeline g.stage.active', (g) => [...new Set(g.map((x) => x.dataset.part))]), ['input']);
    await page.click('#step-forward');
    await page.click('#step-forward');
    await settle(page);
    const caption3 = await page.textContent('#step-caption');
    assert.notEqual(caption3, caption0);
    assert.deepEqual(await page.$$eval('#pipeline g.stage.active', (g) => [...new Set(g.map((x) => x.dataset.part))]), ['scores']);
    await page.click('#step-back');
    await settle(page);
    assert.deepEqual(await page.$$eval('#pipeline g.stage.active', (g) => [...new Set(g.map((x) => x.dataset.part))]), ['split']);
    assert.notEqual(await page.textContent('#step-caption'), caption3);
    assert.match(await page.textContent('#step-counter'), /2/);
    await rewind(page);
    await backTo(page);
  });

  test('the step buttons stop at the ends: 下一步 at step 8 of 8, 上一步 at the overview, the keyboard\'s focus kept', async () => {
    const { page } = lesson;
    await page.locator('#pipeline-section').scrollIntoViewIfNeeded();
    assert.equal(await page.isDisabled('#step-back'), true, 'nothing before the overview');
    await page.focus('#step-forward');
    for (let step = 1; step <= 8; step++) await page.keyboard.press('Enter');
    await settle(page);
    assert.match(await page.textContent('#step-counter'), /8/);
    assert.equal(await page.isDisabled('#step-forward'), true, 'nothing after step 8');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'step-back', 'the focus moved to the button that still goes somewhere');
    await page.keyboard.press('Enter');
    assert.equal(await page.isDisabled('#step-forward'), false);
    await rewind(page);
    await backTo(page);
  });

  test('the animation honours prefers-reduced-motion', async () => {
    const { page } = lesson;
    for (const [reducedMotion, animated] of [['no-preference', 1], ['reduce', 0]]) {
      await page.emulateMedia({ reducedMotion });
      await page.click('#step-forward');
      await settle(page);
      assert.equal(await page.locator('#pipeline g.stage.active.enter').count(), animated, reducedMotion);
      await rewind(page);
    }
    await page.emulateMedia({ reducedMotion: 'no-preference' });
    await backTo(page);
  });

  test('play runs through the steps and pause stops them', async () => {
    const { page } = lesson;
    await page.click('#step-play');
    await page.waitForFunction(() => document.querySelector('#pipeline-section').dataset.step >= '2', null, { timeout: HANG_MS });
    assert.equal(await page.getAttribute('#step-play', 'aria-pressed'), 'true');
    await page.click('#step-play');
    const stopped = await page.getAttribute('#pipeline-section', 'data-step');
    await page.waitForTimeout(2000);
    assert.equal(await page.getAttribute('#pipeline-section', 'data-step'), stopped);
    assert.equal(await page.getAttribute('#step-play', 'aria-pressed'), 'false');
    await rewind(page);
    await backTo(page);
  });

  test('exports the whole pipeline with its key whatever the step, and plain file names', async () => {
    const { page } = lesson;
    await page.click('#step-forward');
    await page.click('#step-forward');
    const [svg] = await Promise.all([page.waitForEvent('download'), page.click('#export-pipeline-svg')]);
    assert.equal(svg.suggestedFilename(), 'multihead-pipeline.svg');
    const text = await readFile(await svg.path(), 'utf8');
    assert.ok(!text.includes('opacity="0.12"') && !text.includes('class="stage active'), 'no stage is faded or lit by the step');
    assert.match(text, /class="key"/);
    assert.match(text, /K₂/);
    const [png] = await Promise.all([page.waitForEvent('download'), page.click('#export-pipeline-png')]);
    assert.equal(png.suggestedFilename(), 'multihead-pipeline.png');
    const [heatmaps] = await Promise.all([page.waitForEvent('download'), page.click('#export-heatmaps-svg')]);
    assert.equal(heatmaps.suggestedFilename(), 'multihead-heatmaps.svg');
    assert.match(await readFile(await heatmaps.path(), 'utf8'), /mha-legend/);
    const [heatmapsPng] = await Promise.all([page.waitForEvent('download'), page.click('#export-heatmaps-png')]);
    assert.equal(heatmapsPng.suggestedFilename(), 'multihead-heatmaps.png');
    await rewind(page);
    await backTo(page);
  });

  test('a typed value outside the slider\'s range is refused with a message, and clearing the box to retype is no error', async () => {
    const { page, errors } = lesson;
    const cell = page.locator('.drag-number[data-matrix="q"][data-row="0"][data-col="0"]');
    await cell.click();
    const before = await weightsOf(page, 0);
    for (const typed of ['1e20', '1e308', '3.5', '-4']) {
      await page.fill('#entry-number', typed);
      await settle(page);
      assert.equal(await page.locator('#hand .error').count(), 0, typed);
      assert.equal(await page.textContent('#entry-number-hint'), '只能填 −3 到 3 之间的数，现在仍是 1。', typed);
      assert.equal(await page.getAttribute('#entry-number', 'aria-invalid'), 'true');
      assert.equal(await cell.textContent(), '1');
      assert.deepEqual(await weightsOf(page, 0), before, `${typed} changed nothing`);
    }
    await page.$eval('#entry-number', (box) => box.blur());
    assert.equal(await page.inputValue('#entry-number'), '1', 'leaving the box shows the value in use again');

    await page.fill('#entry-number', '');
    await settle(page);
    assert.equal(await page.locator('#hand .error').count(), 0, 'an empty box is not an error');
    assert.equal(await page.textContent('#entry-number-hint'), '只能填 −3 到 3 之间的数，现在仍是 1。', 'it says what it takes, and what stays in use');
    await page.focus('#entry-number');
    await page.keyboard.type('1e');
    assert.equal(await page.textContent('#entry-number-hint'), '这不是一个数。');
    await page.fill('#entry-number', '-2.5');
    await settle(page);
    assert.equal(await cell.textContent(), '-2.5');
    assert.equal(await page.inputValue('#entry-range'), '-2.5');
    assert.notDeepEqual(await weightsOf(page, 0), before);
    // A drag starts from the typed value, not from a clamped one.
    await cell.focus();
    await page.keyboard.press('ArrowRight');
    assert.equal(await cell.textContent(), '-2.4');
    assert.deepEqual(errors, []);
    await setEntry(page, 'q', 0, 0, 1);
    await backTo(page);
  });

  test('commas and semicolons in a word show in every figure as typed, and come back from a shared link', async () => {
    const { page } = lesson;
    await page.fill('input.token-name >> nth=1', '吃,喝;睡');
    await settle(page);
    const labels = await page.$$eval('#head-0-weights svg text', (texts) => texts.map((text) => text.textContent));
    assert.ok(labels.includes('吃,喝;睡'), labels.join(' '));
    assert.equal(await page.textContent('table.qkv[data-matrix="k"] [data-token="1"]'), '吃,喝;睡');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('t') === '猫,吃\\,喝;睡,鱼');
    const url = page.url();
    await page.fill('input.token-name >> nth=1', '吃');
    await backTo(page);

    const restored = await load(url.slice(env.baseUrl.length));
    assert.equal(await restored.page.inputValue('input.token-name >> nth=1'), '吃,喝;睡');
    assert.equal(await restored.page.locator('input.token-name').count(), 3);
    assert.deepEqual(rowText(await weightsOf(restored.page, 0), 0), ['0.25', '0.25', '0.50'], 'the lesson\'s numbers are kept');
    await restored.context.close();
  });

  test('a shared URL restores the state', async () => {
    const { page } = lesson;
    await page.check('input[name="hand-heads"][value="4"]');
    await page.check('#hand-mask');
    await page.fill('input.token-name >> nth=1', '喝');
    await setEntry(page, 'q', 2, 3, -1.5);
    await page.click('#step-forward');
    await page.check('#train-section input[type="radio"][value="4"]');
    // h = 4's K/V choices (MHA, GQA, MQA) drawn, so that MQA is picked for h = 4, not from h = 2's choices.
    await page.waitForSelector('#train-section .train-kv input[value="4"]');
    await page.check('#train-section .train-kv input[value="1"]');
    await page.waitForFunction(() => location.search.includes('step=1') && location.search.includes('h=4') && location.search.includes('th=4'));
    await page.waitForFunction(() => location.search.includes('tkv=1'));
    const url = page.url();
    const before = await weightsOf(page, 3);
    await page.check('input[name="hand-heads"][value="2"]');
    await page.check('#train-section input[type="radio"][value="2"]');
    await page.uncheck('#hand-mask');
    await page.fill('input.token-name >> nth=1', '吃');
    await setEntry(page, 'q', 2, 3, 1);
    await rewind(page);
    await backTo(page);

    const restored = await load(url.slice(env.baseUrl.length));
    const p = restored.page;
    assert.equal(await p.locator('#heads .head-card').count(), 4);
    assert.equal(await p.isChecked('#hand-mask'), true);
    assert.equal(await p.inputValue('input.token-name >> nth=1'), '喝');
    assert.equal(await p.textContent('.drag-number[data-matrix="q"][data-row="2"][data-col="3"]'), '-1.5');
    assert.deepEqual(await weightsOf(p, 3), before);
    assert.deepEqual(await p.$$eval('#pipeline g.stage.active', (g) => [...new Set(g.map((x) => x.dataset.part))]), ['input']);
    assert.equal(await p.isChecked('#train-section input[type="radio"][value="4"]'), true, 'the training section\'s h comes back');
    assert.equal(await p.isChecked('#train-section .train-kv input[value="1"]'), true, 'and its K/V heads (MQA)');
    await restored.context.close();
  });

  test('the pipeline\'s words are drawn at 12 px or more on a 1280 px screen, upright, and q\'s numbers are in its cells', async () => {
    const { page, errors } = lesson;
    await drawnNear(page, '#pipeline');
    const small = await page.$eval('#pipeline svg', (svg) => {
      const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
      return [...svg.querySelectorAll('text')].filter((text) => !text.closest('g.numbers'))
        .map((text) => [text.textContent, parseFloat(getComputedStyle(text).fontSize) * scale, getComputedStyle(text).fontStyle])
        .filter(([, size, style]) => size < 12 || style !== 'normal');
    });
    assert.deepEqual(small, []);
    const q = await page.$$eval('#pipeline g.stage[data-part="input"] g[data-matrix="q"] g.numbers text', (texts) => texts.map((text) => text.textContent));
    assert.deepEqual(q, ['1', '1', '0', '0', '0', '2', '0', '2', '0', '0', '1', '1'], 'the lesson\'s q, written in its cells');
    assert.deepEqual(errors, []);
  });

  test('the line view\'s words lie inside it (Chinese, 1280 px)', async () => {
    await checkLineWordsInside(lesson.page, lesson.errors, 'Chinese, 1280 px');
  });

  test('a box of controls with nothing in it takes no room: the views\' random-model box, while the hand example shows', async () => {
    const { page } = lesson;
    await page.locator('#views-section').scrollIntoViewIfNeeded();
    const { source, empty, gap } = await page.$eval('#views-section', (section) => {
      const boxes = [...section.querySelectorAll('.controls')];
      const top = (selector) => section.querySelector(selector).closest('.controls').getBoundingClientRect().top;
      const bottom = (selector) => section.querySelector(selector).closest('.controls').getBoundingClientRect().bottom;
      return {
        source: section.querySelector('input[name="views-source"]:checked').value,
        empty: boxes.filter((box) => !box.children.length && box.getClientRects().length).length,
        gap: top('#views-head-toggles') - bottom('input[name="views-source"]'),
      };
    });
    assert.equal(source, 'hand');
    assert.equal(empty, 0, 'no empty box of controls is laid out');
    assert.equal(Math.round(gap), 12, 'one margin between the data and the heads to show');
  });

  test('training: the last step label fits the figure, and a lone head is not "not yet divided" (Chinese, 1280 px)', async () => {
    await checkTrainingLabels(lesson.page, lesson.errors, 'zh', { tap: false });
  });

  test('English is one switch away: the section on screen in the click\'s task, the others a task each', async () => {
    const { page } = lesson;
    await page.locator('#views-section').scrollIntoViewIfNeeded();
    await scrollSettled(page);
    const from = await page.evaluate(() => performance.now());
    const { near, built } = await page.evaluate(async () => {
      const before = [...document.querySelector('main').children];
      const near = before.filter((node) => {
        const box = node.getBoundingClientRect();
        return box.bottom > -400 && box.top < innerHeight + 400; // the page's own margin (main.js)
      }).map((node) => node.id);
      document.querySelector('#lang-switch').click();
      await null; // the redraw the click asked for runs first, in the same task
      return { near, built: [...document.querySelector('main').children].filter((node, i) => node !== before[i]).map((node) => node.id) };
    });
    // Built all in the click's task, the twelve sections held the page 0.4–1.5 s.
    assert.equal(built.length, 1, `sections built in the click's task: ${built}`);
    assert.ok(near.includes(built[0]), `${built[0]} is near the screen (${near})`);
    assert.match(await page.textContent('h1'), /Multi-head attention/);
    await lessonDrawn(page);
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
    assert.deepEqual(await page.$$eval('main > *', (nodes) => nodes.filter((node) => node.lang !== 'en').map((node) => node.id)), []);
    assert.match(await page.textContent('#views-section h2'), /[A-Za-z]/);
    // Built and drawn in one task, the sections took 237–468 ms here after the page was drawn (0.4–1.5 s in
    // the issue); a task each, the first (the header, one section and the page's layout) took 63–208 ms, and
    // once 411 ms, on a shared 2-core machine at load 10–13: the check above counts, this one has the probe's bound
    // (100 ms, scaled by the machine's slowdown measured then: tests/browser.js).
    assert.deepEqual(await tasksOverProbe(page, from), []);
    await page.waitForFunction(() => location.search.includes('lang=en'));
    await page.click('#lang-switch');
    await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
    await lessonDrawn(page);
    await backTo(page);
  });

  test('copy link right after jumping to the section copies the current state, without #share-section (1280 px)', async () => {
    await checkCopyLink(lesson.page, lesson.errors, lesson.context, { tap: false });
  });
});

describe('the page on a phone, in Chinese at 375 px with touch: one page load', () => {
  const phone = sharedPage('', { viewport: { width: 375, height: 812 } });

  test('axe-core finds no serious violations on a phone', async () => {
    // At 375 px the code, its output and the formula scroll sideways: they must take keyboard focus.
    await assertAxeClean(phone.page);
  });

  test('at 375 px wide nothing overflows the page, and a phone screenshot is written', async () => {
    const { page, errors } = phone;
    await settle(page);
    await page.screenshot({ path: `${ensureArtifactsDir()}page-375.png`, fullPage: true });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(overflow <= 375, `page is ${overflow} px wide`);
    assert.equal(await page.getAttribute('#pipeline > svg', 'class'), 'mha-pipeline');
    const box = await page.locator('#pipeline > svg').boundingBox();
    assert.ok(box.width <= 375 && box.height > box.width, 'the pipeline turns vertical on a phone');
    // Touch: a tap selects an entry and shows its slider.
    await page.tap('.drag-number[data-matrix="q"][data-row="1"][data-col="1"]');
    assert.ok(await page.isVisible('#entry-range'));
    assert.deepEqual(errors, []);
  });

  test('copy link right after jumping to the section copies the current state, without #share-section (375 px, a tap)', async () => {
    await checkCopyLink(phone.page, phone.errors, phone.context, { tap: true });
  });

  test('stepping the standing pipeline on a phone, its step buttons stay on the screen as it is scrolled through', async () => {
    const { page, errors } = phone;
    await drawnNear(page, '#pipeline');
    for (const at of [0.5, 0.9]) {
      // The window scrolled to a stage far down the figure, as a teacher follows the lit stage.
      await page.evaluate((at) => {
        const figure = document.querySelector('#pipeline').getBoundingClientRect();
        scrollBy(0, figure.top + at * figure.height - innerHeight / 2);
      }, at);
      await settle(page);
      const button = await page.locator('#step-forward').boundingBox();
      assert.ok(button.y >= 0 && button.y + button.height <= 812, `step button at ${button.y}`);
      await page.tap('#step-forward');
    }
    await rewind(page);
    assert.deepEqual(errors, []);
  });
});

describe('the page on a phone, in English at 375 px with touch: one page load', () => {
  const english = sharedPage('?lang=en', { viewport: { width: 375, height: 740 } });

  test('?lang=en opens in English', async () => {
    assert.match(await english.page.textContent('#hand-title'), /By hand/);
  });

  test('the lesson ends with a recap and links to the two papers that open in a new tab (English, 375 px)', async () => {
    await checkRecapAndReading(english.page, english.errors, english.offline);
  });

  test('the pipeline splits q, k and v alike, and §3 and §4 each colour by one scale their key states (English, 375 px)', async () => {
    await checkOneScalePerFigure(english.page, english.errors);
  });

  test('the quiz on a phone, in English, by touch: answers follow the live head count', async () => {
    const { page, errors } = english;
    await page.locator('#quiz-section').scrollIntoViewIfNeeded();
    // Passing §10 on the way fetches its model, whose part then grows above the quiz: tapped before, a tap can
    // land where the button was a moment earlier.
    await page.waitForSelector('#poems-body:not([hidden])', { state: 'attached', timeout: HANG_MS });
    await page.locator('#quiz-check').scrollIntoViewIfNeeded();
    await page.tap('#quiz-check');
    assert.equal((await quizFeedback(page)).kind, 'hint');
    await page.fill('#quiz-answer', '9');
    await page.tap('#quiz-check');
    await page.tap('#quiz-next');
    await page.fill('#quiz-answer', '64');
    await page.tap('#quiz-check');
    await page.tap('#quiz-next');
    assert.match(await page.textContent('#quiz-prompt'), /dimension 3 \(counting from 0/);
    await page.tap('label[for="quiz-option-0"]');
    await page.tap('#quiz-check');
    assert.equal((await quizFeedback(page)).kind, 'wrong', 'at h = 2 dimension 3 is head 2\'s, not head 1\'s');
    await page.tap('label[for="quiz-option-1"]');
    await page.tap('#quiz-check');
    assert.match((await quizFeedback(page)).text, /^Correct! .*Head 2/);
    const overflow = await page.$eval('#quiz-card', (card) => card.scrollWidth - card.clientWidth);
    assert.ok(overflow <= 0, `the card fits the phone (${overflow} px over)`);
    await page.locator('#quiz-section').screenshot({ path: `${ensureArtifactsDir()}quiz-phone-en.png` });
    assert.deepEqual(errors, []);
  });

  test('the line view\'s words lie inside it, "looked at" whole (English, 375 px)', async () => {
    await checkLineWordsInside(english.page, english.errors, 'English, 375 px');
    assert.ok((await english.page.textContent('#lines-figure svg')).includes('looked at'));
  });

  test('at 375 px every figure of §9 lies inside the screen, with 2 heads and with 4 (English, a tap)', async () => {
    const { page, errors } = english;
    await page.locator('#train-section').scrollIntoViewIfNeeded();
    for (const heads of [2, 4]) {
      if (heads !== 2) await page.tap(`.mha-train input[type="radio"][value="${heads}"]`);
      await page.waitForFunction((n) => document.querySelectorAll('.mha-train figure.train-head svg').length === n, heads, { timeout: HANG_MS });
      const figures = await page.$$eval('#train-section svg', (svgs) => svgs.map((svg) => [svg.getAttribute('class'), Math.round(svg.getBoundingClientRect().right)]));
      assert.ok(figures.length > heads, `${figures.length} figures`);
      for (const [name, right] of figures) assert.ok(right <= 375, `h = ${heads}: ${name} ends at ${right} px`);
    }
    await page.tap('.mha-train input[type="radio"][value="2"]');
    await page.waitForFunction(() => !new URLSearchParams(location.search).has('th'));
    assert.deepEqual(errors, []);
  });

  test('training: the last step label fits the figure, and a lone head is not "not yet divided" (English, 375 px, a tap)', async () => {
    await checkTrainingLabels(english.page, english.errors, 'en', { tap: true });
  });
});

/** The heads whose lines the line view draws. */
const headsDrawn = (page) => page.$$eval('#lines-figure svg line', (lines) => [...new Set(lines.map((l) => Number(l.dataset.head)))]);

describe('the larger model\'s views, in Chinese at 1280 px: one page load', () => {
  const views = sharedPage('?vs=big');

  test('the larger model draws a line view and a grid with one tile per head', async () => {
    const { page } = views;
    await viewsDrawn(page);
    assert.equal(await page.locator('#grid-figure svg g.tile').count(), 8);
    const lines = await page.locator('#lines-figure svg line').count();
    assert.ok(lines > 8 * 16, `${lines} lines`);
    await page.fill('#views-heads', '7');
    await settle(page);
    assert.equal(await page.locator('#views-section .error').getAttribute('data-code'), 'HEADS_NOT_DIVISOR');
    await page.fill('#views-heads', '8');
    await page.fill('#views-dmodel', '100000');
    await settle(page);
    assert.equal(await page.locator('#views-section .error').getAttribute('data-code'), 'TOO_LARGE');
    await page.fill('#views-dmodel', '64');
    await backTo(page, '?vs=big');
  });

  test('the line view shows one head\'s lines: pointed at, tabbed to, clicked or tapped', async () => {
    const { page, errors } = views;
    await page.locator('#views-head-pick').scrollIntoViewIfNeeded();
    await page.waitForSelector('#lines-figure svg line', { state: 'attached' });
    assert.equal((await headsDrawn(page)).length, 8);
    await page.hover('#views-head-pick button[data-head="2"]');
    await settle(page);
    assert.deepEqual(await headsDrawn(page), [2], 'pointing previews one head');
    await page.mouse.move(0, 0);
    await settle(page);
    assert.equal((await headsDrawn(page)).length, 8, 'and leaving shows them all again');
    await page.click('#views-head-pick button[data-head="5"]');
    await page.mouse.move(0, 0);
    await settle(page);
    assert.deepEqual(await headsDrawn(page), [5], 'a click keeps it');
    assert.equal(await page.getAttribute('#views-head-pick button[data-head="5"]', 'aria-pressed'), 'true');
    // Keyboard: tabbing onto a head previews it, Enter keeps it.
    await page.focus('#views-head-pick button[data-head=""]');
    await page.keyboard.press('Tab');
    await settle(page);
    assert.deepEqual(await headsDrawn(page), [0]);
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await settle(page);
    assert.deepEqual(await headsDrawn(page), [2]);
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    await settle(page);
    assert.deepEqual(await headsDrawn(page), [0], 'off the buttons, the kept head stays');
    assert.deepEqual(errors, []);
    // Every head again, for the next test.
    await page.click('#views-head-pick button[data-head=""]');
    await page.mouse.move(0, 0);
    await settle(page);
    assert.equal((await headsDrawn(page)).length, 8);
  });

  test('a 150-character word is refused in the sentence box, and the views keep inside their card (1280 px)', async () => {
    await checkLongWordRefused(views.page, views.errors, 1280);
  });
});

// The tests below need a page of their own: a link of their own, a screen size, a script run before the
// page's, or the page just loaded, with nothing scrolled yet.
test('parts off screen are not redrawn while a slider moves, and show the core\'s numbers once scrolled into view', async () => {
  const { page, context, errors } = await load();
  const concatOf = (selector) => page.$$eval(`${selector} svg g.cell`, (cells) => cells.map((c) => Number(c.dataset.value)));
  const before = { hand: await concatOf('#concat-figure'), ablation: await concatOf('#ablation-concat') };
  await setEntry(page, 'v', 2, 3, -2);
  await settle(page);
  const expected = await page.evaluate(async () => {
    const { loadAttention } = await import('/src/attention.js');
    const layer = (await loadAttention()).createLayer({ dModel: 4, heads: 2, maxLen: 8 });
    layer.forward({ q: [[1, 1, 0, 0], [0, 2, 0, 2], [0, 0, 1, 1]], k: [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]], v: [[1, 0, 1, 0], [0, 1, 0, 1], [2, 0, 0, -2]], causal: false, scale: true });
    const concat = Array.from(layer.concat());
    layer.dispose();
    return concat;
  });
  assert.notDeepEqual(expected, before.hand);
  // §3's concat, far below the editor, and all of §8 wait, marked, with the numbers they had.
  assert.equal(await page.getAttribute('#concat', 'data-pending'), '');
  assert.deepEqual(await concatOf('#concat-figure'), before.hand);
  assert.equal(await page.getAttribute('#ablation-section', 'data-pending'), '');
  assert.deepEqual(await concatOf('#ablation-concat'), before.ablation);
  await drawnNear(page, '#concat-figure');
  assert.deepEqual(await concatOf('#concat-figure'), expected, '§3 shows the new numbers as they come near');
  await drawnNear(page, '#ablation-concat');
  assert.deepEqual(await concatOf('#ablation-concat'), expected);
  assert.deepEqual(errors, []);
  await context.close();
});

test('printing draws the parts waiting off screen first, so the printed page shows the current numbers', async () => {
  const { page, context, errors } = await load();
  const valuesOf = (selector) => page.$$eval(`${selector} svg g.cell`, (cells) => cells.map((c) => Number(c.dataset.value)));
  const before = await valuesOf('#concat-figure');
  await setEntry(page, 'v', 2, 3, -2);
  await settle(page);
  assert.ok(await page.locator('[data-pending]').count() > 0, 'parts off screen wait');
  // What is printed: the page as it stands after its own beforeprint handler (registered before this one).
  await page.evaluate(() => addEventListener('beforeprint', () => {
    const values = (selector) => [...document.querySelectorAll(`${selector} svg g.cell`)].map((c) => Number(c.dataset.value));
    window.printed = { waiting: [...document.querySelectorAll('[data-pending]')].map((node) => node.id), concat: values('#concat-figure'), ablation: values('#ablation-concat') };
  }));
  // Printing lays out and paints the whole page for paper in one task of the browser's (0.3–0.5 s here, the page's
  // own beforeprint 20–25 ms of it): the probe leaves it out.
  await excusedFromProbe(page, 'printing', () => page.pdf({ path: `${ensureArtifactsDir()}page-print.pdf` }));
  const printed = await page.evaluate(() => window.printed);
  assert.deepEqual(printed.waiting, [], 'nothing waits in print');
  assert.notDeepEqual(printed.concat, before);
  assert.deepEqual(printed.ablation, printed.concat, '§3 and §8 show the same new numbers');
  assert.deepEqual(errors, []);
  await context.close();
});


test('words can be added and removed', async () => {
  const { page, context } = await load();
  await page.click('#add-token');
  await settle(page);
  assert.equal((await weightsOf(page, 0)).length, 16);
  await page.click('button[aria-label="删除“猫”"]');
  await settle(page);
  assert.equal((await weightsOf(page, 0)).length, 9);
  await context.close();
});

test('an arrow key on a word\'s entry that outlived its row (the lesson restored while it kept the focus) changes nothing and throws nothing', async () => {
  const { page, errors, context } = await load();
  await page.click('#add-token');
  await settle(page);
  const stale = await page.$('.drag-number[data-matrix="q"][data-row="3"][data-col="0"]');
  await stale.focus();
  await page.click('#hand-reset');
  await settle(page);
  assert.equal(await page.locator('.drag-number[data-matrix="q"][data-row="3"]').count(), 0, 'the added word is gone');
  // What assistive technology or a synthetic event can still send to the detached cell.
  await stale.evaluate((cell) => cell.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true })));
  await page.waitForFunction(() => location.search === '', null, { timeout: 10_000 }); // the address: the lesson, nothing edited
  assert.deepEqual(errors, []);
  await context.close();
});

test('an entry of §3 out of range is named the same in §3 and in §7: Wᴼ[3][3], counted from 0 as the page counts', async () => {
  const { page, errors, context } = await load('?wo=1,0,0,0;0,1,0,0;0,0,1,0;0,0,0,5');
  const handError = await page.textContent('#hand .error');
  await page.locator('#views-section').scrollIntoViewIfNeeded();
  await page.waitForSelector('#views-section .error');
  const viewsError = await page.textContent('#views-section .error');
  for (const text of [handError, viewsError]) assert.match(text, /Wᴼ\[3\]\[3\] 是 5/, text);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a quiz question the page\'s numbers cannot answer says so, and the learner goes on; it comes back later', async () => {
  const { page, errors, context } = await load('?q=NaN,1,0,0;0,2,0,2;0,0,1,1');
  await page.locator('#quiz-section').scrollIntoViewIfNeeded();
  const stuck = [];
  for (let i = 0; i < 6; i++) {
    const id = await quizAt(page);
    await page.click('#quiz-reveal');
    if (await page.locator('#quiz-cannot-solve').count()) {
      stuck.push(id);
      assert.match(await page.textContent('#quiz-feedback'), /q\[猫\] 第 0 维.*这道题用页面上此刻的数字来算/s);
    }
    assert.ok(await page.locator('#quiz-next').isVisible(), `${id}: the learner can go on`);
    await page.click('#quiz-next');
    assert.notEqual(await quizAt(page), id, 'the next question is another');
  }
  assert.ok(stuck.length > 0, 'some question needs §3\'s numbers');
  assert.deepEqual(errors, []);
  await context.close();
});

test('the quiz asks ten questions one at a time, checked by the live core; a miss comes back two questions later (mouse and keyboard)', async () => {
  const { page, errors, context } = await load('?h=4');
  await page.locator('#quiz-section').scrollIntoViewIfNeeded();
  assert.match(await page.textContent('#quiz-counting'), /维和列从 0 数起/);
  assert.equal(await quizAt(page), 'bill');
  // Nothing filled in: a hint, not a verdict, and no answer shown.
  await page.click('#quiz-check');
  assert.deepEqual(await quizFeedback(page), { kind: 'hint', text: '先填上答案（或选一项）再核对。' });
  assert.ok(await page.locator('#quiz-next').isHidden());
  // Keyboard: Enter in the box checks.
  await page.fill('#quiz-answer', '9');
  await page.press('#quiz-answer', 'Enter');
  assert.equal((await quizFeedback(page)).kind, 'right');
  await page.click('#quiz-next');
  assert.equal(await quizAt(page), 'dk');
  await page.fill('#quiz-answer', '12');
  await page.click('#quiz-check');
  assert.equal((await quizFeedback(page)).kind, 'wrong');
  assert.doesNotMatch((await quizFeedback(page)).text, /64/, 'a miss does not give the answer away');
  await page.click('#quiz-next');
  // Dimension 3, counted from 0 as the question says, is head 4's slice at h = 4.
  assert.equal(await quizAt(page), 'split');
  assert.match(await page.textContent('#quiz-prompt'), /第 3 维（从 0 数起/);
  await page.check('#quiz-option-3');
  await page.click('#quiz-check');
  assert.match((await quizFeedback(page)).text, /^对了！.*头 4/);
  await page.keyboard.press('Tab');
  await page.click('#quiz-next');
  assert.equal(await quizAt(page), 'predict');
  await page.click('#quiz-reveal');
  const revealed = await quizFeedback(page);
  const row = rowText(await weightsOf(page, 3), 0).join(', ');
  assert.equal(revealed.kind, 'revealed');
  assert.ok(revealed.text.includes(`[${row}]`), `${revealed.text} shows the core's row ${row}`);
  await page.click('#quiz-next');
  // The missed question, after two others.
  assert.equal(await quizAt(page), 'dk');
  assert.ok(await page.locator('.quiz-returning').isVisible());
  await page.fill('#quiz-answer', '64');
  await page.click('#quiz-check');
  assert.equal((await quizFeedback(page)).kind, 'right');
  await page.click('#quiz-next');
  const answers = { mask: '1', scale: 2, concat: '4', wo: 0, ablation: [0], train: 1, predict: null };
  for (let i = 0; i < 7 && (await quizAt(page)); i++) {
    const id = await quizAt(page);
    const answer = answers[id];
    if (typeof answer === 'string') await page.fill('#quiz-answer', answer);
    else if (Array.isArray(answer)) for (const option of answer) await page.check(`#quiz-option-${option}`);
    else if (answer === null) {
      for (const [col, w] of rowText(await weightsOf(page, 3), 0).entries()) await page.fill(`#quiz-answer-${col}`, w);
    } else {
      // Keyboard: Space picks the focused option.
      await page.focus(`#quiz-option-${answer}`);
      await page.keyboard.press('Space');
    }
    await page.click('#quiz-check');
    assert.equal((await quizFeedback(page)).kind, 'right', `${id}: ${(await quizFeedback(page)).text}`);
    await page.click('#quiz-next');
  }
  assert.match(await page.textContent('#quiz-card'), /全部完成！10 道题里有 8 道第一次就答对。/);
  assert.match(await page.textContent('#quiz-progress'), /已完成 10 \/ 10 题/);
  await page.click('#quiz-restart');
  assert.equal(await quizAt(page), 'bill');
  assert.deepEqual(errors, []);
  await context.close();
});


test('§9 on a phone, in English: the ablation table scrolls inside its box, from the keyboard too, and the page does not', async () => {
  const { page, errors, context } = await openPage(env.browser, `${env.baseUrl}?lang=en`, { baseUrl: env.baseUrl, probe: true, viewport: { width: 375, height: 740 } });
  await lessonDrawn(page);
  await page.locator('.mha-train').scrollIntoViewIfNeeded();
  await page.waitForSelector('.mha-train[data-state="ready"]', { timeout: HANG_MS });
  await page.click('.mha-train button.train-start');
  await page.waitForFunction(() => Number(document.querySelector('.mha-train').dataset.steps) >= 100, null, { timeout: HANG_MS });
  await page.click('.mha-train button.train-start');
  await page.waitForSelector('.mha-train .train-ablation tr.head-off', { timeout: HANG_MS });
  const box = await page.$eval('.mha-train .train-ablation', (node) => {
    const section = node.closest('section').getBoundingClientRect();
    const own = node.getBoundingClientRect();
    node.scrollLeft = node.scrollWidth;
    const last = node.querySelector('thead th:last-child').getBoundingClientRect();
    return { inside: own.right <= section.right, lastShown: last.right <= own.right + 1, tabindex: node.getAttribute('tabindex'), label: node.getAttribute('aria-label') };
  });
  assert.deepEqual(box, { inside: true, lastShown: true, tabindex: '0', label: 'Ablation: switch one head off, see the loss change' });
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'the page does not scroll sideways');
  assert.deepEqual(errors, []);
  await context.close();
});

test('the line view on a phone, in English: a tap keeps a head, a second tap shows them all', async () => {
  const phone = await load('?vs=big&lang=en', { viewport: { width: 375, height: 800 } });
  await phone.page.locator('#views-head-pick').scrollIntoViewIfNeeded();
  await phone.page.waitForSelector('#lines-figure svg line', { state: 'attached' });
  await phone.page.tap('#views-head-pick button[data-head="1"]');
  await settle(phone.page);
  assert.deepEqual(await headsDrawn(phone.page), [1]);
  await phone.page.tap('#views-head-pick button[data-head="1"]');
  await settle(phone.page);
  assert.equal((await headsDrawn(phone.page)).length, 8);
  assert.match(await phone.page.textContent('#views-head-pick legend'), /One head/);
  assert.deepEqual(phone.errors, []);
  await phone.context.close();
});

test('axe-core finds no serious violations in English with the larger model, on a desktop', async () => {
  const { page, context } = await load('?lang=en&vs=big');
  await assertAxeClean(page);
  await context.close();
});

test('a 150-character word is refused in the sentence box, and the views keep inside their card (375 px)', async () => {
  const { page, errors, context } = await load('?vs=big', { viewport: { width: 375, height: 812 } });
  await checkLongWordRefused(page, errors, 375);
  await page.locator('#views-section').screenshot({ path: `${ensureArtifactsDir()}views-long-word-375.png` });
  await context.close();
});
test('64 heads: a compact grid, legible labels, heads 9–16 dashed, at 1280 and 375 px', async () => {
  for (const [query, width, maxHeight] of [['?vs=big&vd=64&vh=64', 1280, 400], ['?vs=big&vd=64&vh=64&lang=en', 375, 600]]) {
    const { page, errors, context } = await load(query, { viewport: { width, height: 900 } });
    await page.locator('#views-section').scrollIntoViewIfNeeded();
    await page.waitForSelector('#grid-figure svg g.tile');
    await settle(page);
    assert.equal(await page.locator('#grid-figure svg g.tile').count(), 16);
    const grid = await page.locator('#grid-figure svg.mha-grid').boundingBox();
    assert.ok(grid.height <= maxHeight && grid.x + grid.width <= width, `grid ${Math.round(grid.width)}×${Math.round(grid.height)} at ${width} px`);
    assert.notEqual(await page.$eval('#grid-figure g.tile[data-head="7"] text', (t) => t.getAttribute('fill').toLowerCase()), '#f0e442');
    assert.equal(await page.$eval('#lines-figure line[data-head="8"]', (l) => l.getAttribute('stroke-dasharray')), '5 3');
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= width);
    if (width === 375) await page.locator('#views-section').screenshot({ path: `${ensureArtifactsDir()}views-64-heads-375.png` });
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test('on a phone a vertical swipe over the q/k/v and Wᴼ numbers scrolls the page and edits nothing; a sideways drag edits', async () => {
  const { page, errors, context } = await load('', { viewport: { width: 375, height: 700 }, mobile: true });
  /** Scrolls `selector` to 450 px from the top of the screen, so a swipe up has room; returns its centre. */
  const placeForSwipe = async (selector) => {
    const top = await page.$eval(selector, (el) => el.getBoundingClientRect().top);
    await page.evaluate((by) => window.scrollBy(0, by), top - 450);
    await scrollSettled(page);
    const box = await page.locator(selector).boundingBox();
    return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  };
  /** A 250 px swipe up that starts on `selector` (it took a cell from 1 to 3 before): it only scrolls. */
  const swipeUpScrollsOnly = async (selector, value, address = '') => {
    const start = await placeForSwipe(selector);
    const scrolled = await page.evaluate(() => window.scrollY);
    await touchDrag(page, start, { dy: -250 });
    assert.ok(await scrollSettled(page) > scrolled + 200, `${selector}: the swipe scrolls the page`);
    await page.waitForTimeout(300); // longer than the page waits before it writes the address
    assert.equal(await value(), '1', `${selector}: the swipe edits nothing`);
    assert.equal(await page.evaluate(() => location.search), address, `${selector}: the address stays as it was`);
  };
  const q00 = '.drag-number[data-matrix="q"][data-row="0"][data-col="0"]';
  for (const selector of [q00, '.drag-number[data-matrix="k"][data-row="2"][data-col="1"]', '.drag-number[data-matrix="wo"][data-row="0"][data-col="0"]']) {
    await swipeUpScrollsOnly(selector, () => page.textContent(selector));
  }
  assert.equal(await page.isVisible('#entry-range'), false, 'a swipe is no tap: nothing got selected');

  // A sideways drag edits: 80 px right is ten steps of 0.1, and the address follows.
  await touchDrag(page, await placeForSwipe(q00), { dx: 80 });
  assert.equal(await page.textContent(q00), '2');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('q')?.startsWith('2,1,0,0'));

  // Tap-then-slider: the entry's slider also lets a swipe scroll past it, and follows a sideways drag.
  await page.tap('.drag-number[data-matrix="v"][data-row="0"][data-col="0"]');
  const address = await page.evaluate(() => location.search);
  await swipeUpScrollsOnly('#entry-range', () => page.inputValue('#entry-range'), address);
  assert.equal(await page.textContent('.drag-number[data-matrix="v"][data-row="0"][data-col="0"]'), '1');
  await touchDrag(page, await placeForSwipe('#entry-range'), { dx: 60 });
  assert.notEqual(await page.inputValue('#entry-range'), '1', 'a sideways drag on the slider edits');
  assert.equal(await page.textContent('.drag-number[data-matrix="v"][data-row="0"][data-col="0"]'), await page.inputValue('#entry-range'));
  assert.deepEqual(errors, []);
  await context.close();
});

test('a link to a huge model (d_model 1024, 1024 heads, 32 words) never blocks the page over 200 ms, and says what it draws', async (t) => {
  const ordinary = await openPage(env.browser, `${env.baseUrl}?vs=big`, { baseUrl: env.baseUrl, probe: true });
  await lessonDrawn(ordinary.page);
  await ordinary.page.locator('#views-section').scrollIntoViewIfNeeded();
  await ordinary.page.waitForSelector('#grid-figure svg g.tile');
  await settle(ordinary.page);
  const bound = taskBound(await longestTask(ordinary.page));
  await ordinary.context.close();
  const words = Array.from({ length: 32 }, (_, i) => `w${i}`).join(' ');
  const { page, errors, context } = await openPage(env.browser, `${env.baseUrl}?vs=big&vd=1024&vh=1024&vt=${encodeURIComponent(words)}`, { baseUrl: env.baseUrl, probe: true });
  await lessonDrawn(page);
  await page.locator('#views-section').scrollIntoViewIfNeeded();
  await page.waitForSelector('#grid-figure svg g.tile', { timeout: HANG_MS });
  await settle(page);
  const longest = await longestTask(page);
  t.diagnostic(`longest task ${longest} ms (bound ${bound} ms)`);
  assert.ok(longest <= bound, `a task blocked the page for ${longest} ms`);
  assert.deepEqual(await page.$$eval('#grid-figure svg g.tile', (tiles) => tiles.map((g) => Number(g.dataset.head))), [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.equal(await page.locator('#views-head-toggles input').count(), 8);
  assert.match(await page.textContent('#views-capped'), /1024 个头，每个头一张 32×32 的配比表.*一次只画 8 个头，现在画的是头 1–8/);
  const nodes = await page.evaluate(() => document.getElementsByTagName('*').length);
  assert.ok(nodes < 40000, `${nodes} elements on the page`);
  await page.click('#views-heads-next');
  await settle(page);
  assert.deepEqual(await page.$$eval('#grid-figure svg g.tile', (tiles) => tiles.map((g) => Number(g.dataset.head))), [8, 9, 10, 11, 12, 13, 14, 15]);
  assert.match(await page.textContent('#views-capped'), /头 9–16/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('choosing d_model 1024 with the controls never blocks the page over 200 ms', async (t) => {
  const { page, errors, context } = await openPage(env.browser, `${env.baseUrl}?vs=big`, { baseUrl: env.baseUrl, probe: true });
  await lessonDrawn(page);
  await page.locator('#views-dmodel').scrollIntoViewIfNeeded();
  await page.waitForSelector('#grid-figure svg g.tile');
  const cellsOf = (tiles) => tiles.map((tile) => [...tile.querySelectorAll('path')].map((band) => `${band.getAttribute('fill')} ${band.getAttribute('d')}`).join()).join();
  const before = await page.$$eval('#grid-figure svg g.tile', cellsOf);
  await page.evaluate(`window.cellsOf = ${cellsOf}`);
  await settle(page);
  const bound = taskBound(await longestTask(page)); // loading the page, with the views at their default size
  await page.evaluate(() => (window.longTasks = []));
  await page.fill('#views-dmodel', '1024');
  // Done, and with new cells: a first computation over 50 ms defers the redraw, and until then the old grid shows.
  await page.waitForFunction((old) => !document.querySelector('#views-drawing') && !document.querySelector('#views-section').classList.contains('stale')
    && window.cellsOf([...document.querySelectorAll('#grid-figure svg g.tile')]) !== old, before, { timeout: HANG_MS });
  await settle(page);
  const longest = await longestTask(page);
  t.diagnostic(`longest task ${longest} ms (bound ${bound} ms)`);
  assert.ok(longest <= bound, `a task blocked the page for ${longest} ms`);
  assert.equal(await page.locator('#grid-figure svg g.tile').count(), 8);
  assert.notEqual(await page.$$eval('#grid-figure svg g.tile', cellsOf), before);
  assert.deepEqual(errors, []);
  await context.close();
});
test('words from a link keep to the 12-character limit of the name box, so the figures keep their size', async () => {
  const { page, context } = await load(`?t=${encodeURIComponent(`${'x'.repeat(150)},吃,${'鱼'.repeat(40)}`)}`);
  assert.equal(await page.inputValue('input.token-name >> nth=0'), 'x'.repeat(12));
  assert.equal(await page.inputValue('input.token-name >> nth=2'), '鱼'.repeat(12));
  const labels = await page.$$eval('#head-0-weights svg text', (texts) => texts.map((text) => text.textContent));
  assert.ok(labels.includes('x'.repeat(12)) && labels.includes('鱼'.repeat(12)), labels.join(' '));
  assert.ok(labels.every((label) => [...label].length <= 12));
  for (const id of ['#head-0-weights', '#concat-figure', '#head-0-output']) {
    const width = Number(await page.getAttribute(`${id} svg`, 'width'));
    assert.ok(width < 480, `${id} is ${width} px wide`);
  }
  await context.close();
});

test('a link with values out of range is refused with a message naming the entry, and every number fits its cell', async () => {
  const { page, errors, context } = await openPage(env.browser, `${env.baseUrl}?q=1e20,1,0,0;0,2,0,2;0,0,1,1&wo=1,0,0,0;0,1,0,0;0,0,1,0;0,0,0,-1e308&bd=1e20`, { baseUrl: env.baseUrl, probe: true });
  await lessonDrawn(page);
  const error = page.locator('#hand .hand-status .error');
  assert.equal(await error.getAttribute('data-code'), 'OUT_OF_RANGE');
  assert.equal(await error.textContent(), 'q[猫] 第 0 维是 1.00e20，只能在 −3 到 3 之间。');
  const cells = { q: '.drag-number[data-matrix="q"][data-row="0"][data-col="0"]', wo: '.drag-number[data-matrix="wo"][data-row="3"][data-col="3"]' };
  assert.equal(await page.textContent(cells.q), '1e20');
  assert.equal(await page.textContent(cells.wo), '-1e308');
  const widths = await page.$$eval('.drag-number', (all) => all.map((cell) => cell.getBoundingClientRect().width));
  assert.ok(Math.max(...widths) <= 60, `the widest number cell is ${Math.max(...widths)} px`);
  assert.equal(await page.locator('#bill .error').getAttribute('data-code'), 'TOO_LARGE');
  assert.equal(await page.textContent('#bill .error'), 'd_model = 1.00e20 太大了，这里最多 65536。');
  // Fixing the entry brings every figure back.
  await page.click(cells.q);
  await page.fill('#entry-number', '1');
  await settle(page);
  assert.equal(await error.getAttribute('data-code'), 'OUT_OF_RANGE', 'Wᴼ is still out of range');
  assert.equal(await error.textContent(), 'Wᴼ[3][3] 是 −1.00e308，只能在 −2 到 2 之间。');
  await page.click(cells.wo);
  await page.fill('#entry-number', '1');
  await settle(page);
  assert.equal(await page.locator('#hand .hand-status .error').count(), 0);
  assert.deepEqual(rowText(await weightsOf(page, 0), 0), ['0.25', '0.25', '0.50']);
  assert.deepEqual(errors, []);
  await context.close();
});

test('head cards first drawn after a refused link still catch up after an edit made while they were off screen', async () => {
  const { page, errors, context } = await openPage(env.browser, `${env.baseUrl}?q=9,1,0,0;0,2,0,2;0,0,1,1`, { baseUrl: env.baseUrl });
  await lessonDrawn(page);
  assert.equal(await page.locator('#hand .head-card').count(), 0, 'a refused link draws no head');
  await page.click('.drag-number[data-matrix="q"][data-row="0"][data-col="0"]');
  await page.fill('#entry-number', '1');
  await settle(page);
  // An edit while the cards are below the screen leaves them pending; they must catch up when scrolled to.
  await page.click('.drag-number[data-matrix="k"][data-row="0"][data-col="0"]');
  await page.fill('#entry-number', '0.5');
  await settle(page);
  const weights = await weightsOf(page, 0);
  assert.ok(weights.length === 9 && weights.every((cell) => Number.isFinite(cell.value)));
  assert.equal(await page.locator('#hand .head-card[data-pending]').count(), 0);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a link with words where numbers go opens the page, and each section refuses its own number', async () => {
  const { page, errors, context } = await openPage(env.browser, `${env.baseUrl}?bd=NaN&bh=abc&seed1=x`, { baseUrl: env.baseUrl, probe: true });
  await lessonDrawn(page);
  assert.equal(await page.getAttribute('html', 'data-lesson'), 'drawn');
  assert.match(await page.textContent('#bill .error'), /./, 'the bill refuses its d_model inline');
  await page.locator('#share-section').scrollIntoViewIfNeeded();
  await settle(page);
  assert.equal(await page.textContent('#share-left-out'), '', 'nothing is said to be left out of the link');
  assert.deepEqual(errors, []);
  await context.close();
});

test('every error on the Chinese page reads in Chinese, a sentence alone: its code only in data-code', async () => {
  const words = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
  const links = [
    `?q=NaN,1,0,0;0,2,0,2;0,0,1,1&bh=7&seed1=-1&vs=big&vh=7`,
    `?bd=0&seed2=1e20&vs=big&vd=100000`,
    `?vs=big&vw=1e30`,
    `?vs=big&vt=${encodeURIComponent(words)}`,
    `?vs=big&vseed=-3`,
  ];
  const seen = new Set();
  for (const link of links) {
    const { page, errors, context } = await openPage(env.browser, env.baseUrl + link, { baseUrl: env.baseUrl, probe: true });
    await lessonDrawn(page);
    await page.locator('#views-section').scrollIntoViewIfNeeded();
    await settle(page);
    const shown = await page.$$eval('.error', (boxes) => boxes.map((box) => ({ code: box.dataset.code, text: box.innerText })));
    for (const { code, text } of shown) {
      seen.add(code);
      assert.ok(!text.includes(code), `a learner sees no code: ${text}`);
      assert.match(text, /[\u4e00-\u9fff]/, text);
      assert.doesNotMatch(text, /[A-Za-z]{2,}[ ,]+[A-Za-z]{2,}/, `no English phrase in ${text}`);
    }
    assert.deepEqual(errors, []);
    await context.close();
  }
  assert.deepEqual([...seen].sort(), ['BAD_ARGUMENT', 'BAD_SIZE', 'HEADS_NOT_DIVISOR', 'NOT_FINITE', 'OUT_OF_RANGE', 'SEQ_TOO_LONG', 'TOO_LARGE']);

  // A core that cannot load says so in Chinese too, not with the browser's English message.
  const context = await env.browser.newContext();
  await context.route('**/*.wasm', (route) => route.abort());
  const page = await context.newPage();
  await page.goto(env.baseUrl);
  await page.waitForSelector('html[data-lesson]', { timeout: HANG_MS });
  assert.equal(await page.getAttribute('html', 'data-lesson'), 'failed', 'the page says it failed');
  const failed = page.locator('.error');
  assert.equal(await failed.getAttribute('data-code'), 'LOAD_FAILED');
  assert.equal(await failed.textContent(), '注意力内核加载失败。请刷新页面再试；如果还不行，这个浏览器可能不支持 WebAssembly。');
  await context.close();
});
