// The wasm module timed inside Chromium (headless, through playwright-core) for tests/bench/core.js:
// the same web/src/attention.js and web/dist cores the page loads, on the same seeded inputs.
import { ISOLATION_HEADERS } from '../../web/tools/serve.js';
import { seededRandom, randomMatrix } from '../seeded.js';

/**
 * Resolves to { version, openPage({ isolated, threads, fma }), close() }, or throws if Chromium cannot start.
 * An isolated page (sent the cross-origin isolation headers) runs the threaded core, and with `fma` (the
 * default) its fused multiply-add build; a page without them, as on a host that cannot send them, runs the
 * single-threaded one whatever `threads` asks.
 */
export async function openChromiumBench() {
  const { startBrowserAndServer } = await import('../browser.js');
  const served = await startBrowserAndServer();
  return {
    version: served.browser.version(),
    /** Resolves to { threads (as running), fma (as running), setup(L, d, h, rows), time(reps) }. */
    async openPage({ isolated, threads, fma = true }) {
      const page = await served.browser.newPage();
      const url = `${served.baseUrl}__bench${isolated ? '-isolated' : ''}${fma ? '' : '-no-fma'}.html`;
      await page.route(url, (route) =>
        route.fulfill({ contentType: 'text/html', headers: isolated ? ISOLATION_HEADERS : {}, body: '<!doctype html><title>bench</title>' }));
      await page.goto(url);
      if ((await page.evaluate(() => globalThis.crossOriginIsolated)) !== isolated) {
        throw new Error(`the ${isolated ? '' : 'non-'}isolated bench page is${isolated ? ' not' : ''} cross-origin isolated`);
      }
      await page.addScriptTag({ content: `window.seededRandom = ${seededRandom}; window.randomMatrix = ${randomMatrix};` });
      const running = await page.evaluate(async ([threads, fma]) => {
        const { loadAttention } = await import('/src/attention.js');
        window.mha = await loadAttention({ threads, fma });
        return { threads: window.mha.threads, fma: window.mha.fma };
      }, [threads, fma]);
      return {
        ...running,
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
      };
    },
    close: () => served.close(),
  };
}
