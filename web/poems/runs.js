// The page's door to the poetry model (mha.loadPoemModel): loading with progress, one text's forward
// (attention, next-character probabilities, head roles) and generation. Roles use web/poems/head-roles.js's
// definitions, so the page shows the card's numbers; the held-out measure is evaluate.js's HeldOutPass.
import { BOUNDARY_ID, UNKNOWN_ID } from './vocabulary.js';
import { roleQueries, tokenKinds } from './head-roles.js';
import { headRoles } from '../heads/roles.js';
import { everyHeadAttention, lastRows } from '../heads/heads.js';
import { CLAUSE_LENGTHS, FIRST_CLOSE, HAN, SECOND_CLOSE } from './verse.js';


// Where loadPoemModel looks by default (web/poems/ beside web/src/; /poems/ from the bundle in /dist/).
const MODEL_URL = new URL('../poems/poems.safetensors', import.meta.url);

/**
 * Loads the poetry model, reporting the download as it arrives: onProgress(received, total) in bytes.
 * The bytes are handed to loadPoemModel as a blob: URL, so the file is fetched once.
 */
export async function loadPoems(mha, onProgress) {
  return openPoems(mha, await fetchPoemFile(onProgress));
}

/** The poetry model's file as a Blob, reported as it arrives (onProgress(received, total)); null when it cannot be had. */
export async function fetchPoemFile(onProgress) {
  const response = await fetch(MODEL_URL).catch(() => null);
  if (!response?.ok || !response.body) return null; // openPoems then says LOAD_FAILED
  const total = Number(response.headers.get('content-length')) || 0;
  const chunks = [];
  let received = 0;
  for (const reader = response.body.getReader(); ;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    received += value.length;
    onProgress(received, total);
  }
  return new Blob(chunks);
}

/**
 * The poetry model from its file's bytes (a Blob), or with `file` null from where loadPoemModel looks by
 * default. The result keeps `file`, to hand to a worker that needs a model of its own.
 */
export async function openPoems(mha, file) {
  if (!file) return withKinds(await mha.loadPoemModel(), null);
  const url = URL.createObjectURL(file);
  try {
    return withKinds(await mha.loadPoemModel({ model: url }), file);
  } finally {
    URL.revokeObjectURL(url);
  }
}

function withKinds(poems, file) {
  const vocabulary = JSON.parse(poems.model.metadata.vocabulary);
  return { ...poems, vocabulary, kinds: tokenKinds(vocabulary), file };
}

/** The model's input for a text: the poem-opening token, then one token per character, at most the context. */
export const inputIds = (poems, text) => [BOUNDARY_ID, ...poems.encode(text)].slice(0, poems.model.config.context);

/**
 * The position shown first for a text's ids (the opening token, then its characters): the last, unless the text
 * ends a line (a ， or 。 or line break last), whose next is punctuation or the poem's end; then the last position
 * whose next is a character, a prediction a class can weigh (after 地上, is it 霜?).
 */
export function firstPosition(poems, ids) {
  const character = (id) => id !== BOUNDARY_ID && !poems.kinds.separator[id]; // an unknown one too
  const last = ids.length - 1;
  if (character(ids[last])) return last;
  for (let position = last - 1; position >= 0; position--) if (character(ids[position + 1])) return position;
  return last;
}

/**
 * The most positions the page analyses at once, the opening token included: its heat maps, tiles and steps are
 * drawn to be read at 64, and a model may read further (the shipped one reads 128; the writer uses all of it).
 */
export const ANALYSED_POSITIONS = 64;

/** The longest text the page analyses at once: the model's context or ANALYSED_POSITIONS, less the opening token. */
export const maxTextLength = (poems) => Math.min(poems.model.config.context, ANALYSED_POSITIONS) - 1;

/** The longest text the model reads at once (its context less the opening token). */
export const modelTextLength = (poems) => poems.model.config.context - 1;

