// §13's views: pure functions from facts.js's numbers and the words `t` (TEXT[lang].gqa) to virtual nodes
// (web/ui/README.md, rule 5), golden-tested in tests/views.test.js.
import { vh, vdoc } from '../ui/dom.js';
import { figure, range, grouped } from '../ui/section.js';
import { heatmap, matrixView, headColor } from '../draw/index.js';
import { symmetricDomain } from '../draw/color.js';

/** The worked example: the shared K and V, each head's weights before and after, its scores and output, what changed. */
export function exampleView(t, f) {
  const { tokens, L, dK, heads, mha, gqa } = f;
  const rows = { rows: L, rowLabels: tokens };
  const shared = (values, caption, id) => figure({
    id,
    caption,
    svg: matrixView(vdoc, { values: values.flat(), ...rows, cols: dK, colLabels: range(dK).map(String), headOf: () => null, title: caption, cell: 40 }),
    table: { values: values.flat(), rows: L, cols: dK, rowLabels: tokens, colLabels: range(dK).map(String), corner: t.rowHeader },
  });
  const signedDomain = symmetricDomain(gqa.scores.flatMap((s) => Array.from(s)));
  const masked = f.causal ? (r, c) => c > r : null;
  const square = (head, caption, values, scale, id) => figure({
    id,
    caption,
    svg: heatmap(vdoc, { values, ...rows, cols: L, colLabels: tokens, scale, domain: scale === 'signed' ? signedDomain : null, masked: scale === 'signed' ? masked : null, title: `${t.headTitle(head)} · ${caption}`, cell: 40 }),
    table: { values, rows: L, cols: L, rowLabels: tokens, colLabels: tokens, caption: `${t.headTitle(head)} · ${caption}`, corner: t.rowHeader },
  });
  const cards = range(heads).map((head) => vh('article', { class: 'gqa-card', 'data-head': head, style: `--head:${headColor(head)}` }, [
    vh('h4', {}, [vh('span', { class: 'swatch', style: `background:${headColor(head)}`, 'aria-hidden': 'true' }), t.headTitle(head), vh('small', {}, [' · ', t.readsGroup(gqa.groups[head])])]),
    vh('div', { class: 'fig-row' }, [
      square(head, t.weightsBefore, mha.attention[head], 'weights', `gqa-head-${head}-before`),
      square(head, t.scores, gqa.scores[head], 'signed', `gqa-head-${head}-scores`),
      square(head, t.weights, gqa.attention[head], 'weights', `gqa-head-${head}-weights`),
      figure({
        id: `gqa-head-${head}-output`,
        caption: t.output,
        svg: matrixView(vdoc, { values: gqa.headOutputs[head], ...rows, cols: dK, colLabels: range(dK).map((c) => String(head * dK + c)), headOf: () => head, title: `${t.headTitle(head)} · ${t.output}`, cell: 40 }),
        table: { values: gqa.headOutputs[head], rows: L, cols: dK, rowLabels: tokens, colLabels: range(dK).map((c) => String(head * dK + c)), corner: t.rowHeader },
      }),
    ]),
  ]));
  return [
    vh('div', { class: 'fig-row', id: 'gqa-shared' }, [shared(f.kShared, t.kShared, 'gqa-k-shared'), shared(f.vShared, t.vShared, 'gqa-v-shared')]),
    vh('div', { class: 'heads', id: 'gqa-heads' }, cards),
    vh('div', { class: 'pause-callout', id: 'gqa-change', role: 'note', 'aria-labelledby': 'gqa-change-title' }, [
      vh('p', { class: 'pause-title', id: 'gqa-change-title' }, [t.changeTitle]),
      ...t.change(f).map((sentence) => vh('p', {}, [sentence])),
    ]),
  ];
}

