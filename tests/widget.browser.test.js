// <multi-head-attention> in real Chromium: the example course page, several widgets on one page,
// hostile tokens and CSS, a strict CSP, bad attributes, re-rendering and the mha-change event.
// Fixture pages are HTML strings served through page routes on the test server's origin.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchChromium, ensureArtifactsDir, seriousAxeViolations, touchDrag, scrollSettled, HANG_MS, watchLongTasks, probeOnClose, longTasksOver, excusedFromProbe } from './browser.js';
import { fileURLToPath } from 'node:url';
import { startServer } from '../web/tools/serve.js';
import { referenceAttention } from './reference.js';
import { DRAWN_TOKEN_CHARS } from '../web/widget/render.js';
import { LABEL_TOKEN_CHARS } from '../web/widget/parse.js';
import { SLICE_ELEMENTS } from '../web/ui/slices.js';

const STRICT_CSP = "script-src 'self' 'wasm-unsafe-eval'";
const LESSON = {
  tokens: '["猫","吃","鱼"]',
  q: '[[1,1,0,0],[0,2,0,2],[0,0,1,1]]',
  k: '[[1,0,1,0],[0,1,0,1],[1,1,0,0]]',
  v: '[[1,0,1,0],[0,1,0,1],[2,0,0,2]]',
};
const lessonFlat = Object.fromEntries(['q', 'k', 'v'].map((name) => [name, JSON.parse(LESSON[name]).flat()]));

let browser;
let plain; // the static server
let strict; // the same files, served with the strict CSP header

before(async () => {
  [plain, strict] = await Promise.all([startServer({ port: 0 }), startServer({ port: 0, headers: { 'Content-Security-Policy': STRICT_CSP } })]);
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await Promise.all([plain, strict].filter(Boolean).map(({ server }) => new Promise((resolve) => server.close(resolve))));
});

/** Attribute text for an element: every value escaped for a single-quoted attribute. */
function attrs(map) {
  return Object.entries(map)
    .map(([name, value]) => (value === true ? name : `${name}='${String(value).replaceAll('&', '&amp;').replaceAll("'", '&#39;')}'`))
    .join(' ');
}

function fixture(body, { head = '' } = {}) {
  return `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<script type="module" src="/dist/widget.js"></script>${head}</head><body>${body}</body></html>`;
}

/**
 * Opens `path` (a file of web/, or a fixture served at /fixture/<name>.html when `html` is given).
 * `files` serves files of this disk at other paths ({ 'a/b.js': { path, contentType } }).
 * Records console errors and warnings, uncaught exceptions, dialogs, CSP violations and any request
 * leaving the server (aborted: a course page must need nothing but its own host). `phone` emulates a
 * phone's browser with touch, 375 px wide.
 */
async function open(path, { html, server = plain, headers = {}, files = {}, viewport = { width: 1100, height: 900 }, phone = false, init } = {}) {
  const context = await browser.newContext(phone ? { viewport: { width: 375, height: 700 }, hasTouch: true, isMobile: true } : { viewport });
  const page = await context.newPage();
  const log = { errors: [], warnings: [], dialogs: [], offsite: [], csp: [] };
  page.on('console', (message) => {
    if (message.type() === 'error') log.errors.push(message.text());
    if (message.type() === 'warning') log.warnings.push(message.text());
    if (/Content Security Policy/i.test(message.text())) log.csp.push(message.text());
  });
  page.on('pageerror', (error) => log.errors.push(String(error)));
  page.on('dialog', (dialog) => {
    log.dialogs.push(dialog.message());
    return dialog.dismiss();
  });
  await context.addInitScript(watchLongTasks);
  probeOnClose(context, page);
  await context.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (event) => {
      window.__violations.push(`${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  for (const script of [init ?? []].flat()) await context.addInitScript(script);
  await context.route((url) => !url.href.startsWith(server.url), (route) => {
    log.offsite.push(route.request().url());
    return route.abort();
  });
  for (const [at, { path: file, contentType }] of Object.entries(files)) {
    await context.route(`${server.url}${at}`, (route) => route.fulfill({ path: file, contentType }));
  }
  if (html !== undefined) {
    await context.route(`${server.url}fixture/${path}`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', headers, body: html }));
  }
  await page.goto(`${server.url}${html !== undefined ? 'fixture/' : ''}${path}`);
  return { page, context, log };
}

/** Waits until every widget on the page shows a result or an inline error. */
function settled(page, selector = 'multi-head-attention') {
  return page.waitForFunction(
    (sel) => [...document.querySelectorAll(sel)].every((el) => el.result || el.shadowRoot?.querySelector('.error')),
    selector,
    { timeout: HANG_MS },
  );
}

/** The long tasks recorded since the last call, in ms (each over 50 ms by the browser's definition). */
const longTasks = (page) => longTasksOver(page, 0);

/** Every character a widget has written into its shadow root, seen or not: text, and every attribute's value. */
const writtenIn = (page, selector) => page.$eval(selector, (el) => [...el.shadowRoot.querySelectorAll('*')]
  .reduce((sum, node) => sum + [...node.attributes].reduce((n, a) => n + a.value.length, 0), el.shadowRoot.textContent.length));

const rounded = (values, digits = 2) => Array.from(values, (x) => Math.round(x * 10 ** digits) / 10 ** digits);

test('the example course page: two widgets, different heads, independent and correct', async () => {
  const { page, context, log } = await open('course-example.html');
  await settled(page); // the first load's wasm request is done before the counting starts
  const wasmFetches = [];
  page.on('request', (request) => request.url().endsWith('.wasm') && wasmFetches.push(request.url()));
  try {
    await page.reload(); // again, now counting the wasm requests
    await settled(page);
    const widgets = await page.$$('multi-head-attention');
    assert.equal(widgets.length, 2);
    const results = await page.$$eval('multi-head-attention', (els) => els.map((el) => ({
      heads: el.heads,
      causal: el.causal,
      attention: el.result.attention.map((a) => Array.from(a)),
      concat: Array.from(el.result.concat),
      output: Array.from(el.result.output),
      cells: [...el.shadowRoot.querySelectorAll('figure.heatmap[data-head="0"] g.cell')].slice(0, 3).map((g) => g.textContent),
    })));
    const [first, second] = results;
    assert.equal(first.heads, 2);
    assert.equal(first.causal, false);
    assert.deepEqual(rounded(first.attention[0].slice(0, 3)), [0.25, 0.25, 0.5], "head 1's 猫 row, mask off");
    assert.deepEqual(rounded(first.attention[1].slice(0, 3)), [0.33, 0.33, 0.33], "head 2's 猫 row");
    assert.deepEqual(rounded(first.concat.slice(0, 4)), [1.26, 0.25, 0.33, 1], "猫's concat");
    assert.deepEqual(first.cells, ['0.25', '0.25', '0.50'], 'the heatmap shows the numbers');

    assert.equal(second.heads, 4);
    assert.equal(second.causal, true);
    const ref = referenceAttention({ ...lessonFlat, d: 4, h: 4, causal: true });
    second.attention.forEach((a, h) => assert.deepEqual(rounded(a, 4), rounded(ref.attention[h], 4), `head ${h + 1} of the second widget`));
    assert.deepEqual(rounded(second.output, 4), rounded(ref.output, 4));
    assert.deepEqual(rounded(second.attention[0].slice(0, 3)), [1, 0, 0], '猫 sees only itself under the mask');

    // Editing the first widget leaves the second untouched.
    const slider = await page.evaluateHandle(() => document.querySelector('multi-head-attention').shadowRoot.querySelector('fieldset[data-matrix="q"] input[type="range"]'));
    await slider.focus();
    for (let i = 0; i < 10; i++) await page.keyboard.press('ArrowLeft');
    const after_ = await page.$$eval('multi-head-attention', (els) => els.map((el) => el.result.attention.map((a) => Array.from(a))));
    assert.notDeepEqual(rounded(after_[0][0]), rounded(first.attention[0]), 'the first widget changed');
    assert.deepEqual(after_[0][1], first.attention[1], 'its head 2 ignores dims 0–1');
    assert.deepEqual(after_[1], second.attention, 'the second widget did not change');
    const refEdited = referenceAttention({ ...lessonFlat, q: [0, 1, 0, 0, ...lessonFlat.q.slice(4)], d: 4, h: 2, causal: false });
    assert.deepEqual(rounded(after_[0][0], 4), rounded(refEdited.attention[0], 4), 'q 猫 dim 0 = 0 recomputed');
    assert.deepEqual(rounded(after_[0][0].slice(0, 3)), [0.2, 0.4, 0.4], "the page's hint: 吃 and 鱼 get 0.40 each");

    // One shared core: on this isolated page the threaded core and the single-threaded one beside it, each fetched
    // once, in their fused multiply-add builds (Chromium has relaxed SIMD).
    assert.deepEqual(wasmFetches.map((url) => url.split('/').pop()).sort(), ['mha-core-fma.wasm', 'mha-core-mt-fma.wasm'], 'one shared core');
    assert.deepEqual(log.errors, []);
    assert.deepEqual(log.warnings, []);
    assert.deepEqual(log.offsite, [], 'nothing is fetched from another host');
  } finally {
    await context.close();
  }
});

test('sliders keep a usable width: 16 dimensions put each value under its slider, and the grid scrolls sideways when it must', async () => {
  const rows = JSON.stringify([0, 1].map((o) => Array.from({ length: 16 }, (_, i) => (i + o) % 2)));
  const html = fixture(`<multi-head-attention editable heads="4" ${attrs({ tokens: '["a-rather-long-token","吃"]', q: rows, k: rows, v: rows })}></multi-head-attention>`);
  for (const width of [1280, 768, 320]) {
    const { page, context, log } = await open('wide-sliders.html', { html, viewport: { width, height: 900 } });
    try {
      await settled(page);
      const grid = await page.$eval('multi-head-attention', (el) => {
        const box = el.shadowRoot.querySelector('fieldset[data-matrix="q"] .grid');
        const widths = (selector) => [...box.querySelectorAll(selector)].map((node) => node.getBoundingClientRect().width);
        return { dense: box.classList.contains('dense'), sliders: Math.min(...widths('input[type="range"]')), tokens: Math.min(...widths('.token')), scrolls: box.scrollWidth > box.clientWidth };
      });
      assert.ok(grid.dense, `${width} px: values under their sliders`);
      assert.ok(grid.sliders >= 36, `${width} px: the narrowest slider is ${grid.sliders} px`);
      assert.ok(grid.tokens >= 12, `${width} px: the token column is ${grid.tokens} px`);
      assert.equal(grid.scrolls, width < 1280, `${width} px: the grid scrolls sideways only when it must`);
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `${width} px: the page does not scroll sideways`);
      assert.deepEqual(log.errors, []);
    } finally {
      await context.close();
    }
  }
});

test('the example course page at desktop and phone width: no overflow (screenshots in tests/artifacts)', async () => {
  const dir = ensureArtifactsDir();
  for (const [name, viewport] of [['desktop', { width: 1280, height: 900 }], ['phone', { width: 375, height: 740 }]]) {
    const { page, context, log } = await open('course-example.html', { viewport });
    try {
      await settled(page);
      const sizes = await page.$$eval('multi-head-attention', (els) => els.map((el) => {
        const box = el.shadowRoot.querySelector('.mha');
        return { host: el.getBoundingClientRect().width, scroll: box.scrollWidth, client: box.clientWidth, height: box.getBoundingClientRect().height };
      }));
      for (const size of sizes) {
        assert.ok(size.scroll <= size.client + 1, `${name}: the widget's content fits its box (${JSON.stringify(size)})`);
        assert.ok(size.host <= viewport.width && size.height > 150, `${name}: ${JSON.stringify(size)}`);
      }
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `${name}: the page does not scroll sideways`);
      await page.screenshot({ path: `${dir}widget-course-${name}.png`, fullPage: true });
      // Turning the phone (or resizing the window) redraws to the new width.
      const mapWidth = () => page.$eval('multi-head-attention', (el) => el.shadowRoot.querySelector('svg.mha-heatmap').getAttribute('width'));
      const was = await mapWidth();
      await page.setViewportSize({ width: name === 'phone' ? 1280 : 340, height: 800 });
      await page.waitForFunction((w) => document.querySelector('multi-head-attention').shadowRoot.querySelector('svg.mha-heatmap').getAttribute('width') !== w, was);
      const fits = await page.$$eval('multi-head-attention', (els) => els.every((el) => {
        const box = el.shadowRoot.querySelector('.mha');
        return box.scrollWidth <= box.clientWidth + 1;
      }));
      assert.ok(fits, `${name}: still fits after resizing`);
      assert.deepEqual(log.errors, []);
    } finally {
      await context.close();
    }
  }
});