/** A held-out poem's lines that fit what the page analyses (maxTextLength), whole lines only (at least the first line, clipped). */
export function fittingText(poems, body) {
  const room = maxTextLength(poems);
  let text = '';
  for (const line of body.split(/(?<=\n)/)) {
    if ([...text].length + [...line].length > room) break;
    text += line;
  }
  return text || [...body].slice(0, room).join('');
}

/**
 * One forward of `ids` with the heads in `off` ([layer, head] pairs) switched off: every head's attention
 * (index layer · heads + head), every block's queries, keys and values (L × 3·dModel) and, when `logits` is true, the logits (L × vocabulary, 1.5 MB for a full
 * context: copied only for the predictions that read them), copied out of the wasm heap. On `model`, the
 * poems' own or another instance of it (whose forward keeps what the ids share with its own last one).
 */
export function runText(poems, ids, off = [], { logits = true, model = poems.model } = {}) {
  model.forward(ids, { disabled: off });
  const attention = everyHeadAttention(model);
  const qkv = Array.from({ length: model.config.layers }, (_, layer) => model.qkv(layer).slice());
  return { ids, length: ids.length, attention, qkv, logits: logits ? model.logits().slice() : null };
}

/** Every head's role scores on one forward's attention (runText), with the chance levels and row counts. */
export function textRoles(poems, run) {
  return headRoles(run.attention, run.length, roleQueries(run.ids, poems.kinds));
}

/** Characters that close a sentence of verse: a continuation may stop after one of them, or a line break. */
const SENTENCE_ENDS = new Set(['。', '！', '？', '\n']);

/** A poem's first line, its line break kept (without one, its first sentence): where a new poem can start from. */
export function firstLine(text) {
  const characters = Array.from(text);
  const newline = characters.indexOf('\n');
  const end = newline >= 0 ? newline : characters.findIndex((c) => SENTENCE_ENDS.has(c));
  return end < 0 ? text : characters.slice(0, end + 1).join('');
}

/**
 * The page's poem writer: its temperature and seed at first, and the openings and number of poems its
 * repetition is measured on (card-measures.js): seeds 1, 2, … for each opening in turn.
 */
export const WRITER = Object.freeze({
  temperature: 0.8,
  seed: 1,
  openings: Object.freeze(['床前明月光', '国破山河在', '白日依山尽', '故人西辞黄鹤楼', '春眠不觉晓', '千山鸟飞绝', '空山不见人', '红豆生南国', '海上生明月', '两个黄鹂鸣翠柳']),
  samples: 200,
});

/** Subtracted from a character's logit (its score before the softmax) for each time it already occurs in the poem, under the repetition rule. */
export const REPEAT_PENALTY = 1.5;

/** The logits less REPEAT_PENALTY for each earlier use of a character in the poem (`counts`: id → uses). */
function penalised(logits, counts) {
  const scores = Float32Array.from(logits);
  for (const [id, times] of counts) scores[id] -= REPEAT_PENALTY * times;
  return scores;
}

/**
 * Continues a text one character at a time: the likeliest one (temperature 0), or one drawn from the
 * softmax of logits ÷ temperature with numpy's seeded generator, so a seed always gives the same
 * continuation. It never writes the unknown character, nor punctuation or a line break at the start of a
 * line. After `count` characters it goes on to the end of the sentence or line it is in (at most a context
 * more), and it stops early where the model ends the poem: then `ended` is true; unless `pastTheEnd`, when
 * it never ends the poem (writing on after a poem the model finds complete). `advance(ms)` as evaluate.js's HeldOutPass's.
 *
 * With `verse`, it writes regular verse (web/poems/verse.js) instead, and `count` does not matter: every
 * clause as long as the poem's first (5 or 7 characters while the first is unfinished), closed by ， and 。 in
 * turn, a line break only after a couplet; the poem may end only where a couplet closes with 4 clauses, and
 * ends there at 8 (past 8, at the next multiple of 4). `pastTheEnd` then writes on, never ending it, to the
 * next multiple of 4 clauses. With `repetition` too, no rhyme character (a couplet's last) is used twice, and
 * every character already in the poem has REPEAT_PENALTY taken off its logit for each time it occurs.
 *
 * Each character after the first of a call to advance is a step from the model's key-value cache (model.step):
 * its position alone is computed, the ones before read from the cache. The first is a forward of the text, since
 * the model may have read another text between two calls (a forward keeps the rows it shares with the last), and
 * so is every character once the text is longer than the context: its window then moves, and every position with
 * it. `last` says how the last character was chosen: { ids (the window read), stepped, slid (the window moved), full (the
 * window is the context: the next character moves it, and the cache grows no more), reused (the
 * positions the model found kept, model.reused: all but the last after a step), steps (how many so far),
 * rows (with `rows`: every head's attention row of the last position, lastRows) }.
 */
