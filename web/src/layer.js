// A Layer of createLayer (c/lib/mha.h, exported by c/wasm/wasm_exports.c), and the views of a forward's tensors
// that a Layer and a Trainer's example share.
import { MHAError, checkOptions, coreError, enabledHeads, indexArg, intArg, toFloat32 } from './checks.js';
import { Lifetime, forgettingOnFailure } from './lifetime.js';

// These mirror the enums of c/lib/mha.h.
const TENSOR = { q: 0, k: 1, v: 2, scores: 3, attention: 4, head: 5, concat: 6, output: 7 };
const SLOT = { xOrQ: 0, k: 1, v: 2, wq: 3, wk: 4, wv: 5, wo: 6, enabled: 7 };
export const FLAG = { causal: 1, scale: 2, plain: 4 };

const LAYER_FORWARD_OPTIONS = ['x', 'wq', 'wk', 'wv', 'q', 'k', 'v', 'wo', 'causal', 'scale', 'enabled', 'plain']; // one array, not one per call

/**
 * A Layer on `core`; beside a threaded core, one no step of which is big enough to share runs on the
 * single-threaded core `single`.
 */
export function createLayer(core, single, options) {
  const { dModel, heads, maxLen, kvHeads = 0 } = checkOptions('createLayer', options, ['dModel', 'heads', 'maxLen', 'kvHeads']);
  const args = [intArg('d_model', dModel), intArg('heads', heads), intArg('maxLen', maxLen), intArg('kvHeads', kvHeads, 0)];
  const runsOn = single && !core._wasm_layer_may_thread(args[0], args[2]) ? single : core;
  const ptr = runsOn._wasm_layer_create(...args);
  if (!ptr) throw kvDetails(coreError(runsOn), heads, kvHeads);
  return new Layer(runsOn, ptr, { dModel, heads, maxLen, kvHeads: kvHeads || heads });
}

/** KV_HEADS_NOT_DIVISOR with the values it names, { kvHeads, heads }, for a page to say in its language. */
export function kvDetails(error, heads, kvHeads) {
  if (error.code === 'KV_HEADS_NOT_DIVISOR') error.details = { kvHeads, heads };
  return error;
}

/**
 * What a forward leaves to look at, for a Layer and for a Trainer's example alike: each call returns a
 * fresh Float32Array view into the wasm heap, valid until the next call on its owner.
 */
export class ForwardViews {
  #view; // (tensor id, head, count) → a checked, fresh view
  #rows; // () → L of the forward
  #owner; // 'layer' or 'trainer', for HEAD_INDEX's sentence

  constructor(view, rows, owner) {
    this.#view = view;
    this.#rows = rows;
    this.#owner = owner;
  }

