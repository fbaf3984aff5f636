// Types for web/src/attention.js, the JS API of the C multi-head attention core.

/** A row-major matrix: flat (length rows × cols) or as rows. */
export type Matrix = Float32Array | Float64Array | ArrayLike<number> | number[][];

export type MHAErrorCode =
  | 'NULL_ARGUMENT' | 'BAD_SIZE' | 'HEADS_NOT_DIVISOR' | 'TOO_LARGE' | 'OUT_OF_MEMORY'
  | 'SEQ_TOO_LONG' | 'NOT_FINITE' | 'BAD_INPUT' | 'HEAD_INDEX' | 'NO_FORWARD'
  | 'BAD_MODEL' | 'TOKEN_RANGE' | 'KV_HEADS_NOT_DIVISOR' | 'BAD_LENGTH' | 'BAD_ARGUMENT' | 'DISPOSED' | 'LOAD_FAILED';

/** Where a NOT_FINITE failure was found: an input ('q', 'wk', …) or a stage that overflowed float32. */
export interface MHAErrorPlace {
  name: 'x' | 'q' | 'k' | 'v' | 'wq' | 'wk' | 'wv' | 'wo' | 'scores' | 'head output' | 'output';
  /** 0-based; only for 'scores' and 'head output'. */
  head?: number;
  row: number;
  /** Absent for 'scores' (the whole query row overflowed). */
  column?: number;
}

/** An unknown option: its name and the known option it most likely meant. */
export interface MHAErrorOption {
  option: string;
  suggestion?: string;
}

/** KV_HEADS_NOT_DIVISOR: the K/V head count asked for and the heads it must divide. */
export interface MHAErrorKVHeads {
  kvHeads: number;
  heads: number;
}

/** Thrown for every bad input; `code` is stable, `message` names the values involved. */
export class MHAError extends Error {
  readonly name: 'MHAError';
  readonly code: MHAErrorCode;
  /** NOT_FINITE: where; BAD_ARGUMENT for an unknown option: which; KV_HEADS_NOT_DIVISOR: the two counts. */
  readonly details?: MHAErrorPlace | MHAErrorOption | MHAErrorKVHeads;
}

interface ForwardOptions {
  /** d_model × d_model, defaults to the identity. */
  wo?: Matrix;
  /** Position r attends only to c ≤ r. Default true. */
  causal?: boolean;
  /** Divide scores by √d_k. Default true. */
  scale?: boolean;
  /** One entry per head; a false head contributes zeros to the concat. */
  enabled?: ArrayLike<boolean>;
  /** Run the C core's plain reference loops instead of its SIMD kernels (for tests). */
  plain?: boolean;
}

export interface ProjectionInput extends ForwardOptions {
  /** L × d_model. */
  x: Matrix;
  /** d_model × d_model each: Q = X·W_q, numpy's `X @ W`. */
  wq: Matrix;
  wk: Matrix;
  wv: Matrix;
}

export interface QKVInput extends ForwardOptions {
  /** L × d_model each. */
  q: Matrix;
  k: Matrix;
  v: Matrix;
}

/**
 * One attention layer that owns its buffers in the wasm heap.
 * Every Float32Array it returns is a view into that heap holding the last forward's result,
 * valid until the next call on this layer or any createLayer; copy what you keep.
 */
/** What a forward leaves to draw: views into the wasm heap (see Layer). */
export interface Results {
  /** Head i's softmax weights, L×L; masked entries are exactly 0. */
  attention(head: number): Float32Array;
  /** Head i's scores (÷√d_k when scale is on), L×L, before the mask. */
  scores(head: number): Float32Array;
  /** Head i's output A_i·V_i, L×d_k. */
  headOutput(head: number): Float32Array;
  /** The projected (or given) Q, K, V: Q L×d_model, K and V L×(kvHeads·d_k), L×d_model unless K/V heads are shared. */
  q(): Float32Array;
  k(): Float32Array;
  v(): Float32Array;
  /** Heads side by side, L×d_model. */
  concat(): Float32Array;
  /** concat · W^O, L×d_model. */
  output(): Float32Array;
}

export interface Layer extends Results {
  readonly dModel: number;
  readonly heads: number;
  readonly dK: number;
  /** K/V heads: heads (multi-head), 1 (multi-query), or a divisor of heads between (grouped-query). */
  readonly kvHeads: number;
  /** Columns of K and V: kvHeads·d_k. */
  readonly kvWidth: number;
  readonly maxLen: number;
  /** The K/V group query head `head` reads: ⌊head·kvHeads/heads⌋. */
  kvGroup(head: number): number;
  /** L of the last forward; 0 before the first, and after one that was refused (its results are gone: NO_FORWARD). */
  readonly length: number;
  forward(input: ProjectionInput | QKVInput): this;
  dispose(): void;
}

