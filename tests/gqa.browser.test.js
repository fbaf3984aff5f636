// §13, the coda (heads that share K and V: MQA, GQA), in Chromium: in Chinese and English, at 1280 and
// 375 px, free of serious axe-core violations; its numbers follow §3's inputs and its own h, h_kv and N live,
// and a h_kv that does not divide h shows the coded sentence. Screenshots go to tests/artifacts/.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startBrowserAndServer, openPage, lessonDrawn, drawnNear, seriousAxeViolations, ensureArtifactsDir } from './browser.js';

let env;
before(async () => {
  env = await startBrowserAndServer();
});
after(async () => {
  await env?.close();
});

const settle = (page) => page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
const changeText = (page) => page.$$eval('#gqa-change p:not(.pause-title)', (ps) => ps.map((p) => p.textContent).join(' '));
const weightsOf = (page, head) => page.$$eval(`#gqa-head-${head}-weights g.cell`, (cells) => cells.map((cell) => Number(cell.dataset.value).toFixed(2)));

/** Opens the page in `lang` at `width` px with the coda drawn (its module comes when it is near). */
async function openCoda(lang, width) {
  const query = lang === 'en' ? '?lang=en' : '';
  const opened = await openPage(env.browser, `${env.baseUrl}${query}`, { baseUrl: env.baseUrl, viewport: { width, height: 900 } });
  await lessonDrawn(opened.page);
  await drawnNear(opened.page, '#gqa-section');
  await opened.page.waitForSelector('#gqa-change p:not(.pause-title)');
  await opened.page.waitForSelector('#gqa-bill-modern');
  return opened;
}