  /** The K/V group query head i reads: ⌊i·kvHeads/heads⌋, as mha_layer_kv_group (c/lib/mha.h) computes it. */
  kvGroup(i) {
    return Math.floor(indexArg('head', i, this.heads, this.#owner) * this.kvHeads / this.heads);
  }

  /** Head i's softmax weights, L×L; masked entries are exactly 0. */
  attention(i) {
    return this.#view(TENSOR.attention, i, this.#rows() ** 2);
  }

  /** Head i's scores, L×L, divided by sqrt(d_k) when scale is on, before the mask. */
  scores(i) {
    return this.#view(TENSOR.scores, i, this.#rows() ** 2);
  }

  /** Head i's output A_i·V_i, L×d_k (computed even when the head is switched off). */
  headOutput(i) {
    return this.#view(TENSOR.head, i, this.#rows() * this.dK);
  }

  /** The projected (or given) queries, L×dModel. */
  q() {
    return this.#view(TENSOR.q, 0, this.#rows() * this.dModel);
  }

  /** The keys, L×(kvHeads·dK): L×dModel unless K/V heads are shared. */
  k() {
    return this.#view(TENSOR.k, 0, this.#rows() * this.kvWidth);
  }

  v() {
    return this.#view(TENSOR.v, 0, this.#rows() * this.kvWidth);
  }

  /** Columns of K and V: kvHeads·dK (dModel when every head has its own). */
  get kvWidth() {
    return (this.kvHeads ?? this.heads) * this.dK;
  }

  /** The heads side by side, L×dModel; a switched-off head gives zeros. */
  concat() {
    return this.#view(TENSOR.concat, 0, this.#rows() * this.dModel);
  }

  /** concat · W^O, L×dModel. */
  output() {
    return this.#view(TENSOR.output, 0, this.#rows() * this.dModel);
  }
}

/** A fresh view of a core layer's tensor `id` (of head `head` for the per-head ones). */
export function tensorView(core, layer, id, head, count, heads, owner) {
  const ptr = core._wasm_tensor(layer, id, indexArg('head', head, heads, owner));
  if (!ptr) throw coreError(core);
  // A fresh view every time: the heap's buffer is replaced whenever it grows.
  return new Float32Array(core.HEAPF32.buffer, ptr, count);
}

const destroyLayer = (core, ptr) => core._wasm_layer_destroy(ptr);

class Layer extends ForwardViews {
  #lifetime;
  #ptr; // the export layer's handle: the core's layer plus staging for the inputs
  #layer; // the core's layer, whose tensors we read

  constructor(core, ptr, { dModel, heads, maxLen, kvHeads }) {
    super((id, head, count) => tensorView(this.#lifetime.core(), this.#layer, id, head, count, this.heads, 'layer'), () => this.length, 'layer');
    this.#lifetime = new Lifetime(this, 'this layer was disposed; create a new one with createLayer', destroyLayer, core, ptr);
    this.#ptr = ptr;
    this.#layer = core._wasm_layer_core(ptr);
    this.dModel = dModel;
    this.heads = heads;
    this.dK = dModel / heads;
    /** K/V heads: heads (multi-head), 1 (multi-query) or a divisor between (grouped-query). */
    this.kvHeads = kvHeads;
    this.maxLen = maxLen;
    /** L of the last forward (0 before the first, and after one that was refused). */
    this.length = 0;
  }

  /**
   * Projection mode: { x, wq, wk, wv, wo?, causal?, scale?, enabled? }
   * QKV mode:        { q, k, v, wo?, causal?, scale?, enabled? }
   * Arrays are row-major (flat or nested); L is the length of x (or q) over dModel.
   * wo defaults to the identity; causal and scale default to true.
   * plain: true runs the C core's plain reference loops instead of its SIMD kernels (for tests).
   * A forward refused here, as one the core refuses, leaves no result: NO_FORWARD until the next.
   */
  forward(options) {
    const core = this.#lifetime.core();
    return forgettingOnFailure(() => this.#forward(options), () => {
      if (!this.#lifetime.ended) core._wasm_layer_forget(this.#layer);
      this.length = 0;
    });
  }

  #forward(options) {
    const { x, wq, wk, wv, q, k, v, wo, causal = true, scale = true, enabled, plain = false } =
      checkOptions('forward', options, LAYER_FORWARD_OPTIONS);
    // Every input is read and checked into memory of our own first: an array's getter may run any code,
    // even dispose this layer or grow the heap, and must not find us half-way through the wasm memory.
    const d = this.dModel, kvd = this.kvWidth;
    const projection = x != null;
    if (projection && (q != null || k != null || v != null)) {
      throw new MHAError('BAD_INPUT', 'give either x with wq, wk, wv (projection mode) or q, k, v, not both');
    }
    if (!projection && (wq != null || wk != null || wv != null)) {
      throw new MHAError('BAD_INPUT', 'wq, wk and wv project x: give x with them (projection mode), or q, k, v without them');
    }
    const name = projection ? 'x' : 'q';
    const first = toFloat32(name, projection ? x : q, this.maxLen * d, (count, rows) => this.#tooLong(name, count, rows));
    if (first.length % d !== 0) throw this.#tooLong(name, first.length, NaN);
    const L = first.length / d;
    const inputs = projection
      ? [[SLOT.xOrQ, first], [SLOT.wq, weight('wq', wq, d)], [SLOT.wk, weight('wk', wk, d, kvd)], [SLOT.wv, weight('wv', wv, d, kvd)]]
      : [[SLOT.xOrQ, first], [SLOT.k, sameRows('k', k, L, kvd, d)], [SLOT.v, sameRows('v', v, L, kvd, d)]];
    if (wo != null) inputs.push([SLOT.wo, weight('wo', wo, d)]);
    const heads = enabledHeads(enabled, this.heads);
    const flags = (causal ? FLAG.causal : 0) | (scale ? FLAG.scale : 0) | (plain ? FLAG.plain : 0);

    const core = this.#lifetime.core(); // a getter above may have disposed it
    for (const [slot, values] of inputs) {
      // A Float32Array view of the wasm heap is detached if a getter above grew the heap.
      const rows = slot === SLOT.xOrQ || slot === SLOT.k || slot === SLOT.v ? L : d;
      const cols = slot === SLOT.k || slot === SLOT.v || slot === SLOT.wk || slot === SLOT.wv ? kvd : d;
      if (values.length !== rows * cols) {
        throw new MHAError('BAD_ARGUMENT', 'an input array was detached while the inputs were read (the wasm heap grew); pass copies');
      }
      core.HEAPF32.set(values, this.#staging(slot) / 4);
    }
    core.HEAPU8.set(heads, this.#staging(SLOT.enabled));
    const status = core._wasm_forward(this.#ptr, L, projection ? 1 : 0, wo != null ? 1 : 0, flags);
    this.length = core._wasm_layer_len(this.#layer); // 0 after a forward that failed half-way
    if (status) throw coreError(core);
    return this;
  }

  /** Frees the layer's buffers; later calls throw DISPOSED. */
  dispose() {
    this.#lifetime.end();
  }

  /** SEQ_TOO_LONG for `count` numbers in `rows` rows (count / dModel when not given), or BAD_LENGTH when they are no whole rows. */
  #tooLong(name, count, rows = count / this.dModel) {
    return Number.isInteger(rows)
      ? new MHAError('SEQ_TOO_LONG', `the sequence has ${rows} tokens but this layer was created with maxLen ${this.maxLen}`)
      : new MHAError('BAD_LENGTH', `${name} has ${count} numbers, which is not a whole number of rows of d_model ${this.dModel}`);
  }

  #staging(slot) {
    const ptr = this.#lifetime.core()._wasm_layer_staging(this.#ptr, slot);
    if (!ptr) throw new MHAError('BAD_INPUT', `the layer has no staging buffer ${slot}`); // never write at address 0
    return ptr;
  }
}

/** A d × cols weight: d × d, or d × kvHeads·d_k for wk and wv when K/V heads are shared. */
function weight(name, value, d, cols = d) {
  if (value == null) throw new MHAError('BAD_INPUT', `projection mode needs ${name}`);
  const w = toFloat32(name, value, d * cols);
  if (w.length !== d * cols) {
    throw new MHAError('BAD_LENGTH', `${name} must be d_model × ${cols < d ? 'kvHeads·d_k' : 'd_model'} = ${d}×${cols} = ${d * cols} numbers, got ${w.length}`);
  }
  return w;
}

/** k or v: q's L rows, each `width` numbers (d_model, or kvHeads·d_k when K/V heads are shared). */
function sameRows(name, value, L, width, d) {
  if (value == null) throw new MHAError('BAD_INPUT', `QKV mode needs q, k and v; ${name} is missing`);
  const mismatch = (count) => new MHAError('BAD_LENGTH', `${name} must be q's ${L} rows of ${width} numbers (${L * width}): q has ${L * d} numbers, ${name} has ${count}`);
  const a = toFloat32(name, value, Math.max(L * width, 1), mismatch);
  if (a.length !== L * width) throw mismatch(a.length);
  return a;
}
