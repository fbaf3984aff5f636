// The page's door to the poetry model (mha.loadPoemModel): loading with progress, one text's forward
// (attention, next-character probabilities, head roles) and generation. Roles use web/poems/head-roles.js's
// definitions, so the page shows the card's numbers; the held-out measure is evaluate.js's HeldOutPass.
import { BOUNDARY_ID, UNKNOWN_ID } from './vocabulary.js';
import { roleQueries, tokenKinds } from './head-roles.js';
import { headRoles } from '../heads/roles.js';
import { everyHeadAttention } from '../heads/heads.js';

// Where loadPoemModel looks by default (web/poems/ beside web/src/; /poems/ from the bundle in /dist/).
const MODEL_URL = new URL('../poems/poems.safetensors', import.meta.url);

/**
 * Loads the poetry model, reporting the download as it arrives: onProgress(received, total) in bytes.
 * The bytes are handed to loadPoemModel as a blob: URL, so the file is fetched once.
 */
export async function loadPoems(mha, onProgress) {
  const response = await fetch(MODEL_URL).catch(() => null);
  if (!response?.ok || !response.body) return openPoems(mha, null); // its own LOAD_FAILED
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
  return openPoems(mha, new Blob(chunks));
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

/** The longest text the model reads at once (its context less the opening token). */
export const maxTextLength = (poems) => poems.model.config.context - 1;

/** A held-out poem's lines that fit the model's context, whole lines only (at least the first line, clipped). */
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
 * Continues a text one character at a time: the likeliest one (temperature 0), or one drawn from the
 * softmax of logits ÷ temperature with numpy's seeded generator, so a seed always gives the same
 * continuation. It never writes the unknown character, nor punctuation or a line break at the start of a
 * line. After `count` characters it goes on to the end of the sentence or line it is in (at most a context
 * more), and it stops early where the model ends the poem: then `ended` is true; unless `pastTheEnd`, when
 * it never ends the poem (writing on after a poem the model finds complete). `advance(ms)` as evaluate.js's HeldOutPass's.
 */
export class Continuation {
  constructor(poems, mha, { ids, off, count, temperature, seed, pastTheEnd = false }) {
    Object.assign(this, { poems, ids: [...ids], off, count, temperature, pastTheEnd, added: [], ended: false });
    this.random = temperature > 0 ? mha.randomState(seed) : null;
    this.ends = new Set(poems.vocabulary.flatMap((token, id) => (SENTENCE_ENDS.has(token) ? [id] : [])));
  }

  get finished() {
    if (this.ended || this.added.length >= this.count + this.poems.model.config.context) return true;
    return this.added.length >= this.count && this.ends.has(this.added.at(-1));
  }

  advance(ms) {
    const { model } = this.poems;
    const { context, vocabSize } = model.config;
    const end = performance.now() + ms;
    while (!this.finished && performance.now() < end) {
      const window = this.ids.slice(-context);
      model.forward(window, { disabled: this.off });
      const next = this.#choose(model.logits().subarray((window.length - 1) * vocabSize, window.length * vocabSize), this.#allowed(window.at(-1)));
      if (next === BOUNDARY_ID) this.ended = true;
      else {
        this.ids.push(next);
        this.added.push(next);
      }
    }
    return this.finished;
  }

  /** Whether a token may come next after `last`: never the unknown one; no separator at a line's start; past the end, no end. */
  #allowed(last) {
    const lineStart = last === BOUNDARY_ID || this.poems.vocabulary[last] === '\n';
    const { separator } = this.poems.kinds;
    return (id) => id !== UNKNOWN_ID && !(lineStart && separator[id]) && !(this.pastTheEnd && id === BOUNDARY_ID);
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
