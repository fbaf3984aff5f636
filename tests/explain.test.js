// A cell's explanation (web/shared/explain.js) retells the core's own arithmetic: on random models and
// random cells, the sum of the products it shows, e^s/Σe^s over the row and the rest come back to the
// number the core returned; and the lesson's cells read as the lesson writes them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadAttention } from '../web/src/attention.js';
import { snapshot } from '../web/shared/session.js';
import { explainCell, explanationText, cellTitle } from '../web/shared/explain.js';
import { EXPLAIN_WORDS } from '../web/shared/figure-labels.js';
import { LESSON_EXAMPLE } from '../web/shared/lesson.js';
import { seededRandom } from './seeded.js';

const mha = await loadAttention();

/** Float32 results against float64 sums of float32 inputs. */
const close = (actual, expected, what) => assert.ok(Math.abs(actual - expected) <= 2e-5 * Math.max(1, Math.abs(expected)), `${what}: ${actual} against the core's ${expected}`);

/** The core's number at a cell, read straight from the snapshot (not through explain.js). */
function coreValue(snap, { figure, head, row, col }) {
  const { L, dModel, dK } = snap;
  if (figure === 'q' || figure === 'k' || figure === 'v') return snap[figure][row * dModel + (head === null ? col : head * dK + col)];
  if (figure === 'dots' || figure === 'scores' || figure === 'weights') return { dots: snap.dots, scores: snap.scores, weights: snap.attention }[figure][head][row * L + col];
  if (figure === 'head') return snap.headOutputs[head][row * dK + col];
  return { concat: snap.concat, wo: snap.wo, output: snap.output }[figure][row * dModel + col];
}

/** The products of a written sum ("a×b + c×(−d) − e×f") with their signs, as [x, y] pairs. */
const writtenProducts = (text) => text.split(/ (?=[+−] )/).map((term) => {
  const sign = term.startsWith('− ') ? -1 : 1;
  const [x, y] = term.replace(/^[+−] /, '').replace(/[()]/g, '').replace(/−/g, '-').split('×').map(Number);
  return [sign * x, y];
});

function randomModel(random, seed) {
  const heads = [1, 2, 4][Math.floor(random() * 3)];
  const L = 1 + Math.floor(random() * 8);
  const entry = (bound) => Math.round((random() * 2 - 1) * bound * 10) / 10;
  const matrix = (rows, bound) => Array.from({ length: rows }, () => Array.from({ length: 4 }, () => entry(bound)));
  const options = { q: matrix(L, 3), k: matrix(L, 3), v: matrix(L, 3), wo: matrix(4, 2), causal: random() < 0.5, scale: random() < 0.5, enabled: Array.from({ length: heads }, () => random() < 0.8) };
  const layer = mha.createLayer({ dModel: 4, heads, maxLen: 8 });
  layer.forward(options);
  const snap = snapshot(layer, { scaled: options.scale, causal: options.causal, wo: options.wo, enabled: options.enabled });
  layer.dispose();
  return { snap, tokens: Array.from({ length: L }, (_, i) => `w${seed}.${i}`) };
}

function randomCell(random, snap) {
  const { L, dModel, heads, dK } = snap;
  const pick = (n) => Math.floor(random() * n);
  const figure = ['q', 'k', 'v', 'dots', 'scores', 'weights', 'head', 'concat', 'wo', 'output'][pick(10)];
  const perHead = ['dots', 'scores', 'weights', 'head'].includes(figure) || (['q', 'k', 'v'].includes(figure) && random() < 0.5);
  const head = perHead ? pick(heads) : null;
  const rows = figure === 'wo' ? dModel : L;
  const cols = ['dots', 'scores', 'weights'].includes(figure) ? L : perHead ? dK : dModel;
  return { figure, head, row: pick(rows), col: pick(cols) };
}