/** A layer's parameters, each weight apart, and the key-value cache one token costs it. */
export interface ParamBill {
  naive: number;
  split: number;
  wq: number;
  wk: number;
  wv: number;
  wo: number;
  kvCacheBytes: number;
}

/** numpy's legacy np.random.RandomState(seed). */
export interface RandomState {
  /** numpy's randn(...shape), flattened in C order; successive calls continue the stream. */
  randn(...shape: number[]): Float64Array;
  /** numpy's random_sample(n). */
  randomSample(n?: number): Float64Array;
}

export interface TrainerOptions {
  /** h: 1, 2, 4, … must divide dModel. */
  heads: number;
  /**
   * Heads of K and V, dividing heads (default heads; 1 is multi-query attention, between grouped-query): wk and wv
   * are then dModel × kvHeads·dK, and query head i reads K/V group kvGroup(i). One seed gives every kvHeads the same
   * data and the same other weights (each group's wk and wv start as the multi-head model's of its first query head).
   * KV_HEADS_NOT_DIVISOR, with details { kvHeads, heads }, when it does not divide heads.
   */
  kvHeads?: number;
  /** Default 8. */
  dModel?: number;
  /** L, default 8. */
  seqLen?: number;
  /** Token ids 0 .. vocab-1, default 16. */
  vocab?: number;
  /** np.random.RandomState(seed): weights, batches, held-out set, example. Default 0. */
  seed?: number;
  /** Adam step size, default 0.01. */
  lr?: number;
  /**
   * Sequences per step, default 32. One step must fit the cost one call may have (2.5 G operations, see
   * c/lib/train.h): a larger batch for the sizes given is TOO_LARGE, naming the largest.
   */
  batch?: number;
  /**
   * Held-out sequences for evaluate(), default 256; evaluate() reads them all in one call, so they must fit its
   * cost too: more is TOO_LARGE at create, naming the most (6 for seqLen 256, dModel 64, vocab 4096).
   */
  evalCount?: number;
  /** Default true. */
  causal?: boolean;
  /** Default true. */
  scale?: boolean;
}

export interface TargetScore {
  loss: number;
  accuracy: number;
}

export interface Evaluation extends TargetScore {
  /** Predicting the token one step back. */
  previous: TargetScore;
  /** Predicting the first token of the sequence. */
  first: TargetScore;
}

export interface TrainerWeights {
  /** vocab × dModel. */
  tokenEmbedding: Float32Array;
  /** seqLen × dModel. */
  positionEmbedding: Float32Array;
  /** dModel × dModel. */
  wq: Float32Array;
  /** dModel × kvHeads·dK each (dModel × dModel unless K/V heads are shared). */
  wk: Float32Array;
  wv: Float32Array;
  /** dModel × dModel. */
  wo: Float32Array;
  /** dModel × 2·vocab: previous-token logits, then first-token logits. */
  readout: Float32Array;
  /** 2·vocab. */
  readoutBias: Float32Array;
}

/**
 * Token + position embeddings → one multi-head attention layer → a read-out predicting, at every
 * position, the previous token and the first token; trained with Adam in the wasm heap.
 * Its Results accessors show the example sentence with the current weights.
 * Float32Arrays are views into the heap, valid until the next call on this trainer; copy what you keep.
 */
export interface Trainer extends Results {
  readonly heads: number;
  /** K/V heads: heads (multi-head), 1 (multi-query), or a divisor of heads between (grouped-query). */
  readonly kvHeads: number;
  /** Columns of K and V: kvHeads·dK. */
  readonly kvWidth: number;
  /** The K/V group query head `head` reads: ⌊head·kvHeads/heads⌋. */
  kvGroup(head: number): number;
  readonly dModel: number;
  readonly dK: number;
  readonly seqLen: number;
  readonly vocab: number;
  readonly seed: number;
  readonly lr: number;
  readonly batch: number;
  readonly evalCount: number;
  /** All parameters; the same for every h at one dModel, fewer by 2·dModel·(dModel − kvHeads·dK) with shared K/V heads. */
  readonly paramCount: number;
  /** Steps since creation or reset. */
  readonly steps: number;
  /** The example sentence (seqLen token ids) that attention(i) shows. */
  readonly example: number[];
  /**
   * n steps (fresh batch + Adam update each); returns the last batch loss. Throws NOT_FINITE if training
   * diverges, TOO_LARGE when n steps would cost more than one call may (2.5 G operations as c/lib/train.h counts them,
   * under a second in wasm; about 1,000 steps of the default trainer), naming how many fit: call again for more.
   */
  step(n?: number): number;
  /** Last batch loss; NaN before the first step. */
  loss(): number;
  /** Held-out loss and accuracy; `enabled` switches heads off (ablation). */
  evaluate(options?: { enabled?: ArrayLike<boolean> }): Evaluation;
  /** Held-out accuracy, every head on. */
  accuracy(): number;
  setExample(tokens: ArrayLike<number>): this;
  /** Most likely token ids on the example for both targets. */
  predict(options?: { enabled?: ArrayLike<boolean> }): { previous: number[]; first: number[] };
  weights(): TrainerWeights;
  /** Back to the state right after creation (same seed, same run). */
  reset(): this;
  dispose(): void;
}

