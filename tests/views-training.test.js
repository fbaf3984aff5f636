// §9's views (web/training/views.js): pure functions from the trainer's numbers and the words to DOM, each
// against a golden HTML snapshot in tests/golden/views/ (UPDATE_GOLDEN=1 rewrites them), in both languages.
// The numbers are the page's run: seed 0, its example, 1500 steps, h = 4 as MHA, GQA and MQA. The mount that
// wires the views to the worker is tested in Chromium (train.browser.test.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseHTML } from 'linkedom';
import { loadAttention } from '../web/src/attention.js';
import { show } from '../web/ui/dom.js';
import { TRAIN_TEXT, WORDS } from '../web/training/strings.js';
import { TRAIN_EXAMPLE, headViews, viewName, kvChoices, kvKind, lossView, headsView, predictionsView, ablationView } from '../web/training/views.js';
import { COMPARE_TEXT, comparisonFacts, comparisonView } from '../web/training/compare.js';
import { matchGolden } from './golden.js';
import { seededRandom } from './seeded.js';

const mha = await loadAttention({ threads: 1 });
const { document } = parseHTML('<!doctype html><html><body></body></html>');
const shown = (view) => show(document.createElement('div'), view);
const MAX_STEPS = 1500;
const HEADS = 4;

/** One model of the page's run, as the worker reports it: held-out loss every 25 steps, the heads at the end. */
function train(kvHeads) {
  const trainer = mha.createTrainer({ heads: HEADS, kvHeads, seed: 0 });
  try {
    trainer.setExample(TRAIN_EXAMPLE);
    const points = [[0, trainer.evaluate().loss]];
    while (trainer.steps < MAX_STEPS) {
      trainer.step(25);
      points.push([trainer.steps, trainer.evaluate().loss]);
    }
    const attention = Array.from({ length: HEADS }, (_, i) => trainer.attention(i).slice());
    const all = trainer.evaluate();
    const off = attention.map((_, i) => trainer.evaluate({ enabled: attention.map((__, j) => j !== i) }));
    return {
      heads: HEADS, kvHeads, points, paramCount: trainer.paramCount, attention, predict: trainer.predict(), seqLen: trainer.seqLen, example: trainer.example,
      kvGroups: attention.map((_, i) => trainer.kvGroup(i)), ablation: { steps: trainer.steps, done: true, all, off },
      views: attention.map((a) => viewName(headViews(a, trainer.seqLen), HEADS)),
    };
  } finally {
    trainer.dispose();
  }
}

const runs = kvChoices(HEADS).map(train);

test('the K/V choices: MHA, GQA and MQA for h = 4, MHA and MQA for 2, the one head alone for 1', () => {
  assert.deepEqual(kvChoices(4), [4, 2, 1]);
  assert.deepEqual(kvChoices(2), [2, 1]);
  assert.deepEqual(kvChoices(1), [1]);
  assert.deepEqual(kvChoices(4).map((kv) => kvKind(4, kv)), ['mha', 'gqa', 'mqa']);
});

test('§9 the loss curve, the heads with their K/V groups, the answers and the ablation of the GQA run', () => {
  const gqa = runs[1];
  for (const lang of ['zh', 'en']) {
    const t = TRAIN_TEXT[lang];
    const loss = shown(lossView(t, { runs: runs.map((r, i) => ({ ...r, current: i === 1 })), maxSteps: MAX_STEPS }));
    matchGolden(`views/train-loss-${lang}.html`, loss);
    assert.equal(loss.querySelectorAll('path.past').length, 2);
    assert.equal(loss.querySelectorAll('path.current').length, 1);
    const heads = shown(headsView(t, WORDS[lang], gqa));
    matchGolden(`views/train-heads-gqa-${lang}.html`, heads);
    // Each head says the group it reads, and its view is the one its weights give.
    const figures = [...heads.querySelectorAll('figure.train-head')];
    assert.deepEqual(figures.map((f) => Number(f.dataset.group)), [0, 0, 1, 1]);
    assert.deepEqual(figures.map((f) => f.dataset.view), gqa.views);
    matchGolden(`views/train-predictions-${lang}.html`, shown(predictionsView(t, WORDS[lang], { predict: gqa.predict, example: TRAIN_EXAMPLE })));
    const ablation = shown(ablationView(t, gqa.ablation));
    matchGolden(`views/train-ablation-gqa-${lang}.html`, ablation);
    assert.equal(ablation.querySelectorAll('tr.head-off').length, HEADS);
  }
  // MHA's heads read no shared group, so none is named.
  assert.equal(shown(headsView(TRAIN_TEXT.zh, WORDS.zh, runs[0])).querySelectorAll('[data-group]').length, 0);
});

test('§9 MHA, GQA and MQA side by side: the table and the sentence say what the run measured', (t) => {
  const facts = comparisonFacts(runs, MAX_STEPS);
  const [mhaRun, gqaRun, mqaRun] = runs;
  const at = (r, step) => r.points.find(([s]) => s === step)[1];
  t.diagnostic(runs.map((r) => `kvHeads ${r.kvHeads}: loss at 300 ${at(r, 300).toExponential(2)}, at 1500 ${at(r, 1500).toExponential(2)}, heads ${r.views.join('/')}`).join('; '));
  assert.deepEqual(facts.rows.map((r) => r.kind), ['mha', 'gqa', 'mqa']);
  assert.equal(facts.early, 300);
  assert.equal(facts.rows[1].finalRatio, at(gqaRun, 1500) / at(mhaRun, 1500));
  assert.equal(facts.rows[2].earlyRatio, at(mqaRun, 300) / at(mhaRun, 300));
  for (const lang of ['zh', 'en']) {
    const view = shown(comparisonView(COMPARE_TEXT[lang], facts));
    matchGolden(`views/train-compare-${lang}.html`, view);
    const says = view.querySelector('.train-compare-says').textContent;
    // Every ratio it writes is the run's own, to two decimals; it never calls a loss over 0.1 learnt.
    for (const row of facts.rows.slice(1)) assert.ok(says.includes(row.finalRatio.toFixed(2)), `${lang}: ${says}`);
    for (const row of facts.rows.slice(1).filter((r) => r.earlyRatio >= 2)) assert.ok(says.includes(row.earlyRatio.toFixed(1)), `${lang}: ${says}`);
    const learnt = lang === 'zh' ? /这三种都学会了任务/ : /all three learnt/;
    if (facts.rows.every((r) => r.final < 0.01)) assert.match(says, learnt);
    else assert.doesNotMatch(says, learnt);
  }
});

