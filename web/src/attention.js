// The JS face of the C attention core; the only module that touches the Emscripten Module.
//
//   const mha = await loadAttention();
//   const layer = mha.createLayer({ dModel: 4, heads: 2, maxLen: 8 });
//   layer.forward({ q, k, v, causal: false });
//   layer.attention(0);  // Float32Array L×L
//   const model = await mha.loadModel(bytes);  // a GPT-2-style .safetensors file
//   model.forward([464, 3797]).attention(0, 1);
//   const poems = await mha.loadPoemModel();   // the lesson's Tang poetry model: { model, encode, decode, card }
//
// Arrays returned by a layer are views into the wasm heap, not copies: they hold the
// result of the last forward and are valid until the next call on that layer, or until
// any createLayer (which may grow the heap). Copy what you keep (`.slice()`).
import createMhaCore, { wasmUrl, threadedUrls, fusedUrls } from '../dist/mha-core.mjs';

/**
 * An error a learner can read: `.code` is stable (e.g. 'HEADS_NOT_DIVISOR'), `.message` names the values.
 * `.details`, for NOT_FINITE from a forward, says where as numbers a page can translate:
 * { name, head, row, column } (0-based; head only for 'scores' and 'head output').
 */
export class MHAError extends Error {
  constructor(code, message, details) {
    super(message);
    this.name = 'MHAError';
    this.code = code;
    if (details) this.details = details;
  }
}

// These mirror the enums of c/mha.h.
const TENSOR = { q: 0, k: 1, v: 2, scores: 3, attention: 4, head: 5, concat: 6, output: 7 };
const SLOT = { xOrQ: 0, k: 1, v: 2, wq: 3, wk: 4, wv: 5, wo: 6, enabled: 7 };
const FLAG = { causal: 1, scale: 2, plain: 4 };
const INT32_MAX = 2 ** 31 - 1;
// Most numbers one array argument may hold: a whole layer's input at the largest size the core allows.
const MAX_ARRAY_LENGTH = 2 ** 28;
// Most random numbers one randn or randomSample call may draw (128 MB of doubles).
const MAX_RANDOM_DRAW = 2 ** 24;

let loading;

const MAX_THREADS = 8; // past this the lesson's shapes gain nothing; c/mha.h allows 64

/**
 * Loads the wasm core once; every call returns the same instance. `wasm` says where the core comes from
 * (only the first call's counts): a compiled WebAssembly.Module (a worker is handed the page's, see
 * `wasmModule`), the wasm's bytes, or its URL; by default mha-core.wasm beside web/dist/mha-core.mjs, or
 * wherever the app's bundler put it. `threads` (default: one per core, up to 8) > 1 loads the threaded
 * core where it can run (Node, or a cross-origin isolated page: SharedArrayBuffer), with the single-threaded
 * core beside it for layers too small to share a step; elsewhere the core runs on one thread. Beside the
 * threaded core, `fma` (default true) takes both cores' fused multiply-add builds where the engine has
 * relaxed SIMD (fmaAvailable()). A module passed as `wasm` brings its own kind (and comes alone). A core
 * that cannot be fetched or compiled rejects with LOAD_FAILED.
 */
export function loadAttention(options = {}) {
  let wasm, wanted, fma;
  try {
    ({ wasm, fma = true } = checkOptions('loadAttention', options, ['wasm', 'threads', 'fma']));
    wanted = options.threads === undefined ? defaultThreads() : intArg('threads', options.threads, 1);
    if (typeof fma !== 'boolean') throw new MHAError('BAD_ARGUMENT', `fma must be true or false, got ${describe(fma)}`);
  } catch (error) {
    return Promise.reject(error);
  }
  loading ??= instantiate(wasm, Math.min(wanted, MAX_THREADS), fma).then(
    ([core, module, running, single]) => new Attention(core, module, running, single),
    (error) => {
      loading = undefined; // let a later call try again
      throw error?.name === 'MHAError' ? error : new MHAError('LOAD_FAILED', `could not load the attention core: ${error?.message ?? error}`);
    },
  );
  return loading;
}

function defaultThreads() {
  const cores = globalThis.navigator?.hardwareConcurrency ?? globalThis.process?.getBuiltinModule?.('node:os').availableParallelism();
  return Math.max(1, cores || 1); // loadAttention caps it at MAX_THREADS
}

/** Whether the threaded core can run here: shared memory, and a way to start workers. */
export function threadsAvailable() {
  if (typeof SharedArrayBuffer !== 'function') return false;
  if (globalThis.process?.versions?.node) return typeof globalThis.process.getBuiltinModule === 'function';
  return globalThis.crossOriginIsolated === true && typeof Worker === 'function';
}

// A module with one function using f32x4.relaxed_madd: valid where the engine has relaxed SIMD.
const RELAXED_MADD_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 8, 1, 96, 3, 123, 123, 123, 1, 123, 3, 2, 1, 0,
  10, 13, 1, 11, 0, 32, 0, 32, 1, 32, 2, 253, 133, 2, 11]);

/** Whether the engine runs relaxed SIMD's fused multiply-add, which the cores' -fma builds use. */
export function fmaAvailable() {
  return WebAssembly.validate(RELAXED_MADD_PROBE);
}

/** [core, its module, threads running, the single-threaded core beside a threaded one (if it loaded)] */
async function instantiate(wasm, threads, fma) {
  if (wasm === undefined && threads > 1 && threadsAvailable()) {
    // Both cores: the single-threaded one runs the layers too small to share a step (mha_layer_may_thread),
    // where the threaded core's shared memory only makes copying in and out slower; it is the fallback too.
    // Both of one kind, so every layer of an instance computes alike.
    if (fma && fmaAvailable()) {
      const fused = await startBeside(fusedUrls.single, fusedUrls.threaded, threads);
      if (fused.threaded) return fused.threaded;
      // Not there (a course copied only the other builds): the cores without fused multiply-add.
    }
    const both = await startBeside(wasmUrl, threadedUrls.wasm, threads);
    return both.threaded ?? [...(await both.single), 1];
  }
  const module = await compileCore(wasm ?? wasmUrl);
  if (isThreaded(module)) return startThreaded(module, threads);
  return [...(await startSingle(module)), 1];
}