test('in a narrow 240 px column every view stays inside its box', async () => {
  const views = ['heatmaps', 'lines', 'pipeline', 'full'];
  const html = fixture(`<div style="width:240px">${views.map((view) => `<multi-head-attention editable ${attrs({ ...LESSON, heads: 4, view })}></multi-head-attention>`).join('')}</div>`);
  const { page, context, log } = await open('narrow.html', { html });
  try {
    await settled(page);
    const sizes = await page.$$eval('multi-head-attention', (els) => els.map((el) => {
      const box = el.shadowRoot.querySelector('.mha');
      return [el.getAttribute('view'), box.scrollWidth, box.clientWidth, el.getBoundingClientRect().width];
    }));
    for (const [view, scroll, client, host] of sizes) {
      assert.ok(scroll <= client + 1, `${view}: ${scroll} > ${client}`);
      assert.ok(host <= 240, `${view}: ${host}`);
    }
    assert.deepEqual(log.errors, []);
  } finally {
    await context.close();
  }
});

test('an HTML-looking token is shown as text and runs nothing', async () => {
  const token = '<img src=x onerror=alert(1)>';
  const closer = '"></multi-head-attention><script>alert(2)</script>';
  const html = fixture(`
    <multi-head-attention id="a" ${attrs({ ...LESSON, tokens: JSON.stringify([token, closer, '鱼']), heads: 2, view: 'full', editable: true })}></multi-head-attention>
    <multi-head-attention id="b" ${attrs({ ...LESSON, heads: '<img src=x onerror=alert(3)>' })}></multi-head-attention>`);
  const { page, context, log } = await open('xss.html', { html });
  try {
    await settled(page);
    await page.waitForTimeout(200); // give any injected handler the chance to fire
    const seen = await page.evaluate(() => {
      const root = document.getElementById('a').shadowRoot;
      return {
        images: document.querySelectorAll('img').length + root.querySelectorAll('img, script').length + document.getElementById('b').shadowRoot.querySelectorAll('img').length,
        svgText: [...root.querySelectorAll('svg text')].map((t) => t.textContent),
        tableText: [...root.querySelectorAll('table th')].map((th) => th.textContent),
        tokens: document.getElementById('a').tokens,
        error: document.getElementById('b').shadowRoot.querySelector('.error').textContent,
        code: document.getElementById('b').shadowRoot.querySelector('.error').dataset.code,
      };
    });
    assert.deepEqual(log.dialogs, [], 'no alert ran');
    assert.equal(seen.images, 0, 'no element was created from a token');
    // Drawn cut short on the figures (DRAWN_TOKEN_CHARS), longer in the tables (LABEL_TOKEN_CHARS): text either way.
    const cut = (text, max) => `${[...text].slice(0, max - 1).join('')}…`;
    assert.ok(seen.svgText.includes(cut(token, DRAWN_TOKEN_CHARS)), 'the token is drawn as text');
    assert.ok(seen.svgText.includes(cut(closer, DRAWN_TOKEN_CHARS)));
    assert.ok(seen.tableText.includes(token) && seen.tableText.includes(cut(closer, LABEL_TOKEN_CHARS)), 'and written in the tables');
    assert.deepEqual(seen.tokens, [token, closer, '鱼']);
    assert.equal(seen.code, 'BAD_HEADS');
    assert.ok(seen.error.includes('<img src=x'), 'the quoted bad value is text too');
    assert.deepEqual(log.errors, []);
  } finally {
    await context.close();
  }
});

