// An independent float64 reference of a GPT-2 forward pass, and files in Hugging Face GPT-2's layout, for tests
// of loadModel. Written from GPT-2's definition (pre-LayerNorm blocks, causal attention, tanh GELU, logits tied
// to wte); it shares no code with the C core. The files are written by the tests' own writer.
import { floatToHalf, halfToFloat, writeSafetensors } from './safetensors-files.js';

export { writeSafetensors };

/** The names and shapes of a GPT-2's tensors, in file order. */
export function gpt2Shapes({ layers, dModel: d, context, vocab }) {
  const shapes = [['wte.weight', [vocab, d]], ['wpe.weight', [context, d]]];
  for (let i = 0; i < layers; i++) {
    shapes.push(
      [`h.${i}.ln_1.weight`, [d]], [`h.${i}.ln_1.bias`, [d]],
      [`h.${i}.attn.c_attn.weight`, [d, 3 * d]], [`h.${i}.attn.c_attn.bias`, [3 * d]],
      [`h.${i}.attn.c_proj.weight`, [d, d]], [`h.${i}.attn.c_proj.bias`, [d]],
      [`h.${i}.ln_2.weight`, [d]], [`h.${i}.ln_2.bias`, [d]],
      [`h.${i}.mlp.c_fc.weight`, [d, 4 * d]], [`h.${i}.mlp.c_fc.bias`, [4 * d]],
      [`h.${i}.mlp.c_proj.weight`, [4 * d, d]], [`h.${i}.mlp.c_proj.bias`, [d]],
    );
  }
  shapes.push(['ln_f.weight', [d]], ['ln_f.bias', [d]]);
  return shapes;
}

/** Random weights for every tensor (LayerNorm scales around 1), rounded to what `dtype` stores. */
export function randomWeights(config, random, { spread = 0.3, dtype = 'F32' } = {}) {
  const round = dtype === 'F16' ? (x) => halfToFloat(floatToHalf(x)) : Math.fround;
  const weights = new Map();
  for (const [name, shape] of gpt2Shapes(config)) {
    const n = shape.reduce((a, b) => a * b, 1);
    const offset = /ln_.*weight/.test(name) ? 1 : 0;
    const values = new Float64Array(n); // a loop: Float64Array.from({ length: n }, …) is 8 times slower in V8
    for (let i = 0; i < n; i++) values[i] = round(offset + (random() * 2 - 1) * spread);
    weights.set(name, values);
  }
  return weights;
}

/** A GPT-2 file of these weights (a Map from randomWeights); prefix 'transformer.' as some checkpoints have. */
export function gpt2File(config, weights, { dtype = 'F32', prefix = '', metadata = { n_head: String(config.heads) } } = {}) {
  return writeSafetensors(gpt2Shapes(config).map(([name, shape]) => [prefix + name, shape, weights.get(name), dtype]), metadata);
}

/**
 * A GPT-2 file as Hugging Face's hub holds it: the tensors' bytes in the order of their names sorted (as the
 * safetensors writer lays out tensors of one dtype), each block's causal mask h.i.attn.bias (1×1×context×context,
 * which the model makes itself and does not read) among them, and the metadata { format: 'pt' } (with n_head when
 * d_model is no GPT-2 size). So the model's order (wte first) is not the file's, and some bytes are no tensor's.
 */
export function hubGpt2File(config, weights) {
  const { layers, context } = config;
  const mask = Float64Array.from({ length: context * context }, (_, i) => (i % context <= Math.floor(i / context) ? 1 : 0));
  const tensors = gpt2Shapes(config).map(([name, shape]) => [name, shape, weights.get(name)]);
  for (let i = 0; i < layers; i++) tensors.push([`h.${i}.attn.bias`, [1, 1, context, context], mask]);
  tensors.sort(([a], [b]) => (a < b ? -1 : 1));
  const gpt2Size = [768, 1024, 1280, 1600].includes(config.dModel);
  return writeSafetensors(tensors, gpt2Size ? { format: 'pt' } : { format: 'pt', n_head: String(config.heads) });
}

