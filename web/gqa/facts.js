// What §13 (the coda: heads that share K and V) shows, computed by the core: the lesson's 猫吃鱼 run with
// h = 2 and one shared K/V head beside the multi-head run of §3, the bill of parameters and K/V cache for
// MHA, GQA and MQA, and which query heads read which K/V head. Pure data in, plain facts out; the words
// are in strings.js, the drawing in views.js.
import { snapshot } from '../shared/session.js';
import { range } from '../ui/section.js';
import { shownPercent } from '../draw/index.js';

/** The coda's worked example: the lesson's h = 2, whatever §3's h, and one K/V head shared by both. */
export const EXAMPLE_HEADS = 2;
export const EXAMPLE_KV_HEADS = 1;

/**
 * K (or V) for kvHeads heads made from a multi-head one, as Ainslie et al. (2023) convert a trained model:
 * each K/V head is the mean of the heads of its group, column by column (the group of query head i is
 * ⌊i·kvHeads/heads⌋, the core's kvGroup). `matrix` is rows × (heads·dK), nested; the result rows × (kvHeads·dK).
 */
export function meanPooled(matrix, { heads, kvHeads, dK }) {
  const size = heads / kvHeads;
  return matrix.map((row) => range(kvHeads * dK).map((col) => {
    const group = Math.floor(col / dK);
    let sum = 0;
    for (let member = 0; member < size; member++) sum += row[(group * size + member) * dK + (col % dK)];
    return sum / size;
  }));
}

/**
 * The worked example's facts. `session` is a shared/session.js session on the core; `hand` §3's state (its
 * words, q, k, v, mask and scaling; its h is only reported, the coda uses the lesson's h = 2). `mha` and
 * `gqa` are the two forwards' snapshots, `kShared` and `vShared` the shared K and V fed to the second.
 * Per head, `moved` is where its weights moved most, compared as the heatmaps show them (whole percent):
 * `{ points, row, col, from, to, ties }` (ties: the other cells that moved as many points, in row order, each
 * `{ row, col, from, to, points }`), or null when none moved.
 * `sameNow` / `sameBefore` say whether the heads' weight maps show the same numbers with and without sharing.
 */
export function exampleFacts(session, hand) {
  const heads = EXAMPLE_HEADS;
  const kvHeads = EXAMPLE_KV_HEADS;
  const dModel = hand.q[0].length;
  const dK = dModel / heads;
  const L = hand.tokens.length;
  const settings = { causal: hand.causal, scale: hand.scale };
  const run = (use, kv, k, v) => {
    const layer = session.layer(use, { dModel, heads, kvHeads: kv, maxLen: Math.max(8, L) });
    layer.forward({ q: hand.q, k, v, ...settings });
    const shot = snapshot(layer, { scaled: hand.scale, causal: hand.causal });
    return { ...shot, kvHeads: layer.kvHeads, groups: range(heads).map((head) => layer.kvGroup(head)), tokens: hand.tokens };
  };
  const kShared = meanPooled(hand.k, { heads, kvHeads, dK });
  const vShared = meanPooled(hand.v, { heads, kvHeads, dK });
  const mha = run('coda-mha', heads, hand.k, hand.v);
  const gqa = run('coda-gqa', kvHeads, kShared, vShared);
  // With the mask on, a row sees only itself and the words before it: the hidden cells never move.
  const visible = (r, c) => !hand.causal || c <= r;
  const shown = (result, head) => Array.from(result.attention[head], shownPercent);
  const moved = range(heads).map((head) => {
    const before = shown(mha, head);
    const after = shown(gqa, head);
    const cells = [];
    for (let r = 0; r < L; r++) for (let c = 0; c < L; c++) if (visible(r, c)) cells.push({ row: r, col: c, from: before[r * L + c], to: after[r * L + c] });
    const largest = Math.max(...cells.map((cell) => Math.abs(cell.to - cell.from)));
    if (largest === 0) return null;
    const named = cells.filter((cell) => Math.abs(cell.to - cell.from) === largest).map(({ row, col, from, to }) => ({ row: hand.tokens[row], col: hand.tokens[col], from, to, points: to - from }));
    return { ...named[0], ties: named.slice(1) };
  });
  const same = (result) => {
    const first = shown(result, 0);
    return range(heads).every((head) => shown(result, head).every((x, i) => x === first[i]));
  };
  return {
    heads, kvHeads, dK, L, tokens: hand.tokens, handHeads: hand.heads, causal: hand.causal, scaled: hand.scale,
    kShared, vShared, mha, gqa, moved, sameNow: same(gqa), sameBefore: same(mha),
  };
}

