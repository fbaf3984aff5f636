// Lesson mode, for a teacher at a projector, in Chromium: P (when no box has the focus) or ?present=1 shows
// the lesson one part a screen under a bar with its number and title; the arrow keys, PageDown / PageUp (a
// presenter's clicker), Home and End move, the address says where (?present=1&part=3&screen=2), Escape or P
// leaves. At 1920 × 1080 and 1280 × 720, in Chinese and English, every figure of parts 一 to 六 lies on the
// screen, and at 1920 × 1080 no number in them, nor the closing questions or the symbols' notes, is drawn under
// 24 px, nor a program's code under 18 px. Anything but present=1 in a link leaves
// the page as it is (tests/page.test.js reads many such links in Node). axe-core finds nothing serious in it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBrowserAndServer, openPage, lessonDrawn, drawnNear, seriousAxeViolations, ensureArtifactsDir, HANG_MS } from './browser.js';
import { gpt2File, randomWeights } from './gpt-reference.js';
import { seededRandom } from './seeded.js';

let env;
before(async () => {
  env = await startBrowserAndServer();
});
after(async () => {
  await env?.close();
});

async function load(query, options = {}) {
  const opened = await openPage(env.browser, env.baseUrl + query, { baseUrl: env.baseUrl, ...options });
  await lessonDrawn(opened.page);
  return opened;
}

const presenting = (page) => page.evaluate(() => document.documentElement.classList.contains('presenting'));
/** Waits until the address names this screen (written a moment after each move). */
const addressSays = (page, wanted) => page.waitForFunction((wanted) => {
  const query = new URLSearchParams(location.search);
  return Object.entries(wanted).every(([key, value]) => query.get(key) === value);
}, wanted);

/** Waits until the screen shown is drawn and laid out: nothing on it waits to be drawn, and a frame has passed since. */
async function screenSettled(page) {
  await page.waitForFunction(() => {
    const part = document.querySelector('.lesson-section.current-part');
    return part && ![part, ...part.querySelectorAll('[data-pending]')].some((node) => node.hasAttribute('data-pending') && node.getClientRects().length);
  });
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
}

/** What lesson mode shows: the sections shown, the bar's title and position. */
const shown = (page) => page.evaluate(() => ({
  sections: [...document.querySelectorAll('main > .lesson-section')].filter((node) => node.getClientRects().length).map((node) => node.id),
  title: document.querySelector('#lesson-bar-title')?.textContent,
  position: document.querySelector('#lesson-position')?.textContent,
  bar: document.querySelector('#lesson-bar')?.getClientRects().length > 0,
}));

/** What the long page shows, to compare before and after lesson mode. */
const looks = (page) => page.evaluate(() => {
  const showing = (node) => node.getClientRects().length > 0;
  const count = (selector) => [...document.querySelectorAll(selector)].filter(showing).length;
  return {
    intro: count('.intro'),
    leads: count('.lesson-section > h2 + p'),
    notes: count('.note'),
    hint: count('#present-hint'),
    headings: count('.lesson-section > h2'),
    pipeline: document.querySelector('#pipeline svg').getBoundingClientRect().width,
  };
});

// The figures of a part: drawings, the q/k/v and Wᴼ tables, the bill's results, what a program prints.
const FIGURES = 'svg, table.qkv, .bill-result, pre.console, #gqa-section table';
// Words that carry the lesson, every one held to the numbers' size: the closing questions, the symbols' notes,
// §2's lines from the bill, which dimensions each head of §3 takes and what its figures are, 停一秒, the coda's parts.
const LESSON_TEXT = '#questions dl, #symbol-notes, #split-section .split-live, #hand .head-card h3, #hand .head-card figcaption, #hand .pause-callout, ' +
  '#gqa-section .gqa-part :is(h3, h4, p, label, button, caption, figcaption, th, td, .gqa-query, .gqa-kv)';

/**
 * The shown part's figures that leave the screen (below the bar, inside the window), the numbers in them
 * and the lesson's prose drawn under `least` px: SVG text at its font size times the drawing's scale on the
 * screen, HTML text at its font size times its zoom. A number is a text that parses as one ("0.25",
 * "21,233,664", "-2.00"), or in a program's printout any word that does. `code`: the smallest program text shown.
 */
const measure = (page, least) => measureWith(page, FIGURES, LESSON_TEXT, least);
const measureWith = (page, figures, texts, least) => page.evaluate(({ figures, texts, least }) => {
  const part = document.querySelector('.lesson-section.current-part');
  const barBottom = document.querySelector('#lesson-bar').getBoundingClientRect().bottom;
  const visible = (node) => node.getClientRects().length > 0 && !node.closest('.sr-only, title, desc');
  const outside = [];
  const small = [];
  const NUMBER = /^[-−+]?(\d{1,3}(,\d{3})+|\d+)(\.\d*)?%?$/;
  for (const figure of part.querySelectorAll(figures)) {
    if (!visible(figure) || figure.parentElement.closest(figures)) continue;
    const box = figure.getBoundingClientRect();
    if (box.width < 2) continue;
    if (box.top < barBottom - 1 || box.bottom > innerHeight + 1 || box.left < -1 || box.right > innerWidth + 1) {
      outside.push(`${figure.tagName}.${figure.getAttribute('class') ?? ''} ${box.left.toFixed(0)},${box.top.toFixed(0)} → ${box.right.toFixed(0)},${box.bottom.toFixed(0)}`);
    }
    const walker = document.createTreeWalker(figure, NodeFilter.SHOW_TEXT);
    for (let text = walker.nextNode(); text; text = walker.nextNode()) {
      const element = text.parentElement;
      if (!visible(element)) continue;
      const words = element.closest('pre') ? text.data.split(/[\s[\]()]+/) : [text.data.trim()];
      if (!words.some((word) => NUMBER.test(word))) continue;
      const px = drawnPx(element);
      if (px < least - 0.01) small.push(`"${text.data.trim().slice(0, 20)}" at ${px.toFixed(1)} px`);
    }
  }
  for (const block of part.querySelectorAll(texts)) {
    const walker = document.createTreeWalker(block, NodeFilter.SHOW_TEXT);
    for (let text = walker.nextNode(); text; text = walker.nextNode()) {
      // KaTeX's symbols set their sub- and superscripts smaller, as print does: the words are measured.
      if (!text.data.trim() || !visible(text.parentElement) || text.parentElement.closest('.katex')) continue;
      const px = drawnPx(text.parentElement);
      if (px < least - 0.01) small.push(`"${text.data.trim().slice(0, 20)}" at ${px.toFixed(1)} px`);
    }
  }
  const code = Math.min(...[...part.querySelectorAll('pre.source')].filter(visible).map(drawnPx));
  return { outside, small: [...new Set(small)], code };

  function drawnPx(element) {
    const font = parseFloat(getComputedStyle(element).fontSize);
    return element instanceof SVGElement ? font * element.getScreenCTM().a : font * element.currentCSSZoom;
  }
}, { figures, texts, least });

