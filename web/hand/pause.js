// What §3's "停一秒" callout compares, read from forward results (shared/session.js snapshots): how each
// head spreads the first word's row, and lesson 8's single head on the same q, k, v, whose second row gave
// its largest weight to itself. Pure data in, plain facts out; the words are in strings.js.
//
// Every fact is taken at the precision the page shows a weight: two decimals (the heatmaps' 0.42), so a
// whole percentage. Two words whose weights show the same are tied, and two heads whose rows show the
// same numbers are one view: a sentence never tells apart what the figures beside it show as equal.

import { range } from '../ui/section.js';
import { shownPercent } from '../draw/index.js';
import { snapshot } from '../shared/session.js';
import { HAND_D_MODEL, HAND_MAX_TOKENS, defaultHand } from './limits.js';

/** The places holding the largest of these numbers (several on a tie). */
const topPlaces = (numbers) => range(numbers.length).filter((i) => numbers[i] === Math.max(...numbers));

/**
 * Where one head's row looks: `{ shares, count, top, words, even, fixed, share }`. `shares` are the
 * whole percentages of the `count` words the row can see (with the causal mask, only itself and the words
 * before it); `top` the places sharing the largest and `words` their words. An even row gives each word the
 * same share, written as the lesson writes it (33% × 3), or to a tenth where whole ones would not add up
 * (12.5% × 8, not 13% × 8). A row `fixed` on one word gives it at least half the row and at least twice any
 * other word's share (the lesson's head 1: 50% on 鱼, 25% on each of the others).
 */
export function rowLook(result, head, row = 0) {
  const { L, causal, attention, tokens } = result;
  const count = causal ? row + 1 : L;
  const shares = range(count).map((c) => shownPercent(attention[head][row * L + c]));
  const top = topPlaces(shares);
  const even = count > 1 && top.length === count;
  const share = even && Math.abs(shares[0] * count - 100) > 1 ? Math.round(1000 / count) / 10 : shares[top[0]];
  const runnerUp = Math.max(0, ...shares.filter((_, i) => !top.includes(i)));
  const fixed = count > 1 && top.length === 1 && share >= 50 && share >= 2 * runnerUp;
  return { shares, count, top, words: top.map((i) => tokens[i]), even, fixed, share };
}

/**
 * What a single head gives the second word's row, in two decimals as the heatmaps show it: its own weight,
 * the words sharing the largest (itself among them or not), and the head's settings (lesson 8's was
 * unmasked and scaled).
 */
function selfLook(single) {
  if (single.L < 2) return null;
  const { L, attention, tokens } = single;
  const count = single.causal ? 2 : L;
  const weights = range(count).map((c) => attention[0][L + c].toFixed(2));
  const top = topPlaces(weights.map(Number));
  return {
    word: tokens[1], weight: weights[1], topWeight: weights[top[0]], topWords: top.map((i) => tokens[i]), selfTop: top.includes(1),
    dK: single.dK, causal: single.causal, scaled: single.scaled,
  };
}

/** The heads in groups whose rows show the same shares: one group is one way of looking. */
function viewGroups(looks) {
  const groups = new Map();
  looks.forEach((look, head) => {
    const key = look.shares.join(',');
    groups.set(key, [...(groups.get(key) ?? []), head]);
  });
  return [...groups.values()];
}

const sameRows = (a, b) => a.length === b.length && a.every((row, r) => row.every((x, c) => x === b[r][c]));

/**
 * What the learner changed from the lesson's hand example, in the order the callout names them: 'heads',
 * 'mask', 'scale', 'words' (renamed, added or removed) and 'numbers' (q, k or v). With the lesson's words in
 * place the numbers are compared row by row; once the words change, each row is compared with the lesson's
 * rows and with the zeros a new word starts with, so renaming, adding or removing a word edits no number.
 * Wᴼ and switched-off heads leave every attention row as it was: the callout does not count them.
 */
export function handChanges(hand, lesson) {
  const changes = [];
  if (hand.heads !== lesson.heads) changes.push('heads');
  if (hand.causal !== lesson.causal) changes.push('mask');
  if (hand.scale !== lesson.scale) changes.push('scale');
  const sameWords = hand.tokens.length === lesson.tokens.length && hand.tokens.every((word, i) => word === lesson.tokens[i]);
  if (!sameWords) changes.push('words');
  const matrices = ['q', 'k', 'v'];
  const rowOf = (source, r) => matrices.map((m) => source[m][r]);
  const lessonRows = [...lesson.tokens.keys()].map((r) => rowOf(lesson, r));
  const zeros = matrices.map(() => Array(lesson.q[0].length).fill(0));
  const editedRow = (r) => (sameWords ? !sameRows(rowOf(hand, r), lessonRows[r]) : ![...lessonRows, zeros].some((row) => sameRows(rowOf(hand, r), row)));
  if (hand.tokens.some((_, r) => editedRow(r))) changes.push('numbers');
  return changes;
}

/**
 * The callout's facts: `result` is the hand example's forward (h heads), `single` the same q, k, v through
 * one head of the full width (lesson 8), `lesson` these facts for the lesson's own numbers (null for those
 * facts themselves), `changes` what handChanges found. `views` groups the heads that look alike.
 */
export function pauseFacts(result, single, lesson = null, changes = []) {
  const looks = range(result.heads).map((head) => rowLook(result, head));
  return {
    word: result.tokens[0],
    heads: result.heads,
    causal: result.causal,
    scaled: result.scaled,
    looks,
    views: viewGroups(looks),
    alone: looks[0].count === 1, // the first word has only itself to look at: the mask is on, or it is the only word
    oneWord: result.tokens.length === 1,
    self: selfLook(single),
    lesson,
    changes,
    changed: changes.length > 0,
  };
}

/** `hand`'s q, k and v through `heads` heads, on `session`'s layer for `use`: the callout's other forwards. */
function forward(session, use, hand, heads) {
  const layer = session.layer(use, { dModel: HAND_D_MODEL, heads, maxLen: HAND_MAX_TOKENS });
  layer.forward({ q: hand.q, k: hand.k, v: hand.v, causal: hand.causal, scale: hand.scale });
  return { ...snapshot(layer, { scaled: hand.scale, causal: hand.causal }), tokens: hand.tokens };
}

/** The callout's facts for the lesson's own numbers, which it compares an edited example with. */
export function lessonPauseFacts(session) {
  const lesson = defaultHand();
  return pauseFacts(forward(session, 'lesson', lesson, lesson.heads), forward(session, 'lesson-single', lesson, 1));
}

/**
 * The callout's facts for `hand`, whose forward is `result`: lesson 8's single head run on the same q, k
 * and v, and what changed from the lesson (`lesson`: lessonPauseFacts').
 */
export function handPauseFacts(session, result, hand, lesson) {
  return pauseFacts(result, forward(session, 'single', hand, 1), lesson, handChanges(hand, defaultHand()));
}
