// GPT-2's tokenizer as the page uses it (web/gpt2/tokens.js, the npm package gpt-tokenizer's r50k_base):
// known GPT-2 encodings, tokens shown as split (byte tokens as their bytes), and the English head roles
// (web/gpt2/roles.js): their queries, and each role told apart on synthetic attention, by its ratio to chance.
import test from 'node:test';
import assert from 'node:assert/strict';
import { gpt2Input, gpt2TokenLabel, gpt2TokenBytes, isByteToken, isPunctuationToken, characterRuns, END_OF_TEXT } from '../web/gpt2/tokens.js';
import { gpt2RoleQueries, gpt2Roles, GPT2_ROLES } from '../web/gpt2/roles.js';
import { clearRole } from '../web/heads/roles.js';
import { GPT2_EXAMPLES } from '../web/gpt2/examples.js';

test('GPT-2\'s own encodings: "Hello world" is 15496 995, " the" is 262, <|endoftext|> is 50256', () => {
  assert.deepEqual(gpt2Input('Hello world', 64), [END_OF_TEXT, 15496, 995]);
  assert.deepEqual(gpt2Input(' the', 64), [END_OF_TEXT, 262]);
  assert.equal(END_OF_TEXT, 50256);
  // From GPT-2's vocabulary (encoder.json): "ĠThe" 383, "," 11, "." 13, "Ċ" (a line break) 198.
  assert.deepEqual(gpt2Input('The cat.\n The,', 64), [END_OF_TEXT, 464, 3797, 13, 198, 383, 11]);
  // Typed, "<|endoftext|>" is text, not the boundary; the input stops at the limit.
  assert.ok(!gpt2Input('a <|endoftext|> b', 64).slice(1).includes(END_OF_TEXT));
  assert.equal(gpt2Input('word '.repeat(100), 64).length, 64);
});

test('tokens are shown as split: spaces as ␣ (GPT-2\'s Ġ), line breaks as ↵; punctuation tokens are known', () => {
  assert.deepEqual([END_OF_TEXT, 15496, 995, 11, 198].map(gpt2TokenLabel), ['<|endoftext|>', 'Hello', '␣world', ',', '↵']);
  assert.deepEqual([11, 13, 198, 995, END_OF_TEXT].map(isPunctuationToken), [true, true, true, false, false]);
});

test('English head roles: previous, first, copying (induction) and punctuation; no 对仗 rows', () => {
  assert.deepEqual(GPT2_ROLES.map(({ name }) => name), ['previous', 'first', 'copying', 'punctuation']);
  // <|endoftext|> A B , A B: at the second A (row 4) copying looks at what followed the first A (row 2).
  const ids = [END_OF_TEXT, 32, 33, 11, 32, 33];
  const punctuation = ids.map(isPunctuationToken);
  const queries = gpt2RoleQueries(ids, punctuation);
  assert.deepEqual(queries.copying, [[4, [2]], [5, [3]]]);
  assert.deepEqual(queries.previous[0], [1, [0]]);
  assert.deepEqual(queries.punctuation, [[3, [3]], [4, [3]], [5, [3]]]);
  assert.deepEqual([queries.parallel, queries.parallelNext], [[], []]);
  // A head that always looks one back scores 1 on previous; the roles' rows exclude the 对仗 roles.
  const L = ids.length;
  const back = new Float32Array(L * L);
  for (let r = 0; r < L; r++) back[r * L + Math.max(0, r - 1)] = 1;
  const roles = gpt2Roles(ids, punctuation, [back]);
  assert.equal(roles.heads[0].previous, 1);
  assert.equal(roles.heads[0].parallel, null);
  assert.equal(roles.rows.parallel, 0);
});

