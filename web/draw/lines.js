import { el, svgRoot, textWidth } from './svg.js';
import { headColor, headDash } from './color.js';

/**
 * BertViz-style head view: the tokens twice (queries on the left, keys on the right) and a line from
 * each query to each key whose opacity and width follow its attention weight, one colour per head
 * (heads 9–16 dashed, see headDash).
 * `focus` (a query index) keeps only that token's lines; `visibleHeads` picks which heads to draw.
 */
export function lineView(doc, {
  tokens,
  attention,
  visibleHeads = attention.map((_, h) => h),
  focus = null,
  rowGap = 32,
  title = '',
  queryLabel = 'query',
  keyLabel = 'key',
}) {
  const L = tokens.length;
  const headerFont = 12;
  // Each side as wide as its words and its heading ("looked at" is wider than 猫 吃 鱼).
  const labelWidth = Math.max(30, ...tokens.map((t) => textWidth(t, 13)), textWidth(queryLabel, headerFont), textWidth(keyLabel, headerFont)) + 8;
  const span = 240;
  const top = 22;
  const width = labelWidth * 2 + span + 8;
  const height = top + L * rowGap + 4;
  const leftX = labelWidth + 4;
  const rightX = leftX + span;
  const rowY = (i) => top + i * rowGap + rowGap / 2;
  const root = svgRoot(doc, { width, height, title, className: 'mha-lines' });

  root.appendChild(el(doc, 'text', { x: leftX, y: 12, 'text-anchor': 'end', 'font-size': headerFont, fill: '#555' }, [queryLabel]));
  root.appendChild(el(doc, 'text', { x: rightX, y: 12, 'text-anchor': 'start', 'font-size': headerFont, fill: '#555' }, [keyLabel]));

  const lines = el(doc, 'g', { class: 'lines', 'stroke-linecap': 'round' });
  const count = visibleHeads.length;
  // With many lines on screen (many heads, no focused word) faint ones are dropped and the rest thinned,
  // so the strong connections stand out, as in BertViz.
  const crowded = focus === null && count * L > 24;
  const threshold = crowded ? 0.1 : 0.005;
  const widthScale = crowded ? 1 / Math.sqrt(count) : 1;
  visibleHeads.forEach((head, n) => {
    // Spread heads a little vertically so overlapping lines of different heads stay visible.
    const offset = count > 1 ? (n - (count - 1) / 2) * Math.min(3, 10 / count) : 0;
    const weights = attention[head];
    for (let i = 0; i < L; i++) {
      if (focus !== null && focus !== i) continue;
      for (let j = 0; j < L; j++) {
        const w = weights[i * L + j];
        if (!(w > threshold)) continue;
        lines.appendChild(el(doc, 'line', {
          x1: leftX + 4, y1: rowY(i) + offset, x2: rightX - 4, y2: rowY(j) + offset,
          stroke: headColor(head),
          'stroke-dasharray': headDash(head),
          'stroke-opacity': crowded ? 0.15 + w * 0.6 : Math.min(1, 0.12 + w * 0.88),
          'stroke-width': (0.6 + w * 3.4) * widthScale,
          'data-head': head, 'data-from': i, 'data-to': j, 'data-weight': w.toFixed(4),
        }));
      }
    }
  });
  root.appendChild(lines);

  const labels = el(doc, 'g', { 'font-size': 13 });
  tokens.forEach((token, i) => {
    const dim = focus !== null && focus !== i;
    labels.appendChild(el(doc, 'text', { x: leftX - 4, y: rowY(i), 'text-anchor': 'end', 'dominant-baseline': 'central', fill: dim ? '#767676' : '#111', 'font-weight': focus === i ? 700 : null, class: 'query-token', 'data-index': i, cursor: 'pointer' }, [String(token)]));
    labels.appendChild(el(doc, 'text', { x: rightX + 4, y: rowY(i), 'dominant-baseline': 'central', fill: '#111', class: 'key-token', 'data-index': i }, [String(token)]));
  });
  root.appendChild(labels);
  return root;
}
