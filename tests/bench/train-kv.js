// Training §9's task with shared K/V heads: MHA, GQA and MQA of one seed side by side, as the training
// README's table gives them. For h = 2 and 4 and kvHeads = h, h/2 and 1, over seeds 0 .. N-1 (default 10): the page's
// example and 1500 steps, held-out loss at steps 100 to 1500, the step held-out accuracy first reaches 95 %
// (evaluated every 25 steps), and each head's views on the example (mean weight one step back / on the first token,
// web/training/views.js's headViews) with the held-out loss when it alone is switched off. Prints figures; no test times it.
//
//   node tests/bench/train-kv.js [seeds]
import { loadAttention } from '../../web/src/attention.js';
import { TRAIN_EXAMPLE, headViews, viewName } from '../../web/training/views.js';

const seeds = Number(process.argv[2] ?? 10);
const STEPS = 1500;
const CHECKPOINTS = [100, 200, 300, 500, 1000, 1500];
const mha = await loadAttention({ threads: 1 });
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const e = (x) => x.toExponential(2);

for (const heads of [2, 4]) {
  const kinds = [...new Set([heads, heads / 2, 1])];
  const runs = new Map(kinds.map((kvHeads) => [kvHeads, []]));
  for (let seed = 0; seed < seeds; seed++) {
    for (const kvHeads of kinds) {
      const trainer = mha.createTrainer({ heads, kvHeads, seed });
      trainer.setExample(TRAIN_EXAMPLE);
      const curve = {};
      let reached = null;
      while (trainer.steps < STEPS) {
        trainer.step(25);
        const { loss, accuracy } = trainer.evaluate();
        if (reached === null && accuracy >= 0.95) reached = trainer.steps;
        if (CHECKPOINTS.includes(trainer.steps)) curve[trainer.steps] = loss;
      }
      const views = Array.from({ length: heads }, (_, i) => headViews(trainer.attention(i), trainer.seqLen));
      const off = views.map((_, i) => trainer.evaluate({ enabled: views.map((__, j) => j !== i) }).loss);
      runs.get(kvHeads).push({ seed, curve, reached, accuracy: trainer.evaluate().accuracy, views, off, groups: views.map((_, i) => trainer.kvGroup(i)), params: trainer.paramCount });
      trainer.dispose();
    }
  }
  for (const [kvHeads, rows] of runs) {
    const reached = rows.filter((r) => r.reached !== null).map((r) => r.reached);
    console.log(`h ${heads}, kvHeads ${kvHeads} (${rows[0].params} parameters): 95 % reached on ${reached.length} of ${seeds} seeds, median step ${median(reached)}; accuracy at ${STEPS}: min ${Math.min(...rows.map((r) => r.accuracy))}`);
    for (const at of CHECKPOINTS) {
      const losses = rows.map((r) => r.curve[at]);
      console.log(`  held-out loss at ${at}: median ${e(median(losses))} (${e(Math.min(...losses))} – ${e(Math.max(...losses))})`);
    }
    if (kvHeads !== heads) {
      const above = rows.filter((r, i) => r.curve[STEPS] > runs.get(heads)[i].curve[STEPS]).length;
      console.log(`  loss at ${STEPS} above MHA's of the same seed on ${above} of ${seeds} seeds`);
    }
    for (const r of rows) {
      console.log(`  seed ${r.seed}: ` + r.views.map((v, i) => `head ${i} (group ${r.groups[i]}) ${viewName(v, heads)} ${v.previous.toFixed(2)}/${v.first.toFixed(2)}, off ${r.off[i].toFixed(2)}`).join('; '));
    }
  }
}
