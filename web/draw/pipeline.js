import { el, svgRoot, textWidth, formatNumber } from './svg.js';
import { headColor, headInk, weightColor, signedColor, symmetricDomain, textColorFor } from './color.js';
import { legend } from './legend.js';
import { bandRuns, bandOf, bandValue } from './tile.js';

/** The eight steps of the animation, in order; each names the part of the figure it lights up. */
export const PIPELINE_STEPS = ['input', 'split', 'scores', 'weights', 'heads', 'concat', 'wo', 'output'];

export const PIPELINE_LABELS = {
  scores: 'S',
  weights: 'A',
  heads: 'head',
  concat: 'Concat',
  wo: 'Wᴼ',
  output: 'output',
  off: 'off',
  weightsKey: 'attention weight (0 to 1)',
  valuesKey: 'every other value (negative ↔ positive)',
  ops: { split: 'split', scores: 'q·kᵀ/√d_k', weights: 'softmax', heads: '·V', concat: 'concat', wo: '·Wᴼ', output: '=' },
};

// The figure's sizes in its own units, for a screen and for a projector. On a screen the lesson's example
// lying flat fits a 1280 px screen's column at 1:1, so there no word is under 12 px. For a projector (the
// page's lesson mode) it leaves out the shapes and the key, and gives the cells holding two decimals room
// for 25-unit numbers: about 1,850 × 870, which a 1920 × 1080 screen shows at 1:1 under the lesson's bar.
// `cell` is a whole-number cell's largest size, `reach` the most cells × size a matrix side may take,
// `decimalCell` a two-decimal cell's size for a whole-number cell of `cell`; a number is written at most
// `numberFont` large; a matrix has its caption above it, and under it its shape on two lines ("L×d_k",
// "= 3×2") when `shapes`; `arrow` is the arrows' width (their heads scale with it).
// The projector's are apart, so that the widget's bundle leaves them out.
const SCREEN_SIZES = { cell: 22, reach: 136, decimalCell: 26, captionFont: 13, labelFont: 12, numberFont: 12, shapes: true, key: true, arrow: 1.2, gaps: [0, 28, 20, 20, 26, 26, 18, 18] };
export const PROJECTOR_SIZES = { cell: 36, reach: 144, decimalCell: 64, captionFont: 20, labelFont: 20, numberFont: 26, shapes: false, key: false, arrow: 2.4, gaps: [0, 32, 20, 20, 28, 28, 20, 20] };
// A cell's number is as large as fits in it, up to the size's numberFont; one that fits only smaller is left out.
const MIN_NUMBER_FONT = 9;
const SHAPE_BAND = 32;
// A row's word is written left of every matrix whose rows are the words, clipped to this many characters,
// where a cell is tall enough for it.
const ROW_LABEL_CHARS = 3;
const rowLabel = (token) => (Array.from(token).length > ROW_LABEL_CHARS ? `${Array.from(token).slice(0, ROW_LABEL_CHARS - 1).join('')}…` : token);

const SUBSCRIPT = '₀₁₂₃₄₅₆₇₈₉';
const subscript = (n) => String(n).replace(/\d/g, (d) => SUBSCRIPT[d]);

/**
 * The whole multi-head pipeline drawn from live data: full Q, K, V → each cut into h column slices
 * Q_i, K_i, V_i → per-head scores (from Q_i, K_i) and softmax weights → head outputs (weights · V_i) →
 * concat (columns coloured by head) → ·W^O → output, with each matrix's shape written under it.
 * Every signed value (q, k, v, scores, outputs, Wᴼ) is coloured on one scale, symmetric around 0 and
 * stated by the key drawn under the figure (`showKey`); weights are coloured 0..1.
 * `step` 1..8 lights one stage (later ones fade, as in the animation); 0 shows everything. `highlight`
 * lists parts ('wo', 'heads', 'split:0', …) to outline, used when a formula symbol is hovered. A horizontal
 * pipeline wider than `maxWidth` is drawn vertical.
 * Per-head data are arrays with one flat matrix per head; `shownHeads` picks the heads whose own stages are
 * drawn (all by default; the concat still shows every head's columns). A pipeline of more than 4,096 cells
 * draws each matrix in colour bands (a path per band, not a rect per cell): a few hundred shapes however large.
 */
