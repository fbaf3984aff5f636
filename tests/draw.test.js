// Golden SVG snapshots of the pure drawing functions, rendered with linkedom as the DOM.
// Regenerate after an intended change: UPDATE_GOLDEN=1 node --test tests/draw.test.js
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseHTML } from 'linkedom';
import { matchGolden } from './golden.js';
import {
  heatmap, matrixView, legend, headKey, pipeline, PROJECTOR_SIZES, lineView, headGrid, tableFor, tilePixels, tileLevel, FUTURE_COLOR, rowBars, textWeights,
  textColorFor, weightColor, formatNumber, PIPELINE_STEPS, lossCurve,
} from '../web/draw/index.js';
import { headInk } from '../web/draw/color.js';
import { textWidth } from '../web/draw/svg.js';
import { FIGURE_LABELS } from '../web/shared/figure-labels.js';

const { document } = parseHTML('<!doctype html><html><body></body></html>');
/** A drawing's golden, tests/golden/<name>.svg. */
const matchSvg = (name, node) => matchGolden(`${name}.svg`, node);

// The lesson's hand example (h = 2, scale on, mask off), as printed in the lesson.
const tokens = ['猫', '吃', '鱼'];
const head1 = [0.25, 0.25, 0.5, 0.11, 0.45, 0.45, 0.33, 0.33, 0.33];
const head2 = [0.33, 0.33, 0.33, 0.16, 0.67, 0.16, 0.4, 0.4, 0.2];
const q = [1, 1, 0, 0, 0, 2, 0, 2, 0, 0, 1, 1];
const concat = [1.26, 0.25, 0.33, 1.0, 0.66, 1.11, 0.16, 1.0, 1.0, 0.33, 0.4, 0.8];

test('heatmap writes every number, with readable text colour and labels', () => {
  const svg = heatmap(document, { values: head1, rows: 3, cols: 3, rowLabels: tokens, colLabels: tokens, title: 'head 1' });
  const cells = svg.querySelectorAll('g.cell');
  assert.equal(cells.length, 9);
  assert.equal(cells[2].querySelector('text').textContent, '0.50');
  assert.equal(cells[2].getAttribute('data-row'), '0');
  assert.equal(cells[2].getAttribute('data-col'), '2');
  assert.equal(svg.getAttribute('aria-label'), 'head 1');
  assert.equal(svg.querySelector('title').textContent, 'head 1');
  for (const cell of cells) {
    assert.equal(cell.querySelector('text').getAttribute('fill'), textColorFor(cell.querySelector('rect').getAttribute('fill')));
  }
  matchSvg('heatmap-head1', svg);
});

test('heatmap of signed scores uses a symmetric diverging domain', () => {
  const svg = heatmap(document, { values: [[0.71, 0.71, 1.41], [0, -1.41, 0]], rows: 2, cols: 3, scale: 'signed', rowLabels: ['a', 'b'], colLabels: tokens });
  const fills = [...svg.querySelectorAll('g.cell rect')].map((r) => r.getAttribute('fill'));
  assert.equal(fills[3], fills[5], 'equal values get equal colours');
  assert.notEqual(fills[2], fills[4], 'opposite signs differ');
  matchSvg('heatmap-signed', svg);
});

test('heatmap fades and strikes through masked cells', () => {
  const svg = heatmap(document, { values: head1, rows: 3, cols: 3, scale: 'signed', masked: (r, c) => c > r });
  assert.equal(svg.querySelectorAll('g.cell.masked').length, 3);
  assert.equal(svg.querySelectorAll('g.cell.masked line').length, 3);
  assert.equal(svg.querySelector('g.cell[data-row="2"][data-col="0"]').getAttribute('class'), 'cell');
});

test('matrix view colours columns by head and greys a disabled head', () => {
  const svg = matrixView(document, { values: concat, rows: 3, cols: 4, rowLabels: tokens, headOf: (c) => Math.floor(c / 2), disabledHeads: [1] });
  const band = svg.querySelectorAll('.head-band rect');
  assert.equal(band.length, 2);
  assert.equal(svg.querySelectorAll('g.cell[data-head="1"] rect')[0].getAttribute('fill'), '#eeeeee');
  matchSvg('matrix-concat', svg);
});