test('a token of one letter under 20,000 accents is written clipped, with a notice, and holds the page for no long task', async () => {
  const stacked = `a${'\u0301'.repeat(20000)}`;
  const html = fixture(`
    <multi-head-attention id="stacked" ${attrs({ ...LESSON, tokens: JSON.stringify([stacked, '吃', '鱼']), heads: 2, editable: true })}></multi-head-attention>
    <multi-head-attention id="plain" ${attrs({ ...LESSON, tokens: JSON.stringify(['a', '吃', '鱼']), heads: 2, editable: true })}></multi-head-attention>`);
  const { page, context, log } = await open('accents.html', { html });
  try {
    await settled(page);
    await page.$eval('#stacked', (el) => el.updateComplete);
    // The work bounded first: the widget writes a few hundred characters more than with a one-letter token,
    // where it wrote the token whole into every table header and slider label (83,349 characters in all).
    const extra = (await writtenIn(page, '#stacked')) - (await writtenIn(page, '#plain'));
    assert.ok(extra < 2000, `${extra} characters more than with "a"`);
    // And the time: 2.4–2.6 s tasks before on a 2-core machine (6.3 s in the issue's measure); the bound is
    // generous because the machine is shared, and still far under them.
    const longest = Math.max(0, ...(await longTasks(page)));
    assert.ok(longest < 1000, `longest task ${longest} ms`);
    const seen = await page.$eval('#stacked', (el) => ({
      notice: el.shadowRoot.querySelector('[data-code="TOKEN_CLIPPED"]')?.textContent,
      header: [...el.shadowRoot.querySelectorAll('table th')].map((th) => th.textContent).find((text) => text.startsWith('a')),
      token: el.tokens[0],
    }));
    assert.match(seen.notice, /^第 1 个词太长，显示时截短了/);
    assert.equal(seen.header, `a${'\u0301'.repeat(11)}…`);
    assert.equal(seen.token, stacked, 'the property gives the token as it was given');
    // A short token again: no notice, and the widget works on.
    const after = await page.$eval('#stacked', async (el) => {
      el.tokens = ['猫', '吃', '鱼'];
      await el.updateComplete;
      return { notice: el.shadowRoot.querySelector('[data-code="TOKEN_CLIPPED"]'), maps: el.shadowRoot.querySelectorAll('figure.heatmap').length };
    });
    assert.deepEqual(after, { notice: null, maps: 2 });
    assert.deepEqual(log.errors, []);
  } finally {
    await context.close();
  }
});

test(`served with "${STRICT_CSP}" the course page loads with no policy violations`, async () => {
  const { page, context, log } = await open('course-example.html', { server: strict });
  try {
    await settled(page);
    const ok = await page.$$eval('multi-head-attention', (els) => els.map((el) => Boolean(el.result)));
    assert.deepEqual(ok, [true, true], 'both widgets computed under the policy');
    assert.deepEqual(await page.evaluate(() => window.__violations), []);
    assert.deepEqual(log.csp, []);
    assert.deepEqual(log.errors, []);
  } finally {
    await context.close();
  }
});

test('a stricter policy (style-src self, no inline styles) still gives a styled, working widget, training included', async () => {
  const csp = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'";
  const html = fixture(`<multi-head-attention editable ${attrs({ ...LESSON, heads: 2 })}></multi-head-attention>
    <multi-head-attention id="train" view="train" heads="2"></multi-head-attention>`);
  const { page, context, log } = await open('strict.html', { html, headers: { 'Content-Security-Policy': csp } });
  try {
    await settled(page, 'multi-head-attention[editable]');
    const { result, border } = await page.evaluate(() => {
      const el = document.querySelector('multi-head-attention');
      return { result: Boolean(el.result), border: getComputedStyle(el.shadowRoot.querySelector('.mha')).borderTopStyle };
    });
    assert.equal(result, true);
    assert.equal(border, 'solid', "the widget's stylesheet applies");

    // view="train": train a little, pause for the ablation table, then look at the section's styles.
    const start = '#train >> .train-start';
    await page.waitForSelector(`${start}:not([disabled])`, { timeout: HANG_MS });
    const steps = () => page.$eval('#train', (el) => Number(el.shadowRoot.querySelector('.mha-train').dataset.steps));
    assert.equal(await steps(), 0);
    await page.click(start);
    await page.waitForFunction(() => Number(document.getElementById('train').shadowRoot.querySelector('.mha-train').dataset.steps) >= 100, null, { timeout: 30000 });
    await page.click(start);
    await page.waitForSelector('#train >> .train-ablation tr.head-off', { timeout: 10000 });
    assert.ok(await steps() >= 100, 'training ran');
    const look = await page.$eval('#train', (el) => {
      const root = el.shadowRoot;
      const style = (selector) => getComputedStyle(root.querySelector(selector));
      return {
        controls: style('.train-controls').display,
        choice: `${style('.h-choice').borderTopStyle} ${style('.h-choice').borderTopLeftRadius}`,
        checked: style('.h-choice:has(input:checked)').backgroundColor,
        predictions: style('.train-predictions table').borderCollapse,
        screenReaderTables: [...root.querySelectorAll('.train-head table')].map((table) => `${getComputedStyle(table).position} ${getComputedStyle(table).clip}`),
        swatches: [...root.querySelectorAll('.train-head .swatch')].map((swatch) => getComputedStyle(swatch).backgroundColor),
        bars: [...root.querySelectorAll('.train-ablation .bar')].map((bar) => Math.round(bar.getBoundingClientRect().width)),
      };
    });
    assert.equal(look.controls, 'flex', "the training section's stylesheet applies");
    assert.equal(look.choice, 'solid 8px');
    assert.equal(look.checked, 'rgb(230, 240, 251)', 'the chosen h is highlighted');
    assert.equal(look.predictions, 'collapse');
    assert.deepEqual(look.screenReaderTables, Array(2).fill('absolute rect(0px, 0px, 0px, 0px)'), "the heads' number tables are for screen readers only");
    assert.deepEqual(look.swatches, ['rgb(0, 114, 178)', 'rgb(213, 94, 0)'], "each head's swatch has its colour");
    assert.equal(look.bars.length, 3);
    assert.ok(look.bars.every((width) => width >= 1 && width <= 120) && Math.max(...look.bars) === 120, `ablation bars sized to the loss: ${look.bars}`);
    await page.$eval('#train', (el) => el.scrollIntoView());
    await page.locator('#train').screenshot({ path: `${ensureArtifactsDir()}widget-train-strict-csp.png` });

    assert.deepEqual(await page.evaluate(() => window.__violations), []);
    assert.deepEqual(log.csp, []);
    assert.deepEqual(log.errors, []);
  } finally {
    await context.close();
  }
});

test('without wasm-unsafe-eval the widget says why inline instead of staying blank', async () => {
  const html = fixture(`<multi-head-attention ${attrs({ ...LESSON, heads: 2 })}></multi-head-attention>`);
  const { page, context, log } = await open('nowasm.html', { html, headers: { 'Content-Security-Policy': "script-src 'self'" } });
  try {
    await settled(page);
    const shown = await page.$eval('multi-head-attention', (el) => ({ code: el.shadowRoot.querySelector('.error').dataset.code, text: el.shadowRoot.querySelector('.error').textContent }));
    assert.equal(shown.code, 'LOAD_FAILED');
    assert.ok(!shown.text.includes('LOAD_FAILED'), shown.text);
    assert.ok(log.warnings.some((w) => w.includes('LOAD_FAILED')));
    assert.ok(!log.errors.some((e) => /^Error|Uncaught/.test(e) && !/Content Security Policy|WebAssembly/i.test(e)), log.errors.join('\n'));
  } finally {
    await context.close();
  }
});

