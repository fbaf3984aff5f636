// The page's whole state, and its round trip through the URL query (so a teacher can share a link).
// Only values that differ from the defaults are written, to keep links short.
import { HAND_D_MODEL, HAND_MAX_TOKENS, defaultHand, tokenName } from '../hand/limits.js';

export const BIG_MAX_TOKENS = 32;
export const BIG_MAX_D_MODEL = 1024;
/** The bill's d_model: far past any real model, small enough that its numbers fit a phone screen. */
export const BILL_MAX_D_MODEL = 65536;
/** The weight-size slider of the random model; the URL is held to the same range. */
export const WEIGHT_SCALE = { min: 0.05, max: 1.5, step: 0.05 };
/**
 * The longest text a link may carry for the poetry model, in characters, and three times as many bytes of
 * UTF-8 (256 Chinese characters, 192 emoji); the section clips it to the model's context.
 */
export const POEM_TEXT_MAX = 256;
/** A link names at most this many switched-off heads of the poetry model, in layers and heads up to this number (it has 3 × 8). */
export const POEM_OFF_MAX = 32;
/**
 * The lesson's parts, one a section, that lesson mode shows a screen at a time; a part has at most MAX_SCREENS screens.
 * Twelve of the lesson and §13, the coda past it (heads that share K and V): one for each entry of registry.js.
 */
export const PARTS = 13;
export const MAX_SCREENS = 6;

export function defaultState() {
  return {
    lang: 'zh',
    present: false, // lesson mode, for a projector: one part of the lesson a screen, its figures enlarged
    part: 1, // in lesson mode, the part shown (1 to 12, the page's sections) and its screen (from 1)
    screen: 1,
    bill: { dModel: 768, heads: 12 },
    hand: defaultHand(),
    step: 0,
    train: { heads: 2, kvHeads: 0 }, // §9's h, and its K/V heads (0: as many as h, multi-head attention)
    demo: { seed1: 10, seed2: 11 },
    views: { source: 'hand', dModel: 64, heads: 8, sentence: null, seed: 0, weightScale: 0.4, causal: true },
    // The poetry model's section: a held-out poem (index into the card's), the typed text (null: the
    // poem's), and the switched-off heads as [layer, head] pairs, 0-based.
    // The enlarged head (layer · heads + head) and the position it is read at (null: the text's last).
    poems: { poem: 0, text: null, off: [], head: 0, position: null },
  };
}

export const DEFAULT_SENTENCE = {
  zh: '那只小猫在温暖的厨房里吃了一条鱼',
  en: 'the cat that the dog chased ate the fish in the warm kitchen by the old door',
};

/** Splits a sentence into tokens: on spaces when it has any, otherwise one token per character. */
export function tokenize(sentence) {
  const text = sentence.trim();
  if (!text) return [];
  return /\s/.test(text) ? text.split(/\s+/) : Array.from(text);
}

// An entry past a million is far out of its range and refused; a link keeps the three digits the refusal
// shows (errors.js), so that no entry takes more than 12 characters of it.
const numberText = (n) => (!Number.isFinite(n) ? 'NaN' : Math.abs(n) >= 1e6 ? n.toExponential(2) : String(Math.round(n * 10000) / 10000));
const encodeMatrix = (m) => m.map((row) => row.map(numberText).join(',')).join(';');
const decodeMatrix = (text) => text.split(';').map((row) => row.split(',').map(Number));
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const unique = (values) => [...new Map(values.map((value) => [JSON.stringify(value), value])).values()];

function utf8Bytes(char) {
  const code = char.codePointAt(0);
  return code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
}
/** The start of `text` a link keeps: at most `chars` characters and `bytes` bytes of UTF-8 (a link writes a byte as at most 3 characters). */
function clipText(text, { chars = Infinity, bytes }) {
  const kept = [];
  let used = 0;
  for (const char of text) {
    used += utf8Bytes(char);
    if (kept.length === chars || used > bytes) break;
    kept.push(char);
  }
  return kept.join('');
}

