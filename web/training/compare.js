// §9's comparison of MHA, GQA and MQA trained on one seed: its numbers, its view and its words (Chinese first,
// English second). The page hands this module to mountTraining (training/section.js); the widget leaves it out,
// which keeps its bundle under its budget.
import { vh } from '../ui/dom.js';
import { KINDS, fmt } from './strings.js';
import { kvChoices, kvKind } from './views.js';

/** The comparison's own rules, added to the section's stylesheet: on a phone its table scrolls rather than stack its headings. */
export const STYLE = `
.mha-train .train-compare-scroll{overflow-x:auto;max-width:100%}
.mha-train table.train-compare :is(th,td):not(:last-child){white-space:nowrap}
.mha-train table.train-compare :is(th,td):last-child{min-width:7em;text-align:left}
`;

/** A loss as the comparison writes it: small ones in powers of ten, where fixed decimals would show nothing. */
const lossText = (x) => (Number.isFinite(x) ? (x < 0.01 ? x.toExponential(1) : x.toFixed(3)) : '—');
const kindOf = (row) => KINDS[row.kind];
/** How many models, in words: the section offers two (h = 2) or three (h = 4). */
const ZH_COUNT = { 2: '两', 3: '三' };
const EN_COUNT = { 2: 'two', 3: 'three' };
/** The models that learnt markedly slower (at least twice MHA's loss a fifth of the way) or faster (at most half). */
const pace = (others) => ({ slow: others.filter((o) => o.earlyRatio >= 2), fast: others.filter((o) => o.earlyRatio <= 0.5) });

export const COMPARE_TEXT = {
  zh: {
    kvHeads: 'K/V 头数',
    kvChoice: (kind, kv) => `${KINDS[kind]}（h_kv = ${kv}）`,
    kvLead: (n) => `还可以让几个查询头共用一组 K 和 V（第十三节的 GQA；只剩一组就是 MQA）：W_K、W_V 变窄，参数少一些。同一个种子下这${ZH_COUNT[n]}种模型拿到的数据、初始的数字都一样，只差在共不共用 K/V：依次训练完，下面会把它们摆在一起。`,
    compareTitle: '共用 K/V 划算吗：同一种子、同一批数据',
    compareWait: (h) => `h = ${h} 时，把 MHA 和至少一种共用 K/V 的模型各训练到最后一步，这里会把它们并排比较。`,
    compareCaption: (h, steps) => `h = ${h}，各训练 ${steps} 步，种子相同；括号里是 MHA 同一步损失的几倍`,
    kvHeadsShort: '模型',
    paramsShort: '参数量',
    lossAtStep: (s) => `第 ${s} 步的损失`,
    headsLearnt: '头学到的眼光',
    viewCount: (name, n) => `${n} 个${{ previous: '看前一个词', first: '看句首', mixed: '还没分工', blend: '两边各看一点' }[name]}`,
    listSep: '，',
    withRatio: (loss, ratio) => `${loss}（×${ratio}）`,
    compareSays: (f) => {
      const others = f.rows.slice(1);
      const said = [`同一种子、同一批数据，训练 ${f.maxSteps} 步后：${others.map((o) => `${kindOf(o)} 的损失是 MHA 的 ${fmt(o.finalRatio, 2)} 倍`).join('，')}。`];
      const { slow, fast } = pace(others);
      if (slow.length) said.push(`第 ${f.early} 步时，${slow.map((o) => `${kindOf(o)} 的损失是 MHA 的 ${fmt(o.earlyRatio, 1)} 倍`).join('，')}：共用 K/V，这次学得慢些。`);
      if (fast.length) said.push(`第 ${f.early} 步时，${fast.map((o) => `${kindOf(o)} 的损失只有 MHA 的 ${fmt(o.earlyRatio, 2)} 倍`).join('，')}：共用 K/V，这次反而学得快些。`);
      const failed = f.rows.filter((r) => r.final >= 0.1);
      if (failed.length) said.push(`${failed.map(kindOf).join('、')} 到第 ${f.maxSteps} 步还没学会（损失还在 0.1 以上）。`);
      else if (f.rows.every((r) => r.final < 0.01)) said.push(`不过这${ZH_COUNT[f.rows.length]}种都学会了任务（损失都不到 0.01），这些倍数是很小的数之间的比；这只是一个种子，换个种子，高低可能就反过来。`);
      return said.join('');
    },
  },
  en: {
    kvHeads: 'K/V heads',
    kvChoice: (kind, kv) => `${KINDS[kind]} (h_kv = ${kv})`,
    kvLead: (n) => `Query heads can also share one K and one V a group (§13’s GQA; with a single group, MQA): W_K and W_V grow narrower, so there are fewer parameters. With one seed the ${EN_COUNT[n]} models get the same data and the same starting numbers, and differ only in sharing K and V: train them one after another and they are set side by side below.`,
    compareTitle: 'Is sharing K and V worth it? One seed, the same data',
    compareWait: (h) => `With h = ${h}, train MHA and at least one model that shares K and V to the last step, and they are compared here side by side.`,
    compareCaption: (h, steps) => `h = ${h}, ${steps} steps each, the same seed; in brackets, how many times MHA's loss at that step`,
    kvHeadsShort: 'model',
    paramsShort: 'parameters',
    lossAtStep: (s) => `loss at step ${s}`,
    headsLearnt: 'what the heads learnt',
    viewCount: (name, n) => `${n} ${{ previous: 'one step back', first: 'at the start', mixed: 'no view yet', blend: 'a little of both' }[name]}`,
    listSep: ', ',
    withRatio: (loss, ratio) => `${loss} (×${ratio})`,
    compareSays: (f) => {
      const others = f.rows.slice(1);
      const said = [`With one seed and the same data, after ${f.maxSteps} steps ${others.map((o) => `${kindOf(o)}'s loss is ${fmt(o.finalRatio, 2)} times MHA's`).join(' and ')}.`];
      const { slow, fast } = pace(others);
      const it = (rows) => (rows.length > 1 ? 'they' : 'it');
      if (slow.length) said.push(` At step ${f.early} ${slow.map((o) => `${kindOf(o)}'s was ${fmt(o.earlyRatio, 1)} times MHA's`).join(' and ')}: sharing K and V, ${it(slow)} learnt more slowly this time.`);
      if (fast.length) said.push(` At step ${f.early} ${fast.map((o) => `${kindOf(o)}'s was only ${fmt(o.earlyRatio, 2)} times MHA's`).join(' and ')}: sharing K and V, ${it(fast)} learnt faster this time.`);
      const failed = f.rows.filter((r) => r.final >= 0.1);
      if (failed.length) said.push(` ${failed.map(kindOf).join(' and ')} had not learnt the task by step ${f.maxSteps} (a loss still over 0.1).`);
      else if (f.rows.every((r) => r.final < 0.01)) said.push(` But ${f.rows.length === 2 ? 'both' : `all ${EN_COUNT[f.rows.length]}`} learnt the task (each loss under 0.01), so these are ratios of very small numbers; this is one seed, and another may turn them round.`);
      return said.join('');
    },
  },
};

