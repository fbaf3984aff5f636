// The page teaches as the lesson does, in Chromium: its parts numbered 一 to 六 as the lesson's (and the coda 十三), the bill's
// hidden waste and §2's three steps priced with the bill's live numbers, §3's "停一秒" callout following an
// edited number, and §6's two programs as the lesson gives them, printing what Python prints, with copy buttons.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startBrowserAndServer, openPage, lessonDrawn, drawnNear } from './browser.js';

let env;
before(async () => {
  env = await startBrowserAndServer();
});
after(async () => {
  await env?.close();
});

const fixture = (name) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
/** Two animation frames: the page redraws on the next frame after an input. */
const settle = (page) => page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
/** Waits until the address is `query` again: it carries every change of the state (written 150 ms after it). */
const backTo = (page, query = '') => page.waitForFunction((wanted) => location.search === wanted, query);
const headings = (page) => page.$$eval('main > section > h2', (h2s) => h2s.map((h2) => [h2.parentElement.id, h2.textContent]));

/** Sets an entry of the hand example through its editor: a click selects it, its slider sets it. */
async function setEntry(page, matrix, row, col, value) {
  await page.click(`.drag-number[data-matrix="${matrix}"][data-row="${row}"][data-col="${col}"]`);
  await page.fill('#entry-range', String(value));
  await settle(page);
}

