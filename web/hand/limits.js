// The hand example's sizes and ranges, and its starting values: one place for the section, the page's
// state and link, and its checks.
import { lessonExample, identity } from '../shared/lesson.js';

export const HAND_D_MODEL = 4;
export const HAND_MAX_TOKENS = 8;
/** The longest word, in characters, wherever it comes from: a name box, the sentence, or the URL. */
export const MAX_TOKEN_CHARS = 12;
/** The one range of each hand matrix's entries: its slider's, its typed box's and the URL's. */
export const HAND_BOUNDS = { q: [-3, 3], k: [-3, 3], v: [-3, 3], wo: [-2, 2] };

/** The lesson's 猫吃鱼 with two heads, W^O the identity and every head on. */
export function defaultHand() {
  return {
    ...lessonExample(), // tokens, q, k, v: the lesson's 猫吃鱼
    heads: 2,
    causal: false,
    scale: true,
    wo: identity(HAND_D_MODEL),
    off: [], // switched-off heads (0-based), for the ablation
  };
}

/** A word as the page keeps it: spaces trimmed, at most MAX_TOKEN_CHARS characters, the row number when empty. */
export function tokenName(name, row) {
  return Array.from(name.trim()).slice(0, MAX_TOKEN_CHARS).join('').trim() || String(row + 1);
}
