// Every number explains itself (web/ui/explore.js) in Chromium: pointing at, tapping or tabbing to a
// cell of §3's figures or the pipeline shows its arithmetic with the live numbers and outlines its
// sources, at 1280 and 375 px, in zh and en. Screenshots go to tests/artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBrowserAndServer, openPage, lessonDrawn, seriousAxeViolations, ensureArtifactsDir, touchDrag, scrollSettled, drawnNear, drawAllParts } from './browser.js';

let env;
before(async () => {
  env = await startBrowserAndServer();
});
after(async () => {
  await env?.close();
});

async function load(query, viewport) {
  const opened = await openPage(env.browser, env.baseUrl + query, { baseUrl: env.baseUrl, viewport });
  await lessonDrawn(opened.page);
  return opened;
}

const settle = (page) => page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
const popoverText = (page) => page.evaluate(() => {
  const box = document.getElementById('cell-explanation');
  return box && !box.hidden ? box.innerText : null;
});
const sourceCount = (page, selector) => page.locator(`${selector}.explain-source`).count();
const cellAt = (figure, row, col) => `${figure} svg g.cell[data-row="${row}"][data-col="${col}"]`;

/** The numbers written after "=" or a colon in an explanation (with the real minus sign read back). */
const resultsIn = (text) => [...text.matchAll(/(?:= |：|: )(−?\d+(?:\.\d+)?)/g)].map(([, n]) => Number(n.replace('−', '-')));

test('pointing at cells with the mouse shows the lesson\'s arithmetic, outlines the sources, and shows the figure\'s number as the result', async () => {
  const { page, errors, context } = await load('', { width: 1280, height: 900 });
  await page.hover(cellAt('#head-0-scaled', 0, 2));
  const score = await popoverText(page);
  assert.match(score, /q_猫 · k_鱼 = 1×1 \+ 1×1 = 2/);
  assert.match(score, /2 ÷ √2 = 1\.41/);
  // q_猫 and k_鱼 in head 1's slices and in the editors, and the unscaled dot product.
  assert.equal(await sourceCount(page, 'svg[data-figure="q"][data-head="0"] g.cell[data-row="0"]'), 2);
  assert.equal(await sourceCount(page, 'svg[data-figure="k"][data-head="0"] g.cell[data-row="2"]'), 2);
  assert.equal(await sourceCount(page, '.drag-number'), 4);
  assert.equal(await sourceCount(page, cellAt('#head-0-dots', 0, 2)), 1);
  await page.screenshot({ path: `${ensureArtifactsDir()}explain-desktop-zh.png` });

  await page.hover(cellAt('#head-0-output', 0, 0));
  assert.match(await popoverText(page), /0\.2483×\[1, 0\] \+ 0\.2483×\[0, 1\] \+ 0\.5035×\[2, 0\] = \[1\.26, 0\.25\]/, 'terms written so that they add up');
  await page.hover(cellAt('#head-0-weights', 0, 2));
  assert.match(await popoverText(page), /e\^1\.41 ÷ \(e\^0\.71 \+ e\^0\.71 \+ e\^1\.41\)/);
  assert.equal(await sourceCount(page, '#head-0-scaled svg g.cell[data-row="0"]'), 3, 'the row of scores the softmax reads');

  // Random cells of every figure: the explanation ends on the number the figure shows.
  const cells = await page.$$eval('svg[data-figure] g.cell', (nodes) => nodes.map((n, i) => ({ i, value: Number(n.dataset.value) })));
  let seed = 7;
  for (let n = 0; n < 16; n++) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const { i, value } = cells[seed % cells.length];
    await page.locator('svg[data-figure] g.cell').nth(i).hover();
    const text = await popoverText(page);
    assert.ok(resultsIn(text).some((shown) => Math.abs(shown - value) < 0.0051), `${text} ends on ${value}`);
  }

  // The pipeline's cells explain themselves too; the mouse leaving hides the popover.
  const pipelineCell = '#pipeline g.stage[data-part="output"] rect[data-row="0"][data-col="0"]';
  await page.locator(pipelineCell).scrollIntoViewIfNeeded();
  await page.hover(pipelineCell);
  assert.match(await popoverText(page), /Concat 的“猫”行 · Wᴼ 的第 0 列/);
  assert.equal(await sourceCount(page, '#pipeline g[data-matrix="wo"] rect'), 4);
  await page.screenshot({ path: `${ensureArtifactsDir()}explain-pipeline-desktop-zh.png` });
  await page.mouse.move(2, 2);
  assert.equal(await popoverText(page), null);
  assert.equal(await page.locator('.explain-source').count(), 0);
  assert.deepEqual(errors, []);
  await context.close();
});

