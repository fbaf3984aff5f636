// The counting baselines the model must beat, on the model card's own targets: an interpolated modified
// Kneser-Ney 3-gram of the training stream (Chen and Goodman 1998, section 3.5), and the same 3-gram told how
// long the current clause is. Pure JS, no dependency: the card and the tests compute it the same way.

/** Discounts D1, D2, D3+ from how many n-grams of an order were seen once, twice, three and four times. */
export function discounts(countOfCounts) {
  const [n1, n2, n3, n4] = [1, 2, 3, 4].map((c) => countOfCounts[c] ?? 0);
  if (!n1 || !n2 || !n3 || !n4) return [0.5, 1, 1.5];
  const y = n1 / (n1 + 2 * n2);
  return [1 - 2 * y * (n2 / n1), 2 - 3 * y * (n3 / n2), 3 - 4 * y * (n4 / n3)];
}

/** Adds `add` to counts[key]. */
const bump = (counts, key, add = 1) => counts.set(key, (counts.get(key) ?? 0) + add);

/** One order's counts (keyed history · V + token) with their totals and N1, N2, N3+ by history, and discounts. */
function table(counts, vocabSize) {
  const byHistory = new Map(); // history → [total, n1, n2, n3+]
  const countOfCounts = [];
  for (const [key, count] of counts) {
    const history = Math.floor(key / vocabSize);
    const row = byHistory.get(history) ?? [0, 0, 0, 0];
    row[0] += count;
    row[Math.min(count, 3)]++;
    byHistory.set(history, row);
    if (count <= 4) countOfCounts[count] = (countOfCounts[count] ?? 0) + 1;
  }
  return { counts, byHistory, d: discounts(countOfCounts) };
}

/**
 * The 3-gram of a token stream (every token a target after the first two, as in training): prob(w, v, u) is
 * P(w | u v) with u two back and v one back; pass u = -1 (or both −1) where the window holds fewer tokens.
 * The top order counts trigrams; the lower orders count the different tokens seen before (continuation
 * counts), and the unigram is interpolated with the uniform distribution, so no token has probability 0.
 */
export function kneserNey3(stream, vocabSize) {
  const V = vocabSize;
  const trigrams = new Map();
  for (let i = 2; i < stream.length; i++) bump(trigrams, (stream[i - 2] * V + stream[i - 1]) * V + stream[i]);
  // Continuation counts: for a bigram v w, how many different u came before it; for w, how many different v.
  const bigrams = new Map();
  for (const key of trigrams.keys()) bump(bigrams, key % (V * V));
  const unigrams = new Map();
  for (const key of bigrams.keys()) bump(unigrams, key % V);
  const [top, middle, bottom] = [trigrams, bigrams, unigrams].map((counts) => table(counts, V));

  const level = ({ counts, byHistory, d }, history, w, lower) => {
    const row = byHistory.get(history);
    if (!row) return lower;
    const count = counts.get(history * V + w) ?? 0;
    const discounted = count > 0 ? Math.max(count - d[Math.min(count, 3) - 1], 0) : 0;
    const gamma = (d[0] * row[1] + d[1] * row[2] + d[2] * row[3]) / row[0];
    return discounted / row[0] + gamma * lower;
  };
  const unigram = (w) => level(bottom, 0, w, 1 / V);
  const bigram = (w, v) => (v < 0 ? unigram(w) : level(middle, v, w, unigram(w)));
  return {
    discounts: { trigram: top.d, bigram: middle.d, unigram: bottom.d },
    prob: (w, v, u = -1) => (u < 0 || v < 0 ? bigram(w, v) : level(top, u * V + v, w, bigram(w, v))),
  };
}

/** The clause lengths past which the separator model stops telling them apart. */
const MAX_CLAUSE = 16;

/** Index of (clause so far n, the clause before it m; 0 when there is none) in the clause model's tables. */
const cell = (n, m) => Math.min(n, MAX_CLAUSE) * (MAX_CLAUSE + 1) + Math.min(m, MAX_CLAUSE);