/** The bill's models: their sizes, layers and bytes a cached value takes, and the K/V head counts compared. */
export const BILL_MODELS = [
  { key: 'lesson', dModel: 4, heads: 2, layers: 1, bytesPerValue: 4, kvHeads: { mha: 2, gqa: null, mqa: 1 } },
  { key: 'gpt2', dModel: 768, heads: 12, layers: 12, bytesPerValue: 4, kvHeads: { mha: 12, gqa: 4, mqa: 1 } },
  { key: 'modern', dModel: 4096, heads: 32, layers: 32, bytesPerValue: 2, kvHeads: { mha: 32, gqa: 8, mqa: 1 } },
];
export const DEFAULT_CONTEXT = 1024;
export const MAX_CONTEXT = 1048576;

/**
 * The bill for every model and kind ('mha', 'gqa', 'mqa'), every number from mha.paramCount: per layer
 * W_Q, W_K, W_V, Wᴼ and their sum, and the K/V cache of one token over all layers and of `context` tokens.
 * A kind a model has no instance of (h = 2 has no GQA between MHA and MQA) is null.
 */
export function billFacts(mha, context = DEFAULT_CONTEXT) {
  return BILL_MODELS.map((model) => ({
    ...model,
    rows: ['mha', 'gqa', 'mqa'].map((kind) => {
      const kvHeads = model.kvHeads[kind];
      if (kvHeads === null) return { kind, kvHeads: null };
      const { wq, wk, wv, wo, split, kvCacheBytes } = mha.paramCount({ dModel: model.dModel, heads: model.heads, kvHeads, bytesPerValue: model.bytesPerValue });
      const perToken = kvCacheBytes * model.layers;
      return { kind, kvHeads, wq, wk, wv, wo, total: split, perToken, forContext: perToken * context };
    }),
    context,
  }));
}

/**
 * Which query heads read which K/V head, for h and h_kv picked in the section: asked of a layer of the core
 * (its kvGroup), so a h_kv that does not divide h throws the core's KV_HEADS_NOT_DIVISOR. `groups[g]` lists
 * the query heads of K/V head g.
 */
export function groupFacts(session, { heads, kvHeads }) {
  const layer = session.layer('coda-groups', { dModel: heads, heads, kvHeads, maxLen: 1 });
  const groups = range(layer.kvHeads).map(() => []);
  for (const head of range(heads)) groups[layer.kvGroup(head)].push(head);
  return { heads, kvHeads: layer.kvHeads, groups, divisors: divisorsOf(heads) };
}

/** The K/V head counts h allows: its divisors. */
export const divisorsOf = (heads) => range(heads).map((i) => i + 1).filter((d) => heads % d === 0);

/**
 * The coda's two questions, each answered by the core when the learner checks: GPT-2 small's K/V cache for a
 * word over its 12 layers with one K/V head (MQA), in KiB; and, on §3's live numbers with K and V shared,
 * the weight head 1 gives the last word on the first word's row. `{ key, answer, tolerance, words }`.
 */
export function questionFacts(mha, session, hand) {
  const gpt2 = BILL_MODELS.find((model) => model.key === 'gpt2');
  const { kvCacheBytes } = mha.paramCount({ dModel: gpt2.dModel, heads: gpt2.heads, kvHeads: 1, bytesPerValue: gpt2.bytesPerValue });
  const { gqa, L, tokens } = exampleFacts(session, hand);
  return [
    { key: 'cache', answer: (kvCacheBytes * gpt2.layers) / 1024, tolerance: 1e-9 },
    { key: 'weight', answer: gqa.attention[0][L - 1], tolerance: 0.015, words: [tokens[0], tokens[L - 1]] },
  ];
}

/**
 * The poetry model made grouped-query (poem-groups.js's results, h_kv from the model's own down): each row with
 * its loss above the model's own (`cost`), its group size, and how many of the heads the model's own measure
 * names (`named`) keep that name (`kept`).
 */
export function poemGroupFacts(results, heads) {
  const own = results[0];
  const named = own.roles.filter(Boolean).length;
  return {
    heads,
    named,
    rows: results.map((r) => ({ kvHeads: r.kvHeads, size: heads / r.kvHeads, loss: r.loss, cost: r.loss - own.loss, kept: r.roles.filter((role, i) => role && role === own.roles[i]).length })),
  };
}
