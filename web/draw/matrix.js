import { el, svgRoot, formatNumber, matrixGetter, textWidth } from './svg.js';
import { headColor, tint, textColorFor, SCALES } from './color.js';

/**
 * A matrix of numbers whose columns are coloured by the head they belong to (a tinted background and
 * a coloured band above), e.g. q/k/v slices or the concat. headOf(col) → head index, or null for a
 * neutral column. Heads listed in `disabledHeads` are drawn greyed (head ablation).
 * With `fill: 'signed'` the cells are coloured by value instead (over `domain`, by default the matrix's
 * own largest magnitude), and the band alone shows the head. `showNumbers: false` leaves the numbers out (cells
 * too small to read them). `format` writes a number (by default with `digits` decimals).
 */
export function matrixView(doc, {
  values,
  rows,
  cols,
  rowLabels = [],
  colLabels = [],
  headOf = () => null,
  headLabel = (head) => `h${head + 1}`,
  disabledHeads = [],
  fill = 'head',
  domain,
  digits = 2,
  format = (value) => formatNumber(value, digits),
  cell = 44,
  showNumbers = true,
  title = '',
  className = 'mha-matrix',
}) {
  const get = matrixGetter(values, cols);
  const labelWidth = rowLabels.length ? Math.max(...rowLabels.map((l) => textWidth(l, 13))) + 10 : 0;
  const hasHeads = Array.from({ length: cols }, (_, c) => headOf(c)).some((h) => h !== null);
  const bandHeight = hasHeads ? 16 : 0;
  const labelHeight = colLabels.length ? 18 : 0;
  const top = bandHeight + labelHeight;
  const left = labelWidth;
  const width = left + cols * cell + 2;
  const height = top + rows * cell + 2;
  const flat = [];
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) flat.push(get(r, c));
  const signedRange = domain ?? SCALES.signed.domain(flat);

  const root = svgRoot(doc, { width, height, title, className });

  // Coloured band: one segment per run of columns from the same head, labelled h1, h2, …
  if (hasHeads) {
    const band = el(doc, 'g', { class: 'head-band' });
    let start = 0;
    for (let c = 1; c <= cols; c++) {
      if (c < cols && headOf(c) === headOf(start)) continue;
      const head = headOf(start);
      if (head !== null) {
        const off = disabledHeads.includes(head);
        const color = off ? '#9a9a9a' : headColor(head);
        band.appendChild(el(doc, 'rect', { x: left + start * cell + 1, y: 0, width: (c - start) * cell - 2, height: bandHeight - 3, rx: 3, fill: color, 'data-head': head }));
        band.appendChild(el(doc, 'text', { x: left + ((start + c) / 2) * cell, y: (bandHeight - 3) / 2, 'text-anchor': 'middle', 'dominant-baseline': 'central', 'font-size': 10, 'font-weight': 600, fill: textColorFor(color) }, [headLabel(head) + (off ? ' ✕' : '')]));
      }
      start = c;
    }
    root.appendChild(band);
  }
  const labels = el(doc, 'g', { 'font-size': 12, fill: '#444', 'aria-hidden': 'true' });
  colLabels.forEach((label, c) => {
    labels.appendChild(el(doc, 'text', { x: left + c * cell + cell / 2, y: top - 5, 'text-anchor': 'middle' }, [String(label)]));
  });
  rowLabels.forEach((label, r) => {
    labels.appendChild(el(doc, 'text', { x: left - 6, y: top + r * cell + cell / 2, 'text-anchor': 'end', 'dominant-baseline': 'central', 'font-size': 13, fill: '#222' }, [String(label)]));
  });
  root.appendChild(labels);

  const cells = el(doc, 'g', { class: 'cells' });
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const value = get(r, c);
      const head = headOf(c);
      const off = head !== null && disabledHeads.includes(head);
      let background;
      if (fill === 'signed') background = Number.isFinite(value) ? SCALES.signed.color(value, signedRange) : '#dddddd';
      else if (off) background = '#eeeeee';
      else background = head === null ? '#f4f4f4' : tint(headColor(head), 0.2);
      const group = el(doc, 'g', { class: 'cell', 'data-row': r, 'data-col': c, 'data-value': String(value), 'data-head': head });
      group.appendChild(el(doc, 'rect', { x: left + c * cell + 1, y: top + r * cell + 1, width: cell - 2, height: cell - 2, rx: 3, fill: background, stroke: head === null || off ? '#d0d0d0' : headColor(head), 'stroke-opacity': 0.5 }));
      if (showNumbers) group.appendChild(el(doc, 'text', {
        x: left + c * cell + cell / 2,
        y: top + r * cell + cell / 2,
        'text-anchor': 'middle',
        'dominant-baseline': 'central',
        'font-size': Math.max(8, Math.min(13, cell * 0.3)),
        'font-variant-numeric': 'tabular-nums',
        fill: off ? '#777777' : textColorFor(background),
      }, [format(value)]));
      cells.appendChild(group);
    }
  }
  root.appendChild(cells);
  return root;
}
