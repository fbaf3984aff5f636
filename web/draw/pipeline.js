import { el, svgRoot, textWidth } from './svg.js';
import { headColor, weightColor, signedColor, symmetricDomain } from './color.js';

/** The eight steps of the animation, in order; each names the part of the figure it lights up. */
export const PIPELINE_STEPS = ['input', 'split', 'scores', 'weights', 'heads', 'concat', 'wo', 'output'];

const PER_HEAD = new Set(['split', 'scores', 'weights', 'heads']);

export const PIPELINE_LABELS = {
  input: 'Q (K, V alike)',
  split: 'Q',
  scores: 'S',
  weights: 'A',
  heads: 'head',
  concat: 'Concat',
  wo: 'Wᴼ',
  output: 'output',
  off: 'off',
  ops: { split: 'split', scores: 'q·kᵀ/√d_k', weights: 'softmax', heads: '·V', concat: 'concat', wo: '·Wᴼ', output: '=' },
};

const SUBSCRIPT = '₀₁₂₃₄₅₆₇₈₉';
const subscript = (n) => String(n).replace(/\d/g, (d) => SUBSCRIPT[d]);

/**
 * The whole multi-head pipeline drawn from live data: full Q → h column slices → per-head scores and
 * softmax weights (mini heatmaps) → head outputs → concat (columns coloured by head) → ·W^O → output,
 * with each stage's shape written under it. `step` 1..8 lights one stage (later ones fade, as in the
 * animation); 0 shows everything. `highlight` lists parts ('wo', 'heads', 'split:0', …) to outline,
 * used when a formula symbol is hovered. Per-head data are arrays with one flat matrix per head.
 */