export class Continuation {
  constructor(poems, mha, { ids, off, count, temperature, seed, pastTheEnd = false, verse = false, repetition = false, rows = false }) {
    Object.assign(this, { poems, ids: [...ids], off, count, temperature, pastTheEnd, verse, repetition, rows, added: [], ended: false, stopped: false, last: null });
    this.random = temperature > 0 ? mha.randomState(seed) : null;
    this.ends = new Set(poems.vocabulary.flatMap((token, id) => (SENTENCE_ENDS.has(token) ? [id] : [])));
    if (verse) {
      const id = (token) => poems.vocabulary.indexOf(token);
      this.marks = { first: id(FIRST_CLOSE), second: id(SECOND_CLOSE), lineBreak: id('\n') };
      this.character = Uint8Array.from(poems.vocabulary, (token, i) => (i !== UNKNOWN_ID && HAN.test(token) ? 1 : 0));
      const { done } = this.#form();
      this.stopAt = pastTheEnd ? 4 * (Math.floor(done / 4) + 1) : null;
    }
  }

  get finished() {
    if (this.ended || this.stopped) return true;
    if (this.verse) return this.added.length >= 4 * this.poems.model.config.context; // the form ends it long before
    if (this.added.length >= this.count + this.poems.model.config.context) return true;
    return this.added.length >= this.count && this.ends.has(this.added.at(-1));
  }

  /** Writes for `ms` milliseconds, at most `most` characters; whether it has finished. */
  advance(ms, most = Infinity) {
    const { model } = this.poems;
    const end = performance.now() + ms;
    const start = this.added.length;
    let resumed = false; // a forward has read the text in this call: steps may follow it
    while (!this.finished && this.added.length - start < most && performance.now() < end) {
      const form = this.verse ? this.#form() : null;
      const rule = form ? this.#verseRule(form) : { allowed: this.#allowed(this.ids.at(-1)) };
      if (rule.end) {
        this.ended = true;
        continue;
      }
      if (rule.stop) {
        this.stopped = true;
        continue;
      }
      const logits = this.#read(resumed);
      resumed = true;
      const next = this.#choose(this.repetition && form ? penalised(logits, form.counts) : logits, rule.allowed);
      if (next === BOUNDARY_ID) this.ended = true;
      else if (next < 0) this.stopped = true; // nothing allowed (a vocabulary without ， or 。): stop, never write -1
      else {
        this.ids.push(next);
        this.added.push(next);
      }
    }
    if (this.rows && this.last && !this.last.rows) this.last.rows = lastRows(model);
    return this.finished;
  }

