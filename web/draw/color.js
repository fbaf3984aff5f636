// Colour scales: perceptually uniform, colour-blind-safe schemes from d3-scale-chromatic,
// and the Okabe–Ito palette for telling heads apart.
import { interpolateViridis, interpolatePuOr } from 'd3-scale-chromatic';

/** Okabe–Ito, ordered so the first heads get the most distinct, high-contrast hues (yellow last). */
export const HEAD_COLORS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#F0E442'];

export const headColor = (head) => HEAD_COLORS[head % HEAD_COLORS.length];

/**
 * Heads 9–16 repeat the eight colours, so their lines are dashed: any 16 heads drawn together (the views
 * draw at most 16) differ in colour or in dash.
 */
export const headDash = (head) => (Math.floor(head / HEAD_COLORS.length) % 2 ? '5 3' : null);

const inks = new Map();

/** The head's colour darkened until text in it reads on white (WCAG 4.5:1): yellow h8 becomes olive. */
export function headInk(head) {
  const color = headColor(head);
  if (!inks.has(color)) {
    let ink = color;
    for (let keep = 0.9; contrastOnWhite(ink) < 4.5 && keep > 0; keep -= 0.1) ink = toHex(`rgb(${parseColor(color).map((c) => c * keep).join(',')})`);
    inks.set(color, ink);
  }
  return inks.get(color);
}

const clamp01 = (t) => Math.min(1, Math.max(0, t));

// Both schemes are sampled once into 512-step tables (finer than the eye can tell apart), so colouring
// thousands of cells per frame costs a lookup each.
const STEPS = 511;
const table = (interpolate) => Array.from({ length: STEPS + 1 }, (_, i) => toHex(interpolate(i / STEPS)));
let viridis;
let puOr;
const lookup = (colors, t) => colors[Math.round(clamp01(t) * STEPS)];

/** Attention weights in [0, 1] (or another domain) → viridis, perceptually uniform and readable for common colour-vision deficiencies. */
export function weightColor(value, domain = [0, 1]) {
  const [lo, hi] = domain;
  viridis ??= table(interpolateViridis);
  return lookup(viridis, (value - lo) / (hi - lo || 1));
}

/** Signed values → purple/orange diverging scheme centred on 0 (ColorBrewer PuOr, colour-blind safe). */
export function signedColor(value, domain = [-1, 1]) {
  const extent = Math.max(Math.abs(domain[0]), Math.abs(domain[1])) || 1;
  // interpolatePuOr runs from dark purple (t = 0) to dark orange (t = 1): negative → purple, positive → orange.
  puOr ??= table(interpolatePuOr);
  return lookup(puOr, 0.5 + value / (2 * extent));
}

/** The named colour scales drawing functions accept: { color(value, domain), domain(values) }. */
export const SCALES = {
  weights: { color: weightColor, domain: () => [0, 1] },
  signed: { color: signedColor, domain: symmetricDomain },
};

/**
 * [-m, m] with m the largest magnitude in one or more lists of values (at least a small epsilon so all-zero
 * data still draws).
 */
export function symmetricDomain(...lists) {
  let max = 0;
  for (const values of lists) for (const v of values) if (Number.isFinite(v)) max = Math.max(max, Math.abs(v));
  return [-(max || 1), max || 1];
}

/** Parses "#rrggbb" or "rgb(r, g, b)" into [r, g, b]. */
export function parseColor(color) {
  if (color.startsWith('#')) {
    const hex = color.length === 4 ? color.replace(/[0-9a-f]/gi, (d) => d + d).slice(1) : color.slice(1);
    return [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16));
  }
  return color.match(/[\d.]+/g).slice(0, 3).map(Number);
}

export function toHex(color) {
  return '#' + parseColor(color).map((c) => Math.round(c).toString(16).padStart(2, '0')).join('');
}

function luminance(color) {
  const [r, g, b] = parseColor(color).map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

const contrastOnWhite = (color) => 1.05 / (luminance(color) + 0.05);

const textColors = new Map();

/** Black or white, whichever contrasts more with the fill (WCAG contrast ratio). */
export function textColorFor(fill) {
  let text = textColors.get(fill);
  if (!text) {
    const l = luminance(fill);
    text = (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? '#111111' : '#ffffff';
    textColors.set(fill, text);
  }
  return text;
}

const tints = new Map();

/** Mixes a colour with white: a solid tint, so exported PNGs look like the page. */
export function tint(color, amount) {
  const key = `${color}/${amount}`;
  if (!tints.has(key)) {
    const rgb = parseColor(color).map((c) => c + (255 - c) * (1 - amount));
    tints.set(key, toHex(`rgb(${rgb.join(',')})`));
  }
  return tints.get(key);
}