// The words are joined by commas; a comma or backslash inside a word is escaped with a backslash, so
// any word the learner types comes back from a link exactly as typed.
const encodeTokens = (tokens) => tokens.map((token) => token.replace(/[\\,]/g, '\\$&')).join(',');
function decodeTokens(text, max) {
  const tokens = [''];
  for (let i = 0; i < text.length; i++) {
    let ch = text[i];
    if (ch === ',') {
      if (tokens.length === max) break;
      tokens.push('');
      continue;
    }
    if (ch === '\\' && (text[i + 1] === ',' || text[i + 1] === '\\')) ch = text[++i];
    tokens[tokens.length - 1] += ch;
  }
  return tokens;
}

// How each kind of value is written into the URL and read back. `read(text, fallback, state)` gets the
// state read so far (the words come before the matrices, h before the switched-off heads) and returns the
// fallback for a malformed part, rather than failing the page. Every value is bounded, so that the longest
// link stays under 8,000 characters (tests/page.test.js builds it): what a link cannot hold is clipped
// on write as on read, and `write(value, state)` gets the whole state.
const number = { write: String, read: Number };
const flag = { write: (on) => (on ? '1' : '0'), read: (text) => text === '1' };
/** A free text: a link keeps its start, and the share box says how much (linkClips). */
function clippedText(limits) {
  const clip = (value) => clipText(value, limits);
  return { write: clip, read: clip, clip };
}
const oneOf = (...values) => ({ write: String, read: (value, fallback) => (values.includes(value) ? value : fallback) });
/** A whole number from 0 to max in decimal digits; anything else keeps the default. */
const wholeUpTo = (max) => ({ write: String, read: (value, fallback) => (/^\d{1,7}$/.test(value) && Number(value) <= max ? Number(value) : fallback) });
/** A whole number from 1 to max in decimal digits; anything else keeps the default. */
const wholeFromOneTo = (max) => ({ write: String, read: (value, fallback) => (/^[1-9]\d?$/.test(value) && Number(value) <= max ? Number(value) : fallback) });
const words = { write: encodeTokens, read: (value) => decodeTokens(value, HAND_MAX_TOKENS).map(tokenName) };
/** A hand matrix: one row per word (or d_model rows for Wᴼ), d_model numbers each. */
const handMatrix = (rows) => ({
  write: encodeMatrix,
  read: (value, fallback, state) => {
    const m = decodeMatrix(value);
    return m.length === rows(state) && m.every((row) => row.length === HAND_D_MODEL) ? m : fallback;
  },
  // Words from a link, as many as the lesson's: its numbers; any other count: zeros.
  fallback: (state, lesson) => (rows(state) === lesson.length ? lesson : Array.from({ length: rows(state) }, () => Array(HAND_D_MODEL).fill(0))),
});
const wordRows = (state) => state.hand.tokens.length;

const handOff = (off, state) => unique(off.filter((head) => Number.isInteger(head) && head >= 0 && head < state.hand.heads));
const poemOff = (off) => unique(off.filter((pair) => pair.length === 2 && pair.every((n) => Number.isInteger(n) && n >= 0 && n < POEM_OFF_MAX))).slice(0, POEM_OFF_MAX);

