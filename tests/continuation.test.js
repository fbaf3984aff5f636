// §10's continuation rules (web/poems/runs.js Continuation), on a stand-in model whose next-token scores the
// test sets: it never writes the unknown character, never starts a line with punctuation or a line break,
// finishes the sentence it is in after `count` characters, and says when the model ends the poem; and, with
// `verse`, keeps the form of regular verse (and with `repetition`, its repetition rule).
import test from 'node:test';
import assert from 'node:assert/strict';
import { Continuation, firstLine, firstPosition } from '../web/poems/runs.js';
import { tokenKinds } from '../web/poems/head-roles.js';

const vocabulary = ['<|poem|>', '<|unk|>', '，', '。', '\n', '月', '光', '明'];
const id = Object.fromEntries(vocabulary.map((token, i) => [token, i]));

/** A model whose scores for the next token, after `window`, are prefer(window) (token → score; others −10). */
function standIn(prefer, context = 64) {
  let window = [];
  const model = {
    config: { context, vocabSize: vocabulary.length },
    forward(ids) {
      window = [...ids];
      return model;
    },
    // The key-value cache's step: one id more after the window read last.
    step(id) {
      window.push(id);
      return model;
    },
    get length() {
      return window.length;
    },
    logits() {
      const scores = new Float32Array(window.length * vocabulary.length).fill(-10);
      for (const [token, score] of Object.entries(prefer(window))) scores[(window.length - 1) * vocabulary.length + id[token]] = score;
      return scores;
    },
  };
  return { model, vocabulary, kinds: tokenKinds(vocabulary) };
}

const write = (poems, ids, count, { pastTheEnd } = {}) => {
  const continuation = new Continuation(poems, null, { ids, off: [], count, temperature: 0, pastTheEnd });
  while (!continuation.advance(1000));
  return { text: continuation.added.map((i) => vocabulary[i]).join(''), ended: continuation.ended };
};

test('the unknown character is never written, however likely', () => {
  const poems = standIn((window) => (window.length >= 4 ? { '<|unk|>': 9, '。': 1 } : { '<|unk|>': 9, 月: 1 }));
  assert.equal(write(poems, [id['<|poem|>'], id.月], 3).text, '月月。');
});

test('no line starts with punctuation or a line break: after a break, and at the poem\'s start', () => {
  const poems = standIn((window) => (window.length >= 6 ? { '<|poem|>': 9 } : { '，': 9, '\n': 8, 光: 1 }));
  const { text, ended } = write(poems, [id['<|poem|>'], id.月, id['。'], id['\n']], 1);
  assert.equal(text, '光，');
  assert.equal(write(standIn(() => ({ '。': 9, 明: 1 })), [id['<|poem|>']], 1).text, '明。');
  assert.equal(ended, true, 'the stand-in ends the poem at six tokens');
});

test('after count characters it finishes the sentence or line, and stops a context later at the most', () => {
  const sentence = standIn((window) => (window.length >= 5 ? { '。': 9 } : { 月: 9 }));
  assert.equal(write(sentence, [id['<|poem|>']], 2).text, '月月月月。');
  const line = standIn((window) => (window.length >= 4 ? { '\n': 9 } : { 光: 9 }));
  assert.equal(write(line, [id['<|poem|>'], id.月], 1).text, '光光\n');
  const endless = standIn(() => ({ 光: 9 }), 8);
  assert.equal(write(endless, [id['<|poem|>']], 3).text, '光'.repeat(3 + 8));
});

test('the poem-ending token stops it, and says so', () => {
  const { text, ended } = write(standIn((window) => (window.length >= 3 ? { '<|poem|>': 9 } : { 明: 9 })), [id['<|poem|>']], 24);
  assert.equal(text, '明明');
  assert.equal(ended, true);
});

test('past the end: a poem the model finds complete is written on, never ended', () => {
  const complete = standIn((window) => (window.length >= 5 ? { '<|poem|>': 9, '。': 1 } : { '<|poem|>': 9, 明: 1 }));
  assert.deepEqual(write(complete, [id['<|poem|>'], id.月, id['。']], 2), { text: '', ended: true }, 'the model ends it at once');
  assert.deepEqual(write(complete, [id['<|poem|>'], id.月, id['。']], 2, { pastTheEnd: true }), { text: '明明。', ended: false });
});

test('a new poem starts from the first line: its line break kept, or without one its first sentence', () => {
  assert.equal(firstLine('白日依山尽，黄河入海流。\n欲穷千里目，更上一层楼。'), '白日依山尽，黄河入海流。\n');
  assert.equal(firstLine('白日依山尽，黄河入海流。欲穷千里目，更上一层楼。'), '白日依山尽，黄河入海流。');
  assert.equal(firstLine('白日依山尽'), '白日依山尽');
  assert.equal(firstLine('😀，月。\n光'), '😀，月。\n');
});

/** Writes by the verse rules (Continuation's `verse`, and `repetition` if asked). */
const writeVerse = (poems, ids, options = {}) => {
  const continuation = new Continuation(poems, null, { ids, off: [], temperature: 0, verse: true, ...options });
  while (!continuation.advance(1000));
  return { text: continuation.added.map((i) => vocabulary[i]).join(''), ended: continuation.ended };
};
const opening = [id['<|poem|>'], ...'月光明月光，'].map((token) => (typeof token === 'number' ? token : id[token]));

