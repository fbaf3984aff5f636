// What a head of §10's models does, as numbers: for each role, the mean attention weight a head puts where the
// role says to look, over the query rows where the role applies, beside the same mean for a head that spreads
// its weight evenly over the positions it may see (the chance level: 1/(r+1) per matching position at row r).
// Which rows and positions a role names depends on the model's text, so each model says that itself
// (web/poems/head-roles.js roleQueries, web/gpt2/roles.js); the tallies and the verdict are the same for any model.
// Pure: attention rows in, whoever computed them.

/** The roles, in the poetry card's order, each with the sentence that defines it; GPT-2 measures those that make sense on any text. */
export const HEAD_ROLES = [
  { name: 'self', explains: 'weight on the current position itself (r)' },
  { name: 'previous', explains: 'weight on the character just before (position r−1)' },
  { name: 'back2', explains: 'weight on the position two back (r−2)' },
  { name: 'back3', explains: 'weight on the position three back (r−3)' },
  { name: 'back4to5', explains: 'weight on the positions four and five back (r−4, r−5)' },
  { name: 'parity', explains: 'weight on the positions three, five and seven back (r−3, r−5, r−7): every other character before the previous one' },
  { name: 'lineStart', explains: 'weight on the first character of the current line (after the last line break), from its second character on' },
  { name: 'first', explains: 'weight on the window’s first position (position 0): the attention sink' },
  { name: 'parallel', explains: 'within a couplet (two clauses of the same length joined by ，): the k-th character of the second clause looks at the k-th of the first (对仗, same place)' },
  { name: 'parallelNext', explains: 'within a couplet: the k-th character of the second clause looks at the (k+1)-th of the first, the counterpart of the character being predicted (对仗, next place; from the last character, the ，)' },
  { name: 'parallelNext2', explains: 'within a couplet: the k-th character of the second clause looks at the (k+2)-th of the first, two places ahead (where that is in the first clause or its ，)' },
  { name: 'copying', explains: 'weight on the characters that followed earlier occurrences of the current character' },
  { name: 'punctuation', explains: 'weight on punctuation marks and line breaks' },
];

/** Sums, per role, of one head's weights where the role looks and of the chance level; and the row count. */
export function emptyTally() {
  return Object.fromEntries(HEAD_ROLES.map(({ name }) => [name, { weight: 0, chance: 0, rows: 0 }]));
}

/** One tally a head, by number, for a model of this shape. */
export const headTallies = ({ layers, heads }) => Array.from({ length: layers * heads }, emptyTally);

/** Adds one head's L×L attention (row-major) of a window to its tally; `queries`: per role, the [row, columns] it looks at. */
export function tallyHead(tally, attention, length, queries) {
  for (const { name } of HEAD_ROLES) {
    const entry = tally[name];
    for (const [row, columns] of queries[name]) {
      for (const column of columns) entry.weight += attention[row * length + column];
      entry.chance += columns.length / (row + 1);
      entry.rows++;
    }
  }
  return tally;
}

/** { role: mean weight } and { role: chance level } of a tally; null for a role no row applied to. */
export function tallyScores(tally) {
  const mean = (key) => Object.fromEntries(HEAD_ROLES.map(({ name }) => [name, tally[name].rows ? tally[name][key] / tally[name].rows : null]));
  return { scores: mean('weight'), chance: mean('chance'), rows: Object.fromEntries(HEAD_ROLES.map(({ name }) => [name, tally[name].rows])) };
}

/**
 * Every head's role scores on one forward (attention: one L×L array per head) of `length` tokens, where the
 * roles look as `queries` says: { heads: [scores], chance, rows }, the chance levels and row counts being the
 * same for every head.
 */
export function headRoles(attention, length, queries) {
  const measured = attention.map((weights) => tallyScores(tallyHead(emptyTally(), weights, length, queries)));
  return { heads: measured.map(({ scores }) => scores), chance: measured[0].chance, rows: measured[0].rows };
}

/**
 * A head's role when one stands out, else null (mixed): the role whose score is furthest above chance,
 * provided that score is at least 0.3 and at least three times chance.
 */
export function clearRole(scores, chance) {
  let best = null;
  for (const { name } of HEAD_ROLES) {
    const score = scores[name];
    if (score === null || !(score >= Math.max(0.3, 3 * chance[name]))) continue;
    if (!best || score / chance[name] > scores[best] / chance[best]) best = name;
  }
  return best;
}

/** How far above chance a role must hold on the fresh test set for a poetry-model head to be named by it. */
export const LABEL_TIMES_CHANCE = 3;

/**
 * The poetry model's name for a head, from its role scores on the fresh test set (the card's
 * headRoles.fresh): of the roles that take at least LABEL_TIMES_CHANCE times their chance level, the one
 * that takes the most of the head's weight; null (mixed) when none does. Most weight, not furthest above
 * chance, so that a head spreading its weight over 3, 5 and 7 back is named for that, not for the one
 * position of it (3 back) whose chance is smallest.
 */
export function labelRole(scores, chance) {
  let best = null;
  for (const { name } of HEAD_ROLES) {
    const score = scores[name];
    if (score === null || score === undefined || !chance[name] || !(score >= LABEL_TIMES_CHANCE * chance[name])) continue;
    if (!best || score > scores[best]) best = name;
  }
  return best;
}