  /** The next character's logits: a step from the cache when it holds the text but its last id, else a forward. */
  #read(resumed) {
    const { model } = this.poems;
    const { context, vocabSize } = model.config;
    const window = this.ids.slice(-context);
    const stepped = resumed && this.ids.length <= context && model.length === window.length - 1;
    if (stepped) model.step(window.at(-1), { disabled: this.off });
    else model.forward(window, { disabled: this.off });
    this.last = { ids: window, stepped, slid: this.ids.length > context, full: window.length >= context, reused: model.reused, steps: (this.last?.steps ?? 0) + 1, rows: null };
    return model.logits().subarray((window.length - 1) * vocabSize, window.length * vocabSize);
  }

  /** Whether a token may come next after `last`: never the unknown one; no separator at a line's start; past the end, no end. */
  #allowed(last) {
    const lineStart = last === BOUNDARY_ID || this.poems.vocabulary[last] === '\n';
    const { separator } = this.poems.kinds;
    return (id) => id !== UNKNOWN_ID && !(lineStart && separator[id]) && !(this.pastTheEnd && id === BOUNDARY_ID);
  }

  /**
   * The poem being written (after the text's last <|poem|>): `done`, its clauses closed; `run`, the characters
   * of the clause under way; `length`, its first clause's length (null until it is closed); `rhymes`, the ids
   * of its couplets' last characters; `counts`, how often each character id occurs in it.
   */
  #form() {
    const start = this.ids.lastIndexOf(BOUNDARY_ID) + 1;
    const { vocabulary } = this.poems;
    let done = 0;
    let run = 0;
    let length = null;
    let lastCharacter = -1;
    const rhymes = new Set();
    const counts = new Map();
    for (const id of this.ids.slice(start)) {
      const token = vocabulary[id];
      if (id === UNKNOWN_ID || HAN.test(token)) {
        run++;
        lastCharacter = id;
        counts.set(id, (counts.get(id) ?? 0) + 1);
      } else if (token !== '\n' && run) {
        length ??= run;
        if (done % 2 === 1) rhymes.add(lastCharacter);
        done++;
        run = 0;
      }
    }
    return { done, run, length, rhymes, counts, last: this.ids.at(-1) };
  }

  /**
   * What the verse rules let come next: { allowed } (a test of ids), or { end: true } where the poem must end
   * here, or { stop: true } where a continuation past the end has written its clauses.
   */
  #verseRule({ done, run, length, rhymes, last }) {
    const { first, second, lineBreak } = this.marks;
    const close = done % 2 ? second : first;
    const character = (id) => this.character[id] === 1;
    if (run > 0) {
      const atRhyme = this.repetition && done % 2 === 1 && length !== null && run === length - 1;
      const char = atRhyme ? (id) => character(id) && !rhymes.has(id) : character;
      if (length === null) {
        const [shortest, longest] = CLAUSE_LENGTHS;
        if (run >= longest) return { allowed: (id) => id === close };
        return { allowed: run === shortest ? (id) => character(id) || id === close : character };
      }
      return { allowed: run < length ? char : (id) => id === close };
    }
    const coupletClosed = done > 0 && done % 2 === 0;
    const atStop = coupletClosed && done >= 4 && done % 4 === 0;
    const lineStart = last === BOUNDARY_ID || last === lineBreak;
    if (this.pastTheEnd && coupletClosed && done >= this.stopAt && last !== lineBreak) return { stop: true };
    if (!this.pastTheEnd && atStop && done >= 8) return { end: true };
    const mayEnd = !this.pastTheEnd && atStop;
    if (lineStart || !coupletClosed) return { allowed: (id) => character(id) || (mayEnd && lineStart && id === BOUNDARY_ID) };
    return { allowed: (id) => id === lineBreak || (mayEnd && id === BOUNDARY_ID) };
  }

  #choose(scores, allowed) {
    let best = -1;
    for (let id = 0; id < scores.length; id++) if (allowed(id) && (best < 0 || scores[id] > scores[best])) best = id;
    if (!this.random) return best;
    const weights = Float64Array.from(scores, (score, id) => (allowed(id) ? Math.exp((score - scores[best]) / this.temperature) : 0));
    let left = this.random.randomSample(1)[0] * weights.reduce((a, b) => a + b, 0);
    for (let id = 0; id < weights.length; id++) {
      left -= weights[id];
      if (left < 0) return id;
    }
    return best;
  }
}