function layerNorm(x, g, b) {
  const d = x.length;
  const mean = x.reduce((a, v) => a + v, 0) / d;
  const variance = x.reduce((a, v) => a + (v - mean) ** 2, 0) / d;
  return x.map((v, j) => ((v - mean) / Math.sqrt(variance + 1e-5)) * g[j] + b[j]);
}

/** x (k) · W (k×n, row-major) + b */
function affine(x, w, b) {
  const n = b.length;
  const out = Float64Array.from(b);
  x.forEach((xi, i) => {
    for (let j = 0; j < n; j++) out[j] += xi * w[i * n + j];
  });
  return out;
}

const gelu = (x) => 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x ** 3)));

/**
 * The forward pass of token ids: { logits (L×vocab, flat), attention[layer][head] (L×L, flat), qkv[layer]
 * (L×3d, flat: each position's q | k | v) }.
 * disabled: [layer, head] pairs whose outputs are zeroed before c_proj.
 */
export function referenceGpt(weights, { layers, heads, dModel: d, vocab }, ids, { disabled = [] } = {}) {
  const W = (name) => weights.get(name);
  const L = ids.length, dk = d / heads;
  let x = Array.from(ids, (id, t) => Float64Array.from({ length: d }, (_, j) => W('wte.weight')[id * d + j] + W('wpe.weight')[t * d + j]));
  const attention = [];
  const queriesKeysValues = [];
  for (let l = 0; l < layers; l++) {
    const p = (suffix) => W(`h.${l}.${suffix}`);
    const qkv = x.map((row) => affine(layerNorm(row, p('ln_1.weight'), p('ln_1.bias')), p('attn.c_attn.weight'), p('attn.c_attn.bias')));
    queriesKeysValues.push(Float64Array.from(qkv.flatMap((row) => Array.from(row))));
    const concat = x.map(() => new Float64Array(d));
    attention.push([]);
    for (let h = 0; h < heads; h++) {
      const weightsOfHead = new Float64Array(L * L);
      for (let t = 0; t < L; t++) {
        const scores = Array.from({ length: L }, (_, u) => {
          if (u > t) return -Infinity;
          let dot = 0;
          for (let j = 0; j < dk; j++) dot += qkv[t][h * dk + j] * qkv[u][d + h * dk + j];
          return dot / Math.sqrt(dk);
        });
        const max = Math.max(...scores);
        const e = scores.map((s) => Math.exp(s - max));
        const sum = e.reduce((a, v) => a + v, 0);
        e.forEach((v, u) => (weightsOfHead[t * L + u] = v / sum));
        if (disabled.some(([dl, dh]) => dl === l && dh === h)) continue;
        for (let j = 0; j < dk; j++) {
          let o = 0;
          for (let u = 0; u <= t; u++) o += weightsOfHead[t * L + u] * qkv[u][2 * d + h * dk + j];
          concat[t][h * dk + j] = o;
        }
      }
      attention[l].push(weightsOfHead);
    }
    x = x.map((row, t) => {
      const mid = affine(concat[t], p('attn.c_proj.weight'), p('attn.c_proj.bias')).map((v, j) => v + row[j]);
      const hidden = affine(layerNorm(mid, p('ln_2.weight'), p('ln_2.bias')), p('mlp.c_fc.weight'), p('mlp.c_fc.bias')).map(gelu);
      return affine(hidden, p('mlp.c_proj.weight'), p('mlp.c_proj.bias')).map((v, j) => v + mid[j]);
    });
  }
  const logits = new Float64Array(L * vocab);
  x.forEach((row, t) => {
    const normed = layerNorm(row, W('ln_f.weight'), W('ln_f.bias'));
    for (let v = 0; v < vocab; v++) {
      let s = 0;
      for (let j = 0; j < d; j++) s += normed[j] * W('wte.weight')[v * d + j];
      logits[t * vocab + v] = s;
    }
  });
  return { logits, attention, qkv: queriesKeysValues };
}