/** axe-core on the page as it stands finds no serious or critical violations. */
async function assertAxeClean(page) {
  const violations = await seriousAxeViolations(page);
  assert.deepEqual(violations.map((v) => `${v.id}: ${v.nodes.length} × ${v.nodes[0]?.target}`), []);
}

// Parts 一 to 六, a screen at a time, as PageDown walks them from the first.
const SCREENS = [[1, 1], [2, 1], [3, 1], [3, 2], [3, 3], [4, 1], [5, 1], [5, 2], [6, 1], [6, 2], [6, 3]];
const PART_NUMBERS = { zh: ['一', '二', '三', '四', '五', '六'], en: ['1.', '2.', '3.', '4.', '5.', '6.'] };

for (const [width, height] of [[1920, 1080], [1280, 720]]) {
  for (const lang of ['zh', 'en']) {
    test(`lesson mode at ${width} × ${height} (${lang}): parts 一 to 六 a screen each, their figures on the screen${width === 1920 ? ', no number under 24 px' : ''}`, async () => {
      const { page, errors, context } = await load(`?present=1${lang === 'en' ? '&lang=en' : ''}`, { viewport: { width, height } });
      try {
        for (const [i, [part, screen]] of SCREENS.entries()) {
          if (i > 0) await page.keyboard.press('PageDown');
          await addressSays(page, { present: '1', part: part > 1 ? String(part) : null, screen: screen > 1 ? String(screen) : null });
          await screenSettled(page);
          const now = await shown(page);
          assert.equal(now.sections.length, 1, `one part at a time: ${now.sections}`);
          assert.ok(now.title.startsWith(PART_NUMBERS[lang][part - 1]), `the bar names part ${part}: ${now.title}`);
          assert.ok(now.position.startsWith(`${part} / 13`), now.position);
          const { outside, small, code } = await measure(page, width === 1920 ? 24 : 0);
          assert.deepEqual(outside, [], `part ${part}, screen ${screen}: figures off the screen`);
          assert.deepEqual(small, [], `part ${part}, screen ${screen}: numbers under 24 px`);
          // A program's code is read from the back of the room too, at 18 px or more.
          if (width === 1920) assert.ok(code >= 18 - 0.01, `part ${part}, screen ${screen}: the code at ${code} px`);
          if (width === 1920 && lang === 'zh') await page.screenshot({ path: `${ensureArtifactsDir()}lesson-mode-${part}-${screen}.png` });
        }
        assert.deepEqual(errors, []);
      } finally {
        await context.close();
      }
    });
  }
}