for (const [lang, width] of [['zh', 1280], ['en', 1280], ['zh', 375], ['en', 375]]) {
  describe(`§13 in ${lang} at ${width} px`, () => {
    const lesson = {};
    before(async () => Object.assign(lesson, await openCoda(lang, width)));
    after(() => lesson.context?.close());

    test('the title, the worked example\'s sentence, the bill and the groups, with no serious axe violation', async () => {
      const { page, errors } = lesson;
      const title = await page.textContent('#gqa-section h2');
      assert.match(title, lang === 'zh' ? /^十三、多头之后：共用 K 和 V 的头/ : /^13\. After multi-head attention: heads that share K and V/);
      const said = await changeText(page);
      assert.match(said, lang === 'zh' ? /头 1 变得最多的一格，是“猫”这一行看“鱼”：50% → 33%/ : /Head 1 moved most where “猫” looks at “鱼”: 50% → 33%/);
      assert.match(said, lang === 'zh' ? /两套眼镜，一种眼光/ : /two pairs of glasses, one way of looking/);
      // Both heads read one K/V head: their weights are the same at the lesson's numbers.
      assert.deepEqual(await weightsOf(page, 0), await weightsOf(page, 1));
      // The modern configuration's cache at N = 1024: 512 KiB a word with MHA, a quarter with GQA.
      assert.equal(await page.textContent('#gqa-bill-modern tr[data-kind="mha"] td[data-col="per-token"]'), '512 KiB');
      assert.equal(await page.textContent('#gqa-bill-modern tr[data-kind="gqa"] td[data-col="per-token"]'), '128 KiB');
      assert.equal(await page.$$eval('#gqa-groups .gqa-group', (groups) => groups.length), 2);
      const wide = await page.evaluate(() => document.documentElement.scrollWidth > innerWidth + 1);
      assert.equal(wide, false, 'the page does not scroll sideways');
      // Each bill's title stands above its scrolling box, whole on the screen: never carried off nor cut mid-line.
      const titles = await page.$$eval('.gqa-bill-model', (models) => models.map((model) => {
        const title = model.querySelector('.gqa-bill-title');
        const { left, right } = title.getBoundingClientRect();
        const scrolls = (node) => { for (let box = node.parentElement; box; box = box.parentElement) if (/auto|scroll/.test(getComputedStyle(box).overflowX)) return true; return false; };
        return { text: title.textContent, inScroller: scrolls(title), inside: left >= -1 && right <= innerWidth + 1 && title.scrollWidth <= title.clientWidth + 1 };
      }));
      assert.equal(titles.length, 3);
      for (const title of titles) assert.deepEqual([title.inScroller, title.inside], [false, true], title.text);
      const shot = join(ensureArtifactsDir(), `gqa-${lang}-${width}.png`);
      await page.locator('#gqa-section').screenshot({ path: shot });
      const violations = await seriousAxeViolations(page);
      assert.deepEqual(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`), []);
      assert.deepEqual(errors, []);
    });
  });
}

describe('§13 follows the live state', () => {
  const lesson = {};
  before(async () => Object.assign(lesson, await openCoda('en', 1280)));
  after(() => lesson.context?.close());

  test('an edit in §3 changes the example here; h_kv and N change the groups and the bill; a bad h_kv shows its sentence', async () => {
    const { page, errors } = lesson;
    const before = await changeText(page);
    const weights = await weightsOf(page, 0);
    // q[猫] dimension 1 from 1 to −2 in §3's editor.
    await page.click('.drag-number[data-matrix="q"][data-row="0"][data-col="1"]');
    await page.fill('#entry-range', '-2');
    await settle(page);
    await drawnNear(page, '#gqa-section');
    await page.waitForFunction((old) => [...document.querySelectorAll('#gqa-change p:not(.pause-title)')].map((p) => p.textContent).join(' ') !== old, before);
    assert.notDeepEqual(await weightsOf(page, 0), weights);

    // N: the context's cache follows, four times for four times the words.
    const cell = '#gqa-bill-modern tr[data-kind="mha"] td[data-col="context"]';
    assert.equal(await page.textContent(cell), '512 MiB');
    await page.fill('#gqa-context', '4096');
    await settle(page);
    assert.equal(await page.textContent(cell), '2 GiB');

    // h and h_kv: 8 heads in 4 groups, then a h_kv that does not divide h.
    await page.fill('#gqa-h', '8');
    await page.fill('#gqa-h-kv', '4');
    await settle(page);
    assert.deepEqual(await page.$$eval('#gqa-groups .gqa-group', (groups) => groups.map((g) => g.querySelectorAll('.gqa-query').length)), [2, 2, 2, 2]);
    assert.match(await page.textContent('#gqa-divisors'), /1, 2, 4, 8/);
    await page.fill('#gqa-h-kv', '3');
    await settle(page);
    assert.equal(await page.getAttribute('#gqa-groups-error .error', 'data-code'), 'KV_HEADS_NOT_DIVISOR');
    assert.match(await page.textContent('#gqa-groups-error .error'), /h_kv = 3 does not divide h = 8/);
    assert.equal(await page.$$eval('#gqa-groups .gqa-group', (groups) => groups.length), 0);
    // A number the box cannot take is refused beside it, and the groups stay as they were.
    await page.fill('#gqa-h', '40');
    await settle(page);
    assert.match(await page.textContent('#gqa-h-hint'), /Only whole numbers from 1 to 16; it stays 8\./);
    await page.fill('#gqa-h', '8');
    await page.fill('#gqa-h-kv', '1');
    await settle(page);
    assert.equal(await page.$('#gqa-groups-error .error'), null);
    assert.match(await page.textContent('#gqa-groups-kind'), /multi-query attention/);
    assert.deepEqual(errors, []);
  });

  test('the two questions are checked by the core: right, wrong, revealed, and the weight follows §3', async () => {
    const { page, errors } = lesson;
    await page.fill('#gqa-q-cache', '72');
    await page.click('#gqa-q-cache-check');
    await settle(page);
    assert.equal(await page.getAttribute('#gqa-q-cache-result', 'data-said'), 'wrong');
    await page.fill('#gqa-q-cache', '6');
    await page.click('#gqa-q-cache-check');
    await settle(page);
    assert.equal(await page.textContent('#gqa-q-cache-result'), 'Right: the core computes 6.');
    // §3 was edited above (q[猫] dimension 1 is −2): the answer is the core's for those numbers, not the lesson's 0.33.
    await page.click('#gqa-q-weight-reveal');
    await settle(page);
    const revealed = await page.textContent('#gqa-q-weight-result');
    const [, shown] = revealed.match(/computes (\d\.\d\d)\./);
    const weights = await weightsOf(page, 0);
    assert.equal(shown, weights[2], 'head 1 on the first row, the last word');
    assert.match(await page.textContent('#gqa-q-weight-prompt'), /“鱼” on “猫”'s row/);
    await page.fill('#gqa-q-weight', shown);
    await page.click('#gqa-q-weight-check');
    await settle(page);
    assert.equal(await page.getAttribute('#gqa-q-weight-result', 'data-said'), 'right');
    // A new edit in §3: the check found on the old numbers no longer shows.
    await page.click('.drag-number[data-matrix="q"][data-row="0"][data-col="0"]');
    await page.fill('#entry-range', '2');
    await settle(page);
    await drawnNear(page, '#gqa-section');
    await page.waitForFunction(() => document.querySelector('#gqa-q-weight-result').textContent === '');
    assert.deepEqual(errors, []);
  });
});

test('while §3 refuses its numbers, the coda says so with the coded sentence and draws no example', async () => {
  const { page, errors, context } = await openPage(env.browser, `${env.baseUrl}?lang=en&q=9,1,0,0;0,2,0,2;0,0,1,1`, { baseUrl: env.baseUrl });
  try {
    await lessonDrawn(page);
    await drawnNear(page, '#gqa-section');
    await page.waitForSelector('#gqa-example-stale .error');
    assert.equal(await page.getAttribute('#gqa-example-stale .error', 'data-code'), await page.getAttribute('#hand .error', 'data-code'));
    assert.match(await page.textContent('#gqa-example-stale'), /Section 3's inputs cannot be computed/);
    assert.equal(await page.$('#gqa-change'), null);
    // The bill and the groups do not read §3: they are drawn all the same.
    await page.waitForSelector('#gqa-bill-modern');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

for (const blocked of [false, true]) {
  test(`§13 the poetry model made GQA: fetched on a click, measured ${blocked ? 'in the page where no worker starts' : 'in its worker without a task over 50 ms'}, four rows`, async (t) => {
    const { page, context, errors } = await openCoda('zh', 1280);
    try {
      if (blocked) await context.route('**/poem-groups-worker.js', (route) => route.abort());
      const workers = [];
      page.on('worker', (worker) => workers.push(new URL(worker.url()).pathname));
      await page.evaluate(() => {
        window.longTasks = [];
        new PerformanceObserver((list) => window.longTasks.push(...list.getEntries().map((e) => e.duration))).observe({ type: 'longtask' });
      });
      await page.click('#gqa-poems-start');
      await page.waitForSelector('#gqa-poems-table', { timeout: 120000 });
      const losses = await page.$$eval('#gqa-poems-table tbody tr', (rows) => rows.map((row) => [row.dataset.kvHeads, row.querySelector('td:nth-of-type(2)').textContent]));
      assert.deepEqual(losses.map(([kv]) => kv), ['8', '4', '2', '1']);
      const card = JSON.parse(readFileSync(new URL('../web/poems/poems.card.json', import.meta.url), 'utf8'));
      // The page writes the loss it measures to three places; the card keeps four (4.1525 of 4.15252).
      assert.ok(Math.abs(Number(losses[0][1]) - card.heldOutLoss) <= 0.0005 + 1e-9, `h_kv = 8 is the card's model: ${losses[0][1]}, the card ${card.heldOutLoss}`);
      assert.match(await page.textContent('#gqa-poems-says'), /不再训练/);
      // Its cells padded like the bill's, its numbers right-aligned under their headings, its caption outside the scrolling box.
      const cells = await page.$$eval('#gqa-poems-table :is(th, td)', (nodes) => nodes.map((node) => ({ pad: parseFloat(getComputedStyle(node).paddingLeft), align: getComputedStyle(node).textAlign })));
      assert.ok(cells.every((cell) => cell.pad >= 6), JSON.stringify(cells));
      assert.ok(cells.every((cell) => cell.align === 'right'), JSON.stringify(cells.map((c) => c.align)));
      assert.equal(await page.$eval('#gqa-poems-caption', (node) => node.closest('.gqa-bill') === null), true);
      const longTasks = await page.evaluate(() => window.longTasks);
      t.diagnostic(`long tasks: ${longTasks.map(Math.round).join(', ') || 'none'}`);
      if (!blocked) {
        assert.ok(workers.some((path) => path.endsWith('/poem-groups-worker.js')), `workers: ${workers}`);
        assert.deepEqual(longTasks, [], 'the page is never held up while the worker measures');
      }
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}
