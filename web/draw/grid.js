import { el, svgRoot, textWidth } from './svg.js';
import { headColor, headInk } from './color.js';
import { bandColor, bandPaths } from './tile.js';

/**
 * All heads at a glance: one small heatmap (no numbers) per head, in a grid, for larger h and longer
 * sentences. Token labels are written beside the first column when the cells are big enough.
 * `first` and `count` pick a run of heads to draw (all of them by default). Given `width` (the room in
 * px), the grid is compact: as few rows as fit with tiles at least `minTile` px, so many heads stay a
 * screen or two tall; otherwise it has `columns` columns.
 */
export function headGrid(doc, {
  tokens,
  attention,
  enabled = attention.map(() => true),
  first = 0,
  count = attention.length - first,
  columns,
  width: room,
  minTile = 56,
  cell,
  title = '',
  headLabel = (head) => `h${head + 1}`,
}) {
  const L = tokens.length;
  const preferred = cell ?? Math.max(4, Math.min(30, Math.floor(180 / L)));
  const labelWidth = Math.max(...tokens.map((t) => textWidth(t, 10))) + 6;
  const captionHeight = 16;
  const fit = (cols, gap) => {
    const sizeWith = (left) => Math.min(preferred, Math.floor((room - left - (cols - 1) * gap - 4) / (cols * L)));
    const withLabels = sizeWith(labelWidth);
    return withLabels >= 9 ? withLabels : sizeWith(2);
  };
  let size = preferred;
  let gap = 14;
  columns ??= Math.min(4, count);
  if (room) {
    // The widest grid whose tiles stay readable sets the number of rows; then as few columns as keep it.
    gap = 8;
    let widest = 1;
    for (let c = Math.min(count, 8); c >= 1; c--) if (fit(c, gap) * L >= minTile || c === 1) { widest = c; break; }
    const rows = Math.ceil(count / widest);
    columns = Math.ceil(count / rows);
    size = Math.max(2, fit(columns, gap));
  }
  const tileWidth = L * size;
  const rowsOfTiles = Math.ceil(count / columns);
  const showLabels = size >= 9;
  const left = showLabels ? labelWidth : 2;
  const width = left + columns * tileWidth + (columns - 1) * gap + 4;
  const height = rowsOfTiles * (captionHeight + tileWidth + gap);
  const root = svgRoot(doc, { width, height, title, className: 'mha-grid' });

  for (let n = 0; n < count; n++) {
    const head = first + n;
    const weights = attention[head];
    const col = n % columns;
    const row = Math.floor(n / columns);
    const x0 = left + col * (tileWidth + gap);
    const y0 = row * (captionHeight + tileWidth + gap) + captionHeight;
    const tile = el(doc, 'g', { class: 'tile', 'data-head': head, opacity: enabled[head] ? 1 : 0.35 });
    // The label in the head's colour darkened to read on white (yellow h8 stays legible).
    tile.appendChild(el(doc, 'text', { x: x0, y: y0 - 5, 'font-size': 11, 'font-weight': 600, fill: headInk(head) }, [headLabel(head)]));
    // A path per colour band, not a rect per cell: the browser records and rasters a few dozen shapes a
    // head instead of L² on every slider step.
    const cells = el(doc, 'g', { transform: `translate(${x0} ${y0}) scale(${size})` });
    bandPaths(weights, L).forEach((d, level) => {
      if (d) cells.appendChild(el(doc, 'path', { 'data-level': level, d, fill: bandColor(level) }));
    });
    tile.appendChild(cells);
    tile.appendChild(el(doc, 'rect', { x: x0, y: y0, width: tileWidth, height: tileWidth, fill: 'none', stroke: headColor(head), 'stroke-width': 1.5 }));
    if (showLabels && col === 0) {
      tokens.forEach((token, i) => {
        tile.appendChild(el(doc, 'text', { x: x0 - 3, y: y0 + i * size + size / 2, 'text-anchor': 'end', 'dominant-baseline': 'central', 'font-size': Math.min(10, size), fill: '#333' }, [String(token)]));
      });
    }
    root.appendChild(tile);
  }
  return root;
}
