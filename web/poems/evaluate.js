// The poetry model's held-out measure, one loop for the card and the page: each window of the held-out poems
// (scored exactly as web/poems/baselines.js scores the unigram and the bigram) is run with some heads switched
// off and its targets' losses added up by addWindowLoss. The card's held-out loss is heldOutLoss (run by
// web/poems/build/train.js in Node); the page's is HeldOutPass, run in slices by web/poems/poems-worker.js
// (held-out.js where no worker starts), which measures the heads' roles on the same forwards.
import { evaluationWindows } from './baselines.js';
import { tallyWindow } from './head-roles.js';
import { softmaxRow } from '../heads/next-tokens.js';
import { headTallies, tallyScores } from '../heads/roles.js';

/** Every window a model reads when scored on these poems (arrays of token ids), in order. */
export function heldOutWindows(poems, context) {
  return poems.flatMap((ids) => evaluationWindows(ids, context));
}

/** −log softmax(logits of `row`)[next]: the loss in nats of predicting `next` there (L×vocabSize logits). */
export function nextTokenLoss(logits, row, vocabSize, next) {
  const { scores, max, sum } = softmaxRow(logits, row, vocabSize);
  return max + Math.log(sum) - scores[next];
}

/** One window's forward with the heads in `off` ([layer, head] pairs) switched off: each target's loss in nats. */
export function windowLosses(model, { input, target }, off = []) {
  const logits = model.forward(input, { disabled: off }).logits();
  return target.map((next, row) => nextTokenLoss(logits, row, model.config.vocabSize, next));
}

/** Adds one window's losses (windowLosses) to a running total { sum, targets }, one target after another. */
export function addWindowLoss(total, model, window, off = []) {
  for (const loss of windowLosses(model, window, off)) {
    total.sum += loss;
    total.targets++;
  }
  return total;
}

/** Each poem's total next-character loss in nats and its number of targets: [{ sum, targets }]. */
export function heldOutLossByPoem(model, poems) {
  const { context } = model.config;
  return poems.map((ids) => heldOutWindows([ids], context).reduce((total, window) => addWindowLoss(total, model, window), { sum: 0, targets: 0 }));
}

/** Mean next-character loss in nats over the poems, and the number of targets it is over. */
export function heldOutLoss(model, poems) {
  const byPoem = heldOutLossByPoem(model, poems);
  const targets = byPoem.reduce((n, poem) => n + poem.targets, 0);
  return { loss: byPoem.reduce((total, poem) => total + poem.sum, 0) / targets, targets };
}

/**
 * The page's held-out measure: the held-out loss and every head's roles over the card's held-out poems (`poems`
 * is runs.js's loadPoems'), with the heads in `off` switched off, a few windows at a time: `advance(ms)` works
 * for about that long and says whether it has finished. The loss is the card's: the same windows, each scored
 * by addWindowLoss, the same mean over targets.
 */
export class HeldOutPass {
  constructor(poems, off) {
    this.poems = poems;
    this.off = off;
    const { context } = poems.model.config;
    this.windows = heldOutWindows(poems.card.heldOut.poems.map(({ body }) => Array.from(poems.encode(body))), context);
    this.tallies = null;
    this.loss = { sum: 0, targets: 0 };
    this.done = 0;
  }

  get finished() {
    return this.done === this.windows.length;
  }

  advance(ms) {
    const { model, kinds } = this.poems;
    this.tallies ??= headTallies(model.config);
    const end = performance.now() + ms;
    while (!this.finished && performance.now() < end) {
      const window = this.windows[this.done++];
      addWindowLoss(this.loss, model, window, this.off);
      tallyWindow(this.tallies, model, window.input, kinds); // the same forward's attention
    }
    return this.finished;
  }

  /** { loss, targets, roles: { heads: [scores], chance } } once finished. */
  result() {
    const measured = this.tallies.map(tallyScores);
    return { loss: this.loss.sum / this.loss.targets, targets: this.loss.targets, roles: { heads: measured.map(({ scores }) => scores), chance: measured[0].chance } };
  }
}