test('on random models, every explained cell comes back to the core\'s number from the terms it shows', () => {
  const random = seededRandom(20261201); // seeded, so a failure can be replayed
  let checked = 0;
  let sums = 0;
  for (let model = 0; model < 60; model++) {
    const { snap, tokens } = randomModel(random, model);
    for (let n = 0; n < 25; n++) {
      const cell = randomCell(random, snap);
      const e = explainCell(snap, cell);
      const core = coreValue(snap, cell);
      const what = `model ${model} ${JSON.stringify(cell)}`;
      assert.equal(e.value, core, `${what}: the value shown is the core's`);
      close(e.result, core, what);
      // Redo the arithmetic from the terms alone.
      if (e.kind === 'dot' || e.kind === 'scaled') {
        for (const t of e.terms) {
          assert.equal(t.q, snap.q[cell.row * 4 + t.dim]);
          assert.equal(t.k, snap.k[cell.col * 4 + t.dim]);
        }
        const dot = e.terms.reduce((sum, t) => sum + t.q * t.k, 0);
        close(e.kind === 'scaled' ? dot / Math.sqrt(snap.dK) : dot, core, `${what} Σ q×k`);
        if (e.kind === 'scaled') close(dot, coreValue(snap, { ...cell, figure: 'dots' }), `${what} the unscaled dot`);
      } else if (e.kind === 'weight') {
        e.terms.forEach((t, key) => assert.equal(t.score, snap.scores[cell.head][cell.row * snap.L + key]));
        const kept = e.terms.filter((t) => !t.masked);
        if (e.masked) assert.equal(core, 0, `${what}: a masked weight is 0`);
        else close(Math.exp(e.terms[cell.col].score) / kept.reduce((sum, t) => sum + Math.exp(t.score), 0), core, `${what} e^s/Σe^s`);
        assert.deepEqual(e.terms.filter((t) => t.masked).map((t) => t.key), snap.causal ? e.terms.map((t) => t.key).filter((key) => key > cell.row) : []);
      } else if (e.kind === 'headOutput') {
        e.terms.forEach((t, key) => assert.equal(t.weight, snap.attention[cell.head][cell.row * snap.L + key]));
        close(e.terms.reduce((sum, t) => sum + t.weight * t.v[cell.col], 0), core, `${what} Σ weight×v`);
      } else if (e.kind === 'output') {
        close(e.terms.reduce((sum, t) => sum + t.concat * t.wo, 0), core, `${what} concat row · Wᴼ column`);
      } else if (e.kind === 'concat') {
        assert.equal(e.owner, Math.floor(cell.col / snap.dK));
        close(e.off ? 0 : snap.headOutputs[e.owner][cell.row * snap.dK + e.ownCol], core, `${what} the head's column`);
      }
      // Every source names a cell that exists.
      for (const source of e.sources) assert.ok(Number.isFinite(coreValue(snap, source)), `${what}: source ${JSON.stringify(source)}`);
      // The words render in both languages, and a score's shown products (inputs have one decimal, so
      // they are shown exactly) add up to the core's dot product.
      for (const lang of ['zh', 'en']) {
        const { title, lines, spoken } = explanationText(e, { tokens, words: EXPLAIN_WORDS[lang] });
        assert.ok(title && lines.length && spoken.includes(lines[0]), what);
        assert.equal(cellTitle(snap, cell, { tokens, words: EXPLAIN_WORDS[lang] }), title, `${what}: the cell's accessible name`);
        if (e.kind === 'dot') close(writtenProducts(lines[0].split(' = ')[1]).reduce((sum, [a, b]) => sum + a * b, 0), core, `${what} the products as written`);
        // A negative term is subtracted, as a learner writes it: never "+ −0.92×…".
        for (const line of lines) assert.doesNotMatch(line, /\+ −/, `${what}: ${line}`);
        // A sum of products adds up as written to the result as written, or says that its terms are rounded.
        const sumLine = { dot: 0, scaled: 0, headOutput: 1, output: 1 }[e.kind];
        if (sumLine !== undefined && !lines.includes(EXPLAIN_WORDS[lang].rounded)) {
          const [, terms, result] = lines[sumLine].match(/^(?:.*?(?:= |：|: ))?([^=：]*×[^=]*) = ([^=]+)$/) ?? [];
          assert.ok(terms, `${what}: ${lines[sumLine]}`);
          const number = (text) => Number(text.replace(/[()]/g, '').replace(/−/g, '-'));
          const total = writtenProducts(terms).reduce((sum, [a, b]) => sum + a * b, 0);
          assert.equal(total.toFixed(2), number(result).toFixed(2), `${what}: ${lines[sumLine]} adds up as written`);
          sums++;
        }
      }
      checked++;
    }
  }
  assert.equal(checked, 1500);
  assert.ok(sums > 500, `${sums} sums checked as written`);
});

