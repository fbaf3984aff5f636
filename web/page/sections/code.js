import { h, vdoc, fill, show } from '../../ui/dom.js';
import { numberField } from '../../ui/controls.js';
import { section, figure, errorBox, range, grouped } from '../../ui/section.js';
import { runDemoShapes, runDemoClass } from '../model.js';
import { checkSeed } from '../checks.js';
import { SEED_MAX } from '../../shared/lesson.js';
import { heatmap } from '../../draw/index.js';

/**
 * numpy's way of printing with precision=2, suppress=True: each value rounded to 2 decimals with
 * trailing zeros trimmed ("1." "0.5" "0.45"), then padded so the decimal points line up.
 */
function numpyFormat(values, rows, cols) {
  const texts = Array.from(values, (v) => v.toFixed(2).replace(/0+$/, ''));
  const [ints, fracs] = [texts.map((s) => s.split('.')[0]), texts.map((s) => s.split('.')[1])];
  const left = Math.max(...ints.map((s) => s.length));
  const right = Math.max(...fracs.map((s) => s.length));
  const cell = (i) => `${ints[i].padStart(left)}.${fracs[i].padEnd(right)}`;
  const row = (r) => `[${range(cols).map((c) => cell(r * cols + c)).join(' ')}]`;
  if (rows === 1) return row(0);
  return `[${range(rows).map((r) => (r ? ' ' : '') + row(r)).join('\n')}]`;
}

const shape = (...dims) => `(${dims.join(', ')})`;

/** §5: the lesson's two numpy programs, run through the core with numpy-identical random numbers. */
export function codeSection(ctx) {
  const t = ctx.text.code;
  const sourceA = h('code');
  const sourceB = h('code');
  // Code and output scroll sideways on a phone: tabindex lets a keyboard scroll them too.
  const outA = h('pre', { class: 'console', id: 'demo-a-output', 'aria-live': 'polite', tabindex: 0 });
  const outB = h('pre', { class: 'console', id: 'demo-b-output', 'aria-live': 'polite', tabindex: 0 });
  const errorA = h('div');
  const errorB = h('div');
  const mapsB = h('div', { class: 'fig-row' });
  const node = section('code-section', ctx.text.sections.code, [
    h('p', {}, [t.lead]),
    h('h3', {}, [t.programA]),
    numberField({ label: t.seed, value: ctx.state.demo.seed1, min: 0, max: SEED_MAX, id: 'seed1', notANumber: ctx.text.notANumber, onInput: (v) => ctx.set((s) => (s.demo.seed1 = v)) }),
    h('pre', { class: 'source', tabindex: 0 }, [sourceA]),
    h('p', { class: 'muted' }, [t.output]),
    errorA,
    outA,
    h('p', { class: 'note', id: 'seed-a-note' }, [t.seedA]),
    h('h3', {}, [t.programB]),
    h('p', { id: 'seed-b-hint' }, [t.seedB]),
    numberField({ label: t.seed, value: ctx.state.demo.seed2, min: 0, max: SEED_MAX, id: 'seed2', notANumber: ctx.text.notANumber, onInput: (v) => ctx.set((s) => (s.demo.seed2 = v)) }),
    h('pre', { class: 'source', tabindex: 0 }, [sourceB]),
    h('p', { class: 'muted' }, [t.output]),
    errorB,
    outB,
    mapsB,
    h('p', { class: 'note' }, [t.randomNote]),
  ]);

  function programA(seed) {
    checkSeed(seed);
    const gpt = ctx.mha.paramCount({ dModel: 768, heads: 12 });
    const single = ctx.mha.paramCount({ dModel: 768, heads: 1 }).split;
    const r = runDemoShapes(ctx.mha, seed);
    const lines = [
      `${t.naiveLine} ${grouped(gpt.naive)} ${t.params}`,
      `${t.paperLine} ${grouped(gpt.split)} ${t.params} ← ${t.equalLine} ${gpt.split === single ? 'True' : 'False'}`,
      `${t.singleLine} ${grouped(single)}`,
      '',
      ...range(r.heads).map((i) => `${t.headLine(i + 1)} Q_i${shape(r.L, r.dK)} A_i${shape(r.L, r.L)} ${t.output1}${shape(r.L, r.dK)}`),
      `${t.concatLine} ${shape(r.L, r.dModel)} → @ W^O${shape(r.dModel, r.dModel)} → ${shape(r.L, r.dModel)}  ${t.sameShape}`,
    ];
    return lines.join('\n');
  }

  function programB(seed) {
    checkSeed(seed);
    const r = runDemoClass(ctx.mha, seed);
    const total = ctx.mha.paramCount({ dModel: r.dModel, heads: r.heads }).split;
    const lastRow = (head) => r.attention[head].slice((r.L - 1) * r.L);
    const text = [
      t.head1,
      numpyFormat(r.attention[0], r.L, r.L),
      t.head2,
      numpyFormat(r.attention[1], r.L, r.L),
      `${t.compare} ${numpyFormat(lastRow(0), 1, r.L)} vs ${numpyFormat(lastRow(1), 1, r.L)} ${t.compareTail}`,
      t.countLine(total / 4, total),
      t.outputLine(shape(r.L, r.dModel)),
    ].join('\n');
    const tokens = range(r.L).map(String);
    const maps = range(r.heads).map((head) => figure({
      caption: `A[${head}]`,
      svg: heatmap(vdoc, { values: r.attention[head], rows: r.L, cols: r.L, rowLabels: tokens, colLabels: tokens, title: `A[${head}]`, cell: 40 }),
      table: { values: r.attention[head], rows: r.L, cols: r.L, rowLabels: tokens, colLabels: tokens },
    }));
    return { text, maps };
  }

  return {
    node,
    reads: ['demo'],
    update() {
      const { seed1, seed2 } = ctx.state.demo;
      sourceA.textContent = t.sourceA.replace('SEED', String(seed1));
      sourceB.textContent = t.sourceB.replace('SEED', String(seed2));
      // On a bad seed the last good output stays, greyed, under the error.
      try {
        fill(outA, programA(seed1));
        fill(errorA, []);
      } catch (error) {
        fill(errorA, errorBox(ctx.text, error));
      }
      try {
        const { text, maps } = programB(seed2);
        fill(outB, text);
        show(mapsB, maps);
        fill(errorB, []);
      } catch (error) {
        fill(errorB, errorBox(ctx.text, error));
      }
      outA.classList.toggle('stale', errorA.childElementCount > 0);
      outB.classList.toggle('stale', errorB.childElementCount > 0);
    },
  };
}
