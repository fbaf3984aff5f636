// The page's only door to the attention core: runs the lesson's forwards on its session (the layers
// and the copy-out of their results, shared/session.js). No attention maths here.
import { loadAttention, MHAError } from '../src/attention.js';
import { createSession, snapshot } from '../shared/session.js';
import { BIG_MAX_TOKENS } from './state.js';
import { HAND_MAX_TOKENS } from '../hand/limits.js';

export { loadAttention, MHAError };

const sessions = new WeakMap(); // core → the page's session on it (one core per page)
const sessionOf = (mha) => {
  if (!sessions.has(mha)) sessions.set(mha, createSession(mha));
  return sessions.get(mha);
};
const layerFor = (mha, use, size) => sessionOf(mha).layer(use, size);

/** The hand example (QKV mode, d_model 4). `enabledOverride` lets the ablation compare with all heads on. */
export function runHand(mha, hand, { enabledOverride, use = 'hand', q = hand.q } = {}) {
  const layer = layerFor(mha, use, { dModel: 4, heads: hand.heads, maxLen: HAND_MAX_TOKENS });
  const enabled = enabledOverride ?? Array.from({ length: hand.heads }, (_, h) => !hand.off.includes(h));
  layer.forward({ q, k: hand.k, v: hand.v, wo: hand.wo, causal: hand.causal, scale: hand.scale, enabled });
  return { ...snapshot(layer, { scaled: hand.scale, causal: hand.causal, wo: hand.wo, enabled }), tokens: hand.tokens };
}

/** How many random numbers one call to the generator draws: a few milliseconds' worth. */
const DRAW_CHUNK = 16384;

/**
 * The random model's inputs, unscaled and in numpy's stream order: X = randn(L, d), then
 * W_q, W_k, W_v = randn(d, d) (kept as float32, as the core takes them). The numpy-exact generator gives
 * a few million numbers a second, so at d_model 1024 (3 million) drawing them at once would freeze the
 * page: `advance(ms)` draws for about that long and says whether it has finished, so the page can
 * spread the work over many short tasks.
 */
class RandomDraws {
  constructor(mha, { seed, length, dModel }) {
    this.key = `${seed}/${length}/${dModel}`;
    this.dModel = dModel;
    this.rng = mha.randomState(seed);
    this.x = new Float64Array(length * dModel);
    this.weights = [0, 1, 2].map(() => new Float32Array(dModel * dModel));
    this.total = this.x.length + 3 * dModel * dModel;
    this.drawn = 0;
  }

  get done() {
    return this.drawn === this.total;
  }

  advance(ms) {
    const end = performance.now() + ms;
    const parts = [this.x, ...this.weights];
    while (!this.done && performance.now() < end) {
      let part = 0;
      let offset = this.drawn;
      while (offset >= parts[part].length) offset -= parts[part++].length;
      const count = Math.min(DRAW_CHUNK, parts[part].length - offset);
      // The stream continues across calls, so drawing in chunks gives numpy's numbers exactly.
      parts[part].set(this.rng.randn(count), offset);
      this.drawn += count;
    }
    return this.done;
  }
}

let draws = null; // the last model's numbers, kept while only the weight size, h or the mask change

/** The random inputs for (seed, L, d_model): the ones kept from last time, or new ones still to draw. */
export function randomDraws(mha, { seed, length, dModel }) {
  if (draws?.key !== `${seed}/${length}/${dModel}`) draws = new RandomDraws(mha, { seed, length, dModel });
  return draws;
}

/**
 * Projection mode on finished random draws, with the weights times weightScale. X·(W·s) = (X·s)·W, so
 * the scale goes on the L×d X instead of on three d×d matrices. Only the attention weights are kept.
 */
export function runRandom(mha, drawn, { use, tokens, heads, weightScale, causal }) {
  const x = new Float32Array(drawn.x.length);
  for (let i = 0; i < x.length; i++) x[i] = drawn.x[i] * weightScale;
  const [wq, wk, wv] = drawn.weights;
  const layer = layerFor(mha, use, { dModel: drawn.dModel, heads, maxLen: BIG_MAX_TOKENS });
  layer.forward({ x, wq, wk, wv, causal, scale: true });
  // The views draw only the weights: copying every head's other results would be work for nothing.
  const attention = Array.from({ length: heads }, (_, i) => layer.attention(i).slice());
  return { L: layer.length, dModel: layer.dModel, heads, dK: layer.dK, attention, enabled: Array(heads).fill(true), tokens };
}

/** The lesson's first program: seed → X(3,8), Wq/Wk/Wv = randn·0.5, Wo = randn; causal, h = 2. */
export function runDemoShapes(mha, seed) {
  const rng = mha.randomState(seed);
  const x = Float32Array.from(rng.randn(3, 8));
  const [wq, wk, wv] = [0, 1, 2].map(() => Float32Array.from(rng.randn(8, 8), (w) => w * 0.5));
  const wo = Float32Array.from(rng.randn(8, 8));
  const layer = layerFor(mha, 'demo1', { dModel: 8, heads: 2, maxLen: 4 });
  layer.forward({ x, wq, wk, wv, wo, causal: true, scale: true });
  return snapshot(layer, { scaled: true });
}

/** The lesson's second program: seed → X(4,8) first, then Wq, Wk, Wv, Wo = randn·0.4; causal, h = 2. */
export function runDemoClass(mha, seed) {
  const rng = mha.randomState(seed);
  const x = Float32Array.from(rng.randn(4, 8));
  const [wq, wk, wv, wo] = [0, 1, 2, 3].map(() => Float32Array.from(rng.randn(8, 8), (w) => w * 0.4));
  const layer = layerFor(mha, 'demo2', { dModel: 8, heads: 2, maxLen: 4 });
  layer.forward({ x, wq, wk, wv, wo, causal: true, scale: true });
  return snapshot(layer, { scaled: true });
}

/** d_k of a layer of this size, as the core sees it (throws the core's error when h does not divide). */
export function headWidth(mha, dModel, heads) {
  const layer = layerFor(mha, 'quiz', { dModel, heads, maxLen: 1 });
  return layer.dK;
}
