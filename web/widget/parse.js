// Attributes → the widget's state, as a pure function (no DOM, no wasm) so Node can test it.
// Every attribute is data: JSON is parsed with JSON.parse, never evaluated, and nothing here builds markup.
import { STRINGS, languageOf } from './strings.js';
import { lessonExample } from '../shared/lesson.js';
import { HEAD_CHOICES } from '../training/strings.js';
import { clipText } from '../shared/clip.js';
import { ERROR_TEXT } from '../shared/errors.js';

export const VIEWS = ['heatmaps', 'pipeline', 'lines', 'full', 'train'];
export const MAX_TOKENS = 32;
export const MAX_DIM = 64;
/**
 * The longest attribute read, in characters: 32 × 64 numbers written out in full take about 51,000, so a
 * longer one is refused before it is parsed (10 MB of JSON would hold the page for seconds).
 */
export const MAX_ATTRIBUTE_LENGTH = 131072;
/**
 * The most characters (grapheme clusters) of a token that the widget writes anywhere, seen or read aloud: its
 * tables, sliders and buttons (the figures draw fewer, render.js's DRAWN_TOKEN_CHARS). Each token is written
 * dozens of times, so one 20 KB token would otherwise hold the page for seconds.
 */
export const LABEL_TOKEN_CHARS = 32;

const NOT_FINITE_MARK = '\u0000';
/** The smallest number that rounds to infinity in float32: the largest float32 and half a step more. */
const FLOAT32_INFINITE_FROM = 3.4028235677973366e38;

class ParseError {
  constructor(code, message) {
    this.code = code;
    this.message = message;
  }
}

/**
 * K or V (L × d rows) shared by groups of heads / kvHeads query heads: `core`, L × kvHeads·d_k, each group's
 * column the mean of its heads' (as Ainslie et al., 2023, make a multi-head model grouped-query), and `shown`,
 * L × d, each head's columns holding its group's, for the drawings.
 */
export function shareKV(m, heads, kvHeads) {
  if (kvHeads === heads) return { core: m, shown: m };
  const dK = m[0].length / heads, size = heads / kvHeads;
  const core = m.map((row) => Array.from({ length: kvHeads * dK }, (_, j) => {
    let sum = 0;
    for (let i = 0; i < size; i++) sum += row[((j / dK | 0) * size + i) * dK + j % dK];
    return sum / size;
  }));
  return { core, shown: core.map((row) => Array.from(m[0], (_, j) => row[(j / dK / size | 0) * dK + j % dK])) };
}

/**
 * attrs: { tokens, q, k, v, wo, heads, view, scale, lang } as attribute strings (null when absent; the
 * data ones may also be arrays), plus causal, editable and compact as booleans (the attribute is present).
 * Returns { state } or { error: { code, message } }, the message in the widget's language.
 */
export function parseState(attrs = {}) {
  const lang = languageOf(attrs.lang);
  const t = STRINGS[lang].error;
  try {
    for (const [name, value] of Object.entries(attrs)) {
      if (typeof value === 'string' && value.length > MAX_ATTRIBUTE_LENGTH) throw new ParseError('TOO_LONG', t.TOO_LONG(name, value.length, MAX_ATTRIBUTE_LENGTH));
      if (Array.isArray(value)) checkGivenLength(name, value, t);
    }
    return { state: build(attrs, lang, t) };
  } catch (error) {
    if (error instanceof ParseError) return { error: { code: error.code, message: error.message } };
    throw error;
  }
}