/**
 * The threaded core from threadedWasm with the single-threaded one from singleWasm beside it: { threaded }
 * as instantiate returns it, or, when the threaded core's files are missing here or its workers cannot
 * start, { single } (a promise of [core, module]), which gives the same numbers on one thread.
 */
async function startBeside(singleWasm, threadedWasm, threads) {
  const single = startSingle(singleWasm);
  single.catch(() => {}); // awaited below, whichever way the threaded core goes
  try {
    const [core, module, running] = await startThreaded(await compileCore(threadedWasm), threads);
    return { threaded: [core, module, running, (await single.catch(() => undefined))?.[0]] };
  } catch {
    return { single };
  }
}

/** [core, module] of the single-threaded build. */
async function startSingle(wasm) {
  const module = await compileCore(wasm);
  return [await startCore(createMhaCore, module, {}), module];
}

async function startThreaded(module, threads) {
  if (!threadsAvailable()) throw new Error('this is the threaded core, which needs SharedArrayBuffer (a cross-origin isolated page)');
  const { default: createThreaded } = await import(/* @vite-ignore */ /* webpackIgnore: true */ threadedUrls.glue);
  const core = await startCore(createThreaded, module, {
    // The glue's worker pool is threads - 1 (build.sh's PTHREAD_POOL_SIZE); with none it would wait forever
    // for its workers to load, so a threaded core asked for one thread keeps one idle worker.
    threads: Math.max(threads, 2),
    mainScriptUrlOrBlob: threadedUrls.glue,
    locateFile: (file) => (file.endsWith('.worker.js') ? threadedUrls.worker : file),
  });
  // The pool starts threads - 1 workers; if the system gave fewer, run on what there is.
  const running = core._wasm_set_threads(threads) === 0 ? threads : 1;
  return [core, module, running];
}

/** The threaded core imports its memory (shared); the single-threaded one makes its own. */
function isThreaded(module) {
  return WebAssembly.Module.imports(module).some((entry) => entry.kind === 'memory');
}

/**
 * Runs an Emscripten glue factory on a compiled module (it would fetch the wasm itself otherwise). For the
 * threaded glue, the pthread workers it makes while the factory runs are ours (see workerClass): a worker
 * that fails to load rejects here instead of leaving the glue waiting for it forever.
 */
async function startCore(factory, module, settings) {
  let failed;
  const instantiated = new Promise((resolve, reject) => (failed = reject));
  const options = {
    ...settings,
    instantiateWasm(imports, receive) {
      WebAssembly.instantiate(module, imports).then((instance) => receive(instance, module), failed);
      return {};
    },
  };
  const pageWorker = globalThis.Worker;
  if (settings.threads) globalThis.Worker = workerClass(pageWorker, (error) => failed(new Error(`a thread of the core did not start: ${error?.message ?? 'its script failed to load'}`)));
  let started;
  try {
    started = factory(options);
  } finally {
    if (settings.threads && pageWorker) globalThis.Worker = pageWorker;
    else if (settings.threads) delete globalThis.Worker;
  }
  return Promise.race([started, instantiated]);
}

/** The Worker class for the glue's pthread pool: the browser's, or one over Node's worker_threads. */
function workerClass(BrowserWorker, onError) {
  if (!globalThis.process?.versions?.node) {
    return class extends BrowserWorker {
      constructor(url, options) {
        super(url, options);
        this.addEventListener('error', onError);
      }
    };
  }
  const { Worker: NodeWorker } = globalThis.process.getBuiltinModule('node:worker_threads');
  const { readFileSync } = globalThis.process.getBuiltinModule('node:fs');
  return class {
    #worker;
    constructor(url) {
      const source = readFileSync(new URL(url), 'utf8');
      this.#worker = new NodeWorker(NODE_WORKER_SCOPE, { eval: true, workerData: { source } });
      this.#worker.on('message', (data) => {
        if (data?.cmd === 'loaded') this.#worker.unref(); // loaded: an idle thread must not keep Node running
        this.onmessage?.({ data });
      });
      this.#worker.on('error', onError);
    }
    postMessage(message, transfer) {
      this.#worker.postMessage(message, transfer);
    }
    terminate() {
      this.#worker.terminate();
    }
  };
}

// What a pthread worker of the glue expects of a Web Worker's scope, over node:worker_threads.
const NODE_WORKER_SCOPE = `
const { parentPort, workerData } = process.getBuiltinModule('node:worker_threads');
globalThis.self = globalThis;
globalThis.postMessage = (message) => parentPort.postMessage(message);
parentPort.on('message', (data) => self.onmessage({ data }));
(0, eval)(workerData.source);
`;

// The poetry model of loadPoemModel: URLs in the form bundlers follow, so an app's build copies the files.
const POEM_MODEL_URL = new URL('../model/poems.safetensors', import.meta.url);
const POEM_CARD_URL = new URL('../model/poems.card.json', import.meta.url);

/** A file's bytes from its URL (in Node a file: URL is read from disk); LOAD_FAILED when it cannot be had. */
async function fetchBytes(address) {
  let url;
  try {
    url = new URL(String(address), globalThis.location?.href);
    if (url.protocol === 'file:') {
      const { readFile } = globalThis.process.getBuiltinModule('node:fs/promises'); // see compileCore
      return new Uint8Array(await readFile(url));
    }
    const response = await fetch(url);
    if (!response.ok) throw new Error(`it answered HTTP ${response.status}`);
    return new Uint8Array(await response.arrayBuffer());
  } catch (error) {
    throw new MHAError('LOAD_FAILED', `could not load ${url?.href ?? String(address)}: ${error?.message ?? error}`);
  }
}

