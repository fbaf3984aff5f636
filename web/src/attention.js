// The JS face of the C attention core; the only module that touches the Emscripten Module.
//
//   const mha = await loadAttention();
//   const layer = mha.createLayer({ dModel: 4, heads: 2, maxLen: 8 });
//   layer.forward({ q, k, v, causal: false });
//   layer.attention(0);  // Float32Array L×L
//
// Arrays returned by a layer are views into the wasm heap, not copies: they hold the
// result of the last forward and are valid until the next call on that layer, or until
// any createLayer (which may grow the heap). Copy what you keep (`.slice()`).
import createMhaCore from '../dist/mha-core.mjs';

/** An error a learner can read: `.code` is stable (e.g. 'HEADS_NOT_DIVISOR'), `.message` names the values. */
export class MHAError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'MHAError';
    this.code = code;
  }
}

// These mirror the enums of c/mha.h.
const TENSOR = { q: 0, k: 1, v: 2, scores: 3, attention: 4, head: 5, concat: 6, output: 7 };
const SLOT = { xOrQ: 0, k: 1, v: 2, wq: 3, wk: 4, wv: 5, wo: 6, enabled: 7 };
const FLAG = { causal: 1, scale: 2, plain: 4 };
const INT32_MAX = 2 ** 31 - 1;

let loading;

/** Loads the wasm core once; every call returns the same instance. */
export function loadAttention() {
  loading ??= instantiate().then(
    (core) => new Attention(core),
    (error) => {
      loading = undefined; // let a later call try again
      throw error;
    },
  );
  return loading;
}

async function instantiate() {
  const isNode = typeof process === 'object' && Boolean(process.versions?.node);
  if (!isNode) return createMhaCore(); // the glue fetches mha-core.wasm from beside itself
  const { readFile } = await import('node:fs/promises');
  const wasmBinary = await readFile(new URL('../dist/mha-core.wasm', import.meta.url));
  return createMhaCore({ wasmBinary });
}

class Attention {
  #core;
  #scratch; // 16 bytes for results passed by pointer
  #randomStates = new FinalizationRegistry((ptr) => this.#core._wasm_free(ptr));

  constructor(core) {
    this.#core = core;
    this.#scratch = core._wasm_malloc(16);
  }

