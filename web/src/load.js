// loadAttention: fetches, compiles and starts the wasm core (the threaded one beside the single-threaded one
// where it can run, their fused multiply-add builds where the engine has them) once, and hands back the
// Attention of instance.js over it; threadsAvailable and fmaAvailable say which cores can run here. The only
// module that knows the Emscripten glue (web/dist/mha-core*.mjs): the others call the started core's exports.
import createMhaCore, { coreBuild, wasmUrl, threadedUrls, fusedUrls } from '../dist/mha-core.mjs';
import { MHAError, checkOptions, describe, intArg } from './checks.js';
import { fetchFile } from './fetch-file.js';
import { Attention } from './instance.js';

const MAX_THREADS = 8; // past this the lesson's shapes gain nothing; c/lib/mha.h allows 64

/**
 * A loadAttention holding its own instance: attention.js makes the package's one, so every copy of that
 * module (a worker's, or a test's fresh import) loads a core of its own.
 */
export function attentionLoader() {
  let loading;

  /**
   * Loads the wasm core once; every call returns the same instance. `wasm` says where the core comes from
   * (only the first call's counts): a compiled WebAssembly.Module (a worker is handed the page's, see
   * `wasmModule`), the wasm's bytes, or its URL; by default mha-core.wasm beside web/dist/mha-core.mjs, or
   * wherever the app's bundler put it. `threads` (default: one per core, up to 8) > 1 loads the threaded
   * core where it can run (Node, or a cross-origin isolated page: SharedArrayBuffer), with the single-threaded
   * core beside it for layers too small to share a step; elsewhere the core runs on one thread. Beside the
   * threaded core, `fma` (default true) takes both cores' fused multiply-add builds where the engine has
   * relaxed SIMD (fmaAvailable()). A module passed as `wasm` brings its own kind (and comes alone). A core
   * that cannot be fetched, compiled or started, or that is not the build this code was made with (a stale
   * cached wasm, an older release, another module: checkBuild), rejects with LOAD_FAILED.
   */
  return function loadAttention(options = {}) {
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
  };
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
  const { default: createThreaded, coreBuild: glueBuild } = await import(/* @vite-ignore */ /* webpackIgnore: true */ threadedUrls.glue);
  if (glueBuild !== coreBuild) throw otherBuild("the threaded core's script", glueBuild);
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
      // receive throws when the module lacks what the glue reads (its memory): a rejection here, not an unhandled one.
      WebAssembly.instantiate(module, imports).then((instance) => receive(instance, module))
        .catch((error) => failed(new Error(`the wasm did not start as the attention core: ${error?.message ?? error}`)));
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


/**
 * A WebAssembly.Module of this build's core from a module, bytes, or a URL (fetched; in Node a file: URL is
 * read from disk).
 */
async function compileCore(wasm) {
  if (wasm instanceof WebAssembly.Module) return checkBuild(wasm);
  if (wasm instanceof ArrayBuffer || ArrayBuffer.isView(wasm)) return checkBuild(await WebAssembly.compile(wasm));
  // Streaming compiles while downloading but needs the application/wasm type; other servers get bytes.
  return checkBuild(await fetchFile(wasm, async (response) => (response.headers.get('Content-Type')?.split(';')[0].trim() === 'application/wasm'
    ? WebAssembly.compileStreaming(response) : WebAssembly.compile(await response.arrayBuffer()))));
}

/**
 * The module, if build.sh marked it with the build the glue was made with (c/wasm/mark_build.js). The glue calls
 * the wasm's exports by minified names, so another build's wasm would load and then compute wrong numbers.
 */
function checkBuild(module) {
  const [mark] = WebAssembly.Module.customSections(module, 'mha-core-build');
  const build = mark && new TextDecoder().decode(mark);
  if (build !== coreBuild) throw otherBuild('the wasm', build);
  return module;
}

const otherBuild = (what, build) => new Error(`${what} is ${build ? `build ${build} of the attention core` : 'no build of the attention core this code knows (an older release, or another module)'}, `
  + `but this code calls build ${coreBuild}: serve the web/dist/mha-core* files that came with this code (a copy in a cache, or files of two releases mixed?)`);
