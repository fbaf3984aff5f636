// The figures of §3 that the widget shows too, drawn here once for both (web/README.md): a head's map, the concat
// and the output of a forward (a shared/session.js snapshot with its words). They stand on web/draw/ alone, so
// that the widget's modules, shipped for bundlers, bring nothing more of the page's.
import { heatmap, matrixView } from '../draw/index.js';

/** One head's L × L map (its dot products, scaled scores or weights), the words on both axes; options go to heatmap(). */
export const headMap = (doc, { L, tokens }, values, options) => heatmap(doc, { values, rows: L, cols: L, rowLabels: tokens, colLabels: tokens, ...options });

/** The concat, L × d_model, its columns coloured by the head they came from; options go to matrixView(). */
export const concatMap = (doc, { L, dModel, dK, tokens, concat }, options) => matrixView(doc, { values: concat, rows: L, cols: dModel, rowLabels: tokens, headOf: (c) => Math.floor(c / dK), ...options });

/** The output, L × d_model, coloured by value: Wᴼ has mixed the heads; options go to matrixView(). */
export const outputMap = (doc, { L, dModel, tokens, output }, options) => matrixView(doc, { values: output, rows: L, cols: dModel, rowLabels: tokens, fill: 'signed', ...options });
