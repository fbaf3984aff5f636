// State + a snapshot of the core's results → the widget's figures: a head's weights, the concat and the
// output drawn as the page's §3 draws them (web/hand/maps.js), the rest with the shared drawing
// functions of web/draw/ (which set every label with text nodes) and the shared h(). Pure: `doc` is
// passed in, so this runs under linkedom in Node, and with vdoc in the element (which patches the result
// into its shadow root).
import { legend, pipeline, lineView, tableFor, headColor } from '../draw/index.js';
import { headMap, concatMap, outputMap } from '../hand/maps.js';
import { headDash } from '../draw/color.js';
import { textWidth } from '../draw/svg.js';
import { hFor } from '../ui/dom.js';
import { drawnHeadCount, headRun, headRunNote } from '../ui/drawn-heads.js';
import { clipText } from '../shared/clip.js';
import { STRINGS } from './strings.js';

/** The most characters of a token drawn on a figure: a longer one ends in "…" there (its table keeps up to parse.js's LABEL_TOKEN_CHARS). */
export const DRAWN_TOKEN_CHARS = 12;

/** The per-element label "h1 dims 0–1" of head `head`. */
function headCaption(h, t, head, dK) {
  return h('figcaption', { class: `h${head % 8}` }, [
    h('span', { class: 'swatch' }), h('span', { class: 'name' }, [t.head(head)]), h('span', { class: 'dims' }, [t.dims(head * dK, head * dK + dK - 1)]),
  ]);
}

/**
 * Lays out the per-head heatmaps: as many side by side as fit `width` with readable cells, each cell
 * 44 px for the lesson's 3 tokens (32 px when compact) and smaller for long sentences (numbers hidden
 * below 26 px).
 */
function heatmapLayout(tokens, heads, width, compact) {
  const L = tokens.length;
  const widest = Math.max(...tokens.map((t) => textWidth(t, 13)));
  const label = widest + 14;
  // A column label wider than its cell is slanted by heatmap(), which then needs this much more room.
  const slant = (cell) => (widest > cell - 4 ? Math.ceil(widest * Math.SQRT1_2) : 0);
  const mapWidth = (cell) => label + L * cell + 4 + slant(cell);
  const gap = 18;
  const preferred = Math.max(14, Math.min(compact ? 32 : 44, Math.floor(300 / L)));
  let columns = Math.max(1, Math.min(heads, Math.floor((width + gap) / (mapWidth(Math.min(preferred, 26)) + gap))));
  if (heads === 4 && columns === 3) columns = 2;
  const room = (width + gap) / columns - gap;
  let cell = Math.max(14, Math.min(preferred, Math.floor((room - label - 4) / L)));
  while (cell > 14 && mapWidth(cell) > room) cell--;
  return cell;
}

function heatmapFigure(doc, drawn, t, head, cell) {
  const h = hFor(doc);
  return h('figure', { class: `heatmap h${head % 8}`, 'data-head': head }, [
    headCaption(h, t, head, drawn.dK),
    headMap(doc, drawn, drawn.attention[head], { cell, showNumbers: cell >= 26, title: t.weightsOf(head), accent: headColor(head) }),
  ]);
}

function legendFigure(doc, t, id) {
  return hFor(doc)('figure', { class: 'legend wide', 'aria-hidden': 'true' }, [legend(doc, { scale: 'weights', title: t.weightsLegend, width: 180, id })]);
}

function linesFigure(doc, drawn, t, shown, focus, onFocus) {
  const h = hFor(doc);
  // Heads 9 to 16 repeat the 8 colours with dashed lines, and their swatches are dashed to match.
  const key = h('p', { class: 'key' }, shown.map((head) => h('span', { class: `h${head % 8}` }, [h('span', { class: headDash(head) ? 'swatch dashed' : 'swatch' }), t.head(head)])));
  // Buttons to keep one query token's lines (the others fade), or all of them.
  const buttons = onFocus && h('div', { class: 'focus', role: 'group', 'aria-label': t.focusLabel }, [null, ...drawn.tokens.map((_, i) => i)].map((index) => h('button', {
    type: 'button', 'data-focus': index === null ? '' : index, 'aria-pressed': String(focus === index), onclick: () => onFocus(index),
  }, [index === null ? t.focusAll : drawn.tokens[index]])));
  return h('figure', { class: 'lines' }, [
    h('p', { class: 'note' }, [t.linesTitle]),
    key,
    buttons,
    lineView(doc, { tokens: drawn.tokens, attention: drawn.attention, visibleHeads: shown, focus, title: t.linesTitle, queryLabel: t.query, keyLabel: t.key }),
  ]);
}

function pipelineFigure(doc, state, drawn, t, shown, width) {
  const svg = pipeline(doc, {
    ...drawn, // the forward's snapshot, as the page's §4 draws it
    shownHeads: shown,
    maxWidth: width,
    k: (drawn.kv?.[0] ?? state.k).flat(), // what each head read: under kv-heads its group's shared K and V
    v: (drawn.kv?.[1] ?? state.v).flat(),
    labels: t.pipeline,
    title: t.pipelineTitle,
  });
  // Small examples draw small: enlarge up to 1.35× when there is room (the viewBox keeps the drawing).
  const natural = Number(svg.getAttribute('width'));
  const zoom = Math.min(1.35, width / natural);
  if (zoom > 1.05) {
    svg.setAttribute('width', String(Math.round(natural * zoom)));
    svg.setAttribute('height', String(Math.round(Number(svg.getAttribute('height')) * zoom)));
  }
  const h = hFor(doc);
  return h('figure', { class: 'pipeline wide' }, [h('p', { class: 'note' }, [t.pipelineTitle]), svg]);
}

