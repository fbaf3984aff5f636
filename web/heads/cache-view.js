// §10's key-value cache, for either model: a step of writing computes the new token's position alone, its
// query against the K rows every earlier step kept (and their V rows), instead of every position again. What a
// step costs with the cache and without it, what the cache holds, and the new query's row drawn for one head.
import { vh, vdoc } from '../ui/dom.js';
import { figure } from '../ui/section.js';
import { rowBars } from '../draw/index.js';
import { layerHead } from './heads.js';

/** The latest cached rows drawn one by one; the ones before are summed into one bar. */
const ROWS_DRAWN = 16;

/**
 * Multiply-adds of the step that adds the `length`-th token (the cache then holds `length` rows) to a GPT-2-style
 * model of this shape. `cached`: the step as it ran, the positions after the `reused` ones it found kept (a step
 * from the cache keeps length - 1: its position alone), each block's q, k, v and W^O (4·d²) and MLP (8·d²) for each,
 * and each one's query against the keys up to its own and its weights times as many values (2·keys·d); `full`: every
 * position again (reused 0). Both end with the one logits row the next token is chosen from.
 */
export function stepCost({ layers, dModel: d, vocabSize }, length, reused = length - 1) {
  const block = 12 * d * d;
  const logits = d * vocabSize;
  const from = (kept) => layers * ((length - kept) * block + (length * (length + 1) - kept * (kept + 1)) * d) + logits;
  return { cached: from(reused), full: from(0) };
}

/** The bytes the cache keeps for one token: its K and V rows in every block, float32. */
export const cacheRowBytes = ({ layers, dModel }) => layers * 2 * dModel * 4;

const count = (value) => Math.round(value).toLocaleString('en-US');
const kilobytes = (bytes) => (bytes / 1024).toLocaleString('en-US', { maximumFractionDigits: bytes < 10240 ? 1 : 0 });

/**
 * One step of writing with the cache: `entries` [{ label, weight, rows }] are the cached rows in order, an entry
 * `rows` of them (1 unless given: a character of several byte tokens), the new token's own last (its K and V go in
 * before its query reads them), `weight` head `index`'s share of the new query's attention; `step` counts the steps
 * written, `config` the model's shape, `rowBytes` a token's share of the cache. `reused`: the positions the step
 * found kept (length - 1 when it computed its own alone; length when the text was computed whole before it, and it only
 * read the last position's output; 0 when the text's window moved and it computed every one);
 * `full`: the cache holds all the model reads at once, and grows no more.
 */
export function cacheView(words, { prefix, step, entries, index, heads, config, length = entries.length, rowBytes = cacheRowBytes(config), reused = length - 1, full = false }) {
  const w = words.cache;
  const [layer, head] = layerHead(index, heads);
  const query = entries.at(-1).label;
  const earlier = entries.length - ROWS_DRAWN;
  const sum = (list, of) => list.reduce((total, entry) => total + of(entry), 0);
  const shown = earlier > 0
    ? [{ label: w.earlierRows(sum(entries.slice(0, earlier), (entry) => entry.rows ?? 1)), weight: sum(entries.slice(0, earlier), (entry) => entry.weight) }, ...entries.slice(earlier)]
    : entries;
  const { cached, full: recomputed } = stepCost(config, length, reused);
  const computed = length - reused;
  const ratio = (recomputed / cached).toFixed(1);
  const cost = computed === 0 ? w.costNone(count(cached), count(recomputed), ratio)
    : computed === 1 ? w.cost(count(cached), count(recomputed), ratio)
      : computed === length ? w.costWhole(count(recomputed), length)
        : w.costPart(count(cached), computed, count(recomputed), ratio);
  // A step that found every position kept (the text was analysed whole before it) reads the last one's query.
  const title = (computed === 0 ? w.rowTitleKept : w.rowTitle)(step, words.tileName(layer, head), query);
  const kb = kilobytes(length * rowBytes);
  return [
    vh('p', { id: `${prefix}-cache-size`, 'data-rows': String(length), 'data-bytes': String(length * rowBytes) },
      [full ? w.sizeFull(length, kb, config.layers) : w.size(length, kb, kilobytes(rowBytes), config.layers)]),
    figure({
      id: `${prefix}-cache-row`,
      caption: title,
      svg: rowBars(vdoc, { labels: shown.map((entry) => entry.label), weights: shown.map((entry) => entry.weight), focus: shown.length - 1, title }),
    }),
    vh('p', { id: `${prefix}-cache-cost`, 'data-cached': String(cached), 'data-full': String(recomputed), 'data-computed': String(computed) }, [cost]),
  ];
}