/**
 * How often a separator (a punctuation mark or a line break: `isSeparator(id)`) follows n characters of a
 * clause when the clause before it had m (0 at a poem's start), from the training stream, add-one smoothed: a
 * poem in five-character verse counts to five, one in seven to seven. Returns share(n, m).
 */
export function clauseLengthModel(stream, isSeparator, boundaryId = 0) {
  const separators = new Float64Array((MAX_CLAUSE + 1) ** 2);
  const totals = new Float64Array((MAX_CLAUSE + 1) ** 2);
  let n = 0;
  let m = 0;
  for (let i = 1; i < stream.length; i++) {
    const w = stream[i];
    totals[cell(n, m)]++;
    if (isSeparator(w)) {
      separators[cell(n, m)]++;
      if (n > 0) m = n;
      n = 0;
    } else if (w === boundaryId) [n, m] = [0, 0];
    else n++;
  }
  return (length, before) => (separators[cell(length, before)] + 1) / (totals[cell(length, before)] + 2);
}

/** The clause so far (n) and the one before it (m) after input[0 … i], counted in what a window holds. */
function clauseLengths(input, i, isSeparator, boundaryId) {
  let n = 0;
  let m = 0;
  for (let j = 0; j <= i; j++) {
    if (isSeparator(input[j])) {
      if (n > 0) m = n;
      n = 0;
    } else if (input[j] === boundaryId) [n, m] = [0, 0];
    else n++;
  }
  return [n, m];
}

/**
 * Per-target losses (nats) of both counting baselines over evaluation windows ({ input, target }): the 3-gram
 * reads at most the two tokens before a target inside its window, as the model reads only its window; the
 * 3-gram with clause length rescales the 3-gram's separators to the clause model's share at that point
 * (clauseLengthModel), and the other tokens to the rest.
 */
export function countingLosses(windows, { kn, separatorShare, separatorIds, isSeparator, boundaryId = 0 }) {
  const kn3 = [];
  const withLength = [];
  for (const { input, target } of windows) {
    target.forEach((w, i) => {
      const v = input[i];
      const u = i > 0 ? input[i - 1] : -1;
      const [n, m] = clauseLengths(input, i, isSeparator, boundaryId); // the model sees no more than the window
      const p = kn.prob(w, v, u);
      kn3.push(-Math.log(p));
      let separatorMass = 0;
      for (const s of separatorIds) separatorMass += kn.prob(s, v, u);
      const share = separatorShare(n, m);
      withLength.push(-Math.log(isSeparator(w) ? (share * p) / separatorMass : ((1 - share) * p) / (1 - separatorMass)));
    });
  }
  return { kn3, withLength };
}

/**
 * A 95 % interval for the mean loss over all targets (and for ratios of two such means), by resampling whole
 * poems with replacement: `perPoem` is, for each poem, its sums { [name]: total loss } and its target count;
 * `uniforms` holds resamples × poems numbers in [0, 1) that pick them (numpy's seeded generator on the card).
 * Returns { [name]: [low, high] } for each name, and for each pair in `ratios` ([a, b] → a/b).
 */
export function poemBootstrap(perPoem, names, { uniforms, ratios = [] }) {
  const resamples = Math.floor(uniforms.length / perPoem.length);
  let next = 0;
  const samples = Object.fromEntries([...names, ...ratios.map(([a, b]) => `${a}/${b}`)].map((name) => [name, []]));
  for (let r = 0; r < resamples; r++) {
    const sums = Object.fromEntries(names.map((name) => [name, 0]));
    let targets = 0;
    for (let i = 0; i < perPoem.length; i++) {
      const poem = perPoem[Math.floor(uniforms[next++] * perPoem.length)];
      for (const name of names) sums[name] += poem.sums[name];
      targets += poem.targets;
    }
    for (const name of names) samples[name].push(sums[name] / targets);
    for (const [a, b] of ratios) samples[`${a}/${b}`].push(sums[a] / sums[b]);
  }
  const interval = (values) => {
    values.sort((x, y) => x - y);
    return [values[Math.floor(0.025 * values.length)], values[Math.ceil(0.975 * values.length) - 1]];
  };
  return Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, interval(values)]));
}
