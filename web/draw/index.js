// Pure drawing functions, data → SVG (and a thumbnail's pixels), shared by the lesson page and the embeddable widget.
export { heatmap } from './heatmap.js';
export { matrixView } from './matrix.js';
export { legend, headKey } from './legend.js';
export { pipeline, PIPELINE_STEPS, PIPELINE_LABELS, PROJECTOR_SIZES } from './pipeline.js';
export { lineView } from './lines.js';
export { headGrid } from './grid.js';
export { tilePixels, tileLevel, TILE_LEVELS, FUTURE_COLOR } from './tile.js';
export { tableFor } from './table.js';
export { compose } from './compose.js';
export { lossCurve } from './loss.js';
export { rowBars, textWeights } from './bars.js';
export { HEAD_COLORS, headColor, weightColor, signedColor, textColorFor } from './color.js';
export { formatNumber, shownPercent, SVG_NS } from './svg.js';
