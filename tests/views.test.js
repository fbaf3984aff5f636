// The sections' views: pure functions from a section's numbers (computed by the core) and its words to DOM,
// each against a golden HTML snapshot in tests/golden/views/, rendered with linkedom as draw.test.js renders
// the figures. UPDATE_GOLDEN=1 rewrites them after an intended change. The mounts that wire these views to
// the page's state and events are tested in Chromium (page.browser.test.js, voice.browser.test.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseHTML } from 'linkedom';
import { loadAttention } from '../web/src/attention.js';
import { TEXT } from '../web/page/text.js';
import { billFacts, billView } from '../web/page/sections/bill.js';
import { ablationFigures } from '../web/page/sections/ablation.js';
import { splitNumbers, splitLines } from '../web/page/sections/split.js';
import { questionFacts, questionsView } from '../web/page/sections/questions.js';
import { programTwoMaps } from '../web/page/sections/code.js';
import { programTwoOutput } from '../web/page/lesson-programs.js';
import { defaultState } from '../web/page/state.js';
import { runHand } from '../web/page/core.js';
import { defaultHand } from '../web/hand/limits.js';
import { show } from '../web/ui/dom.js';
import { createSession } from '../web/shared/session.js';
import { exampleFacts, billFacts as codaBillFacts, groupFacts } from '../web/gqa/facts.js';
import { exampleView, billView as codaBillView, groupsView } from '../web/gqa/views.js';
import { GQA_TEXT } from '../web/gqa/strings.js';
import { signedDomainOf, legendsView, headCard, concatView, outputView, pauseView } from '../web/hand/views.js';
import { lessonPauseFacts, handPauseFacts } from '../web/hand/pause.js';
import { HAND_TEXT } from '../web/hand/strings.js';
import { range } from '../web/ui/section.js';
import { matchGolden } from './golden.js';

const mha = await loadAttention();
const { document } = parseHTML('<!doctype html><html><body></body></html>');

/** A view's virtual nodes shown in a box of linkedom's document, as the page shows them in its own. */
const shown = (view) => show(document.createElement('div'), view);

test('§1 the bill: GPT-2\'s sizes and the lesson\'s, in both languages, from the core\'s counts', () => {
  for (const lang of ['zh', 'en']) {
    for (const [name, sizes] of [['gpt2', { dModel: 768, heads: 12 }], ['one-head', { dModel: 512, heads: 1 }]]) {
      const facts = billFacts(mha, sizes);
      const view = shown(billView(TEXT[lang].bill, facts));
      matchGolden(`views/bill-${name}-${lang}.html`, view);
      // The figures drawn are the core's, whatever the golden says.
      assert.equal(view.querySelector('#bill-naive').textContent, facts.naive.toLocaleString('en-US'));
      assert.equal(view.querySelector('#bill-split').textContent, facts.split.toLocaleString('en-US'));
      assert.equal(view.querySelector('#bill-dk').textContent, String(sizes.dModel / sizes.heads));
    }
  }
});

test('§1 the bill: sizes the page refuses throw its error, never draw a view', () => {
  for (const sizes of [{ dModel: 768, heads: 7 }, { dModel: 0, heads: 1 }, { dModel: NaN, heads: 2 }]) {
    assert.throws(() => billFacts(mha, sizes), (error) => typeof error.code === 'string' && error.code.length > 0);
  }
});

test('§8 switching a head off: the lesson\'s 猫吃鱼 with head 2 off, its concat columns greyed and the difference drawn', () => {
  const hand = { ...defaultHand(), off: [1] };
  const current = runHand(mha, hand, { use: 'views-current' });
  const allOn = runHand(mha, hand, { use: 'views-all-on', enabledOverride: [true, true] });
  for (const lang of ['zh', 'en']) {
    const view = shown(ablationFigures(TEXT[lang].ablation, { current, allOn, off: hand.off }));
    matchGolden(`views/ablation-head-2-off-${lang}.html`, view);
    // Head 2's half of the concat is zero, and the difference is the core's, cell for cell.
    const concat = [...view.querySelectorAll('#ablation-concat g.cell')].map((cell) => Number(cell.dataset.value));
    assert.deepEqual(concat.filter((_, i) => i % 4 >= 2), [0, 0, 0, 0, 0, 0]);
    const diff = [...view.querySelectorAll('#ablation-diff g.cell')].map((cell) => Number(cell.dataset.value));
    const expected = Array.from(current.output, (value, i) => value - allOn.output[i]);
    assert.equal(diff.length, expected.length);
    diff.forEach((value, i) => assert.ok(Math.abs(value - expected[i]) < 1e-6, `cell ${i}: ${value} against ${expected[i]}`));
    assert.ok(expected.some((value) => Math.abs(value) > 0.01), 'switching head 2 off changes the output');
  }
});

