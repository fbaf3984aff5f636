// Small helpers shared by every drawing function. Drawing takes the `document` as a parameter
// so the same code renders in the browser and, for the golden tests, in linkedom under Node.

export const SVG_NS = 'http://www.w3.org/2000/svg';
export const FONT_FAMILY =
  "system-ui, -apple-system, 'Segoe UI', 'Noto Sans CJK SC', 'PingFang SC', 'Microsoft YaHei', sans-serif";

/** Rounds coordinates to 0.01 px so the SVG text is stable and short. */
export const px = (value) => Math.round(value * 100) / 100;

/** Creates an SVG element with attributes (null/undefined ones are skipped) and children. */
export function el(doc, tag, attrs = {}, children = []) {
  const node = doc.createElementNS(SVG_NS, tag);
  for (const name in attrs) {
    const value = attrs[name];
    if (value === null || value === undefined || value === false) continue;
    node.setAttribute(name, typeof value === 'number' ? String(px(value)) : String(value));
  }
  for (const child of [].concat(children)) {
    if (child === null || child === undefined || child === false) continue;
    node.appendChild(typeof child === 'string' ? doc.createTextNode(child) : child);
  }
  return node;
}

/** A root <svg> sized in CSS pixels, with an accessible name and a <title> tooltip. */
export function svgRoot(doc, { width, height, title, className }) {
  const root = el(doc, 'svg', {
    xmlns: SVG_NS,
    viewBox: `0 0 ${px(width)} ${px(height)}`,
    width,
    height,
    role: 'img',
    'aria-label': title,
    class: className,
    'font-family': FONT_FAMILY,
  });
  if (title) root.appendChild(el(doc, 'title', {}, [title]));
  return root;
}

/**
 * Formats a number for a cell: fixed digits, no "-0.00". From 1000 up it switches to two significant
 * digits in e-notation ("1.2e20"), and infinities are "∞", so no value can outgrow its cell.
 */
export function formatNumber(value, digits = 2) {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '∞' : '−∞';
  if (Math.abs(value) >= 1000) return value.toExponential(1).replace('e+', 'e');
  const text = value.toFixed(digits);
  return /^-0\.?0*$/.test(text) ? text.slice(1) : text;
}

/** A weight as formatNumber writes it in a cell (two decimals), in whole percent (0.4235 → 42): what a sentence beside the figure may say. */
export const shownPercent = (weight) => Math.round(Number(weight.toFixed(2)) * 100);

/** Accepts a flat row-major array (with rows/cols) or nested rows; returns a getter (r, c) => value. */
export function matrixGetter(values, cols) {
  if (values.length && typeof values[0] === 'object' && values[0] !== null && 'length' in values[0]) {
    return (r, c) => values[r][c];
  }
  return (r, c) => values[r * cols + c];
}

/** Rough text width for labels: CJK characters are about twice as wide as Latin ones. */
export function textWidth(text, fontSize = 12) {
  let units = 0;
  for (const ch of String(text)) units += /[\u2e80-\uffff]/.test(ch) ? 1 : 0.6;
  return units * fontSize;
}
