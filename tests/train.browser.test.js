// The 训练 section in real Chromium: training runs in a module Web Worker, the loss falls, and the two
// heads' attention on the example sentence ends up different — one on the previous position, the
// other on position 0 — measured from the trainer's attention(i); ablation appears after a pause.
// The section and its worker are bundled here with esbuild (as web/tools/bundle.js would) and served beside
// web/dist/mha-core.wasm, so this test does not depend on how the page wires the section in.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { headViews as views } from '../web/training/views.js';
import { startBrowserAndServer, seriousAxeViolations, ensureArtifactsDir, HANG_MS } from './browser.js';

const web = fileURLToPath(new URL('../web/', import.meta.url));
let env;
let bundles;

before(async () => {
  const result = await build({
    entryPoints: [
      { in: `${web}training/panel.js`, out: 'train-section' },
      { in: `${web}training/train-worker.js`, out: 'train-worker' },
    ],
    outdir: '/', // nothing is written: write: false
    write: false,
    bundle: true,
    format: 'esm',
    target: 'es2020',
    external: ['*.wasm', 'node:*'],
    logLevel: 'warning',
  });
  bundles = Object.fromEntries(result.outputFiles.map((file) => [file.path.split('/').pop(), file.text]));
  // The section with its comparison in one bundle, as the page has them (one copy of the UI layer's virtual nodes).
  const withCompare = await build({
    stdin: { contents: "export { mountTraining } from './panel.js'; export * as compare from './compare.js';", resolveDir: `${web}training`, loader: 'js' },
    write: false, bundle: true, format: 'esm', target: 'es2020', external: ['*.wasm', 'node:*'], logLevel: 'warning',
  });
  bundles['train-compare.js'] = withCompare.outputFiles[0].text;
  env = await startBrowserAndServer();
});
after(async () => {
  await env?.close();
});

const HTML = `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><title>训练</title></head>
<body><main id="host"></main>
<script type="module">
  import { mountTraining } from './dist/__train-section.js';
  window.training = mountTraining(document.getElementById('host'), { lang: 'zh', heads: 2, stepsPerTick: 25, maxSteps: 1500 });
</script></body></html>`;

// As the page mounts it: with the comparison of MHA, GQA and MQA (training/compare.js), here at h = 4 and fast.
const HTML_KV = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Training</title></head>
<body><main id="host"></main>
<script type="module">
  import { mountTraining, compare } from './dist/__train-compare.js';
  window.training = mountTraining(document.getElementById('host'), { lang: 'en', heads: 4, stepsPerTick: 100, maxSteps: 1500, compare });