/**
 * concat (concatMap: columns coloured by head) or, after Wᴼ has mixed the heads, the output (outputMap: coloured
 * by value); the numbers are left out when the matrix, shrunk to `width`, would have cells under 14 px (too small to read).
 */
function matrixFigure(doc, drawn, draw, title, className, width) {
  const h = hFor(doc);
  const { dModel } = drawn;
  return h('figure', { class: className }, [
    h('p', { class: 'note' }, [title]),
    draw(doc, drawn, { cell: Math.max(22, Math.min(40, Math.floor(320 / dModel))), showNumbers: width / dModel >= 14, title }),
  ]);
}

/**
 * The figures of `state.view`, in order, each as { key, draw() } (the element draws a large view a few figures
 * per task). snap holds copies of the core's results (flat, row-major): attention/scores/headOutputs per head,
 * q, concat, output, wo.
 * width: the space available in CSS pixels (the pipeline turns vertical when it does not fit).
 * focus / onFocus: the query token whose lines the lines view keeps (null: all) and a callback for its buttons
 * (no buttons without one). Heads are drawn a run at a time (ui/drawn-heads.js), from `firstHead`; with
 * more heads than a run, the first figure is a note saying which, with buttons that call onMoveHeads(first).
 */
export function viewParts(doc, state, snap, { width = 640, id = 'mha', focus = null, onFocus = null, firstHead = 0, onMoveHeads = () => {} } = {}) {
  const t = STRINGS[state.lang];
  // The forward with its words as drawn: one long token would otherwise widen every label column and shrink the figures to fit.
  const drawn = { ...snap, tokens: state.labels.map((label) => clipText(label, DRAWN_TOKEN_CHARS)) };
  const { L, heads } = state;
  const show = (name) => state.view === name || state.view === 'full';
  const count = drawnHeadCount(L);
  const shown = headRun(heads, count, firstHead);
  const parts = [];
  const part = (key, draw) => parts.push({ key, draw });
  const note = headRunNote(doc, { heads, shown, count, words: t.drawnHeads, note: (from, to) => t.drawnHeads.note(heads, L, count, from, to), onMove: onMoveHeads });
  if (note) part('heads', () => hFor(doc)('div', { class: 'head-run wide' }, note));
  if (show('heatmaps')) {
    const cell = heatmapLayout(drawn.tokens, shown.length, width, state.compact);
    // Each map and its table are parts of their own: a table of 32 × 32 weights costs its frame as much as the map.
    for (const head of shown) {
      part(`heatmap-${head}`, () => heatmapFigure(doc, drawn, t, head, cell));
      // Its weights as a table for screen readers (hidden from the eye; named by its caption), the words written whole.
      part(`table-${head}`, () => tableFor(doc, { values: snap.attention[head], rows: L, cols: L, rowLabels: state.labels, colLabels: state.labels, caption: t.weightsOf(head) }));
    }
    part('legend', () => legendFigure(doc, t, `${id}-legend`));
  }
  if (show('lines')) part('lines', () => linesFigure(doc, drawn, t, shown, focus !== null && focus < L ? focus : null, onFocus));
  if (state.view === 'full') {
    part('concat', () => matrixFigure(doc, drawn, concatMap, t.concatTitle, 'concat', width));
    if (state.wo) part('output', () => matrixFigure(doc, drawn, outputMap, t.outputTitle, 'output', width));
  }
  if (show('pipeline')) part('pipeline', () => pipelineFigure(doc, state, drawn, t, shown, width));
  return parts;
}

/** The box of the views, holding `figures` (drawn parts). */
export function viewsBox(doc, state, figures) {
  return hFor(doc)('div', { class: 'views', part: 'views', 'data-view': state.view }, figures);
}

/** Every figure of the views at once, in their box. */
export function renderViews(doc, state, snap, options) {
  return viewsBox(doc, state, viewParts(doc, state, snap, options).map(({ draw }) => draw()));
}

/** One line naming the sizes and switches, e.g. "3 个词 · d_model = 4 · h = 2 · …". */
export function renderSummary(doc, state) {
  return hFor(doc)('p', { class: 'summary' }, [STRINGS[state.lang].summary(state)]);
}

/** A line saying which tokens are shortened for display (code TOKEN_CLIPPED in data-code), or null when none is. */
export function renderNotice(doc, state) {
  if (!state.clipped.length) return null;
  return hFor(doc)('p', { class: 'note', role: 'status', 'data-code': 'TOKEN_CLIPPED' }, [STRINGS[state.lang].clipped(state.clipped)]);
}

/** The inline error: a title and a short sentence, announced to screen readers; the code is in data-code (and the console's warning). */
export function renderError(doc, lang, { code, message }) {
  const h = hFor(doc);
  return h('div', { class: 'error', role: 'alert', part: 'error', 'data-code': code }, [
    h('strong', {}, [STRINGS[lang].errorTitle]),
    h('p', {}, [message]),
  ]);
}
