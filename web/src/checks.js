// What every call of the API checks before the core sees it, and the MHAError it throws: argument checks
// (sizes, options, arrays of numbers) and the error of the core's last failing call.

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

const INT32_MAX = 2 ** 31 - 1;

/**
 * A size or count for the core: a whole number from `min` to 2³¹−1, checked here because wasm would
 * silently wrap anything else (2³² + 4 becomes 4).
 */
export function intArg(name, value, min = 1) {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    const what = min === 0 ? 'a whole number ≥ 0' : 'a positive whole number';
    throw new MHAError('BAD_SIZE', `${name} must be ${what}, got ${describe(value)}`);
  }
  if (value > INT32_MAX) throw new MHAError('TOO_LARGE', `${name} ${value} is far too large`);
  return value;
}

/** Head (or layer) `index` of the `count` an `owner` ('layer', 'model', 'trainer') has; HEAD_INDEX otherwise. */
export function indexArg(name, index, count, owner) {
  if (!Number.isInteger(index) || index < 0 || index >= count) {
    throw new MHAError('HEAD_INDEX', `${name} ${describe(index)} does not exist: this ${owner} has ${name}s 0 to ${count - 1}`);
  }
  return index;
}

/**
 * `length` token ids read once each from the array-like `name`, each a whole number from 0 to vocab−1 (checked
 * here too: wasm would wrap 2³² to 0); one outside the vocabulary throws `rangeCode`.
 */
export function tokenIds(name, values, length, vocab, rangeCode) {
  const ids = new Int32Array(length);
  for (let i = 0; i < length; i++) {
    const id = values[i];
    if (!Number.isInteger(id)) throw new MHAError('BAD_ARGUMENT', `${name}[${i}] must be a whole number, got ${describe(id)}`);
    if (id < 0 || id >= vocab) throw new MHAError(rangeCode, `token ${id} at position ${i} is outside the vocabulary 0 to ${vocab - 1}`);
    ids[i] = id;
  }
  return ids;
}

/** A seed of the core's generators: a whole number from 0 to 2³²−1. */
export function seedArg(seed) {
  if (!Number.isInteger(seed) || seed < 0 || seed > 2 ** 32 - 1) {
    throw new MHAError('BAD_ARGUMENT', `seed must be a whole number from 0 to 4294967295, got ${describe(seed)}`);
  }
  return seed;
}

/**
 * The options object of `call`, rejecting keys it does not know (a typo such as `casual` would otherwise
 * be ignored without a word) and naming the likely intended one.
 */
export function checkOptions(call, options, known) {
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

const overLimit = (name, limit) => (count) => new MHAError('BAD_LENGTH', `${name} has ${count} numbers, more than the ${limit} this call can take`);

/**
 * The `length` of an array-like, checked before anything is allocated for it: a whole number up to `limit`
 * (beyond it, the error `tooMany(length)` makes).
 */
export function arrayLength(name, value, limit, tooMany = overLimit(name, limit)) {
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
export function toFloat32(name, value, limit, tooMany = overLimit(name, limit)) {
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

/** One byte per head, 1 for on: from `enabled`, one true/false per head, or all on when it is absent. */
export function enabledHeads(enabled, heads) {
  if (enabled == null) return new Uint8Array(heads).fill(1);
  const length = typeof enabled === 'object' ? enabled.length : undefined;
  if (length !== heads) {
    throw new MHAError('BAD_LENGTH', `enabled must list one true/false per head (${heads}), got ${describe(enabled)}`);
  }
  const bytes = new Uint8Array(heads);
  for (let i = 0; i < heads; i++) bytes[i] = enabled[i] ? 1 : 0;
  return bytes;
}

export function describe(value) {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (value && typeof value === 'object') return value.constructor?.name ?? 'an object';
  return String(value);
}

/** The MHAError for the core's last failing call: its status code, sentence and, when it has one, place. */
export function coreError(core) {
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

export function cString(core, ptr) {
  const bytes = core.HEAPU8;
  let end = ptr;
  while (bytes[end]) end++;
  return new TextDecoder().decode(bytes.slice(ptr, end)); // a copy: TextDecoder refuses shared memory
}