test('keyboard: one tab stop per figure, arrow keys between cells, a live region reads the arithmetic, and it follows the live numbers', async () => {
  const { page, errors, context } = await load('?lang=en', { width: 1280, height: 900 });
  const stops = await page.$$eval('svg[data-figure]', (figures) => figures.map((svg) => svg.querySelectorAll('[tabindex="0"]').length));
  assert.ok(stops.length >= 14 && stops.every((n) => n === 1), `tab stops per figure: ${stops}`);
  await page.focus('#head-0-weights svg [tabindex="0"]');
  for (const key of ['ArrowRight', 'ArrowRight', 'ArrowDown', 'ArrowRight']) await page.keyboard.press(key);
  const focused = () => page.evaluate(() => {
    const cell = document.activeElement;
    return { figure: cell.closest('figure')?.id ?? cell.closest('svg')?.dataset.figure, row: cell.dataset.row, col: cell.dataset.col, tabindex: cell.getAttribute('tabindex') };
  });
  assert.deepEqual(await focused(), { figure: 'head-0-weights', row: '1', col: '2', tabindex: '0' });
  const live = () => page.textContent('#hand p[aria-live="polite"]');
  await settle(page);
  assert.match(await live(), /Head 1 · softmax weight · 吃 → 鱼; e\^1\.41 ÷ \(e\^0 \+ e\^1\.41 \+ e\^1\.41\)/);
  // The figure's one tab stop moved with the focus; Tab goes on to the next figure.
  assert.equal(await page.locator('#head-0-weights svg [tabindex="0"]').count(), 1);
  await page.keyboard.press('Tab');
  assert.equal((await focused()).figure, 'head-0-output');
  await page.keyboard.press('Shift+Tab');
  assert.deepEqual(await focused(), { figure: 'head-0-weights', row: '1', col: '2', tabindex: '0' });
  // The mask switched on elsewhere: the explanation shown is redone with the new numbers, and stays in
  // sight meanwhile (it turns transparent only to move to another cell, until placed at the next frame).
  await settle(page);
  const opacityAfterRedraw = await page.evaluate(async () => {
    document.getElementById('hand-mask').click();
    await Promise.resolve(); // after the page's redraw, queued as a microtask by the click, and before the next frame
    return document.getElementById('cell-explanation').style.opacity;
  });
  assert.equal(opacityAfterRedraw, '');
  await settle(page);
  assert.match(await popoverText(page), /the causal mask hides 鱼 \(it comes after 吃\)/);
  await page.keyboard.press('Escape');
  assert.equal(await popoverText(page), null);

  // In the pipeline the arrow keys go on from one matrix to the next.
  await page.focus('#pipeline svg [tabindex="0"]');
  const matrixOf = () => page.evaluate(() => document.activeElement.closest('g[data-matrix]').dataset.matrix);
  assert.equal(await matrixOf(), 'q');
  for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowRight');
  assert.equal(await matrixOf(), 'k');
  assert.match(await popoverText(page), /^k · /);
  assert.deepEqual(await seriousAxeViolations(page), []);
  assert.deepEqual(errors, []);
  await context.close();
});

/** Every explained cell of §3 and the pipeline: its place, accessible name, role and tab stop. */
const cellNames = (page) => page.$$eval('svg[data-figure] .cell, #pipeline rect[data-row]', (cells) => cells.map((cell) => [
  cell.closest('[data-figure]')?.dataset.figure ?? cell.closest('[data-matrix]').dataset.matrix,
  cell.closest('[data-head]')?.dataset.head, cell.dataset.row, cell.dataset.col,
  cell.getAttribute('aria-label'), cell.getAttribute('role'), cell.getAttribute('tabindex'),
]));

