// The Trainer of createTrainer (c/lib/train.h, exported by c/wasm/wasm_exports.c): a small model that learns, in the
// wasm heap, which view each head takes.
import { MHAError, arrayLength, checkOptions, coreError, describe, enabledHeads, intArg, seedArg, tokenIds } from './checks.js';
import { FLAG, ForwardViews, kvDetails, tensorView } from './layer.js';
import { Lifetime } from './lifetime.js';

// The parameter blocks of c/lib/train.h's mha_train_param, in its order.
const TRAIN_PARAMS = ['tokenEmbedding', 'positionEmbedding', 'wq', 'wk', 'wv', 'wo', 'readout', 'readoutBias'];

/**
 * A trainer's scratch in the wasm heap, for what crosses by pointer: the byte offset of each part.
 *   results     what a call hands back (c/wasm/wasm_exports.c's wasm_results): an evaluation, a block's shape
 *   enabled     h bytes: which heads are on
 *   tokens      2·seqLen ints: the example's tokens, or its predictions
 */
function trainerScratch(core, heads, seqLen) {
  const enabled = Math.ceil(core._wasm_results_bytes() / 8) * 8;
  const tokens = enabled + Math.ceil(heads / 8) * 8;
  return { results: 0, enabled, tokens, bytes: tokens + 8 * seqLen };
}

/** A Trainer on `core`, its options checked; the defaults are the API's (see Attention.createTrainer). */
export function createTrainer(core, options) {
  const { heads, kvHeads = 0, dModel = 8, seqLen = 8, vocab = 16, seed = 0, lr = 0.01, batch = 32, evalCount = 256, causal = true, scale = true } =
    checkOptions('createTrainer', options, ['heads', 'kvHeads', 'dModel', 'seqLen', 'vocab', 'seed', 'lr', 'batch', 'evalCount', 'causal', 'scale']);
  const args = [intArg('heads', heads), intArg('dModel', dModel), intArg('seqLen', seqLen), intArg('vocab', vocab),
    intArg('batch', batch), intArg('evalCount', evalCount)];
  intArg('kvHeads', kvHeads, 0);
  seedArg(seed);
  if (typeof lr !== 'number') throw new MHAError('BAD_ARGUMENT', `lr must be a number, got ${describe(lr)}`);
  const flags = (causal ? FLAG.causal : 0) | (scale ? FLAG.scale : 0);
  const ptr = core._wasm_trainer_create(...args, flags, seed, lr, kvHeads);
  if (!ptr) throw kvDetails(coreError(core), heads, kvHeads);
  const scratch = core._wasm_malloc(trainerScratch(core, heads, seqLen).bytes);
  if (!scratch) {
    core._wasm_trainer_destroy(ptr);
    throw new MHAError('OUT_OF_MEMORY', 'not enough memory for a trainer');
  }
  return new Trainer(core, ptr, scratch, { heads, kvHeads: kvHeads || heads, dModel, seqLen, vocab, seed, lr, batch, evalCount, causal: Boolean(causal), scale: Boolean(scale) });
}

function destroyTrainer(core, ptr, scratch) {
  core._wasm_trainer_destroy(ptr);
  core._wasm_free(scratch);
}

/**
 * A small model that learns, in the wasm heap, which view each head takes. Arrays it returns are views
 * into the heap (like a Layer's): valid until the next call on this trainer; copy what you keep.
 */
class Trainer extends ForwardViews {
  #lifetime;
  #ptr;
  #scratch; // the base address of a trainerScratch layout
  #at; // its parts' byte offsets
  #version = 0; // bumped whenever the weights or the example change
  #shown = -1; // the version the example layer was last run for
  #layer = 0;

