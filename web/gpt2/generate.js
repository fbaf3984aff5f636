// GPT-2 writing on from a prompt a token at a time with the key-value cache (web/src/attention.js's Model.step):
// the prompt's one forward, then each token chosen from the last row of logits and fed back as one step, its
// position alone computed against the keys and values the cache keeps. Run in the GPT-2 worker, which posts
// each step to the page.

/**
 * The next token from `scores` (a row of logits): the likeliest at temperature 0, else one drawn from the
 * softmax of scores ÷ temperature with `random` (numpy's RandomState, mha.randomState(seed)), so a seed always
 * draws the same tokens.
 */
export function chooseToken(scores, temperature, random) {
  let best = 0;
  for (let id = 1; id < scores.length; id++) if (scores[id] > scores[best]) best = id;
  if (!(temperature > 0)) return best;
  const weights = Float64Array.from(scores, (score) => Math.exp((score - scores[best]) / temperature));
  let left = random.randomSample(1)[0] * weights.reduce((a, b) => a + b, 0);
  for (let id = 0; id < weights.length; id++) {
    left -= weights[id];
    if (left < 0) return id;
  }
  return best;
}

/**
 * Writes `count` tokens after `ids` (the prompt, at least one token), fewer where the cache fills (model.maxTokens):
 * yields after each step { id, ms, reused } (the token chosen and fed back as a step, the step's milliseconds, and
 * the prompt's positions its forward kept from the model's last, model.reused), the model then holding that step's
 * attention. `random` as chooseToken's; `disabled` heads as forward's.
 */
export function* generation(model, ids, { count, temperature = 0, random = null, disabled = [] }) {
  const { vocabSize } = model.config;
  const lastRow = () => model.logits().subarray((model.length - 1) * vocabSize, model.length * vocabSize);
  model.forward(ids, { disabled });
  const { reused } = model;
  for (let n = 0; n < count && model.length < model.maxTokens; n++) {
    const id = chooseToken(lastRow(), temperature, random);
    const start = performance.now();
    model.step(id, { disabled });
    yield { id, ms: performance.now() - start, reused };
  }
}