test('verse: a model that would end at once writes on to the first place a poem may end, 4 clauses of the opening\'s length', () => {
  const eager = standIn(() => ({ '<|poem|>': 9, 月: 1 }));
  assert.deepEqual(writeVerse(eager, opening), { text: '月月月月月。\n月月月月月，月月月月月。', ended: true });
});

test('verse: a model that would never end is ended at 8 clauses; past the end, it writes on to the next multiple of 4 and stops without ending', () => {
  const endless = standIn(() => ({ 光: 9, '，': 8, '。': 8, '\n': 8 }));
  const couplet = '光光光光光，光光光光光。';
  assert.deepEqual(writeVerse(endless, opening), { text: `光光光光光。\n${couplet}\n${couplet}\n${couplet}`, ended: true });
  const poem = [id['<|poem|>'], ...[...`月光明月光，${'光'.repeat(5)}。\n${couplet}`].map((token) => id[token])];
  assert.deepEqual(writeVerse(endless, poem, { pastTheEnd: true }), { text: `\n${couplet}\n${couplet}`, ended: false }, 'at 4 clauses already: on to 8');
  assert.deepEqual(writeVerse(endless, poem.slice(0, 13), { pastTheEnd: true }), { text: `\n${couplet}`, ended: false });
});

test('verse: an unfinished first clause closes at 5 or 7 characters, and every clause after is as long', () => {
  const commas = standIn((window) => (window.length >= 50 ? { '<|poem|>': 9, '，': 8, 明: 1 } : { '，': 9, 明: 1 }));
  const { text, ended } = writeVerse(commas, [id['<|poem|>'], id.月]);
  assert.equal(`月${text}`, '月明明明明，明明明明明。\n明明明明明，明明明明明。');
  assert.equal(ended, true);
  const late = standIn((window) => (window.length >= 7 ? { '，': 9, 光: 2 } : { 光: 9, '，': 1 }));
  assert.match(writeVerse(late, [id['<|poem|>'], id.月]).text, /^光{6}，光{7}。\n/, 'past 5 characters the clause runs to 7');
});

test('verse with the repetition rule: no rhyme character twice, and characters used before give way', () => {
  const moon = standIn(() => ({ 月: 9, 光: 8, 明: 7 }));
  const { text } = writeVerse(moon, opening, { repetition: true });
  const rhymes = text.split(/[，。\n]+/).filter((_, i) => i % 2 === 0).map((clause) => clause.at(-1));
  assert.equal(new Set(rhymes).size, rhymes.length, text);
  assert.notEqual(text.slice(0, 5), '月月月月月', 'the penalty moves it off 月 once 月 has been used enough');
  assert.equal(writeVerse(moon, opening).text.slice(0, 5), '月月月月月', 'without the rule, 月 every time');
});

test('each character after a call\'s first is a step from the key-value cache, until the text passes the context', () => {
  const calls = [];
  const poems = standIn(() => ({ 月: 1 }), 8);
  const { model } = poems;
  const { forward, step } = model;
  model.forward = (ids) => (calls.push('forward'), forward(ids));
  model.step = (id) => (calls.push('step'), step(id));
  const continuation = new Continuation(poems, null, { ids: [id['<|poem|>'], id['月']], off: [], count: 9, temperature: 0, pastTheEnd: true });
  continuation.advance(1000, 3);
  // The first reads the text (the model may have read another between calls), the next two step.
  assert.deepEqual(calls, ['forward', 'step', 'step']);
  assert.equal(continuation.last.stepped, true);
  continuation.advance(1000, 9);
  // On: a forward again, steps while the text fits the context of 8 (to 8 ids), then forwards of the moving window.
  assert.deepEqual(calls.slice(3), ['forward', 'step', 'step', 'step', 'forward', 'forward', 'forward', 'forward', 'forward']);
  assert.deepEqual({ stepped: continuation.last.stepped, slid: continuation.last.slid, steps: continuation.last.steps }, { stepped: false, slid: true, steps: 12 });
});

test('the position shown first: the last, unless the text ends a line; then the last whose next is a character', () => {
  const poems = { kinds: tokenKinds(['<|poem|>', '<|unk|>', '，', '。', '\n', '床', '前', '明']) };
  const cases = [
    [[0], 0, 'the opening token alone'],
    [[0, 5, 6], 2, 'a text that stops mid-line: its last character'],
    [[0, 5, 6, 2], 1, 'after a ，: 床, whose next is 前'],
    [[0, 5, 2, 6, 7, 3], 3, 'a line closed by 。: 前, whose next is 明'],
    [[0, 5, 6, 3, 4], 1, 'a line and its break: 床'],
    [[0, 2, 3], 2, 'no character at all: the last'],
    [[0, 1, 3], 0, 'an unknown character counts as one'],
  ];
  for (const [ids, want, why] of cases) assert.equal(firstPosition(poems, ids), want, why);
});