test('bad attributes show a short inline error naming the problem, warn, and recover when fixed', async () => {
  const bad = {
    json: { ...LESSON, q: '[[1,1,0,0],[0,2,0,2]', heads: 2 },
    ragged: { ...LESSON, k: '[[1,0,1,0],[0,1,0],[1,1,0,0]]', heads: 2 },
    divisor: { ...LESSON, heads: 3 },
    nan: { ...LESSON, v: '[[1,0,1,0],[0,NaN,0,1],[2,0,0,2]]', heads: 2 },
    count: { ...LESSON, tokens: '["猫","吃"]', heads: 2 },
    view: { ...LESSON, view: 'table', heads: 2 },
    overflow: { ...LESSON, q: '[[1e20,1e20,0,0],[0,2,0,2],[0,0,1,1]]', k: '[[1e20,1e20,1,0],[0,1,0,1],[1,1,0,0]]', heads: 2 },
  };
  const expected = { json: 'BAD_JSON', ragged: 'RAGGED_ROWS', divisor: 'HEADS_NOT_DIVISOR', nan: 'NOT_FINITE', count: 'TOKEN_COUNT', view: 'BAD_VIEW', overflow: 'NOT_FINITE' };
  const html = fixture(Object.entries(bad).map(([id, a]) => `<p>before</p><multi-head-attention id="${id}" ${attrs(a)}></multi-head-attention>`).join('\n'));
  const { page, context, log } = await open('bad.html', { html });
  try {
    await settled(page);
    const shown = await page.$$eval('multi-head-attention', (els) => els.map((el) => {
      const error = el.shadowRoot.querySelector('.error');
      return { id: el.id, code: error?.dataset.code, text: error?.textContent, role: error?.getAttribute('role'), height: error?.getBoundingClientRect().height, result: el.result };
    }));
    for (const { id, code, text, role, height, result } of shown) {
      assert.equal(code, expected[id], id);
      assert.ok(!text.includes(expected[id]), `${id}: the code is in data-code, not shown: ${text}`);
      assert.ok(text.length < 220, `${id}: short (${text})`);
      assert.equal(role, 'alert');
      assert.ok(height > 20, `${id}: visible, not a blank box`);
      assert.equal(result, null);
    }
    assert.match(shown.find((s) => s.id === 'divisor').text, /heads 3 不能整除 d_model 4/);
    assert.match(shown.find((s) => s.id === 'nan').text, /v 第 2 行第 2 列是 NaN/);
    assert.match(shown.find((s) => s.id === 'ragged').text, /k 的行长短不一/);
    // Finite attributes whose q·k overflows float32: the core's error, in the widget's language.
    assert.match(shown.find((s) => s.id === 'overflow').text, /计算打分时溢出了（头 1，第 1 行/);
    assert.doesNotMatch(shown.find((s) => s.id === 'overflow').text, /overflow|float32 \(beyond/);
    for (const code of Object.values(expected)) assert.ok(log.warnings.some((w) => w.includes(code)), `console.warn for ${code}`);
    assert.deepEqual(log.errors, [], 'nothing escaped to the page');

    // Fixing the attribute brings the widget back.
    await page.$eval('#divisor', (el) => el.setAttribute('heads', '2'));
    await page.waitForFunction(() => document.getElementById('divisor').result);
    // `result` comes before the figures, which are drawn a slice at a time: updateComplete says they are all shown.
    const fixed = await page.$eval('#divisor', async (el) => (await el.updateComplete, { error: el.shadowRoot.querySelector('.error'), maps: el.shadowRoot.querySelectorAll('figure.heatmap').length }));
    assert.equal(fixed.error, null);
    assert.equal(fixed.maps, 2);
    // And English messages with lang="en".
    await page.$eval('#divisor', (el) => {
      el.setAttribute('lang', 'en');
      el.heads = 3;
    });
    await page.waitForFunction(() => document.getElementById('divisor').shadowRoot.querySelector('.error'));
    assert.match(await page.$eval('#divisor', (el) => el.shadowRoot.querySelector('.error').textContent), /heads 3 does not divide d_model 4/);
  } finally {
    await context.close();
  }
});

test('a property refused by the attribute\'s bounds shows the attribute\'s error at once, throws nothing and blocks nothing', async () => {
  const html = fixture(`<multi-head-attention ${attrs({ ...LESSON, heads: 2 })}></multi-head-attention>
    <multi-head-attention id="text" ${attrs({ ...LESSON, k: '[[1,0,1,0],[0,[1],0,1],[1,1,0,0]]', heads: 2 })}></multi-head-attention>`);
  const { page, context, log } = await open('properties.html', { html });
  try {
    await settled(page);
    // The hostile values are built first (a million nested arrays take the page a while to make), each behind
    // a proxy that counts the entries the widget reads.
    // Built in the page, a long task of the test's own: left out of the probe.
    await excusedFromProbe(page, 'the test builds its hostile values', () => page.evaluate(() => {
      const counted = (array) => new Proxy(array, {
        get(target, key, receiver) {
          if (typeof key === 'string' && /^\d+$/.test(key)) window.__reads++;
          return Reflect.get(target, key, receiver);
        },
      });
      let deep = [];
      for (let i = 0; i < 1e6; i++) deep = [deep];
      window.__values = {
        deepQ: ['q', deep], wideQ: ['q', [counted(Array(1e7))]], deepTokens: ['tokens', deep],
        rowsQ: ['q', counted(Array.from({ length: 1e6 }, () => [1, 2, 3, 4]))], nestedK: ['k', [[1, 0, 1, 0], [0, [1], 0, 1], [1, 1, 0, 0]]],
      };
    }));
    await longTasks(page);
    const expected = { deepQ: 'NOT_A_MATRIX', wideQ: 'TOO_LONG', deepTokens: 'BAD_TOKENS', rowsQ: 'TOO_LONG', nestedK: 'NOT_A_MATRIX' };
    for (const [key, code] of Object.entries(expected)) {
      const seen = await page.evaluate(async (which) => {
        const el = document.querySelector('multi-head-attention');
        const [name, value] = window.__values[which];
        const before = el.getAttribute(name);
        window.__reads = 0;
        let thrown = null;
        try {
          el[name] = value;
        } catch (error) {
          thrown = String(error);
        }
        await el.updateComplete;
        const error = el.shadowRoot.querySelector('.error');
        return { thrown, reads: window.__reads, code: error?.dataset.code, text: error?.textContent, result: el.result, kept: el.getAttribute(name) === before, value: el[name] };
      }, key);
      assert.equal(seen.thrown, null, `${key}: nothing thrown out of the setter`);
      assert.equal(seen.code, code, key);
      assert.deepEqual([seen.result, seen.value, seen.kept], [null, null, true], `${key}: no result, no value, the attribute as it was`);
      // The work bounded first: at most the entries the attribute's length allows are read (none of a row of 1e7).
      assert.ok(seen.reads < 131072, `${key}: ${seen.reads} entries read`);
      if (key === 'nestedK') {
        assert.equal(seen.text, await page.$eval('#text', (el) => el.shadowRoot.querySelector('.error').textContent), 'the same words as the attribute\'s');
      }
      // Back to the lesson's values: the widget works again.
      const back = await page.evaluate(async () => {
        const el = document.querySelector('multi-head-attention');
        el.tokens = ['猫', '吃', '鱼'];
        el.q = [[1, 1, 0, 0], [0, 2, 0, 2], [0, 0, 1, 1]];
        el.k = [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]];
        const result = await el.updateComplete;
        return { error: el.shadowRoot.querySelector('.error'), weights: result && Array.from(result.attention[0].slice(0, 3), (x) => Math.round(x * 100) / 100) };
      });
      assert.deepEqual(back, { error: null, weights: [0.25, 0.25, 0.5] }, `${key}: recovered`);
    }
    // And the time: before, these setters held the page for 0.2 to 4 s; the bound is generous for a shared machine.
    const longest = Math.max(0, ...(await longTasks(page)));
    assert.ok(longest < 1000, `longest task ${longest} ms`);
    // A heads or view property given an array names it, never joining it.
    await excusedFromProbe(page, 'the test builds its hostile values', () => page.evaluate(() => {
      let deep = [];
      for (let i = 0; i < 1e6; i++) deep = [deep];
      window.__deep = deep;
    }));
    const heads = await page.evaluate(async () => {
      const el = document.querySelector('multi-head-attention');
      el.heads = window.__deep;
      await el.updateComplete;
      const code = el.shadowRoot.querySelector('.error')?.dataset.code;
      el.heads = 2;
      await el.updateComplete;
      return [code, el.heads];
    });
    assert.deepEqual(heads, ['BAD_HEADS', 2]);
    assert.deepEqual(log.errors, []);
  } finally {
    await context.close();
  }
});