export interface ModelConfig {
  layers: number;
  heads: number;
  dModel: number;
  context: number;
  vocabSize: number;
}

/**
 * A GPT-2-style model loaded from a .safetensors file. attention() and logits() are views into the wasm heap
 * holding the last forward, valid until the next call on this model; copy what you keep.
 */
export interface Model {
  readonly config: Readonly<ModelConfig>;
  /** The file's __metadata__ strings: n_head, and for the lesson's model its vocabulary; the first 1,024 entries. */
  readonly metadata: Readonly<Record<string, string>>;
  /** The longest forward: the context, or loadModel's maxTokens. */
  readonly maxTokens: number;
  /** L of the last forward; 0 before the first, and after one that was refused (its results are gone: NO_FORWARD). */
  readonly length: number;
  /** Positions the last forward kept from the one before: the ids they share at the start, with the same heads off. */
  readonly reused: number;
  /**
   * 1 .. maxTokens token ids; `disabled` switches [layer, head] pairs off (zeros before c_proj). Positions shared at
   * the start with the last forward are kept, not computed again (the same bits).
   */
  forward(ids: Int32Array | ArrayLike<number>, options?: { disabled?: ArrayLike<readonly [number, number]> }): this;
  /**
   * One token more after the last forward's or step's (or a text's first, after none), its position alone
   * computed from the key-value cache: what forward() of the whole text gives (q|k|v and attention to the bit,
   * the logits within 2e-6 of the largest). A full cache (length =
   * maxTokens) is SEQ_TOO_LONG, an id outside the vocabulary TOKEN_RANGE; both leave the cache as it was.
   */
  step(id: number, options?: { disabled?: ArrayLike<readonly [number, number]> }): this;
  /** Keeps the first `length` (0 .. this.length) tokens and what was computed for them; BAD_SIZE otherwise. */
  rewind(length: number): this;
  /** Frees the cache's heap (keys, values, maps, logits) while idle; the next forward or step takes it again. */
  freeCache(): this;
  /** Head `head` of block `layer`: L×L softmax weights of the last forward. */
  attention(layer: number, head: number): Float32Array;
  /** L×vocabSize logits of the last forward. */
  logits(): Float32Array;
  /**
   * Block `layer`'s queries, keys and values of the last forward, L×3·dModel: row r is q | k | v of position r,
   * head i's slice of each at i·d_k .. (i+1)·d_k − 1, d_k = dModel ÷ heads.
   */
  qkv(layer: number): Float32Array;
  dispose(): void;
}

/** The model card of the lesson's poetry model (web/poems/poems.card.json); web/poems/build/train.js writes it. */
export interface PoemModelCard {
  /** Mean next-character loss in nats over the held-out poems of 唐诗三百首. */
  heldOutLoss: number;
  /** The same for a unigram and a bigram of the training text, on the same poems. */
  baselines: { unigram: number; bigram: number };
  /** Every head's role scores (mean attention weight where the role looks), their chance levels, the best head of each. */
  headRoles: {
    definitions: Record<string, string>;
    chance: Record<string, number | null>;
    rows: Record<string, number>;
    best: Record<string, { layer: number; head: number; score: number; chance: number }>;
    heads: Array<{ layer: number; head: number } & Record<string, number | null>>;
  };
  [key: string]: unknown;
}

/** The lesson's poetry model: the Model, its character tokenizer and its card. */
export interface PoemModel {
  model: Model;
  /** One id per character; characters outside the vocabulary become the unknown token. */
  encode(text: string): Int32Array;
  /** The text of `ids`: each a whole number (else BAD_ARGUMENT) in the vocabulary (else TOKEN_RANGE). */
  decode(ids: ArrayLike<number>): string;
  card: PoemModelCard;
}