describe('in Chinese at 1280 px: one page load', () => {
  const lesson = {};
  before(async () => {
    Object.assign(lesson, await openPage(env.browser, env.baseUrl, { baseUrl: env.baseUrl }));
    await lessonDrawn(lesson.page);
  });
  after(() => lesson.context?.close());

  test('the first six sections carry the lesson\'s part numbers in order, and the contents list them so', async () => {
    const { page } = lesson;
    const shown = await headings(page);
    assert.deepEqual(shown.slice(0, 6).map(([id]) => id), ['bill', 'split-section', 'hand', 'pipeline-section', 'formula-section', 'code-section']);
    // The lesson's twelve parts, then the coda past its end (§13: heads that share K and V).
    assert.deepEqual(shown.map(([, title]) => title.split('、')[0]), ['一', '二', '三', '四', '五', '六', '七', '八', '九', '十', '十一', '十二', '十三']);
    assert.equal(shown.at(-1)[0], 'gqa-section');
    assert.deepEqual(await page.$$eval('nav .toc a', (links) => links.map((a) => a.getAttribute('href').slice(1))), shown.map(([id]) => id));
    assert.equal(await page.textContent('h1'), '多头注意力 —— 一个头一种眼光');
    assert.equal(await page.textContent('.kicker'), 'Transformer 实现机制 · 第 10 课');
    assert.equal(await page.title(), '多头注意力 —— 一个头一种眼光 · Transformer 实现机制 · 第 10 课');
    // The recap closes as the lesson does, with the core's numbers.
    const recap = await page.$$eval('#recap li', (items) => items.map((li) => li.textContent));
    assert.match(recap[1], /21,233,664 个参数（约 2123 万）/);
    assert.match(recap[3], /头 1 把 50% 给了“鱼”，头 2 均匀地各给 33%/);
    assert.match(recap[5], /2,359,296 个（约 236 万）/);
  });

  test('the bill prices the naive plan\'s hidden waste, and §2 works through d_k, both from the live d_model and h', async () => {
    const { page, errors } = lesson;
    assert.match(await page.textContent('#bill-waste'), /12 套眼镜都在同一个 768 维.*花了 9 倍的钱，买到的是 12 份差不多的目光/);
    // Beside each exact count, the 万 a Chinese class reads (the lesson's 2123 万 and 236 万).
    assert.deepEqual(await page.$$eval('.bill-row', (rows) => rows.map((row) => row.querySelector('.bill-value').textContent + row.querySelector('.unit').textContent)),
      ['21,233,664个参数（约 2123 万）', '2,359,296个参数（约 236 万）']);
    assert.equal(await page.textContent('#split-live-0'), '按第一节的数：d_k = 768 ÷ 12 = 64');
    // The lesson's ratio counts Wᴼ on the split side only: the page says so, and compares like with like.
    assert.equal(await page.textContent('.bill-ratio'), '朴素做法（不含 Wᴼ）是切分做法（含 Wᴼ）的 9 倍');
    assert.equal(await page.textContent('#bill-like'), '两边只数同样的东西——Q/K/V 三套眼镜：朴素 21,233,664，切分 1,769,472，朴素是切分的 12 倍；切分做法另加的只有一个 Wᴼ（589,824 个参数）。');
    await page.fill('#bill-heads', '1');
    await settle(page);
    assert.equal(await page.textContent('.bill-ratio'), '朴素做法（不含 Wᴼ）是切分做法（含 Wᴼ）的 0.75 倍');
    assert.match(await page.textContent('#bill-like'), /朴素 1,769,472，切分 1,769,472，两者一样多；切分做法另加的只有一个 Wᴼ（589,824 个参数）/);
    await page.fill('#bill-heads', '8');
    await settle(page);
    assert.match(await page.textContent('#bill-waste'), /花了 6 倍的钱，买到的是 8 份差不多的目光/);
    // §2 is drawn once it comes near the screen.
    await drawnNear(page, '#split-live-0');
    assert.equal(await page.textContent('#split-live-0'), '按第一节的数：d_k = 768 ÷ 8 = 96');
    assert.equal(await page.textContent('#split-live-2'), '拼回 8 × 96 = 768 维，再乘 768 × 768 的 Wᴼ');
    // Refused by the bill, the numbers leave the steps, which say they wait for good ones.
    await page.fill('#bill-heads', '7');
    await drawnNear(page, '#split-section h2');
    assert.equal(await page.textContent('#split-live-0'), '');
    assert.equal(await page.isVisible('#split-waiting'), true);
    await page.fill('#bill-heads', '12');
    await backTo(page);
    assert.equal(await page.isVisible('#split-waiting'), false);
    assert.deepEqual(errors, []);
  });

  test('停一秒 compares the heads on 猫 with the lesson\'s 50% and 33% × 3 and lesson 8\'s 0.67, then names an edit and h', async () => {
    const { page, errors } = lesson;
    const callout = '#pause-text';
    const [heads, hint] = await page.$$eval(`${callout} p`, (ps) => ps.map((p) => p.textContent));
    assert.match(heads, /^同一个“猫”，头 1 盯上了“鱼”（50%），头 2 雨露均沾，均匀巡逻看得见的每个词（33% × 3）——两套眼镜，两种眼光/);
    assert.match(hint, /“吃”这一行把最大的一份 0\.67 给了自己/);
    assert.equal(await page.getAttribute(callout, 'data-changed'), 'false');
    // q_猫's dimension 2 is in head 2's slice: its row now leans to 猫 itself.
    await setEntry(page, 'q', 0, 2, 1);
    const edited = await page.textContent(callout);
    assert.match(edited, /^你改了：q、k、v 里的数。现在同一个“猫”：头 1 盯上了“鱼”（50%），头 2 盯上了“猫”（50%）。课文的数字是：头 1 盯上了“鱼”（50%），头 2 雨露均沾，均匀巡逻看得见的每个词（33% × 3）。/);
    assert.equal(await page.getAttribute(callout, 'data-changed'), 'true');
    await page.click('#hand-reset');
    await settle(page);
    assert.equal(await page.getAttribute(callout, 'data-changed'), 'false');
    // h = 4 edits no number: the callout says h changed, names the ties and counts three views.
    await page.check('input[name="hand-heads"][value="4"]');
    await settle(page);
    const fourHeads = await page.textContent(callout);
    assert.match(fourHeads, /^你改了：h（2 → 4）。现在同一个“猫”：头 1 最看“猫”和“鱼”，并列（各 42%），/);
    assert.match(fourHeads, /在“猫”这一行上，4 套眼镜，却只有 3 种眼光：头 3 和头 4 看法相同。/);
    await page.click('#hand-reset');
    await backTo(page);
    assert.deepEqual(errors, []);
  });

  test('§三\'s slices write the entries as the editors do: 1, not 1.00', async () => {
    const { page, errors } = lesson;
    const sliceOf = (matrix) => page.$$eval(`svg[data-figure="${matrix}"][data-head="0"] g.cell text`, (texts) => texts.map((text) => text.textContent));
    assert.deepEqual(await sliceOf('q'), ['1', '1', '0', '2', '0', '0']);
    assert.deepEqual(await sliceOf('v'), ['1', '0', '0', '1', '2', '0']);
    await setEntry(page, 'q', 0, 1, 1.2);
    assert.deepEqual((await sliceOf('q')).slice(0, 2), ['1', '1.2']);
    await page.click('#hand-reset');
    await backTo(page);
    assert.deepEqual(errors, []);
  });

  test('Wᴼ goes back to the identity with its button', async () => {
    const { page, errors } = lesson;
    await setEntry(page, 'wo', 0, 0, 0);
    assert.equal(await page.textContent('.drag-number[data-matrix="wo"][data-row="0"][data-col="0"]'), '0');
    await page.click('#wo-reset');
    await settle(page);
    assert.equal(await page.textContent('.drag-number[data-matrix="wo"][data-row="0"][data-col="0"]'), '1');
    await backTo(page);
    assert.deepEqual(errors, []);
  });

  test('the lesson\'s images and caveat: §2\'s telescope, §3\'s Wᴼ supervisor, §4\'s hand-picked weights linking to §9', async () => {
    const { page, errors } = lesson;
    assert.match(await page.textContent('#split-lead'), /一台完整的望远镜.*视野分成 h 段/);
    assert.match(await page.textContent('#wo-note'), /主管.*调查员.*采纳几成/);
    assert.match(await page.textContent('#pipeline-caveat'), /不是学出来的.*只能在训练中长出来/);
    const link = await page.$eval('#pipeline-caveat a', (a) => [a.getAttribute('href'), a.textContent]);
    assert.deepEqual(link, ['#train-section', await page.textContent('#train-section h2')]);
    assert.deepEqual(errors, []);
  });

  test('§5\'s notes are all shown at once, in order, with GPT-2\'s shapes and head 1\'s 猫 row as the core computes them', async () => {
    const { page, errors } = lesson;
    const notes = () => page.$$eval('#symbol-notes > li', (items) => items.map((li) => li.textContent));
    await drawnNear(page, '#symbol-notes');
    const shown = await notes();
    assert.equal(shown.length, 12);
    // Every note is on screen together, none waiting for a pointer or a focus.
    for (const text of await page.$$('#symbol-notes > li .symbol-text')) assert.ok(await text.isVisible() && (await text.textContent()).length > 10);
    assert.match(shown[2], /^W\s*i\s*Q.*手算例子里是 4×2，GPT-2（d_model = 768，h = 12）里是 768×64/);
    assert.match(shown[6], /头 1 的“猫”行此刻是 \[1\.26, 0\.25\]/);
    assert.match(shown[8], /会议纪要整合器/);
    assert.match(shown[11], /^下标别认错.*不是数字 0.*4 ÷ 2 = 2/);
    // The shapes follow section 1, and the row follows an edit of §3 (v_鱼's first entry 2 → 1: 0.25 + 0.50 × 1).
    await page.fill('#bill-heads', '8');
    await setEntry(page, 'v', 2, 0, 1);
    await drawnNear(page, '#symbol-notes');
    const edited = await notes();
    assert.match(edited[2], /按第一节的 d_model = 768、h = 8 是 768×96/);
    assert.match(edited[6], /头 1 的“猫”行此刻是 \[0\.75, 0\.25\]/);
    await page.click('#hand-reset');
    await page.fill('#bill-heads', '12');
    await backTo(page);
    assert.deepEqual(errors, []);
  });

  test('the lesson\'s closing questions follow §6, each answer linking to a part that exists; the bill refuses h = 7 as quoted', async () => {
    const { page, errors } = lesson;
    await drawnNear(page, '#questions');
    assert.equal(await page.$eval('#questions', (block) => block.closest('section').id), 'code-section');
    const questions = await page.$$eval('#questions dt', (dts) => dts.map((dt) => dt.textContent));
    assert.deepEqual(questions.map((q) => /头数|整除|Wᴼ|q 也要切/.exec(q)?.[0]), ['头数', '整除', 'Wᴼ', 'q 也要切']);
    const targets = await page.$$eval('#questions dd a', (links) => links.map((a) => Boolean(document.querySelector(a.getAttribute('href')))));
    assert.deepEqual(targets, [true, true, true, true]);
    const [, quoted] = /说明原因：“([^”]+)”/.exec(await page.textContent('#question-divide + dd'));
    await page.fill('#bill-heads', '7');
    await settle(page);
    assert.equal(await page.textContent('#bill .error'), quoted);
    await page.fill('#bill-heads', '12');
    await backTo(page);
    assert.deepEqual(errors, []);
  });

  test('§6 shows the lesson\'s two programs and prints exactly what Python printed; the seed goes into the program', async () => {
    const { page, errors } = lesson;
    const printed = (name) => fixture(name).replace(/\n$/, '');
    assert.equal(await page.textContent('#program-1-source'), fixture('lesson-program-1.py'));
    assert.equal(await page.textContent('#program-2-source'), fixture('lesson-program-2.py'));
    assert.equal(await page.textContent('#demo-a-output'), printed('lesson-program-1.out'));
    assert.equal(await page.textContent('#demo-b-output'), printed('lesson-program-2.out'));
    await page.fill('#seed2', '12');
    await settle(page);
    assert.match(await page.textContent('#program-2-source'), /rng = np\.random\.RandomState\(12\)/);
    assert.notEqual(await page.textContent('#demo-b-output'), printed('lesson-program-2.out'));
    await page.fill('#seed2', '11');
    await backTo(page);
    assert.deepEqual(errors, []);
  });

  test('a program\'s copy button puts its text on the clipboard', async () => {
    const { page, context, errors } = lesson;
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.baseUrl });
    const label = await clickedLabel(page, '#program-1-copy');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), fixture('lesson-program-1.py'));
    assert.equal(label, '已复制');
    assert.deepEqual(errors, []);
  });
});

