import { el, svgRoot } from './svg.js';
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
 * data-level (see tileLevel), so its cells can be read back. The paths are drawn in cells (the viewBox
 * is L×L, shown `size` pixels wide): a run is a few whole numbers, and a keystroke that adds a row
 * changes only the future's path and those of the bands that row uses.
 */
export function attentionTile(doc, { weights, length: L, size = 96, title = '', off = false }) {
  const { bands, future } = bandPaths(weights, L, (row) => row + 1);
  const root = svgRoot(doc, { width: size, height: size, title, className: `mha-tile${off ? ' off' : ''}` });
  root.setAttribute('viewBox', `0 0 ${L} ${L}`);
  const body = el(doc, 'g', { opacity: off ? 0.35 : null });
  if (future) body.appendChild(el(doc, 'path', { class: 'future', d: future, fill: '#e4e4ea' }));
  bands.forEach((d, level) => {
    if (d) body.appendChild(el(doc, 'path', { 'data-level': level, d, fill: bandColor(level) }));
  });
  root.appendChild(body);
  return root;
}

/** The colour a band's cells are drawn in: the weight at its middle. */
export const bandColor = (level) => weightColor((level + 0.5) / TILE_LEVELS);

/**
 * An L×L map of weights (row-major) as one path per colour band, in cell units (cell (r, c) is the square
 * from (c, r) to (c + 1, r + 1)): `bands[level]` holds the runs of neighbouring cells of that band in each
 * row, merged into rectangles ('' where none). Only the first `seen(row)` cells of a row are drawn; the rest
 * of the row is `future`'s.
 */
export function bandPaths(weights, L, seen = () => L) {
  const runs = Array.from({ length: TILE_LEVELS }, () => []);
  const future = [];
  const rect = (row, from, to) => `M${from} ${row}h${to - from}v1h${from - to}z`;
  for (let row = 0; row < L; row++) {
    const visible = seen(row);
    let start = 0;
    let level = tileLevel(weights[row * L]);
    for (let col = 1; col <= visible; col++) {
      const next = col < visible ? tileLevel(weights[row * L + col]) : -1;
      if (next === level) continue;
      runs[level].push(rect(row, start, col));
      start = col;
      level = next;
    }
    if (visible < L) future.push(rect(row, visible, L));
  }
  return { bands: runs.map((parts) => parts.join('')), future: future.join('') };
}
