// The evaluation protocol of the model card, and the two baselines the model's loss is read against: a
// unigram and a bigram model of the training stream, scored on the held-out poems exactly as the model is.
import { BOUNDARY_ID } from './vocabulary.js';

export const DEFAULT_CONTEXT = 64;
/** Add-k smoothing of the unigram: no token, not even one the training stream lacks, gets probability 0. */
export const DEFAULT_ADD_K = 1;

/**
 * How one held-out poem is scored. Its sequence is BOUNDARY then its characters, the way every poem
 * starts in the training stream. Each character is a target exactly once, in consecutive windows of at
 * most `context` inputs: window k reads sequence[kC … kC+C−1] and predicts sequence[kC+1 … kC+C]. So
 * the first character is predicted from BOUNDARY alone, and the first target of a later window from the
 * one character before it: nothing is predicted from no input at all, which a GPT cannot do.
 */
export function evaluationWindows(poemIds, context = DEFAULT_CONTEXT) {
  if (!(Number.isInteger(context) && context >= 1)) throw new RangeError(`context must be a positive integer, got ${context}`);
  const sequence = [BOUNDARY_ID, ...poemIds];
  const windows = [];
  for (let start = 0; start + 1 < sequence.length; start += context) {
    const end = Math.min(start + context, sequence.length - 1);
    windows.push({ input: sequence.slice(start, end), target: sequence.slice(start + 1, end + 1) });
  }
  return windows;
}

/**
 * Unigram and bigram probabilities from a token stream (every token counts, BOUNDARY included, as every
 * token after the first is a target in training).
 * - unigram: add-k, P(w) = (c(w) + k) / (N + kV).
 * - bigram: Witten–Bell interpolation with that unigram, P(w | h) = (c(h w) + T(h) P(w)) / (c(h·) + T(h)),
 *   where c(h·) counts the bigrams that start with h and T(h) how many different tokens follow h. A
 *   history followed by many different tokens leans on the unigram more; it has no parameter to tune.
 */
export function ngramModel(stream, vocabSize, { addK = DEFAULT_ADD_K } = {}) {
  const counts = new Float64Array(vocabSize);
  for (const id of stream) counts[id]++;
  const unigram = (w) => (counts[w] + addK) / (stream.length + addK * vocabSize);

  const pairCounts = new Map();
  const historyCounts = new Float64Array(vocabSize);
  const followerTypes = new Float64Array(vocabSize);
  for (let i = 1; i < stream.length; i++) {
    const key = stream[i - 1] * vocabSize + stream[i];
    const seen = pairCounts.get(key) ?? 0;
    if (seen === 0) followerTypes[stream[i - 1]]++;
    pairCounts.set(key, seen + 1);
    historyCounts[stream[i - 1]]++;
  }
  const bigram = (h, w) => {
    const types = followerTypes[h];
    if (types === 0) return unigram(w);
    return ((pairCounts.get(h * vocabSize + w) ?? 0) + types * unigram(w)) / (historyCounts[h] + types);
  };
  return { unigram, bigram };
}

/**
 * Mean next-character loss in nats of both baselines over the held-out poems (arrays of token ids),
 * windowed by evaluationWindows: the unigram ignores the input, the bigram reads the token before each
 * target, which every window supplies. Also the number of targets the means are over.
 */
export function baselineLosses(stream, vocabSize, heldOutIds, { context = DEFAULT_CONTEXT, addK = DEFAULT_ADD_K } = {}) {
  const model = ngramModel(stream, vocabSize, { addK });
  let unigram = 0;
  let bigram = 0;
  let targets = 0;
  for (const poem of heldOutIds) {
    for (const { input, target } of evaluationWindows(poem, context)) {
      target.forEach((w, i) => {
        unigram -= Math.log(model.unigram(w));
        bigram -= Math.log(model.bigram(input[i], w));
        targets++;
      });
    }
  }
  return { unigram: unigram / targets, bigram: bigram / targets, targets };
}