test('§2 the three steps worked with the bill\'s numbers, and none when the bill refuses them', () => {
  for (const lang of ['zh', 'en']) {
    const t = TEXT[lang].split;
    const lines = splitLines(t, splitNumbers({ dModel: 768, heads: 12 })).map((line) => show(document.createElement('li'), line));
    const list = document.createElement('ol');
    list.append(...lines);
    matchGolden(`views/split-gpt2-${lang}.html`, list);
    assert.match(lines[0].textContent, /768 ÷ 12 = 64/);
    assert.match(lines[2].textContent, /12 × 64 = 768/);
    assert.equal(splitNumbers({ dModel: 768, heads: 7 }), null);
    assert.ok(splitLines(t, null).every((line) => line.length === 0));
  }
});

test('§6 the closing questions answered with the core\'s numbers, in both languages', () => {
  for (const lang of ['zh', 'en']) {
    const view = shown(questionsView(TEXT[lang], questionFacts(mha, TEXT[lang])));
    matchGolden(`views/questions-${lang}.html`, view);
    assert.equal(view.querySelectorAll('dt').length, TEXT[lang].questions.items.length);
    assert.match(view.textContent, /2,359,296/, 'GPT-2\'s split bill, from the core');
  }
});

test('§6 program 2\'s weight tables drawn beside its output: one heatmap a head, the core\'s weights', () => {
  const { result } = programTwoOutput(mha, defaultState().demo.seed2);
  const view = shown(programTwoMaps(result));
  matchGolden('views/program-2-maps.html', view);
  const maps = view.querySelectorAll('figure');
  assert.equal(maps.length, result.heads);
  maps.forEach((map, head) => {
    const drawn = [...map.querySelectorAll('g.cell')].map((cell) => Number(cell.dataset.value));
    drawn.forEach((value, i) => assert.ok(Math.abs(value - result.attention[head][i]) < 1e-6, `A[${head}] cell ${i}`));
  });
});

test('§13 the coda: 猫吃鱼 with one shared K and V, the bill for MHA, GQA and MQA, and the groups, in both languages', () => {
  const session = createSession(mha);
  const facts = exampleFacts(session, defaultHand());
  const bill = codaBillFacts(mha, 1024);
  const groups = groupFacts(session, { heads: 4, kvHeads: 2 });
  for (const lang of ['zh', 'en']) {
    const t = GQA_TEXT[lang];
    const example = shown(exampleView(t, facts));
    matchGolden(`views/gqa-example-${lang}.html`, example);
    // The shared K is the mean of the heads' K columns; the weights drawn are the core's.
    const k = [...example.querySelectorAll('#gqa-k-shared g.cell')].map((cell) => Number(cell.dataset.value));
    assert.deepEqual(k, [1, 0, 0, 1, 0.5, 0.5]);
    const weights = [...example.querySelectorAll('#gqa-head-0-weights g.cell')].map((cell) => Number(cell.dataset.value));
    weights.forEach((value, i) => assert.ok(Math.abs(value - facts.gqa.attention[0][i]) < 1e-6));
    assert.equal(example.querySelectorAll('#gqa-change p').length, 3, 'the title and two sentences');

    const billBox = shown(codaBillView(t, bill));
    matchGolden(`views/gqa-bill-${lang}.html`, billBox);
    // Every figure is the core's paramCount, written in full or in binary units.
    const modern = bill.find((model) => model.key === 'modern');
    const gqaRow = billBox.querySelector('#gqa-bill-modern tr[data-kind="gqa"]');
    assert.equal(Number(gqaRow.querySelectorAll('td')[1].dataset.value), mha.paramCount({ dModel: 4096, heads: 32, kvHeads: 8 }).wq);
    assert.equal(gqaRow.querySelector('td[data-col="per-token"]').textContent, '128 KiB');
    assert.equal(Number(gqaRow.querySelector('td[data-col="context"]').dataset.value), modern.rows[1].perToken * 1024);
    assert.equal(billBox.querySelectorAll('#gqa-bill-lesson tbody tr').length, 2, 'h = 2: MHA and MQA only');

    const groupsBox = shown(groupsView(t, groups));
    matchGolden(`views/gqa-groups-${lang}.html`, groupsBox);
    assert.deepEqual([...groupsBox.querySelectorAll('.gqa-group')].map((g) => g.querySelectorAll('.gqa-query').length), [2, 2]);
  }
  session.dispose();
});