export function pipeline(doc, data) {
  const {
    tokens,
    dModel,
    heads,
    q,
    k,
    v,
    scores,
    attention,
    headOutputs,
    concat,
    wo,
    output,
    enabled = Array(heads).fill(true),
    shownHeads = Array.from({ length: heads }, (_, h) => h),
    step = 0,
    highlight = [],
    orientation = 'horizontal',
    labels = PIPELINE_LABELS,
    showKey = true,
    maxWidth = Infinity,
    title = '',
    sizes = SCREEN_SIZES,
  } = data;
  const L = tokens.length;
  const dk = dModel / heads;
  const horizontal = orientation === 'horizontal';
  const { captionFont, labelFont } = sizes;
  const captionBand = captionFont + 5;
  const cell = Math.max(3, Math.min(sizes.cell, Math.floor(Math.min(sizes.reach / dModel, sizes.reach / L))));
  const decimalCell = Math.floor((cell * sizes.decimalCell) / sizes.cell);
  const cellFor = (values, count) => (Array.from({ length: count }, (_, i) => values[i]).every(Number.isInteger) ? cell : decimalCell);
  // The words, clipped, left of the rows, when a row is as tall as the words.
  const rowLabels = cell >= labelFont ? tokens.map(rowLabel) : null;
  const rowLabelWidth = rowLabels ? Math.max(...rowLabels.map((label) => textWidth(label, labelFont))) + 4 : 0;
  const text = { ...PIPELINE_LABELS, ...labels };
  const ops = { ...PIPELINE_LABELS.ops, ...labels.ops };
  const range = symmetricDomain(q, k, v, ...scores, ...headOutputs, concat, wo, output);
  // Each scale as [colour of a value, domain]: the domain places a value's band when cells are drawn in bands.
  const signed = [(value) => signedColor(value, range), range];
  const weights = [weightColor, [0, 1]];
  const headOfColumn = (c) => Math.floor(c / dk);
  const slice = (values, h) => Array.from({ length: L * dk }, (_, i) => values[Math.floor(i / dk) * dModel + h * dk + (i % dk)]);

  // Sizes along the main axis (x when horizontal) and the cross axis, where a stage stacks its heads.
  const mainOf = (box) => (horizontal ? box.width : box.height);
  const crossOf = (box) => (horizontal ? box.height : box.width);

  // A titled mini matrix, its rows named by the words (but Wᴼ's, whose rows are dimensions), with its shape
  // written under it on two lines, ['L×d_k', '= 3×2'] (for a screen).
  const matrix = (name, caption, shape, rows, cols, values, [color, domain], columnHead) => {
    const size = cellFor(values, rows * cols);
    const labels = name === 'wo' ? null : rowLabels;
    const labelWidth = labels ? rowLabelWidth : 0;
    const shapeLines = sizes.shapes ? shape : [];
    const width = Math.max(labelWidth + cols * size + 4, textWidth(caption, captionFont) + 8, ...shapeLines.map((line) => textWidth(line, labelFont) + 8));
    const height = captionBand + (columnHead ? 5 : 0) + rows * size + (sizes.shapes ? SHAPE_BAND : 4);
    return { name, caption, shape: shapeLines, rows, cols, values, color, domain, columnHead, width, height, main: 0, cross: 0, cell: size, labels, labelWidth, numbers: cellNumbers(values, rows * cols, size, sizes.numberFont) };
  };
  // An item is what one stage draws for one head (or for all): one matrix, or Q, K, V as two lanes,
  // Q and K along the main axis (or `stacked`, K beside Q) and V beside them, far enough out that the
  // straight ·V arrow from V_i to head_i passes the head's scores and weights (`clear`: their cross size).
  const item = (part, head, matrices, lanes) => {
    const width = Math.max(...matrices.map((m) => (horizontal ? m.main + m.width : m.cross + m.width)));
    const height = Math.max(...matrices.map((m) => (horizontal ? m.cross + m.height : m.main + m.height)));
    return { part, head, matrices, lanes, width, height };
  };
  const single = (part, head, m) => item(part, head, [m], { all: { centre: crossOf(m) / 2, end: mainOf(m) } });
  const qkv = (part, head, [mq, mk, mv], clear, stacked = false) => {
    if (stacked) mk.cross = crossOf(mq) + 10;
    else mk.main = mainOf(mq) + 8;
    const qkCross = Math.max(crossOf(mq), mk.cross + crossOf(mk));
    mv.cross = Math.max(qkCross, Math.max(0, qkCross / 2 - clear / 2) + clear) + 10;
    return item(part, head, [mq, mk, mv], {
      qk: { centre: qkCross / 2, end: Math.max(mainOf(mq), mk.main + mainOf(mk)) },
      v: { centre: mv.cross + crossOf(mv) / 2, end: mainOf(mv) },
    });
  };

  // Per-head stages, made for the heads shown: arrays indexed by their place n among them.
  const perHead = (make) => shownHeads.map((h, n) => make(h, n));
  const sliceShape = ['L×d_k', `= ${L}×${dk}`];
  const square = ['L×L', `= ${L}×${L}`];
  const full = ['L×d_model', `= ${L}×${dModel}`];
  const scoreItems = perHead((h) => single('scores', h, matrix('s', `${text.scores}${subscript(h + 1)}`, square, L, L, scores[h], signed)));
  const weightItems = perHead((h) => single('weights', h, matrix('a', `${text.weights}${subscript(h + 1)}`, square, L, L, attention[h], weights)));
  const clear = Math.max(...scoreItems.map(crossOf), ...weightItems.map(crossOf));
  const stages = [
    // Lying flat, the full Q, K and V stand in one column: the figure stays narrow enough for its words to be read.
    [qkv('input', null, [['Q', q], ['K', k], ['V', v]].map(([name, values]) => matrix(name.toLowerCase(), name, full, L, dModel, values, signed, headOfColumn)), 0, horizontal)],
    perHead((h) => qkv('split', h, [['Q', q], ['K', k], ['V', v]].map(([name, values]) =>
      matrix(name.toLowerCase(), `${name}${subscript(h + 1)}`, sliceShape, L, dk, slice(values, h), signed, () => h)), clear)),
    scoreItems,
    weightItems,
    perHead((h) => single('heads', h, matrix('head', `${text.heads}${subscript(h + 1)}`, sliceShape, L, dk, headOutputs[h], signed, () => h))),
    [single('concat', null, matrix('concat', text.concat, full, L, dModel, concat, signed, headOfColumn))],
    [single('wo', null, matrix('wo', text.wo, ['d_model×d_model', `= ${dModel}×${dModel}`], dModel, dModel, wo, signed))],
    [single('output', null, matrix('output', text.output, full, L, dModel, output, signed))],
  ];
  const [inputs, splits] = stages;
  const banded = stages.flat().flatMap((it) => it.matrices).reduce((sum, m) => sum + m.rows * m.cols, 0) > MAX_CELL_RECTS;

  // Cross axis: one band per head, as wide as its Q/K/V block; scores and weights line up with the
  // Q/K lane, head outputs with the V lane. Stages with one item are centred.
  const bandGap = 14;
  const bands = perHead((h, n) => Math.max(crossOf(splits[n]), splits[n].lanes.v.centre + crossOf(stages[4][n]) / 2));
  const totalCross = Math.max(bands.reduce((sum, b) => sum + b, 0) + bandGap * (bands.length - 1), crossOf(inputs[0]), ...stages.slice(5).map(([it]) => crossOf(it)));
  const bandStart = perHead((h, n) => (totalCross - bands.reduce((sum, b) => sum + b + bandGap, -bandGap)) / 2 + bands.slice(0, n).reduce((sum, b) => sum + b + bandGap, 0));
  const crossStart = (it) => {
    if (it.head === null) return (totalCross - crossOf(it)) / 2;
    const n = shownHeads.indexOf(it.head);
    const lanes = splits[n].lanes;
    if (it.part === 'split') return bandStart[n];
    const centre = it.part === 'heads' ? lanes.v.centre : lanes.qk.centre;
    return bandStart[n] + Math.max(0, centre - crossOf(it) / 2);
  };

  // The gap before each stage: wide where arrows fan out or come together, narrow where they run straight.
  const gaps = horizontal ? sizes.gaps : [0, 34, 34, 34, 34, 34, 34, 34];
  const opBand = horizontal ? labelFont + 10 : 0;
  const margin = horizontal ? 6 : 70;
  let mainOffset = 6;
  for (const [s, items] of stages.entries()) {
    mainOffset += gaps[s];
    const extent = Math.max(...items.map(mainOf));
    for (const it of items) {
      it.main = mainOffset + (extent - mainOf(it)) / 2;
      it.cross = crossStart(it);
      [it.x, it.y] = horizontal ? [it.main, opBand + it.cross] : [margin + it.cross, it.main];
    }
    items.extent = [mainOffset, mainOffset + extent];
    mainOffset += extent;
  }
  const figureWidth = horizontal ? mainOffset + 6 : margin + totalCross + 10;
  const figureHeight = horizontal ? opBand + totalCross + 4 : mainOffset + 6;

  // The key: both colour scales with their numbers, side by side when they fit, else stacked.
  const keys = showKey && sizes.key ? [
    legend(doc, { scale: 'weights', title: text.weightsKey, width: 160, steps: 40, fontSize: labelFont }),
    legend(doc, { scale: 'signed', domain: range, title: text.valuesKey, width: 160, steps: 40, fontSize: labelFont }),
  ] : [];
  const keySizes = keys.map((svg) => [Number(svg.getAttribute('width')), Number(svg.getAttribute('height'))]);
  const keysInRow = keySizes.reduce((sum, [w]) => sum + w + 16, 0) <= Math.max(figureWidth, 360);
  const keyHeight = keys.length ? (keysInRow ? Math.max(...keySizes.map(([, h]) => h)) : keySizes.reduce((sum, [, h]) => sum + h, 0)) + 8 : 0;
  const width = Math.max(figureWidth, keys.length ? (keysInRow ? keySizes.reduce((sum, [w]) => sum + w + 16, 0) : Math.max(...keySizes.map(([w]) => w))) : 0);
  const height = figureHeight + keyHeight;
  // Too wide lying flat: stood up instead, before a cell is drawn.
  if (horizontal && width > maxWidth) return pipeline(doc, { ...data, orientation: 'vertical' });

  const root = svgRoot(doc, { width, height, title, className: 'mha-pipeline' });
  const isHighlighted = (it) => highlight.includes(it.part) || (it.head !== null && highlight.includes(`${it.part}:${it.head}`));
  const point = (main, cross) => (horizontal ? [main, opBand + cross] : [margin + cross, main]);
  // Where an arrow leaves a lane of an item, and where it enters one.
  // Standing up, Q lies over K: their arrows leave and enter a bracket along the pair's left side, so that
  // none reads as coming out of K alone or going into Q alone.
  const bracketed = (it, lane) => !horizontal && lane === 'qk';
  const laneCross = (it, lane) => it.cross + (bracketed(it, lane) ? -BRACKET_OFFSET : it.lanes[lane].centre);
  const exit = (it, lane = 'all') => point(it.main + it.lanes[lane].end, laneCross(it, lane));
  const entry = (it, lane = 'all') => point(it.main - 3, laneCross(it, lane));

  // Arrows first, so matrices sit on top of them; each stage's arrows fade with it.
  const [, , , , headItems, [concatItem], [woItem], [outputItem]] = stages;
  const arrowsInto = [
    [],
    splits.flatMap((it) => [[exit(inputs[0], 'qk'), entry(it, 'qk')], [exit(inputs[0], 'v'), entry(it, 'v')]]),
    scoreItems.map((it, h) => [exit(splits[h], 'qk'), entry(it)]),
    weightItems.map((it, h) => [exit(scoreItems[h]), entry(it)]),
    headItems.flatMap((it, h) => [[exit(weightItems[h]), entry(it)], [exit(splits[h], 'v'), entry(it)]]),
    headItems.map((it) => [exit(it), entry(concatItem)]),
    [[exit(concatItem), entry(woItem)]],
    [[exit(woItem), entry(outputItem)]],
  ];
  const arrows = el(doc, 'g', { class: 'arrows', stroke: '#8a8a8a', fill: '#8a8a8a', 'stroke-width': sizes.arrow });
  const tipSize = sizes.arrow / SCREEN_SIZES.arrow;
  for (let s = 1; s < stages.length; s++) {
    const fade = step > 0 && s + 1 > step;
    const group = el(doc, 'g', { opacity: fade ? 0.15 : 1 });
    for (const [[x1, y1], [x2, y2]] of arrowsInto[s]) {
      group.appendChild(el(doc, 'line', { x1, y1, x2, y2 }));
      const angle = Math.atan2(y2 - y1, x2 - x1);
      const tip = [[0, 0], [-7 * tipSize, -3.5 * tipSize], [-7 * tipSize, 3.5 * tipSize]].map(([dx, dy]) =>
        `${(x2 + dx * Math.cos(angle) - dy * Math.sin(angle)).toFixed(1)},${(y2 + dx * Math.sin(angle) + dy * Math.cos(angle)).toFixed(1)}`);
      group.appendChild(el(doc, 'polygon', { points: tip.join(' '), stroke: 'none' }));
    }
    const gapMid = (stages[s - 1].extent[1] + stages[s].extent[0]) / 2;
    const [lx, ly] = horizontal ? [gapMid, opBand / 2] : [4, gapMid];
    group.appendChild(el(doc, 'text', { x: lx, y: ly, 'text-anchor': horizontal ? 'middle' : 'start', 'dominant-baseline': 'central', 'font-size': labelFont, fill: '#333', stroke: 'none' }, [ops[PIPELINE_STEPS[s]]]));
    arrows.appendChild(group);
  }
  root.appendChild(arrows);

  for (const [s, items] of stages.entries()) {
    const stepNumber = s + 1;
    for (const it of items) {
      const off = it.head !== null && !enabled[it.head];
      const current = step === stepNumber;
      const faded = step > 0 && stepNumber > step;
      const group = el(doc, 'g', {
        class: `stage${current ? ' active' : ''}${isHighlighted(it) ? ' highlighted' : ''}`,
        'data-part': it.part,
        'data-step': stepNumber,
        'data-head': it.head,
        opacity: faded ? 0.12 : off ? 0.4 : 1,
        transform: `translate(${it.x.toFixed(2)} ${it.y.toFixed(2)})`,
      });
      if (current || isHighlighted(it)) {
        group.appendChild(el(doc, 'rect', { x: -4, y: -3, width: it.width + 8, height: it.height + 6, rx: 6, fill: '#fff4c2', stroke: '#111', 'stroke-width': current ? 2.5 : 1.8, 'stroke-dasharray': current ? null : '5 3' }));
      }
      if (bracketed(it, 'qk') && it.lanes.qk) {
        const [left, end] = [-BRACKET_OFFSET, it.lanes.qk.end];
        group.appendChild(el(doc, 'path', { class: 'pair-bracket', d: `M${left + 5} 0H${left}V${end}H${left + 5}`, fill: 'none', stroke: '#8a8a8a', 'stroke-width': sizes.arrow }));
      }
      for (const m of it.matrices) {
        const [mx, my] = horizontal ? [m.main, m.cross] : [m.cross, m.main];
        group.appendChild(drawMatrix(doc, m, { x: mx, y: my, banded, head: it.head, caption: m.caption + (off ? ` (${text.off})` : ''), fonts: { captionFont, labelFont, captionBand } }));
      }
      root.appendChild(group);
    }
  }

  let keyOffset = 0;
  keys.forEach((svg, i) => {
    svg.setAttribute('x', String(keysInRow ? keyOffset : 0));
    svg.setAttribute('y', String(figureHeight + 4 + (keysInRow ? 0 : keySizes.slice(0, i).reduce((sum, [, h]) => sum + h, 0))));
    keyOffset += keySizes[i][0] + 16;
  });
  if (keys.length) root.appendChild(el(doc, 'g', { class: 'key' }, keys));
  return root;
}