/** The bill: one table per model, a row per kind (MHA, GQA, MQA), every figure from facts.js's billFacts. */
export function billView(t, models) {
  const c = t.columns;
  // A table wider than a phone scrolls in its box, which the keyboard can reach (tabindex); its title stays
  // outside the box, so scrolling never carries it off nor cuts it mid-line.
  return models.map((model) => vh('div', { class: 'gqa-bill-model', 'data-model': model.key }, [
    vh('p', { class: 'gqa-bill-title', id: `gqa-bill-${model.key}-title` }, [t.models[model.key]]),
    vh('div', { class: 'gqa-bill', tabindex: '0', role: 'region', 'aria-labelledby': `gqa-bill-${model.key}-title` }, [vh('table', { class: 'gqa-bill-table', id: `gqa-bill-${model.key}`, 'aria-labelledby': `gqa-bill-${model.key}-title` }, [
      vh('thead', {}, [vh('tr', {}, [c.kind, c.kvHeads, c.wq, c.wkv, c.wo, c.total, c.perToken, c.forContext(model.context)].map((label) => vh('th', { scope: 'col' }, [label])))]),
      vh('tbody', {}, model.rows.filter((row) => row.kvHeads !== null).map((row) => vh('tr', { 'data-kind': row.kind }, [
        vh('th', { scope: 'row' }, [t.kind(row.kind)]),
        vh('td', {}, [String(row.kvHeads)]),
        vh('td', { 'data-value': row.wq }, [grouped(row.wq)]),
        vh('td', { 'data-value': row.wk + row.wv }, [grouped(row.wk + row.wv)]),
        vh('td', { 'data-value': row.wo }, [grouped(row.wo)]),
        vh('td', { 'data-value': row.total }, [grouped(row.total)]),
        vh('td', { 'data-value': row.perToken, 'data-col': 'per-token' }, [t.approx(row.perToken)]),
        vh('td', { 'data-value': row.forContext, 'data-col': 'context' }, [t.approx(row.forContext)]),
      ]))),
    ])]),
    model.rows.some((row) => row.kvHeads === null) ? vh('p', { class: 'muted' }, [t.noGqa]) : null,
  ]));
}

/** Which query heads read which K/V head: a row of query heads over a row of K/V heads, coloured by group. */
export function groupsView(t, { heads, kvHeads, groups }) {
  return [
    vh('p', { id: 'gqa-groups-kind' }, [t.groupKind(heads, kvHeads)]),
    vh('div', { class: 'gqa-groups', id: 'gqa-groups' }, groups.map((members, group) => vh('div', { class: 'gqa-group', 'data-group': group, style: `--head:${headColor(group)}` }, [
      vh('div', { class: 'gqa-queries' }, members.map((head) => vh('span', { class: 'gqa-query', 'data-head': head }, [t.queryHead(head)]))),
      vh('div', { class: 'gqa-kv', 'data-group': group }, [t.kvHead(group)]),
    ]))),
    vh('ul', { class: 'sr-only' }, groups.map((members, group) => vh('li', {}, [t.groupLine(group, members)]))),
  ];
}

/** The poetry model made grouped-query: one row an h_kv, its loss, its cost and the heads keeping their view; then what it shows. */
export function poemGroupsView(t, f) {
  return [
    vh('p', { class: 'gqa-poems-caption', id: 'gqa-poems-caption' }, [t.poemsCaption(f.heads)]),
    // Numbers right-aligned under their headings; on a phone the table scrolls in its box, under its caption.
    vh('div', { class: 'gqa-bill', tabindex: '0', role: 'region', 'aria-labelledby': 'gqa-poems-caption' }, [vh('table', { class: 'gqa-bill-table gqa-poems', id: 'gqa-poems-table', 'aria-labelledby': 'gqa-poems-caption' }, [
      vh('thead', {}, [vh('tr', {}, [t.poemsKv, t.poemsGroup, t.poemsLoss, t.poemsCost, t.poemsRoles].map((h) => vh('th', { scope: 'col' }, [h])))]),
      vh('tbody', {}, f.rows.map((r) => vh('tr', { 'data-kv-heads': r.kvHeads }, [
        vh('th', { scope: 'row' }, [String(r.kvHeads)]),
        vh('td', {}, [String(r.size)]),
        vh('td', {}, [r.loss.toFixed(3)]),
        vh('td', {}, [r.cost ? `+${r.cost.toFixed(3)}` : '0']),
        vh('td', {}, [t.poemsRolesOf(r.kept, f.named)]),
      ]))),
    ])]),
    vh('p', { id: 'gqa-poems-says' }, [t.poemsSays(f)]),
  ];
}