test('changing heads (attribute or property) re-renders with the right number of heads', async () => {
  const html = fixture(`<multi-head-attention ${attrs({ ...LESSON, heads: 2 })}></multi-head-attention>`);
  const { page, context, log } = await open('heads.html', { html });
  try {
    await settled(page);
    const state = () => page.$eval('multi-head-attention', async (el) => (await el.updateComplete, {
      heads: el.heads,
      maps: el.shadowRoot.querySelectorAll('figure.heatmap').length,
      attention: el.result?.attention.map((a) => Array.from(a)),
      summary: el.shadowRoot.querySelector('.summary')?.textContent,
    }));
    assert.equal((await state()).maps, 2);
    const viaPromise = await page.$eval('multi-head-attention', async (el) => {
      el.heads = 1;
      const result = await el.updateComplete;
      el.heads = 2;
      return [result.attention.length, (await el.updateComplete).attention.length];
    });
    assert.deepEqual(viaPromise, [1, 2], 'updateComplete resolves with the re-rendered result');
    for (const heads of [1, 4, 2]) {
      await page.$eval('multi-head-attention', (el, n) => el.setAttribute('heads', String(n)), heads);
      await page.waitForFunction((n) => document.querySelector('multi-head-attention').result?.attention.length === n, heads);
      const now = await state();
      assert.equal(now.heads, heads);
      assert.equal(now.maps, heads, `${heads} heatmaps`);
      assert.match(now.summary, new RegExp(`h = ${heads} · d_k = ${4 / heads}`));
      const ref = referenceAttention({ ...lessonFlat, d: 4, h: heads, causal: false });
      now.attention.forEach((a, h) => assert.deepEqual(rounded(a, 4), rounded(ref.attention[h], 4), `h = ${heads}, head ${h + 1}`));
    }
    // The other switches and views, through properties.
    await page.$eval('multi-head-attention', (el) => {
      el.causal = true;
      el.scale = false;
      el.view = 'lines';
    });
    await page.waitForFunction(() => document.querySelector('multi-head-attention').shadowRoot.querySelector('svg.mha-lines'));
    const attributes = await page.$eval('multi-head-attention', (el) => [el.hasAttribute('causal'), el.getAttribute('scale'), el.getAttribute('view'), el.scale, el.result.attention[0][1]]);
    assert.deepEqual(attributes, [true, 'off', 'lines', false, 0], 'properties reflect to attributes; masked weight is 0');
    for (const view of ['pipeline', 'full', 'heatmaps']) {
      await page.$eval('multi-head-attention', (el, v) => (el.view = v), view);
      await page.waitForFunction((v) => document.querySelector('multi-head-attention').shadowRoot.querySelector(`.views[data-view="${v}"]`), view);
    }
    // Data through properties, including rows as typed arrays.
    await page.$eval('multi-head-attention', (el) => {
      el.tokens = ['a', 'b'];
      el.q = [new Float32Array([1, 0]), new Float32Array([0, 1])];
      el.k = [[1, 0], [0, 1]];
      el.v = [[1, 2], [3, 4]];
      el.heads = 1;
      el.causal = false;
    });
    await page.waitForFunction(() => document.querySelector('multi-head-attention').result?.attention[0].length === 4);
    const small = await page.$eval('multi-head-attention', (el) => ({ q: el.q, tokens: el.tokens, a: Array.from(el.result.attention[0]) }));
    assert.deepEqual(small.q, [[1, 0], [0, 1]]);
    assert.deepEqual(small.tokens, ['a', 'b']);
    const e = Math.exp(1); // scale is still off from above: the raw dot products
    assert.deepEqual(rounded(small.a, 4), rounded([e / (e + 1), 1 / (e + 1), 1 / (e + 1), e / (e + 1)], 4));
    assert.deepEqual(log.errors, []);
  } finally {
    await context.close();
  }
});

test('kv-heads shares K and V among the heads: MQA on the lesson, the pipeline drawn, bad values coded and recovered', async () => {
  const html = fixture(`<multi-head-attention ${attrs({ ...LESSON, heads: 2, 'kv-heads': 1, view: 'full' })}></multi-head-attention>`);
  const { page, context, log } = await open('kv-heads.html', { html });
  try {
    await settled(page);
    const state = () => page.$eval('multi-head-attention', async (el) => (await el.updateComplete, {
      kvHeads: el.kvHeads,
      attention: el.result?.attention.map((a) => Array.from(a)),
      summary: el.shadowRoot.querySelector('.summary')?.textContent,
      error: el.shadowRoot.querySelector('.error')?.getAttribute('data-code') ?? null,
      text: el.shadowRoot.querySelector('.error')?.textContent ?? '',
      pipeline: Boolean(el.shadowRoot.querySelector('.views[data-view="full"] svg')),
    }));
    // One K and one V, the mean of the two heads' columns of k and v, read by both heads (the core's kvHeads: 1).
    const mean = (m) => { const rows = JSON.parse(m); return rows.flatMap((r) => [(r[0] + r[2]) / 2, (r[1] + r[3]) / 2]); };
    const ref = referenceAttention({ q: lessonFlat.q, k: mean(LESSON.k), v: mean(LESSON.v), d: 4, h: 2, kvHeads: 1, causal: false });
    let now = await state();
    assert.equal(now.kvHeads, 1);
    assert.match(now.summary, /h = 2 · h_kv = 1 · d_k = 2/);
    assert.ok(now.pipeline, 'the full view draws');
    now.attention.forEach((a, h) => assert.deepEqual(rounded(a, 4), rounded(ref.attention[h], 4), `head ${h + 1}`));
    // kv-heads = heads is the lesson's table again.
    await page.$eval('multi-head-attention', (el) => { el.kvHeads = 2; });
    await page.waitForFunction(() => document.querySelector('multi-head-attention').kvHeads === 2);
    now = await state();
    assert.match(now.summary, /h = 2 · h_kv = 2 · d_k = 2/);
    assert.deepEqual(rounded(now.attention[0].slice(0, 3)), [0.25, 0.25, 0.5]);
    // A value that is no whole number, then one that does not divide heads: coded errors; then fixed.
    await page.$eval('multi-head-attention', (el) => el.setAttribute('kv-heads', 'one'));
    await page.waitForFunction(() => document.querySelector('multi-head-attention').shadowRoot.querySelector('.error'));
    now = await state();
    assert.equal(now.error, 'BAD_SIZE');
    assert.match(now.text, /K\/V 头数 h_kv 必须是正整数/);
    await page.$eval('multi-head-attention', (el) => el.setAttribute('kv-heads', '3'));
    await page.waitForFunction(() => document.querySelector('multi-head-attention').shadowRoot.querySelector('.error')?.getAttribute('data-code') === 'KV_HEADS_NOT_DIVISOR');
    assert.match((await state()).text, /h_kv = 3 不能整除头数 h = 2/);
    await page.$eval('multi-head-attention', (el) => el.removeAttribute('kv-heads'));
    await page.waitForFunction(() => document.querySelector('multi-head-attention').result);
    now = await state();
    assert.equal(now.error, null, 'the widget works again');
    assert.equal(now.kvHeads, 2, 'absent: as many as heads');
    assert.doesNotMatch(now.summary, /h_kv/);
    // The learner's head menu, kv-heads absent: each h picked keeps its own K and V (no stale count).
    await page.$eval('multi-head-attention', (el) => el.setAttribute('editable', ''));
    await page.waitForFunction(() => document.querySelector('multi-head-attention').shadowRoot.querySelector('select'));
    await page.$eval('multi-head-attention', (el) => {
      const menu = el.shadowRoot.querySelector('select');
      menu.value = '1';
      menu.dispatchEvent(new Event('change', { bubbles: true }));
    });
    await page.waitForFunction(() => document.querySelector('multi-head-attention').result?.attention.length === 1);
    assert.equal((await state()).error, null, 'h = 1 picked in the menu computes');
    assert.deepEqual(log.errors, []);
  } finally {
    await context.close();
  }
});

