// §9's views: pure functions from the trainer's numbers and the words `t` (TRAIN_TEXT[lang]) to virtual nodes
// (web/ui/README.md, rule 5), golden-tested in tests/views-training.test.js; panel.js wires them to the worker.
import { heatmap, headColor, tableFor, lossCurve, HEAD_COLORS } from '../draw/index.js';
import { vh, vdoc } from '../ui/dom.js';
import { fmt, pct } from './strings.js';

export const TRAIN_EXAMPLE = [6, 4, 0, 1, 2, 11, 8, 9]; // 我 看 猫 吃 鱼 鸟 山 水

/** Mean weight of rows r ≥ 2 on the previous position and on position 0: the two views. */
export function headViews(attention, L) {
  let previous = 0;
  let first = 0;
  for (let r = 2; r < L; r++) {
    previous += attention[r * L + r - 1];
    first += attention[r * L];
  }
  return { previous: previous / (L - 2), first: first / (L - 2) };
}

/** A head's view by name; a lone head that takes neither view is blending both, since it has no partner to divide the work with. */
export function viewName(view, heads) {
  if (view.previous >= 0.6 && view.previous > view.first) return 'previous';
  if (view.first >= 0.6) return 'first';
  return heads === 1 ? 'blend' : 'mixed';
}

/** The K/V head counts offered for h query heads: every head its own (MHA), half as many (GQA), one (MQA). */
export const kvChoices = (heads) => [...new Set([heads, heads / 2, 1])].filter(Number.isInteger);

/** 'mha', 'gqa' or 'mqa': what sharing K and V among `heads` query heads `kvHeads` ways is called. */
export const kvKind = (heads, kvHeads) => (kvHeads === heads ? 'mha' : kvHeads === 1 ? 'mqa' : 'gqa');

/** A run's line: the heads' colour for MHA, two colours no h uses for GQA and MQA. */
const KIND_COLORS = { gqa: HEAD_COLORS[3], mqa: HEAD_COLORS[4] };

/**
 * The loss curve: `runs` are { heads, kvHeads, points, current }, the current one solid. Each is labelled
 * with its h and, once any run shares K and V, its kind.
 */
export function lossView(t, { runs, maxSteps }) {
  const shared = runs.some((run) => run.kvHeads !== run.heads); // else every run is MHA, and none is called so
  return lossCurve(vdoc, {
    runs: runs.map((run) => {
      const kind = kvKind(run.heads, run.kvHeads);
      return { ...run, color: KIND_COLORS[kind], label: t.runLabel(run.heads, shared && run.heads > 1 ? t.kinds[kind] : null, run.current) };
    }),
    maxSteps, title: t.lossTitle, lossAxis: t.lossAxis, stepsAxis: t.stepsAxis,
  });
}

/**
 * One figure a head: its weights on the example, what it looks at, and the K/V group it reads where groups
 * are shared. `hidden` draws them unseen at their size, until the trainer's first numbers.
 */
export function headsView(t, words, { attention, seqLen: L, example, kvGroups = null, hidden = false }) {
  const labels = example.map((id) => words[id]);
  const heads = attention.length;
  const shared = kvGroups && new Set(kvGroups).size < heads;
  return attention.map((a, i) => {
    const view = headViews(a, L);
    const name = viewName(view, heads);
    const svg = heatmap(vdoc, { values: a, rows: L, cols: L, rowLabels: labels, colLabels: labels, cell: heads === 4 ? 34 : 36, digits: 2, showNumbers: heads < 4, title: t.heatmapTitle(i, labels), rowHeader: t.query, colHeader: t.key, accent: headColor(i) });
    const marks = hidden ? { class: 'train-placeholder', 'aria-hidden': 'true' }
      : { class: 'train-head', 'data-head': i, 'data-view': name, 'data-previous': view.previous.toFixed(4), 'data-first': view.first.toFixed(4), 'data-group': shared ? kvGroups[i] : null };
    return vh('figure', marks, [
      vh('figcaption', {}, [vh('span', { class: 'swatch', style: { background: headColor(i) }, 'aria-hidden': 'true' }), vh('strong', {}, [t.head(i)]), shared ? ` · ${t.group(kvGroups[i])}` : '', ` · ${t.views[name]}`]),
      svg,
      vh('div', { class: 'head-view muted' }, [t.viewShare(view)]),
      tableFor(vdoc, { values: a, rows: L, cols: L, rowLabels: labels, colLabels: labels, caption: t.heatmapTitle(i, labels) }),
    ]);
  });
}

/** The model's two answers at each position of the example, each marked right or wrong. */
export function predictionsView(t, words, { predict, example, hidden = false }) {
  const mark = (got, want) => vh('td', { class: got === want ? 'right' : 'wrong' }, [`${words[got]} ${got === want ? '✓' : '✗'}`]);
  const rows = example.map((id, i) => vh('tr', {}, [
    vh('td', {}, [String(i)]),
    vh('td', {}, [words[id]]),
    mark(predict.previous[i], example[Math.max(i - 1, 0)]),
    mark(predict.first[i], example[0]),
  ]));
  return vh('table', hidden ? { class: 'train-table train-placeholder', 'aria-hidden': 'true' } : { class: 'train-table' }, [
    vh('caption', { class: 'muted' }, [t.predictions]),
    vh('thead', {}, [vh('tr', {}, [t.position, t.token, t.predPrev, t.predFirst].map((h) => vh('th', { scope: 'col' }, [h])))]),
    vh('tbody', {}, rows),
  ]);
}

/** The held-out loss and accuracies with every head on and with each switched off, as measured at a pause or the end. */
export function ablationView(t, a) {
  const maxLoss = Math.max(a.all.loss, ...a.off.map((e) => e.loss), 1e-6);
  const row = (label, e, cls) => vh('tr', { class: cls }, [
    vh('th', { scope: 'row' }, [label]),
    vh('td', {}, [fmt(e.loss, 3), vh('span', { class: 'bar', style: { width: `${Math.max(1, Math.round((e.loss / maxLoss) * 120))}px` }, 'aria-hidden': 'true' })]),
    vh('td', {}, [pct(e.accuracy)]),
    vh('td', {}, [pct(e.previous.accuracy)]),
    vh('td', {}, [pct(e.first.accuracy)]),
  ]);
  return vh('table', { class: 'train-table', 'data-steps': a.steps }, [
    // Measured when training paused or finished: it says which and at which step, as training may have gone on since.
    vh('caption', { class: 'muted' }, [t.ablationAt(a.steps, a.done)]),
    vh('thead', {}, [vh('tr', {}, ['', t.loss, t.accuracy, t.prevAcc, t.firstAcc].map((h) => vh('th', { scope: 'col' }, [h])))]),
    vh('tbody', {}, [row(t.allOn, a.all, 'all-on'), ...a.off.map((e, i) => row(t.without(i), e, `head-off head-${i}`))]),
  ]);
}
