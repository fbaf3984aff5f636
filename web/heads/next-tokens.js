// A model's next-token probabilities at one position: the softmax of a row of its logits, as §10 reads it for
// any model (the top 5 shown with heads on and off; the poetry model's held-out loss, web/poems/evaluate.js).

/** Row `row` of L×vocabSize logits, with its largest score and Σ e^(score − max): softmax = e^(score − max) / sum. */
export function softmaxRow(logits, row, vocabSize) {
  const scores = logits.subarray(row * vocabSize, (row + 1) * vocabSize);
  let max = -Infinity;
  for (const score of scores) max = Math.max(max, score);
  let sum = 0;
  for (const score of scores) sum += Math.exp(score - max);
  return { scores, max, sum };
}

/** The k likeliest next tokens after position `row`: [{ id, p }], most probable first. */
export function topNext(logits, row, vocabSize, k = 5) {
  const { scores, max, sum } = softmaxRow(logits, row, vocabSize);
  const best = [];
  scores.forEach((score, id) => {
    if (best.length < k || score > best[best.length - 1].score) {
      best.push({ id, score });
      best.sort((a, b) => b.score - a.score);
      if (best.length > k) best.pop();
    }
  });
  return best.map(({ id, score }) => ({ id, p: Math.exp(score - max) / sum }));
}