test('at its largest (32 tokens × d 64, 64 heads) it draws a run of heads, says which, and moves along them', async () => {
  // 32 × 64 numbers from -1 to 1, different in every row and column.
  const matrix = (seed) => JSON.stringify(Array.from({ length: 32 }, (_, r) => Array.from({ length: 64 }, (_, c) => ((r * 7 + c * 13 + seed) % 21) / 10 - 1)));
  const largest = { q: matrix(1), k: matrix(2), v: matrix(3), wo: JSON.stringify(Array.from({ length: 64 }, (_, r) => Array.from({ length: 64 }, (_, c) => (r === c ? 1 : 0.01)))), heads: 64 };
  const html = fixture(`<multi-head-attention ${attrs(largest)}></multi-head-attention>`);
  const { page, context, log } = await open('largest.html', { html });
  try {
    await settled(page);
    const drawn = () => page.$eval('multi-head-attention', async (el) => {
      await el.updateComplete; // every slice of the drawing shown
      const root = el.shadowRoot;
      const heads = (selector) => [...root.querySelectorAll(selector)].map((node) => Number(node.dataset.head));
      return {
        elements: root.querySelectorAll('*').length,
        heatmaps: heads('figure.heatmap'),
        weights: heads('.mha-pipeline [data-part="weights"]'),
        note: root.querySelector('.head-run .note')?.textContent,
        back: root.querySelector('.head-run button[data-move="back"]')?.disabled,
        computed: el.result.attention.length,
      };
    });
    const run = (from) => Array.from({ length: 8 }, (_, n) => from + n);
    let now = await drawn();
    assert.deepEqual(now.heatmaps, run(0), 'the first 8 heads of 32×32 weights (8,192 weights at once)');
    assert.match(now.note, /这个模型有 64 个头，每个头一张 32×32 的配比表.*一次只画 8 个头，现在画的是头 1–8/);
    assert.equal(now.back, true);
    assert.equal(now.computed, 64, 'every head is computed; only the drawing is cut');
    assert.ok(now.elements < 30000, `${now.elements} elements (207,896 when every head was drawn)`);
    await page.$eval('multi-head-attention', (el) => el.shadowRoot.querySelector('.head-run button[data-move="next"]').click());
    now = await drawn();
    assert.deepEqual(now.heatmaps, run(8));
    assert.match(now.note, /现在画的是头 9–16/);
    assert.equal(now.back, false);
    // Every view at once: the heads' own figures and pipeline stages are the same run.
    await page.$eval('multi-head-attention', (el) => (el.view = 'full'));
    now = await drawn();
    assert.deepEqual(now.heatmaps, run(8));
    assert.deepEqual(now.weights, run(8));
    assert.match(now.note, /现在画的是头 9–16/);
    assert.ok(now.elements < 40000, `${now.elements} elements (371,778 when every head was drawn)`);
    assert.deepEqual(log.errors, []);
  } finally {
    await context.close();
  }
});

/**
 * An init script for open(): numbers the animation frames (window.__frame) and hands every shadow root a widget
 * attaches to window.__onShadowRoot, which a second init script sets.
 */