// How far left of a standing Q/K pair its bracket runs.
const BRACKET_OFFSET = 6;

// More cells than this in a pipeline are drawn in colour bands.
const MAX_CELL_RECTS = 4096;

/**
 * How a matrix's numbers are written in its cells, { digits, size }: whole numbers (the lesson's q, k, v)
 * without decimals, others with two, as large as the widest fits; null when it would be smaller than
 * MIN_NUMBER_FONT.
 */
function cellNumbers(values, count, cell, largest) {
  if (cell - 4 < textWidth('0', MIN_NUMBER_FONT)) return false; // not even a digit fits
  const all = Array.from({ length: count }, (_, i) => values[i]);
  const digits = all.every(Number.isInteger) ? 0 : 2;
  const size = (cell - 4) / all.reduce((widest, value) => Math.max(widest, textWidth(formatNumber(value, digits), 1)), 0);
  return size >= MIN_NUMBER_FONT && { digits, size: Math.min(largest, size) };
}

/** One mini matrix at (x, y): caption, the band of head colours over its columns, its rows' words, cells (with data-row and data-col, for pages to find), their numbers where they fit, shape. */
function drawMatrix(doc, m, { x, y, banded, head, caption, fonts: { captionFont, labelFont, captionBand } }) {
  const { cell } = m;
  const group = el(doc, 'g', { 'data-matrix': m.name, transform: x || y ? `translate(${x} ${y})` : null });
  const left = m.labelWidth + (m.width - m.labelWidth - m.cols * cell) / 2;
  // The caption over the cells, but not past the matrix's right edge.
  const captionX = Math.min(left + (m.cols * cell) / 2, m.width - textWidth(caption, captionFont) / 2);
  group.appendChild(el(doc, 'text', { x: captionX, y: (captionBand - 1) / 2, 'text-anchor': 'middle', 'dominant-baseline': 'central', 'font-size': captionFont, 'font-weight': 600, fill: head !== null ? headInk(head) : '#222' }, [caption]));
  let top = captionBand;
  if (m.columnHead) {
    for (let c = 0; c < m.cols; c++) {
      group.appendChild(el(doc, 'rect', { x: left + c * cell, y: top, width: cell, height: 3, fill: headColor(m.columnHead(c)) }));
    }
    top += 5;
  }
  // Banded, the cells are drawn in cell units.
  const cells = el(doc, 'g', { class: 'cells', transform: banded ? `translate(${left} ${top}) scale(${cell})` : null });
  // The numbers lie over the cells; a pointer goes through them to the cell under it.
  const numbers = !banded && m.numbers && el(doc, 'g', { class: 'numbers', 'font-size': m.numbers.size, 'text-anchor': 'middle', 'dominant-baseline': 'central', 'pointer-events': 'none' });
  if (!banded) {
    for (let r = 0; r < m.rows; r++) {
      for (let c = 0; c < m.cols; c++) {
        const value = m.values[r * m.cols + c];
        const fill = Number.isFinite(value) ? m.color(value) : '#ddd';
        cells.appendChild(el(doc, 'rect', { 'data-row': r, 'data-col': c, x: left + c * cell, y: top + r * cell, width: cell, height: cell, fill, stroke: '#fff', 'stroke-width': cell > 6 ? 0.75 : 0 }));
        if (numbers) numbers.appendChild(el(doc, 'text', { x: left + (c + 0.5) * cell, y: top + (r + 0.5) * cell, fill: textColorFor(fill) }, [formatNumber(value, m.numbers.digits)]));
      }
    }
  } else {
    // A path per colour band: a few dozen shapes a matrix.
    const [lo, hi] = m.domain;
    const levelAt = (at) => (Number.isFinite(m.values[at]) ? bandOf(m.values[at], lo, hi) : -1);
    for (const [level, d] of bandRuns(m.rows, m.cols, levelAt)) cells.appendChild(el(doc, 'path', { d, fill: level < 0 ? '#ddd' : m.color(bandValue(level, lo, hi)) }));
  }
  group.appendChild(cells);
  if (numbers) group.appendChild(numbers);
  if (m.labels) {
    group.appendChild(el(doc, 'g', { class: 'row-labels', 'text-anchor': 'end', 'dominant-baseline': 'central', 'font-size': labelFont, fill: '#222' },
      m.labels.map((label, r) => el(doc, 'text', { x: left - 4, y: top + (r + 0.5) * cell }, [label]))));
  }
  group.appendChild(el(doc, 'rect', { x: left, y: top, width: m.cols * cell, height: m.rows * cell, fill: 'none', stroke: head !== null ? headColor(head) : '#666', 'stroke-width': 1.2 }));
  const bottom = top + m.rows * cell;
  if (m.shape.length) group.appendChild(el(doc, 'g', { class: 'shape', 'text-anchor': 'middle', 'dominant-baseline': 'central', 'font-size': labelFont, fill: '#333' }, m.shape.map((line, i) => el(doc, 'text', { x: m.width / 2, y: bottom + 10 + i * 14 }, [line]))));
  return group;
}