test('after edits every cell is named as a fresh page with the same state names it (only the cells a redraw changed are named again)', async () => {
  const { page, errors, context } = await load('?lang=en', { width: 1280, height: 900 });
  // Four heads, a word added and another removed (new figures, cells added, moved and gone), a value (one
  // head's numbers), then a word renamed and the scores unscaled (the same cells and numbers, other names).
  await page.check('input[name="hand-heads"][value="4"]');
  await page.click('#add-token');
  await page.click('table[data-matrix="q"] tbody tr:nth-child(2) button');
  await page.click('.drag-number[data-matrix="q"][data-row="0"][data-col="0"]');
  await page.fill('#entry-range', '-1.5');
  await settle(page);
  await drawnNear(page, '#head-0-weights');
  const cell = page.locator(cellAt('#head-0-weights', 0, 0));
  assert.match(await cell.getAttribute('aria-label'), new RegExp(`: ${await cell.textContent()}$`), 'a changed number is in its name');
  await page.fill('input.token-name >> nth=1', 'dog');
  await page.uncheck('#hand-scale');
  await settle(page);
  await page.locator('#pipeline').scrollIntoViewIfNeeded();
  await page.waitForSelector('#pipeline-section:not([data-pending])');
  // §3's head cards, concat and output far from the screen were left as they were: bring each near.
  await drawAllParts(page, '#hand');
  // The address follows the state a moment later: wait until it has the last edits too.
  await page.waitForFunction(() => {
    const params = new URLSearchParams(location.search);
    return params.get('h') === '4' && params.has('scale') && (params.get('t') ?? '').includes('dog');
  });
  const edited = await cellNames(page);
  assert.ok(edited.some(([, , , , name]) => name.includes('dog')), 'the renamed word is in the names');

  const fresh = await load(new URL(page.url()).search, { width: 1280, height: 900 });
  await fresh.page.locator('#pipeline').scrollIntoViewIfNeeded();
  await fresh.page.waitForSelector('#pipeline-section:not([data-pending])');
  assert.deepEqual(edited, await cellNames(fresh.page));
  assert.deepEqual([...errors, ...fresh.errors], []);
  await fresh.context.close();
  await context.close();
});

test('dragging an entry, its explanation sits under the whole table: the rows below stay in sight', async () => {
  const { page, errors, context } = await load('', { width: 1280, height: 900 });
  const entry = page.locator('.drag-number[data-matrix="q"][data-row="0"][data-col="1"]');
  await entry.scrollIntoViewIfNeeded();
  const at = await entry.boundingBox();
  await page.mouse.move(at.x + at.width / 2, at.y + at.height / 2);
  await page.mouse.down();
  await page.mouse.move(at.x + at.width / 2 + 24, at.y + at.height / 2, { steps: 4 });
  await page.waitForFunction(() => document.querySelector('.drag-number[data-matrix="q"][data-row="0"][data-col="1"]').textContent === '1.3');
  await settle(page);
  assert.match(await popoverText(page), /q\[猫\] 第 1 维 = 1\.3/);
  const popover = await page.locator('#cell-explanation').boundingBox();
  const lastRow = await page.locator('.drag-number[data-matrix="q"][data-row="2"][data-col="1"]').boundingBox();
  assert.ok(popover.y >= lastRow.y + lastRow.height, `the popover (top ${popover.y}) is under q's last row (bottom ${lastRow.y + lastRow.height})`);
  await page.mouse.up();
  assert.deepEqual(errors, []);
  await context.close();
});

test('on a phone a tap explains a cell inside the screen, and a swipe over the cells scrolls and explains nothing', async () => {
  for (const query of ['?lang=en', '']) {
    const { page, errors, context } = await load(query, { width: 375, height: 740 });
    const concat = page.locator(cellAt('#concat-figure', 0, 2));
    await concat.scrollIntoViewIfNeeded();
    await concat.tap();
    await settle(page);
    assert.match(await popoverText(page), query ? /copied from head 2's output, same row, dimension 2: 0\.33/ : /来自头 2 的输出，同一行、第 2 维，原样搬来：0\.33/);
    assert.equal(await sourceCount(page, cellAt('#head-1-output', 0, 0)), 1);
    const box = await page.locator('#cell-explanation').boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= 375, `the popover fits the screen: ${JSON.stringify(box)}`);
    await page.screenshot({ path: `${ensureArtifactsDir()}explain-phone-${query ? 'en' : 'zh'}.png` });
    // Tapping elsewhere puts it away.
    await page.locator('#concat-figure figcaption').tap();
    assert.equal(await popoverText(page), null);

    const weights = page.locator(cellAt('#head-0-weights', 1, 1));
    await weights.scrollIntoViewIfNeeded();
    await scrollSettled(page);
    const before = await page.evaluate(() => scrollY);
    const at = await weights.boundingBox();
    await touchDrag(page, { x: at.x + at.width / 2, y: at.y + at.height / 2 }, { dy: -220 });
    const after = await scrollSettled(page);
    assert.ok(after > before + 100, `the page scrolled (${before} → ${after})`);
    assert.equal(await popoverText(page), null, 'a swipe explains nothing');
    assert.deepEqual(errors, []);
    await context.close();
  }
});
