// The lesson page's first view in Chromium: §5's formula fits a phone's width (it wraps, nothing is cut off);
// §9 and §10 start as their frames and headings, and their code comes after the first figure: once the page
// is idle, or sooner when they are scrolled near. tests/first-view.test.js checks the bundles themselves.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBrowserAndServer, openPage, lessonDrawn, HANG_MS } from './browser.js';

let env;
before(async () => {
  env = await startBrowserAndServer();
});
after(async () => {
  await env?.close();
});

const FIGURE = '#head-0-weights svg g.cell';

/** Runs in the page before its scripts: notes what §9 and §10 show when §3's first figure appears. */
function watchFirstFigure() {
  const observer = new MutationObserver(() => {
    if (!document.querySelector('#head-0-weights svg g.cell')) return;
    observer.disconnect();
    window.atFirstFigure = {
      time: performance.now(),
      headings: ['#train-section h2', '#poems-section h2', '#gqa-section h2'].map((selector) => document.querySelector(selector)?.textContent ?? null),
      built: ['#train-section .mha-train', '#poem-source', '#gqa-example'].filter((selector) => document.querySelector(selector)),
    };
  });
  observer.observe(document, { childList: true, subtree: true });
}

/** When each chunk the page fetched with import() started, in the page's clock. */
const sectionChunks = (page) => page.evaluate(() => performance.getEntriesByType('resource')
  .filter(({ name }) => /\/dist\/page-section-[\w-]+\.js$/.test(name)).map(({ name, startTime }) => ({ name, startTime })));

for (const lang of ['zh', 'en']) {
  test(`§5's formula fits a 375 px phone (${lang}): it wraps, nothing is cut off and nothing scrolls sideways`, async () => {
    const { page, context, errors } = await openPage(env.browser, `${env.baseUrl}?lang=${lang}`, { baseUrl: env.baseUrl, viewport: { width: 375, height: 800 } });
    await lessonDrawn(page);
    await page.locator('#formula-section .formula').scrollIntoViewIfNeeded();
    const fit = await page.$eval('#formula-section .formula', (formula) => {
      const box = formula.getBoundingClientRect();
      const rights = [...formula.querySelectorAll('.katex-html *')].map((node) => node.getBoundingClientRect().right);
      const lines = [...formula.querySelectorAll('.katex-base')].map((base) => base.getBoundingClientRect().top);
      return { scrollWidth: formula.scrollWidth, clientWidth: formula.clientWidth, right: box.right, drawnRight: Math.max(...rights), viewport: innerWidth, rows: new Set(lines.map(Math.round)).size };
    });
    assert.ok(fit.scrollWidth <= fit.clientWidth, `the formula's box scrolls: ${fit.scrollWidth} px in ${fit.clientWidth} px`);
    assert.ok(fit.drawnRight <= fit.right + 0.5 && fit.right <= fit.viewport, `drawn to ${fit.drawnRight} px, the box ends at ${fit.right} px, the screen at ${fit.viewport} px`);
    assert.ok(fit.rows > 2, `the two equations wrap onto more than two lines (${fit.rows})`);
    assert.ok(await page.locator('#formula-section .formula .sym-wo').count() > 0, 'its symbols are there to point at');
    assert.deepEqual(errors, []);
    await context.close();
  });
}

test('§9, §10 and §13 are their headings at first; their code comes after the first figure, and they are built once the page says it is drawn', async () => {
  const { page, context, errors } = await openPage(env.browser, env.baseUrl, { baseUrl: env.baseUrl, init: watchFirstFigure });
  await lessonDrawn(page);
  const first = await page.evaluate(() => window.atFirstFigure);
  assert.ok(first.headings.every((heading) => heading?.length > 0), `headings at the first figure: ${first.headings}`);
  assert.deepEqual(first.built, [], 'none of them is built yet');
  const chunks = await sectionChunks(page);
  assert.equal(chunks.length, 3, 'a chunk each for §9, §10 and §13');
  for (const { name, startTime } of chunks) assert.ok(startTime > first.time, `${name} was fetched at ${startTime} ms, before the first figure at ${first.time} ms`);
  // data-lesson="drawn" waits for them: what a test or a printout finds next is built.
  assert.ok(await page.$('#train-section .mha-train') && await page.$('#poem-source') && await page.$('#gqa-example'), 'all three built');
  assert.equal(await page.$('.poem-tile'), null, 'the poetry model itself still waits for its section');
  assert.deepEqual(errors, []);
  await context.close();
});

test('scrolled near before the page is idle, §9 and §10 come in at once', async () => {
  // A browser never idle: only coming near fetches them.
  const { page, context, errors } = await openPage(env.browser, env.baseUrl, { baseUrl: env.baseUrl, init: () => (window.requestIdleCallback = () => 0) });
  await page.waitForSelector(FIGURE, { timeout: HANG_MS });
  assert.equal(await page.$('#train-section .mha-train'), null, 'not built while far away');
  assert.equal(await page.getAttribute('html', 'data-lesson'), null, 'nor is the page said to be drawn');
  assert.deepEqual(await sectionChunks(page), []);
  await page.locator('#train-section').scrollIntoViewIfNeeded();
  await page.waitForSelector('#train-section .mha-train', { timeout: HANG_MS });
  await page.waitForSelector('#poem-source', { timeout: HANG_MS });
  await lessonDrawn(page);
  assert.deepEqual(errors, []);
  await context.close();
});
