// The lesson page's pure parts, in Node: the URL round trip of hostile words, the page's own checks on
// its state, and every error sentence in both languages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultState, toQuery, fromQuery, shareLink, linkClips } from '../web/page/state.js';
import { MAX_TOKEN_CHARS, HAND_MAX_TOKENS, HAND_D_MODEL } from '../web/hand/limits.js';
import { newDeck, currentQuestion, isReturning, moveOn, rightFirstTime } from '../web/page/quiz-deck.js';
import { viewName } from '../web/training/views.js';
import { TRAIN_TEXT } from '../web/training/strings.js';
import { checkHand, checkViews, checkBill, checkSeed, LessonError } from '../web/page/checks.js';
import { errorSentence, errorCode } from '../web/shared/errors.js';
import { errorBox } from '../web/ui/section.js';
import { parseHTML } from 'linkedom';
import { TEXT } from '../web/page/text.js';
import { recapFacts } from '../web/page/recap.js';
import { loadAttention } from '../web/src/attention.js';
import { seededRandom } from './seeded.js';

const roundTrip = (state) => fromQuery(new URLSearchParams(toQuery(state).toString()));

/** The LessonError a check throws, or null. */
function refusal(check) {
  try {
    check();
  } catch (error) {
    assert.ok(error instanceof LessonError, String(error));
    return error;
  }
  return null;
}

test('words with commas, semicolons and backslashes come back from a link exactly as typed', () => {
  const state = defaultState();
  state.hand.tokens = ['a,b', 'c;d', 'e\\', '\\,f', '猫,'];
  state.hand.q = state.hand.k = state.hand.v = state.hand.tokens.map(() => [0, 0, 0, 0]);
  assert.deepEqual(roundTrip(state).hand.tokens, state.hand.tokens);
  // Links written before the escapes still read as they did.
  assert.deepEqual(fromQuery(new URLSearchParams('t=the,cat,sat')).hand.tokens, ['the', 'cat', 'sat']);
});

test('words from a link obey the same 12-character limit as the name box', () => {
  const long = 'x'.repeat(150);
  const tokens = fromQuery(new URLSearchParams({ t: `${long},${'猫'.repeat(20)},  ,ok` })).hand.tokens;
  assert.deepEqual(tokens, ['x'.repeat(MAX_TOKEN_CHARS), '猫'.repeat(MAX_TOKEN_CHARS), '3', 'ok']);
  const many = fromQuery(new URLSearchParams({ t: Array.from({ length: 500 }, (_, i) => `w${i}`).join(',') })).hand.tokens;
  assert.equal(many.length, 8);
});

test('the sentence refuses a word over the limit, and too many words, with the values involved', () => {
  const views = { ...defaultState().views, source: 'big' };
  assert.deepEqual(checkViews(views, 'the cat sat'), ['the', 'cat', 'sat']);
  const long = refusal(() => checkViews(views, `a ${'y'.repeat(150)} b`));
  assert.equal(long.code, 'TOKEN_TOO_LONG');
  assert.deepEqual(long.details, { index: 1, start: 'y'.repeat(12), length: 150, max: 12 });
  assert.equal(refusal(() => checkViews(views, Array(33).fill('w').join(' '))).code, 'SEQ_TOO_LONG');
  assert.equal(refusal(() => checkViews(views, '   ')).code, 'EMPTY');
  assert.equal(refusal(() => checkViews({ ...views, weightScale: 1e30 }, 'a')).code, 'OUT_OF_RANGE');
  assert.equal(refusal(() => checkViews({ ...views, dModel: 2048 }, 'a')).code, 'TOO_LARGE');
});

test('hand entries outside their slider\'s range, or not finite, are refused wherever they came from', () => {
  const hand = fromQuery(new URLSearchParams('q=1e20,0,0,0;0,2,0,2;0,0,1,1')).hand;
  assert.equal(hand.q[0][0], 1e20, 'the link is read as written, not clamped');
  assert.deepEqual(refusal(() => checkHand(hand)).details, { name: 'q', row: 0, column: 0, value: 1e20, min: -3, max: 3 });
  const wo = defaultState().hand;
  wo.wo[1][2] = 2.5;
  assert.deepEqual(refusal(() => checkHand(wo)).details, { name: 'wo', row: 1, column: 2, value: 2.5, min: -2, max: 2 });
  const nan = fromQuery(new URLSearchParams('v=1,0,1,0;0,1,0,1;x,0,0,2')).hand;
  assert.equal(refusal(() => checkHand(nan)).code, 'NOT_FINITE');
  assert.equal(refusal(() => checkHand(defaultState().hand)), null);
});

