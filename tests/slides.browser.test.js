// The widget on a reveal.js slide (reveal.js from npm), built from the README's recipe: the keys its
// focused controls handle change the control, not the slide, and reach no listener of the page; keys
// outside it still drive the deck; `compact` fits the editable widget, every slider included, on the
// recipe's 16:9 slide.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium, ensureArtifactsDir } from './browser.js';
import { root, recipe, writeFiles, serveDirectory, openClient, checkLesson, deepFocus, tabTo, copyWidgetFolder } from './clients.js';

let work;
let site;
let browser;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'mha-slides-'));
  cpSync(join(root, 'node_modules/reveal.js/dist'), join(work, 'reveal'), { recursive: true });
  copyWidgetFolder(join(work, 'widget'));
  writeFiles(work, recipe('reveal.js'));
  site = await serveDirectory(work);
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await site?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const WIDGET = 'multi-head-attention[editable]';
const slideIndex = (page) => page.evaluate(() => window.Reveal.getIndices().h);

async function openDeck(hash = '') {
  const client = await openClient(browser, `${site.url}slides.html${hash}`, { viewport: { width: 1280, height: 720 } });
  await client.page.waitForFunction(() => window.Reveal?.isReady());
  return client;
}

test('reveal.js: arrows and Space work the focused slider, switch and menu, not the deck', async () => {
  const { page, context, log } = await openDeck();
  try {
    // Nothing focused: the deck takes the arrow key.
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => window.Reveal.getIndices().h === 1);
    await checkLesson(page, WIDGET);
    // Every key the page's own listeners see, bubbling to document and window.
    await page.evaluate(() => {
      window.pageSaw = [];
      for (const target of [document, window]) {
        for (const type of ['keydown', 'keyup']) target.addEventListener(type, (event) => window.pageSaw.push(`${type} ${event.key}`));
      }
    });

    const focus = await tabTo(page, (f) => f.type === 'range');
    assert.match(focus.label, /q/, 'the first slider is a q entry');
    const q00 = () => page.$eval(WIDGET, (el) => el.q[0][0]);
    const start = await q00();
    for (const [key, change] of [['ArrowRight', 0.1], ['ArrowRight', 0.2], ['ArrowLeft', 0.1], ['ArrowUp', 0.2], ['ArrowDown', 0.1]]) {
      await page.keyboard.press(key);
      await page.waitForFunction(([want]) => Math.abs(document.querySelector('multi-head-attention[editable]').q[0][0] - want) < 1e-9, [start + change]);
      assert.equal(await slideIndex(page), 1, `${key} on the slider left the slide alone`);
    }
    assert.equal((await deepFocus(page)).type, 'range', 'the slider keeps the focus (it does not fall to <body>)');

    await page.keyboard.press('Shift+Tab'); // back to the scale switch, then the causal one
    await page.keyboard.press('Shift+Tab');
    assert.equal((await deepFocus(page)).type, 'checkbox');
    assert.equal(await page.$eval(WIDGET, (el) => el.causal), false);
    await page.keyboard.press('Space');
    await page.waitForFunction(() => document.querySelector('multi-head-attention[editable]').causal === true);
    assert.equal(await slideIndex(page), 1, 'Space toggled the causal mask, not the slide');

    await page.keyboard.press('Shift+Tab');
    assert.equal((await deepFocus(page)).tag, 'select');
    await page.keyboard.press('ArrowDown');
    await page.waitForFunction(() => document.querySelector('multi-head-attention[editable]').heads === 4);
    assert.equal(await slideIndex(page), 1, 'ArrowDown changed the head count, not the slide');

    const handled = (await page.evaluate(() => window.pageSaw)).filter((seen) => !/ (Tab|Shift)$/.test(seen));
    assert.deepEqual(handled, [], 'the page saw none of the keys the controls handled (only Tab and Shift)');

    // Focus outside the widget: the deck has its keys back.
    await page.mouse.click(5, 5);
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => window.Reveal.getIndices().h === 2);
    assert.deepEqual(log.errors, []);
    assert.deepEqual(log.offsite, []);
  } finally {
    await context.close();
  }
});

test('reveal.js: the compact editable widget fits the 16:9 slide with every q, k and v slider; the full layout does not', async () => {
  const { page, context } = await openDeck('#/1');
  try {
    await checkLesson(page, WIDGET);
    const measure = () => page.evaluate(() => {
      const el = document.querySelector('multi-head-attention[editable]');
      const slides = document.querySelector('.reveal .slides').getBoundingClientRect();
      const scale = slides.height / window.Reveal.getConfig().height;
      const sliders = [...el.shadowRoot.querySelectorAll('input[type="range"]')].map((input) => input.getBoundingClientRect());
      const box = el.getBoundingClientRect();
      return {
        slide: { width: Math.round(slides.width / scale), height: Math.round(slides.height / scale) },
        height: box.height / scale,
        sliders: sliders.length,
        inside: sliders.every((r) => r.top >= slides.top && r.bottom <= slides.bottom && r.left >= slides.left && r.right <= slides.right),
        widgetInside: box.top >= slides.top - 1 && box.bottom <= slides.bottom + 1,
      };
    });
    await page.screenshot({ path: `${ensureArtifactsDir()}reveal-compact.png` });
    const compact = await measure();
    assert.deepEqual(compact.slide, { width: 960, height: 540 }, 'the recipe\'s slide is 16:9');
    assert.equal(compact.sliders, 36, 'q, k and v: 3 tokens × 4 dimensions each');
    assert.ok(compact.inside && compact.widgetInside, `every slider on the slide (widget ${Math.round(compact.height)} px tall)`);

    await page.$eval(WIDGET, (el) => (el.compact = false));
    await page.waitForFunction(() => document.querySelector('multi-head-attention[editable]').shadowRoot.querySelector('.controls')?.getBoundingClientRect().height > 300);
    const full = await measure();
    assert.ok(full.height > 540 && !full.inside, `without compact it is ${Math.round(full.height)} px tall and does not fit`);
  } finally {
    await context.close();
  }
});