/** Every key of the URL, once: where its value lives in the state and how it is written. */
const URL_KEYS = [
  ['lang', 'lang', oneOf('zh', 'en')],
  ['present', 'present', flag],
  ['part', 'part', wholeFromOneTo(PARTS)],
  ['screen', 'screen', wholeFromOneTo(MAX_SCREENS)],
  ['bd', 'bill.dModel', number],
  ['bh', 'bill.heads', number],
  ['t', 'hand.tokens', words],
  ['q', 'hand.q', handMatrix(wordRows)],
  ['k', 'hand.k', handMatrix(wordRows)],
  ['v', 'hand.v', handMatrix(wordRows)],
  ['wo', 'hand.wo', handMatrix(() => HAND_D_MODEL)],
  ['h', 'hand.heads', { write: String, read: (value, fallback) => ([1, 2, 4].includes(Number(value)) ? Number(value) : fallback) }],
  ['mask', 'hand.causal', flag],
  ['scale', 'hand.scale', flag],
  // Heads are numbered from 1 in the URL; only heads that exist are kept, once each.
  ['off', 'hand.off', {
    write: (off, state) => handOff(off, state).map((head) => head + 1).join(','),
    read: (value, fallback, state) => handOff(value.split(',').map((head) => Number(head) - 1), state),
  }],
  ['step', 'step', { write: String, read: (value, fallback) => (Number.isInteger(Number(value)) && Number(value) >= 0 && Number(value) <= 8 ? Number(value) : fallback) }],
  ['th', 'train.heads', { write: String, read: (value, fallback) => ([1, 2, 4].includes(Number(value)) ? Number(value) : fallback) }],
  // After th, so that h is read: a K/V count §9 trains with that h (fewer than h, halving or one), else MHA.
  ['tkv', 'train.kvHeads', { write: String, read: (value, fallback, state) => (/^[12]$/.test(value) && Number(value) * 2 <= state.train.heads ? Number(value) : fallback) }],
  ['seed1', 'demo.seed1', number],
  ['seed2', 'demo.seed2', number],
  ['vs', 'views.source', oneOf('hand', 'big')],
  ['vd', 'views.dModel', number],
  ['vh', 'views.heads', number],
  // 512 bytes: 170 Chinese characters, or more letters than the 32 words of 12 the views take.
  ['vt', 'views.sentence', clippedText({ bytes: 512 })],
  ['vseed', 'views.seed', number],
  ['vw', 'views.weightScale', number],
  ['vmask', 'views.causal', flag],
  ['pp', 'poems.poem', { write: String, read: (value, fallback) => (Number.isInteger(Number(value)) && Number(value) >= 0 ? Number(value) : fallback) }],
  ['pt', 'poems.text', clippedText({ chars: POEM_TEXT_MAX, bytes: 3 * POEM_TEXT_MAX })],
  ['phead', 'poems.head', wholeUpTo(POEM_OFF_MAX * POEM_OFF_MAX)],
  ['ppos', 'poems.position', wholeUpTo(POEM_TEXT_MAX)],
  // Layers and heads from 1, as the page names them ("1.2,3.4"); which exist is known once the model is in.
  ['poff', 'poems.off', {
    write: (off) => poemOff(off).map(([layer, head]) => `${layer + 1}.${head + 1}`).join(','),
    read: (value) => poemOff(value.split(',').map((pair) => pair.split('.').map((n) => Number(n) - 1))),
  }],
];

const getIn = (object, path) => path.split('.').reduce((value, key) => value[key], object);
function setIn(object, path, value) {
  const keys = path.split('.');
  const last = keys.pop();
  keys.reduce((inner, key) => inner[key], object)[last] = value;
}

/** State → URLSearchParams (defaults left out). */
export function toQuery(state) {
  const defaults = defaultState();
  const params = new URLSearchParams();
  for (const [key, path, codec] of URL_KEYS) {
    const value = getIn(state, path);
    if (!same(value, getIn(defaults, path))) params.set(key, codec.write(value, state));
  }
  return params;
}

/** The texts a link to `state` clips, each as { path, kept: the characters it keeps }, for the share box to say so. */
export function linkClips(state) {
  // Only the free texts are clipped (a number from a link may be NaN, which equals nothing, itself included).
  return URL_KEYS.flatMap(([, path, codec]) => {
    const whole = getIn(state, path);
    if (!codec.clip || whole === null) return [];
    const kept = codec.clip(whole);
    return kept === whole ? [] : [{ path, kept: Array.from(kept).length }];
  });
}

/**
 * The address that opens the page as `state` has it, built from the state itself rather than read from
 * the address bar (which is written a moment after each change, and carries the #section jumped to).
 */
export function shareLink(state, pageHref) {
  const url = new URL(pageHref);
  url.search = toQuery(state).toString();
  url.hash = '';
  return url.href;
}

/**
 * URLSearchParams → state. Malformed parts fall back to their defaults rather than failing the page;
 * numbers that do not parse stay NaN, and out-of-range ones stay as they are, so the page refuses them
 * with an inline message (checks.js) instead of quietly changing them.
 */
export function fromQuery(params) {
  const state = defaultState();
  for (const [key, path, codec] of URL_KEYS) {
    const lesson = getIn(state, path);
    const fallback = codec.fallback ? codec.fallback(state, lesson) : lesson;
    const value = params.get(key);
    setIn(state, path, value === null ? fallback : codec.read(value, fallback, state));
  }
  return state;
}
