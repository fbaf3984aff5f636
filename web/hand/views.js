// §3's views: pure functions from the core's forward of the hand example (a shared/session.js snapshot
// with its words, as page/core.js's runHand makes it) and the words `t` (TEXT[lang].hand) to virtual nodes
// (web/ui/README.md, rule 5); section.js mounts them, tests/views.test.js holds their goldens. The figures
// the widget shows too (a head's map, the concat, the output) are maps.js's.
import { vh, vdoc } from '../ui/dom.js';
import { figure, sliceColumns, range } from '../ui/section.js';
import { entryText } from '../ui/drag-number.js';
import { matrixView, legend, headColor } from '../draw/index.js';
import { headMap, concatMap, outputMap } from './maps.js';
import { symmetricDomain } from '../draw/color.js';

/** Draws afresh: what the views draw with when no mount keeps its drawings (ui/section.js keptDrawings). */
const fresh = (name, inputs, draw) => draw();

/** Marks an SVG with the matrix it shows, for ui/explore.js to explain its cells. */
function explorable(name, head, svg) {
  svg.attrs['data-figure'] = name;
  if (head !== null) svg.attrs['data-head'] = String(head);
  return svg;
}

/** The heads switched off, from the forward's own switches. */
const offHeads = ({ heads, enabled }) => range(heads).filter((head) => !enabled[head]);

/**
 * One scale for every cell coloured by value (the dot products, the scaled scores, the output), written on
 * the key, so that equal colours mean equal numbers across the section.
 */
export const signedDomainOf = (result) => symmetricDomain([...result.dots, ...(result.scaled ? result.scores : []), [result.output]].flatMap((m) => Array.from(m)));

/** The two colour keys: the weights', and the one signed scale of `domain`. */
export function legendsView(t, domain) {
  return [
    legend(vdoc, { scale: 'weights', title: t.weightLegend, id: 'hand-weights' }),
    legend(vdoc, { scale: 'signed', domain, title: t.signedLegend, id: 'hand-signed' }),
  ];
}

/**
 * Head `head`'s card: its slices of q, k and v, its dot products, scaled scores (when scaling is on), softmax
 * weights and output. `drawing(name, inputs, draw)` may hand back a figure drawn before from the same inputs.
 */
export function headCard(t, result, head, { domain, drawing = fresh }) {
  const { tokens, L, dModel, dK, causal } = result;
  const rows = { rows: L, rowLabels: tokens };
  const dims = range(dK).map((c) => String(head * dK + c));
  const off = offHeads(result);
  const headOff = off.includes(head);
  const color = headColor(head);
  const slice = (name, values) => {
    const sliced = sliceColumns(values, L, dModel, head * dK, dK);
    return drawing(`${name}-${head}`, [sliced, tokens, dK, headOff], () => figure({
      caption: t.slice(name),
      // The slices copy the editors' entries: written as the editors write them (1, not 1.00).
      svg: explorable(name, head, matrixView(vdoc, { values: sliced, ...rows, cols: dK, colLabels: dims, headOf: () => head, disabledHeads: off, format: entryText, title: `${t.headTitle(head)} · ${t.slice(name)}`, cell: 40 })),
    }));
  };
  // With the mask on, the scores it will hide are faded and struck through.
  const masked = causal ? (r, c) => c > r : null;
  const square = (caption, values, scale, id, name) => drawing(id, [values, tokens, caption, scale === 'signed' ? [domain, causal] : null], () => figure({
    id,
    caption,
    svg: explorable(name, head, headMap(vdoc, result, values, { scale, domain: scale === 'signed' ? domain : null, masked: scale === 'signed' ? masked : null, title: `${t.headTitle(head)} · ${caption}`, cell: 42 })),
    table: { values, rows: L, cols: L, rowLabels: tokens, colLabels: tokens, caption: `${t.headTitle(head)} · ${caption}`, corner: t.rowHeader },
  }));
  return vh('article', { class: `head-card${headOff ? ' off' : ''}`, 'data-head': head, style: `--head:${color}` }, [
    vh('h3', {}, [vh('span', { class: 'swatch', style: `background:${color}`, 'aria-hidden': 'true' }), t.headTitle(head), vh('small', {}, [' · ', dK > 1 ? t.headDims(head * dK, head * dK + dK - 1) : t.headDim(head * dK)])]),
    vh('div', { class: 'fig-row' }, [slice('q', result.q), slice('k', result.k), slice('v', result.v)]),
    vh('div', { class: 'fig-row' }, [
      square(t.dots, result.dots[head], 'signed', `head-${head}-dots`, 'dots'),
      result.scaled ? square(t.scaled(dK), result.scores[head], 'signed', `head-${head}-scaled`, 'scores') : vh('p', { class: 'muted scaled-off' }, [t.scaledOff]),
      square(t.weights, result.attention[head], 'weights', `head-${head}-weights`, 'weights'),
      drawing(`head-${head}-output`, [result.headOutputs[head], tokens, dK], () => figure({
        id: `head-${head}-output`,
        caption: t.headOutput,
        svg: explorable('head', head, matrixView(vdoc, { values: result.headOutputs[head], ...rows, cols: dK, colLabels: dims, headOf: () => head, title: `${t.headTitle(head)} · ${t.headOutput}`, cell: 44 })),
        table: { values: result.headOutputs[head], rows: L, cols: dK, rowLabels: tokens, colLabels: dims, corner: t.rowHeader },
      })),
    ]),
  ]);
}

/** The concat: the head outputs side by side, a switched-off head's columns greyed. */
export function concatView(t, result, { drawing = fresh } = {}) {
  const { tokens, L, dModel, dK } = result;
  const off = offHeads(result);
  const dims = range(dModel).map(String);
  return drawing('concat', [result.concat, tokens, dK, off], () => figure({
    id: 'concat-figure',
    caption: `Concat · L×d_model = ${L}×${dModel}`,
    svg: explorable('concat', null, concatMap(vdoc, result, { colLabels: dims, disabledHeads: off, title: t.concatTitle })),
    table: { values: result.concat, rows: L, cols: dModel, rowLabels: tokens, colLabels: dims, corner: t.rowHeader },
  }));
}

/** The output, Concat · Wᴼ, on the signed scale of `domain`. */
export function outputView(t, result, { domain, drawing = fresh }) {
  const { tokens, L, dModel } = result;
  const dims = range(dModel).map(String);
  return drawing('output', [result.output, tokens, domain], () => figure({
    id: 'output-figure',
    caption: `${t.outputTitle} · ${L}×${dModel}`,
    svg: explorable('output', null, outputMap(vdoc, result, { colLabels: dims, domain, title: t.outputTitle })),
    table: { values: result.output, rows: L, cols: dModel, rowLabels: tokens, colLabels: dims, corner: t.rowHeader },
  }));
}

/** 停一秒: the callout's sentences from pause.js's facts. */
export const pauseView = (t, facts) => t.pause(facts).map((sentence) => vh('p', {}, [sentence]));
