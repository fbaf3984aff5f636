// What §3's "停一秒" callout compares, read from forward results (shared/session.js snapshots): how each
// head spreads the first word's row, and lesson 8's single head on the same q, k, v, whose second row gave
// its largest weight to itself. Pure data in, plain facts out; the words are in strings.js.

const range = (n) => Array.from({ length: n }, (_, i) => i);

/**
 * Where one head's row looks: `{ even, share, count, word }`. Shares are whole percentages of the words the
 * row can see (with the causal mask, only itself and the words before it). An even row gives each of its
 * `count` words `share`, as the lesson writes it (33% × 3), or to a tenth where whole ones would not add up
 * (12.5% × 8, not 13% × 8); any other names the `word` with the largest share (the first, on a tie).
 */
export function rowLook(result, head, row = 0) {
  const { L, causal, attention, tokens } = result;
  const count = causal ? row + 1 : L;
  const weights = range(count).map((c) => attention[head][row * L + c]);
  const shares = weights.map((w) => Math.round(w * 100));
  const top = weights.indexOf(Math.max(...weights));
  const even = count > 1 && shares.every((s) => s === shares[0]);
  const share = even && Math.abs(shares[0] * count - 100) > 1 ? Math.round(1000 / count) / 10 : shares[top];
  return { even, share, count, word: tokens[top] };
}

/** What a single head gives the second word's row: its own weight (2 decimals) and where its largest went. */
function selfLook(single) {
  if (single.L < 2) return null;
  const { L, attention, tokens } = single;
  const weights = range(L).map((c) => attention[0][L + c]);
  const top = weights.indexOf(Math.max(...weights));
  return { word: tokens[1], weight: weights[1].toFixed(2), top: top === 1, topWord: tokens[top], dK: single.dK };
}

const sameLook = (a, b) => a.even === b.even && a.share === b.share && (a.even ? a.count === b.count : a.word === b.word);

/**
 * The callout's facts: `result` is the hand example's forward (h heads), `single` the same q, k, v through
 * one head of the full width (lesson 8), `lesson` these facts for the lesson's own numbers (null for those
 * facts themselves). `changed` says the live numbers tell a different story from the lesson's.
 */
export function pauseFacts(result, single, lesson = null) {
  const looks = range(result.heads).map((head) => rowLook(result, head));
  const facts = {
    word: result.tokens[0],
    heads: result.heads,
    looks,
    differ: looks.some((look) => !sameLook(look, looks[0])),
    alone: looks[0].count === 1, // the first word has only itself to look at: the mask is on, or it is the only word
    oneWord: result.tokens.length === 1,
    self: selfLook(single),
  };
  const sameAsLesson = (other) => other.word === facts.word && other.heads === facts.heads
    && other.looks.every((look, i) => sameLook(look, looks[i])) && JSON.stringify(other.self) === JSON.stringify(facts.self);
  return { ...facts, lesson, changed: Boolean(lesson) && !sameAsLesson(lesson) };
}
