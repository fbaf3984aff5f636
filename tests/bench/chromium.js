// The wasm module timed inside Chromium (headless, through playwright-core) for tests/bench/core.js:
// the same web/src/attention.js and mha-core.wasm the page loads, on the same seeded inputs.
import { seededRandom, randomMatrix } from '../seeded.js';

/** Resolves to { version, setup(L, d, h, rows), time(reps), close() }, or throws if Chromium cannot start. */
export async function openChromiumBench() {
  const { startBrowserAndServer } = await import('../browser.js');
  const served = await startBrowserAndServer();
  try {
    const page = await served.browser.newPage();
    const blank = `${served.baseUrl}__bench.html`;
    await page.route(blank, (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>bench</title>' }));
    await page.goto(blank);
    await page.addScriptTag({ content: `window.seededRandom = ${seededRandom}; window.randomMatrix = ${randomMatrix};` });
    await page.evaluate(async () => {
      const { loadAttention } = await import('/src/attention.js');
      window.mha = await loadAttention();
    });
    return {
      version: served.browser.version(),
      /** Makes the layer and inputs (as core.js's inputsFor does); returns the first `rows` rows of one forward. */
      setup: (L, d, h, rows) =>
        page.evaluate(([L, d, h, rows]) => {
          window.layer?.dispose();
          const random = window.seededRandom(L * 7919 + d);
          const spread = 1 / Math.sqrt(d);
          const m = (n, s) => Float32Array.from(window.randomMatrix(random, n, s));
          window.args = { x: m(L * d, 1), wq: m(d * d, 2 * spread), wk: m(d * d, 2 * spread), wv: m(d * d, spread), wo: m(d * d, spread), causal: true };
          window.layer = window.mha.createLayer({ dModel: d, heads: h, maxLen: L });
          return Array.from(window.layer.forward(window.args).output().subarray(0, rows * d));
        }, [L, d, h, rows]),
      /** Seconds per forward over a batch of reps. */
      time: (reps) =>
        page.evaluate((reps) => {
          const start = performance.now();
          for (let i = 0; i < reps; i++) window.layer.forward(window.args);
          return (performance.now() - start) / 1000 / reps;
        }, reps),
      close: () => served.close(),
    };
  } catch (error) {
    await served.close();
    throw error;
  }
}
