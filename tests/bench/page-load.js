// Benchmark (not a test): how soon the lesson page is ready on a cold load, in Chromium.
// Run: node tests/bench/page-load.js [loads]   (default 5; `--cpu 4` runs the page's CPU four times slower, as on a phone)
// Each load is a fresh browser context with the cache disabled, a 1280×900 window, the page served as
// `npm start` serves it (cross-origin isolated, compressed copies). Prints the median of the loads:
// - first paint: the first contentful paint (the "loading" line);
// - sliders usable: the frame that first shows §1's d_model box (the sections are built once the core is ready);
// - first figure: the frame that first shows §3's first heatmap;
// - first view: the response bodies' bytes as sent (encoded), of every request finished by the first figure,
//   with the Accept-Encoding this Chromium sends; and the scripts' share of them.
// Writes tests/artifacts/page-load.json with every load.
import { writeFileSync } from 'node:fs';
import { startBrowserAndServer, ensureArtifactsDir } from '../browser.js';

const args = process.argv.slice(2);
const cpuAt = args.indexOf('--cpu');
const slowdown = cpuAt >= 0 ? Number(args.splice(cpuAt, 2)[1]) : 1;
const loads = Number(args[0] ?? 5);

/** Runs in the page before its scripts: notes the frame in which each landmark is first on screen. */
function watchLandmarks() {
  const landmarks = { sliders: '#bill-dmodel', figure: '#head-0-weights svg g.cell' };
  const seen = (window.__landmarks = {});
  const observer = new MutationObserver(() => {
    for (const [name, selector] of Object.entries(landmarks)) {
      if (name in seen || !document.querySelector(selector)) continue;
      seen[name] = null;
      // The frame's start: the landmark is painted in this frame.
      requestAnimationFrame((time) => (seen[name] = time));
    }
    if (Object.keys(seen).length === Object.keys(landmarks).length) observer.disconnect();
  });
  observer.observe(document, { childList: true, subtree: true });
}

async function loadOnce(browser, baseUrl) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(watchLandmarks);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  if (slowdown !== 1) await cdp.send('Emulation.setCPUThrottlingRate', { rate: slowdown });
  const finished = []; // { url, end (ms since the epoch), bytes }
  let acceptEncoding = null;
  context.on('requestfinished', async (request) => {
    const timing = request.timing();
    const { responseBodySize } = await request.sizes();
    finished.push({ url: request.url(), end: timing.startTime + timing.responseEnd, bytes: responseBodySize });
  });
  context.on('request', async (request) => {
    acceptEncoding ??= (await request.allHeaders())['accept-encoding'] ?? '';
  });
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.goto(baseUrl);
  await page.waitForFunction(() => window.__landmarks?.figure > 0, null, { timeout: 120_000 });
  const marks = await page.evaluate(() => ({
    ...window.__landmarks,
    paint: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
    origin: performance.timeOrigin,
  }));
  await page.waitForTimeout(500); // lets requestfinished report every request that ended before the figure
  await context.close();
  if (errors.length) throw new Error(`the page failed: ${errors.join('; ')}`);
  const firstView = finished.filter(({ end }) => end <= marks.origin + marks.figure);
  const sum = (list) => list.reduce((total, { bytes }) => total + bytes, 0);
  return {
    paint: marks.paint,
    sliders: marks.sliders,
    figure: marks.figure,
    bytes: sum(firstView),
    scriptBytes: sum(firstView.filter(({ url }) => /\.(?:m?js)$/.test(new URL(url).pathname))),
    files: firstView.map(({ url, bytes }) => [new URL(url).pathname, bytes]),
    acceptEncoding,
  };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

const { browser, baseUrl, close } = await startBrowserAndServer();
const results = [];
try {
  for (let i = 0; i < loads; i++) results.push(await loadOnce(browser, baseUrl));
} finally {
  await close();
}

const of = (key) => median(results.map((result) => result[key]));
const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
const kilobytes = (bytes) => `${(bytes / 1000).toFixed(1)} KB`;
console.log(`cold loads: ${loads}, Chromium ${browser.version()}${slowdown !== 1 ? `, CPU ${slowdown}× slower` : ''}, Accept-Encoding: ${results[0].acceptEncoding}`);
console.log(`first paint       ${seconds(of('paint'))}`);
console.log(`sliders usable    ${seconds(of('sliders'))}`);
console.log(`first figure      ${seconds(of('figure'))}`);
console.log(`first view        ${kilobytes(of('bytes'))} transferred, ${kilobytes(of('scriptBytes'))} of it scripts`);
console.log(`each load (paint / sliders / figure, s): ${results.map((r) => [r.paint, r.sliders, r.figure].map((ms) => (ms / 1000).toFixed(2)).join(' / ')).join(';  ')}`);
console.log('first view of the last load:');
for (const [path, bytes] of results.at(-1).files) console.log(`  ${path.padEnd(44)} ${kilobytes(bytes)}`);
const file = `${ensureArtifactsDir()}page-load.json`;
writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), chromium: browser.version(), slowdown, results }, null, 2));
console.log(`\nwritten ${file}`);
