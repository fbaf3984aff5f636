import { el, svgRoot, formatNumber, textWidth } from './svg.js';
import { SCALES, headColor, headDash } from './color.js';

/**
 * A colour bar for a named scale over a domain, with its end and middle values written under it
 * (or `tickLabels`, three texts such as ['−', '0', '+'] when each matrix is scaled on its own).
 * `steps` draws the bar as that many solid blocks instead of a gradient: no id, so a figure can hold
 * several bars and be copied into any document. `fontSize` sizes its words (a figure's key matches its labels).
 */
export function legend(doc, { scale = 'weights', domain, title = '', width = 220, id = 'legend', digits = 2, tickLabels, steps = 0, fontSize = 11 }) {
  const { color, domain: defaultDomain } = SCALES[scale];
  const [lo, hi] = domain ?? defaultDomain([]);
  const barHeight = 12;
  const top = title ? fontSize + 5 : 2;
  const root = svgRoot(doc, { width: Math.max(width + 20, textWidth(title, fontSize) + 14), height: top + barHeight + fontSize + 7, title, className: 'mha-legend' });
  let bar;
  if (steps) {
    bar = el(doc, 'g', { class: 'bar' });
    for (let i = 0; i < steps; i++) {
      bar.appendChild(el(doc, 'rect', { x: 10 + (i * width) / steps, y: top, width: width / steps + 0.5, height: barHeight, fill: color(lo + ((i + 0.5) / steps) * (hi - lo), [lo, hi]) }));
    }
  } else {
    const gradientId = `${id}-gradient`;
    const gradient = el(doc, 'linearGradient', { id: gradientId, x1: 0, x2: 1, y1: 0, y2: 0 });
    const stops = 10;
    for (let i = 0; i <= stops; i++) {
      const t = i / stops;
      gradient.appendChild(el(doc, 'stop', { offset: `${Math.round(t * 100)}%`, 'stop-color': color(lo + t * (hi - lo), [lo, hi]) }));
    }
    root.appendChild(el(doc, 'defs', {}, [gradient]));
    bar = el(doc, 'rect', { x: 10, y: top, width, height: barHeight, rx: 2, fill: `url(#${gradientId})` });
  }
  if (title) root.appendChild(el(doc, 'text', { x: 10, y: fontSize, 'font-size': fontSize, fill: '#444' }, [title]));
  root.appendChild(bar);
  const ticks = [lo, (lo + hi) / 2, hi];
  ticks.forEach((value, i) => {
    const x = 10 + (i / 2) * width;
    root.appendChild(el(doc, 'text', { x, y: top + barHeight + fontSize + 2, 'font-size': fontSize, fill: '#444', 'text-anchor': ['start', 'middle', 'end'][i] }, [tickLabels ? tickLabels[i] : formatNumber(value, digits)]));
  });
  return root;
}

/**
 * Swatches naming each head's colour: "h1 h2 …" (switched-off heads are struck through); `heads` of them,
 * starting at head `first`.
 */
export function headKey(doc, { heads, first = 0, label = (head) => `h${head + 1}`, disabledHeads = [], title = '' }) {
  // Wide enough for the longest label ("Head 12", "头 3") after its 17 px swatch.
  const itemWidth = Math.max(46, ...Array.from({ length: heads }, (_, n) => 17 + textWidth(label(first + n), 12) + 10));
  const root = svgRoot(doc, { width: heads * itemWidth, height: 20, title, className: 'mha-head-key' });
  for (let head = first; head < first + heads; head++) {
    const off = disabledHeads.includes(head);
    const x = (head - first) * itemWidth;
    // A dashed head (see headDash) gets a dashed swatch, as its lines are.
    const dashed = headDash(head) !== null;
    root.appendChild(el(doc, 'rect', { x: x + 1, y: 4, width: 12, height: 12, rx: 2, fill: off ? '#bbbbbb' : dashed ? '#ffffff' : headColor(head), stroke: dashed && !off ? headColor(head) : null, 'stroke-width': dashed ? 2 : null, 'stroke-dasharray': dashed ? '3 2' : null }));
    root.appendChild(el(doc, 'text', { x: x + 17, y: 10, 'dominant-baseline': 'central', 'font-size': 12, fill: off ? '#888' : '#222', 'text-decoration': off ? 'line-through' : null }, [label(head)]));
  }
  return root;
}
