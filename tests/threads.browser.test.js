// Both ways the core runs in a browser: served with COOP/COEP (web/tools/serve.js's default) the page is cross-origin
// isolated and loads the threaded core (and the single-threaded one beside it, for small layers), both in their
// fused multiply-add builds since Chromium has relaxed SIMD; without them (a course page that cannot set headers)
// it loads the single-threaded one alone. Either way the page and the widget show the same numbers; an isolated
// page whose fused or threaded files are missing falls back instead of failing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBrowserAndServer, lessonDrawn, viewsDrawn, HANG_MS } from './browser.js';

const servers = {};
before(async () => {
  servers.isolated = await startBrowserAndServer({ isolated: true });
  servers.plain = await startBrowserAndServer({ isolated: false });
});
after(async () => {
  await servers.isolated?.close();
  await servers.plain?.close();
});

/** Opens `path` on a server, with `block` (URL suffixes answered 404); returns the page, its errors and its wasm requests. */
async function open(served, path, { block = [] } = {}) {
  const context = await served.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = [], wasm = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('request', (request) => request.url().endsWith('.wasm') && wasm.push(request.url().split('/').pop()));
  for (const suffix of block) await context.route(`**/${suffix}`, (route) => route.fulfill({ status: 404, body: 'not found' }));
  await page.goto(served.baseUrl + path);
  return { page, context, errors, wasm };
}

const lessonNumbers = (page) => page.$$eval('#head-0-weights svg g.cell, #head-1-weights svg g.cell', (cells) => cells.map((c) => c.querySelector('text').textContent));
const bigModelNumbers = (page) => page.$$eval('#grid-figure svg g.tile', (tiles) => tiles.map((t) => t.getAttribute('data-value') ?? t.textContent));
const threadsIn = (page) => page.evaluate(async () => (await (await import('/src/attention.js')).loadAttention()).threads);
const fmaIn = (page) => page.evaluate(async () => (await (await import('/src/attention.js')).loadAttention()).fma);

async function lessonPage(served, options) {
  const opened = await open(served, '?lang=en&vs=big&vd=64&vh=8', options);
  await lessonDrawn(opened.page);
  await viewsDrawn(opened.page);
  return { ...opened, isolated: await opened.page.evaluate(() => crossOriginIsolated), lesson: await lessonNumbers(opened.page), big: await bigModelNumbers(opened.page) };
}

test('isolated: the threaded core; not isolated: the single-threaded one; the page shows the same numbers', async () => {
  const threaded = await lessonPage(servers.isolated);
  const single = await lessonPage(servers.plain);
  try {
    assert.equal(threaded.isolated, true);
    assert.deepEqual(threaded.wasm.sort(), ['mha-core-fma.wasm', 'mha-core-mt-fma.wasm'], 'the isolated page loads the threaded core, and the single-threaded one for small layers, fused');
    assert.ok((await threadsIn(threaded.page)) > 1, 'its core runs on more than one thread');
    assert.equal(await fmaIn(threaded.page), true);
    assert.equal(single.isolated, false);
    assert.deepEqual(single.wasm, ['mha-core.wasm'], 'the page that is not isolated loads only the single-threaded core');
    assert.equal(await threadsIn(single.page), 1);
    assert.equal(await fmaIn(single.page), false);
    assert.deepEqual(threaded.lesson.slice(0, 3), ['0.25', '0.25', '0.50'], "the lesson's numbers");
    assert.deepEqual(threaded.lesson, single.lesson);
    assert.ok(threaded.big.length > 0);
    assert.deepEqual(threaded.big, single.big, 'the larger model too');
    assert.deepEqual([...threaded.errors, ...single.errors], []);
  } finally {
    await threaded.context.close();
    await single.context.close();
  }
});

test('the widget works on both, with the same numbers', async () => {
  const results = [];
  for (const served of [servers.isolated, servers.plain]) {
    const { page, context, errors, wasm } = await open(served, 'course-example.html');
    try {
      await page.waitForFunction(() => customElements.get('multi-head-attention'), null, { timeout: HANG_MS });
      // updateComplete settles once a widget has drawn: with its result, or null when it shows an error.
      const settled = await page.evaluate(() => Promise.all([...document.querySelectorAll('multi-head-attention')].map(async (el) => Boolean(await el.updateComplete))));
      assert.ok(settled.length > 0 && settled.every(Boolean), `every widget has a result: ${settled}`);
      results.push({
        wasm,
        attention: await page.$$eval('multi-head-attention', (els) => els.map((el) => el.result.attention.map((a) => Array.from(a)))),
      });
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  }
  assert.deepEqual(results[0].wasm.sort(), ['mha-core-fma.wasm', 'mha-core-mt-fma.wasm']);
  assert.deepEqual(results[1].wasm, ['mha-core.wasm']);
  assert.deepEqual(results[0].attention, results[1].attention);
});

test('an isolated page without the single-threaded core runs every layer on the threaded one', async () => {
  const { page, context, errors, lesson, big } = await lessonPage(servers.isolated, { block: ['mha-core-fma.wasm'] });
  try {
    assert.deepEqual(lesson.slice(0, 3), ['0.25', '0.25', '0.50'], "the lesson's numbers");
    assert.ok(big.length > 0);
    assert.ok((await threadsIn(page)) > 1);
    const sharedLesson = await page.evaluate(async () => {
      const mha = await (await import('/src/attention.js')).loadAttention();
      const layer = mha.createLayer({ dModel: 4, heads: 2, maxLen: 3 });
      const shared = layer.forward({ q: new Float32Array(12), k: new Float32Array(12), v: new Float32Array(12) }).output().buffer instanceof SharedArrayBuffer;
      layer.dispose();
      return shared;
    });
    assert.equal(sharedLesson, true, "the lesson's layer is on the threaded core");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('an isolated page without the fused builds (a course copied only the others) runs the other threaded pair', async () => {
  const { page, context, errors, wasm, lesson, big } = await lessonPage(servers.isolated, { block: ['mha-core-mt-fma.wasm'] });
  try {
    assert.deepEqual(lesson.slice(0, 3), ['0.25', '0.25', '0.50'], "the lesson's numbers");
    assert.ok(big.length > 0);
    assert.ok(wasm.includes('mha-core-mt.wasm') && wasm.includes('mha-core.wasm'), wasm.join(' '));
    assert.ok((await threadsIn(page)) > 1);
    assert.equal(await fmaIn(page), false, 'both cores of one kind');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('an isolated page whose threaded core is missing, or whose threads cannot start, runs on one thread', async () => {
  for (const block of [['mha-core-mt-fma.wasm', 'mha-core-mt.wasm'], ['mha-core-mt.worker.js']]) {
    const { page, context, wasm, lesson } = await lessonPage(servers.isolated, { block });
    try {
      assert.deepEqual(lesson.slice(0, 3), ['0.25', '0.25', '0.50'], `${block}: the lesson's numbers`);
      assert.ok(wasm.includes('mha-core.wasm'), `${block}: fell back to the single-threaded core`);
      assert.equal(await threadsIn(page), 1);
      assert.equal(await fmaIn(page), false);
    } finally {
      await context.close();
    }
  }
});