test('a head count that does not divide d_model names the nearest ones that do', () => {
  assert.deepEqual(refusal(() => checkBill({ dModel: 768, heads: 7 })).details, { heads: 7, dModel: 768, below: 6, above: 8 });
  assert.deepEqual(refusal(() => checkBill({ dModel: 12, heads: 50 })).details, { heads: 50, dModel: 12, below: 12, above: null });
  assert.equal(refusal(() => checkBill({ dModel: 1e20, heads: 1 })).code, 'TOO_LARGE');
  assert.equal(refusal(() => checkBill({ dModel: 0.5, heads: 1 })).code, 'BAD_SIZE');
  assert.equal(refusal(() => checkSeed(-1)).code, 'BAD_ARGUMENT');
  assert.equal(refusal(() => checkSeed(2 ** 32)).code, 'BAD_ARGUMENT');
  assert.equal(refusal(() => checkSeed(2 ** 32 - 1)), null);
});

// Every error the page can show: the page's own refusals, and the core's errors with and without details.
const ERRORS = [
  ...[
    () => checkBill({ dModel: 768, heads: 7 }),
    () => checkBill({ dModel: NaN, heads: 2 }),
    () => checkBill({ dModel: 1e20, heads: 2 }),
    () => checkSeed(-1),
    () => checkHand(fromQuery(new URLSearchParams('q=1e308,0,0,0;0,2,0,2;0,0,1,1')).hand),
    () => checkHand(fromQuery(new URLSearchParams('q=NaN,0,0,0;0,2,0,2;0,0,1,1')).hand),
    () => checkViews({ ...defaultState().views, weightScale: 9 }, 'a'),
    () => checkViews(defaultState().views, Array(40).fill('w').join(' ')),
    () => checkViews(defaultState().views, `a ${'z'.repeat(150)}`),
    () => checkViews(defaultState().views, ''),
  ].map(refusal),
  Object.assign(new Error('q has NaN at row 0, column 0; every entry must be a finite number'), { code: 'NOT_FINITE', details: { name: 'q', row: 0, column: 0 } }),
  Object.assign(new Error('scores overflowed float32 at head 1, row 2, column 0'), { code: 'NOT_FINITE', details: { name: 'scores', row: 2, column: 0, head: 1 } }),
  Object.assign(new Error('the output overflowed float32 at row 0, column 3'), { code: 'NOT_FINITE', details: { name: 'output', row: 0, column: 3 } }),
  Object.assign(new Error('the concat overflowed float32 in row 1'), { code: 'NOT_FINITE', details: { name: 'concat', row: 1 } }),
  ...['NOT_FINITE', 'HEADS_NOT_DIVISOR', 'BAD_SIZE', 'TOO_LARGE', 'OUT_OF_MEMORY', 'SEQ_TOO_LONG', 'BAD_LENGTH', 'BAD_INPUT', 'BAD_ARGUMENT', 'HEAD_INDEX', 'NO_FORWARD', 'DISPOSED']
    .map((code) => Object.assign(new Error(`an English sentence from the core about ${code}`), { code })),
  { code: 'LOAD_FAILED' },
  { code: 'EXPORT_FAILED' },
  Object.assign(new Error('kvHeads 3 does not divide heads 4'), { code: 'KV_HEADS_NOT_DIVISOR', details: { kvHeads: 3, heads: 4 } }),
  Object.assign(new Error('kvHeads 3 does not divide heads 4'), { code: 'KV_HEADS_NOT_DIVISOR' }),
];