export interface Attention {
  /**
   * The lesson's Tang poetry model, from web/poems/ beside this module (or the URLs given). Rejects with
   * LOAD_FAILED when a file cannot be fetched, BAD_MODEL when the model file is broken.
   */
  loadPoemModel(options?: { model?: string | URL; card?: string | URL }): Promise<PoemModel>;
  /**
   * A model from a .safetensors file with Hugging Face GPT-2's tensor names (F32 or F16). heads may be left out
   * when the file's __metadata__ has n_head, or for GPT-2's own sizes. A Blob (a picked File) is read a slice at a
   * time into the model's weights, front to back; onProgress follows the reading. onBytes is handed every byte of
   * the file once, in order, as it is read (the header first, and the bytes no tensor uses too): a checksum is
   * computed on the way, with no second pass. maxTokens sizes the model's buffers for forwards of at most that
   * many tokens (at most and by default its context): GPT-2 small's take 0.9 GB for 1,024 tokens, 25 MB for 64.
   * Rejects with BAD_MODEL for a broken file, LOAD_FAILED for a Blob that cannot be read.
   */
  loadModel(file: Blob | ArrayBuffer | ArrayBufferView, options?: {
    heads?: number;
    maxTokens?: number;
    onProgress?: (bytesRead: number, fileSize: number) => void;
    onBytes?: (bytes: Uint8Array) => void;
  }): Promise<Model>;
  /**
   * A layer for sequences up to maxLen. Beside the threaded core, a layer too small for any step to be shared
   * (under about a million multiply-adds, as the lesson's sizes) runs on the single-threaded core: the same
   * numbers, without shared memory's slower copies.
   */
  createLayer(desc: {
    dModel: number; heads: number; maxLen: number;
    /** Heads of K and V, dividing heads (default heads; 1 is multi-query attention): wk, wv, k and v are then kvHeads·d_k wide. */
    kvHeads?: number;
  }): Layer;
  /** A trainer for the two-view task (previous token + first token); see Trainer. */
  createTrainer(options: TrainerOptions): Trainer;
  /**
   * naive = h·3·d², split = wq + wk + wv + wo (3·d² + d² unless K/V heads are shared: wk = wv = d·kvHeads·d_k),
   * kvCacheBytes = 2·kvHeads·d_k·bytesPerValue, a token's keys and values per layer (bytesPerValue default 4).
   */
  paramCount(shape: { dModel: number; heads: number; kvHeads?: number; bytesPerValue?: number }): ParamBill;
  randomState(seed: number): RandomState;
  /** Current size of the wasm heap in bytes (both heaps' when the single-threaded core runs beside the threaded one). */
  memoryBytes(): number;
  /** The compiled core: post it to a worker, which passes it to loadAttention({ wasm }) instead of fetching. */
  readonly wasmModule: WebAssembly.Module;
  /** How many threads share each big forward (1 on the single-threaded core). */
  readonly threads: number;
  /** Whether the core's matrix products use fused multiply-add (relaxed SIMD; see LoadOptions.fma). */
  readonly fma: boolean;
}

export interface LoadOptions {
  /**
   * Where the core comes from: a compiled module, the wasm's bytes, or its URL. Default: mha-core.wasm
   * beside web/dist/mha-core.mjs, or wherever the app's bundler put it.
   */
  wasm?: WebAssembly.Module | BufferSource | URL | string;
  /**
   * Threads sharing each big forward. Default: one per core, up to 8. Above 1 the threaded core
   * (mha-core-mt.wasm) is loaded where it can run: Node, or a cross-origin isolated page (served with
   * COOP/COEP headers, so SharedArrayBuffer exists), with the single-threaded core beside it for small
   * layers; elsewhere the single-threaded core alone. 1 always loads the single-threaded core alone. Ignored when `wasm` is given: that module brings its own kind.
   */
  threads?: number;
  /**
   * Beside the threaded core, take both cores' builds with fused multiply-add (mha-core-mt-fma.wasm,
   * mha-core-fma.wasm) where the engine has relaxed SIMD (fmaAvailable()): faster products, rounded once
   * per multiply-add, so their last bits differ from the other builds'. Default true.
   */
  fma?: boolean;
}

/** Whether the threaded core can run here (Node, or a cross-origin isolated page). */
export function threadsAvailable(): boolean;

/** Whether the engine runs relaxed SIMD's fused multiply-add (Chromium 114+, Node 22+; Node 20 with --experimental-wasm-relaxed-simd). */
export function fmaAvailable(): boolean;

/**
 * Loads the wasm core once; later calls return the same instance (only the first call's options count).
 * Rejects with an MHAError 'LOAD_FAILED' when the wasm cannot be fetched, compiled or started, or is not the build
 * of the core this code was made with (a stale cached wasm, an older release, another module); a later call tries again.
 */
export function loadAttention(options?: LoadOptions): Promise<Attention>;