function build(attrs, lang, t) {
  const given = (name) => attrs[name] !== null && attrs[name] !== undefined;
  let view = 'heatmaps';
  if (given('view') && String(attrs.view).trim() !== '') {
    view = String(attrs.view).trim().toLowerCase();
    if (!VIEWS.includes(view)) throw new ParseError('BAD_VIEW', t.BAD_VIEW(String(attrs.view)));
  }
  // view="train" trains a model of its own: the data attributes are not read, and h is one it offers.
  const training = view === 'train';
  const useExample = training || !['tokens', 'q', 'k', 'v'].some(given);
  for (const name of ['q', 'k', 'v']) {
    if (!useExample && !given(name)) throw new ParseError('MISSING', t.MISSING(name));
  }
  const example = useExample ? lessonExample() : null;
  const q = example?.q ?? matrix('q', attrs.q, t);
  const k = example?.k ?? matrix('k', attrs.k, t);
  const v = example?.v ?? matrix('v', attrs.v, t);
  const L = q.length;
  const d = q[0].length;
  for (const [name, m] of [['k', k], ['v', v]]) {
    if (m.length !== L || m[0].length !== d) throw new ParseError('SHAPE_MISMATCH', t.SHAPE_MISMATCH(name, `${m.length}×${m[0].length}`, `${L}×${d}`));
  }
  if (L > MAX_TOKENS || d > MAX_DIM) throw new ParseError('TOO_LARGE', t.TOO_LARGE(L, d, MAX_TOKENS, MAX_DIM));

  let tokens;
  if (example) tokens = example.tokens;
  else if (!given('tokens')) tokens = Array.from({ length: L }, (_, i) => String(i + 1));
  else tokens = tokenList(attrs.tokens, t);
  if (tokens.length !== L) throw new ParseError('TOKEN_COUNT', t.TOKEN_COUNT(tokens.length, L));
  const labels = tokens.map((token) => clipText(token, LABEL_TOKEN_CHARS));

  let wo = null;
  if (given('wo') && !training) {
    wo = matrix('wo', attrs.wo, t);
    if (wo.length !== d || wo[0].length !== d) throw new ParseError('WO_SHAPE', t.WO_SHAPE(`${wo.length}×${wo[0].length}`, d));
  }

  let heads;
  if (!given('heads') || String(attrs.heads).trim() === '') {
    heads = d % 2 === 0 ? 2 : 1;
  } else {
    const text = String(attrs.heads).trim();
    heads = /^\d+$/.test(text) ? Number(text) : NaN;
    if (training && !HEAD_CHOICES.includes(heads)) throw new ParseError('BAD_HEADS', t.TRAIN_HEADS(text, HEAD_CHOICES));
    if (!Number.isSafeInteger(heads) || heads < 1) throw new ParseError('BAD_HEADS', t.BAD_HEADS(text));
    if (d % heads !== 0) throw new ParseError('HEADS_NOT_DIVISOR', t.HEADS_NOT_DIVISOR(heads, d));
  }

  // kv-heads: K/V heads shared by groups of query heads (shareKV), or null: every head its own, whatever h a learner
  // picks. The core checks that it divides h.
  let kvHeads = null;
  const kvText = String(attrs['kv-heads'] ?? '').trim();
  if (kvText && !training) {
    kvHeads = /^\d+$/.test(kvText) ? Number(kvText) : NaN;
    if (!(kvHeads >= 1)) throw new ParseError('BAD_SIZE', ERROR_TEXT[lang].errorDetails.BAD_SIZE({ name: 'kvHeads', value: Number(kvText) }));
  }

  return {
    tokens,
    labels, // what is written of each token
    clipped: labels.flatMap((label, i) => (label === tokens[i] ? [] : [i])), // the tokens whose labels are cut short
    q,
    k,
    v,
    wo,
    heads,
    kvHeads,
    L,
    d,
    dK: d / heads,
    causal: Boolean(attrs.causal),
    scale: !isOff(attrs.scale),
    editable: Boolean(attrs.editable),
    compact: Boolean(attrs.compact),
    view,
    lang,
  };
}

/**
 * An array given for a data attribute (through its property) is held to the attribute's bound before anything
 * is copied or written out: refused as TOO_LONG when even its shortest JSON would pass MAX_ATTRIBUTE_LENGTH,
 * counted one entry at a time (an array inside counts its brackets and a character an entry, never deeper),
 * stopping at the bound. So `[Array(1e7)]` or a million rows cost as little as a short array, and what is left
 * (at most a few tens of thousands of entries) is checked by matrix() or tokenList() as the attribute's JSON is.
 */
function checkGivenLength(name, value, t) {
  let length = 2 + Math.max(0, value.length - 1); // the brackets and commas
  for (let i = 0; i < value.length && length <= MAX_ATTRIBUTE_LENGTH; i++) {
    const x = value[i];
    if (typeof x === 'string') length += x.length + 2;
    else if (Array.isArray(x) || ArrayBuffer.isView(x)) length += 2 + Math.max(0, 2 * (x.length ?? 0) - 1);
    else length += 1;
  }
  if (length > MAX_ATTRIBUTE_LENGTH) throw new ParseError('TOO_LONG', t.TOO_LONG(name, null, MAX_ATTRIBUTE_LENGTH));
}

/**
 * The attribute text for a data property's value (an array, its rows arrays or typed arrays), or null when the
 * attribute's parser would refuse it: checked within the attribute's bounds first, and written out only then.
 */
