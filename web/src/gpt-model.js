// A GPT-2-style Model of loadModel (c/lib/gpt.h, exported by c/wasm/wasm_exports.c), and the reading of its
// .safetensors file straight into the wasm heap.
import { MHAError, arrayLength, checkOptions, coreError, cString, describe, indexArg, intArg, tokenIds } from './checks.js';
import { Lifetime, forgettingOnFailure } from './lifetime.js';

// The longest header a .safetensors file may declare (c/lib/safetensors.h's ST_MAX_HEADER_BYTES).
const MAX_MODEL_HEADER = 16n << 20n;

// The most of a file's __metadata__ entries a Model keeps, in the file's order: a valid file may carry a
// million (a 12 MB header), and reading each out of the core held the thread for 2.6–3.6 s.
const MAX_METADATA_ENTRIES = 1024;

// A Blob is read this many bytes at a time, a piece ahead: JavaScript holds two pieces of the file at once.
const MODEL_READ_BYTES = 16 << 20;

/**
 * A Model on `core` from a .safetensors file (bytes or a Blob), read a slice at a time into the model's
 * weights; `scratch` is where the core hands back what it returns by pointer.
 */
export async function loadModel(core, scratch, source, options) {
  const { heads, maxTokens, onProgress, onBytes } = checkOptions('loadModel', options, ['heads', 'maxTokens', 'onProgress', 'onBytes']);
  const headsArg = heads == null ? 0 : intArg('heads', heads);
  const maxTokensArg = maxTokens == null ? 0 : intArg('maxTokens', maxTokens); // 0: the model's context
  for (const [name, value] of Object.entries({ onProgress, onBytes })) {
    if (value != null && typeof value !== 'function') throw new MHAError('BAD_ARGUMENT', `${name} must be a function, got ${describe(value)}`);
  }
  const file = modelFile(source, core);
  // The header's length is the file's first 8 bytes (little-endian); the core checks it again.
  const first8 = await file.read(0, Math.min(file.size, 8));
  const declared = first8.length === 8 ? new DataView(first8.buffer, first8.byteOffset, 8).getBigUint64(0, true) : 0n;
  const headLength = Math.min(file.size, 8 + (declared <= MAX_MODEL_HEADER ? Number(declared) : 0));
  const headBytes = await file.read(0, headLength);
  const head = core._wasm_malloc(Math.max(headLength, 1));
  if (!head) throw new MHAError('OUT_OF_MEMORY', `not enough memory for a header of ${headLength} bytes`);
  core.HEAPU8.set(headBytes, head);
  const loader = core._wasm_gpt_load_begin(head, headLength, file.size, headsArg, maxTokensArg);
  core._wasm_free(head);
  if (!loader) throw coreError(core);
  try {
    const pieces = filePieces(core, scratch, loader, headLength, onBytes ? file.size : -1);
    onBytes?.(headBytes);
    let read = headLength;
    let next = null; // the piece after this one, read while this one is copied
    for (let p = 0; p < pieces.length; p++) {
      const part = await (next ?? file.read(pieces[p][0], pieces[p][1]));
      next = pieces[p + 1] && file.read(pieces[p + 1][0], pieces[p + 1][1]);
      next?.catch(() => {}); // left unread after a failure, it is no unhandled rejection; awaited, it still throws
      if (pieces[p][2]) core.HEAPU8.set(part, pieces[p][2]); // HEAPU8 afresh: the heap may have grown while the piece was read
      onBytes?.(part);
      read += part.length;
      onProgress?.(read, file.size);
    }
  } catch (error) {
    core._wasm_gpt_loader_destroy(loader);
    throw error;
  }
  const ptr = core._wasm_gpt_load_finish(loader);
  if (!ptr) throw coreError(core);
  core._wasm_gpt_config(ptr, scratch);
  const [layers, headCount, dModel, context, vocabSize, longest] = new Int32Array(core.HEAPU8.buffer, scratch, 6);
  const config = { layers, heads: headCount, dModel, context, vocabSize };
  const staging = core._wasm_malloc(4 * longest + layers * headCount); // the tokens, then one byte per head
  if (!staging) {
    core._wasm_gpt_destroy(ptr);
    throw new MHAError('OUT_OF_MEMORY', 'not enough memory for a model');
  }
  const metadata = {};
  for (let i = 0, count = Math.min(core._wasm_gpt_metadata_count(ptr), MAX_METADATA_ENTRIES); i < count; i++) {
    metadata[cString(core, core._wasm_gpt_metadata(ptr, i, 0))] = cString(core, core._wasm_gpt_metadata(ptr, i, 1));
  }
  return new Model(core, ptr, staging, config, metadata, longest);
}

/**
 * What loadModel reads after the header, front to back, at most MODEL_READ_BYTES a piece: [offset, length, dest],
 * each tensor's bytes with dest where the model keeps them (the core widens F16 in place). Up to `end` (a file
 * size, or -1 for none), the bytes no tensor uses are pieces too, with dest 0 (GPT-2's files hold each block's
 * causal mask, which the model makes itself), so that every byte of the file is read once, in order.
 */