/** The last held-out loss a run measured at or before `step`. */
const lossAt = (points, step) => points.reduce((found, [s, loss]) => (s <= step ? loss : found), NaN);

/**
 * The finished runs of one h side by side: `runs` are { heads, kvHeads, points, paramCount, views } (views: each
 * head's viewName at the end), those that reached `maxSteps` kept, MHA first. `early` is the step where speed
 * shows (a fifth of the way). Each row has its loss early and at the end, and its ratio to MHA's of the same step.
 */
export function comparisonFacts(runs, maxSteps) {
  const early = maxSteps / 5;
  const rows = runs.filter((r) => r.points.length && r.points[r.points.length - 1][0] >= maxSteps)
    .sort((a, b) => b.kvHeads - a.kvHeads)
    .map((r) => ({ kind: kvKind(r.heads, r.kvHeads), kvHeads: r.kvHeads, paramCount: r.paramCount, early: lossAt(r.points, early), final: lossAt(r.points, maxSteps), views: r.views }));
  const mha = rows.find((r) => r.kind === 'mha');
  for (const r of rows) {
    r.earlyRatio = mha && r !== mha ? r.early / mha.early : null;
    r.finalRatio = mha && r !== mha ? r.final / mha.final : null;
  }
  return { heads: runs[0]?.heads ?? null, maxSteps, early, rows };
}

/** Counts of each view among a run's heads, in a fixed order. */
const viewCounts = (views) => ['previous', 'first', 'mixed', 'blend'].map((name) => [name, views.filter((v) => v === name).length]).filter(([, n]) => n);

/** The comparison: a table of the finished runs, and what it shows in a sentence made from its numbers. */
export function comparisonView(t, f) {
  if (f.rows.length < 2 || f.rows[0].kind !== 'mha') return vh('p', { class: 'muted train-compare-wait' }, [t.compareWait(f.heads)]);
  const loss = (x, ratio) => (ratio === null ? lossText(x) : t.withRatio(lossText(x), fmt(ratio, 2)));
  // On a phone the table may be wider than the screen: it scrolls in its box (which a keyboard can reach),
  // under its caption.
  return vh('div', { class: 'train-compare-result' }, [
    vh('p', { class: 'muted train-compare-caption', id: 'train-compare-caption' }, [t.compareCaption(f.heads, f.maxSteps)]),
    vh('div', { class: 'train-compare-scroll', tabindex: '0', role: 'region', 'aria-labelledby': 'train-compare-caption' }, [vh('table', { class: 'train-table train-compare', 'aria-labelledby': 'train-compare-caption' }, [
      vh('thead', {}, [vh('tr', {}, [t.kvHeadsShort, t.paramsShort, t.lossAtStep(f.early), t.lossAtStep(f.maxSteps), t.headsLearnt].map((h) => vh('th', { scope: 'col' }, [h])))]),
      vh('tbody', {}, f.rows.map((r) => vh('tr', { 'data-kind': r.kind, 'data-kv-heads': r.kvHeads }, [
        vh('th', { scope: 'row' }, [`${KINDS[r.kind]} · h_kv = ${r.kvHeads}`]),
        vh('td', {}, [String(r.paramCount)]),
        vh('td', {}, [loss(r.early, r.earlyRatio)]),
        vh('td', {}, [loss(r.final, r.finalRatio)]),
        vh('td', {}, [viewCounts(r.views).map(([name, n]) => t.viewCount(name, n)).join(t.listSep)]),
      ]))),
    ])]),
    vh('p', { class: 'train-compare-says' }, [t.compareSays(f)]),
  ]);
}

/** The lead over the K/V choice for `heads` query heads, in the comparison's words `t`; '' where h has no choice (h = 1). */
export function kvLeadText(t, heads) {
  const count = kvChoices(heads).length;
  return count < 2 ? '' : t.kvLead(count);
}

/** The K/V choice for `heads` (MHA, GQA at h = 4, MQA): a radio each, named `name`, `kvHeads` picked; `onPick(kv)`. */
export const kvChoiceView = (t, { heads, kvHeads, name, onPick }) => [
  vh('legend', {}, [t.kvHeads]),
  ...kvChoices(heads).map((kv) => vh('label', { class: 'h-choice' }, [
    vh('input', { type: 'radio', name, value: kv, checked: kv === kvHeads, onchange: () => onPick(kv) }),
    t.kvChoice(kvKind(heads, kv), kv),
  ])),
];