test('the lesson\'s cells read as the lesson writes them', () => {
  const layer = mha.createLayer({ dModel: 4, heads: 2, maxLen: 8 });
  layer.forward({ q: LESSON_EXAMPLE.q, k: LESSON_EXAMPLE.k, v: LESSON_EXAMPLE.v, causal: false, scale: true });
  const snap = snapshot(layer, { scaled: true, causal: false });
  layer.dispose();
  const text = (cell, lang = 'zh') => explanationText(explainCell(snap, cell), { tokens: LESSON_EXAMPLE.tokens, words: EXPLAIN_WORDS[lang] });
  const score = text({ figure: 'scores', head: 0, row: 0, col: 2 });
  assert.equal(score.lines[0], 'q_猫 · k_鱼 = 1×1 + 1×1 = 2');
  assert.equal(score.lines[1], '2 ÷ √2 = 1.41');
  assert.equal(text({ figure: 'weights', head: 0, row: 0, col: 2 }).lines.join(' '), 'e^1.41 ÷ (e^0.71 + e^0.71 + e^1.41) = 4.11 ÷ 8.17 = 0.50');
  // The lesson's 0.25 and 0.50 are rounded: written so, they would add up to 1.25, not the 1.26 the core gives.
  assert.deepEqual(text({ figure: 'head', head: 0, row: 0, col: 0 }).lines, [
    'head₁[猫] = 0.2483×[1, 0] + 0.2483×[0, 1] + 0.5035×[2, 0] = [1.26, 0.25]',
    '第 0 维：0.2483×1 + 0.2483×0 + 0.5035×2 = 1.26',
  ]);
  assert.equal(text({ figure: 'concat', head: null, row: 0, col: 2 }, 'en').lines[0], 'copied from head 2\'s output, same row, dimension 2: 0.33');
  const output = explainCell(snap, { figure: 'output', head: null, row: 0, col: 1 });
  assert.deepEqual(output.sources.filter((s) => s.figure === 'wo').map((s) => [s.row, s.col]), [[0, 1], [1, 1], [2, 1], [3, 1]]);
  assert.deepEqual(output.sources.filter((s) => s.figure === 'concat').map((s) => [s.row, s.col]), [[0, 0], [0, 1], [0, 2], [0, 3]]);
  // With the mask on, the entries it hides are named as left out.
  const masked = mha.createLayer({ dModel: 4, heads: 2, maxLen: 8 });
  masked.forward({ q: LESSON_EXAMPLE.q, k: LESSON_EXAMPLE.k, v: LESSON_EXAMPLE.v, causal: true, scale: true });
  const maskedSnap = snapshot(masked, { scaled: true, causal: true });
  masked.dispose();
  const weight = explanationText(explainCell(maskedSnap, { figure: 'weights', head: 0, row: 1, col: 0 }), { tokens: LESSON_EXAMPLE.tokens, words: EXPLAIN_WORDS.en });
  assert.equal(weight.lines.at(-1), 'masked, left out: 鱼');
  assert.deepEqual(explainCell(maskedSnap, { figure: 'weights', head: 0, row: 1, col: 0 }).sources.map((s) => s.col), [0, 1]);
});
