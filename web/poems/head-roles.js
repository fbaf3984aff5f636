// Where each of §10's head roles (web/heads/roles.js) looks in a poem: its characters, separators, lines and
// couplets, and the heads' role scores over the held-out poems. Pure: it reads attention rows, whoever
// computed them. The model card, its tests and the lesson page all score heads with these definitions.

import { BOUNDARY_ID } from './vocabulary.js';
import { HEAD_ROLES, headTallies, tallyHead, tallyScores } from '../heads/roles.js';
import { layerHead } from '../heads/heads.js';
import { HAN } from './verse.js';

/**
 * Which tokens are separators (punctuation marks and the line break) and which are characters, from the
 * vocabulary (index = id): a token is a character when it is one Han character or the unknown token. Also
 * which is the line break, and which joins the two clauses of a couplet (，).
 */
export function tokenKinds(vocabulary) {
  const separator = new Uint8Array(vocabulary.length);
  const lineBreak = new Uint8Array(vocabulary.length);
  const couplet = new Uint8Array(vocabulary.length);
  vocabulary.forEach((token, id) => {
    separator[id] = id !== BOUNDARY_ID && !HAN.test(token) && !token.startsWith('<|') ? 1 : 0;
    lineBreak[id] = token === '\n' ? 1 : 0;
    couplet[id] = token === '，' ? 1 : 0;
  });
  return { separator, lineBreak, couplet };
}

/**
 * For one input window (token ids), where each role looks from each query row: a list of [row, columns]
 * per role, columns being the positions (≤ row) whose weights the role sums. A row appears only where the
 * role applies: `self`, `previous` and `first` from row 1 on (row 0 can only look at itself), `back2` and
 * `back3` and `back4to5` (both positions) where the window reaches that far back; `parity` from row 3 on,
 * at the positions 3, 5 and 7 back that the window holds; `lineStart` past a line's first character, where a line
 * break or BOUNDARY shows where the line began; `parallel` at a character of a couplet's second clause (a
 * clause is a run of characters between separators, the window's start or BOUNDARY; a couplet, two clauses
 * of the same length with just a ， between them), and `parallelNext` at the same rows one place further; `parallelNext2` two places further, at the rows where
 * that place is still in the first clause;
 * `copying` at a character that occurred before, with the positions just after those occurrences (the
 * current row itself excluded); `punctuation` from row 1 on where a separator is in view.
 */
export function roleQueries(ids, kinds) {
  const isCharacter = (id) => id !== BOUNDARY_ID && !kinds.separator[id];
  const queries = Object.fromEntries(HEAD_ROLES.map(({ name }) => [name, []]));
  const clauses = []; // [start, length] of each run of characters
  for (let r = 0; r < ids.length; r++) {
    if (isCharacter(ids[r]) && (r === 0 || !isCharacter(ids[r - 1]))) clauses.push([r, 0]);
    if (isCharacter(ids[r])) clauses[clauses.length - 1][1]++;
  }
  const clauseAt = new Int32Array(ids.length).fill(-1);
  clauses.forEach(([start, length], c) => clauseAt.fill(c, start, start + length));
  const separatorsSeen = [];
  let lineStart = -1; // the first position of the current line, once a line break or BOUNDARY shows it
  for (let r = 0; r < ids.length; r++) {
    if (kinds.separator[ids[r]]) separatorsSeen.push(r);
    if (r > 0 && (kinds.lineBreak[ids[r - 1]] || ids[r - 1] === BOUNDARY_ID)) lineStart = r;
    if (r === 0) continue;
    queries.self.push([r, [r]]);
    queries.previous.push([r, [r - 1]]);
    if (r >= 2) queries.back2.push([r, [r - 2]]);
    if (r >= 3) queries.back3.push([r, [r - 3]]);
    if (r >= 5) queries.back4to5.push([r, [r - 4, r - 5]]);
    if (r >= 3) queries.parity.push([r, [r - 3, r - 5, r - 7].filter((column) => column >= 0)]);
    if (lineStart >= 0 && lineStart < r && isCharacter(ids[lineStart])) queries.lineStart.push([r, [lineStart]]);
    queries.first.push([r, [0]]);
    if (separatorsSeen.length) queries.punctuation.push([r, separatorsSeen.slice()]);
    const c = clauseAt[r];
    if (c < 0) continue;
    const [before, length] = c > 0 ? clauses[c - 1] : [0, 0];
    if (length === clauses[c][1] && before + length + 1 === clauses[c][0] && kinds.couplet[ids[before + length]]) {
      const samePlace = before + r - clauses[c][0];
      queries.parallel.push([r, [samePlace]]);
      queries.parallelNext.push([r, [samePlace + 1]]); // at a clause's last character: the separator after the one before
      if (samePlace + 2 < before + length) queries.parallelNext2.push([r, [samePlace + 2]]); // in the first clause
    }
    const after = [];
    for (let j = 0; j + 1 < r; j++) if (ids[j] === ids[r]) after.push(j + 1);
    if (after.length) queries.copying.push([r, after]);
  }
  return queries;
}

/** Adds every head's attention of the model's last forward, which read the window `ids`, to its tally (headTallies'). */
export function tallyWindow(tallies, model, ids, kinds) {
  const queries = roleQueries(ids, kinds);
  tallies.forEach((tally, i) => tallyHead(tally, model.attention(...layerHead(i, model.config.heads)), ids.length, queries));
}

/**
 * Every head's role scores over a set of input windows, with a model of web/src/attention.js's Model
 * (forward, attention(layer, head)). Returns { heads: [{ layer, head, scores }], chance, rows }: the
 * chance level and row counts are the same for every head, since they depend on the windows alone.
 */
export function measureHeadRoles(model, windows, kinds) {
  const { heads } = model.config;
  const tallies = headTallies(model.config);
  for (const ids of windows) {
    model.forward(ids);
    tallyWindow(tallies, model, ids, kinds);
  }
  const results = tallies.map(tallyScores);
  return {
    heads: results.map(({ scores }, i) => ({ layer: Math.floor(i / heads), head: i % heads, scores })),
    chance: results[0].chance,
    rows: results[0].rows,
  };
}
