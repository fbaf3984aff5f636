import { weightColor, parseColor } from './color.js';

/** How finely a tile's colours follow the weights: 32 bands of 1/32 each (the eye tells no more apart on a thumbnail). */
export const TILE_LEVELS = 32;

/** The band (0 … TILE_LEVELS − 1) a value falls in over the domain [lo, hi]. */
export const bandOf = (value, lo, hi) => Math.min(TILE_LEVELS - 1, Math.max(0, Math.floor(((value - lo) / (hi - lo)) * TILE_LEVELS)));

/** The value in the middle of a band over [lo, hi]: what a drawing in bands colours the band's cells as. */
export const bandValue = (level, lo, hi) => lo + ((level + 0.5) * (hi - lo)) / TILE_LEVELS;

/** The colour band of a weight in [0, 1]: what a tile draws for it. */
export const tileLevel = (weight) => bandOf(weight, 0, 1);

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
export const bandColor = (level) => weightColor(bandValue(level, 0, 1));

/**
 * A rows × cols matrix (row-major) as one path per band, in cell units (cell (r, c) is the square from (c, r)
 * to (c + 1, r + 1)): `bandAt(index)` names the band of the entry at a row-major index, and each row's runs of
 * neighbouring cells of one band are merged into rectangles. Returns a Map band → path data.
 */
export function bandRuns(rows, cols, bandAt) {
  const runs = new Map();
  const add = (band, row, from, to) => {
    if (!runs.has(band)) runs.set(band, []);
    runs.get(band).push(`M${from} ${row}h${to - from}v1h${from - to}z`);
  };
  for (let row = 0; row < rows; row++) {
    let start = 0;
    let band = bandAt(row * cols);
    for (let col = 1; col < cols; col++) {
      const next = bandAt(row * cols + col);
      if (next === band) continue;
      add(band, row, start, col);
      start = col;
      band = next;
    }
    add(band, row, start, cols);
  }
  return new Map(Array.from(runs, ([band, parts]) => [band, parts.join('')]));
}

/** An L×L map of weights as one path per colour band (tileLevel): entry `level` holds its cells ('' where none). */
export function bandPaths(weights, L) {
  const runs = bandRuns(L, L, (at) => tileLevel(weights[at]));
  return Array.from({ length: TILE_LEVELS }, (_, level) => runs.get(level) ?? '');
}
