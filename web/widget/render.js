// State + a snapshot of the core's results → the widget's figures, built with the shared drawing
// functions of web/draw/ (which set every label with text nodes) and createElement/textContent.
// Pure: `doc` is passed in, so this also runs under linkedom in Node.
import { heatmap, legend, pipeline, lineView, matrixView, tableFor, headColor } from '../draw/index.js';
import { STRINGS } from './strings.js';

/** Creates an HTML element with a class and text (never markup). */
export function h(doc, tag, className, text) {
  const node = doc.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

/** The per-element label "h1 dims 0–1" of head `head`. */
function headCaption(doc, t, head, dK) {
  const caption = h(doc, 'figcaption', `h${head % 8}`);
  caption.append(h(doc, 'span', 'swatch'), h(doc, 'span', 'name', t.head(head)), h(doc, 'span', 'dims', t.dims(head * dK, head * dK + dK - 1)));
  return caption;
}

const latinWidth = 13 * 0.6; // the drawing functions' estimate of a Latin character at 13 px

/** Shortens a column label to fit a cell ("chased" → "cha…"); the row labels and the table keep it whole. */
function fitLabel(token, cell) {
  const chars = Array.from(token);
  const room = Math.floor((cell - 4) / latinWidth);
  const width = chars.reduce((sum, ch) => sum + (/[\u2e80-\uffff]/.test(ch) ? 2 : 1), 0);
  if (width <= room || chars.length <= 1) return token;
  let out = '';
  let used = 1;
  for (const ch of chars) {
    used += /[\u2e80-\uffff]/.test(ch) ? 2 : 1;
    if (used > room) break;
    out += ch;
  }
  return `${out || chars[0]}…`;
}

/**
 * Lays out the per-head heatmaps: as many side by side as fit `width` with readable cells, each cell
 * 44 px for the lesson's 3 tokens (32 px when compact) and smaller for long sentences (numbers hidden
 * below 26 px).
 */
function heatmapLayout(tokens, heads, width, compact) {
  const L = tokens.length;
  const label = Math.max(...tokens.map((t) => Array.from(t).reduce((sum, ch) => sum + (/[\u2e80-\uffff]/.test(ch) ? 13 : latinWidth), 0))) + 14;
  const mapWidth = (cell) => label + L * cell + 4;
  const gap = 18;
  const preferred = Math.max(14, Math.min(compact ? 32 : 44, Math.floor(300 / L)));
  let columns = Math.max(1, Math.min(heads, Math.floor((width + gap) / (mapWidth(Math.min(preferred, 26)) + gap))));
  if (heads === 4 && columns === 3) columns = 2;
  const room = (width + gap) / columns - gap;
  const cell = Math.max(14, Math.min(preferred, Math.floor((room - label - 4) / L)));
  return { cell, colLabels: tokens.map((t) => fitLabel(t, cell)) };
}

function heatmapFigures(doc, state, snap, t, width) {
  const { tokens, L, heads, dK } = state;
  const { cell, colLabels } = heatmapLayout(tokens, heads, width, state.compact);
  return Array.from({ length: heads }, (_, head) => {
    const figure = h(doc, 'figure', `heatmap h${head % 8}`);
    figure.dataset.head = String(head);
    figure.append(headCaption(doc, t, head, dK));
    figure.append(heatmap(doc, {
      values: snap.attention[head],
      rows: L,
      cols: L,
      rowLabels: tokens,
      colLabels,
      cell,
      showNumbers: cell >= 26,
      title: t.weightsOf(head),
      accent: headColor(head),
    }));
    figure.append(tableFor(doc, { values: snap.attention[head], rows: L, cols: L, rowLabels: tokens, colLabels: tokens, caption: t.weightsOf(head) }));
    return figure;
  });
}

function legendFigure(doc, t, id) {
  const figure = h(doc, 'figure', 'legend wide');
  figure.setAttribute('aria-hidden', 'true');
  figure.append(legend(doc, { scale: 'weights', title: t.weightsLegend, width: 180, id }));
  return figure;
}

function linesFigure(doc, state, snap, t, focus, onFocus) {
  const figure = h(doc, 'figure', 'lines');
  figure.append(h(doc, 'p', 'note', t.linesTitle));
  const key = h(doc, 'p', 'key');
  for (let head = 0; head < state.heads; head++) {
    const item = h(doc, 'span', `h${head % 8}`);
    item.append(h(doc, 'span', 'swatch'), doc.createTextNode(t.head(head)));
    key.append(item);
  }
  figure.append(key);
  if (onFocus) {
    // Buttons to keep one query token's lines (the others fade), or all of them.
    const group = h(doc, 'div', 'focus');
    group.setAttribute('role', 'group');
    group.setAttribute('aria-label', t.focusLabel);
    [null, ...state.tokens.map((_, i) => i)].forEach((index) => {
      const button = h(doc, 'button', null, index === null ? t.focusAll : state.tokens[index]);
      button.type = 'button';
      button.dataset.focus = index === null ? '' : String(index);
      button.setAttribute('aria-pressed', String(focus === index));
      button.addEventListener('click', () => onFocus(index));
      group.append(button);
    });
    figure.append(group);
  }
  figure.append(lineView(doc, { tokens: state.tokens, attention: snap.attention, focus, title: t.linesTitle, queryLabel: t.query, keyLabel: t.key }));
  return figure;
}

function pipelineFigure(doc, state, snap, t, width) {
  const figure = h(doc, 'figure', 'pipeline wide');
  figure.append(h(doc, 'p', 'note', t.pipelineTitle));
  const data = {
    tokens: state.tokens,
    dModel: state.d,
    heads: state.heads,
    q: snap.q,
    scores: snap.scores,
    attention: snap.attention,
    headOutputs: snap.headOutputs,
    concat: snap.concat,
    wo: snap.wo,
    output: snap.output,
    labels: t.pipeline,
    title: t.pipelineTitle,
  };
  let svg = pipeline(doc, data);
  if (Number(svg.getAttribute('width')) > width) svg = pipeline(doc, { ...data, orientation: 'vertical' });
  // Small examples draw small: enlarge up to 1.35× when there is room (the viewBox keeps the drawing).
  const natural = Number(svg.getAttribute('width'));
  const zoom = Math.min(1.35, width / natural);
  if (zoom > 1.05) {
    svg.setAttribute('width', String(Math.round(natural * zoom)));
    svg.setAttribute('height', String(Math.round(Number(svg.getAttribute('height')) * zoom)));
  }
  figure.append(svg);
  return figure;
}

/** concat (columns coloured by head) or, after Wᴼ has mixed the heads, the output (coloured by value). */
function matrixFigure(doc, state, values, title, className, byHead) {
  const figure = h(doc, 'figure', className);
  figure.append(h(doc, 'p', 'note', title));
  const cell = Math.max(22, Math.min(40, Math.floor(320 / state.d)));
  figure.append(matrixView(doc, {
    values,
    rows: state.L,
    cols: state.d,
    rowLabels: state.tokens,
    headOf: byHead ? (c) => Math.floor(c / state.dK) : () => null,
    headLabel: (head) => `h${head + 1}`,
    fill: byHead ? 'head' : 'signed',
    cell,
    title,
  }));
  return figure;
}

/**
 * Draws the views of `state.view` into a fresh <div class="views">. snap holds copies of the core's
 * results (flat, row-major): attention/scores/headOutputs per head, q, concat, output, wo.
 * width: the space available in CSS pixels (the pipeline turns vertical when it does not fit).
 * focus / onFocus: the query token whose lines the lines view keeps (null: all) and a callback for
 * its buttons (no buttons without one).
 */
export function renderViews(doc, state, snap, { width = 640, id = 'mha', focus = null, onFocus = null } = {}) {
  const t = STRINGS[state.lang];
  const views = h(doc, 'div', 'views');
  views.dataset.view = state.view;
  const show = (name) => state.view === name || state.view === 'full';
  if (show('heatmaps')) {
    views.append(...heatmapFigures(doc, state, snap, t, width), legendFigure(doc, t, `${id}-legend`));
  }
  if (show('lines')) views.append(linesFigure(doc, state, snap, t, focus !== null && focus < state.L ? focus : null, onFocus));
  if (state.view === 'full') {
    views.append(matrixFigure(doc, state, snap.concat, t.concatTitle, 'concat', true));
    if (state.wo) views.append(matrixFigure(doc, state, snap.output, t.outputTitle, 'output', false));
  }
  if (show('pipeline')) views.append(pipelineFigure(doc, state, snap, t, width));
  return views;
}

/** One line naming the sizes and switches, e.g. "3 个词 · d_model = 4 · h = 2 · …". */
export function renderSummary(doc, state) {
  return h(doc, 'p', 'summary', STRINGS[state.lang].summary(state));
}

/** The inline error: a title, the code and a short sentence, announced to screen readers. */
export function renderError(doc, lang, { code, message }) {
  const t = STRINGS[lang];
  const box = h(doc, 'div', 'error');
  box.setAttribute('role', 'alert');
  box.dataset.code = code;
  const text = h(doc, 'p');
  text.append(h(doc, 'code', null, code), doc.createTextNode(message));
  box.append(h(doc, 'strong', null, t.errorTitle), text);
  return box;
}