/** Clicks a copy button and returns the label it changes to (it changes back 1.5 s later, on any machine). */
async function clickedLabel(page, selector) {
  await page.$eval(selector, (button) => {
    window.copyLabel = new Promise((resolve) => {
      const observer = new MutationObserver(() => (observer.disconnect(), resolve(button.textContent)));
      observer.observe(button, { childList: true, characterData: true, subtree: true });
    });
  });
  await page.click(selector);
  return page.evaluate(() => window.copyLabel);
}

test('without the clipboard, the copy button selects the program for the learner to copy', async () => {
  const { page, context, errors } = await openPage(env.browser, env.baseUrl, { baseUrl: env.baseUrl });
  await lessonDrawn(page);
  await page.evaluate(() => {
    navigator.clipboard.writeText = () => Promise.reject(new DOMException('denied', 'NotAllowedError'));
  });
  const label = await clickedLabel(page, '#program-2-copy');
  // A selection's text leaves out the last line's newline.
  assert.equal(await page.evaluate(() => getSelection().toString()), fixture('lesson-program-2.py').replace(/\n$/, ''));
  assert.match(label, /已选中/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('in English: the parts numbered 1 to 6, the lesson\'s title, and the callout in English from the same numbers', async () => {
  const { page, context, errors } = await openPage(env.browser, `${env.baseUrl}?lang=en`, { baseUrl: env.baseUrl });
  await lessonDrawn(page);
  const shown = await headings(page);
  assert.deepEqual(shown.map(([, title]) => title.split('. ')[0]), ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11', '12', '13']);
  assert.match(await page.textContent('#pause-text'), /head 1 locks onto “鱼” \(50%\); head 2 plays no favourites, patrolling evenly over the words it sees \(33% × 3\)/);
  assert.match(await page.textContent('#bill-waste'), /9 times the cost for 12 similar views/);
  // The lesson's title and series in English; the bill keeps its digits alone.
  assert.equal(await page.title(), 'Multi-head attention — one head, one way of looking · How Transformers are built · Lesson 10');
  assert.equal(await page.textContent('.bill-row .unit'), 'parameters');
  assert.equal(await page.textContent('#questions-title'), 'Questions a class asks');
  assert.match(await page.textContent('#symbol-notes'), /768×64 in GPT-2/);
  // The programs are the lesson's, in Chinese, in both languages.
  assert.equal(await page.textContent('#program-1-source'), fixture('lesson-program-1.py'));
  assert.deepEqual(errors, []);
  await context.close();
});
