// Benchmark (not a test): how long from an input event until every view on the lesson page shows the
// new numbers, in Chromium. Run: node tests/bench/page-latency.js [events]   (default 200 per scenario)
// Prints a table and writes tests/artifacts/page-latency.json. Beside each row, the same page's frames
// with no input, measured in blocks between the input's: the frame cadence of this browser on this
// machine, the floor of 'input → next frame' (a page that did nothing on input would measure that).
import { readFileSync, writeFileSync } from 'node:fs';
import { startBrowserAndServer, openPage, ensureArtifactsDir } from '../browser.js';
import { timeForwards } from './forwards.js';

// The poetry model's section is typed into with the opening lines of a held-out poem, one length after another.
const card = JSON.parse(readFileSync(new URL('../../web/poems/poems.card.json', import.meta.url), 'utf8'));
const poemLines = Array.from(card.heldOut.poems[0].body).slice(0, card.model.context - 1);

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
  {
    name: `poetry model: typing lines of 20 to ${poemLines.length} characters`,
    query: '',
    ready: '#poem-source', // §10 is built (its code comes after the first figure)
    // Scrolling there loads the model (again if a section above, still drawing, pushed it away); the
    // held-out poems are measured before the typing starts.
    prepare: async (page) => {
      for (let tries = 1; !(await page.$('#poems-status progress, #poem-loss-all')); tries++) {
        if (tries > 10) throw new Error('§10 never started loading its model');
        await page.locator('#poems-section').scrollIntoViewIfNeeded();
        await page.waitForTimeout(1000);
      }
      await page.waitForSelector('#poem-loss-all[data-value]:not([data-value=""])', { timeout: 120000 });
    },
    input: '#poems-section textarea',
    values: (i) => poemLines.slice(0, 20 + (i % (poemLines.length - 19))).join(''),
  },
];

function rows(n, value) {
  return Array.from({ length: n }, (_, r) => [value * (r % 3), value, -value * (r % 2), value / 2].join(',')).join(';');
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

const { browser, baseUrl, close } = await startBrowserAndServer();
const results = [];
// 'screen': a 1280×900 window, where sections (and §10's figures) off screen wait until they scroll into view;
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
    const { samples, idle } = await page.evaluate(async ({ selector, valuesList }) => {
      const input = document.querySelector(selector);
      const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
      const out = [];
      const idleFrames = [];
      for (const [i, value] of valuesList.entries()) {
        // Every 25 events, 25 frames with no input, after one to let the last event's frame pass.
        if (i % 25 === 0) {
          await frame();
          for (let n = 0; n < 25; n++) {
            const start = performance.now();
            await frame();
            idleFrames.push(performance.now() - start);
          }
        }
        const rendered = new Promise((resolve) => document.addEventListener('lesson:rendered', (e) => resolve(e.detail), { once: true }));
        const start = performance.now();
        input.value = value;
        input.dispatchEvent(new Event('input', { bubbles: true }));
        const detail = await rendered;
        const updated = performance.now();
        await new Promise((resolve) => requestAnimationFrame(() => resolve()));
        out.push({ updated: updated - start, painted: performance.now() - start, work: detail.ms });
      }
      return { samples: out, idle: idleFrames };
    }, { selector: scenario.input, valuesList });
    if (errors.length) throw new Error(`${scenario.name}: console errors ${errors.join('; ')}`);
    const stats = (values) => {
      const sorted = [...values].sort((a, b) => a - b);
      return { p50: +percentile(sorted, 50).toFixed(2), p95: +percentile(sorted, 95).toFixed(2), max: +sorted.at(-1).toFixed(2) };
    };
    const of = (key) => stats(samples.map((s) => s[key]));
    results.push({ scenario: scenario.name, window: windowName, events, work: of('work'), updated: of('updated'), nextFrame: of('painted'), idleFrame: stats(idle) });
    await context.close();
  }
} catch (error) {
  await close();
  throw error;
}

// The poetry model's forward on a full context (64 characters), in the page's core: of every position (the
// first character changed, so nothing is kept from the last forward), and of one character typed at the end
// (the 63 before it kept), which is what the section spends in wasm on a keystroke before drawing.
let forward = null;
{
  const { page, context } = await openPage(browser, baseUrl, { baseUrl });
  const stats = (times) => {
    const sorted = [...times].sort((a, b) => a - b);
    return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), min: sorted[0] };
  };
  const { tokens, full, added } = await page.evaluate(async ([runs, timing]) => {
    const { loadAttention } = await import('/src/attention.js');
    const { model, card: poemCard, encode } = await (await loadAttention()).loadPoemModel();
    const ids = Array.from(encode(poemCard.heldOut.poems.map((poem) => poem.body).join(''))).slice(0, model.config.context);
    const timeForwards = (0, eval)(`(${timing})`); // forwards.js's, sent as its source
    return { tokens: ids.length, ...timeForwards(model, ids, runs, 10) };
  }, [200, timeForwards.toString()]);
  forward = { tokens, full: stats(full), typed: stats(added) };
  await context.close();
}
await close();

const line = (cells) => cells.map((c, i) => String(c).padEnd([58, 12, 20, 22, 26, 20][i])).join('');
console.log(line(['scenario', 'window', 'core+draw p50/p95', 'input→views p50/p95', 'input→next frame p50/p95', 'idle frame p50/p95']));
for (const r of results) {
  console.log(line([r.scenario, r.window, `${r.work.p50} / ${r.work.p95} ms`, `${r.updated.p50} / ${r.updated.p95} ms`, `${r.nextFrame.p50} / ${r.nextFrame.p95} ms`, `${r.idleFrame.p50} / ${r.idleFrame.p95} ms`]));
}
const times = ({ p50, p95, min }) => `p50 ${p50.toFixed(2)} ms, p95 ${p95.toFixed(2)} ms, fastest ${min.toFixed(2)} ms`;
console.log(`poetry model forward of ${forward.tokens} characters: every position ${times(forward.full)}; the last one typed, the rest kept ${times(forward.typed)}`);
const file = `${ensureArtifactsDir()}page-latency.json`;
writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), chromium: browser.version?.() ?? null, results, poemForward: forward }, null, 2));
console.log(`\nwritten ${file}`);
