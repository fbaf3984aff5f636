// A character-level vocabulary: one token per character (code point) that is frequent enough in the
// training text, plus two special tokens. Rare characters share one unknown token: a character seen a
// handful of times in 3.9 M cannot be learned, and each would cost an embedding row.

/** Separates poems in the training stream and opens every evaluated poem: "a new poem starts here". */
export const BOUNDARY = '<|poem|>';
/** Stands for every character below the cut-off, in training and evaluation alike. */
export const UNKNOWN = '<|unk|>';
export const BOUNDARY_ID = 0;
export const UNKNOWN_ID = 1;
/** A character needs this many occurrences in the training text to get its own token. */
export const DEFAULT_MIN_COUNT = 5;

function characterCounts(texts) {
  const counts = new Map();
  for (const text of texts) {
    for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
  }
  return counts;
}

/**
 * The token list (index = id): the two special tokens, then the characters seen at least minCount times,
 * most frequent first, ties by code point so the same text always gives the same ids. The newline and
 * the punctuation are characters like any other: they are frequent, so they get their own tokens.
 */
export function buildVocabulary(texts, { minCount = DEFAULT_MIN_COUNT } = {}) {
  const kept = [...characterCounts(texts)]
    .filter(([, count]) => count >= minCount)
    .sort(([a, countA], [b, countB]) => countB - countA || a.codePointAt(0) - b.codePointAt(0))
    .map(([char]) => char);
  const tokens = [BOUNDARY, UNKNOWN, ...kept];
  if (tokens.length > 0x10000) throw new Error(`vocabulary of ${tokens.length} tokens does not fit Uint16 ids`);
  return tokens;
}

/** A function from text to token ids; characters outside the vocabulary become UNKNOWN_ID. */
export function encoder(tokens) {
  const ids = new Map(tokens.map((token, id) => [token, id]));
  return (text) => Array.from(text, (char) => ids.get(char) ?? UNKNOWN_ID);
}

/**
 * The training stream: every poem opened by BOUNDARY and the last one closed by it, so each poem is
 * framed the same way (B p1 B p2 … B pN B) and the model learns how poems start and end.
 */
export function encodePoems(bodies, tokens) {
  const encode = encoder(tokens);
  const stream = [];
  for (const body of bodies) stream.push(BOUNDARY_ID, ...encode(body));
  stream.push(BOUNDARY_ID);
  return Uint16Array.from(stream);
}

export function decode(ids, tokens) {
  return Array.from(ids, (id) => tokens[id]).join('');
}