/** A WebAssembly.Module from a module, bytes, or a URL (fetched; in Node a file: URL is read from disk). */
async function compileCore(wasm) {
  if (wasm instanceof WebAssembly.Module) return wasm;
  if (wasm instanceof ArrayBuffer || ArrayBuffer.isView(wasm)) return WebAssembly.compile(wasm);
  const url = new URL(String(wasm), globalThis.location?.href);
  if (url.protocol === 'file:') {
    // Node's fetch cannot read files. getBuiltinModule is a call, not an import, so bundlers
    // building for the browser see no Node built-in here.
    const { readFile } = globalThis.process.getBuiltinModule('node:fs/promises');
    return WebAssembly.compile(await readFile(url));
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url.href} answered HTTP ${response.status}`);
  // Streaming compiles while downloading but needs the application/wasm type; other servers get bytes.
  if (response.headers.get('Content-Type')?.split(';')[0].trim() === 'application/wasm') return WebAssembly.compileStreaming(response);
  return WebAssembly.compile(await response.arrayBuffer());
}

class Attention {
  #core;
  #module;
  #scratch; // where the core writes what it hands back by pointer (c/wasm_exports.c's wasm_results)
  #randomStates = new FinalizationRegistry((ptr) => this.#core._wasm_free(ptr));

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
    const { dModel, heads, maxLen } = checkOptions('createLayer', options, ['dModel', 'heads', 'maxLen']);
    const args = [intArg('d_model', dModel), intArg('heads', heads), intArg('maxLen', maxLen)];
    const core = this.#single && !this.#core._wasm_layer_may_thread(args[0], args[2]) ? this.#single : this.#core;
    const ptr = core._wasm_layer_create(...args);
    if (!ptr) throw coreError(core);
    return new Layer(core, ptr, { dModel, heads, maxLen });
  }

  /**
   * A trainer for the "two views" task (c/train.h): token + position embeddings → this attention
   * layer → a read-out that predicts, at every position, the previous token and the first token.
   * Defaults: dModel 8, seqLen 8, vocab 16, seed 0, lr 0.01, batch 32, evalCount 256, causal and scale on.
   */
  createTrainer(options) {
    const { heads, dModel = 8, seqLen = 8, vocab = 16, seed = 0, lr = 0.01, batch = 32, evalCount = 256, causal = true, scale = true } =
      checkOptions('createTrainer', options, ['heads', 'dModel', 'seqLen', 'vocab', 'seed', 'lr', 'batch', 'evalCount', 'causal', 'scale']);
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
    const scratch = core._wasm_malloc(trainerScratch(core, heads, seqLen).bytes);
    if (!scratch) {
      core._wasm_trainer_destroy(ptr);
      throw new MHAError('OUT_OF_MEMORY', 'not enough memory for a trainer');
    }
    return new Trainer(core, ptr, scratch, { heads, dModel, seqLen, vocab, seed, lr, batch, evalCount, causal: Boolean(causal), scale: Boolean(scale) });
  }

  /**
   * A GPT-2-style model from a .safetensors file (c/gpt.h): Hugging Face GPT-2's tensor names and layouts, F32 or
   * F16. The file is its bytes (an ArrayBuffer or Uint8Array) or a Blob (a File the learner picked), which is read
   * a slice at a time straight into the model's weights, so a 548 MB GPT-2 never sits in JavaScript memory whole.
   * Layers, dModel, context and vocabSize come from the shapes; heads from the options, else the file's
   * __metadata__ n_head, else GPT-2's own sizes. onProgress(bytesRead, fileSize) follows the reading. A broken,
   * misshaped or non-finite file rejects with BAD_MODEL naming the problem; a Blob that cannot be read with
   * LOAD_FAILED. The weights are copied into the wasm heap once; the file can be dropped after.
   */
  async loadModel(source, options) {
    const { heads, onProgress } = checkOptions('loadModel', options, ['heads', 'onProgress']);
    const headsArg = heads == null ? 0 : intArg('heads', heads);
    if (onProgress != null && typeof onProgress !== 'function') throw new MHAError('BAD_ARGUMENT', `onProgress must be a function, got ${describe(onProgress)}`);
    const core = this.#core;
    const file = modelFile(source, core);
    // The header's length is the file's first 8 bytes (little-endian); the core checks it again.
    const first8 = await file.read(0, Math.min(file.size, 8));
    const declared = first8.length === 8 ? new DataView(first8.buffer, first8.byteOffset, 8).getBigUint64(0, true) : 0n;
    const headLength = Math.min(file.size, 8 + (declared <= MAX_MODEL_HEADER ? Number(declared) : 0));
    const headBytes = await file.read(0, headLength);
    const head = core._wasm_malloc(Math.max(headLength, 1));
    if (!head) throw new MHAError('OUT_OF_MEMORY', `not enough memory for a header of ${headLength} bytes`);
    core.HEAPU8.set(headBytes, head);
    const loader = core._wasm_gpt_load_begin(head, headLength, file.size, headsArg);
    core._wasm_free(head);
    if (!loader) throw coreError(core);
    // Each tensor's bytes straight from the file to where the model keeps them (the core widens F16 in place).
    try {
      let read = headLength;
      for (let i = 0, copies = core._wasm_gpt_loader_copies(loader); i < copies; i++) {
        const dest = core._wasm_gpt_loader_copy(loader, i, this.#scratch);
        const [offset, length] = new Float64Array(core.HEAPF64.buffer, this.#scratch, 2);
        for (let done = 0; done < length; done += MODEL_READ_BYTES) {
          const part = await file.read(offset + done, Math.min(MODEL_READ_BYTES, length - done));
          core.HEAPU8.set(part, dest + done); // HEAPU8 afresh: the heap may have grown while the slice was read
          read += part.length;
          onProgress?.(read, file.size);
        }
      }
    } catch (error) {
      core._wasm_gpt_loader_destroy(loader);
      throw error;
    }
    const ptr = core._wasm_gpt_load_finish(loader);
    if (!ptr) throw coreError(core);
    core._wasm_gpt_config(ptr, this.#scratch);
    const [layers, headCount, dModel, context, vocabSize] = new Int32Array(core.HEAPU8.buffer, this.#scratch, 5);
    const config = { layers, heads: headCount, dModel, context, vocabSize };
    const staging = core._wasm_malloc(4 * context + layers * headCount); // the tokens, then one byte per head
    if (!staging) {
      core._wasm_gpt_destroy(ptr);
      throw new MHAError('OUT_OF_MEMORY', 'not enough memory for a model');
    }
    const metadata = {};
    for (let i = 0, count = core._wasm_gpt_metadata_count(ptr); i < count; i++) {
      metadata[cString(core, core._wasm_gpt_metadata(ptr, i, 0))] = cString(core, core._wasm_gpt_metadata(ptr, i, 1));
    }
    return new Model(core, ptr, staging, config, metadata);
  }

  /**
   * The lesson's poetry model (web/model/train.js made it): { model, encode(text) → Int32Array, decode(ids) →
   * string, card }. encode gives one token per character, the unknown token for characters outside the
   * vocabulary; the card (poems.card.json) says what it was trained on and what it measures. The files come
   * from web/model/ beside this module, or from the URLs given; one that cannot be fetched rejects with
   * LOAD_FAILED, a broken model file with BAD_MODEL.
   */
  async loadPoemModel(options) {
    const { model: modelUrl = POEM_MODEL_URL, card: cardUrl = POEM_CARD_URL } = checkOptions('loadPoemModel', options, ['model', 'card']);
    const [bytes, cardBytes] = await Promise.all([fetchBytes(modelUrl), fetchBytes(cardUrl)]);
    let card;
    try {
      card = JSON.parse(new TextDecoder().decode(cardBytes));
    } catch (error) {
      throw new MHAError('LOAD_FAILED', `the poetry model's card is not JSON: ${error.message}`);
    }
    const model = await this.loadModel(bytes);
    let vocabulary;
    try {
      vocabulary = JSON.parse(model.metadata.vocabulary);
    } catch {
      // checked below
    }
    const unknownId = Number(model.metadata.unknown_id);
    if (!Array.isArray(vocabulary) || vocabulary.length !== model.config.vocabSize || !vocabulary.every((token) => typeof token === 'string') ||
        !Number.isInteger(unknownId) || unknownId < 0 || unknownId >= vocabulary.length) {
      model.dispose();
      throw new MHAError('BAD_MODEL', `the poetry model's __metadata__ needs "vocabulary", a JSON list of its ${model.config.vocabSize} tokens, and "unknown_id", the token of characters outside it`);
    }
    const ids = new Map(vocabulary.map((token, id) => [token, id]));
    return {
      model,
      encode: (text) => Int32Array.from(String(text), (char) => ids.get(char) ?? unknownId),
      decode: (tokens) => Array.from(tokens, (id) => vocabulary[id] ?? '').join(''),
      card,
    };
  }

  /** The lesson's bill: naive = h·3·d², split = 3·d² + d². */
  paramCount(options) {
    const { dModel, heads } = checkOptions('paramCount', options, ['dModel', 'heads']);
    const status = this.#core._wasm_param_count(intArg('d_model', dModel), intArg('heads', heads), this.#scratch);
    if (status) throw this.lastError();
    const [naive, split] = new Float64Array(this.#core.HEAPF64.buffer, this.#scratch, 2);
    return { naive, split };
  }

  /** numpy's legacy np.random.RandomState(seed), giving numpy's exact doubles. */
  randomState(seed) {
    if (!Number.isInteger(seed) || seed < 0 || seed > 2 ** 32 - 1) {
      throw new MHAError('BAD_ARGUMENT', `seed must be a whole number from 0 to 4294967295, got ${describe(seed)}`);
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

  /** Current size of the wasm heap in bytes (both heaps' beside a threaded core). */
  memoryBytes() {
    return this.#core.HEAPU8.buffer.byteLength + (this.#single?.HEAPU8.buffer.byteLength ?? 0);
  }

  /** The MHAError for the core's last failing call. */
  lastError() {
    return coreError(this.#core);
  }
}

/**
 * What a forward leaves to look at, for a Layer and for a Trainer's example alike: each call returns a
 * fresh Float32Array view into the wasm heap, valid until the next call on its owner.
 */
class ForwardViews {
  #view; // (tensor id, head, count) → a checked, fresh view
  #rows; // () → L of the forward

  constructor(view, rows) {
    this.#view = view;
    this.#rows = rows;
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

  k() {
    return this.#view(TENSOR.k, 0, this.#rows() * this.dModel);
  }

  v() {
    return this.#view(TENSOR.v, 0, this.#rows() * this.dModel);
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
function tensorView(core, layer, id, head, count, heads, owner) {
  if (!Number.isInteger(head) || head < 0 || head >= heads) {
    throw new MHAError('HEAD_INDEX', `head ${describe(head)} does not exist: this ${owner} has heads 0 to ${heads - 1}`);
  }
  const ptr = core._wasm_tensor(layer, id, head);
  if (!ptr) throw coreError(core);
  // A fresh view every time: the heap's buffer is replaced whenever it grows.
  return new Float32Array(core.HEAPF32.buffer, ptr, count);
}

/**
 * Runs a forward; when anything refuses it (a check in JavaScript or the core), `forget` drops the owner's
 * last results, so a caller never reads the forward before this one as if it were this one's.
 */
function forgettingOnFailure(forward, forget) {
  try {
    return forward();
  } catch (error) {
    forget();
    throw error;
  }
}

const layerRegistry = new FinalizationRegistry(({ core, ptr }) => core._wasm_layer_destroy(ptr));

class Layer extends ForwardViews {
  #core;
  #ptr; // the export layer's handle: the core's layer plus staging for the inputs
  #layer; // the core's layer, whose tensors we read

  constructor(core, ptr, { dModel, heads, maxLen }) {
    super((id, head, count) => tensorView(this.#live(), this.#layer, id, head, count, this.heads, 'layer'), () => this.length);
    this.#core = core;
    this.#ptr = ptr;
    this.#layer = core._wasm_layer_core(ptr);
    this.dModel = dModel;
    this.heads = heads;
    this.dK = dModel / heads;
    this.maxLen = maxLen;
    /** L of the last forward (0 before the first, and after one that was refused). */
    this.length = 0;
    layerRegistry.register(this, { core, ptr }, this);
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
    this.#live();
    return forgettingOnFailure(() => this.#forward(options), () => {
      if (this.#ptr) this.#core._wasm_layer_forget(this.#layer);
      this.length = 0;
    });
  }

  #forward(options) {
    const { x, wq, wk, wv, q, k, v, wo, causal = true, scale = true, enabled, plain = false } =
      checkOptions('forward', options, LAYER_FORWARD_OPTIONS);
    // Every input is read and checked into memory of our own first: an array's getter may run any code,
    // even dispose this layer or grow the heap, and must not find us half-way through the wasm memory.
    const d = this.dModel;
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
      ? [[SLOT.xOrQ, first], [SLOT.wq, weight('wq', wq, d)], [SLOT.wk, weight('wk', wk, d)], [SLOT.wv, weight('wv', wv, d)]]
      : [[SLOT.xOrQ, first], [SLOT.k, sameLength('k', k, first.length)], [SLOT.v, sameLength('v', v, first.length)]];
    if (wo != null) inputs.push([SLOT.wo, weight('wo', wo, d)]);
    const heads = enabledHeads(enabled, this.heads);
    const flags = (causal ? FLAG.causal : 0) | (scale ? FLAG.scale : 0) | (plain ? FLAG.plain : 0);

    const core = this.#live(); // a getter above may have disposed it
    for (const [slot, values] of inputs) {
      // A Float32Array view of the wasm heap is detached if a getter above grew the heap.
      if (values.length !== (slot === SLOT.wq || slot === SLOT.wk || slot === SLOT.wv || slot === SLOT.wo ? d * d : L * d)) {
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
    if (!this.#ptr) return;
    this.#core._wasm_layer_destroy(this.#ptr);
    layerRegistry.unregister(this);
    this.#ptr = 0;
  }

  #live() {
    if (!this.#ptr) throw new MHAError('DISPOSED', 'this layer was disposed; create a new one with createLayer');
    return this.#core;
  }

  /** SEQ_TOO_LONG for `count` numbers in `rows` rows (count / dModel when not given), or BAD_LENGTH when they are no whole rows. */
  #tooLong(name, count, rows = count / this.dModel) {
    return Number.isInteger(rows)
      ? new MHAError('SEQ_TOO_LONG', `the sequence has ${rows} tokens but this layer was created with maxLen ${this.maxLen}`)
      : new MHAError('BAD_LENGTH', `${name} has ${count} numbers, which is not a whole number of rows of d_model ${this.dModel}`);
  }

  #staging(slot) {
    const ptr = this.#core._wasm_layer_staging(this.#ptr, slot);
    if (!ptr) throw new MHAError('BAD_INPUT', `the layer has no staging buffer ${slot}`); // never write at address 0
    return ptr;
  }

}

// ---- A real model: the Model of loadModel (c/gpt.h, exported by c/wasm_exports.c) ----

// The longest header a .safetensors file may declare (c/safetensors.h's ST_MAX_HEADER_BYTES).
const MAX_MODEL_HEADER = 16n << 20n;

// A Blob is read this many bytes at a time: what JavaScript holds of the file at once.
const MODEL_READ_BYTES = 16 << 20;

/** { size, read(offset, length) → Uint8Array } over the bytes or the Blob given to loadModel. */
function modelFile(source, core) {
  if (typeof Blob !== 'undefined' && source instanceof Blob) {
    return {
      size: source.size,
      async read(offset, length) {
        let bytes;
        try {
          bytes = new Uint8Array(await source.slice(offset, offset + length).arrayBuffer());
        } catch (error) {
          throw new MHAError('LOAD_FAILED', `could not read the model file at byte ${offset}: ${error?.message ?? error}`);
        }
        if (bytes.length !== length) throw new MHAError('LOAD_FAILED', `the model file changed while it was read: byte ${offset + bytes.length} is gone`);
        return bytes;
      },
    };
  }
  if (!(source instanceof ArrayBuffer) && !ArrayBuffer.isView(source)) {
    throw new MHAError('BAD_ARGUMENT', `loadModel takes a .safetensors file: a Blob, an ArrayBuffer or a Uint8Array, got ${describe(source)}`);
  }
  let bytes = source instanceof ArrayBuffer ? new Uint8Array(source) : new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  if (bytes.buffer === core.HEAPU8.buffer) bytes = bytes.slice(); // a view of the heap would be detached when it grows
  return { size: bytes.length, read: async (offset, length) => bytes.subarray(offset, offset + length) };
}

const modelRegistry = new FinalizationRegistry(({ core, ptr, staging }) => {
  core._wasm_gpt_destroy(ptr);
  core._wasm_free(staging);
});

/**
 * A GPT-2-style model in the wasm heap. attention() and logits() return views into the heap holding the last
 * forward: valid until the next call on this model (or anything that grows the heap); copy what you keep.
 */
class Model {
  #core;
  #ptr;
  #staging; // context int32 token ids, then layers·heads bytes: 1 = head on

  constructor(core, ptr, staging, config, metadata) {
    this.#core = core;
    this.#ptr = ptr;
    this.#staging = staging;
    /** { layers, heads, dModel, context, vocabSize } */
    this.config = Object.freeze(config);
    /** The file's __metadata__ strings (n_head; for the lesson's model, its vocabulary). */
    this.metadata = Object.freeze(metadata);
    /** L of the last forward (0 before the first, and after one that was refused). */
    this.length = 0;
    /** Positions the last forward took from the one before (see forward). */
    this.reused = 0;
    modelRegistry.register(this, { core, ptr, staging }, this);
  }

  /**
   * Runs 1 .. context token ids (an Int32Array or an array of whole numbers); `disabled` lists [layer, head]
   * pairs to switch off: their outputs become zeros before the block's c_proj. The positions that the ids
   * share at the start with the last forward's (with the same heads off) are not computed again: in a causal
   * model they depend on those ids alone, so their keys, values, attention and logits are kept, and a text
   * typed one token at a time costs one new position per block. The numbers are the same bits either way.
   * A forward refused here, as one the core refuses, leaves no result: NO_FORWARD until the next.
   */
  forward(ids, options) {
    this.#live();
    return forgettingOnFailure(() => this.#forward(ids, options), () => {
      if (this.#ptr) this.#core._wasm_gpt_forget(this.#ptr);
      this.length = 0;
      this.reused = 0;
    });
  }

  #forward(ids, options) {
    const { disabled } = checkOptions('forward', options, ['disabled']);
    const { layers, heads, context, vocabSize } = this.config;
    const length = arrayLength('ids', ids, context,
      (count) => new MHAError('SEQ_TOO_LONG', `the sequence has ${count} tokens but this model's context is ${context}`));
    if (length === 0) throw new MHAError('BAD_SIZE', 'the sequence is empty; give at least one token');
    const tokens = new Int32Array(length);
    for (let i = 0; i < length; i++) {
      const id = ids[i];
      if (!Number.isInteger(id)) throw new MHAError('BAD_ARGUMENT', `ids[${i}] must be a whole number, got ${describe(id)}`);
      if (id < 0 || id >= vocabSize) { // checked here too: wasm would wrap 2³² to 0
        throw new MHAError('TOKEN_RANGE', `token ${id} at position ${i} is outside the vocabulary 0 to ${vocabSize - 1}`);
      }
      tokens[i] = id;
    }
    const enabled = new Uint8Array(layers * heads).fill(1);
    if (disabled != null) {
      const count = arrayLength('disabled', disabled, layers * heads * 4);
      for (let i = 0; i < count; i++) {
        const pair = disabled[i];
        const [layer, head] = Array.isArray(pair) && pair.length === 2 ? pair : [];
        if (!Number.isInteger(layer) || !Number.isInteger(head)) {
          throw new MHAError('BAD_ARGUMENT', `disabled[${i}] must be a [layer, head] pair of whole numbers, got ${describe(pair)}`);
        }
        this.#checkHead(layer, head);
        enabled[layer * heads + head] = 0;
      }
    }
    const core = this.#live(); // a getter of ids may have disposed it
    new Int32Array(core.HEAPU8.buffer, this.#staging, length).set(tokens);
    core.HEAPU8.set(enabled, this.#staging + 4 * context);
    const status = core._wasm_gpt_forward_reusing(this.#ptr, this.#staging, length, this.#staging + 4 * context);
    this.length = core._wasm_gpt_len(this.#ptr);
    this.reused = core._wasm_gpt_reused(this.#ptr);
    if (status) throw coreError(core);
    return this;
  }

  /** The softmax weights of `head` in block `layer` of the last forward, L×L; masked entries are exactly 0. */
  attention(layer, head) {
    const core = this.#live();
    this.#checkHead(layer, head);
    const ptr = core._wasm_gpt_attention(this.#ptr, layer, head);
    if (!ptr) throw coreError(core);
    return new Float32Array(core.HEAPF32.buffer, ptr, this.length ** 2);
  }

  /** The last forward's logits, L×vocabSize: row r scores every token as the one after position r. */
  logits() {
    const core = this.#live();
    const ptr = core._wasm_gpt_logits(this.#ptr);
    if (!ptr) throw coreError(core);
    return new Float32Array(core.HEAPF32.buffer, ptr, this.length * this.config.vocabSize);
  }

  /** Frees the model; later calls throw DISPOSED. */
  dispose() {
    if (!this.#ptr) return;
    this.#core._wasm_gpt_destroy(this.#ptr);
    this.#core._wasm_free(this.#staging);
    modelRegistry.unregister(this);
    this.#ptr = 0;
  }

  #live() {
    if (!this.#ptr) throw new MHAError('DISPOSED', 'this model was disposed; load it again with loadModel');
    return this.#core;
  }

  #checkHead(layer, head) {
    const { layers, heads } = this.config;
    if (!Number.isInteger(layer) || layer < 0 || layer >= layers) {
      throw new MHAError('HEAD_INDEX', `layer ${describe(layer)} does not exist: this model has layers 0 to ${layers - 1}`);
    }
    if (!Number.isInteger(head) || head < 0 || head >= heads) {
      throw new MHAError('HEAD_INDEX', `head ${describe(head)} does not exist: this model has heads 0 to ${heads - 1}`);
    }
  }
}

// ---- Training: the Trainer of createTrainer (c/train.h, exported by c/wasm_exports.c) ----

// The parameter blocks of c/train.h's mha_train_param, in its order.
const TRAIN_PARAMS = ['tokenEmbedding', 'positionEmbedding', 'wq', 'wk', 'wv', 'wo', 'readout', 'readoutBias'];

/**
 * A trainer's scratch in the wasm heap, for what crosses by pointer: the byte offset of each part.
 *   results     what a call hands back (c/wasm_exports.c's wasm_results): an evaluation, a block's shape
 *   enabled     h bytes: which heads are on
 *   tokens      2·seqLen ints: the example's tokens, or its predictions
 */
function trainerScratch(core, heads, seqLen) {
  const enabled = Math.ceil(core._wasm_results_bytes() / 8) * 8;
  const tokens = enabled + Math.ceil(heads / 8) * 8;
  return { results: 0, enabled, tokens, bytes: tokens + 8 * seqLen };
}

const trainerRegistry = new FinalizationRegistry(({ core, ptr, scratch }) => {
  core._wasm_trainer_destroy(ptr);
  core._wasm_free(scratch);
});


/**
 * A small model that learns, in the wasm heap, which view each head takes. Arrays it returns are views
 * into the heap (like a Layer's): valid until the next call on this trainer; copy what you keep.
 */
class Trainer extends ForwardViews {
  #core;
  #ptr;
  #scratch; // the base address of a trainerScratch layout
  #at; // its parts' byte offsets
  #version = 0; // bumped whenever the weights or the example change
  #shown = -1; // the version the example layer was last run for
  #layer = 0;

  constructor(core, ptr, scratch, options) {
    super((id, head, count) => tensorView(this.#live(), this.#exampleLayer(), id, head, count, this.heads, 'trainer'), () => this.seqLen);
    this.#core = core;
    this.#ptr = ptr;
    this.#scratch = scratch;
    this.#at = trainerScratch(core, options.heads, options.seqLen);
    Object.assign(this, options);
    this.dK = options.dModel / options.heads;
    /** Every parameter together; the same for every h at one dModel (the lesson's point). */
    this.paramCount = core._wasm_trainer_param_count(ptr);
    trainerRegistry.register(this, { core, ptr, scratch }, this);
  }

  /** n training steps (one fresh batch and one Adam update each); returns the last batch's loss. */
  step(n = 1) {
    const core = this.#live();
    const count = intArg('n', n, 0);
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
  evaluate(options) {
    const heads = this.#enabledOption('evaluate', options);
    const core = this.#core;
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
    const core = this.#live();
    return Array.from(new Int32Array(core.HEAPU8.buffer, core._wasm_trainer_example(this.#ptr), this.seqLen));
  }

  /** Sets the example sentence: seqLen token ids from 0 to vocab-1. */
  setExample(tokens) {
    this.#live();
    const length = arrayLength('the example', tokens, this.seqLen);
    if (length !== this.seqLen) {
      throw new MHAError('BAD_LENGTH', `the example must have seqLen = ${this.seqLen} tokens, got ${describe(tokens)}`);
    }
    const ints = new Int32Array(this.seqLen);
    for (let i = 0; i < ints.length; i++) {
      const token = tokens[i];
      if (!Number.isInteger(token)) throw new MHAError('BAD_ARGUMENT', `token [${i}] must be a whole number, got ${describe(token)}`);
      if (token < 0 || token >= this.vocab) { // checked here too: wasm would wrap 2³² to 0
        throw new MHAError('BAD_INPUT', `token ${token} at position ${i} is outside the vocabulary 0 to ${this.vocab - 1}`);
      }
      ints[i] = token;
    }
    const core = this.#live(); // a getter of `tokens` may have disposed it
    new Int32Array(core.HEAPU8.buffer, this.#scratch + this.#at.tokens, this.seqLen).set(ints);
    const status = core._wasm_trainer_set_example(this.#ptr, this.#scratch + this.#at.tokens);
    if (status) throw coreError(core);
    this.#version++;
    return this;
  }

  /** The trained model's guesses on the example: previous[r] and first[r], the most likely token ids. */
  predict(options) {
    const heads = this.#enabledOption('predict', options);
    const core = this.#core;
    const status = core._wasm_trainer_example_predict(this.#ptr, heads, this.#scratch + this.#at.tokens);
    if (status) throw coreError(core);
    const both = new Int32Array(core.HEAPU8.buffer, this.#scratch + this.#at.tokens, 2 * this.seqLen);
    return { previous: Array.from({ length: this.seqLen }, (_, r) => both[2 * r]), first: Array.from({ length: this.seqLen }, (_, r) => both[2 * r + 1]) };
  }

  /**
   * The current weights, row-major Float32Array views: tokenEmbedding (vocab × dModel),
   * positionEmbedding (seqLen × dModel), wq, wk, wv, wo (dModel × dModel), readout (dModel × 2·vocab:
   * the previous-token logits, then the first-token logits), readoutBias (2·vocab).
   */
  weights() {
    const core = this.#live();
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

  /**
   * The `enabled` option of `call`, read and checked first, then written into this trainer's scratch:
   * the address to pass, or 0 for all heads on.
   */
  #enabledOption(call, options) {
    this.#live();
    const { enabled } = checkOptions(call, options, ['enabled']);
    const bytes = enabled == null ? null : enabledHeads(enabled, this.heads);
    const core = this.#live(); // a getter may have disposed this trainer meanwhile
    if (!bytes) return 0;
    core.HEAPU8.set(bytes, this.#scratch + this.#at.enabled);
    return this.#scratch + this.#at.enabled;
  }

  /** The core layer holding the example's forward with the current weights, run again only when they changed. */
  #exampleLayer() {
    if (this.#shown !== this.#version) {
      this.#layer = this.#core._wasm_trainer_example_layer(this.#ptr, 0);
      if (!this.#layer) throw coreError(this.#core);
      this.#shown = this.#version;
    }
    return this.#layer;
  }
}

/**
 * A size or count for the core: a whole number from `min` to 2³¹−1, checked here because wasm would
 * silently wrap anything else (2³² + 4 becomes 4).
 */
function intArg(name, value, min = 1) {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    const what = min === 0 ? 'a whole number ≥ 0' : 'a positive whole number';
    throw new MHAError('BAD_SIZE', `${name} must be ${what}, got ${describe(value)}`);
  }
  if (value > INT32_MAX) throw new MHAError('TOO_LARGE', `${name} ${value} is far too large`);
  return value;
}

/**
 * The options object of `call`, rejecting keys it does not know (a typo such as `casual` would otherwise
 * be ignored without a word) and naming the likely intended one.
 */
const LAYER_FORWARD_OPTIONS = ['x', 'wq', 'wk', 'wv', 'q', 'k', 'v', 'wo', 'causal', 'scale', 'enabled', 'plain']; // one array, not one per call

function checkOptions(call, options, known) {
  if (options === undefined) return {};
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new MHAError('BAD_ARGUMENT', `${call} takes an options object, got ${describe(options)}`);
  }
  const keys = Object.keys(options);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (known.includes(key)) continue;
    const guess = likelyOption(key, known);
    throw new MHAError('BAD_ARGUMENT', `unknown option '${key}' for ${call}${guess ? `; did you mean '${guess}'?` : ''} (it takes ${known.join(', ')})`, { option: key, suggestion: guess });
  }
  return options;
}

// What PyTorch and the lesson's numpy code call some options.
const OPTION_ALIASES = { is_causal: 'causal', attn_mask: 'causal', mask: 'causal', d_model: 'dModel', embed_dim: 'dModel', num_heads: 'heads', n_heads: 'heads', h: 'heads', max_len: 'maxLen', seq_len: 'seqLen' };

/** The known option `key` most likely meant: an alias, the same letters in another case, or one within two edits. */
function likelyOption(key, known) {
  if (known.includes(OPTION_ALIASES[key])) return OPTION_ALIASES[key];
  const lower = key.toLowerCase().replace(/[_-]/g, '');
  const sameLetters = known.find((name) => name.toLowerCase() === lower);
  if (sameLetters) return sameLetters;
  let best, bestDistance = 3;
  for (const name of known) {
    const distance = editDistance(key.slice(0, 64), name);
    if (distance < bestDistance) [best, bestDistance] = [name, distance];
  }
  return best;
}

/** Levenshtein distance, counting a swap of two neighbouring letters as one edit ('casual' → 'causal'). */
function editDistance(a, b) {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      rows[i][j] = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) rows[i][j] = Math.min(rows[i][j], rows[i - 2][j - 2] + 1);
    }
  }
  return rows[a.length][b.length];
}

function shapeSize(shape) {
  let size = 1;
  for (const n of shape) {
    if (!Number.isInteger(n) || n < 0) throw new MHAError('BAD_ARGUMENT', `a shape needs whole numbers ≥ 0, got ${describe(n)}`);
    size *= n;
  }
  if (size > MAX_RANDOM_DRAW) throw new MHAError('TOO_LARGE', `${size} random numbers at once is too many (at most ${MAX_RANDOM_DRAW})`);
  return size;
}

const overLimit = (name, limit) => (count) => new MHAError('BAD_LENGTH', `${name} has ${count} numbers, more than the ${limit} this call can take`);

/**
 * The `length` of an array-like, checked before anything is allocated for it: a whole number up to `limit`
 * (beyond it, the error `tooMany(length)` makes).
 */
function arrayLength(name, value, limit, tooMany = overLimit(name, limit)) {
  if (value == null || typeof value !== 'object') {
    throw new MHAError('BAD_ARGUMENT', `${name} must be an array of numbers (flat or rows), got ${describe(value)}`);
  }
  const length = value.length;
  if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0) {
    throw new MHAError('BAD_LENGTH', `${name} must be an array, but its length is ${describe(length)}`);
  }
  if (length > limit) throw tooMany(length);
  return length;
}

/**
 * Accepts a Float32Array, any array-like of numbers, or rows of numbers, of at most `limit` numbers;
 * returns a flat Float32Array: a real one as it is (its entries cannot run code), anything else copied,
 * each entry read once.
 */
function toFloat32(name, value, limit, tooMany = overLimit(name, limit)) {
  if (value instanceof Float32Array && ArrayBuffer.isView(value)) { // isView: no Proxy in disguise
    if (value.length > limit) throw tooMany(value.length);
    return value;
  }
  const rows = arrayLength(name, value, limit, tooMany);
  const first = rows > 0 ? value[0] : undefined;
  if (!Array.isArray(value) || !Array.isArray(first)) return numbers(name, value, -1, rows, first);
  const width = arrayLength(`${name}[0]`, first, limit);
  if (rows * width > limit) throw tooMany(rows * width, rows);
  const flat = new Float32Array(rows * width);
  for (let r = 0; r < rows; r++) {
    const row = r === 0 ? first : value[r];
    const length = Array.isArray(row) ? row.length : undefined;
    if (length !== width) {
      throw new MHAError('BAD_LENGTH', `${name} has rows of different lengths: row 0 has ${width} numbers, row ${r} has ${length ?? describe(row)}`);
    }
    flat.set(numbers(name, row, r, width), r * width);
  }
  return flat;
}

/** Reads `length` numbers of an array-like once each (entry 0 may be passed in, already read). */
function numbers(name, values, row, length, first = values[0]) {
  const out = new Float32Array(length);
  for (let i = 0; i < length; i++) {
    const n = i === 0 ? first : values[i];
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
  const w = toFloat32(name, value, d * d);
  if (w.length !== d * d) {
    throw new MHAError('BAD_LENGTH', `${name} must be d_model × d_model = ${d}×${d} = ${d * d} numbers, got ${w.length}`);
  }
  return w;
}

function sameLength(name, value, length) {
  if (value == null) throw new MHAError('BAD_INPUT', `QKV mode needs q, k and v; ${name} is missing`);
  const a = toFloat32(name, value, Math.max(length, 1));
  if (a.length !== length) {
    throw new MHAError('BAD_LENGTH', `q, k and v must have the same size: q has ${length} numbers, ${name} has ${a.length}`);
  }
  return a;
}

function enabledHeads(enabled, heads) {
  if (enabled == null) return new Uint8Array(heads).fill(1);
  const length = typeof enabled === 'object' ? enabled.length : undefined;
  if (length !== heads) {
    throw new MHAError('BAD_LENGTH', `enabled must list one true/false per head (${heads}), got ${describe(enabled)}`);
  }
  const bytes = new Uint8Array(heads);
  for (let i = 0; i < heads; i++) bytes[i] = enabled[i] ? 1 : 0;
  return bytes;
}

function describe(value) {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (value && typeof value === 'object') return value.constructor?.name ?? 'an object';
  return String(value);
}

/** The MHAError for the core's last failing call: its status code, sentence and, when it has one, place. */
function coreError(core) {
  const code = cString(core, core._wasm_status_name(core._wasm_last_status()));
  const at = core._wasm_malloc(core._wasm_results_bytes());
  const name = at ? core._wasm_last_error_place(at) : 0;
  let details;
  if (name) {
    const [head, row, column] = new Int32Array(core.HEAPU8.buffer, at, 3);
    details = { name: cString(core, name), row, column };
    if (head >= 0) details.head = head;
    if (column < 0) delete details.column;
  }
  core._wasm_free(at);
  return new MHAError(code, cString(core, core._wasm_last_error()), details);
}

function cString(core, ptr) {
  const bytes = core.HEAPU8;
  let end = ptr;
  while (bytes[end]) end++;
  return new TextDecoder().decode(bytes.slice(ptr, end)); // a copy: TextDecoder refuses shared memory
}
