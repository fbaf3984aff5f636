import { el, svgRoot, formatNumber, textWidth } from './svg.js';
import { weightColor, textColorFor } from './color.js';
import { FUTURE_COLOR } from './tile.js';

/**
 * One query's attention weights as a list of labelled bars, readable on a phone where a map of 64 × 64 cells is
 * not: a line for each key the query sees (its label, a bar as long as its weight, the weight), the query's own
 * line outlined. Each line is a <g class="bar" data-col data-value>.
 */
export function rowBars(doc, { labels, weights, focus, width = 320, title = '', className = 'mha-bars' }) {
  const line = 22;
  const labelWidth = Math.max(24, ...labels.map((label) => textWidth(label, 13))) + 8;
  const numberWidth = 40;
  const barMax = Math.max(40, width - labelWidth - numberWidth);
  const root = svgRoot(doc, { width, height: weights.length * line + 4, title, className });
  weights.forEach((weight, c) => {
    const y = 2 + c * line;
    const group = el(doc, 'g', { class: 'bar', 'data-col': c, 'data-value': String(weight) });
    group.appendChild(el(doc, 'text', { x: labelWidth - 6, y: y + line / 2, 'text-anchor': 'end', 'dominant-baseline': 'central', 'font-size': 13, fill: '#222' }, [String(labels[c])]));
    group.appendChild(el(doc, 'rect', { x: labelWidth, y: y + 3, width: Math.max(1, weight * barMax), height: line - 6, rx: 2, fill: weightColor(weight),
      stroke: c === focus ? '#222' : null, 'stroke-width': c === focus ? 1.5 : null }));
    group.appendChild(el(doc, 'text', { x: labelWidth + weight * barMax + 4, y: y + line / 2, 'dominant-baseline': 'central', 'font-size': 12, fill: '#333', 'font-variant-numeric': 'tabular-nums' }, [formatNumber(weight, 2)]));
    root.appendChild(group);
  });
  return root;
}

/**
 * One query's attention weights over the text as it reads: every token a tile tinted by the weight the query
 * at `focus` gives it, in reading order, a new line after each token equal to `lineBreak` (a poem's ↵) or
 * where `width` is full; the tokens after the query, which a causal model never sees, in `futureColor`. The
 * query's tile is outlined in red. Each tile is a <g class="query-token" data-index data-value>: a page can make a
 * click on it choose the query.
 */
export function textWeights(doc, { labels, weights, focus, lineBreak = null, futureColor = FUTURE_COLOR, width = 640, title = '', className = 'mha-text-weights' }) {
  const height = 44;
  const gap = 4;
  const places = [];
  let x = 0;
  let y = 0;
  labels.forEach((label, i) => {
    const w = Math.max(34, textWidth(label, 18) + 12);
    if (x > 0 && x + w > width) [x, y] = [0, y + height + gap];
    places.push({ x, y, w });
    x += w + gap;
    if (label === lineBreak) [x, y] = [0, y + height + gap];
  });
  const last = places.at(-1) ?? { y: 0 };
  const root = svgRoot(doc, { width: Math.max(...places.map((p) => p.x + p.w), 40) + 4, height: last.y + height + 4, title, className });
  labels.forEach((label, i) => {
    const { x: left, y: top, w } = places[i];
    const seen = i <= focus;
    const weight = seen ? weights[i] : 0;
    const fill = seen ? weightColor(weight) : futureColor;
    const ink = seen ? textColorFor(fill) : '#555';
    const group = el(doc, 'g', { class: 'query-token', 'data-index': i, 'data-value': seen ? String(weight) : '', cursor: 'pointer' });
    group.appendChild(el(doc, 'rect', { x: left + 2, y: top + 2, width: w, height, rx: 4, fill,
      stroke: i === focus ? '#d62728' : null, 'stroke-width': i === focus ? 3 : null }));
    group.appendChild(el(doc, 'text', { x: left + 2 + w / 2, y: top + 19, 'text-anchor': 'middle', 'dominant-baseline': 'central', 'font-size': 18, fill: ink }, [String(label)]));
    if (seen) group.appendChild(el(doc, 'text', { x: left + 2 + w / 2, y: top + 37, 'text-anchor': 'middle', 'dominant-baseline': 'central', 'font-size': 11, fill: ink, 'font-variant-numeric': 'tabular-nums' }, [formatNumber(weight, 2)]));
    root.appendChild(group);
  });
  return root;
}
