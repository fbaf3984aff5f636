import { el, svgRoot, formatNumber, textWidth } from './svg.js';
import { weightColor } from './color.js';

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