test('every error reads fully in Chinese on the Chinese page, and never shows the core\'s English message', () => {
  for (const error of ERRORS) {
    const sentence = errorSentence(TEXT.zh, error);
    const where = `${error.code}: ${sentence}`;
    assert.match(sentence, /[\u4e00-\u9fff]/, where);
    assert.doesNotMatch(sentence, /[A-Za-z]{2,}[ ,]+[A-Za-z]{2,}/, `no English phrase in ${where}`);
    assert.doesNotMatch(sentence, /undefined|NaN [行列个]|\$\{/, where);
    if (error.message) assert.ok(!sentence.includes(error.message), where);
  }
  const overflow = ERRORS.find((error) => error.details?.name === 'scores');
  assert.equal(errorSentence(TEXT.zh, overflow), '计算打分时溢出了（头 2，第 3 行第 1 列超出了 float32 能表示的范围），请把输入的数调小一些。');
});

test('every error has an English sentence on the English page', () => {
  for (const error of ERRORS) {
    const sentence = errorSentence(TEXT.en, error);
    assert.match(sentence, /^[A-Z“dhq]/, `${error.code}: ${sentence}`);
    assert.doesNotMatch(sentence, /[\u4e00-\u9fff]|undefined/, `${error.code}: ${sentence}`);
  }
  const [notDivisor] = ERRORS;
  assert.equal(errorSentence(TEXT.en, notDivisor), 'h = 7 does not divide d_model = 768, so the heads cannot get equal slices. The nearest head counts that do: 6 or 8.');
});

test('an error box shows a learner the sentence alone: its code is in data-code, never in the text', () => {
  globalThis.document = parseHTML('<!doctype html><html><body></body></html>').document;
  try {
    for (const lang of ['zh', 'en']) {
      for (const error of ERRORS) {
        const box = errorBox(TEXT[lang], error);
        const code = errorCode(error);
        assert.equal(box.getAttribute('data-code'), code);
        assert.equal(box.textContent, errorSentence(TEXT[lang], error));
        assert.ok(!box.textContent.includes(code), `${lang}: "${box.textContent}" shows ${code}`);
      }
    }
  } finally {
    delete globalThis.document;
  }
});

test('the state survives a round trip through the URL query', () => {
  assert.equal(toQuery(defaultState()).toString(), '', 'the default state gives a clean address');
  const state = defaultState();
  state.lang = 'en';
  state.hand.tokens = ['the', 'cat', 'sat', 'down'];
  state.hand.q = [[1, 2, 3, 4], [0.5, -0.25, 0, 0], [0, 0, 0, 0], [1, 1, 1, 1]];
  state.hand.k = state.hand.q.map((row) => row.map((x) => (x ? -x : 0)));
  state.hand.v = state.hand.q.map((row) => row.map((x) => x / 2));
  state.hand.wo[0][3] = 0.7;
  Object.assign(state.hand, { heads: 4, causal: true, scale: false, off: [1, 3] });
  Object.assign(state, { step: 6 });
  state.demo.seed2 = 42;
  Object.assign(state.views, { source: 'big', dModel: 32, heads: 4, sentence: 'a b c', seed: 3, weightScale: 0.9, causal: false });
  assert.deepEqual(fromQuery(new URLSearchParams(toQuery(state).toString())), state);
  const broken = fromQuery(new URLSearchParams('h=3&q=1,2&step=99&off=7'));
  assert.equal(broken.hand.heads, 2, 'an impossible head count falls back to the default');
  assert.deepEqual(broken.hand.q, defaultState().hand.q, 'a malformed matrix falls back to the default');
  assert.equal(broken.step, 0);
  assert.deepEqual(broken.hand.off, []);
});

// Chinese prose takes full-width punctuation. Program text is exempt: the Python sources and the lines
// the programs print stay as Python would show them.
const PROGRAM_TEXT = /^\s*(naiveLine|paperLine|equalLine|singleLine|headLine|concatLine|head1|head2|compare|compareTail|countLine|outputLine):/;
const HALF_WIDTH_BY_HAN = /\p{Script=Han}[,:;?!()]|[,:;?!()]\p{Script=Han}|\}[,:;?!]\p{Script=Han}|\p{Script=Han}[,:;?!(]\$\{/u;

/** The source lines of every `zh: {` block in `source` (and any lines before `firstEnglishLine`), program text left out. */
function chineseLines(source, firstEnglishLine) {
  const lines = source.split('\n');
  const picked = [];
  if (firstEnglishLine) picked.push(...lines.slice(0, lines.findIndex((line) => line.startsWith(firstEnglishLine))));
  lines.forEach((line, start) => {
    const opening = /^(\s*)zh: \{\s*$/.exec(line);
    if (!opening) return;
    const closing = new RegExp(`^${opening[1]}\\},?\\s*$`);
    let inProgram = false;
    for (let i = start + 1; !closing.test(lines[i]); i++) {
      if (/^\s*source[AB]: `/.test(lines[i])) inProgram = true;
      if (!inProgram && !PROGRAM_TEXT.test(lines[i])) picked.push(lines[i]);
      if (inProgram && /`,\s*$/.test(lines[i])) inProgram = false;
    }
  });
  return picked;
}

test('Chinese text uses full-width punctuation next to Chinese characters', async () => {
  const { readFile } = await import('node:fs/promises');
  const files = { 'web/page/text.js': null, 'web/training/strings.js': null, 'web/shared/errors.js': 'const FIELDS_EN', 'web/shared/figure-labels.js': null, 'web/widget/strings.js': 'export const STRINGS' };
  for (const [file, firstEnglishLine] of Object.entries(files)) {
    const lines = chineseLines(await readFile(new URL(`../${file}`, import.meta.url), 'utf8'), firstEnglishLine);
    assert.ok(lines.length > 5, `${file} has a Chinese table`);
    const halfWidth = lines.filter((line) => !line.trim().startsWith('//') && HALF_WIDTH_BY_HAN.test(line));
    assert.deepEqual(halfWidth, [], `${file}: ASCII punctuation in Chinese prose`);
  }
  assert.equal(TEXT.zh.bill.gpt2, '默认值是 GPT-2 的设置：d_model = 768，h = 12。');
});

test('the shared link is built from the state, without the #section the learner jumped to', () => {
  const state = defaultState();
  state.bill.heads = 8;
  state.lang = 'en';
  const link = shareLink(state, 'https://example.org/lesson/?bh=12#share-section');
  assert.equal(link, 'https://example.org/lesson/?lang=en&bh=8');
  assert.equal(shareLink(defaultState(), 'https://example.org/lesson/?x=1#share-section'), 'https://example.org/lesson/');
  assert.deepEqual(fromQuery(new URL(link).searchParams), state);
});

test('presentation mode comes from present=1 alone, and a link in it says so', () => {
  assert.equal(defaultState().present, false);
  assert.equal(fromQuery(new URLSearchParams('present=1')).present, true);
  for (const hostile of ['present=0', 'present=true', 'present=yes', 'present=1x', 'present=%201', 'present=1%00', 'present=', 'present', 'PRESENT=1', 'present=%EF%BC%91', `present=${'1'.repeat(5000)}`]) {
    assert.equal(fromQuery(new URLSearchParams(hostile)).present, false, hostile);
  }
  assert.equal(toQuery({ ...defaultState(), present: true }).toString(), 'present=1');
  assert.equal(toQuery(defaultState()).toString(), '', 'off, the address has no trace of it');
});

test('lesson mode\'s part and screen come from a link as whole numbers in range, and are left out when first', () => {
  assert.deepEqual([defaultState().part, defaultState().screen], [1, 1]);
  const read = (query) => { const state = fromQuery(new URLSearchParams(query)); return [state.part, state.screen]; };
  assert.deepEqual(read('present=1&part=13&screen=5'), [13, 5]);
  for (const hostile of ['part=0', 'part=14', 'part=03', 'part=3.5', 'part=-3', 'part=1e1', 'part=%EF%BC%93', 'part=', `part=${'3'.repeat(5000)}`, 'screen=7', 'screen=0']) {
    assert.deepEqual(read(hostile), [1, 1], hostile);
  }
  assert.equal(toQuery({ ...defaultState(), present: true, part: 3, screen: 2 }).toString(), 'present=1&part=3&screen=2');
  assert.equal(toQuery({ ...defaultState(), present: true }).toString(), 'present=1', 'the first screen of the first part needs no words');
});

/** The longest link the page may write: under the 8 KB request line of nginx and Apache, half Node's 16 KB of headers. */
const LINK_BOUND = 8000;
/** The page put at an address of 600 characters, the longest for which the README promises the bound. */
const LONG_PAGE = `https://teaching.example.org/${'x'.repeat(571)}`;
/** A character of 4 UTF-8 bytes: 12 characters in a link, the most any character takes. */
const WIDE = '\u{1F431}';
/** A double printed at its longest: a sign, 17 digits and a three-digit exponent (26 characters once '+' is escaped). */
const LONGEST_NUMBER = -Number.MAX_VALUE;
/** A hand entry far out of its range (a link may carry one, which the page refuses by name). */
const FAR_OUT = -1.2345678901234567e300;

/** Every field of the state at its longest, and the poem, the sentence and the poetry model's heads past what a link keeps. */
function longestState() {
  const state = defaultState();
  const matrix = (rows) => Array.from({ length: rows }, () => Array(HAND_D_MODEL).fill(FAR_OUT));
  state.lang = 'en';
  state.present = true;
  state.bill = { dModel: LONGEST_NUMBER, heads: LONGEST_NUMBER };
  state.hand.tokens = Array(HAND_MAX_TOKENS).fill(WIDE.repeat(MAX_TOKEN_CHARS));
  Object.assign(state.hand, { q: matrix(HAND_MAX_TOKENS), k: matrix(HAND_MAX_TOKENS), v: matrix(HAND_MAX_TOKENS), wo: matrix(HAND_D_MODEL) });
  Object.assign(state.hand, { heads: 4, causal: true, scale: false, off: [0, 1, 2, 3, 3, 2, 1, 0] });
  state.step = 8;
  state.demo = { seed1: LONGEST_NUMBER, seed2: LONGEST_NUMBER };
  state.views = { source: 'big', dModel: LONGEST_NUMBER, heads: LONGEST_NUMBER, sentence: WIDE.repeat(1920), seed: LONGEST_NUMBER, weightScale: LONGEST_NUMBER, causal: false };
  // Two-digit layers and heads, each pair twice, and one past any model.
  const pairs = Array.from({ length: 99 * 99 }, (_, i) => [98 - Math.floor(i / 99), 98 - (i % 99)]);
  state.poems = { poem: Number.MAX_VALUE, text: WIDE.repeat(1920), off: [[1e300, 0], ...pairs, ...pairs], head: 1023, position: 255 };
  return state;
}

test('the longest link the page can write stays under 8,000 characters and reads back as written, the long parts clipped', () => {
  const state = longestState();
  assert.equal(LONG_PAGE.length, 600);
  const link = shareLink(state, LONG_PAGE);
  assert.ok(link.length < LINK_BOUND, `the longest link has ${link.length} characters`);
  // What a link keeps: 768 bytes of the poem (192 four-byte characters, 256 Chinese ones), 512 of the sentence,
  // entries past a million as the refusal shows them, each head once, and 32 of the poetry model's heads (up to 32.32).
  const expected = structuredClone(state);
  expected.poems.text = WIDE.repeat(192);
  expected.views.sentence = WIDE.repeat(128);
  for (const name of ['q', 'k', 'v', 'wo']) expected.hand[name] = expected.hand[name].map((row) => row.map(() => -1.23e300));
  expected.hand.off = [0, 1, 2, 3];
  expected.poems.off = Array.from({ length: 32 }, (_, i) => [31, 31 - i]);
  const read = fromQuery(new URL(link).searchParams);
  assert.deepEqual(read, expected);
  assert.equal(shareLink(read, LONG_PAGE), link, 'the state read back writes the same link');
  assert.deepEqual(linkClips(state), [{ path: 'views.sentence', kept: 128 }, { path: 'poems.text', kept: 192 }]);
  assert.deepEqual(linkClips(read), [], 'nothing more is left out of a link read back');
});

test('a 1,920-character poem: the link keeps its first 256 characters, and the share box says so in both languages', () => {
  const state = defaultState();
  const poem = '白日依山尽，黄河入海流。欲穷千里目，更上一层楼。\n'.repeat(80);
  state.poems.text = poem;
  const link = shareLink(state, LONG_PAGE);
  assert.ok(link.length < LINK_BOUND, `${link.length} characters`);
  assert.equal(fromQuery(new URL(link).searchParams).poems.text, Array.from(poem).slice(0, 256).join(''));
  assert.equal(toQuery(state).toString(), new URL(link).search.slice(1), 'the address bar is written as the share box\'s link');
  const [clip] = linkClips(state);
  assert.deepEqual(clip, { path: 'poems.text', kept: 256 });
  assert.equal(TEXT.zh.share.leftOut[clip.path](clip.kept), '诗太长，链接里只保留了前 256 个字。');
  assert.equal(TEXT.en.share.leftOut[clip.path](clip.kept), 'The poem is too long; the link keeps its first 256 characters.');
  assert.match(TEXT.zh.share.leftOut['views.sentence'](128), /^句子太长.*128/);
  assert.match(TEXT.en.share.leftOut['views.sentence'](128), /^The sentence is too long.*128/);
  assert.deepEqual(linkClips(defaultState()), []);
});

test('a number a link gives as NaN or words stays for the page to refuse, and is never counted as left out of it', () => {
  for (const query of ['bd=NaN', 'bd=abc', 'bh=NaN', 'seed1=x', 'seed2=NaN', 'vw=abc', 'vd=NaN']) {
    const state = fromQuery(new URLSearchParams(query));
    assert.deepEqual(linkClips(state), [], query);
  }
  assert.ok(Number.isNaN(fromQuery(new URLSearchParams('bd=NaN')).bill.dModel), 'kept as NaN, for the bill to refuse');
});

test('a missed or revealed quiz question comes back after two others; one got right is done', () => {
  const deck = newDeck(['a', 'b', 'c', 'd', 'e']);
  assert.equal(currentQuestion(deck), 'a');
  moveOn(deck, { missed: true });
  assert.deepEqual(deck.queue, ['b', 'c', 'a', 'd', 'e']);
  moveOn(deck, { missed: false });
  moveOn(deck, { missed: false });
  assert.equal(currentQuestion(deck), 'a');
  assert.ok(isReturning(deck));
  moveOn(deck, { missed: false });
  moveOn(deck, { missed: true });
  assert.deepEqual(deck.queue, ['e', 'd'], 'fewer than two left: it goes last');
  moveOn(deck, { missed: false });
  moveOn(deck, { missed: false });
  assert.equal(currentQuestion(deck), null);
  assert.deepEqual(deck.done, ['b', 'c', 'a', 'e', 'd']);
  assert.equal(rightFirstTime(deck), 3);
});

test('every quiz question comes up before any comes back a third time, however the learner answers', () => {
  const ids = Array.from({ length: 10 }, (_, i) => `q${i}`);
  // Revealing every answer: each question is asked and comes back once, so 19 rounds reach all ten.
  const revealing = newDeck(ids);
  const seen = new Set();
  for (let round = 0; round < 19; round++) {
    seen.add(currentQuestion(revealing));
    moveOn(revealing, { missed: true });
  }
  assert.equal(seen.size, 10, `19 rounds of revealing asked ${[...seen].join(' ')}`);
  // Any pattern of answers (seeded): no third asking while a question has not been asked.
  const random = seededRandom(10);
  for (let run = 0; run < 200; run++) {
    const deck = newDeck(ids);
    const times = new Map();
    for (let step = 0; step < 60 && currentQuestion(deck) !== null; step++) {
      const id = currentQuestion(deck);
      times.set(id, (times.get(id) ?? 0) + 1);
      if (times.get(id) === 3) assert.equal(times.size, ids.length, `run ${run}: ${id} asked a third time before all were asked`);
      moveOn(deck, { missed: random() < 0.7 });
    }
  }
});

test('the quiz states how the page counts, and has at least 8 questions in both languages', () => {
  for (const lang of ['zh', 'en']) {
    const quiz = TEXT[lang].quiz;
    assert.match(quiz.counting, lang === 'zh' ? /维和列从 0 数起.*头、词和行从 1 数起/ : /dimensions and columns count from 0.*heads, words and rows count from 1/);
    const questions = Object.values(quiz).filter((entry) => entry && typeof entry === 'object' && 'prompt' in entry);
    assert.ok(questions.length >= 8, `${lang}: ${questions.length} questions`);
    assert.match(quiz.split.prompt('猫'), lang === 'zh' ? /第 3 维（从 0 数起/ : /dimension 3 \(counting from 0/);
  }
});

test('training: the Chinese lead speaks of a 16-word vocabulary, and a lone head is never "not yet divided"', () => {
  assert.match(TRAIN_TEXT.zh.lead, /词表里有 16 个词/);
  assert.doesNotMatch(TRAIN_TEXT.zh.lead, /句子由 16 个词/);
  const undecided = { previous: 0.4, first: 0.4 };
  assert.equal(viewName(undecided, 2), 'mixed');
  assert.equal(viewName(undecided, 1), 'blend');
  assert.equal(viewName({ previous: 0.9, first: 0.05 }, 1), 'previous');
  assert.match(TRAIN_TEXT.zh.views.blend, /一个头/);
  assert.match(TRAIN_TEXT.en.views.blend, /one head/);
});

test('the code demo says which program the seed changes', () => {
  assert.doesNotMatch(TEXT.zh.code.lead, /种子试试/);
  assert.doesNotMatch(TEXT.en.code.lead, /Try another seed/);
  assert.match(TEXT.zh.code.seedA, /程序一.*打印结果却一字不变/);
  assert.match(TEXT.zh.code.seedB, /程序二/);
  assert.match(TEXT.en.code.seedB, /program 2/);
});

test('the lesson ends with a recap and a reading list that links the two papers', async () => {
  const facts = recapFacts(await loadAttention());
  for (const lang of ['zh', 'en']) {
    assert.ok(TEXT[lang].recap.items(facts).length >= 4);
    const links = TEXT[lang].reading.items.filter((item) => typeof item === 'object').map((item) => item.href);
    assert.deepEqual(links, ['https://arxiv.org/abs/1706.03762', 'https://arxiv.org/abs/1905.10650']);
  }
});

test('a link keeps §10\'s enlarged head and its position; a head or a position out of range keeps the default', () => {
  const state = defaultState();
  Object.assign(state.poems, { head: 13, position: 7 });
  const read = fromQuery(new URL(shareLink(state, 'https://example.org/lesson/')).searchParams);
  assert.deepEqual([read.poems.head, read.poems.position], [13, 7]);
  for (const query of ['phead=-1&ppos=1e3', 'phead=1.5&ppos=x', 'phead=99999999&ppos=257']) {
    const fallback = fromQuery(new URLSearchParams(query)).poems;
    assert.deepEqual([fallback.head, fallback.position], [0, null], query);
  }
});

test('a link keeps the training section\'s h; an h it cannot train keeps the default', () => {
  const state = defaultState();
  state.train.heads = 4;
  assert.equal(fromQuery(new URL(shareLink(state, 'https://example.org/')).searchParams).train.heads, 4);
  for (const bad of ['3', '0', '4.5', 'x', '']) assert.equal(fromQuery(new URLSearchParams(`th=${bad}`)).train.heads, 2, bad);
});

test('a link keeps §9\'s K/V heads (GQA, MQA) for its h; a count that h cannot share keeps multi-head attention', () => {
  for (const [heads, kvHeads] of [[4, 2], [4, 1], [2, 1]]) {
    const state = defaultState();
    Object.assign(state.train, { heads, kvHeads });
    const link = new URL(shareLink(state, 'https://example.org/'));
    assert.equal(link.searchParams.get('tkv'), String(kvHeads));
    assert.deepEqual(fromQuery(link.searchParams).train, { heads, kvHeads });
  }
  assert.equal(new URL(shareLink(defaultState(), 'https://example.org/')).searchParams.has('tkv'), false, 'MHA, the default, is left out');
  for (const query of ['th=4&tkv=4', 'th=4&tkv=3', 'th=2&tkv=2', 'th=1&tkv=1', 'tkv=1&th=1', 'th=4&tkv=0', 'th=4&tkv=01', 'th=4&tkv=1.0', 'th=4&tkv=', 'th=4&tkv=x']) {
    assert.equal(fromQuery(new URLSearchParams(query)).train.kvHeads, 0, query);
  }
  assert.equal(fromQuery(new URLSearchParams('tkv=1&th=4')).train.kvHeads, 1, 'read after h, wherever it stands in the link');
});
