// The model card's held-out loss: a model of web/src/attention.js (forward, logits) scored on the held-out
// poems exactly as web/poems/baselines.js scores the unigram and the bigram.
import { evaluationWindows } from './baselines.js';
import { softmaxRow } from '../heads/next-tokens.js';

/** Every window a model reads when scored on these poems (arrays of token ids), in order. */
export function heldOutWindows(poems, context) {
  return poems.flatMap((ids) => evaluationWindows(ids, context));
}

/** −log softmax(logits of `row`)[next]: the loss in nats of predicting `next` there (L×vocabSize logits). */
export function nextTokenLoss(logits, row, vocabSize, next) {
  const { scores, max, sum } = softmaxRow(logits, row, vocabSize);
  return max + Math.log(sum) - scores[next];
}

/** Each poem's total next-character loss in nats and its number of targets: [{ sum, targets }]. */
export function heldOutLossByPoem(model, poems) {
  const { context, vocabSize } = model.config;
  return poems.map((ids) => {
    let sum = 0;
    let targets = 0;
    for (const { input, target } of heldOutWindows([ids], context)) {
      const logits = model.forward(input).logits();
      target.forEach((next, row) => {
        sum += nextTokenLoss(logits, row, vocabSize, next);
        targets++;
      });
    }
    return { sum, targets };
  });
}

/** Mean next-character loss in nats over the poems, and the number of targets it is over. */
export function heldOutLoss(model, poems) {
  const byPoem = heldOutLossByPoem(model, poems);
  const targets = byPoem.reduce((n, poem) => n + poem.targets, 0);
  return { loss: byPoem.reduce((total, poem) => total + poem.sum, 0) / targets, targets };
}
