// numberField (web/ui/controls.js) under linkedom: what its hint says for a number refused for its range, for
// something that is no number and for an empty box, and that leaving the box puts the value in use back with no
// sentence beside it. The browser's number box is played by `type`: what Chromium gives for each text typed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseHTML } from 'linkedom';
import { TEXT } from '../web/page/text.js';
import { SEED_MAX } from '../web/shared/lesson.js';

const { document, Event } = parseHTML('<!doctype html><html><body></body></html>');
globalThis.document = document;
const { numberField, wholeNumbers } = await import('../web/ui/controls.js');

/** Types `raw` into the box as Chromium would (no number: an empty value and validity.badInput), then leaves it when `leave`. */
function type(field, raw, leave = false) {
  const input = field.querySelector('input');
  const number = raw.trim() === '' ? NaN : Number(raw);
  const bad = raw !== '' && Number.isNaN(number);
  input.value = bad ? '' : raw;
  Object.defineProperty(input, 'valueAsNumber', { get: () => (input.value === '' ? NaN : Number(input.value)), configurable: true });
  Object.defineProperty(input, 'validity', { value: { badInput: bad }, configurable: true });
  input.dispatchEvent(new Event('input'));
  if (leave) input.dispatchEvent(new Event('change'));
}
const hint = (field) => field.querySelector('.field-hint').textContent;
const box = (field) => field.querySelector('input');

/** A seed box as §10's poems and GPT-2 parts make one: whole numbers 0 to SEED_MAX. */
function seedField(lang, start = 1) {
  let inUse = start;
  const taken = [];
  const field = numberField({
    label: 'seed', value: start, min: 0, max: SEED_MAX, notANumber: TEXT[lang].notANumber,
    refuse: wholeNumbers(0, SEED_MAX, (from, to) => TEXT[lang].wholeRange(from, to, inUse)),
    onInput: (v) => taken.push((inUse = v)), current: () => inUse,
  });
  return { field, taken, inUse: () => inUse };
}

test('a seed out of its range is refused with the range and the value still in use, not called "not a number"', () => {
  for (const lang of ['zh', 'en']) {
    for (const raw of ['-3', '2.5', '1e30', '4294967296', '-0.5']) {
      const { field, taken } = seedField(lang, 7);
      type(field, raw);
      assert.equal(hint(field), TEXT[lang].wholeRange(0, SEED_MAX, 7), `${lang} ${raw}`);
      assert.notEqual(hint(field), TEXT[lang].notANumber);
      assert.equal(box(field).getAttribute('aria-invalid'), 'true');
      assert.deepEqual(taken, [], 'nothing taken');
      // Leaving the box puts 7 back, and no sentence stays beside the value in use.
      type(field, raw, true);
      assert.equal(box(field).value, '7');
      assert.equal(hint(field), '');
      assert.equal(box(field).hasAttribute('aria-invalid'), false);
    }
  }
  assert.equal(TEXT.zh.wholeRange(0, SEED_MAX, 7), '只能填 0 到 4,294,967,295 之间的整数，现在仍是 7。');
  assert.equal(TEXT.en.wholeRange(0, SEED_MAX, 7), 'Only whole numbers from 0 to 4,294,967,295; it stays 7.');
});

test('the range\'s ends are taken, each clearing the sentence; the sentence names the value in use as it changes', () => {
  const { field, taken } = seedField('zh', 1);
  type(field, '-1');
  assert.match(hint(field), /现在仍是 1。/);
  type(field, String(SEED_MAX));
  assert.equal(hint(field), '');
  type(field, '0');
  assert.deepEqual(taken, [SEED_MAX, 0]);
  type(field, '4294967296');
  assert.equal(hint(field), TEXT.zh.wholeRange(0, SEED_MAX, 0));
});

test('an empty box says what it takes, and leaving it empty puts the value in use back without a sentence', () => {
  for (const lang of ['zh', 'en']) {
    const { field, taken } = seedField(lang, 12);
    type(field, '');
    assert.equal(hint(field), TEXT[lang].wholeRange(0, SEED_MAX, 12));
    type(field, '', true);
    assert.equal(box(field).value, '12');
    assert.equal(hint(field), '');
    assert.deepEqual(taken, []);
  }
});

test('what is no number is "not a number", and leaving takes it away with the value in use back', () => {
  const { field } = seedField('en', 3);
  type(field, 'abc');
  assert.equal(hint(field), TEXT.en.notANumber);
  type(field, 'abc', true);
  assert.equal(box(field).value, '3');
  assert.equal(hint(field), '');
});

test('a range that moves (GPT-2\'s count: the room the sentence leaves) is read when the number is typed', () => {
  let room = 63;
  let inUse = 20;
  const field = numberField({
    label: 'count', value: inUse, min: 1, max: 63, notANumber: TEXT.zh.notANumber,
    refuse: wholeNumbers(1, () => room, (from, to) => TEXT.zh.wholeRange(from, to, inUse)), onInput: (v) => (inUse = v),
  });
  for (const raw of ['0', '-5', '64', '100']) {
    type(field, raw);
    assert.equal(hint(field), '只能填 1 到 63 之间的整数，现在仍是 20。', raw);
  }
  type(field, '63');
  assert.equal(inUse, 63);
  room = 5;
  type(field, '6');
  assert.equal(hint(field), '只能填 1 到 5 之间的整数，现在仍是 63。');
  type(field, '5');
  assert.equal([inUse, hint(field)].join(), '5,');
});

test('a box without a range of its own (the bill\'s) takes any number, and an empty one says nothing', () => {
  const taken = [];
  const field = numberField({ label: 'd', value: 8, notANumber: TEXT.zh.notANumber, onInput: (v) => taken.push(v) });
  type(field, '-3');
  type(field, '');
  assert.equal(hint(field), '');
  assert.deepEqual(taken, [-3]);
});