test('legend and head key', () => {
  matchSvg('legend-weights', legend(document, { scale: 'weights', title: 'weight', id: 'w' }));
  matchSvg('legend-signed', legend(document, { scale: 'signed', domain: [-2, 2], id: 's' }));
  matchSvg('head-key', headKey(document, { heads: 3, disabledHeads: [2] }));
});

const pipelineData = {
  tokens,
  dModel: 4,
  heads: 2,
  q,
  k: [1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0],
  v: [1, 0, 1, 0, 0, 1, 0, 1, 2, 0, 0, 2],
  scores: [[0.71, 0.71, 1.41, 1.41, 0.71, 0.71, 0, 0, 0], [0, 0, 0, 0, 1.41, 0, 0.71, 0.71, 0]],
  attention: [head1, head2],
  headOutputs: [[1.26, 0.25, 0.66, 1.11, 1.0, 0.33], [0.33, 1.0, 0.16, 1.0, 0.4, 0.8]],
  concat,
  wo: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1],
  output: concat,
};

test('pipeline draws the eight stages with their shapes', () => {
  const svg = pipeline(document, pipelineData);
  const parts = [...svg.querySelectorAll('g.stage')].map((g) => g.getAttribute('data-part'));
  assert.deepEqual([...new Set(parts)], PIPELINE_STEPS);
  assert.equal(parts.filter((p) => p === 'weights').length, 2, 'one attention map per head');
  const shapes = [...svg.querySelectorAll('g.shape')].map((g) => [...g.querySelectorAll('text')].map((t) => t.textContent).join(' '));
  for (const shape of ['L×d_model = 3×4', 'L×d_k = 3×2', 'L×L = 3×3', 'd_model×d_model = 4×4']) assert.ok(shapes.includes(shape), shape);
  matchSvg('pipeline-step0', svg);
});

/** The font size a text is drawn at: its own, or the nearest group's that sets one. */
const fontSizeOf = (node) => {
  for (let n = node; n && n.getAttribute; n = n.parentNode) if (n.getAttribute('font-size')) return Number(n.getAttribute('font-size'));
  return NaN;
};

test('pipeline words are 12 px or more and upright, and the lesson\'s example lying flat fits a 1,046 px column at 1:1', () => {
  const svg = pipeline(document, pipelineData);
  // The page's column on a 1280 px screen is 1,046 px wide: wider, the figure would be shrunk, and its words with it.
  assert.ok(Number(svg.getAttribute('width')) <= 1046, `${svg.getAttribute('width')} px wide`);
  const words = [...svg.querySelectorAll('text')].filter((t) => !t.closest('g.numbers'));
  assert.ok(words.length > 40);
  for (const word of words) {
    assert.ok(fontSizeOf(word) >= 12, `"${word.textContent}" at ${fontSizeOf(word)} px`);
    assert.equal(word.getAttribute('font-style'), null, `"${word.textContent}" is upright`);
  }
  const vertical = pipeline(document, { ...pipelineData, orientation: 'vertical' });
  for (const word of vertical.querySelectorAll('text')) if (!word.closest('g.numbers')) assert.ok(fontSizeOf(word) >= 12, word.textContent);
});

test('pipeline writes each cell\'s number where it fits: whole numbers bare, others with two decimals', () => {
  const svg = pipeline(document, pipelineData);
  const numbers = (part, matrix) => [...svg.querySelectorAll(`g.stage[data-part="${part}"] g[data-matrix="${matrix}"] g.numbers text`)].map((t) => t.textContent);
  assert.deepEqual(numbers('input', 'q'), q.map(String), 'the lesson\'s q, as integers');
  assert.deepEqual(numbers('split', 'v').slice(0, 6), ['1', '0', '0', '1', '2', '0'], 'V₁: v\'s first two columns');
  assert.deepEqual(numbers('weights', 'a').slice(0, 9), head1.map((w) => w.toFixed(2)));
  assert.deepEqual(numbers('concat', 'concat'), concat.map((x) => x.toFixed(2)));
  for (const group of svg.querySelectorAll('g.numbers')) {
    assert.ok(fontSizeOf(group) >= 9, `numbers at ${fontSizeOf(group)} px`);
    assert.equal(group.getAttribute('pointer-events'), 'none', 'a pointer reaches the cell under its number');
  }
  for (const text of svg.querySelectorAll('g.numbers text')) {
    const cell = text.closest('g[data-matrix]').querySelectorAll('.cells rect')[[...text.parentNode.children].indexOf(text)];
    assert.equal(text.getAttribute('fill'), textColorFor(cell.getAttribute('fill')));
  }
  // Numbers too wide for their cells are left out, not shrunk past reading.
  const wide = pipeline(document, { ...pipelineData, q: q.map((x) => x - 0.123) });
  assert.equal(wide.querySelectorAll('g.stage[data-part="input"] g[data-matrix="q"] g.numbers').length, 0);
  assert.equal(wide.querySelectorAll('g.stage[data-part="input"] g[data-matrix="k"] g.numbers').length, 1);
});

