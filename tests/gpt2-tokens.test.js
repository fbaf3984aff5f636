// GPT-2's tokenizer as the page uses it (web/gpt2/tokens.js, the npm package gpt-tokenizer's r50k_base):
// known GPT-2 encodings, tokens shown as split, and the English head roles' queries (web/gpt2/roles.js).
import test from 'node:test';
import assert from 'node:assert/strict';
import { gpt2Input, gpt2TokenLabel, isPunctuationToken, END_OF_TEXT } from '../web/gpt2/tokens.js';
import { gpt2RoleQueries, gpt2Roles, GPT2_ROLES } from '../web/gpt2/roles.js';

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
