// Benchmark (not a test): how long from an input event until every view on the lesson page shows the
// new numbers, in Chromium. Run: node tests/bench/page-latency.js [events]   (default 200 per scenario)
// Prints a table and writes tests/artifacts/page-latency.json.
import { writeFileSync } from 'node:fs';
import { startBrowserAndServer, openPage, ensureArtifactsDir } from '../browser.js';

const events = Number(process.argv[2] ?? 200);

const scenarios = [
  {
    name: 'lesson size: q slider (d_model 4, h 2, 3 words)',
    query: '',
    ready: '#head-0-weights svg g.cell',
    prepare: async (page) => page.click('.drag-number[data-matrix="q"][data-row="0"][data-col="0"]'),
    input: '#entry-range',
    values: (i) => String(((i % 50) - 25) / 10),
  },
  {
    name: 'lesson size, h 4, 8 words, mask on: q slider',
    query: `?h=4&mask=1&t=${encodeURIComponent('a,b,c,d,e,f,g,h')}&q=${rows(8, 0.5)}&k=${rows(8, 0.3)}&v=${rows(8, 1)}`,
    ready: '#head-3-weights svg g.cell',
    prepare: async (page) => page.click('.drag-number[data-matrix="q"][data-row="0"][data-col="0"]'),
    input: '#entry-range',
    values: (i) => String(((i % 50) - 25) / 10),
  },
  {
    name: 'larger model: weight slider (d_model 64, h 8, 16 words)',
    query: `?lang=en&vs=big&vd=64&vh=8`,
    ready: '#grid-figure svg g.tile',
    prepare: async () => {},
    input: 'input[data-role="weight-scale"]',
    values: (i) => String(0.2 + (i % 20) * 0.05),
  },
];

function rows(n, value) {
  return Array.from({ length: n }, (_, r) => [value * (r % 3), value, -value * (r % 2), value / 2].join(',')).join(';');
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

const { browser, baseUrl, close } = await startBrowserAndServer();
const results = [];
// 'screen': a 1280×900 window, where sections off screen wait until they scroll into view;
// 'whole page': a window as tall as the page, so every view on the page is redrawn on every event.
const windows = [['screen', 900], ['whole page', 16000]];
try {
  for (const scenario of scenarios) for (const [windowName, height] of windows) {
    const { page, context, errors } = await openPage(browser, baseUrl + scenario.query, { baseUrl, viewport: { width: 1280, height } });
    await page.waitForSelector(scenario.ready, { timeout: 20000 });
    await scenario.prepare(page);
    await page.locator(scenario.input).scrollIntoViewIfNeeded();
    const valuesList = Array.from({ length: events }, (_, i) => scenario.values(i));
    // Each event: set the input's value and fire 'input' (what a drag does), then wait for the page's
    // 'lesson:rendered' (all views redrawn from the core) and for the frame after it to be presented.
    const samples = await page.evaluate(async ({ selector, valuesList }) => {
      const input = document.querySelector(selector);
      const out = [];
      for (const value of valuesList) {
        const rendered = new Promise((resolve) => document.addEventListener('lesson:rendered', (e) => resolve(e.detail), { once: true }));
        const start = performance.now();
        input.value = value;
        input.dispatchEvent(new Event('input', { bubbles: true }));
        const detail = await rendered;
        const updated = performance.now();
        await new Promise((resolve) => requestAnimationFrame(() => resolve()));
        out.push({ updated: updated - start, painted: performance.now() - start, work: detail.ms });
      }
      return out;
    }, { selector: scenario.input, valuesList });
    if (errors.length) throw new Error(`${scenario.name}: console errors ${errors.join('; ')}`);
    const stats = (key) => {
      const sorted = samples.map((s) => s[key]).sort((a, b) => a - b);
      return { p50: +percentile(sorted, 50).toFixed(2), p95: +percentile(sorted, 95).toFixed(2), max: +sorted.at(-1).toFixed(2) };
    };
    results.push({ scenario: scenario.name, window: windowName, events, work: stats('work'), updated: stats('updated'), nextFrame: stats('painted') });
    await context.close();
  }
} finally {
  await close();
}

const line = (cells) => cells.map((c, i) => String(c).padEnd([58, 12, 20, 22, 24][i])).join('');
console.log(line(['scenario', 'window', 'core+draw p50/p95', 'input→views p50/p95', 'input→next frame p50/p95']));
for (const r of results) {
  console.log(line([r.scenario, r.window, `${r.work.p50} / ${r.work.p95} ms`, `${r.updated.p50} / ${r.updated.p95} ms`, `${r.nextFrame.p50} / ${r.nextFrame.p95} ms`]));
}
const file = `${ensureArtifactsDir()}page-latency.json`;
writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), chromium: browser.version?.() ?? null, results }, null, 2));
console.log(`\nwritten ${file}`);