test('a Chinese character is split into byte tokens, shown as their bytes (猫 is ⟨e7⟩ ⟨8c⟩ ⟨ab⟩), never as �; the same label every time', () => {
  const ids = gpt2Input('猫吃鱼', 64);
  // GPT-2's tokens of 猫吃鱼 (UTF-8 e7 8c ab, e5 90 83, e9 b1 bc): ids of its byte-level vocabulary.
  assert.deepEqual(ids, [END_OF_TEXT, 163, 234, 104, 28938, 225, 165, 109, 120]);
  const labels = ids.map(gpt2TokenLabel);
  assert.deepEqual(labels, ['<|endoftext|>', '⟨e7⟩', '⟨8c⟩', '⟨ab⟩', '⟨e5 90⟩', '⟨83⟩', '⟨e9⟩', '⟨b1⟩', '⟨bc⟩']);
  // A label does not depend on the token asked about before (the package's decode() keeps half a character).
  assert.deepEqual([104, 163, 104].map(gpt2TokenLabel), ['⟨ab⟩', '⟨e7⟩', '⟨ab⟩']);
  assert.deepEqual(ids.map(isByteToken), [false, true, true, true, true, true, true, true, true]);
  assert.deepEqual(characterRuns(ids), [{ from: 1, to: 3, text: '猫' }, { from: 4, to: 5, text: '吃' }, { from: 6, to: 8, text: '鱼' }]);
  assert.deepEqual(Array.from(gpt2TokenBytes(28938)), [0xe5, 0x90]);
  // Text and bytes in one token: a space, then the first bytes of 🐟 (f0 9f 90 9f); é is whole.
  const fish = gpt2Input('café 🐟', 64);
  assert.deepEqual(fish.map(gpt2TokenLabel), ['<|endoftext|>', 'c', 'af', 'é', '␣⟨f0 9f⟩', '⟨90⟩', '⟨9f⟩']);
  assert.deepEqual(characterRuns(fish), [{ from: 4, to: 6, text: ' 🐟' }]);
  assert.ok(!gpt2Input('你好，世界。', 64).map(gpt2TokenLabel).join('').includes('�'));
  assert.equal(isPunctuationToken(163), false, 'a byte is no punctuation mark');
});

/** A head that puts weight w on where `target(r)` says (columns), the rest spread evenly over the row's view. */
function head(L, target, w = 0.9) {
  const weights = new Float32Array(L * L);
  for (let r = 0; r < L; r++) {
    const columns = r === 0 ? [0] : target(r);
    if (!columns.length) {
      for (let c = 0; c <= r; c++) weights[r * L + c] = 1 / (r + 1);
      continue;
    }
    for (let c = 0; c <= r; c++) weights[r * L + c] = (1 - w) / (r + 1);
    for (const c of columns) weights[r * L + c] += w / columns.length;
  }
  return weights;
}

test('each GPT-2 role stands out on a head made to do it, by its ratio to chance; an even head is mixed', () => {
  // The induction example's tokens: the phrase Mr and Mrs Dursley comes twice.
  const ids = gpt2Input(GPT2_EXAMPLES.find(({ name }) => name === 'induction').text, 64);
  const punctuation = ids.map(isPunctuationToken);
  const L = ids.length;
  const queries = gpt2RoleQueries(ids, punctuation);
  const inductionTargets = new Map(queries.copying);
  const punctuationTargets = new Map(queries.punctuation);
  assert.ok(inductionTargets.size >= 4, 'the second Mr and Mrs Dursley looks back at the first');
  const heads = {
    previous: head(L, (r) => [r - 1]),
    first: head(L, () => [0]),
    copying: head(L, (r) => inductionTargets.get(r) ?? []),
    punctuation: head(L, (r) => punctuationTargets.get(r) ?? []),
    even: head(L, () => []),
  };
  const roles = gpt2Roles(ids, punctuation, Object.values(heads));
  const verdicts = roles.heads.map((scores) => clearRole(scores, roles.chance));
  assert.deepEqual(verdicts, ['previous', 'first', 'copying', 'punctuation', null]);
  // The previous-token head scores its weight and its even share; chance is the even head's score.
  assert.ok(Math.abs(roles.heads[0].previous - (0.9 + 0.1 * roles.chance.previous)) < 1e-5);
  for (const { name } of GPT2_ROLES) assert.ok(Math.abs(roles.heads[4][name] - roles.chance[name]) < 1e-6, `${name}: the even head scores chance`);
  // By ratio to chance, not by score: a head with half its weight on the first position everywhere and 0.35 on
  // the induction rows' targets scores higher on the first position, but far less above its chance (an even
  // head's share of position 0 is large early in the text; its share of one target late in it is small).
  const both = new Float32Array(L * L);
  for (let r = 0; r < L; r++) {
    const targets = inductionTargets.get(r);
    for (let c = 0; c <= r; c++) both[r * L + c] = (targets ? 0.15 : 0.5) / (r + 1);
    both[r * L] += 0.5;
    if (targets) targets.forEach((c) => (both[r * L + c] += 0.35 / targets.length));
  }
  const mixed = gpt2Roles(ids, punctuation, [both]);
  assert.ok(mixed.heads[0].first > mixed.heads[0].copying);
  assert.equal(clearRole(mixed.heads[0], mixed.chance), 'copying');
  // A role under 0.3 does not stand out, however far above chance.
  const faint = gpt2Roles(ids, punctuation, [head(L, (r) => inductionTargets.get(r) ?? [], 0.2)]);
  assert.equal(clearRole(faint.heads[0], faint.chance), null);
});
