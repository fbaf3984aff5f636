import { el, svgRoot } from './svg.js';

/**
 * Places finished SVGs (from the other drawing functions) side by side or stacked, in one SVG with a
 * title: used to export several heatmaps as a single picture.
 */
export function compose(doc, { parts, direction = 'row', gap = 16, title = '', caption = '' }) {
  const sizes = parts.map((svg) => [Number(svg.getAttribute('width')), Number(svg.getAttribute('height'))]);
  const captionHeight = caption ? 22 : 0;
  const row = direction === 'row';
  const width = row ? sizes.reduce((s, [w]) => s + w, 0) + gap * (parts.length - 1) : Math.max(...sizes.map(([w]) => w));
  const height = captionHeight + (row ? Math.max(...sizes.map(([, h]) => h)) : sizes.reduce((s, [, h]) => s + h, 0) + gap * (parts.length - 1));
  const root = svgRoot(doc, { width: width + 16, height: height + 16, title, className: 'mha-compose' });
  root.appendChild(el(doc, 'rect', { x: 0, y: 0, width: width + 16, height: height + 16, fill: '#ffffff' }));
  if (caption) root.appendChild(el(doc, 'text', { x: 8, y: 20, 'font-size': 14, 'font-weight': 600, fill: '#222' }, [caption]));
  let offset = 0;
  parts.forEach((svg, i) => {
    const [x, y] = row ? [8 + offset, 8 + captionHeight] : [8, 8 + captionHeight + offset];
    const copy = svg.cloneNode(true);
    copy.setAttribute('x', String(x));
    copy.setAttribute('y', String(y));
    root.appendChild(copy);
    offset += (row ? sizes[i][0] : sizes[i][1]) + gap;
  });
  return root;
}