test('pipeline names the rows of every matrix with the words, but Wᴼ\'s, whose rows are dimensions', () => {
  for (const orientation of ['horizontal', 'vertical']) {
    const svg = pipeline(document, { ...pipelineData, orientation });
    const matrices = [...svg.querySelectorAll('g[data-matrix]')];
    assert.equal(matrices.length, 3 + 2 * 3 + 2 + 2 + 2 + 3);
    for (const m of matrices) {
      const labels = [...m.querySelectorAll('g.row-labels text')].map((t) => t.textContent);
      assert.deepEqual(labels, m.getAttribute('data-matrix') === 'wo' ? [] : tokens, `${orientation} ${m.querySelector('text').textContent}`);
    }
  }
  // A long word is clipped, so that it takes no more room than three letters.
  const long = pipeline(document, { ...pipelineData, tokens: ['abcdefghijkl', '吃', '鱼'] });
  assert.deepEqual([...long.querySelectorAll('g[data-part="input"] g[data-matrix="q"] g.row-labels text')].map((t) => t.textContent), ['ab…', '吃', '鱼']);
});

test('pipeline at a projector\'s sizes: every number 25 units, no shapes or key, and the whole fits 1,880 × 900 at 1:1', () => {
  const svg = pipeline(document, { ...pipelineData, sizes: PROJECTOR_SIZES });
  assert.ok(Number(svg.getAttribute('width')) <= 1880 && Number(svg.getAttribute('height')) <= 900, `${svg.getAttribute('width')} × ${svg.getAttribute('height')}`);
  const numbers = [...svg.querySelectorAll('g.numbers')];
  assert.equal(numbers.length, 3 + 2 * 3 + 2 + 2 + 2 + 3, 'every matrix writes its numbers');
  for (const group of numbers) assert.ok(fontSizeOf(group) >= 25, `numbers at ${fontSizeOf(group)} units`);
  for (const word of svg.querySelectorAll('text')) assert.ok(fontSizeOf(word) >= 20, `"${word.textContent}" at ${fontSizeOf(word)} units`);
  assert.equal(svg.querySelectorAll('g.shape, g.key').length, 0);
  matchSvg('pipeline-projector', svg);
});

test('pipeline step lights one stage and fades the later ones', () => {
  const svg = pipeline(document, { ...pipelineData, step: 4, enabled: [true, false] });
  const active = [...svg.querySelectorAll('g.stage.active')];
  assert.equal(active.length, 2);
  assert.ok(active.every((g) => g.getAttribute('data-part') === 'weights'));
  assert.equal(svg.querySelector('g.stage[data-part="output"]').getAttribute('opacity'), '0.12');
  matchSvg('pipeline-step4-vertical', pipeline(document, { ...pipelineData, step: 4, enabled: [true, false], orientation: 'vertical', highlight: ['wo'] }));
});

test('pipeline splits K and V as it splits Q, and the q·kᵀ and ·V arrows start at K_i and V_i', () => {
  const svg = pipeline(document, pipelineData);
  const split = svg.querySelector('g.stage[data-part="split"][data-head="1"]');
  assert.deepEqual([...split.querySelectorAll('g[data-matrix]')].map((g) => g.querySelector('text').textContent), ['Q₂', 'K₂', 'V₂']);
  const input = svg.querySelector('g.stage[data-part="input"]');
  assert.deepEqual([...input.querySelectorAll('g[data-matrix]')].map((g) => g.getAttribute('data-matrix')), ['q', 'k', 'v']);
  // K₂ holds k's columns 2–3: the cells of its first row are coloured like k[0][2], k[0][3] in K.
  const fills = (g) => [...g.querySelectorAll('.cells rect')].map((r) => r.getAttribute('fill'));
  const k = fills(input.querySelector('g[data-matrix="k"]'));
  assert.deepEqual(fills(split.querySelector('g[data-matrix="k"]')).slice(0, 2), [k[2], k[3]]);
  // Into each head's output come two arrows: from its weights and, level with V_i, straight from V_i.
  const heads = svg.querySelectorAll('.arrows > g')[3];
  const lines = [...heads.querySelectorAll('line')];
  assert.equal(lines.length, 4);
  assert.ok(lines.filter((l) => l.getAttribute('y1') === l.getAttribute('y2')).length === 2, 'the ·V arrows run level from V_i');
});