</script></body></html>`;

/** The page's mount, with the comparison, in `lang` for h = `heads`; `speed` steps a tick unless the mount's own. */
const htmlWith = ({ lang, heads, speed }) => HTML_KV.replace("lang: 'en', heads: 4, stepsPerTick: 100,", `lang: '${lang}', heads: ${heads},${speed ? ` stepsPerTick: ${speed},` : ''}`).replace('lang="en"', `lang="${lang}"`);

/** Waits until the section has its trainer (data-state leaves "loading") and checks that it is ready, not failed. */
async function trainerReady(page) {
  await page.waitForSelector('.mha-train:not([data-state="loading"])', { timeout: HANG_MS });
  assert.equal(await page.getAttribute('.mha-train', 'data-state'), 'ready');
}

async function openTraining({ viewport = { width: 1280, height: 900 }, workerHeld, html = HTML } = {}) {
  const context = await env.browser.newContext({ viewport });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
  page.on('pageerror', (error) => errors.push(String(error)));
  const js = (body) => ({ status: 200, contentType: 'text/javascript; charset=utf-8', body });
  await context.route('**/__train-test.html', (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html }));
  await context.route('**/dist/__train-section.js', (route) => route.fulfill(js(bundles['train-section.js'])));
  await context.route('**/dist/__train-compare.js', (route) => route.fulfill(js(bundles['train-compare.js'])));
  await context.route('**/dist/train-worker.js', async (route) => {
    await workerHeld; // until the test lets the trainer start
    await route.fulfill(js(bundles['train-worker.js']));
  });
  await page.goto(`${env.baseUrl}__train-test.html`);
  if (!workerHeld) await trainerReady(page);
  return { page, context, errors };
}

test('the section is as tall while the trainer loads as once its numbers arrive (nothing below it moves)', async (t) => {
  for (const viewport of [{ width: 1280, height: 900 }, { width: 375, height: 740 }]) {
    let release;
    const { page, context, errors } = await openTraining({ viewport, workerHeld: new Promise((resolve) => (release = resolve)) });
    try {
      const height = () => page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve(document.querySelector('.mha-train').getBoundingClientRect().height))));
      await page.waitForSelector('.mha-train[data-state="loading"] .train-placeholder', { state: 'attached' });
      const loading = await height();
      release();
      await trainerReady(page);
      const ready = await height();
      t.diagnostic(`${viewport.width} px wide: ${loading} px while loading, ${ready} px ready`);
      assert.ok(Math.abs(ready - loading) <= 24, `${viewport.width} px wide: ${loading} px while loading, ${ready} px ready`);
      assert.equal(await page.locator('.mha-train .train-placeholder').count(), 0, 'the placeholders are gone');
      assert.equal(await page.locator('.mha-train figure.train-head').count(), 2);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  }
});


test('training in a worker: the loss falls and the two heads take two different views', async () => {
  const { page, context, errors } = await openTraining();
  try {
    assert.equal(await page.evaluate(() => window.training.runsIn), 'worker');
    const before = await page.evaluate(() => window.training.snapshot());
    assert.equal(before.steps, 0);
    assert.equal(before.attention.length, 2);
    assert.equal(await page.locator('.mha-train figure.train-head').count(), 2);

    // Watch the main thread while training runs: the longest gap between animation frames.
    await page.evaluate(() => {
      window.maxGap = 0;
      let last = performance.now();
      const loop = (now) => {
        window.maxGap = Math.max(window.maxGap, now - last);
        last = now;
        if (!window.stopWatch) requestAnimationFrame(loop);
      };
      requestAnimationFrame(loop);
    });
    await page.click('.mha-train button.train-start');
    await page.waitForSelector('.mha-train[data-state="running"]', { timeout: HANG_MS });
    await page.waitForFunction(() => window.training.snapshot().steps >= 400, null, { timeout: HANG_MS });
    // Paused well before the last step (1,500, about 1.8 s on), so the button pauses rather than starting over.
    await page.click('.mha-train button.train-start');
    await page.waitForSelector('.mha-train[data-state="paused"]', { timeout: HANG_MS });
    await page.waitForSelector('.mha-train .train-ablation tr.head-off', { timeout: HANG_MS });
    const measuredAt = await page.getAttribute('.mha-train .train-ablation table', 'data-steps');
    assert.equal(await page.textContent('.mha-train .train-ablation caption'), `第 ${measuredAt} 步暂停时算的；训练接着跑时它不变，下次暂停再重算。`);
    const maxGap = await page.evaluate(() => ((window.stopWatch = true), window.maxGap));

    const after = await page.evaluate(() => window.training.snapshot());
    assert.ok(after.eval.loss < 0.2 * before.eval.loss, `held-out loss ${before.eval.loss} → ${after.eval.loss}`);
    const L = after.seqLen;
    const [v0, v1] = after.attention.map((a) => views(a, L));
    const prevHead = v0.previous > v1.previous ? 0 : 1;
    const [back, start] = prevHead === 0 ? [v0, v1] : [v1, v0];
    assert.ok(back.previous > 0.8, `one head looks one step back: ${JSON.stringify([v0, v1])}`);
    assert.ok(start.first > 0.8, `the other looks at position 0: ${JSON.stringify([v0, v1])}`);
    const untrained = before.attention.map((a) => views(a, L));
    assert.ok(untrained.every((v) => v.previous < 0.6 && v.first < 0.6), `before training no head had a view: ${JSON.stringify(untrained)}`);

    // The page shows it too: each head's figure names its view, and ablation lists both heads.
    const named = await page.$$eval('.mha-train figure.train-head', (figs) => figs.map((f) => f.dataset.view).sort());
    assert.deepEqual(named, ['first', 'previous']);
    assert.equal(await page.locator('.mha-train .train-ablation tr.head-off').count(), 2);
    const ablation = await page.evaluate(() => window.training.snapshot().ablation);
    assert.ok(ablation.off.every((e) => e.loss > ablation.all.loss + 0.5), 'switching either head off costs loss');
    assert.ok(await page.locator('.mha-train svg.loss-curve path.current').count() === 1, 'a loss curve is drawn');
    assert.ok(maxGap < 500, `the main thread stayed responsive (longest frame gap ${Math.round(maxGap)} ms)`);

    await page.screenshot({ path: `${ensureArtifactsDir()}train-section.png`, fullPage: true });
    const serious = await seriousAxeViolations(page);
    assert.deepEqual(serious.map((v) => `${v.id}: ${v.help} ${v.nodes.map((n) => n.target.join(" ") + " " + n.failureSummary).join(" | ")}`), []);

    // h = 1 keeps the h = 2 curve for comparison and shows one heatmap.
    await page.click('.mha-train input[type="radio"][value="1"]');
    await page.waitForFunction(() => window.training.snapshot().heads === 1 && window.training.snapshot().attention.length === 1, null, { timeout: HANG_MS });
    await page.waitForSelector('.mha-train svg.loss-curve path.past[data-heads="2"]', { timeout: HANG_MS });
    // The panel redraws at the next frame after the worker's answer: wait for the figures, not the state.
    await page.waitForFunction(() => document.querySelectorAll('.mha-train figure.train-head').length === 1, null, { timeout: HANG_MS });
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('starting again after the last step trains from step 0, and the finished run\'s ablation goes with it', async () => {
  const { page, context, errors } = await openTraining();
  try {
    await page.click('.mha-train button.train-start');
    await page.waitForSelector('.mha-train[data-state="done"]', { timeout: HANG_MS });
    await page.waitForSelector('.mha-train .train-ablation table[data-steps="1500"]', { timeout: HANG_MS });
    await page.click('.mha-train button.train-start');
    await page.waitForFunction(() => Number(document.querySelector('.mha-train').dataset.steps) < 1500 && !document.querySelector('.mha-train .train-ablation table'), null, { timeout: HANG_MS });
    assert.match(await page.textContent('.mha-train .train-ablation'), /先训练一会儿，再暂停/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('MHA, GQA and MQA of one h trained in turn on one seed: the heads name their K/V group, the finished runs are compared', async () => {
  const { page, context, errors } = await openTraining({ html: HTML_KV });
  try {
    assert.deepEqual(await page.$$eval('.mha-train .train-kv input', (inputs) => inputs.map((i) => [i.value, i.checked])), [['4', true], ['2', false], ['1', false]]);
    assert.ok(await page.locator('.mha-train .train-compare-wait').count() === 1, 'nothing to compare yet');
    const finish = async () => {
      await page.click('.mha-train .train-start');
      await page.waitForFunction(() => document.querySelector('.mha-train').dataset.state === 'done', null, { timeout: HANG_MS });
    };
    await finish();
    await page.check('.mha-train .train-kv input[value="2"]');
    await page.waitForFunction(() => window.training.snapshot().kvHeads === 2 && document.querySelector('.mha-train').dataset.state === 'ready', null, { timeout: HANG_MS });
    assert.deepEqual(await page.$$eval('.mha-train figure.train-head', (figures) => figures.map((f) => f.dataset.group)), ['0', '0', '1', '1']);
    await finish();
    await page.check('.mha-train .train-kv input[value="1"]');
    await page.waitForFunction(() => window.training.snapshot().kvHeads === 1 && document.querySelector('.mha-train').dataset.state === 'ready', null, { timeout: HANG_MS });
    await finish();
    await page.waitForFunction(() => document.querySelectorAll('.mha-train table.train-compare tbody tr').length === 3, null, { timeout: HANG_MS });
    const { compared } = await page.evaluate(() => window.training.snapshot());
    assert.deepEqual(compared.rows.map((r) => r.kvHeads), [4, 2, 1]);
    // The sentence writes the run's own ratios.
    const says = await page.textContent('.mha-train .train-compare-says');
    for (const row of compared.rows.slice(1)) assert.ok(says.includes(row.finalRatio.toFixed(2)), says);
    // Three dashed or solid lines, one a model, labelled with its kind.
    assert.equal(await page.locator('.mha-train svg.loss-curve path').count(), 3);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('a model picked after the speed trains at that speed, not the one the section was mounted with', async () => {
  const { page, context, errors } = await openTraining({ html: htmlWith({ lang: 'zh', heads: 2 }) });
  try {
    await page.selectOption('.mha-train .train-controls select', '25'); // 快
    await page.check('.mha-train .train-kv input[value="1"]');
    await page.waitForFunction(() => window.training.snapshot().kvHeads === 1 && document.querySelector('.mha-train').dataset.state === 'ready', null, { timeout: HANG_MS });
    await page.click('.mha-train .train-start');
    await page.waitForFunction(() => window.training.snapshot().history.length >= 6, null, { timeout: HANG_MS });
    await page.click('.mha-train .train-start');
    const steps = (await page.evaluate(() => window.training.snapshot().history)).map(([step]) => step);
    const ticks = steps.slice(1).map((step, i) => step - steps[i]);
    assert.ok(ticks.length >= 5 && ticks.every((n) => n === 25), `steps a tick after switching model: ${ticks}`);
    assert.equal(await page.$eval('.mha-train .train-controls select', (select) => select.value), '25');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('on a phone (375 px) the comparison fits or scrolls in its box, its caption above it, no heading a character a line', async () => {
  for (const lang of ['en', 'zh']) {
    const { page, context, errors } = await openTraining({ html: htmlWith({ lang, heads: 2, speed: 100 }), viewport: { width: 375, height: 740 } });
    try {
      for (const kv of ['2', '1']) {
        await page.check(`.mha-train .train-kv input[value="${kv}"]`);
        await page.waitForFunction((kv) => window.training.snapshot().kvHeads === Number(kv) && document.querySelector('.mha-train').dataset.state === 'ready', kv, { timeout: HANG_MS });
        await page.click('.mha-train .train-start');
        await page.waitForFunction(() => document.querySelector('.mha-train').dataset.state === 'done', null, { timeout: HANG_MS });
      }
      await page.waitForSelector('.mha-train table.train-compare tbody tr:nth-child(2)', { timeout: HANG_MS });
      await page.locator('.mha-train table.train-compare').scrollIntoViewIfNeeded();
      const layout = await page.evaluate(() => {
        const width = document.documentElement.clientWidth;
        const scroller = (node) => {
          for (let box = node.parentElement; box; box = box.parentElement) if (/auto|scroll/.test(getComputedStyle(box).overflowX)) return box;
          return null;
        };
        // What of the table lies past the window's edges, other than inside a box that scrolls sideways within the window.
        const outside = [...document.querySelectorAll('.mha-train .train-compare-result *')].filter((node) => {
          const { left, right } = node.getBoundingClientRect();
          if (left >= -1 && right <= width + 1) return false;
          const box = scroller(node);
          if (!box) return true;
          const b = box.getBoundingClientRect();
          return b.left < -1 || b.right > width + 1 || box.scrollWidth <= box.clientWidth;
        }).map((node) => `${node.tagName} ${node.textContent.slice(0, 20)}`);
        // A heading or a name on more lines than words: a character a line.
        const lines = (node) => { const range = document.createRange(); range.selectNodeContents(node); return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size; };
        const stacked = [...document.querySelectorAll('.mha-train table.train-compare :is(thead th, tbody th, td:not(:last-child))')]
          .filter((cell) => lines(cell) > 2).map((cell) => `${cell.textContent}: ${lines(cell)} lines`);
        const caption = document.querySelector('.mha-train .train-compare-caption');
        return { outside, stacked, captionInScroller: Boolean(caption && scroller(caption)) };
      });
      assert.deepEqual(layout.outside, [], `${lang}: past the screen's edge`);
      assert.deepEqual(layout.stacked, [], `${lang}: cells stacked a character a line`);
      assert.equal(layout.captionInScroller, false, `${lang}: the caption scrolls away with the table`);
      await page.screenshot({ path: `${ensureArtifactsDir()}train-compare-375-${lang}.png`, fullPage: true });
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  }
});