/** §3 as the page shows it: the keys, every head's card, the concat, the output and 停一秒, in one box. */
function handShown(t, result, facts) {
  const domain = signedDomainOf(result);
  const box = document.createElement('div');
  const part = (id, view) => {
    const node = shown(view);
    node.id = id;
    box.append(node);
    return node;
  };
  part('hand-legends', legendsView(t, domain));
  part('heads', range(result.heads).map((head) => headCard(t, result, head, { domain })));
  part('concat', concatView(t, result));
  part('output', outputView(t, result, { domain }));
  part('pause-text', pauseView(t, facts));
  return box;
}

/** The values a figure's cells carry, in reading order. */
const cellValues = (view, selector) => [...view.querySelectorAll(`${selector} g.cell`)].map((cell) => Number(cell.dataset.value));

function assertSameNumbers(drawn, expected, what) {
  assert.equal(drawn.length, expected.length, what);
  drawn.forEach((value, i) => assert.ok(Math.abs(value - expected[i]) < 1e-6, `${what} cell ${i}: ${value} against ${expected[i]}`));
}

test('§3 by hand: 猫吃鱼 as the lesson gives it, then with h = 4 and the mask, every figure the core\'s, in both languages', () => {
  const session = createSession(mha);
  const lesson = lessonPauseFacts(session);
  const states = [['lesson', defaultHand()], ['4-heads-masked', { ...defaultHand(), heads: 4, causal: true }]];
  for (const [name, hand] of states) {
    const result = runHand(mha, hand, { use: `views-hand-${name}` });
    const facts = handPauseFacts(session, result, hand, lesson);
    for (const lang of ['zh', 'en']) {
      const view = handShown(HAND_TEXT[lang], result, facts);
      matchGolden(`views/hand-${name}-${lang}.html`, view);
      assert.equal(view.querySelectorAll('article.head-card').length, hand.heads);
      for (let head = 0; head < hand.heads; head++) {
        assertSameNumbers(cellValues(view, `svg[data-figure="weights"][data-head="${head}"]`), result.attention[head], `head ${head + 1}'s weights`);
        assertSameNumbers(cellValues(view, `svg[data-figure="head"][data-head="${head}"]`), result.headOutputs[head], `head ${head + 1}'s output`);
      }
      assertSameNumbers(cellValues(view, 'svg[data-figure="concat"]'), result.concat, 'the concat');
      assertSameNumbers(cellValues(view, 'svg[data-figure="output"]'), result.output, 'the output');
    }
  }
  session.dispose();
});

test('§3 by hand: the lesson\'s own numbers in the figures and in 停一秒 (head 1 on 鱼 50%, head 2 33% × 3, lesson 8\'s 0.67)', () => {
  const session = createSession(mha);
  const hand = defaultHand();
  const result = runHand(mha, hand, { use: 'views-hand-lesson' });
  const facts = handPauseFacts(session, result, hand, lessonPauseFacts(session));
  const zh = handShown(HAND_TEXT.zh, result, facts);
  // Head 1's row for 猫, as the lesson prints it: [0.25, 0.25, 0.50].
  assert.deepEqual([...zh.querySelectorAll('svg[data-figure="weights"][data-head="0"] g.cell')].slice(0, 3).map((cell) => cell.textContent), ['0.25', '0.25', '0.50']);
  const pause = zh.querySelector('#pause-text').textContent;
  assert.match(pause, /头 1 盯上了“鱼”（50%）/);
  assert.match(pause, /33% × 3/);
  assert.match(pause, /0\.67/);
  // The scaled scores are the dot products ÷ √d_k; with scaling off the card says so instead.
  assert.equal(zh.querySelectorAll('svg[data-figure="scores"]').length, 2);
  const unscaled = runHand(mha, { ...hand, scale: false }, { use: 'views-hand-unscaled' });
  const off = handShown(HAND_TEXT.en, unscaled, handPauseFacts(session, unscaled, { ...hand, scale: false }, lessonPauseFacts(session)));
  assert.equal(off.querySelectorAll('svg[data-figure="scores"]').length, 0);
  assert.equal(off.querySelectorAll('p.scaled-off').length, 2);
  session.dispose();
});

test('§3 by hand: a head switched off is greyed in its card and its concat columns, from the forward\'s own switches', () => {
  const hand = { ...defaultHand(), off: [1] };
  const result = runHand(mha, hand, { use: 'views-hand-off' });
  const view = shown(headCard(HAND_TEXT.en, result, 1, { domain: signedDomainOf(result) }));
  assert.match(view.querySelector('article').getAttribute('class'), /\boff\b/);
  const concat = shown(concatView(HAND_TEXT.en, result));
  assert.match(concat.querySelector('.head-band').textContent, /h2 ✕/);
});