export function pipeline(doc, {
  tokens,
  dModel,
  heads,
  q,
  scores,
  attention,
  headOutputs,
  concat,
  wo,
  output,
  enabled = Array(heads).fill(true),
  step = 0,
  highlight = [],
  orientation = 'horizontal',
  labels = PIPELINE_LABELS,
  title = '',
}) {
  const L = tokens.length;
  const dk = dModel / heads;
  const horizontal = orientation === 'horizontal';
  const cell = Math.max(3, Math.min(26, Math.floor(Math.min(160 / dModel, 160 / L))));
  const ops = { ...PIPELINE_LABELS.ops, ...labels.ops };
  const headOfColumn = (c) => Math.floor(c / dk);
  const signedRange = symmetricDomain([...q, ...concat, ...output, ...headOutputs.flatMap((h) => Array.from(h))]);
  const scoreRange = symmetricDomain(scores.flatMap((s) => Array.from(s)));
  const woRange = symmetricDomain(wo);

  // Every item: a titled mini matrix with its shape written under it.
  const item = (part, head, caption, shape, rows, cols, values, color, columnHead) => {
    const matrixWidth = cols * cell;
    const width = Math.max(matrixWidth, textWidth(caption, 12), textWidth(shape, 10)) + 8;
    const height = 16 + (columnHead ? 5 : 0) + rows * cell + 16;
    return { part, head, caption, shape, rows, cols, values, color, columnHead, width, height };
  };
  const stages = PIPELINE_STEPS.map((part) => {
    const perHead = (make) => Array.from({ length: heads }, (_, h) => make(h));
    switch (part) {
      case 'input':
        return [item(part, null, labels.input, `L×d_model = ${L}×${dModel}`, L, dModel, q, (v) => signedColor(v, signedRange), headOfColumn)];
      case 'split':
        return perHead((h) => item(part, h, `${labels.split}${subscript(h + 1)}`, `L×d_k = ${L}×${dk}`, L, dk,
          Array.from({ length: L * dk }, (_, i) => q[Math.floor(i / dk) * dModel + h * dk + (i % dk)]), (v) => signedColor(v, signedRange), () => h));
      case 'scores':
        return perHead((h) => item(part, h, `${labels.scores}${subscript(h + 1)}`, `L×L = ${L}×${L}`, L, L, scores[h], (v) => signedColor(v, scoreRange)));
      case 'weights':
        return perHead((h) => item(part, h, `${labels.weights}${subscript(h + 1)}`, `L×L = ${L}×${L}`, L, L, attention[h], (v) => weightColor(v)));
      case 'heads':
        return perHead((h) => item(part, h, `${labels.heads}${subscript(h + 1)}`, `L×d_k = ${L}×${dk}`, L, dk, headOutputs[h], (v) => signedColor(v, signedRange), () => h));
      case 'concat':
        return [item(part, null, labels.concat, `L×d_model = ${L}×${dModel}`, L, dModel, concat, (v) => signedColor(v, signedRange), headOfColumn)];
      case 'wo':
        return [item(part, null, labels.wo, `d_model×d_model = ${dModel}×${dModel}`, dModel, dModel, wo, (v) => signedColor(v, woRange))];
      default:
        return [item(part, null, labels.output, `L×d_model = ${L}×${dModel}`, L, dModel, output, (v) => signedColor(v, signedRange))];
    }
  });

  // Lay stages along the main axis (x when horizontal) and stack a stage's heads along the cross axis.
  const mainSize = (it) => (horizontal ? it.width : it.height);
  const crossSize = (it) => (horizontal ? it.height : it.width);
  const crossGap = 10;
  const mainGap = horizontal ? 58 : 34;
  const opBand = horizontal ? 18 : 0;
  const margin = horizontal ? 6 : 70;
  const stageCross = stages.map((items) => items.reduce((sum, it) => sum + crossSize(it), 0) + crossGap * (items.length - 1));
  const totalCross = Math.max(...stageCross);
  let mainOffset = 6;
  for (const [s, items] of stages.entries()) {
    const extent = Math.max(...items.map(mainSize));
    let crossOffset = (totalCross - stageCross[s]) / 2;
    for (const it of items) {
      const m = mainOffset + (extent - mainSize(it)) / 2;
      [it.x, it.y] = horizontal ? [m, opBand + crossOffset] : [margin + crossOffset, m];
      crossOffset += crossSize(it) + crossGap;
    }
    items.extent = [mainOffset, mainOffset + extent];
    mainOffset += extent + mainGap;
  }
  const mainTotal = mainOffset - mainGap + 6;
  const width = horizontal ? mainTotal : margin + totalCross + 10;
  const height = horizontal ? opBand + totalCross + 4 : mainTotal;

  const root = svgRoot(doc, { width, height, title, className: 'mha-pipeline' });
  const isHighlighted = (it) => highlight.includes(it.part) || (it.head !== null && highlight.includes(`${it.part}:${it.head}`));

  // Arrows first, so matrices sit on top of them.
  const arrows = el(doc, 'g', { class: 'arrows', stroke: '#8a8a8a', fill: '#8a8a8a', 'stroke-width': 1.2 });
  for (let s = 1; s < stages.length; s++) {
    const from = stages[s - 1];
    const to = stages[s];
    const fade = step > 0 && s + 1 > step;
    const pairs = from.length === to.length ? from.map((f, i) => [f, to[i]]) : from.length === 1 ? to.map((t) => [from[0], t]) : from.map((f) => [f, to[0]]);
    const group = el(doc, 'g', { opacity: fade ? 0.15 : 1 });
    for (const [a, b] of pairs) {
      const [x1, y1] = horizontal ? [a.x + a.width, a.y + a.height / 2] : [a.x + a.width / 2, a.y + a.height];
      const [x2, y2] = horizontal ? [b.x - 3, b.y + b.height / 2] : [b.x + b.width / 2, b.y - 3];
      group.appendChild(el(doc, 'line', { x1, y1, x2, y2 }));
      const angle = Math.atan2(y2 - y1, x2 - x1);
      const head = [[0, 0], [-7, -3.5], [-7, 3.5]].map(([dx, dy]) =>
        `${(x2 + dx * Math.cos(angle) - dy * Math.sin(angle)).toFixed(1)},${(y2 + dx * Math.sin(angle) + dy * Math.cos(angle)).toFixed(1)}`);
      group.appendChild(el(doc, 'polygon', { points: head.join(' '), stroke: 'none' }));
    }
    const op = ops[PIPELINE_STEPS[s]];
    const gapMid = (from.extent[1] + to.extent[0]) / 2;
    const [lx, ly] = horizontal ? [gapMid, 12] : [4, gapMid];
    group.appendChild(el(doc, 'text', { x: lx, y: ly, 'text-anchor': horizontal ? 'middle' : 'start', 'dominant-baseline': 'central', 'font-size': 11, fill: '#333', stroke: 'none', 'font-style': 'italic' }, [op]));
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
      const matrixLeft = (it.width - it.cols * cell) / 2;
      const captionColor = it.head !== null ? headColor(it.head) : '#222';
      group.appendChild(el(doc, 'text', { x: it.width / 2, y: 8, 'text-anchor': 'middle', 'dominant-baseline': 'central', 'font-size': 12, 'font-weight': 600, fill: captionColor }, [it.caption + (off ? ` (${labels.off})` : '')]));
      let top = 16;
      if (it.columnHead) {
        for (let c = 0; c < it.cols; c++) {
          group.appendChild(el(doc, 'rect', { x: matrixLeft + c * cell, y: top, width: cell, height: 3, fill: headColor(it.columnHead(c)) }));
        }
        top += 5;
      }
      const cells = el(doc, 'g', { class: 'cells' });
      for (let r = 0; r < it.rows; r++) {
        for (let c = 0; c < it.cols; c++) {
          const value = it.values[r * it.cols + c];
          cells.appendChild(el(doc, 'rect', { x: matrixLeft + c * cell, y: top + r * cell, width: cell, height: cell, fill: Number.isFinite(value) ? it.color(value) : '#ddd', stroke: '#fff', 'stroke-width': cell > 6 ? 0.75 : 0 }));
        }
      }
      group.appendChild(cells);
      group.appendChild(el(doc, 'rect', { x: matrixLeft, y: top, width: it.cols * cell, height: it.rows * cell, fill: 'none', stroke: it.head !== null ? headColor(it.head) : '#666', 'stroke-width': 1.2 }));
      group.appendChild(el(doc, 'text', { x: it.width / 2, y: top + it.rows * cell + 10, 'text-anchor': 'middle', 'dominant-baseline': 'central', 'font-size': 10, fill: '#444' }, [it.shape]));
      root.appendChild(group);
    }
  }
  return root;
}
