import { el, svgRoot, formatNumber, matrixGetter, textWidth } from './svg.js';
import { SCALES, textColorFor } from './color.js';

/**
 * A heatmap with the number written in every cell, row/column labels, and an accessible name.
 * values: flat row-major (rows × cols) or nested rows. scale: 'weights' (0..1, viridis) or 'signed'.
 * Each cell is a <g class="cell" data-row data-col data-value> so pages and tests can find it.
 * `masked(r, c)` → true fades a cell and strikes it through (e.g. scores a causal mask will hide); with
 * `maskedColor`, a masked cell is that colour instead, with no number (e.g. weights a causal model never has).
 * `focusRow` outlines that row and sets its label in bold (the query a figure beside it follows).
 */
export function heatmap(doc, {
  values,
  rows,
  cols,
  rowLabels = [],
  colLabels = [],
  scale = 'weights',
  domain,
  digits = 2,
  cell = 44,
  showNumbers = true,
  masked = null,
  maskedColor = null,
  title = '',
  rowHeader = '',
  colHeader = '',
  accent = null,
  focusRow = null,
  className = 'mha-heatmap',
}) {
  const get = matrixGetter(values, cols);
  const flat = [];
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) flat.push(get(r, c));
  const { color, domain: defaultDomain } = SCALES[scale];
  const range = domain ?? defaultDomain(flat);

  const fontSize = Math.max(8, Math.min(13, cell * 0.3));
  const labelWidth = rowLabels.length ? Math.max(...rowLabels.map((l) => textWidth(l, 13))) + 10 : 0;
  // Column labels wider than a cell (words, not characters) are turned 45° so they never overlap; single
  // characters stay upright, in a size that fits the cell, and so do a few longer ones among many (a poem's
  // ⟨始⟩), squeezed into their cell: turning every label for them would pile 64 characters on one another.
  const isLonger = (label) => [...String(label)].length > 1;
  const characters = colLabels.length > 0 && colLabels.filter(isLonger).length * 10 <= colLabels.length;
  const colFont = characters ? Math.max(8, Math.min(13, cell - 2)) : 13;
  const widestColLabel = colLabels.length ? Math.max(...colLabels.map((l) => textWidth(l, 13))) : 0;
  const slanted = !characters && widestColLabel > cell - 4;
  const slant = slanted ? Math.ceil(widestColLabel * Math.SQRT1_2) : 0;
  const headerHeight = colLabels.length ? 20 + slant : 0;
  const top = headerHeight + (colHeader ? 16 : 0);
  const left = labelWidth + (rowHeader ? 16 : 0);
  const width = left + cols * cell + 2 + slant;
  const height = top + rows * cell + 2;

  const root = svgRoot(doc, { width, height, title, className });
  if (colHeader) {
    root.appendChild(el(doc, 'text', { x: left + (cols * cell) / 2, y: 11, 'text-anchor': 'middle', 'font-size': 11, fill: '#555' }, [colHeader]));
  }
  if (rowHeader) {
    const cy = top + (rows * cell) / 2;
    root.appendChild(el(doc, 'text', { x: 11, y: cy, 'text-anchor': 'middle', 'font-size': 11, fill: '#555', transform: `rotate(-90 11 ${cy})` }, [rowHeader]));
  }
  const labels = el(doc, 'g', { 'font-size': 13, fill: '#222', 'aria-hidden': 'true' });
  colLabels.forEach((label, c) => {
    const x = left + c * cell + cell / 2;
    const y = top - 6;
    const squeezed = characters && isLonger(label) && textWidth(String(label), colFont) > cell - 2;
    const attrs = slanted ? { x, y, 'text-anchor': 'start', transform: `rotate(-45 ${x} ${y})` }
      : { x, y, 'text-anchor': 'middle', 'font-size': colFont === 13 ? null : colFont, ...(squeezed ? { textLength: cell - 2, lengthAdjust: 'spacingAndGlyphs' } : {}) };
    labels.appendChild(el(doc, 'text', attrs, [String(label)]));
  });
  rowLabels.forEach((label, r) => {
    labels.appendChild(el(doc, 'text', { x: left - 6, y: top + r * cell + cell / 2, 'text-anchor': 'end', 'dominant-baseline': 'central', 'font-weight': r === focusRow ? 700 : null }, [String(label)]));
  });
  root.appendChild(labels);

  const cells = el(doc, 'g', { class: 'cells' });
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const value = get(r, c);
      const hidden = masked?.(r, c) ?? false;
      const greyed = hidden && maskedColor !== null;
      const fill = greyed ? maskedColor : Number.isFinite(value) ? color(value, range) : '#dddddd';
      const group = el(doc, 'g', { class: hidden ? 'cell masked' : 'cell', 'data-row': r, 'data-col': c, 'data-value': String(value), opacity: hidden && !greyed ? 0.5 : null });
      group.appendChild(el(doc, 'rect', { x: left + c * cell + 1, y: top + r * cell + 1, width: cell - 2, height: cell - 2, rx: 3, fill }));
      if (hidden && !greyed) {
        group.appendChild(el(doc, 'line', { x1: left + c * cell + 3, y1: top + (r + 1) * cell - 3, x2: left + (c + 1) * cell - 3, y2: top + r * cell + 3, stroke: '#555', 'stroke-width': 1 }));
      }
      if (showNumbers && !greyed) {
        group.appendChild(el(doc, 'text', {
          x: left + c * cell + cell / 2,
          y: top + r * cell + cell / 2,
          'text-anchor': 'middle',
          'dominant-baseline': 'central',
          'font-size': fontSize,
          'font-variant-numeric': 'tabular-nums',
          fill: textColorFor(fill),
        }, [formatNumber(value, digits)]));
      }
      cells.appendChild(group);
    }
  }
  root.appendChild(cells);
  if (focusRow !== null && focusRow >= 0 && focusRow < rows) {
    root.appendChild(el(doc, 'rect', { class: 'focus-row', x: left - 1, y: top + focusRow * cell - 1, width: cols * cell + 4, height: cell + 2, fill: 'none', stroke: '#d62728', 'stroke-width': 2, rx: 3 }));
  }
  if (accent) {
    root.appendChild(el(doc, 'rect', { x: left - 1, y: top - 1, width: cols * cell + 4, height: rows * cell + 4, fill: 'none', stroke: accent, 'stroke-width': 2, rx: 4 }));
  }
  return root;
}
