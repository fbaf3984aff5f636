// The page's own checks on its state, made before anything reaches the core. A refusal is a LessonError
// whose `details` hold the values involved, so the page can explain it in its own language (text.js);
// whatever the URL or a box holds, it is refused here with a message, never clamped behind the learner's back.
import { BIG_MAX_TOKENS, BIG_MAX_D_MODEL, BILL_MAX_D_MODEL, WEIGHT_SCALE, tokenize } from './state.js';
import { HAND_BOUNDS, MAX_TOKEN_CHARS } from '../hand/limits.js';
import { SEED_MAX } from '../shared/lesson.js';

/** A refusal by the page: a stable `code` (shown to the learner) and plain `details` for the message. */
export class LessonError extends Error {
  constructor(code, details = {}) {
    super(code);
    this.name = 'LessonError';
    this.code = code;
    this.details = details;
  }
}

/** d_model (or h) must be a whole number from 1 to max. */
function checkSize(name, value, max) {
  if (!Number.isInteger(value) || value < 1) throw new LessonError('BAD_SIZE', { name, value });
  if (value > max) throw new LessonError('TOO_LARGE', { name, value, max });
}

/** h must divide d_model; the message offers the nearest head counts that do. */
function checkHeads(dModel, heads) {
  checkSize('heads', heads, Infinity);
  if (dModel % heads === 0) return;
  let below = Math.min(heads, dModel);
  while (dModel % below) below--;
  let above = heads;
  while (above < dModel && dModel % above) above++;
  throw new LessonError('HEADS_NOT_DIVISOR', { heads, dModel, below, above: heads < dModel ? above : null });
}

export function checkSeed(seed) {
  if (!Number.isInteger(seed) || seed < 0 || seed > SEED_MAX) throw new LessonError('BAD_ARGUMENT', { name: 'seed', value: seed, min: 0, max: SEED_MAX });
}

export function checkBill({ dModel, heads }) {
  checkSize('dModel', dModel, BILL_MAX_D_MODEL);
  checkHeads(dModel, heads);
}

/** Every entry of q, k, v and Wᴼ is a finite number inside its matrix's range (HAND_BOUNDS). */
export function checkHand(hand) {
  for (const name of ['q', 'k', 'v', 'wo']) {
    const [min, max] = HAND_BOUNDS[name];
    hand[name].forEach((row, r) => row.forEach((value, c) => {
      if (!Number.isFinite(value)) throw new LessonError('NOT_FINITE', { name, row: r, column: c });
      if (value < min || value > max) throw new LessonError('OUT_OF_RANGE', { name, row: r, column: c, value, min, max });
    }));
  }
}

/** The random model's settings and sentence; returns the sentence's tokens. */
export function checkViews(views, sentence) {
  checkSize('dModel', views.dModel, BIG_MAX_D_MODEL);
  checkHeads(views.dModel, views.heads);
  checkSeed(views.seed);
  const { min, max } = WEIGHT_SCALE;
  if (!(views.weightScale >= min && views.weightScale <= max)) throw new LessonError('OUT_OF_RANGE', { name: 'weightScale', value: views.weightScale, min, max });
  const tokens = tokenize(sentence);
  if (tokens.length === 0) throw new LessonError('EMPTY');
  if (tokens.length > BIG_MAX_TOKENS) throw new LessonError('SEQ_TOO_LONG', { count: tokens.length, max: BIG_MAX_TOKENS });
  const index = tokens.findIndex((token) => Array.from(token).length > MAX_TOKEN_CHARS);
  if (index >= 0) {
    const chars = Array.from(tokens[index]);
    throw new LessonError('TOKEN_TOO_LONG', { index, start: chars.slice(0, MAX_TOKEN_CHARS).join(''), length: chars.length, max: MAX_TOKEN_CHARS });
  }
  return tokens;
}