export function dataToAttribute(name, value) {
  const t = STRINGS.zh.error; // only whether it is refused matters here: parseState says why, in the widget's language
  try {
    checkGivenLength(name, Array.isArray(value) ? value : [], t);
    return name === 'tokens' ? JSON.stringify(tokenList(value, t)) : JSON.stringify(matrix(name, value, t));
  } catch (error) {
    if (error instanceof ParseError) return null;
    throw error;
  }
}

/** scale is on unless scale="off" (also "false", "0", "no"). */
function isOff(value) {
  return typeof value === 'string' && /^(off|false|0|no)$/i.test(value.trim());
}

/**
 * Parses JSON nested at most `depth` deep (a matrix 2, tokens 1); on failure tells NaN/Infinity apart from
 * other mistakes by re-reading them as marked strings. Deeper nesting is refused before JSON.parse, whose
 * time grows with it: an attribute of 65,536 brackets inside one another would hold the page for tens of ms.
 */
function json(name, text, t, depth) {
  if (nestsDeeperThan(text, depth)) throw new ParseError(depth === 1 ? 'BAD_TOKENS' : 'NOT_A_MATRIX', depth === 1 ? t.BAD_TOKENS() : t.NOT_A_MATRIX(name));
  try {
    return JSON.parse(text);
  } catch {
    try {
      return JSON.parse(text.replace(/-?Infinity|NaN/g, (word) => JSON.stringify(NOT_FINITE_MARK + word)));
    } catch {
      throw new ParseError('BAD_JSON', t.BAD_JSON(name));
    }
  }
}

/** Whether JSON text opens more than `limit` arrays or objects inside one another (brackets in strings do not count). */
function nestsDeeperThan(text, limit) {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      if (++depth > limit) return true;
    } else if (c === ']' || c === '}') depth--;
  }
  return false;
}

/** A JSON (or given) array of rows of finite numbers, all rows the same length → number[][]. */
export function matrix(name, raw, t) {
  const value = typeof raw === 'string' ? json(name, raw, t, 2) : raw;
  if (!Array.isArray(value) || value.length === 0) {
    throw new ParseError(Array.isArray(value) ? 'EMPTY' : 'NOT_A_MATRIX', (Array.isArray(value) ? t.EMPTY : t.NOT_A_MATRIX)(name));
  }
  const rows = value.map((row) => (ArrayBuffer.isView(row) ? Array.from(row) : row));
  if (!rows.every(Array.isArray)) throw new ParseError('NOT_A_MATRIX', t.NOT_A_MATRIX(name));
  const width = rows[0].length;
  if (width === 0) throw new ParseError('EMPTY', t.EMPTY(name));
  rows.forEach((row, r) => {
    if (row.length !== width) throw new ParseError('RAGGED_ROWS', t.RAGGED_ROWS(name, r, row.length, width));
    row.forEach((x, c) => checkNumber(name, x, r, c, t));
  });
  return rows.map((row) => row.slice());
}

function checkNumber(name, x, r, c, t) {
  if (typeof x === 'number') {
    if (!Number.isFinite(x)) throw new ParseError('NOT_FINITE', t.NOT_FINITE(name, r, c, String(x)));
    // The core computes in float32, where such a number is infinite.
    if (Math.abs(x) >= FLOAT32_INFINITE_FROM) throw new ParseError('NOT_FINITE', t.BEYOND_FLOAT32(name, r, c, String(x)));
    return;
  }
  if (typeof x === 'string' && x.startsWith(NOT_FINITE_MARK)) {
    throw new ParseError('NOT_FINITE', t.NOT_FINITE(name, r, c, x.slice(1)));
  }
  // Nested deeper than rows of numbers, as json() refuses the attribute's text; never followed further.
  if (x !== null && typeof x === 'object') throw new ParseError('NOT_A_MATRIX', t.NOT_A_MATRIX(name));
  throw new ParseError('NOT_A_NUMBER', t.NOT_A_NUMBER(name, r, c, String(x)));
}

function tokenList(raw, t) {
  const value = typeof raw === 'string' ? json('tokens', raw, t, 1) : raw;
  if (!Array.isArray(value) || value.length === 0) throw new ParseError('BAD_TOKENS', t.BAD_TOKENS());
  return value.map((token) => {
    if (typeof token === 'string') return token.startsWith(NOT_FINITE_MARK) ? token.slice(1) : token;
    if (typeof token === 'number' && Number.isFinite(token)) return String(token);
    throw new ParseError('BAD_TOKENS', t.BAD_TOKENS());
  });
}
