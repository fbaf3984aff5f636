// What loadAttention resolves to: one loaded core (with the single-threaded one beside a threaded core), which
// makes the layers, trainers and models. Each kind lives in its own module; this class hands them the core.
import { MHAError, checkOptions, coreError, intArg } from './checks.js';
import { createLayer, kvDetails } from './layer.js';
import { randomState } from './random.js';
import { createTrainer } from './trainer.js';

/**
 * The model loaders (gpt-model.js, poem-model.js), put in place by the package's entry, attention.js. The widget
 * starts the core through shared-core.js alone, so its bundle carries no .safetensors reader it never calls;
 * wherever attention.js is imported too, the one instance gains them.
 */
export const modelLoaders = {};

function modelLoader(name) {
  return modelLoaders[name] ?? (() => Promise.reject(new MHAError('LOAD_FAILED', `${name} is not part of this bundle: import loadAttention from the package's entry (web/src/attention.js)`)));
}

export class Attention {
  #core;
  #module;
  #scratch; // where the core writes what it hands back by pointer (c/wasm/wasm_exports.c's wasm_results)
  #threads;
  #single; // beside a threaded core: the single-threaded one, for small layers

  constructor(core, module, threads, single) {
    this.#core = core;
    this.#module = module;
    this.#threads = threads;
    this.#single = single;
    this.#scratch = core._wasm_malloc(core._wasm_results_bytes());
  }

  /** How many threads share each big forward: 1 on the single-threaded core. */
  get threads() {
    return this.#threads;
  }

  /** Whether the core's matrix products use fused multiply-add (its -fma build; build.sh marks those). */
  get fma() {
    return WebAssembly.Module.customSections(this.#module, 'mha-fused-multiply-add').length > 0;
  }

  /** The compiled core: post it to a worker, which passes it to loadAttention({ wasm }) instead of fetching. */
  get wasmModule() {
    return this.#module;
  }

  /**
   * A layer sized for sequences up to maxLen; it owns its buffers until dispose(). Beside a threaded core, a
   * layer no step of which is big enough to share runs on the single-threaded one.
   */
  createLayer(options) {
    return createLayer(this.#core, this.#single, options);
  }

  /**
   * A trainer for the "two views" task (c/lib/train.h): token + position embeddings → this attention
   * layer → a read-out that predicts, at every position, the previous token and the first token.
   * Defaults: dModel 8, seqLen 8, vocab 16, seed 0, lr 0.01, batch 32, evalCount 256, causal and scale on.
   */
  createTrainer(options) {
    return createTrainer(this.#core, options);
  }

  /**
   * A GPT-2-style model from a .safetensors file (c/lib/gpt.h): Hugging Face GPT-2's tensor names and layouts, F32 or
   * F16. The file is its bytes (an ArrayBuffer or Uint8Array) or a Blob (a File the learner picked), which is read
   * a slice at a time straight into the model's weights, so a 548 MB GPT-2 never sits in JavaScript memory whole.
   * Layers, dModel, context and vocabSize come from the shapes; heads from the options, else the file's
   * __metadata__ n_head, else GPT-2's own sizes. onProgress(bytesRead, fileSize) follows the reading. A broken,
   * misshaped or non-finite file rejects with BAD_MODEL naming the problem; a Blob that cannot be read with
   * LOAD_FAILED. The weights are copied into the wasm heap once; the file can be dropped after.
   */
  loadModel(source, options) {
    return modelLoader('loadModel')(this.#core, this.#scratch, source, options);
  }

  /**
   * The lesson's poetry model (web/poems/build/train.js made it): { model, encode(text) → Int32Array, decode(ids) →
   * string, card }. encode gives one token per character, the unknown token for characters outside the
   * vocabulary; the card (poems.card.json) says what it was trained on and what it measures. The files come
   * from web/poems/ beside web/src/, or from the URLs given; one that cannot be fetched rejects with
   * LOAD_FAILED, a broken model file with BAD_MODEL.
   */
  loadPoemModel(options) {
    return modelLoader('loadPoemModel')(this, options);
  }

  /**
   * The lesson's bill: naive = h·3·d², split = 3·d² + d², and with K/V heads shared (kvHeads, default heads)
   * each weight apart, wq and wo d², wk and wv d·kvHeads·d_k (split is their sum), and kvCacheBytes: what one
   * token's keys and values take in a cache, per layer, 2·kvHeads·d_k·bytesPerValue (default 4, float32; 2
   * for float16).
   */
  paramCount(options) {
    const { dModel, heads, kvHeads = 0, bytesPerValue = 4 } = checkOptions('paramCount', options, ['dModel', 'heads', 'kvHeads', 'bytesPerValue']);
    const args = [intArg('d_model', dModel), intArg('heads', heads), intArg('kvHeads', kvHeads, 0), intArg('bytesPerValue', bytesPerValue)];
    if (this.#core._wasm_param_bill(...args, this.#scratch)) throw kvDetails(this.lastError(), heads, kvHeads);
    const [naive, split, wq, wk, wv, wo, kvCacheBytes] = new Float64Array(this.#core.HEAPF64.buffer, this.#scratch, 7);
    return { naive, split, wq, wk, wv, wo, kvCacheBytes };
  }

  /** numpy's legacy np.random.RandomState(seed), giving numpy's exact doubles. */
  randomState(seed) {
    return randomState(this.#core, seed);
  }

  /** Current size of the wasm heap in bytes (both heaps' beside a threaded core). */
  memoryBytes() {
    return this.#core.HEAPU8.buffer.byteLength + (this.#single?.HEAPU8.buffer.byteLength ?? 0);
  }

  /** The MHAError for the core's last failing call. */
  lastError() {
    return coreError(this.#core);
  }
}

