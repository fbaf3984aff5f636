// §10's views of GPT-2 (web/ui/README.md, rule 5): pure functions of a run's numbers (runs.js) and the words
// `words` (TEXT[lang].poems under GPT-2's own, TEXT[lang].gpt2) to virtual nodes; section.js shows them. The views
// any model's heads share are ../heads/head-figures.js's.
import { vh } from '../ui/dom.js';
import { rolesTable } from '../heads/head-figures.js';
import { clearRole } from '../heads/roles.js';
import { GPT2_ROLES, gpt2Roles } from './roles.js';

/**
 * Head `index`'s roles, measured on the sentence alone (its token `ids`, which of them are `punctuation`, and the
 * head's L×L `weights`), which gives the verdict.
 */
export function gpt2RolesView(words, { index, heads, ids, punctuation, weights }) {
  const roles = gpt2Roles(ids, punctuation, [weights]);
  return rolesTable(words, {
    prefix: 'gpt2', index, heads, roles: GPT2_ROLES.map(({ name }) => name),
    columns: [{ title: words.textColumn, measured: { scores: roles.heads[0], chance: roles.chance, rows: roles.rows } }],
    verdict: { role: clearRole(roles.heads[0], roles.chance) },
  });
}

/**
 * The sentence as GPT-2 reads it: how many tokens (and that it reads no more than `limit`), each token, and the
 * byte tokens that together make one character (`characters`: { from, to, text }).
 */
export function tokensView(words, { ids, labels, byteTokens, characters }, limit) {
  const count = ids.length;
  const pairs = [...new Set(characters.map(({ from, to, text }) => `${labels.slice(from, to + 1).join(' ')} = ${text}`))];
  return [
    vh('p', { class: 'muted' }, [words.tokensTitle(count), ' ', count >= limit ? words.clipped(limit) : '']),
    vh('p', { class: 'gpt2-token-list' }, labels.map((label, i) => vh('code', { class: 'gpt2-token', 'data-id': ids[i], 'data-bytes': String(byteTokens[i]) }, [label]))),
    pairs.length ? vh('p', { class: 'muted', id: 'gpt2-bytes' }, [words.bytesNote, ...pairs.flatMap((pair) => [' ', vh('code', {}, [pair])])]) : null,
  ];
}