test('pipeline standing up: Q and K\'s arrows leave and enter a bracket beside the pair, not K alone or Q alone', () => {
  assert.equal(pipeline(document, pipelineData).querySelectorAll('path.pair-bracket').length, 0, 'lying flat, Q and K lie side by side');
  const svg = pipeline(document, { ...pipelineData, orientation: 'vertical' });
  assert.equal(svg.querySelectorAll('path.pair-bracket').length, 1 + 2, 'the input\'s pair and each head\'s');
  const leftOf = (part, head) => {
    const stage = svg.querySelector(`g.stage[data-part="${part}"]${head === undefined ? '' : `[data-head="${head}"]`}`);
    return Number(stage.getAttribute('transform').match(/translate\(([-\d.]+)/)[1]) - 6;
  };
  // Into the split: per head an arrow from the pair (Q, K) and one from V; into the scores: one from each head's pair.
  const [intoSplit, intoScores] = [...svg.querySelectorAll('.arrows > g')].slice(0, 2).map((g) => [...g.querySelectorAll('line')].map((l) => [Number(l.getAttribute('x1')), Number(l.getAttribute('x2'))]));
  assert.deepEqual([intoSplit[0], intoSplit[2]].map(([x1, x2]) => [x1, x2]), [[leftOf('input'), leftOf('split', 0)], [leftOf('input'), leftOf('split', 1)]].map(([a, b]) => [Number(a.toFixed(2)), Number(b.toFixed(2))]));
  assert.deepEqual(intoScores.map(([x1]) => x1), [leftOf('split', 0), leftOf('split', 1)].map((x) => Number(x.toFixed(2))));
});

test('pipeline colours every signed value on one scale, stated by the key it carries', () => {
  const svg = pipeline(document, { ...pipelineData, scores: [[2, 0, 0, 0, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0, 0, 0, 0]] });
  const cellFill = (part, head, matrix) => svg.querySelector(`g.stage[data-part="${part}"]${head === null ? '' : `[data-head="${head}"]`} g[data-matrix="${matrix}"] .cells rect`).getAttribute('fill');
  // The largest magnitude anywhere is the score 2: q's 1 and the second head's score 1 share one colour.
  assert.equal(cellFill('scores', 1, 's'), cellFill('input', null, 'q'));
  assert.notEqual(cellFill('scores', 0, 's'), cellFill('scores', 1, 's'));
  const keys = [...svg.querySelectorAll('g.key svg.mha-legend')];
  assert.equal(keys.length, 2);
  assert.deepEqual([...keys[1].querySelectorAll('text')].slice(1).map((t) => t.textContent), ['-2.00', '0.00', '2.00']);
  assert.equal(svg.querySelectorAll('linearGradient').length, 0, 'no ids: the figure can be copied anywhere');
  assert.equal(pipeline(document, { ...pipelineData, showKey: false }).querySelector('g.key'), null);
});

test('pipeline highlights a part for a formula symbol', () => {
  const svg = pipeline(document, { ...pipelineData, highlight: ['split:1'] });
  const lit = [...svg.querySelectorAll('g.stage.highlighted')];
  assert.deepEqual(lit.map((g) => [g.getAttribute('data-part'), g.getAttribute('data-head')]), [['split', '1']]);
});

test('line view draws one line per (query, key, head) with the weight', () => {
  const svg = lineView(document, { tokens, attention: [head1, head2] });
  assert.equal(svg.querySelectorAll('line').length, 18);
  const line = svg.querySelector('line[data-head="1"][data-from="1"][data-to="1"]');
  assert.equal(line.getAttribute('data-weight'), '0.6700');
  assert.equal(lineView(document, { tokens, attention: [head1, head2], focus: 0, visibleHeads: [0] }).querySelectorAll('line').length, 3);
  matchSvg('lines', svg);
});

test('the line view\'s side headings lie within its width, in Chinese and English, with short and long words', () => {
  for (const lang of ['zh', 'en']) {
    for (const words of [tokens, ['the', 'cat', 'sat'], ['abcdefghijkl', 'x']]) {
      const svg = lineView(document, { tokens: words, attention: [Array(words.length ** 2).fill(1 / words.length)], queryLabel: FIGURE_LABELS[lang].query, keyLabel: FIGURE_LABELS[lang].key });
      const width = Number(svg.getAttribute('viewBox').split(' ')[2]);
      const [query, key] = [...svg.children].filter((node) => node.tagName.toLowerCase() === 'text');
      const extent = (text) => textWidth(text.textContent, Number(text.getAttribute('font-size')));
      assert.equal(key.textContent, FIGURE_LABELS[lang].key);
      assert.ok(Number(query.getAttribute('x')) - extent(query) >= 0, `${lang} "${query.textContent}" starts inside`);
      assert.ok(Number(key.getAttribute('x')) + extent(key) <= width, `${lang} "${key.textContent}" ends at ${Number(key.getAttribute('x')) + extent(key)}, the figure at ${width}`);
    }
  }
});

test('heads 9–16 are dashed and every head label reads on white', () => {
  const attention = Array.from({ length: 16 }, () => head1);
  const lines = lineView(document, { tokens, attention });
  assert.equal(lines.querySelector('line[data-head="0"]').getAttribute('stroke-dasharray'), null);
  assert.equal(lines.querySelector('line[data-head="8"]').getAttribute('stroke-dasharray'), '5 3');
  assert.equal(lines.querySelector('line[data-head="8"]').getAttribute('stroke'), lines.querySelector('line[data-head="0"]').getAttribute('stroke'));
  const key = headKey(document, { heads: 16 });
  assert.equal(key.querySelectorAll('rect[stroke-dasharray]').length, 8);
  const contrast = (hex) => {
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
    return 1.05 / (0.2126 * r + 0.7152 * g + 0.0722 * b + 0.05);
  };
  for (let head = 0; head < 8; head++) assert.ok(contrast(headInk(head)) >= 4.5, `h${head + 1}: ${headInk(head)}`);
  assert.equal(headInk(7) === '#F0E442', false, 'yellow is darkened for text');
});

test('a compact head grid keeps 16 heads of 9 words within a phone\'s width and a few rows', () => {
  const L = 9;
  const words = Array.from({ length: L }, (_, i) => `w${i}`);
  const uniform = new Array(L * L).fill(1 / L);
  const attention = Array.from({ length: 64 }, () => uniform);
  const phone = headGrid(document, { tokens: words, attention, first: 16, count: 16, width: 320 });
  assert.ok(Number(phone.getAttribute('width')) <= 320, `${phone.getAttribute('width')} px wide`);
  assert.ok(Number(phone.getAttribute('height')) <= 420, `${phone.getAttribute('height')} px tall`);
  assert.deepEqual([...phone.querySelectorAll('g.tile')].map((g) => Number(g.getAttribute('data-head'))), Array.from({ length: 16 }, (_, i) => 16 + i));
  const desk = headGrid(document, { tokens: words, attention, count: 16, width: 600 });
  assert.ok(Number(desk.getAttribute('width')) <= 600 && Number(desk.getAttribute('height')) <= 300, `${desk.getAttribute('width')}×${desk.getAttribute('height')}`);
  matchSvg('grid-compact', phone);
});

/** The colour band of each cell that a figure's band paths (data-level; "Mx yh w…" runs in cell units) colour. */
function bandsOf(root) {
  const cells = new Map();
  for (const path of root.querySelectorAll('path[data-level]')) {
    for (const [, x, y, w] of path.getAttribute('d').matchAll(/M(\d+) (\d+)h(\d+)/g)) {
      for (let col = Number(x); col < Number(x) + Number(w); col++) cells.set(`${y},${col}`, Number(path.getAttribute('data-level')));
    }
  }
  return cells;
}

test('head grid has one tile per head, each cell in its weight\'s colour band', () => {
  const heads = [head1, head2, head2, head1];
  const svg = headGrid(document, { tokens, attention: heads, columns: 2, enabled: [true, true, false, true] });
  assert.equal(svg.querySelectorAll('g.tile').length, 4);
  assert.equal(svg.querySelector('g.tile[data-head="2"]').getAttribute('opacity'), '0.35');
  const L = tokens.length;
  svg.querySelectorAll('g.tile').forEach((tile, head) => {
    const cells = bandsOf(tile);
    assert.equal(cells.size, L * L, `head ${head}: every cell, the masked ones too`);
    for (let row = 0; row < L; row++) for (let col = 0; col < L; col++) assert.equal(cells.get(`${row},${col}`), tileLevel(heads[head][row * L + col]), `head ${head}, ${row},${col}`);
  });
  matchSvg('grid', svg);
});

test('an attention tile is one opaque pixel per cell: the seen cells in their colour band\'s colour, the future grey', () => {
  const L = 4;
  const weights = [1, 0, 0, 0, 0.5, 0.5, 0, 0, 0.2, 0.2, 0.6, 0, 0.1, 0.1, 0.1, 0.7];
  const pixels = tilePixels({ weights, length: L });
  assert.ok(pixels instanceof Uint8ClampedArray && pixels.length === L * L * 4, 'an ImageData\'s layout');
  const hex = (at) => `#${[...pixels.subarray(at, at + 3)].map((byte) => byte.toString(16).padStart(2, '0')).join('')}`;
  // The colours as the page's other figures draw the same weights, from the colour scale itself.
  const bands = new Map(Array.from({ length: 32 }, (_, level) => [weightColor((level + 0.5) / 32), level]));
  for (let row = 0; row < L; row++) {
    for (let col = 0; col < L; col++) {
      const at = (row * L + col) * 4;
      assert.equal(pixels[at + 3], 255, `${row},${col} opaque`);
      if (col > row) assert.equal(hex(at), FUTURE_COLOR, `${row},${col} is the future`);
      else assert.equal(bands.get(hex(at)), tileLevel(weights[row * L + col]), `${row},${col}`);
    }
  }
  assert.equal(hex(0), '#f4e61e', 'a weight of 1: the top of viridis');
  assert.equal(hex((3 * L + 0) * 4), hex((3 * L + 2) * 4), 'the three 0.1s of a row, one colour');
  assert.deepEqual(tilePixels({ weights: [], length: 0 }), new Uint8ClampedArray(0));
});

test('tableFor gives a screen-reader table with scoped headers', () => {
  const table = tableFor(document, { values: head1, rows: 3, cols: 3, rowLabels: tokens, colLabels: tokens, caption: 'head 1 weights' });
  assert.equal(table.querySelector('caption').textContent, 'head 1 weights');
  assert.equal(table.querySelectorAll('th[scope="col"]').length, 4);
  assert.equal(table.querySelectorAll('th[scope="row"]').length, 3);
  assert.equal(table.querySelectorAll('td')[5].textContent, '0.45');
  matchSvg('table', table);
});

test('helpers: number format and contrast', () => {
  assert.equal(formatNumber(-0.001), '0.00');
  assert.equal(formatNumber(1.255, 1), '1.3');
  assert.equal(formatNumber(999.994), '999.99');
  assert.equal(textColorFor(weightColor(0)), '#ffffff');
  assert.equal(textColorFor(weightColor(1)), '#111111');
});

test('word-long column labels are slanted so they cannot overlap; head keys fit their labels', () => {
  const words = ['the', 'quick', 'brown', 'elephant'];
  const svg = heatmap(document, { values: new Array(16).fill(0.25), rows: 4, cols: 4, rowLabels: words, colLabels: words, cell: 30 });
  const columnLabels = [...svg.querySelectorAll('text')].filter((t) => words.includes(t.textContent) && t.getAttribute('transform'));
  assert.equal(columnLabels.length, 4, 'every column label is turned');
  for (const t of columnLabels) assert.match(t.getAttribute('transform'), /^rotate\(-45 /);
  const short = heatmap(document, { values: new Array(4).fill(0.5), rows: 2, cols: 2, colLabels: ['猫', '吃'] });
  assert.equal([...short.querySelectorAll('text')].filter((t) => t.getAttribute('transform')).length, 0, 'one-character labels stay upright');

  const key = headKey(document, { heads: 12, label: (head) => `Head ${head + 1}` });
  const texts = [...key.querySelectorAll('text')].map((t) => Number(t.getAttribute('x')));
  const gap = texts[1] - texts[0];
  assert.ok(gap >= 17 + 'Head 12'.length * 0.6 * 12, `items ${gap} px apart fit "Head 12"`);
  matchSvg('heatmap-slanted-labels', svg);
});

test('a poem\'s ⟨始⟩ among characters is squeezed into its cell, not every label turned; the query\'s row is outlined', () => {
  const labels = ['⟨始⟩', ...'白日依山尽黄河入海'];
  const L = labels.length;
  const svg = heatmap(document, { values: new Array(L * L).fill(0.1), rows: L, cols: L, rowLabels: labels, colLabels: labels, showNumbers: false, cell: 14, focusRow: 3 });
  const colLabels = [...svg.querySelectorAll('g[aria-hidden] text')].slice(0, L);
  assert.ok(colLabels.every((text) => !text.getAttribute('transform')), 'no label is turned');
  assert.equal(colLabels[0].getAttribute('textLength'), '12', '⟨始⟩ fits its 14-unit cell');
  assert.ok(colLabels.slice(1).every((text) => !text.getAttribute('textLength')), 'characters keep their width');
  const focus = svg.querySelector('rect.focus-row');
  assert.equal(Number(focus.getAttribute('y')) + 1, Number(svg.querySelector('g.cell[data-row="3"][data-col="0"] rect').getAttribute('y')) - 1);
  assert.equal([...svg.querySelectorAll('g[aria-hidden] text')].filter((text) => text.getAttribute('font-weight') === '700').map((text) => text.textContent).join(), '依');
  // Words stay turned, and a heatmap without focusRow has no outline.
  const words = heatmap(document, { values: [0.5, 0.5, 0.5, 0.5], rows: 2, cols: 2, colLabels: ['elephant', 'umbrella'] });
  assert.equal([...words.querySelectorAll('text')].filter((text) => text.getAttribute('transform')).length, 2);
  assert.equal(words.querySelector('rect.focus-row'), null);
});

test('a number of any size fits its cell: e-notation from 1000 up, ∞ for infinities', () => {
  const values = [1e20, -1e20, 1e308, 1.0000000000000001e39, 12345.678, -1000, Infinity, -Infinity, NaN];
  assert.deepEqual(values.map((v) => formatNumber(v)), ['1.0e20', '-1.0e20', '1.0e308', '1.0e39', '1.2e4', '-1.0e3', '∞', '−∞', 'NaN']);
  const svg = heatmap(document, { values, rows: 3, cols: 3, scale: 'signed', cell: 42 });
  for (const text of svg.querySelectorAll('g.cell text')) assert.ok(text.textContent.length <= 7, text.textContent);
});

test('the loss curve draws the current run solid over earlier runs, dashed, each in its head count\'s colour', () => {
  const falling = (from) => Array.from({ length: 7 }, (_, i) => [i * 100, from / 10 ** (i / 2)]);
  const svg = lossCurve(document, {
    runs: [{ heads: 1, points: falling(2.8).map(([s, l]) => [s, Math.max(l, 0.6)]), label: 'h = 1(上次)' }, { heads: 2, points: falling(2.8), current: true, label: 'h = 2(本次)' }],
    maxSteps: 600, title: '验证损失', lossAxis: '损失', stepsAxis: '步数',
  });
  assert.equal(svg.querySelector('path.current').getAttribute('data-heads'), '2');
  assert.equal(svg.querySelector('path.past').getAttribute('stroke-dasharray'), '4 3');
  assert.ok(svg.querySelector('path.past').compareDocumentPosition(svg.querySelector('path.current')) & 4, 'the current run is drawn last');
  matchSvg('loss-curve', svg);
});

test('the loss curve\'s log axis reaches down to the smallest loss, so a trained run\'s last losses do not lie on the axis', () => {
  // §9's runs end between 6e-5 and 2e-4: an axis stopping at 0.001 drew their last thousand steps flat on it.
  const run = (heads, last) => ({ heads, points: [[0, 2.8], [300, 4e-3], [1500, last]] });
  const svg = lossCurve(document, { runs: [run(4, 6.6e-5), { ...run(2, 2.2e-4), current: true }], maxSteps: 1500 });
  const labels = [...svg.querySelectorAll('text[text-anchor="end"]')].map((text) => text.textContent).filter((label) => label.startsWith('1e') || label.startsWith('0') || label === '1');
  assert.deepEqual(labels, ['1e-5', '1e-4', '0.001', '0.01', '0.1', '1']);
  const ends = [...svg.querySelectorAll('path')].map((path) => Number(path.getAttribute('d').split(',').at(-1)));
  const axis = Number(svg.querySelector('line[stroke="#999"]').getAttribute('y1'));
  const tick = (label) => Number([...svg.querySelectorAll('text')].find((text) => text.textContent === label).getAttribute('y')) - 4;
  for (const end of ends) assert.ok(end < axis - 10 && end > tick('0.001'), `a run ends at y ${end}, the axis is at ${axis}`);
  assert.ok(ends[0] > ends[1], 'the smaller loss is drawn lower');
  // Losses over 0.001 keep the axis they always had.
  const short = lossCurve(document, { runs: [run(2, 2e-3)], maxSteps: 1500 });
  assert.equal([...short.querySelectorAll('text')].some((text) => text.textContent === '1e-4'), false);
});

test('a real model\'s head: single characters stay upright in small cells, the future greyed; one row as bars for a phone', () => {
  const labels = ['白', '日', '依', '山', '尽'];
  const weights = [1, 0, 0, 0, 0, 0.4, 0.6, 0, 0, 0, 0.2, 0.3, 0.5, 0, 0, 0.1, 0.1, 0.2, 0.6, 0, 0.05, 0.05, 0.1, 0.2, 0.6];
  const svg = heatmap(document, { values: weights, rows: 5, cols: 5, rowLabels: labels, colLabels: labels, showNumbers: false, cell: 14, masked: (r, c) => c > r, maskedColor: FUTURE_COLOR, title: 'head' });
  const colLabels = [...svg.querySelectorAll('g[aria-hidden] text')].slice(0, 5);
  assert.ok(colLabels.every((text) => !text.getAttribute('transform')), 'no label is turned');
  assert.equal(svg.querySelector('g.cell[data-row="0"][data-col="4"] rect').getAttribute('fill'), FUTURE_COLOR);
  assert.notEqual(svg.querySelector('g.cell[data-row="4"][data-col="4"] rect').getAttribute('fill'), FUTURE_COLOR);
  matchSvg('heatmap-characters-causal', svg);
  const bars = rowBars(document, { labels: labels.slice(0, 4), weights: weights.slice(15, 19), focus: 3, title: 'row 4' });
  assert.deepEqual([...bars.querySelectorAll('g.bar')].map((bar) => Number(bar.getAttribute('data-value'))), [0.1, 0.1, 0.2, 0.6]);
  assert.equal(bars.querySelectorAll('rect[stroke]').length, 1, 'the query\'s own bar is outlined');
  matchSvg('row-bars', bars);
});

test('textWeights: the text as it reads, a line after each ↵, tinted by the query’s weights, the future grey', () => {
  const labels = ['⟨始⟩', '床', '前', '明', '月', '光', '，', '疑', '是', '↵', '地', '上'];
  const weights = [0.1, 0.05, 0.05, 0.2, 0.3, 0.1, 0, 0.1, 0.1, 0, 0, 0];
  const svg = textWeights(document, { labels, weights, focus: 8, lineBreak: '↵', title: 'row 9' });
  const tiles = [...svg.querySelectorAll('g.query-token')];
  assert.deepEqual(tiles.map((tile) => Number(tile.getAttribute('data-index'))), labels.map((_, i) => i));
  assert.deepEqual(tiles.slice(0, 9).map((tile) => Number(tile.getAttribute('data-value'))), weights.slice(0, 9));
  const fill = (i) => tiles[i].querySelector('rect').getAttribute('fill');
  for (const i of [9, 10, 11]) assert.equal(fill(i), FUTURE_COLOR, `token ${i} comes after the query`);
  assert.equal(fill(4), weightColor(0.3));
  assert.equal(svg.querySelectorAll('rect[stroke]').length, 1, 'the query is outlined');
  const top = (i) => Number(tiles[i].querySelector('rect').getAttribute('y'));
  assert.equal(top(9), top(0), '↵ ends its line');
  assert.ok(top(10) > top(9), 'the next line starts below');
  matchSvg('text-weights', svg);
});
