// A model's forward timed two ways, for the benches (gpt2.js, page-latency.js). Self-contained, so that a
// bench can send its source to a page and time the page's core the same way.

/**
 * `runs` samples of each, in ms, after `warmup` rounds not kept: a forward of every position (the first
 * token changed, so nothing is kept from the last forward) and one of the last token added to the ones
 * before it, those kept (typing's case).
 */
export function timeForwards(model, ids, runs, warmup = 1) {
  const other = [(ids[0] + 1) % model.config.vocabSize, ...ids.slice(1)];
  const full = [];
  const added = [];
  for (let i = 0; i < warmup + runs; i++) {
    let start = performance.now();
    model.forward(other); // the last forward, if any, was of ids: nothing shared
    if (i >= warmup) full.push(performance.now() - start);
    if (model.reused !== 0) throw new Error(`a forward of every position kept ${model.reused}`);
    model.forward(ids.slice(0, -1));
    start = performance.now();
    model.forward(ids);
    if (i >= warmup) added.push(performance.now() - start);
    if (model.reused !== ids.length - 1) throw new Error(`a forward of one token more kept ${model.reused}`);
  }
  return { full, added };
}