test('lesson mode at 1920 × 1080: parts 七 to 十二 and the coda 十三 fit the screen too, §10\'s enlarged head included, the coda at 24 px or more', async () => {
  const { page, errors, context } = await load('?present=1&part=7', { viewport: { width: 1920, height: 1080 } });
  try {
    const seen = [];
    for (;;) {
      await screenSettled(page);
      const { part, screen } = await page.evaluate(() => ({ part: document.querySelector('.current-part').id, screen: document.querySelector('.current-part').dataset.showing }));
      if (part === 'poems-section') {
        // The poetry model comes in after the first draw; its screens with it.
        await page.waitForSelector('#poems-body:not([hidden])', { timeout: HANG_MS });
        if (screen === '2') await page.waitForSelector('#poem-big svg'); // the enlarged head: a figure, measured below
        await screenSettled(page);
      }
      // The coda's module comes when it is near, or once the page is idle.
      if (part === 'gqa-section') await page.waitForSelector('#gqa-change p:not(.pause-title)', { state: 'attached', timeout: HANG_MS });
      seen.push(`${part} ${screen}`);
      const box = await page.$eval('.current-part', (node) => { const { bottom, right } = node.getBoundingClientRect(); return { bottom, right }; });
      assert.ok(box.bottom <= 1080 + 1 && box.right <= 1920 + 1, `${part}, screen ${screen}: ${JSON.stringify(box)}`);
      // The coda is read from the back of the room as parts 一 to 六 are: no number and no text under 24 px.
      const { outside, small } = await measure(page, part === 'gqa-section' ? 24 : 0);
      assert.deepEqual(outside, [], `${part}, screen ${screen}`);
      assert.deepEqual(small, [], `${part}, screen ${screen}: numbers or text under 24 px`);
      if (await page.isDisabled('#lesson-next')) break;
      await page.keyboard.press('PageDown');
    }
    assert.deepEqual(seen, ['views-section 1', 'ablation-section 1', 'train-section 1', 'train-section 2', 'train-section 3', 'train-section 4', 'poems-section 1', 'poems-section 2', 'poems-section 3', 'poems-section 4', 'poems-section 5', 'poems-section 6', 'quiz-section 1', 'share-section 1', 'gqa-section 1', 'gqa-section 2', 'gqa-section 3', 'gqa-section 4', 'gqa-section 5']);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

// §9's numbers and words, measured at 24 px: the loss chart's labels, the heads' captions, the answers, the
// comparison and its sentence, the ablation.
const TRAIN_FIGURES = '#train-section :is(svg, table)';
const TRAIN_TEXT = '#train-section :is(.train-status, .train-params, figcaption, .head-view, .train-compare-caption, .train-compare-says, caption, th, td)';

/** Trains §9's model picked by its radio `label` to the last step, at the fastest speed. */
async function trainToEnd(page, label) {
  await page.click(`#train-section label.h-choice:has-text("${label}")`);
  await page.waitForSelector('#train-section .mha-train[data-state="ready"]', { timeout: HANG_MS });
  await page.click('#train-section .train-start');
  await page.waitForSelector('#train-section .mha-train[data-state="done"]', { timeout: HANG_MS });
}

test('lesson mode at 1920 × 1080, §9 at h = 2, then trained at h = 4 as MHA, GQA and MQA: four screens, every number and word at 24 px, none shrunk', async () => {
  for (const lang of ['zh', 'en']) {
    const { page, errors, context } = await load(`?present=1&part=9${lang === 'en' ? '&lang=en' : ''}`, { viewport: { width: 1920, height: 1080 } });
    try {
      await page.waitForSelector('#train-section .mha-train:not([data-state="loading"])', { timeout: HANG_MS });
      // h = 2, as the page opens: its heads write their weights in the cells, at 24 px too.
      await page.keyboard.press('PageDown');
      await screenSettled(page);
      assert.equal(await page.$eval('.current-part', (node) => `${node.dataset.showing} ${node.style.zoom}`), '2 ');
      assert.deepEqual((await measureWith(page, TRAIN_FIGURES, TRAIN_TEXT, 24)).small, [], `${lang}, h = 2, the heads`);
      await page.keyboard.press('PageUp');
      await page.selectOption('#train-section .train-controls select', '25');
      for (const label of ['h = 4', 'MHA', 'GQA', 'MQA']) {
        if (label === 'h = 4') await page.click('#train-section label.h-choice:has-text("h = 4")');
        else await trainToEnd(page, label);
      }
      await page.waitForSelector('#train-section .train-compare tbody tr:nth-child(3)', { state: 'attached' });
      await page.waitForSelector('#train-section .train-ablation table', { state: 'attached' });
      for (let screen = 1; screen <= 4; screen++) {
        await screenSettled(page);
        const now = await page.$eval('.current-part', (node) => ({ id: node.id, screen: node.dataset.showing, zoom: node.style.zoom, box: node.getBoundingClientRect().toJSON() }));
        assert.deepEqual([now.id, now.screen], ['train-section', String(screen)]);
        await page.screenshot({ path: `${ensureArtifactsDir()}lesson-mode-9-${screen}-${lang}.png` });
        assert.ok(!now.zoom || Number(now.zoom) >= 0.9, `${lang}, screen ${screen}: scaled to ${now.zoom}`);
        assert.ok(now.box.bottom <= 1080 + 1 && now.box.right <= 1920 + 1, `${lang}, screen ${screen}: ${JSON.stringify(now.box)}`);
        const measured = await measureWith(page, TRAIN_FIGURES, TRAIN_TEXT, 24);
        assert.deepEqual(measured.outside, [], `${lang}, screen ${screen}: off the screen`);
        assert.deepEqual(measured.small, [], `${lang}, screen ${screen}: numbers or text under 24 px`);
        // What each screen is for: the loss and the answers, the heads, the comparison, the ablation.
        const seen = await page.evaluate(() => ['.train-loss svg', '.train-predictions table', 'figure.train-head', '.train-compare', '.train-ablation table']
          .filter((selector) => [...document.querySelectorAll(`#train-section ${selector}`)].some((node) => node.getClientRects().length)));
        assert.deepEqual(seen, [['.train-loss svg', '.train-predictions table'], ['figure.train-head'], ['.train-compare'], ['.train-ablation table']][screen - 1]);
        // The comparison uses the width: its table and sentence are not squeezed into the left half.
        if (screen === 3) {
          const width = await page.$eval('#train-section .train-compare-says', (node) => node.getBoundingClientRect().width);
          assert.ok(width >= 900, `the sentence is ${width} px wide`);
        }
        if (screen < 4) await page.keyboard.press('PageDown');
      }
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  }
});

test('P opens lesson mode at the part in view; the keys and buttons move, the address follows, a reload keeps the screen; Escape leaves where it was', async () => {
  const { page, errors, context } = await load('');
  try {
    assert.equal(await presenting(page), false);
    const normal = await looks(page);
    assert.ok(normal.intro >= 1 && normal.leads >= 8 && normal.notes >= 1 && normal.headings === 13, JSON.stringify(normal));
    assert.equal(normal.hint, 1, 'the footer says how to switch it on');
    assert.equal((await shown(page)).bar, false);

    await page.evaluate(() => document.querySelector('#pipeline-section').scrollIntoView());
    await page.keyboard.press('p');
    assert.equal(await presenting(page), true);
    await addressSays(page, { present: '1', part: '4' });
    assert.deepEqual((await shown(page)).sections, ['pipeline-section']);

    // The clicker's keys and the keyboard's, through the screens of a part and across parts.
    const moves = [['PageDown', '5', null], ['ArrowRight', '5', '2'], ['ArrowLeft', '5', null], ['PageUp', '4', null], ['ArrowLeft', '3', '3'], ['End', '13', '5'], ['Home', null, null]];
    for (const [key, part, screen] of moves) {
      await page.keyboard.press(key);
      await addressSays(page, { part, screen });
    }
    assert.equal(await page.isDisabled('#lesson-previous'), true, 'nothing before the first part');
    await page.click('#lesson-next');
    await page.click('#lesson-next');
    await page.click('#lesson-next');
    await addressSays(page, { part: '3', screen: '2' });
    assert.match((await shown(page)).position, /^3 \/ 13 · 2\/3$/);

    // Where an arrow key edits a number, moves a slider or a cursor, it is not a move.
    await page.keyboard.press('ArrowLeft');
    await addressSays(page, { part: '3', screen: null });
    const entry = page.locator('#hand .drag-number').first();
    const before = await entry.textContent();
    await entry.focus();
    await page.keyboard.press('ArrowRight');
    assert.notEqual(await entry.textContent(), before, 'the entry took the arrow');
    await entry.click();
    await page.focus('#entry-range');
    await page.keyboard.press('ArrowLeft');
    await page.focus('.token-name');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('End');
    assert.deepEqual((await shown(page)).sections, ['hand']);

    // Escape leaves, at the part it showed; the long page is as it was.
    await page.evaluate(() => document.activeElement.blur());
    await page.click('#hand-reset');
    await page.evaluate(() => document.activeElement.blur());
    await page.keyboard.press('Escape');
    assert.equal(await presenting(page), false);
    await page.waitForFunction(() => !new URLSearchParams(location.search).has('present') && !new URLSearchParams(location.search).has('part'));
    const handTop = await page.$eval('#hand', (node) => node.getBoundingClientRect().top);
    assert.ok(Math.abs(handTop) < 40, `§3 is where the window is: ${handTop}`);
    await drawnNear(page, '#pipeline'); // drawn again at a screen's sizes as it comes near
    assert.deepEqual(await looks(page), normal, 'off again, the page is as it was');

    // A link (or a reload) opens the same screen.
    await page.goto(`${env.baseUrl}?present=1&part=5&screen=2`);
    await lessonDrawn(page);
    assert.deepEqual((await shown(page)).sections, ['formula-section']);
    assert.match((await shown(page)).position, /^5 \/ 13 · 2\/2$/);
    // A screen past the part's last shows the last, and moves on from there.
    await page.goto(`${env.baseUrl}?present=1&part=7&screen=3`);
    await lessonDrawn(page);
    await page.keyboard.press('PageDown');
    await addressSays(page, { part: '8', screen: null });
    await page.click('#lesson-leave');
    assert.equal(await presenting(page), false);

    // In a text box P is a letter: the word gets it, the mode stays off. With Alt (or Ctrl, ⌘) the key belongs to the browser.
    const word = page.locator('.token-name').first();
    await word.focus();
    await page.keyboard.press('End');
    await page.keyboard.press('p');
    assert.equal(await presenting(page), false);
    assert.equal(await word.inputValue(), '猫p');
    await page.focus('#step-forward');
    await page.keyboard.press('Alt+p');
    assert.equal(await presenting(page), false);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('lesson mode: a clicker still moves after a checkbox, a radio button, a button, a figure, a menu or a slider is used; radios, figures and sliders keep the arrows', async () => {
  const { page, errors, context } = await load('?present=1&part=3', { viewport: { width: 1920, height: 1080 } });
  try {
    const showing = () => page.$eval('.current-part', (node) => `${node.id} ${node.dataset.showing}`);
    const heads = () => page.$eval('#hand input[name="hand-heads"]:checked', (node) => node.value);
    // A radio group keeps the arrows (→ picks the next h), not PageDown / PageUp.
    await page.click('#hand input[name="hand-heads"][value="1"]');
    await page.keyboard.press('ArrowRight');
    assert.equal(await heads(), '2', 'the radio took the arrow');
    assert.equal(await showing(), 'hand 1');
    await page.keyboard.press('PageDown');
    assert.equal(await showing(), 'hand 2', 'PageDown from a radio button moves');
    await page.keyboard.press('PageUp');
    assert.equal(await showing(), 'hand 1');
    // A checkbox takes Space, not the moving keys: → and PageDown move the lesson, the box stays as it is.
    for (const key of ['ArrowRight', 'PageDown']) {
      await page.click('#hand-mask');
      const checked = await page.isChecked('#hand-mask');
      await page.keyboard.press(key);
      assert.equal(await showing(), 'hand 2', `${key} from the checkbox moves`);
      assert.equal(await page.isChecked('#hand-mask'), checked);
      await page.keyboard.press('Home');
      await addressSays(page, { part: null, screen: null });
      await page.goto(`${env.baseUrl}?present=1&part=3`);
      await lessonDrawn(page);
    }
    // So does a button.
    await page.focus('#hand-reset');
    await page.keyboard.press('ArrowRight');
    assert.equal(await showing(), 'hand 2', '→ from a button moves');
    // A figure's cells keep the arrows, Home and End; the clicker's PageDown still moves.
    await screenSettled(page);
    const cell = page.locator('#hand .head-card svg[data-figure] .cell[tabindex="0"]').locator('visible=true').first();
    await cell.focus();
    for (const key of ['ArrowRight', 'End', 'Home', 'ArrowLeft']) {
      await page.keyboard.press(key);
      assert.equal(await showing(), 'hand 2', `a figure's cell keeps ${key}`);
    }
    await page.keyboard.press('PageDown');
    assert.equal(await showing(), 'hand 3', 'PageDown from a figure\'s cell moves');
    // The menus, the poem's box and a slider never keep the clicker's keys: the screen moves, the value stays.
    await page.goto(`${env.baseUrl}?present=1&part=10&screen=5`);
    await lessonDrawn(page);
    const slider = '#poems-body input[type="range"]';
    await page.waitForSelector(slider, { state: 'attached', timeout: HANG_MS });
    for (const [control, screen] of [['#poem-position', '2'], ['#poem-key', '3'], ['#poem-menu', '1'], ['#poems-body textarea', '1'], [slider, '6']]) {
      await page.keyboard.press('Home');
      await page.goto(`${env.baseUrl}?present=1&part=10&screen=${screen}`);
      await lessonDrawn(page);
      await page.waitForSelector(`${control}:visible`, { timeout: HANG_MS });
      const before = await page.inputValue(control);
      await page.focus(control);
      await page.keyboard.press(screen === '6' ? 'PageUp' : 'PageDown');
      await addressSays(page, { part: '10', screen: String(Number(screen) + (screen === '6' ? -1 : 1)) });
      assert.equal(await page.inputValue(control), before, `${control} kept its value`);
    }
    // The slider keeps its arrows.
    await page.keyboard.press('PageDown');
    await addressSays(page, { part: '10', screen: '6' });
    await page.focus(slider);
    const before = await page.inputValue(slider);
    await page.keyboard.press('ArrowRight');
    assert.notEqual(await page.inputValue(slider), before, 'the slider took the arrow');
    assert.equal(await showing(), 'poems-section 6');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('lesson mode, §3\'s third screen: Concat, Wᴼ and the output stand as three columns, each heading over its own figure', async () => {
  const { page, errors, context } = await load('?present=1&part=3&screen=3', { viewport: { width: 1920, height: 1080 } });
  try {
    await screenSettled(page);
    const columns = await page.$$eval('#hand .concat-and-wo > *', (steps) => steps.map((step) => {
      const heading = step.querySelector('h3').getBoundingClientRect();
      const figure = step.querySelector('svg, table').getBoundingClientRect();
      return { heading: [heading.left, heading.top], figure: [figure.left, figure.top, figure.right] };
    }));
    assert.equal(columns.length, 3);
    for (const [i, { heading, figure }] of columns.entries()) {
      assert.ok(heading[1] < figure[1] && figure[1] - heading[1] < 300, `column ${i + 1}: its heading just over its figure`);
      assert.ok(Math.abs(heading[0] - figure[0]) < 20, `column ${i + 1}: heading and figure share a left edge`);
      if (i > 0) assert.ok(figure[0] > columns[i - 1].figure[2], `column ${i + 1} stands right of column ${i}`);
      assert.equal(heading[1], columns[0].heading[1], 'the headings in a row');
      assert.equal(figure[1] - columns[0].figure[1] < 60, true, 'the figures start together');
    }
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('lesson mode, §5: the notes in two columns under the formula; on the pipeline\'s screen the formula stays, pointing at a symbol lights its part', async () => {
  const { page, errors, context } = await load('?present=1&part=5', { viewport: { width: 1920, height: 1080 } });
  try {
    await screenSettled(page);
    const columns = await page.$$eval('#symbol-notes > li', (items) => new Set(items.map((item) => Math.round(item.getBoundingClientRect().left))).size);
    assert.equal(columns, 2, 'the notes stand in two columns');
    await page.keyboard.press('PageDown');
    await screenSettled(page);
    const concat = page.locator('#formula-section .formula .sym-concat').first();
    assert.ok(await concat.isVisible(), 'the formula is on the pipeline\'s screen');
    await concat.hover();
    await page.waitForSelector('#formula-pipeline g.stage.highlighted');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('lesson mode shows the short notes: §3\'s mask note on its first screen, §4\'s caveat whose link shows §9; §4 names its step once', async () => {
  const { page, errors, context } = await load('?present=1&part=3', { viewport: { width: 1920, height: 1080 } });
  try {
    const px = (selector) => page.$eval(selector, (node) => parseFloat(getComputedStyle(node).fontSize) * node.currentCSSZoom);
    await screenSettled(page);
    assert.ok(await page.isVisible('#mask-note-short') && !(await page.isVisible('#mask-note')), 'the short mask note, not the long one');
    assert.ok(await px('#mask-note-short') >= 24, `the mask note at ${await px('#mask-note-short')} px`);
    await page.keyboard.press('PageDown');
    assert.equal(await page.isVisible('#mask-note-short'), false, 'on the first screen only');

    await page.goto(`${env.baseUrl}?present=1&part=4`);
    await lessonDrawn(page);
    await screenSettled(page);
    assert.ok(await page.isVisible('#pipeline-caveat-short'), 'the caveat is on §4\'s screen');
    assert.ok(await px('#pipeline-caveat-short') >= 24, `the caveat at ${await px('#pipeline-caveat-short')} px`);
    const stepLine = () => page.$eval('#pipeline-section', (node) => [...node.querySelectorAll('.player, #step-caption')].map((part) => part.innerText).join(' '));
    assert.equal((await stepLine()).split('总览').length - 1, 1, `the overview named once: ${await stepLine()}`);
    await page.click('#step-forward');
    await page.waitForSelector('#pipeline-section[data-step="1"]');
    assert.equal((await stepLine()).split('第 1').length - 1, 1, `step 1 named once: ${await stepLine()}`);
    // The caveat's link to §9 shows §9's screen, as it scrolls to it on the long page.
    await page.click('#pipeline-caveat-short a');
    await addressSays(page, { present: '1', part: '9' });
    assert.deepEqual((await shown(page)).sections, ['train-section']);
    await page.keyboard.press('Escape');
    assert.equal(await page.isVisible('#pipeline-caveat-short'), false, 'off lesson mode the long caveat stands alone');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('lesson mode at 1280 × 720, §10 in zh and en: the poem menu and the box on the screen; each screen shrunk only as far as it must be', async () => {
  for (const lang of ['zh', 'en']) {
    const { page, errors, context } = await load(`?present=1&part=10${lang === 'en' ? '&lang=en' : ''}`, { viewport: { width: 1280, height: 720 } });
    try {
      await page.waitForSelector('.poem-pick textarea', { timeout: HANG_MS });
      await screenSettled(page);
      const past = await page.evaluate(() => [...document.querySelectorAll('#poems-section .poem-pick *')]
        .filter((node) => node.getBoundingClientRect().width && node.getBoundingClientRect().right > innerWidth + 1)
        .map((node) => `${node.tagName}#${node.id} ${Math.round(node.getBoundingClientRect().right)}`));
      assert.deepEqual(past, [], lang);
      // A part shrunk has more room across and wraps less, so it is less tall than at full size: 0.01 larger, it
      // would no longer fit. (Its first guess, from its size unshrunk, took §10's roles and switches to 0.54 and 0.48.)
      for (let screen = 1; screen <= 6; screen++) {
        if (screen > 1) await page.keyboard.press('PageDown');
        await addressSays(page, { screen: screen > 1 ? String(screen) : null });
        await screenSettled(page);
        const { zoom, fits, fitsLarger } = await page.evaluate(() => {
          const part = document.querySelector('.current-part');
          const room = { height: innerHeight - document.querySelector('#lesson-bar').offsetHeight, width: document.documentElement.clientWidth };
          const fitsAt = (zoom) => {
            part.style.zoom = String(zoom);
            const { height, width } = part.getBoundingClientRect();
            return height <= room.height + 1 && Math.max(width, part.scrollWidth * zoom) <= room.width + 1;
          };
          const zoom = Number(part.style.zoom || 1);
          const fits = fitsAt(zoom), fitsLarger = zoom < 1 && fitsAt(Math.min(1, zoom + 0.01));
          part.style.zoom = zoom === 1 ? '' : String(zoom);
          return { zoom, fits, fitsLarger };
        });
        assert.ok(fits, `${lang}, screen ${screen} at ${zoom} overflows`);
        assert.ok(!fitsLarger, `${lang}, screen ${screen} at ${zoom}: it fits at ${zoom + 0.01}`);
      }
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  }
});

test('lesson mode at 1920 × 1080, §10\'s last screen in zh and en: the poem written to its end beside the cache it read, all on the screen', async () => {
  for (const lang of ['zh', 'en']) {
    const { page, errors, context } = await load(`?present=1&part=10&screen=6${lang === 'en' ? '&lang=en' : ''}`, { viewport: { width: 1920, height: 1080 } });
    try {
      // The page's poem is whole: 续写成一首诗 writes a new one from its first line, a step at a time.
      await page.waitForSelector('#poem-continue', { timeout: HANG_MS });
      await page.click('#poem-continue');
      await page.waitForSelector('#poem-ended', { timeout: HANG_MS });
      await page.waitForSelector('#poem-cache-row svg', { timeout: HANG_MS });
      await screenSettled(page);
      assert.ok(await page.isVisible('#poem-restarted'), `${lang}: the class is told the poem was written again from its first line`);
      // What a note says of what just happened (an outcome) stays on the screen; a standing note gives way.
      const shownNotes = await page.evaluate(() => ['note outcome', 'note'].map((className) => {
        const note = Object.assign(document.createElement('p'), { className, textContent: className });
        document.querySelector('#poem-continuation').append(note);
        const shown = note.getClientRects().length > 0;
        note.remove();
        return shown;
      }));
      assert.deepEqual(shownNotes, [true, false], lang);
      const boxes = await page.evaluate(() => Object.fromEntries(['.current-part', '#poem-continuation', '.poem-cache-part'].map((selector) => {
        const { left, bottom, right } = document.querySelector(selector).getBoundingClientRect();
        return [selector, { left, bottom, right }];
      })));
      assert.ok(boxes['.current-part'].bottom <= 1080 + 1, `${lang}: ${JSON.stringify(boxes)}`);
      assert.ok(boxes['.poem-cache-part'].left >= boxes['#poem-continuation'].right, `${lang}: the cache beside the poem, ${JSON.stringify(boxes)}`);
      // Unshrunk, its words at 24 px but the rules it writes under, a standing note, at 20.
      assert.equal(await page.$eval('.current-part', (node) => node.style.zoom), '', lang);
      assert.deepEqual((await measureWith(page, ':not(*)', `${POEM_TEXT}:not(#poem-form-rules)`, 24)).small, [], `${lang}: text under 24 px`);
      assert.deepEqual((await measureWith(page, ':not(*)', '#poem-form-rules', 20)).small, [], `${lang}: the rules under 20 px`);
      assert.deepEqual((await measure(page, 0)).outside, [], lang);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  }
});

/** The smallest text drawn (px, as measureWith counts it) in the shown part's visible `selector`, and where. */
const smallestText = (page, selector) => page.evaluate((selector) => {
  let least = { px: Infinity, text: '' };
  for (const block of document.querySelectorAll(`.lesson-section.current-part :is(${selector})`)) {
    const walker = document.createTreeWalker(block, NodeFilter.SHOW_TEXT);
    for (let text = walker.nextNode(); text; text = walker.nextNode()) {
      const element = text.parentElement;
      if (!text.data.trim() || !element.getClientRects().length || element.closest('.sr-only, title, desc')) continue;
      const font = parseFloat(getComputedStyle(element).fontSize);
      const px = element instanceof SVGElement ? font * element.getScreenCTM().a : font * element.currentCSSZoom;
      if (px < least.px) least = { px, text: text.data.trim().slice(0, 20) };
    }
  }
  return least;
}, selector);

// §10's GPT-2 in lesson mode: its words and numbers in HTML, held to 24 px; the tiles' labels and the switches, 144
// of each, and the figures' labels are measured apart.
const GPT2_TEXT = '#gpt2-body :is(p, label, h3, th, td, caption, figcaption, legend, button, code, li, select, textarea):not(.poem-tile, .poem-tile *, .gpt2-off-layer, .gpt2-off-layer *)';
const GPT2_SCREENS = [['#gpt2-tokens code', '#gpt2-examples button'], ['#gpt2-tiles .poem-tile'], ['#gpt2-big svg'], ['#gpt2-roles table', '#gpt2-off input', '#gpt2-top-all li'], ['#gpt2-generate', '#gpt2-gen-tokens code', '#gpt2-cache-row svg']];

test('lesson mode at 1920 × 1080, §10 with a GPT-2-shaped file (144 heads) in zh and en: five screens, each on the screen unshrunk', async () => {
  const config = { layers: 12, heads: 12, dModel: 24, context: 80, vocab: 50257 };
  const file = Buffer.from(gpt2File(config, randomWeights(config, seededRandom(21), { spread: 0.5 }), { dtype: 'F16' }));
  for (const lang of ['zh', 'en']) {
    const { page, errors, context } = await load(`?present=1&part=10&screen=4${lang === 'en' ? '&lang=en' : ''}`, { viewport: { width: 1920, height: 1080 } });
    try {
      await page.check('#poem-source-gpt2');
      await page.setInputFiles('#gpt2-drop input[type=file]', { name: 'gpt2-shaped.safetensors', mimeType: 'application/octet-stream', buffer: file });
      await page.waitForFunction(() => document.querySelector('#gpt2-tiles')?.dataset.drawn === '144', null, { timeout: HANG_MS });
      await page.waitForSelector('#gpt2-top-all li', { state: 'attached', timeout: HANG_MS });
      await page.evaluate(() => document.activeElement.blur());
      await page.keyboard.press('PageDown');
      await addressSays(page, { part: '10', screen: '5' });
      await page.fill('#gpt2-count', '12');
      await page.click('#gpt2-generate');
      await page.waitForSelector('#gpt2-cache-row svg', { timeout: HANG_MS });
      await page.waitForSelector('#gpt2-stop:disabled', { timeout: HANG_MS });
      await page.evaluate(() => document.activeElement.blur());
      for (let screen = 4; screen >= 1; screen--) {
        await page.keyboard.press('PageUp');
        await addressSays(page, { part: '10', screen: screen > 1 ? String(screen) : null });
      }
      for (let screen = 1; screen <= 5; screen++) {
        if (screen > 1) await page.keyboard.press('PageDown');
        await addressSays(page, { part: '10', screen: screen > 1 ? String(screen) : null });
        await screenSettled(page);
        const now = await page.$eval('.current-part', (node) => ({ screen: node.dataset.showing, zoom: node.style.zoom, box: node.getBoundingClientRect().toJSON() }));
        await page.screenshot({ path: `${ensureArtifactsDir()}lesson-mode-10-gpt2-${screen}-${lang}.png` });
        assert.equal(now.screen, String(screen));
        assert.equal(now.zoom, '', `${lang}, screen ${screen}: scaled to ${now.zoom}`);
        assert.ok(now.box.bottom <= 1080 + 1 && now.box.right <= 1920 + 1, `${lang}, screen ${screen}: ${JSON.stringify(now.box)}`);
        const visible = await page.evaluate((selectors) => selectors.filter((selector) => [...document.querySelectorAll(selector)].some((node) => node.getClientRects().length)), GPT2_SCREENS.flat());
        assert.deepEqual(visible, GPT2_SCREENS[screen - 1], `${lang}, screen ${screen}: what it shows`);
        assert.deepEqual((await measureWith(page, '#gpt2-part svg', GPT2_TEXT, 0)).outside, [], `${lang}, screen ${screen}: off the screen`);
        // The words and numbers in HTML at 24 px; the figures drawn as large as the screen leaves them (the cache's
        // bars at 18 px, the enlarged head's labels at 14 px for this sentence), the tiles' labels at 17 px and the
        // switches at 20 px, 144 of each.
        assert.deepEqual((await measureWith(page, ':not(*)', GPT2_TEXT, 24)).small, [], `${lang}, screen ${screen}: text under 24 px`);
        for (const [selector, least] of [['#gpt2-part svg', 14], ['#gpt2-cache-row svg', 18], ['.poem-tile', 17], ['.gpt2-off-layer', 20]]) {
          const { px, text } = await smallestText(page, selector);
          assert.ok(px >= least - 0.01, `${lang}, screen ${screen}: "${text}" in ${selector} at ${px} px`);
        }
      }
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  }
});

// §10's poetry model in lesson mode: what each of its screens 2 to 5 shows; words and numbers in HTML at 24 px but the
// roles' notes (20 px); the steps' figures side by side, their numbers at 13.5 px or more (English's row labels are wider).
const POEM_TEXT = '#poems-body :is(p, label, h3, caption, figcaption, legend, button, li, select)';
const POEM_SCREENS = [['#poem-menu', '#poem-tiles canvas'], ['#poem-big svg', '#poem-position'], ['#poem-qk svg', '#poem-step-list', '#poem-sum svg', '#poem-key'],
  ['#poem-roles table'], ['#poem-off input', '#poem-loss-all', '#poem-prediction li']];

test('lesson mode at 1920 × 1080, §10\'s poetry model in zh and en: screens 1 to 5 on the screen unshrunk, their words at 24 px (the tiles\' at 20)', async () => {
  for (const lang of ['zh', 'en']) {
    const { page, errors, context } = await load(`?present=1&part=10&screen=1${lang === 'en' ? '&lang=en' : ''}`, { viewport: { width: 1920, height: 1080 } });
    try {
      await page.waitForSelector('#poem-tiles canvas', { timeout: HANG_MS });
      await page.waitForSelector('#poem-loss-all:not([data-value=""])', { state: 'attached', timeout: HANG_MS });
      for (let screen = 1; screen <= 5; screen++) {
        if (screen > 1) await page.keyboard.press('PageDown');
        await addressSays(page, { part: '10', ...(screen > 1 ? { screen: String(screen) } : {}) });
        if (screen === 4) await page.waitForSelector('#poem-roles table', { timeout: HANG_MS });
        await screenSettled(page);
        const now = await page.$eval('.current-part', (node) => ({ screen: node.dataset.showing, zoom: node.style.zoom, box: node.getBoundingClientRect().toJSON() }));
        await page.screenshot({ path: `${ensureArtifactsDir()}lesson-mode-10-poems-${screen}-${lang}.png` });
        assert.equal(now.screen, String(screen));
        assert.equal(now.zoom, '', `${lang}, screen ${screen}: scaled to ${now.zoom}`);
        assert.ok(now.box.bottom <= 1080 + 1 && now.box.right <= 1920 + 1, `${lang}, screen ${screen}: ${JSON.stringify(now.box)}`);
        const visible = await page.evaluate((selectors) => selectors.filter((selector) => [...document.querySelectorAll(selector)].some((node) => node.getClientRects().length)), POEM_SCREENS.flat());
        assert.deepEqual(visible, POEM_SCREENS[screen - 1], `${lang}, screen ${screen}: what it shows`);
        assert.deepEqual((await measureWith(page, '#poems-part svg', POEM_TEXT, 0)).outside, [], `${lang}, screen ${screen}: off the screen`);
        // The 24 tiles' names and roles at 20 px, to keep the heads as large as the screen allows.
        const [words, tileWords] = screen === 1 ? [`${POEM_TEXT}:not(.poem-tile, .poem-tile *)`, '.poem-tile'] : [POEM_TEXT, null];
        assert.deepEqual((await measureWith(page, ':not(*)', words, 24)).small, [], `${lang}, screen ${screen}: text under 24 px`);
        if (tileWords) assert.deepEqual((await measureWith(page, ':not(*)', tileWords, 20)).small, [], `${lang}: the tiles' text under 20 px`);
        if (screen === 4) {
          // The roles' table: its names and scores at 24 px, the notes under them (what a role is, its chance) at 20.
          const table = await page.evaluate(() => {
            const small = [];
            const walker = document.createTreeWalker(document.querySelector('#poem-roles table'), NodeFilter.SHOW_TEXT);
            for (let text = walker.nextNode(); text; text = walker.nextNode()) {
              const element = text.parentElement;
              if (!text.data.trim() || element.closest('.sr-only')) continue;
              const px = parseFloat(getComputedStyle(element).fontSize) * element.currentCSSZoom;
              if (px < (element.closest('small') ? 20 : 24) - 0.01) small.push(`"${text.data.trim().slice(0, 20)}" at ${px} px`);
            }
            return small;
          });
          assert.deepEqual(table, [], `${lang}: the roles' table`);
        }
        if (screen === 5) {
          const [off, prediction] = await page.$$eval('#poem-off, #poem-prediction', (nodes) => nodes.map((node) => node.getBoundingClientRect().toJSON()));
          assert.ok(off.right <= prediction.left, `${lang}: the switches (to ${off.right}) stop before the prediction (from ${prediction.left})`);
        }
        if (screen === 3) {
          const { px, text } = await smallestText(page, '#poem-steps svg');
          assert.ok(px >= 13.5, `${lang}: "${text}" in the steps' figures at ${px} px`);
        }
      }
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  }
});

test('lesson mode, §10: a guide button shows the screen holding the head it enlarged', async () => {
  const { page, errors, context } = await load('?present=1&part=10', { viewport: { width: 1920, height: 1080 } });
  try {
    await page.waitForSelector('#poem-guided button', { timeout: HANG_MS });
    await page.click('#poem-guided button');
    await addressSays(page, { present: '1', part: '10', screen: '2' });
    await page.waitForSelector('#poem-big svg');
    assert.ok(await page.isVisible('#poem-big'), 'the enlarged head is on the screen');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('?present=1 at 375 px (English): the bar fits a phone, axe-core finds nothing serious; ?present=yes and part=14 are ignored', async () => {
  const { page, errors, context } = await load('?lang=en&present=1&part=3', { viewport: { width: 375, height: 812 } });
  try {
    assert.equal(await presenting(page), true);
    assert.deepEqual((await shown(page)).sections, ['hand']);
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= 375, 'nothing runs off a phone');
    const cutOff = await page.$$eval('#lesson-bar button, #hand button', (buttons) => buttons.filter((b) => b.getClientRects().length && b.getBoundingClientRect().right > innerWidth + 1).length);
    assert.equal(cutOff, 0, 'the bar\'s buttons and §3\'s stay on the screen');
    await assertAxeClean(page);
    await page.keyboard.press('p');
    assert.equal(await presenting(page), false);
    assert.ok((await looks(page)).leads >= 8);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
  for (const query of ['?present=yes&part=3', '?present=1&part=14&screen=9']) {
    const hostile = await load(query);
    try {
      const now = await shown(hostile.page);
      assert.deepEqual(now.sections.length, query.includes('yes') ? 13 : 1, query);
      if (!query.includes('yes')) assert.equal(now.sections[0], 'bill', 'a part past the last opens the first');
      assert.deepEqual(hostile.errors, []);
    } finally {
      await hostile.context.close();
    }
  }
});

test('axe-core finds nothing serious in lesson mode at 1920 × 1080, nor on the page at 1280 and 375 px', async () => {
  for (const [query, viewport] of [['?present=1&part=3&screen=2', { width: 1920, height: 1080 }], ['?present=1&part=4', { width: 1920, height: 1080 }], ['', { width: 1280, height: 900 }], ['', { width: 375, height: 812 }]]) {
    const { page, errors, context } = await load(query, { viewport });
    try {
      await assertAxeClean(page);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  }
});