test('the comparison waits for MHA and one model that shares K and V, each trained to the end', () => {
  const half = { ...runs[1], points: runs[1].points.slice(0, 10) };
  for (const partial of [[runs[0]], [runs[1], runs[2]], [runs[0], half]]) {
    const view = shown(comparisonView(COMPARE_TEXT.en, comparisonFacts(partial, MAX_STEPS)));
    assert.ok(view.querySelector('.train-compare-wait'), JSON.stringify(partial.map((r) => [r.kvHeads, r.points.length])));
  }
  // The sentence follows the numbers: a model still far off is said not to have learnt, and a slow one slow.
  const says = COMPARE_TEXT.en.compareSays({ maxSteps: 1500, early: 300, rows: [
    { kind: 'mha', early: 0.01, final: 1e-4, earlyRatio: null, finalRatio: null },
    { kind: 'mqa', early: 0.5, final: 0.3, earlyRatio: 50, finalRatio: 3000 },
  ] });
  assert.match(says, /MQA's loss is 3000.00 times MHA's/);
  assert.match(says, /At step 300 MQA's was 50.0 times MHA's/);
  assert.match(says, /MQA had not learnt the task by step 1500/);
  assert.doesNotMatch(says, /both learnt/);
});

test('the comparison sentence, over many random runs, says each model\'s pace both ways and counts the models from the numbers', () => {
  const random = seededRandom(9);
  const loss = () => 10 ** (-5 + random() * 5.3); // 1e-5 to 2
  const run = (heads, kvHeads) => ({ heads, kvHeads, paramCount: 0, views: [], points: [[0, 2.8], [300, loss()], [1500, loss()]] });
  for (let i = 0; i < 500; i++) {
    const heads = random() < 0.5 ? 2 : 4;
    const facts = comparisonFacts(kvChoices(heads).map((kv) => run(heads, kv)), MAX_STEPS);
    for (const lang of ['zh', 'en']) {
      const says = shown(comparisonView(COMPARE_TEXT[lang], facts)).querySelector('.train-compare-says').textContent;
      for (const row of facts.rows.slice(1)) {
        const name = row.kind.toUpperCase();
        const slow = lang === 'zh' ? `${name} 的损失是 MHA 的 ${row.earlyRatio.toFixed(1)} 倍` : `${name}'s was ${row.earlyRatio.toFixed(1)} times MHA's`;
        const fast = lang === 'zh' ? `${name} 的损失只有 MHA 的 ${row.earlyRatio.toFixed(2)} 倍` : `${name}'s was only ${row.earlyRatio.toFixed(2)} times MHA's`;
        assert.equal(says.includes(slow), row.earlyRatio >= 2, `${lang}, early ratio ${row.earlyRatio}: ${says}`);
        assert.equal(says.includes(fast), row.earlyRatio <= 0.5, `${lang}, early ratio ${row.earlyRatio}: ${says}`);
      }
      assert.equal(/学得慢些|more slowly/.test(says), facts.rows.some((r) => r.earlyRatio >= 2), says);
      assert.equal(/学得快些|learnt faster/.test(says), facts.rows.some((r) => r.earlyRatio !== null && r.earlyRatio <= 0.5), says);
      // "Both" or "all three", as many as the table has rows, never "几种" for two.
      if (facts.rows.every((r) => r.final < 0.01)) {
        assert.ok(says.includes(lang === 'zh' ? `这${heads === 2 ? '两' : '三'}种都学会了` : heads === 2 ? 'But both learnt' : 'But all three learnt'), says);
      }
      assert.doesNotMatch(says, /几种|every one of them/);
    }
  }
});

test('the K/V lead counts the models offered; the ablation says whether training paused or finished', () => {
  assert.match(COMPARE_TEXT.zh.kvLead(kvChoices(2).length), /这两种模型/);
  assert.match(COMPARE_TEXT.zh.kvLead(kvChoices(4).length), /这三种模型/);
  assert.match(COMPARE_TEXT.en.kvLead(kvChoices(2).length), /the two models/);
  assert.match(COMPARE_TEXT.en.kvLead(kvChoices(4).length), /the three models/);
  const { ablation } = runs[0];
  for (const [done, zh, en] of [[true, /第 1500 步训练结束时算的/, /finished at step 1500/], [false, /第 1500 步暂停时算的/, /paused at step 1500/]]) {
    assert.match(shown(ablationView(TRAIN_TEXT.zh, { ...ablation, done })).querySelector('caption').textContent, zh);
    assert.match(shown(ablationView(TRAIN_TEXT.en, { ...ablation, done })).querySelector('caption').textContent, en);
  }
  // The lead no longer says every model has the same parameters: only heads with their own K and V do.
  assert.match(TRAIN_TEXT.zh.lead, /每个头都有自己的 K、V 时，参数量完全相同/);
});
