// §10's head roles (web/heads/roles.js), measured on GPT-2's tokens: previous token, first token (the attention
// sink, here <|endoftext|>), copying, which is induction (the query looks at the token right after an earlier
// occurrence of the current token), and punctuation. Each is scored as the poetry model's are, the mean weight
// where it looks against the even share (its chance level), and a head is labelled by web/heads/roles.js's
// clearRole: its role furthest above chance, if at least 0.3 and 3 times chance. The poem's own roles (its
// lines, its couplets' 对仗, fixed steps back) are left out (no rows). Pure: token ids, which of them are
// punctuation, attention rows in.
import { HEAD_ROLES, headRoles } from '../heads/roles.js';

/** The roles measured on GPT-2's tokens, in the card's order (the others stay without rows). */
export const GPT2_ROLES = HEAD_ROLES.filter(({ name }) => ['previous', 'first', 'copying', 'punctuation'].includes(name));

/** Where each role looks from each row, as the poetry model's roleQueries (web/poems/head-roles.js) gives it (the 对仗 roles empty). */
export function gpt2RoleQueries(ids, isPunctuation) {
  const queries = Object.fromEntries(HEAD_ROLES.map(({ name }) => [name, []]));
  const punctuationSeen = [];
  for (let r = 0; r < ids.length; r++) {
    if (isPunctuation[r]) punctuationSeen.push(r);
    if (r === 0) continue;
    queries.previous.push([r, [r - 1]]);
    queries.first.push([r, [0]]);
    if (punctuationSeen.length) queries.punctuation.push([r, punctuationSeen.slice()]);
    const after = [];
    for (let j = 0; j + 1 < r; j++) if (ids[j] === ids[r]) after.push(j + 1);
    if (after.length) queries.copying.push([r, after]);
  }
  return queries;
}

/** Every head's role scores on one forward (attention: one L×L array per head), with chance levels and row counts. */
export function gpt2Roles(ids, isPunctuation, attention) {
  return headRoles(attention, ids.length, gpt2RoleQueries(ids, isPunctuation));
}