function framesAndShadowRoots() {
  window.__frame = 0;
  const tick = () => {
    window.__frame++;
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  const attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function attachShadow(options) {
    const root = attach.call(this, options);
    window.__onShadowRoot?.(root);
    return root;
  };
}

test('many widgets on a page share the slices: their first figures are spread over frames, not drawn in one task', async (t) => {
  const count = 200;
  const html = fixture(Array.from({ length: count }, () => `<multi-head-attention ${attrs({ ...LESSON, heads: 2 })}></multi-head-attention>`).join('\n'));
  // Before the page's scripts: note the frame in which each widget shows its first figure.
  const firstFigures = () => {
    window.__firstFigures = [];
    window.__onShadowRoot = (root) => {
      const seen = new MutationObserver(() => {
        if (!root.querySelector('figure')) return;
        window.__firstFigures.push(window.__frame);
        seen.disconnect();
      });
      seen.observe(root, { childList: true, subtree: true });
    };
  };
  const { page, context, log } = await open('many.html', { html, init: [framesAndShadowRoots, firstFigures] });
  try {
    await settled(page);
    // Nothing handed back: 200 results serialized for this side would be a long task of the test's own in the page.
    await page.evaluate(async () => {
      await Promise.all([...document.querySelectorAll('multi-head-attention')].map((el) => el.updateComplete));
    });
    const frames = await page.evaluate(() => window.__firstFigures);
    assert.equal(frames.length, count, 'every widget drew');
    const perFrame = new Map();
    for (const frame of frames) perFrame.set(frame, (perFrame.get(frame) ?? 0) + 1);
    const most = Math.max(...perFrame.values());
    // The work bounded first: each widget ran its own first slice, all 200 in one task, before; now the page's
    // one queue of slices (ui/slices.js) shares a slice of 25 ms among them, a few dozen widgets a frame.
    assert.ok(most <= count / 2, `${most} widgets showed their first figure in one frame (${perFrame.size} frames in all)`);
    // And the time, loosely: the issue measured a 7.2 s task for 200 widgets; what is left is the browser's layout
    // of each frame's figures, and the bound is generous because the machine is shared.
    const longest = Math.max(0, ...(await longTasks(page)));
    t.diagnostic(`at most ${most} of ${count} widgets' first figures in one frame, over ${perFrame.size} frames; longest task ${longest} ms`);
    assert.ok(longest < 1500, `longest task ${longest} ms`);
    assert.deepEqual(log.errors, []);
  } finally {
    await context.close();
  }
});

test('at its largest, view="full", each frame lays out at most SLICE_ELEMENTS new elements', async (t) => {
  const matrix = (seed) => JSON.stringify(Array.from({ length: 32 }, (_, r) => Array.from({ length: 64 }, (_, c) => ((r * 7 + c * 13 + seed) % 21) / 10 - 1)));
  const html = fixture(`<multi-head-attention ${attrs({ q: matrix(1), k: matrix(2), v: matrix(3), heads: 64, view: 'full' })}></multi-head-attention>`);
  // Before the page's scripts: count the elements added to the widget in each frame.
  const addedPerFrame = () => {
    window.__added = {};
    window.__onShadowRoot = (root) => new MutationObserver((records) => {
      for (const record of records) {
        for (const node of record.addedNodes) {
          if (node.nodeType === 1) window.__added[window.__frame] = (window.__added[window.__frame] ?? 0) + 1 + node.querySelectorAll('*').length;
        }
      }
    }).observe(root, { childList: true, subtree: true });
  };
  const { page, context, log } = await open('largest-full.html', { html, init: [framesAndShadowRoots, addedPerFrame] });
  try {
    await settled(page);
    await page.$eval('multi-head-attention', async (el) => {
      await el.updateComplete; // not handed back: serializing 64 heads' results is a long task of the test's own
    });
    await longTasks(page);
    // Heads 9-16: every heatmap and table is new (the concat and pipeline are patched in place).
    const added = await page.$eval('multi-head-attention', async (el) => {
      window.__added = {};
      el.shadowRoot.querySelector('.head-run button[data-move="next"]').click();
      await el.updateComplete;
      return Object.values(window.__added);
    });
    const total = added.reduce((a, b) => a + b, 0);
    const most = Math.max(...added);
    const longest = Math.max(0, ...(await longTasks(page)));
    t.diagnostic(`${total} elements added over ${added.length} frames, at most ${most} in one; longest task ${longest} ms`);
    assert.ok(total > 20000, `the run of heads is redrawn (${total} elements)`);
    // The work bounded first: before, a frame took up to 9,744 new elements (and 50-240 ms to lay them out here).
    assert.ok(most <= SLICE_ELEMENTS, `${most} elements added in one frame`);
    // And the time, loosely: the issue measured a 246-305 ms task per redraw; the bound is generous because the machine is shared.
    assert.ok(longest < 1000, `longest task ${longest} ms`);
    assert.deepEqual(log.errors, []);
  } finally {
    await context.close();
  }
});

test('the attributes are parsed once per change, not on every property read', async () => {
  const html = fixture(`<multi-head-attention ${attrs({ ...LESSON, heads: 2 })}></multi-head-attention>`);
  const { page, context, log } = await open('parse-once.html', { html });
  try {
    await settled(page);
    const seen = await page.$eval('multi-head-attention', (el) => {
      // Every parse of the data attributes goes through JSON.parse: count its calls.
      const parse = JSON.parse;
      let calls = 0;
      JSON.parse = (...args) => {
        calls++;
        return parse(...args);
      };
      const read = (times) => {
        const before = calls;
        let values;
        for (let i = 0; i < times; i++) values = { heads: el.heads, q: el.q, k: el.k, v: el.v, tokens: el.tokens, view: el.view };
        return { calls: calls - before, values };
      };
      try {
        const rendered = read(1000);
        el.setAttribute('heads', '4');
        const first = read(1);
        const again = read(1000);
        el.setAttribute('tokens', '["a","b"]');
        el.setAttribute('q', '[[1,0],[0,1]]');
        el.setAttribute('k', '[[1,0],[0,1]]');
        el.setAttribute('v', '[[5,6],[7,8]]');
        el.heads = 1;
        const fiveChanges = read(1000);
        el.heads = 3;
        const bad = read(10);
        el.removeAttribute('heads');
        const restored = read(10);
        return { rendered, first, again, fiveChanges, bad, restored, onePass: first.calls };
      } finally {
        JSON.parse = parse;
      }
    });
    const q = JSON.parse(LESSON.q);
    assert.equal(seen.rendered.calls, 0, '1000 reads of a rendered widget parse nothing');
    assert.deepEqual(seen.rendered.values, { heads: 2, q, k: JSON.parse(LESSON.k), v: JSON.parse(LESSON.v), tokens: ['猫', '吃', '鱼'], view: 'heatmaps' });
    assert.ok(seen.onePass > 0, 'the first read after a change parses');
    assert.equal(seen.first.values.heads, 4);
    assert.equal(seen.again.calls, 0, 'later reads reuse that parse');
    assert.deepEqual(seen.again.values.q, q);
    assert.equal(seen.fiveChanges.calls, seen.onePass, 'five changes before a read: one parse');
    assert.deepEqual(seen.fiveChanges.values, { heads: 1, q: [[1, 0], [0, 1]], k: [[1, 0], [0, 1]], v: [[5, 6], [7, 8]], tokens: ['a', 'b'], view: 'heatmaps' });
    assert.equal(seen.bad.values.heads, null, 'heads="3" does not divide d_model 2');
    assert.equal(seen.bad.calls, seen.onePass);
    assert.equal(seen.restored.values.heads, 2, 'no heads attribute: the default again');
    // The copies handed out are the caller's: changing one changes nothing inside.
    await page.$eval('multi-head-attention', (el) => {
      el.q[0][0] = 99;
      el.tokens.push('c');
    });
    assert.deepEqual(await page.$eval('multi-head-attention', (el) => [el.q, el.tokens]), [[[1, 0], [0, 1]], ['a', 'b']]);
    await page.waitForFunction(() => document.querySelector('multi-head-attention').result?.attention[0].length === 4);
    assert.deepEqual(log.errors, []);
  } finally {
    await context.close();
  }
});

test('mha-change fires (bubbling, composed) with the result whenever the learner edits', async () => {
  const html = fixture(`<div id="wrap"><multi-head-attention editable ${attrs({ ...LESSON, heads: 2 })}></multi-head-attention></div>`);
  const { page, context, log } = await open('events.html', { html });
  try {
    await settled(page);
    await page.evaluate(() => {
      window.__events = [];
      document.getElementById('wrap').addEventListener('mha-change', (event) => {
        window.__events.push({ same: event.detail === event.target.result, composed: event.composed, heads: event.detail.attention.length, row: Array.from(event.detail.attention[0].slice(0, 3)) });
      });
    });
    assert.deepEqual(await page.evaluate(() => window.__events), [], 'no event for the initial render');
    const inShadow = (selector) => page.evaluateHandle((sel) => document.querySelector('multi-head-attention').shadowRoot.querySelector(sel), selector);

    // A q slider with the keyboard: q 猫 dim 0 goes 1 → 1.1.
    const slider = await inShadow('fieldset[data-matrix="q"] input[type="range"]');
    assert.match(await slider.evaluate((s) => s.getAttribute('aria-label')), /q · 猫 · 维 0/);
    await slider.focus();
    await page.keyboard.press('ArrowRight');
    let events = await page.evaluate(() => window.__events);
    assert.equal(events.length, 1);
    assert.equal(events[0].same, true, 'detail is element.result');
    assert.equal(events[0].composed, true);
    assert.ok(events[0].row[2] > 0.5, "猫 looks at 鱼 more once q 猫 grows");
    assert.equal(await page.$eval('multi-head-attention', (el) => el.getAttribute('q')), '[[1.1,1,0,0],[0,2,0,2],[0,0,1,1]]', 'the edit is mirrored in the attribute');
    assert.equal(await slider.evaluate((s) => s.matches(':focus')), true, 'the slider keeps focus while the figures redraw');

    // The head menu and the mask switch.
    const select = await inShadow('select');
    await select.selectOption('4');
    const mask = await inShadow('input[type="checkbox"]');
    await mask.click();
    events = await page.evaluate(() => window.__events);
    assert.equal(events.length, 3);
    assert.equal(events[1].heads, 4);
    assert.deepEqual(rounded(events[2].row), [1, 0, 0], 'mask on: 猫 sees only itself');
    assert.deepEqual(await page.$eval('multi-head-attention', (el) => [el.getAttribute('heads'), el.hasAttribute('causal')]), ['4', true]);
    await page.$eval('multi-head-attention', (el) => {
      el.heads = 1;
      return el.updateComplete;
    });
    assert.equal(await page.evaluate(() => window.__events.length), 3, "the page's own changes fire no event");
    assert.equal(await page.$eval('multi-head-attention', (el) => el.shadowRoot.querySelector('select').value), '1', 'the menu follows the attribute');
    assert.deepEqual(log.errors, []);
  } finally {
    await context.close();
  }
});

test('on a phone a vertical swipe over the sliders scrolls the page and edits nothing; a sideways drag edits', async () => {
  // Text above and below, so the widget sits mid-page as in a course.
  const filler = '<p style="height:900px">…</p>';
  const html = fixture(`${filler}<multi-head-attention editable ${attrs({ ...LESSON, heads: 2 })}></multi-head-attention>${filler}`);
  const { page, context, log } = await open('phone.html', { html, phone: true });
  try {
    await settled(page);
    await page.evaluate(() => {
      window.__edits = 0;
      document.querySelector('multi-head-attention').addEventListener('mha-change', () => window.__edits++);
    });
    const slider = (matrix, row, col) => page.locator(`multi-head-attention fieldset[data-matrix="${matrix}"] input[data-row="${row}"][data-col="${col}"]`);
    const q = () => page.$eval('multi-head-attention', (el) => el.getAttribute('q'));
    /** Scrolls the slider to 450 px from the top of the screen, so a swipe up has room; returns a point on it. */
    const placeForSwipe = async (locator, across = 0.5) => {
      const top = await locator.evaluate((el) => el.getBoundingClientRect().top);
      await page.evaluate((by) => window.scrollBy(0, by), top - 450);
      await scrollSettled(page);
      const box = await locator.boundingBox();
      return { x: box.x + box.width * across, y: box.y + box.height / 2 };
    };
    // A finger landing on a slider's track used to move its thumb there; 10 % across is far from every value here.
    for (const [matrix, row, col] of [['q', 0, 0], ['k', 1, 3], ['v', 2, 0]]) {
      const target = slider(matrix, row, col);
      const before = await target.inputValue();
      const start = await placeForSwipe(target, 0.1);
      const scrolled = await page.evaluate(() => window.scrollY);
      await touchDrag(page, start, { dy: -250 });
      assert.ok(await scrollSettled(page) > scrolled + 200, `${matrix}[${row}][${col}]: the swipe scrolls the page`);
      assert.equal(await target.inputValue(), before, `${matrix}[${row}][${col}]: the swipe edits nothing`);
    }
    assert.equal(await q(), LESSON.q, 'no value changed');
    assert.equal(await page.evaluate(() => window.__edits), 0, 'no mha-change');

    // A sideways drag from the thumb (1 on −2…2: three quarters across) to the right end sets 2.
    const q00 = slider('q', 0, 0);
    const start = await placeForSwipe(q00, 0.75);
    const { width } = await q00.boundingBox();
    await touchDrag(page, start, { dx: width * 0.25 + 20 });
    assert.equal(await q00.inputValue(), '2');
    assert.equal(await q(), '[[2,1,0,0],[0,2,0,2],[0,0,1,1]]', 'the edit reaches the attribute');
    assert.ok(await page.evaluate(() => window.__edits) > 0, 'and fires mha-change');
    assert.deepEqual(log.errors, []);
  } finally {
    await context.close();
  }
});

test('the lines view can keep one query token\'s lines, by mouse or keyboard', async () => {
  const html = fixture(`<multi-head-attention ${attrs({ ...LESSON, heads: 2, view: 'lines' })}></multi-head-attention>`);
  const { page, context, log } = await open('lines.html', { html });
  try {
    await settled(page);
    const count = () => page.$eval('multi-head-attention', (el) => el.shadowRoot.querySelectorAll('svg.mha-lines line').length);
    assert.equal(await count(), 18, '2 heads × 3 × 3 lines');
    const button = await page.evaluateHandle(() => document.querySelector('multi-head-attention').shadowRoot.querySelector('.focus button[data-focus="0"]'));
    assert.equal(await button.evaluate((b) => b.textContent), '猫');
    await button.click();
    assert.equal(await count(), 6, "only 猫's lines");
    const pressed = () => page.$eval('multi-head-attention', (el) => [...el.shadowRoot.querySelectorAll('.focus button')].map((b) => b.getAttribute('aria-pressed')));
    assert.deepEqual(await pressed(), ['false', 'true', 'false', 'false']);
    await page.keyboard.press('Shift+Tab'); // focus stays on the redrawn buttons: back to "全部"
    await page.keyboard.press('Enter');
    assert.equal(await count(), 18);
    assert.deepEqual(await pressed(), ['true', 'false', 'false', 'false']);
    assert.deepEqual(log.errors, []);
  } finally {
    await context.close();
  }
});

test("host CSS cannot hide or restyle it, and its styles do not leak out", async () => {
  const hostile = `<style>
    svg, figure, div, p, input, select, fieldset, output, table { display: none !important; }
    * { color: red !important; font-size: 40px !important; line-height: 0 !important; letter-spacing: 9px !important; }
    .mha, .views, .error, .controls { display: none !important; }
    figure { margin: 40px; }
  </style>`;
  const html = fixture(`<p>text</p><multi-head-attention editable ${attrs({ ...LESSON, heads: 2 })}></multi-head-attention>
    <figure id="outside"><svg width="10" height="10"></svg></figure><div class="error" id="outside-error">x</div>`, { head: hostile });
  const { page, context } = await open('hostile.html', { html });
  try {
    await settled(page);
    const inside = await page.$eval('multi-head-attention', (el) => {
      const root = el.shadowRoot;
      const svg = root.querySelector('svg');
      const box = svg.getBoundingClientRect();
      const text = root.querySelector('.summary');
      return {
        svgDisplay: getComputedStyle(svg).display,
        svgSize: [box.width, box.height],
        sliders: [...root.querySelectorAll('input[type="range"]')].filter((s) => s.getBoundingClientRect().width > 0).length,
        color: getComputedStyle(text).color,
        fontSize: getComputedStyle(text).fontSize,
        letterSpacing: getComputedStyle(text).letterSpacing,
      };
    });
    assert.notEqual(inside.svgDisplay, 'none');
    assert.ok(inside.svgSize[0] > 50 && inside.svgSize[1] > 50, `the heatmap is visible: ${inside.svgSize}`);
    assert.equal(inside.sliders, 36, 'every slider is visible');
    assert.notEqual(inside.color, 'rgb(255, 0, 0)');
    assert.notEqual(inside.fontSize, '40px');
    assert.equal(inside.letterSpacing, 'normal');
    const outside = await page.evaluate(() => ({
      figureMargin: getComputedStyle(document.getElementById('outside')).marginTop,
      errorBorder: getComputedStyle(document.getElementById('outside-error')).borderLeftStyle,
    }));
    assert.equal(outside.figureMargin, '40px', "the widget's figure rule stays inside");
    assert.equal(outside.errorBorder, 'none', "the widget's .error rule stays inside");
  } finally {
    await context.close();
  }
});

test('the class is exported and can be registered under another name; widgets survive a move', async () => {
  // The fixture's own inline module is fine here (this page has no CSP).
  const html = `<!doctype html><html><head><meta charset="utf-8"></head><body>
    <attention-heads ${attrs({ ...LESSON, heads: 1 })}></attention-heads>
    <multi-head-attention ${attrs({ ...LESSON, heads: 2 })}></multi-head-attention>
    <div id="elsewhere"></div>
    <script type="module">
      import { MultiHeadAttentionElement, defineMultiHeadAttention } from '/dist/widget.js';
      const Other = defineMultiHeadAttention('attention-heads');
      window.__check = {
        base: customElements.get('multi-head-attention') === MultiHeadAttentionElement,
        sub: Other.prototype instanceof MultiHeadAttentionElement,
        again: defineMultiHeadAttention('attention-heads') === Other && defineMultiHeadAttention() === MultiHeadAttentionElement,
      };
    </script></body></html>`;
  const { page, context, log } = await open('define.html', { html });
  try {
    await page.waitForFunction(() => window.__check);
    assert.deepEqual(await page.evaluate(() => window.__check), { base: true, sub: true, again: true });
    await settled(page, 'attention-heads, multi-head-attention');
    assert.equal(await page.$eval('attention-heads', (el) => el.result.attention.length), 1);
    // Move the second widget: it keeps its layer and shows the same numbers.
    await page.evaluate(() => document.getElementById('elsewhere').append(document.querySelector('multi-head-attention')));
    await page.waitForFunction(() => document.querySelector('#elsewhere multi-head-attention').result);
    assert.deepEqual(rounded(await page.$eval('#elsewhere multi-head-attention', (el) => Array.from(el.result.attention[0].slice(0, 3)))), [0.25, 0.25, 0.5]);
    assert.deepEqual(log.errors, []);
  } finally {
    await context.close();
  }
});

test('widget.js and mha-core.wasm copied together into any folder work (the wasm is found beside the script)', async () => {
  const dist = (name) => fileURLToPath(new URL(`../web/dist/${name}`, import.meta.url));
  const html = `<!doctype html><html><head><meta charset="utf-8"><script type="module" src="/courses/lesson-10/assets/widget.js"></script></head>
    <body><multi-head-attention ${attrs({ ...LESSON, heads: 2 })}></multi-head-attention></body></html>`;
  const files = {
    'courses/lesson-10/assets/widget.js': { path: dist('widget.js'), contentType: 'text/javascript' },
    'courses/lesson-10/assets/mha-core.wasm': { path: dist('mha-core.wasm'), contentType: 'application/wasm' },
  };
  const { page, context, log } = await open('copied.html', { html, files, server: strict, headers: { 'Content-Security-Policy': STRICT_CSP } });
  const requests = [];
  page.on('request', (request) => requests.push(new URL(request.url()).pathname));
  try {
    await page.reload(); // again, now recording the requests
    await settled(page);
    assert.deepEqual(rounded(await page.$eval('multi-head-attention', (el) => Array.from(el.result.attention[0].slice(0, 3)))), [0.25, 0.25, 0.5]);
    assert.ok(requests.includes('/courses/lesson-10/assets/mha-core.wasm'), requests.join(' '));
    assert.ok(!requests.some((path) => path.startsWith('/dist/')), 'nothing is loaded from the build folder');
    assert.deepEqual(await page.evaluate(() => window.__violations), []);
    assert.deepEqual(log.errors, []);
  } finally {
    await context.close();
  }
});

test('the example course page has no serious accessibility violations', async () => {
  const { page, context } = await open('course-example.html');
  try {
    await settled(page);
    const violations = await seriousAxeViolations(page);
    assert.deepEqual(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), []);
  } finally {
    await context.close();
  }
});

