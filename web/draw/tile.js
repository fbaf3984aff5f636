import { weightColor, parseColor } from './color.js';

/** How finely a tile's colours follow the weights: 32 bands of 1/32 each (the eye tells no more apart on a thumbnail). */
export const TILE_LEVELS = 32;

/** The colour band of a weight in [0, 1]: what a tile draws for it. */
export const tileLevel = (weight) => Math.min(TILE_LEVELS - 1, Math.max(0, Math.floor(weight * TILE_LEVELS)));

/** The colour of a cell a causal head cannot see (the future). */
export const FUTURE_COLOR = '#e4e4ea';

/**
 * One head's causal attention (L×L, row-major) as a thumbnail without numbers: its pixels, one per cell,
 * RGBA row by row (an ImageData's layout), cheap enough for every head of a model on every keystroke.
 * A seen cell has its colour band's colour (bandColor(tileLevel(weight))), the future FUTURE_COLOR; all
 * are opaque. Shown L×L pixels large, scaled up without smoothing, the thumbnail costs the browser a
 * bitmap where a vector drawing would cost it the raster of every run of cells on every redraw.
 */
export function tilePixels({ weights, length: L }) {
  const pixels = new Uint8ClampedArray(L * L * 4);
  const words = new Uint32Array(pixels.buffer); // one word per pixel, written whole
  const { bands, future } = (packed ??= packColors());
  for (let row = 0; row < L; row++) {
    const at = row * L;
    for (let col = 0; col <= row; col++) words[at + col] = bands[tileLevel(weights[at + col])];
    words.fill(future, at + row + 1, at + L);
  }
  return pixels;
}

/** Each band's colour and the future's as a pixel word: RGBA in memory order, whatever the machine's byte order. */
function packColors() {
  const word = (color) => {
    const bytes = new Uint8ClampedArray([...parseColor(color), 255]);
    return new Uint32Array(bytes.buffer)[0];
  };
  return { bands: Uint32Array.from({ length: TILE_LEVELS }, (_, level) => word(bandColor(level))), future: word(FUTURE_COLOR) };
}

let packed = null; // made at the first tile

/** The colour a band's cells are drawn in: the weight at its middle. */
export const bandColor = (level) => weightColor((level + 0.5) / TILE_LEVELS);

/**
 * An L×L map of weights (row-major) as one path per colour band, in cell units (cell (r, c) is the square
 * from (c, r) to (c + 1, r + 1)): entry `level` holds the runs of neighbouring cells of that band in each
 * row, merged into rectangles ('' where none).
 */
export function bandPaths(weights, L) {
  const runs = Array.from({ length: TILE_LEVELS }, () => []);
  const rect = (row, from, to) => `M${from} ${row}h${to - from}v1h${from - to}z`;
  for (let row = 0; row < L; row++) {
    let start = 0;
    let level = tileLevel(weights[row * L]);
    for (let col = 1; col <= L; col++) {
      const next = col < L ? tileLevel(weights[row * L + col]) : -1;
      if (next === level) continue;
      runs[level].push(rect(row, start, col));
      start = col;
      level = next;
    }
  }
  return runs.map((parts) => parts.join(''));
}
