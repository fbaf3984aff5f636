// Presentation mode, for a teacher at a projector, in Chromium: P (when no box has the focus) or ?present=1
// puts html.presenting on, which hides the long prose and draws the figures larger; P again takes it off,
// and the address says which. Anything but present=1 in a link leaves the page as it is (tests/page.test.js
// reads many such links in Node). axe-core finds nothing serious in it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBrowserAndServer, openPage, lessonDrawn, seriousAxeViolations, ensureArtifactsDir } from './browser.js';

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
const addressHasPresent = (page, on) => page.waitForFunction((wanted) => (new URLSearchParams(location.search).get('present') === '1') === wanted, on);

/** What presentation mode changes: which prose shows, and how wide the figures are drawn. */
const looks = (page) => page.evaluate(() => {
  const showing = (node) => node.getClientRects().length > 0;
  const count = (selector) => [...document.querySelectorAll(selector)].filter(showing).length;
  const width = (selector) => document.querySelector(selector).getBoundingClientRect().width;
  return {
    intro: count('.intro'),
    leads: count('.lesson-section > h2 + p'),
    notes: count('.note'),
    hint: count('#present-hint'),
    headings: count('.lesson-section > h2'),
    pipeline: width('#pipeline svg'),
    heatmap: width('#head-0-weights svg'),
    lines: width('#lines-figure svg'),
  };
});

/** axe-core on the page as it stands finds no serious or critical violations. */
async function assertAxeClean(page) {
  const violations = await seriousAxeViolations(page);
  assert.deepEqual(violations.map((v) => `${v.id}: ${v.nodes.length} × ${v.nodes[0]?.target}`), []);
}

test('P switches presentation mode on and off at 1280 px: the prose goes, the figures grow, the address follows; typed into a box, P is a letter', async () => {
  const { page, errors, context } = await load('');
  try {
    assert.equal(await presenting(page), false);
    const normal = await looks(page);
    assert.ok(normal.intro >= 1 && normal.leads >= 8 && normal.notes >= 1, JSON.stringify(normal));
    assert.ok(normal.hint === 1, 'the footer says how to switch it on');

    await page.keyboard.press('p');
    assert.equal(await presenting(page), true);
    await addressHasPresent(page, true);
    const shown = await looks(page);
    assert.deepEqual([shown.intro, shown.leads, shown.notes], [0, 0, 0], 'the intro, the leads and the notes are hidden');
    assert.equal(shown.headings, normal.headings, 'every section keeps its heading');
    assert.equal(shown.hint, 1, 'and the footer still says how to leave');
    for (const figure of ['pipeline', 'heatmap', 'lines']) assert.ok(shown[figure] >= 1.1 * normal[figure], `${figure}: ${normal[figure]} → ${shown[figure]} px`);
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= 1280, 'nothing runs off the side');
    assert.match(await page.$eval('.entry-editor', (box) => box.innerText), /./, 'the entry editor keeps its hint, not an empty grey box');
    await page.screenshot({ path: `${ensureArtifactsDir()}presentation-1280.png` });
    await assertAxeClean(page);

    await page.keyboard.press('Shift+P');
    assert.equal(await presenting(page), false);
    await addressHasPresent(page, false);
    assert.deepEqual(await looks(page), normal, 'off again, the page is as it was');

    // In a text box P is a letter: the word gets it, the mode stays.
    const word = page.locator('.token-name').first();
    await word.focus();
    await page.keyboard.press('End');
    await page.keyboard.press('p');
    assert.equal(await presenting(page), false);
    assert.equal(await word.inputValue(), '猫p');
    // With Alt (or Ctrl, ⌘) the key belongs to the browser.
    await page.focus('#step-forward');
    await page.keyboard.press('Alt+p');
    assert.equal(await presenting(page), false);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('?present=1 opens in presentation mode (English, 375 px), P leaves it; ?present=yes is ignored', async () => {
  const { page, errors, context } = await load('?lang=en&present=1', { viewport: { width: 375, height: 812 } });
  try {
    assert.equal(await presenting(page), true);
    const shown = await looks(page);
    assert.deepEqual([shown.intro, shown.leads, shown.notes], [0, 0, 0]);
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= 375, 'nothing runs off a phone either');
    const cutOff = await page.$$eval('#hand button', (buttons) => buttons.filter((b) => b.getBoundingClientRect().right > innerWidth).length);
    assert.equal(cutOff, 0, "§3's buttons (a word's ✕ among them) stay on the screen");
    await assertAxeClean(page);
    await page.keyboard.press('p');
    assert.equal(await presenting(page), false);
    await addressHasPresent(page, false);
    assert.ok((await looks(page)).leads >= 8);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
  const hostile = await load('?present=yes');
  try {
    assert.equal(await presenting(hostile.page), false);
    assert.ok((await looks(hostile.page)).leads >= 8);
    assert.deepEqual(hostile.errors, []);
  } finally {
    await hostile.context.close();
  }
});