function filePieces(core, scratch, loader, headLength, end) {
  const tensors = [];
  for (let i = 0, copies = core._wasm_gpt_loader_copies(loader); i < copies; i++) {
    const dest = core._wasm_gpt_loader_copy(loader, i, scratch);
    const [offset, length] = new Float64Array(core.HEAPF64.buffer, scratch, 2);
    tensors.push([offset, length, dest]);
  }
  const pieces = [];
  const add = (offset, length, dest) => {
    for (let done = 0; done < length; done += MODEL_READ_BYTES) pieces.push([offset + done, Math.min(MODEL_READ_BYTES, length - done), dest && dest + done]);
  };
  let at = headLength;
  // In file order: the model's order (wte first) is not the file's (Hugging Face's writer sorts the names).
  for (const [offset, length, dest] of [...tensors.sort((a, b) => a[0] - b[0]), [end, 0, 0]]) {
    if (end >= 0) add(at, offset - at, 0);
    add(offset, length, dest);
    at = offset + length;
  }
  return pieces;
}

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

function destroyModel(core, ptr, staging) {
  core._wasm_gpt_destroy(ptr);
  core._wasm_free(staging);
}

/**
 * A GPT-2-style model in the wasm heap. attention() and logits() return views into the heap holding the last
 * forward: valid until the next call on this model (or anything that grows the heap); copy what you keep.
 */
class Model {
  #lifetime;
  #ptr;
  #staging; // maxTokens int32 token ids, then layers·heads bytes: 1 = head on
  #freed = false; // freeCache: the core's buffers are gone until the next forward or step

  constructor(core, ptr, staging, config, metadata, maxTokens) {
    this.#lifetime = new Lifetime(this, 'this model was disposed; load it again with loadModel', destroyModel, core, ptr, staging);
    this.#ptr = ptr;
    this.#staging = staging;
    /** { layers, heads, dModel, context, vocabSize } */
    this.config = Object.freeze(config);
    /** The file's __metadata__ strings (n_head; for the lesson's model, its vocabulary), its first MAX_METADATA_ENTRIES. */
    this.metadata = Object.freeze(metadata);
    /** The longest forward: the context, or loadModel's maxTokens (the heap holds buffers for this many). */
    this.maxTokens = maxTokens;
    /** L of the last forward (0 before the first, and after one that was refused). */
    this.length = 0;
    /** Positions the last forward took from the one before (see forward). */
    this.reused = 0;
  }