  constructor(core, ptr, scratch, options) {
    super((id, head, count) => tensorView(this.#lifetime.core(), this.#exampleLayer(), id, head, count, this.heads, 'trainer'), () => this.seqLen, 'trainer');
    this.#lifetime = new Lifetime(this, 'this trainer was disposed; create a new one with createTrainer', destroyTrainer, core, ptr, scratch);
    this.#ptr = ptr;
    this.#scratch = scratch;
    this.#at = trainerScratch(core, options.heads, options.seqLen);
    Object.assign(this, options);
    this.dK = options.dModel / options.heads;
    /** Every parameter together; the same for every h at one dModel (the lesson's point). */
    this.paramCount = core._wasm_trainer_param_count(ptr);
  }

  /** n training steps (one fresh batch and one Adam update each); returns the last batch's loss. */
  step(n = 1) {
    const core = this.#lifetime.core();
    const count = intArg('n', n, 0);
    const status = core._wasm_trainer_step(this.#ptr, count);
    this.#version++;
    if (status) throw coreError(core);
    return this.loss();
  }

  /** The last step's batch loss (mean cross-entropy of both targets); NaN before the first step. */
  loss() {
    return this.#lifetime.core()._wasm_trainer_loss(this.#ptr);
  }

  /** Steps taken since creation or reset. */
  get steps() {
    return this.#lifetime.core()._wasm_trainer_steps(this.#ptr);
  }

  /**
   * Loss and accuracy on the held-out set; `enabled` (one boolean per head) switches heads off, for
   * ablation. previous / first: the two targets separately.
   */
  evaluate(options) {
    const heads = this.#enabledOption('evaluate', options);
    const core = this.#lifetime.core();
    const results = this.#scratch + this.#at.results;
    const status = core._wasm_trainer_evaluate(this.#ptr, heads, results);
    if (status) throw coreError(core);
    const [loss, accuracy, prevLoss, prevAccuracy, firstLoss, firstAccuracy] = new Float64Array(core.HEAPF64.buffer, results, 6);
    return { loss, accuracy, previous: { loss: prevLoss, accuracy: prevAccuracy }, first: { loss: firstLoss, accuracy: firstAccuracy } };
  }

  /** Held-out accuracy with every head on. */
  accuracy() {
    return this.evaluate().accuracy;
  }

  /** The example sentence (seqLen token ids) whose attention attention(i) shows. */
  get example() {
    const core = this.#lifetime.core();
    return Array.from(new Int32Array(core.HEAPU8.buffer, core._wasm_trainer_example(this.#ptr), this.seqLen));
  }

  /** Sets the example sentence: seqLen token ids from 0 to vocab-1. */
  setExample(tokens) {
    this.#lifetime.core(); // DISPOSED before the tokens are read
    const length = arrayLength('the example', tokens, this.seqLen);
    if (length !== this.seqLen) {
      throw new MHAError('BAD_LENGTH', `the example must have seqLen = ${this.seqLen} tokens, got ${describe(tokens)}`);
    }
    const ints = tokenIds('tokens', tokens, length, this.vocab, 'BAD_INPUT');
    const core = this.#lifetime.core(); // a getter of `tokens` may have disposed it
    new Int32Array(core.HEAPU8.buffer, this.#scratch + this.#at.tokens, this.seqLen).set(ints);
    const status = core._wasm_trainer_set_example(this.#ptr, this.#scratch + this.#at.tokens);
    if (status) throw coreError(core);
    this.#version++;
    return this;
  }

  /** The trained model's guesses on the example: previous[r] and first[r], the most likely token ids. */
  predict(options) {
    const heads = this.#enabledOption('predict', options);
    const core = this.#lifetime.core();
    const status = core._wasm_trainer_example_predict(this.#ptr, heads, this.#scratch + this.#at.tokens);
    if (status) throw coreError(core);
    const both = new Int32Array(core.HEAPU8.buffer, this.#scratch + this.#at.tokens, 2 * this.seqLen);
    return { previous: Array.from({ length: this.seqLen }, (_, r) => both[2 * r]), first: Array.from({ length: this.seqLen }, (_, r) => both[2 * r + 1]) };
  }

  /**
   * The current weights, row-major Float32Array views: tokenEmbedding (vocab × dModel),
   * positionEmbedding (seqLen × dModel), wq and wo (dModel × dModel), wk and wv (dModel × kvHeads·dK: dModel × dModel
   * unless K/V heads are shared), readout (dModel × 2·vocab:
   * the previous-token logits, then the first-token logits), readoutBias (2·vocab).
   */
  weights() {
    const core = this.#lifetime.core();
    const out = {};
    const shape = this.#scratch + this.#at.results;
    TRAIN_PARAMS.forEach((name, id) => {
      const ptr = core._wasm_trainer_param(this.#ptr, id, 0, shape);
      if (!ptr) throw coreError(core);
      const [rows, cols] = new Int32Array(core.HEAPU8.buffer, shape, 2);
      out[name] = new Float32Array(core.HEAPF32.buffer, ptr, rows * cols);
    });
    return out;
  }

  /** Back to the freshly created state: the same seed gives the same weights and batches again. */
  reset() {
    this.#lifetime.core()._wasm_trainer_reset(this.#ptr);
    this.#version++;
    return this;
  }

  /** Frees the trainer; later calls throw DISPOSED. */
  dispose() {
    this.#lifetime.end();
  }

  /**
   * The `enabled` option of `call`, read and checked first, then written into this trainer's scratch:
   * the address to pass, or 0 for all heads on.
   */
  #enabledOption(call, options) {
    this.#lifetime.core(); // DISPOSED before the options are read
    const { enabled } = checkOptions(call, options, ['enabled']);
    const bytes = enabled == null ? null : enabledHeads(enabled, this.heads);
    const core = this.#lifetime.core(); // a getter may have disposed this trainer meanwhile
    if (!bytes) return 0;
    core.HEAPU8.set(bytes, this.#scratch + this.#at.enabled);
    return this.#scratch + this.#at.enabled;
  }

  /** The core layer holding the example's forward with the current weights, run again only when they changed. */
  #exampleLayer() {
    if (this.#shown !== this.#version) {
      const core = this.#lifetime.core();
      this.#layer = core._wasm_trainer_example_layer(this.#ptr, 0);
      if (!this.#layer) throw coreError(core);
      this.#shown = this.#version;
    }
    return this.#layer;
  }
}