test('view="train" mounts the training section; training in its worker separates the two heads', async () => {
  const html = fixture(`<multi-head-attention view="train" heads="2" lang="en"></multi-head-attention>`);
  const { page, context, log } = await open('train.html', { html, server: strict, headers: { 'Content-Security-Policy': STRICT_CSP } });
  try {
    const start = 'multi-head-attention >> .train-start';
    await page.waitForSelector(`${start}:not([disabled])`, { timeout: HANG_MS });
    await page.click(start);
    // h = 2 reaches the target in a few seconds; each head then reports the view it took.
    await page.waitForFunction(() => {
      const heads = [...document.querySelector('multi-head-attention').shadowRoot.querySelectorAll('.train-head')];
      return heads.length === 2 && new Set(heads.map((figure) => figure.dataset.view)).size === 2
        && heads.every((figure) => figure.dataset.view !== 'mixed');
    }, null, { timeout: HANG_MS });
    // Moved elsewhere in the page, it trains on from where it was; taken out, its worker stops.
    const steps = () => page.$eval('multi-head-attention', (el) => Number(el.shadowRoot.querySelector('.mha-train').dataset.steps));
    const before = await steps();
    await page.evaluate(() => document.body.append(Object.assign(document.createElement('div'), { id: 'moved' })));
    await page.evaluate(() => document.getElementById('moved').append(document.querySelector('multi-head-attention')));
    assert.ok(await steps() >= before, `step ${before} before the move`);
    const worker = page.workers().find((w) => w.url().endsWith('/train-worker.js'));
    assert.ok(worker, page.workers().map((w) => w.url()).join(' '));
    const closed = new Promise((resolve) => worker.once('close', resolve));
    await page.evaluate(() => document.querySelector('multi-head-attention').remove());
    await closed;
    assert.deepEqual(await page.evaluate(() => window.__violations), []);
    assert.deepEqual(log.errors, []);
  } finally {
    await context.close();
  }
});