  /**
   * Runs 1 .. maxTokens token ids (an Int32Array or an array of whole numbers); `disabled` lists [layer, head]
   * pairs to switch off: their outputs become zeros before the block's c_proj. The positions that the ids
   * share at the start with the last forward's (with the same heads off) are not computed again: in a causal
   * model they depend on those ids alone, so their keys, values, attention and logits are kept, and a text
   * typed one token at a time costs one new position per block. The numbers are the same bits either way.
   * A forward refused here, as one the core refuses, leaves no result: NO_FORWARD until the next.
   */
  forward(ids, options) {
    const core = this.#lifetime.core();
    return forgettingOnFailure(() => this.#forward(ids, options), () => this.#forget(core));
  }

  #forward(ids, options) {
    const { disabled } = checkOptions('forward', options, ['disabled']);
    const { context, vocabSize } = this.config;
    const length = arrayLength('ids', ids, this.maxTokens, (count) => new MHAError('SEQ_TOO_LONG', count > context
      ? `the sequence has ${count} tokens but this model's context is ${context}`
      : `the sequence has ${count} tokens but this model was loaded for at most ${this.maxTokens} (maxTokens)`));
    if (length === 0) throw new MHAError('BAD_SIZE', 'the sequence is empty; give at least one token');
    const tokens = tokenIds('ids', ids, length, vocabSize, 'TOKEN_RANGE');
    const enabled = this.#enabled(disabled);
    const core = this.#reserved(); // a getter of ids may have disposed it
    new Int32Array(core.HEAPU8.buffer, this.#staging, length).set(tokens);
    return this.#run(core, enabled, () => core._wasm_gpt_forward_reusing(this.#ptr, this.#staging, length, this.#staging + 4 * this.maxTokens));
  }

  /**
   * Decodes one more token: `id` goes after the last forward's (or step's) ids, or starts a text after none,
   * and only its position is computed, from the keys and values every block keeps of the others (the
   * key-value cache): what forward() of the whole text gives (every block's q|k|v and attention to the bit, the
   * logits, summed another way, within 2e-6 of the largest), at the cost of reading the weights once.
   * `disabled` as forward's (other heads than the last forward's: every position is computed again). A full
   * cache (length = maxTokens) is SEQ_TOO_LONG and an id outside the vocabulary TOKEN_RANGE, both leaving the
   * cache as it was; logits() then holds a row more, the new one last.
   */
  step(id, options) {
    const core = this.#lifetime.core();
    const { disabled } = checkOptions('step', options, ['disabled']);
    if (!Number.isInteger(id)) throw new MHAError('BAD_ARGUMENT', `step takes a token id, a whole number, got ${describe(id)}`);
    if (id < 0 || id >= this.config.vocabSize) {
      throw new MHAError('TOKEN_RANGE', `token ${id} at position ${this.length} is outside the vocabulary 0 to ${this.config.vocabSize - 1}`);
    }
    const enabled = this.#enabled(disabled);
    if (this.length >= this.maxTokens) {
      throw new MHAError('SEQ_TOO_LONG', `the key-value cache is full: it holds ${this.length} tokens, ${this.maxTokens < this.config.context
        ? 'as many as this model was loaded for (maxTokens)' : 'this model\'s whole context'}; rewind it first`, { count: this.length + 1, max: this.maxTokens });
    }
    return forgettingOnFailure(() => this.#run(this.#reserved(), enabled, () => core._wasm_gpt_step(this.#ptr, id, this.#staging + 4 * this.maxTokens)),
      () => this.#forget(core));
  }

  /**
   * Keeps the first `length` (0 .. this.length) tokens of the last forward or steps and everything computed for
   * them, as when a teacher edits the text back to there: the next step or forward goes on from them.
   */
  rewind(length) {
    const core = this.#lifetime.core();
    if (!Number.isInteger(length) || length < 0 || length > this.length) {
      throw new MHAError('BAD_SIZE', `cannot rewind to ${describe(length)} tokens: the cache holds ${this.length}`);
    }
    if (core._wasm_gpt_rewind(this.#ptr, length)) throw coreError(core);
    this.length = length;
    this.reused = Math.min(this.reused, length);
    return this;
  }

  /**
   * Frees the heap the last forward's results take (every block's keys and values, the attention maps and the
   * logits, for maxTokens tokens: most of a model's memory past its weights) while the model is idle; the next
   * forward or step takes it again, and may then be OUT_OF_MEMORY.
   */
  freeCache() {
    const core = this.#lifetime.core();
    core._wasm_gpt_reserve(this.#ptr, 0);
    this.#freed = true;
    this.length = 0;
    this.reused = 0;
    return this;
  }

  /** The core, its buffers reserved again after freeCache. */
  #reserved() {
    const core = this.#lifetime.core();
    if (this.#freed) {
      if (core._wasm_gpt_reserve(this.#ptr, this.maxTokens)) throw coreError(core);
      this.#freed = false;
    }
    return core;
  }

  /** Copies `enabled` to the staging buffer, runs `call` (a status), reads the length and reuse. */
  #run(core, enabled, call) {
    core.HEAPU8.set(enabled, this.#staging + 4 * this.maxTokens);
    const status = call();
    this.length = core._wasm_gpt_len(this.#ptr);
    this.reused = core._wasm_gpt_reused(this.#ptr);
    if (status) throw coreError(core);
    return this;
  }

  #forget(core) {
    if (!this.#lifetime.ended) core._wasm_gpt_forget(this.#ptr);
    this.length = 0;
    this.reused = 0;
  }

  /** One byte a head, 1 = on, from forward's or step's `disabled` [layer, head] pairs. */
  #enabled(disabled) {
    const { layers, heads } = this.config;
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
    return enabled;
  }

  /** The softmax weights of `head` in block `layer` of the last forward, L×L; masked entries are exactly 0. */
  attention(layer, head) {
    const core = this.#lifetime.core();
    this.#checkHead(layer, head);
    const ptr = core._wasm_gpt_attention(this.#ptr, layer, head);
    if (!ptr) throw coreError(core);
    return new Float32Array(core.HEAPF32.buffer, ptr, this.length ** 2);
  }

  /** The last forward's logits, L×vocabSize: row r scores every token as the one after position r. */
  logits() {
    const core = this.#lifetime.core();
    const ptr = core._wasm_gpt_logits(this.#ptr);
    if (!ptr) throw coreError(core);
    return new Float32Array(core.HEAPF32.buffer, ptr, this.length * this.config.vocabSize);
  }

  /**
   * Block `layer`'s queries, keys and values of the last forward, L×3·dModel: row r is q | k | v of position r,
   * head i's slice of each at i·d_k .. (i+1)·d_k − 1 (d_k = dModel ÷ heads).
   */
  qkv(layer) {
    const core = this.#lifetime.core();
    indexArg('layer', layer, this.config.layers, 'model');
    const ptr = core._wasm_gpt_qkv(this.#ptr, layer);
    if (!ptr) throw coreError(core);
    return new Float32Array(core.HEAPF32.buffer, ptr, this.length * 3 * this.config.dModel);
  }

  /** Frees the model; later calls throw DISPOSED. */
  dispose() {
    this.#lifetime.end();
  }

  #checkHead(layer, head) {
    indexArg('layer', layer, this.config.layers, 'model');
    indexArg('head', head, this.config.heads, 'model');
  }
}

