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
 * model of this shape. `cached`: its position alone, each block's q, k, v and W^O (4·d²) and MLP (8·d²), its query
 * against `length` keys and its weights times `length` values (2·length·d); `full`: every position again, each
 * query against the keys up to its own (causal). Both end with the one logits row the next token is chosen from.
 */
export function stepCost({ layers, dModel: d, vocabSize }, length) {
  const block = 12 * d * d;
  const logits = d * vocabSize;
  return {
    cached: layers * (block + 2 * length * d) + logits,
    full: layers * (length * block + length * (length + 1) * d) + logits,
  };
}

/** The bytes the cache keeps for one token: its K and V rows in every block, float32. */
export const cacheRowBytes = ({ layers, dModel }) => layers * 2 * dModel * 4;

const count = (value) => Math.round(value).toLocaleString('en-US');
const kilobytes = (bytes) => (bytes / 1024).toLocaleString('en-US', { maximumFractionDigits: bytes < 10240 ? 1 : 0 });

/**
 * One step of writing with the cache: `entries` [{ label, weight }] are the cached rows in order, the new token's
 * own last (its K and V go in before its query reads them), `weight` head `index`'s share of the new query's
 * attention; `step` counts the steps written, `config` the model's shape, `rowBytes` a token's share of the cache.
 */
export function cacheView(words, { prefix, step, entries, index, heads, config, length = entries.length, rowBytes = cacheRowBytes(config) }) {
  const w = words.cache;
  const [layer, head] = layerHead(index, heads);
  const query = entries.at(-1).label;
  const earlier = entries.length - ROWS_DRAWN;
  const shown = earlier > 0
    ? [{ label: w.earlierRows(earlier), weight: entries.slice(0, earlier).reduce((sum, entry) => sum + entry.weight, 0) }, ...entries.slice(earlier)]
    : entries;
  const { cached, full } = stepCost(config, length);
  const title = w.rowTitle(step, words.tileName(layer, head), query);
  return [
    vh('p', { id: `${prefix}-cache-size`, 'data-rows': String(length), 'data-bytes': String(length * rowBytes) }, [w.size(length, kilobytes(length * rowBytes), kilobytes(rowBytes), config.layers)]),
    figure({
      id: `${prefix}-cache-row`,
      caption: title,
      svg: rowBars(vdoc, { labels: shown.map((entry) => entry.label), weights: shown.map((entry) => entry.weight), focus: shown.length - 1, title }),
    }),
    vh('p', { id: `${prefix}-cache-cost`, 'data-cached': String(cached), 'data-full': String(full) }, [w.cost(count(cached), count(full), (full / cached).toFixed(1))]),
  ];
}
