// Which head is which in §10's real models (web/poems/, web/gpt2/): a head is numbered layer · heads + head
// across the model, and the heads switched off are a list of [layer, head] pairs; and every head's attention
// after a forward, by that number.

/** Head i's [layer, head] in a model of `heads` heads a layer. */
export const layerHead = (i, heads) => [Math.floor(i / heads), i % heads];

/** The heads switched off as text: the key their results are kept and asked for under. */
export const offKey = (off) => off.map(([layer, head]) => `${layer}.${head}`).join(',');

/** The heads in `off` that exist in a model of this shape, each once (a URL or an old pick may name others). */
export function existingOff(off, { layers, heads }) {
  const seen = new Set();
  return off.filter(([layer, head]) => layer < layers && head < heads && !seen.has(`${layer}.${head}`) && seen.add(`${layer}.${head}`));
}

/** The heads in `off` by number. */
export const offIndices = (off, heads) => new Set(off.map(([layer, head]) => layer * heads + head));

/** `off` with the head [layer, head] switched off (`switchOff` true; listed once, last) or back on. */
export function withHeadOff(off, [layer, head], switchOff) {
  const others = off.filter(([l, h]) => l !== layer || h !== head);
  return switchOff ? [...others, [layer, head]] : others;
}

/** Every head's attention of a model's last forward (web/src/attention.js's Model), copied out of the wasm heap, by number. */
export function everyHeadAttention(model) {
  const { layers, heads } = model.config;
  return Array.from({ length: layers * heads }, (_, i) => model.attention(...layerHead(i, heads)).slice());
}

/** Every head's last row of attention after a model's last forward or step (the newest query's), copied, by number. */
export function lastRows(model) {
  const { layers, heads } = model.config;
  const L = model.length;
  return Array.from({ length: layers * heads }, (_, i) => model.attention(...layerHead(i, heads)).slice((L - 1) * L, L * L));
}

/**
 * Positions read as a reader sees them: each of `runs` ([{ from, to, text }], tokens that together make one
 * character, in order) one group labelled with its text, every other position a group of its own with its label.
 * → { groups: [{ from, to }], labels, of (each token's group) }.
 */
export function mergedPositions(labels, runs) {
  const groups = [];
  const merged = [];
  const of = [];
  const byStart = new Map(runs.map((run) => [run.from, run]));
  for (let i = 0; i < labels.length;) {
    const run = byStart.get(i);
    const to = run ? run.to : i;
    for (let t = i; t <= to; t++) of.push(groups.length);
    groups.push({ from: i, to });
    merged.push(run ? run.text : labels[i]);
    i = to + 1;
  }
  return { groups, labels: merged, of };
}

/**
 * L×L attention `weights` read by `groups` (mergedPositions'): row g is the query of g's last token (the one that
 * completes it), column h the sum of that query's weights over h's tokens; still causal, each row summing to 1.
 */
export function mergedAttention(weights, L, groups) {
  if (groups.length === L) return weights;
  const M = groups.length;
  const out = new Float32Array(M * M);
  groups.forEach(({ to: row }, g) => {
    groups.forEach(({ from, to }, h) => {
      let sum = 0;
      for (let c = from; c <= to; c++) sum += weights[row * L + c];
      out[g * M + h] = sum;
    });
  });
  return out;
}