  /** A layer sized for sequences up to maxLen; it owns its buffers until dispose(). */
  createLayer({ dModel, heads, maxLen } = {}) {
    const args = [intArg('d_model', dModel), intArg('heads', heads), intArg('maxLen', maxLen)];
    const ptr = this.#core._wasm_layer_create(...args);
    if (!ptr) throw this.lastError();
    return new Layer(this, this.#core, ptr, { dModel, heads, maxLen });
  }

  /**
   * A trainer for the "two views" task (c/train.h): token + position embeddings → this attention
   * layer → a read-out that predicts, at every position, the previous token and the first token.
   * Defaults: dModel 8, seqLen 8, vocab 16, seed 0, lr 0.01, batch 32, evalCount 256, causal and scale on.
   */
  createTrainer({ heads, dModel = 8, seqLen = 8, vocab = 16, seed = 0, lr = 0.01, batch = 32, evalCount = 256, causal = true, scale = true } = {}) {
    const core = this.#core;
    const args = [intArg('heads', heads), intArg('dModel', dModel), intArg('seqLen', seqLen), intArg('vocab', vocab),
      intArg('batch', batch), intArg('evalCount', evalCount)];
    if (!Number.isInteger(seed) || seed < 0 || seed > 2 ** 32 - 1) {
      throw new MHAError('BAD_ARGUMENT', `seed must be a whole number from 0 to 4294967295, got ${describe(seed)}`);
    }
    if (typeof lr !== 'number') throw new MHAError('BAD_ARGUMENT', `lr must be a number, got ${describe(lr)}`);
    const flags = (causal ? FLAG.causal : 0) | (scale ? FLAG.scale : 0);
    const ptr = core._wasm_trainer_create(...args, flags, seed, lr);
    if (!ptr) throw coreError(core);
    // Scratch for results passed by pointer: 6 doubles + 2 ints, h enable bytes, 2·seqLen ints.
    const scratch = core._wasm_malloc(64 + Math.ceil(heads / 8) * 8 + 8 * seqLen);
    if (!scratch) {
      core._wasm_trainer_destroy(ptr);
      throw new MHAError('OUT_OF_MEMORY', 'not enough memory for a trainer');
    }
    return new Trainer(core, ptr, scratch, { heads, dModel, seqLen, vocab, seed, lr, batch, evalCount, causal, scale });
  }

  /** The lesson's bill: naive = h·3·d², split = 3·d² + d². */
  paramCount({ dModel, heads } = {}) {
    const status = this.#core._wasm_param_count(intArg('d_model', dModel), intArg('heads', heads), this.#scratch);
    if (status) throw this.lastError();
    const [naive, split] = new Float64Array(this.#core.HEAPF64.buffer, this.#scratch, 2);
    return { naive, split };
  }

  /** numpy's legacy np.random.RandomState(seed), giving numpy's exact doubles. */
  randomState(seed) {
    if (!Number.isInteger(seed) || seed < 0 || seed > 2 ** 32 - 1) {
      throw new MHAError('BAD_ARGUMENT', `seed must be a whole number from 0 to 4294967295, got ${String(seed)}`);
    }
    const core = this.#core;
    const ptr = core._wasm_random_create(seed);
    if (!ptr) throw new MHAError('OUT_OF_MEMORY', 'not enough memory for a random state');
    const draw = (fill, count) => {
      const out = core._wasm_malloc(Math.max(count, 1) * 8);
      if (!out) throw new MHAError('OUT_OF_MEMORY', `not enough memory for ${count} random numbers`);
      fill(ptr, out, count);
      const values = new Float64Array(core.HEAPF64.buffer, out, count).slice();
      core._wasm_free(out);
      return values;
    };
    const state = {
      /** randn(3, 8) → 24 normals in C order; the stream continues across calls. */
      randn: (...shape) => draw(core._wasm_random_randn, shapeSize(shape)),
      /** random_sample(n) → n doubles in [0, 1). */
      randomSample: (n = 1) => draw(core._wasm_random_sample, shapeSize([n])),
    };
    this.#randomStates.register(state, ptr);
    return state;
  }

  /** Current size of the wasm heap in bytes. */
  memoryBytes() {
    return this.#core.HEAPU8.buffer.byteLength;
  }

  /** The MHAError for the core's last failing call. */
  lastError() {
    return coreError(this.#core);
  }
}

const layerRegistry = new FinalizationRegistry(({ core, ptr }) => core._wasm_layer_destroy(ptr));

class Layer {
  #owner;
  #core;
  #ptr;

  constructor(owner, core, ptr, { dModel, heads, maxLen }) {
    this.#owner = owner;
    this.#core = core;
    this.#ptr = ptr;
    this.dModel = dModel;
    this.heads = heads;
    this.dK = dModel / heads;
    this.maxLen = maxLen;
    /** L of the last forward (0 before the first). */
    this.length = 0;
    layerRegistry.register(this, { core, ptr }, this);
  }

  /**
   * Projection mode: { x, wq, wk, wv, wo?, causal?, scale?, enabled? }
   * QKV mode:        { q, k, v, wo?, causal?, scale?, enabled? }
   * Arrays are row-major (flat or nested); L is the length of x (or q) over dModel.
   * wo defaults to the identity; causal and scale default to true.
   * plain: true runs the C core's plain reference loops instead of its SIMD kernels (for tests).
   */
  forward({ x, wq, wk, wv, q, k, v, wo, causal = true, scale = true, enabled, plain = false } = {}) {
    const core = this.#live();
    const d = this.dModel;
    const projection = x != null;
    if (projection && (q != null || k != null || v != null)) {
      throw new MHAError('BAD_INPUT', 'give either x with wq, wk, wv (projection mode) or q, k, v, not both');
    }
    const first = toFloat32(projection ? 'x' : 'q', projection ? x : q);
    if (first.length % d !== 0) {
      throw new MHAError('BAD_LENGTH', `${projection ? 'x' : 'q'} has ${first.length} numbers, which is not a whole number of rows of d_model ${d}`);
    }
    const L = first.length / d;
    if (L > this.maxLen) {
      throw new MHAError('SEQ_TOO_LONG', `the sequence has ${L} tokens but this layer was created with maxLen ${this.maxLen}`);
    }
    const inputs = projection
      ? [[SLOT.xOrQ, first], [SLOT.wq, weight('wq', wq, d)], [SLOT.wk, weight('wk', wk, d)], [SLOT.wv, weight('wv', wv, d)]]
      : [[SLOT.xOrQ, first], [SLOT.k, sameLength('k', k, first.length)], [SLOT.v, sameLength('v', v, first.length)]];
    if (wo != null) inputs.push([SLOT.wo, weight('wo', wo, d)]);
    const heads = enabledHeads(enabled, this.heads);

    for (const [slot, values] of inputs) {
      core.HEAPF32.set(values, core._wasm_layer_staging(this.#ptr, slot) / 4);
    }
    core.HEAPU8.set(heads, core._wasm_layer_staging(this.#ptr, SLOT.enabled));
    const flags = (causal ? FLAG.causal : 0) | (scale ? FLAG.scale : 0) | (plain ? FLAG.plain : 0);
    if (core._wasm_forward(this.#ptr, L, projection ? 1 : 0, wo != null ? 1 : 0, flags)) throw this.#owner.lastError();
    this.length = L;
    return this;
  }

  /** Head i's softmax weights, L×L; masked entries are exactly 0. */
  attention(i) {
    return this.#tensor(TENSOR.attention, i, this.length * this.length);
  }

  /** Head i's scores, L×L, divided by sqrt(d_k) when scale is on, before the mask. */
  scores(i) {
    return this.#tensor(TENSOR.scores, i, this.length * this.length);
  }

  /** Head i's output A_i·V_i, L×d_k (computed even when the head is switched off). */
  headOutput(i) {
    return this.#tensor(TENSOR.head, i, this.length * this.dK);
  }

  q() {
    return this.#tensor(TENSOR.q, 0, this.length * this.dModel);
  }

  k() {
    return this.#tensor(TENSOR.k, 0, this.length * this.dModel);
  }

  v() {
    return this.#tensor(TENSOR.v, 0, this.length * this.dModel);
  }

  /** The heads side by side, L×dModel; a switched-off head gives zeros. */
  concat() {
    return this.#tensor(TENSOR.concat, 0, this.length * this.dModel);
  }

  /** concat · W^O, L×dModel. */
  output() {
    return this.#tensor(TENSOR.output, 0, this.length * this.dModel);
  }

  /** Frees the layer's buffers; later calls throw DISPOSED. */
  dispose() {
    if (!this.#ptr) return;
    this.#core._wasm_layer_destroy(this.#ptr);
    layerRegistry.unregister(this);
    this.#ptr = 0;
  }

  #live() {
    if (!this.#ptr) throw new MHAError('DISPOSED', 'this layer was disposed; create a new one with createLayer');
    return this.#core;
  }

  #tensor(id, head, count) {
    const core = this.#live();
    if (!Number.isInteger(head)) {
      throw new MHAError('HEAD_INDEX', `head ${String(head)} does not exist: this layer has heads 0 to ${this.heads - 1}`);
    }
    const ptr = core._wasm_tensor(this.#ptr, id, head);
    if (!ptr) throw this.#owner.lastError();
    // A fresh view every time: the heap's buffer is replaced whenever it grows.
    return new Float32Array(core.HEAPF32.buffer, ptr, count);
  }
}

// ---- Training: the Trainer of createTrainer (c/train.h, exported by c/wasm_exports.c) ----

// The parameter blocks of c/train.h's mha_train_param, in its order.
const TRAIN_PARAMS = ['tokenEmbedding', 'positionEmbedding', 'wq', 'wk', 'wv', 'wo', 'readout', 'readoutBias'];

const trainerRegistry = new FinalizationRegistry(({ core, ptr, scratch }) => {
  core._wasm_trainer_destroy(ptr);
  core._wasm_free(scratch);
});


/**
 * A small model that learns, in the wasm heap, which view each head takes. Arrays it returns are views
 * into the heap (like a Layer's): valid until the next call on this trainer; copy what you keep.
 */
class Trainer {
  #core;
  #ptr;
  #scratch;
  #version = 0; // bumped whenever the weights or the example change
  #shown = -1; // the version the example layer was last run for
  #layer = 0;
  #tokensAt; // where in the scratch the example's tokens and predictions go, after the head bytes

  constructor(core, ptr, scratch, options) {
    this.#core = core;
    this.#ptr = ptr;
    this.#scratch = scratch;
    this.#tokensAt = scratch + 64 + Math.ceil(options.heads / 8) * 8;
    Object.assign(this, options);
    this.dK = options.dModel / options.heads;
    /** Every parameter together; the same for every h at one dModel (the lesson's point). */
    this.paramCount = core._wasm_trainer_param_count(ptr);
    trainerRegistry.register(this, { core, ptr, scratch }, this);
  }

  /** n training steps (one fresh batch and one Adam update each); returns the last batch's loss. */
  step(n = 1) {
    const core = this.#live();
    const count = intArg('n', n);
    const status = core._wasm_trainer_step(this.#ptr, count);
    this.#version++;
    if (status) throw coreError(core);
    return this.loss();
  }

  /** The last step's batch loss (mean cross-entropy of both targets); NaN before the first step. */
  loss() {
    return this.#live()._wasm_trainer_loss(this.#ptr);
  }

  /** Steps taken since creation or reset. */
  get steps() {
    return this.#live()._wasm_trainer_steps(this.#ptr);
  }

  /**
   * Loss and accuracy on the held-out set; `enabled` (one boolean per head) switches heads off, for
   * ablation. previous / first: the two targets separately.
   */
  evaluate({ enabled } = {}) {
    const core = this.#live();
    const status = core._wasm_trainer_evaluate(this.#ptr, this.#enabled(enabled), this.#scratch);
    if (status) throw coreError(core);
    const [loss, accuracy, prevLoss, prevAccuracy, firstLoss, firstAccuracy] = new Float64Array(core.HEAPF64.buffer, this.#scratch, 6);
    return { loss, accuracy, previous: { loss: prevLoss, accuracy: prevAccuracy }, first: { loss: firstLoss, accuracy: firstAccuracy } };
  }

  /** Held-out accuracy with every head on. */
  accuracy() {
    return this.evaluate().accuracy;
  }

  /** The example sentence (seqLen token ids) whose attention attention(i) shows. */
  get example() {
    const core = this.#live();
    return Array.from(new Int32Array(core.HEAPU8.buffer, core._wasm_trainer_example(this.#ptr), this.seqLen));
  }

  /** Sets the example sentence: seqLen token ids from 0 to vocab-1. */
  setExample(tokens) {
    const core = this.#live();
    if (tokens == null || typeof tokens.length !== 'number' || tokens.length !== this.seqLen) {
      throw new MHAError('BAD_LENGTH', `the example must have seqLen = ${this.seqLen} tokens, got ${describe(tokens)}`);
    }
    const ints = new Int32Array(this.seqLen);
    for (let i = 0; i < ints.length; i++) {
      if (!Number.isInteger(tokens[i])) throw new MHAError('BAD_ARGUMENT', `token [${i}] must be a whole number, got ${describe(tokens[i])}`);
      ints[i] = tokens[i];
    }
    new Int32Array(core.HEAPU8.buffer, this.#tokensAt, this.seqLen).set(ints);
    const status = core._wasm_trainer_set_example(this.#ptr, this.#tokensAt);
    if (status) throw coreError(core);
    this.#version++;
    return this;
  }

  /** The trained model's guesses on the example: previous[r] and first[r], the most likely token ids. */
  predict({ enabled } = {}) {
    const core = this.#live();
    const status = core._wasm_trainer_example_predict(this.#ptr, this.#enabled(enabled), this.#tokensAt);
    if (status) throw coreError(core);
    const both = new Int32Array(core.HEAPU8.buffer, this.#tokensAt, 2 * this.seqLen);
    return { previous: Array.from({ length: this.seqLen }, (_, r) => both[2 * r]), first: Array.from({ length: this.seqLen }, (_, r) => both[2 * r + 1]) };
  }

  /** Head i's softmax weights on the example sentence (seqLen × seqLen), with the current weights. */
  attention(i) {
    return this.#tensor(TENSOR.attention, i, this.seqLen * this.seqLen);
  }

  /** Head i's scores on the example, before the mask. */
  scores(i) {
    return this.#tensor(TENSOR.scores, i, this.seqLen * this.seqLen);
  }

  /** Head i's output A_i·V_i on the example, seqLen × dK. */
  headOutput(i) {
    return this.#tensor(TENSOR.head, i, this.seqLen * this.dK);
  }

  q() {
    return this.#tensor(TENSOR.q, 0, this.seqLen * this.dModel);
  }

  k() {
    return this.#tensor(TENSOR.k, 0, this.seqLen * this.dModel);
  }

  v() {
    return this.#tensor(TENSOR.v, 0, this.seqLen * this.dModel);
  }

  concat() {
    return this.#tensor(TENSOR.concat, 0, this.seqLen * this.dModel);
  }

  output() {
    return this.#tensor(TENSOR.output, 0, this.seqLen * this.dModel);
  }

  /**
   * The current weights, row-major Float32Array views: tokenEmbedding (vocab × dModel),
   * positionEmbedding (seqLen × dModel), wq, wk, wv, wo (dModel × dModel), readout (dModel × 2·vocab:
   * the previous-token logits, then the first-token logits), readoutBias (2·vocab).
   */
  weights() {
    const core = this.#live();
    const out = {};
    TRAIN_PARAMS.forEach((name, id) => {
      const ptr = core._wasm_trainer_param(this.#ptr, id, 0, this.#scratch + 48);
      if (!ptr) throw coreError(core);
      const [rows, cols] = new Int32Array(core.HEAPU8.buffer, this.#scratch + 48, 2);
      out[name] = new Float32Array(core.HEAPF32.buffer, ptr, rows * cols);
    });
    return out;
  }

  /** Back to the freshly created state: the same seed gives the same weights and batches again. */
  reset() {
    this.#live()._wasm_trainer_reset(this.#ptr);
    this.#version++;
    return this;
  }

  /** Frees the trainer; later calls throw DISPOSED. */
  dispose() {
    if (!this.#ptr) return;
    this.#core._wasm_trainer_destroy(this.#ptr);
    this.#core._wasm_free(this.#scratch);
    trainerRegistry.unregister(this);
    this.#ptr = 0;
  }

  #live() {
    if (!this.#ptr) throw new MHAError('DISPOSED', 'this trainer was disposed; create a new one with createTrainer');
    return this.#core;
  }

  #enabled(enabled) {
    if (enabled == null) return 0; // all heads on
    const bytes = enabledHeads(enabled, this.heads);
    this.#core.HEAPU8.set(bytes, this.#scratch + 64);
    return this.#scratch + 64;
  }

  #tensor(id, head, count) {
    const core = this.#live();
    if (!Number.isInteger(head) || head < 0 || head >= this.heads) {
      throw new MHAError('HEAD_INDEX', `head ${String(head)} does not exist: this trainer has heads 0 to ${this.heads - 1}`);
    }
    if (this.#shown !== this.#version) {
      this.#layer = core._wasm_trainer_example_layer(this.#ptr, 0);
      if (!this.#layer) throw coreError(core);
      this.#shown = this.#version;
    }
    const ptr = core._wasm_tensor(this.#layer, id, head);
    if (!ptr) throw coreError(core);
    return new Float32Array(core.HEAPF32.buffer, ptr, count);
  }
}

function intArg(name, value) {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new MHAError('BAD_SIZE', `${name} must be a positive whole number, got ${describe(value)}`);
  }
  if (value > INT32_MAX) throw new MHAError('TOO_LARGE', `${name} ${value} is far too large`);
  return value;
}

function shapeSize(shape) {
  let size = 1;
  for (const n of shape) {
    if (!Number.isInteger(n) || n < 0) throw new MHAError('BAD_ARGUMENT', `a shape needs whole numbers ≥ 0, got ${describe(n)}`);
    size *= n;
  }
  if (size > 2 ** 26) throw new MHAError('TOO_LARGE', `${size} random numbers at once is too many (at most ${2 ** 26})`);
  return size;
}

/** Accepts a Float32Array, any array-like of numbers, or rows of numbers; returns a flat Float32Array. */
function toFloat32(name, value) {
  if (value instanceof Float32Array) return value;
  if (value == null || typeof value !== 'object' || typeof value.length !== 'number') {
    throw new MHAError('BAD_ARGUMENT', `${name} must be an array of numbers (flat or rows), got ${describe(value)}`);
  }
  if (!Array.isArray(value) || !Array.isArray(value[0])) return numbers(name, value, -1);
  const width = value[0].length;
  const flat = new Float32Array(value.length * width);
  value.forEach((row, r) => {
    if (!Array.isArray(row) || row.length !== width) {
      throw new MHAError('BAD_LENGTH', `${name} has rows of different lengths: row 0 has ${width} numbers, row ${r} has ${Array.isArray(row) ? row.length : describe(row)}`);
    }
    flat.set(numbers(name, row, r), r * width);
  });
  return flat;
}

function numbers(name, values, row) {
  const out = new Float32Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const n = values[i];
    if (typeof n !== 'number') {
      const where = row < 0 ? `[${i}]` : `[${row}][${i}]`;
      throw new MHAError('BAD_ARGUMENT', `${name}${where} must be a number, got ${describe(n)}`);
    }
    out[i] = n;
  }
  return out;
}

function weight(name, value, d) {
  if (value == null) throw new MHAError('BAD_INPUT', `projection mode needs ${name} (d_model × d_model)`);
  const w = toFloat32(name, value);
  if (w.length !== d * d) {
    throw new MHAError('BAD_LENGTH', `${name} must be d_model × d_model = ${d}×${d} = ${d * d} numbers, got ${w.length}`);
  }
  return w;
}

function sameLength(name, value, length) {
  if (value == null) throw new MHAError('BAD_INPUT', `QKV mode needs q, k and v; ${name} is missing`);
  const a = toFloat32(name, value);
  if (a.length !== length) {
    throw new MHAError('BAD_LENGTH', `q, k and v must have the same size: q has ${length} numbers, ${name} has ${a.length}`);
  }
  return a;
}

function enabledHeads(enabled, heads) {
  if (enabled == null) return new Uint8Array(heads).fill(1);
  if (typeof enabled !== 'object' || enabled.length !== heads) {
    throw new MHAError('BAD_LENGTH', `enabled must list one true/false per head (${heads}), got ${describe(enabled)}`);
  }
  return Uint8Array.from(enabled, (on) => (on ? 1 : 0));
}

function describe(value) {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (value && typeof value === 'object') return value.constructor?.name ?? 'an object';
  return String(value);
}

/** The MHAError for the core's last failing call: its status code and sentence. */
function coreError(core) {
  return new MHAError(cString(core, core._wasm_status_name(core._wasm_last_status())), cString(core, core._wasm_last_error()));
}

function cString(core, ptr) {
  const bytes = core.HEAPU8;
  let end = ptr;
  while (bytes[end]) end++;
  return new TextDecoder().decode(bytes.subarray(ptr, end));
}
