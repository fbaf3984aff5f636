import { el, svgRoot, px } from './svg.js';
import { weightColor } from './color.js';

/** How finely a tile's colours follow the weights: 32 bands of 1/32 each (the eye tells no more apart on a thumbnail). */
export const TILE_LEVELS = 32;

/** The colour band of a weight in [0, 1]: what a tile draws for it. */
export const tileLevel = (weight) => Math.min(TILE_LEVELS - 1, Math.max(0, Math.floor(weight * TILE_LEVELS)));

/**
 * One head's causal attention (L×L, row-major) as a thumbnail without numbers, cheap enough to draw a
 * dozen 64×64 heads on every keystroke: the cells of one colour band are a single <path> (runs of
 * neighbouring cells in a row merged into one rectangle), so a tile is a few dozen elements whatever L
 * is. The future, which a causal head cannot see, is one light grey path. Each band's path carries
 * data-level (see tileLevel), so its cells can be read back.
 */
export function attentionTile(doc, { weights, length: L, size = 96, title = '', off = false }) {
  const cell = size / L;
  const runs = Array.from({ length: TILE_LEVELS }, () => []);
  const future = [];
  const rect = (row, from, to) => `M${px(from * cell)} ${px(row * cell)}h${px((to - from) * cell)}v${px(cell)}h${px(-(to - from) * cell)}z`;
  for (let row = 0; row < L; row++) {
    let start = 0;
    for (let col = 1; col <= row + 1; col++) {
      if (col <= row && tileLevel(weights[row * L + col]) === tileLevel(weights[row * L + start])) continue;
      runs[tileLevel(weights[row * L + start])].push(rect(row, start, col));
      start = col;
    }
    if (row + 1 < L) future.push(rect(row, row + 1, L));
  }
  const root = svgRoot(doc, { width: size, height: size, title, className: `mha-tile${off ? ' off' : ''}` });
  const body = el(doc, 'g', { opacity: off ? 0.35 : null });
  if (future.length) body.appendChild(el(doc, 'path', { class: 'future', d: future.join(''), fill: '#e4e4ea' }));
  runs.forEach((parts, level) => {
    if (parts.length) body.appendChild(el(doc, 'path', { 'data-level': level, d: parts.join(''), fill: weightColor((level + 0.5) / TILE_LEVELS) }));
  });
  root.appendChild(body);
  return root;
}
