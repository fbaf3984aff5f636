// A front's session on the attention core: the layers it keeps, one per use and replaced only when its
// size changes, and the one copy-out of a forward's results. The core's arrays are views into the wasm
// heap, valid until its next call, so whatever is drawn or handed out is copied here first.

/** Layers by use ('hand', 'big', 'widget', …); dispose() frees them all. */
export function createSession(mha) {
  const layers = new Map(); // use → { key, layer }
  return {
    mha,
    /** The layer for `use` at this size: the one held, or a new one (the old one freed). */
    layer(use, { dModel, heads, maxLen, kvHeads = heads }) {
      const key = `${dModel}/${heads}/${maxLen}/${kvHeads}`;
      const held = layers.get(use);
      if (held?.key === key) return held.layer;
      held?.layer.dispose();
      layers.delete(use);
      const layer = mha.createLayer({ dModel, heads, maxLen, kvHeads });
      layers.set(use, { key, layer });
      return layer;
    },
    dispose() {
      for (const { layer } of layers.values()) layer.dispose();
      layers.clear();
    },
  };
}

/**
 * Copies everything a drawing needs out of `layer` after a forward: sizes, q/k/v, and per head the
 * scores, the raw dot products, the weights and the head output; then the concat and the output.
 * The forward's switches and its Wᴼ (identity when none was given) are kept with them, so a cell's
 * arithmetic can be retold from the snapshot alone (explain.js).
 */
export function snapshot(layer, { scaled, causal = true, wo = null, enabled = null }) {
  const { heads, dModel, dK } = layer;
  const perHead = (read) => Array.from({ length: heads }, (_, i) => read.call(layer, i).slice());
  const scores = perHead(layer.scores);
  return {
    L: layer.length,
    dModel,
    heads,
    dK,
    q: layer.q().slice(),
    k: layer.k().slice(),
    v: layer.v().slice(),
    scores,
    // The core hands back scores already divided by √d_k when scale is on; the raw dot products are
    // those times √d_k (with scale off they are the scores themselves).
    dots: scaled ? scores.map((s) => s.map((x) => x * Math.sqrt(dK))) : scores,
    attention: perHead(layer.attention),
    headOutputs: perHead(layer.headOutput),
    concat: layer.concat().slice(),
    output: layer.output().slice(),
    scaled: Boolean(scaled),
    causal: Boolean(causal),
    // As the core read it: float32, row-major.
    wo: wo ? Float32Array.from(wo.flat()) : Float32Array.from({ length: dModel * dModel }, (_, i) => (i % (dModel + 1) === 0 ? 1 : 0)),
    enabled: enabled ? [...enabled] : Array(heads).fill(true),
  };
}
