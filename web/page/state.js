// The page's whole state, and its round trip through the URL query (so a teacher can share a link).
// Only values that differ from the defaults are written, to keep links short.
import { lessonExample, identity } from '../shared/lesson.js';

export const HAND_D_MODEL = 4;
export const HAND_MAX_TOKENS = 8;
export const BIG_MAX_TOKENS = 32;
export const BIG_MAX_D_MODEL = 1024;
/** The longest word, in characters, wherever it comes from: a name box, the sentence, or the URL. */
export const MAX_TOKEN_CHARS = 12;
/** The one range of each hand matrix's entries: its slider's, its typed box's and the URL's. */
export const HAND_BOUNDS = { q: [-3, 3], k: [-3, 3], v: [-3, 3], wo: [-2, 2] };
/** The bill's d_model: far past any real model, small enough that its numbers fit a phone screen. */
export const BILL_MAX_D_MODEL = 65536;
/** The weight-size slider of the random model; the URL is held to the same range. */
export const WEIGHT_SCALE = { min: 0.05, max: 1.5, step: 0.05 };
/** numpy's RandomState takes seeds from 0 to 2³² − 1. */
export const SEED_MAX = 2 ** 32 - 1;


export function defaultState() {
  return {
    lang: 'zh',
    bill: { dModel: 768, heads: 12 },
    hand: {
      ...lessonExample(), // tokens, q, k, v: the lesson's 猫吃鱼
      heads: 2,
      causal: false,
      scale: true,
      wo: identity(HAND_D_MODEL),
      off: [], // switched-off heads (0-based), for the ablation
    },
    step: 0,
    demo: { seed1: 10, seed2: 11 },
    views: { source: 'hand', dModel: 64, heads: 8, sentence: null, seed: 0, weightScale: 0.4, causal: true },
  };
}

export const DEFAULT_SENTENCE = {
  zh: '那只小猫在温暖的厨房里吃了一条鱼',
  en: 'the cat that the dog chased ate the fish in the warm kitchen by the old door',
};

/** A word as the page keeps it: spaces trimmed, at most MAX_TOKEN_CHARS characters, the row number when empty. */
export function tokenName(name, row) {
  return Array.from(name.trim()).slice(0, MAX_TOKEN_CHARS).join('').trim() || String(row + 1);
}

/** Splits a sentence into tokens: on spaces when it has any, otherwise one token per character. */
export function tokenize(sentence) {
  const text = sentence.trim();
  if (!text) return [];
  return /\s/.test(text) ? text.split(/\s+/) : Array.from(text);
}

const numberText = (n) => (Number.isFinite(n) ? String(Math.round(n * 10000) / 10000) : 'NaN');
const encodeMatrix = (m) => m.map((row) => row.map(numberText).join(',')).join(';');
const decodeMatrix = (text) => text.split(';').map((row) => row.split(',').map(Number));
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

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

/** State → URLSearchParams (defaults left out). */
export function toQuery(state) {
  const d = defaultState();
  const p = new URLSearchParams();
  const put = (key, value, fallback) => {
    if (!same(value, fallback)) p.set(key, String(value));
  };
  put('lang', state.lang, d.lang);
  put('bd', state.bill.dModel, d.bill.dModel);
  put('bh', state.bill.heads, d.bill.heads);
  const { hand } = state;
  if (!same(hand.tokens, d.hand.tokens)) p.set('t', encodeTokens(hand.tokens));
  for (const key of ['q', 'k', 'v', 'wo']) if (!same(hand[key], d.hand[key])) p.set(key, encodeMatrix(hand[key]));
  put('h', hand.heads, d.hand.heads);
  put('mask', hand.causal ? 1 : 0, d.hand.causal ? 1 : 0);
  put('scale', hand.scale ? 1 : 0, d.hand.scale ? 1 : 0);
  if (hand.off.length) p.set('off', hand.off.map((h) => h + 1).join(','));
  put('step', state.step, d.step);
  put('seed1', state.demo.seed1, d.demo.seed1);
  put('seed2', state.demo.seed2, d.demo.seed2);
  const { views } = state;
  put('vs', views.source, d.views.source);
  put('vd', views.dModel, d.views.dModel);
  put('vh', views.heads, d.views.heads);
  if (views.sentence !== null) p.set('vt', views.sentence);
  put('vseed', views.seed, d.views.seed);
  put('vw', views.weightScale, d.views.weightScale);
  put('vmask', views.causal ? 1 : 0, d.views.causal ? 1 : 0);
  return p;
}

/**
 * URLSearchParams → state. Malformed parts fall back to their defaults rather than failing the page;
 * numbers that do not parse stay NaN, and out-of-range ones stay as they are, so the page refuses them
 * with an inline message (checks.js) instead of quietly changing them.
 */
export function fromQuery(params) {
  const state = defaultState();
  const get = (key) => params.get(key);
  const num = (key, fallback) => (get(key) === null ? fallback : Number(get(key)));
  const bool = (key, fallback) => (get(key) === null ? fallback : get(key) === '1');
  if (get('lang') === 'en' || get('lang') === 'zh') state.lang = get('lang');
  state.bill.dModel = num('bd', state.bill.dModel);
  state.bill.heads = num('bh', state.bill.heads);

  const hand = state.hand;
  const tokens = get('t') === null ? hand.tokens : decodeTokens(get('t'), HAND_MAX_TOKENS).map(tokenName);
  const matrix = (key, rows, cols, fallback) => {
    if (get(key) === null) return fallback;
    const m = decodeMatrix(get(key));
    return m.length === rows && m.every((row) => row.length === cols) ? m : fallback;
  };
  if (tokens.length >= 1) {
    const zeros = tokens.map(() => Array(HAND_D_MODEL).fill(0));
    const keep = tokens.length === hand.tokens.length;
    hand.q = matrix('q', tokens.length, HAND_D_MODEL, keep ? hand.q : zeros);
    hand.k = matrix('k', tokens.length, HAND_D_MODEL, keep ? hand.k : zeros);
    hand.v = matrix('v', tokens.length, HAND_D_MODEL, keep ? hand.v : zeros);
    hand.tokens = tokens;
  }
  hand.wo = matrix('wo', HAND_D_MODEL, HAND_D_MODEL, hand.wo);
  const heads = num('h', hand.heads);
  if ([1, 2, 4].includes(heads)) hand.heads = heads;
  hand.causal = bool('mask', hand.causal);
  hand.scale = bool('scale', hand.scale);
  if (get('off')) hand.off = get('off').split(',').map((h) => Number(h) - 1).filter((h) => Number.isInteger(h) && h >= 0 && h < hand.heads);
  const step = num('step', 0);
  state.step = Number.isInteger(step) && step >= 0 && step <= 8 ? step : 0;
  state.demo.seed1 = num('seed1', state.demo.seed1);
  state.demo.seed2 = num('seed2', state.demo.seed2);

  const views = state.views;
  if (get('vs') === 'big') views.source = 'big';
  views.dModel = num('vd', views.dModel);
  views.heads = num('vh', views.heads);
  if (get('vt') !== null) views.sentence = get('vt');
  views.seed = num('vseed', views.seed);
  views.weightScale = num('vw', views.weightScale);
  views.causal = bool('vmask', views.causal);
  return state;
}
