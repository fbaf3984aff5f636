// Benchmark (not a test): the longest task of the page's main thread, in Chromium, at the largest sizes the docs
// allow: <multi-head-attention> at 32 tokens × d 64 with 64 heads in each view, a q attribute of 11 MB of JSON
// and one of a 1e6-deep array, and the lesson page's §10 opening GPT-2-layout files of 1,024 and 4,096 heads,
// then switching a head off. Each row is traced, and gives the task in which the main thread ran longest: that
// time, and the task's wall time (on a shared machine this also holds the time other processes had the core).
// Run: node tests/bench/long-tasks.js [widget | page]   (both by default).
import { startBrowserAndServer, openPage } from '../browser.js';
import { gpt2File, randomWeights } from '../gpt-reference.js';
import { seededRandom } from '../seeded.js';

const parts = process.argv[2] ? [process.argv[2]] : ['widget', 'page'];
const served = await startBrowserAndServer();
const version = served.browser.version();
const rows = [];

/** Two frames and a pause: what an action set off has been drawn. */
const settle = (page) => page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 200)))));

/** Runs `action` under a trace; returns [its result, { cpu, wall }] of the task the page's main thread ran longest. */
async function traced(page, action) {
  await settle(page);
  await served.browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] });
  const result = await action();
  await settle(page);
  const { traceEvents } = JSON.parse(await served.browser.stopTracing());
  const mains = new Set(traceEvents.filter((e) => e.name === 'thread_name' && e.args.name === 'CrRendererMain').map((e) => `${e.pid}/${e.tid}`));
  const tasks = traceEvents.filter((e) => e.name === 'RunTask' && mains.has(`${e.pid}/${e.tid}`) && e.dur);
  const longest = tasks.reduce((best, task) => ((task.tdur ?? 0) > (best?.tdur ?? 0) ? task : best), null);
  return [result, { wall: (longest?.dur ?? 0) / 1000, cpu: (longest?.tdur ?? 0) / 1000 }];
}
const row = (scenario, { cpu, wall }, drawn = '') => rows.push([scenario, `${Math.round(cpu)} ms`, `${Math.round(wall)} ms`, drawn]);

try {
  if (parts.includes('widget')) await widgetRows();
  if (parts.includes('page')) await pageRows();
} finally {
  await served.close();
}
console.log(`Chromium ${version}`);
console.log('| scenario | longest task: main thread running | its wall time | drawn |\n|---|---|---|---|');
for (const cells of rows) console.log(`| ${cells.join(' | ')} |`);

async function widgetRows() {
  const { page, context } = await openPage(served.browser, `${served.baseUrl}course-example.html`, { baseUrl: served.baseUrl });
  await page.waitForFunction(() => customElements.get('multi-head-attention'));
  await page.evaluate(() => document.querySelector('multi-head-attention').updateComplete);
  const random = seededRandom(5);
  const matrix = () => JSON.stringify(Array.from({ length: 32 }, () => Array.from({ length: 64 }, () => Math.round((random() * 2 - 1) * 100) / 100)));
  const largest = { tokens: JSON.stringify(Array.from({ length: 32 }, (_, i) => `w${i + 1}`)), q: matrix(), k: matrix(), v: matrix(), heads: '64' };
  // The attributes are handed to the page first: the timed part adds the widget and waits until it has drawn.
  const widget = async (attributes, huge = null) => {
    await page.evaluate(([attributes, huge]) => {
      document.querySelectorAll('.bench').forEach((old) => old.remove());
      window.attributes = attributes;
      // Huge values are made in the page: handing them over from here would be a long task of its own.
      if (huge === 'deep') window.attributes.q = `${'['.repeat(1e6)}${']'.repeat(1e6)}`;
      if (huge === 'long') window.attributes.q = JSON.stringify(Array.from({ length: 1e6 }, () => [0.123456]));
    }, [attributes, huge]);
    return traced(page, () => page.evaluate(async () => {
      const element = document.createElement('multi-head-attention');
      element.className = 'bench';
      for (const [name, value] of Object.entries(window.attributes)) element.setAttribute(name, value);
      document.body.append(element);
      await element.updateComplete;
      return { elements: element.shadowRoot.querySelectorAll('*').length, code: element.shadowRoot.querySelector('[data-code]')?.dataset.code };
    }));
  };
  for (const view of ['heatmaps', 'lines', 'pipeline', 'full']) {
    const [{ elements }, longest] = await widget({ ...largest, view });
    row(`widget, 32 tokens × d 64, heads 64, view="${view}"`, longest, `${elements} elements`);
  }
  for (const [name, huge] of [['a 1e6-deep array', 'deep'], ['11 MB of JSON', 'long']]) {
    const [{ code }, longest] = await widget(largest, huge);
    row(`widget, q = ${name}`, longest, code);
  }
  await context.close();
}

async function pageRows() {
  for (const [layers, heads] of [[16, 64], [64, 64]]) {
    const config = { layers, heads, dModel: 64, context: 80, vocab: 50257 };
    const file = gpt2File(config, randomWeights(config, seededRandom(layers), { spread: 0.5 }), { dtype: 'F16' });
    const { page, context } = await openPage(served.browser, `${served.baseUrl}?lang=en`, { baseUrl: served.baseUrl });
    await page.locator('#poems-section').scrollIntoViewIfNeeded();
    await page.waitForSelector('#poem-tiles .poem-tile', { timeout: 120000 }); // the poetry model, loaded first
    await page.check('#poem-source-gpt2');
    // The file is fetched into the page before the trace, then dropped (Playwright's setInputFiles would decode its
    // bytes on the page's thread, in the trace).
    const url = `${served.baseUrl}bench-many-heads.safetensors`;
    await page.route(url, (route) => route.fulfill({ body: Buffer.from(file), contentType: 'application/octet-stream' }));
    await page.evaluate(async (url) => {
      window.dropped = new DataTransfer();
      window.dropped.items.add(new File([await (await fetch(url)).blob()], 'many-heads.safetensors'));
    }, url);
    // The tiles are drawn a few a frame: a drawing ends with the run's last (whole layers, up to 144 heads).
    const run = Math.floor(144 / heads) * heads;
    const [tiles, opened] = await traced(page, async () => {
      await page.evaluate(() => document.querySelector('#gpt2-drop').dispatchEvent(new DragEvent('drop', { dataTransfer: window.dropped, bubbles: true, cancelable: true })));
      await page.waitForSelector('#gpt2-top-all li', { timeout: 120000 });
      await page.waitForFunction((run) => document.querySelector('#gpt2-tiles').dataset.drawn === String(run), run);
      return page.$$eval('#gpt2-tiles .poem-tile', (found) => found.length);
    });
    row(`§10, a file of ${layers} layers × ${heads} heads: opened, first result`, opened, `${tiles} tiles`);
    const [, off] = await traced(page, async () => {
      await page.locator('#gpt2-off input').first().check();
      await page.waitForSelector('#gpt2-top-now li', { timeout: 120000 });
      await page.waitForFunction((run) => document.querySelector('#gpt2-tiles canvas.off') && document.querySelector('#gpt2-tiles').dataset.drawn === String(run), run);
    });
    row(`§10, ${layers * heads} heads: one head switched off`, off);
    await context.close();
  }
}
