import { h, vdoc, fill, show } from '../../ui/dom.js';
import { numberField } from '../../ui/controls.js';
import { section, figure, errorBox, range } from '../../ui/section.js';
import { programOne, programTwo, programOneOutput, programTwoOutput } from '../lesson-programs.js';
import { checkSeed } from '../checks.js';
import { SEED_MAX } from '../../shared/lesson.js';
import { heatmap } from '../../draw/index.js';
import { questionsBlock } from './questions.js';

/**
 * Copies a program's text: the clipboard when the browser grants it, otherwise the text is selected so
 * that the learner's own copy (Ctrl+C, or the phone's menu) takes it.
 */
async function copyText(code, button, t) {
  try {
    await navigator.clipboard.writeText(code.textContent);
    button.textContent = t.copied;
  } catch {
    const range = document.createRange();
    range.selectNodeContents(code);
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    button.textContent = t.selected;
  }
  setTimeout(() => (button.textContent = t.copy), 1500);
}

/** A program's box: its text in <pre><code>, with a copy button above it. */
function programBox(id, t) {
  const code = h('code', { id: `${id}-source` });
  const button = h('button', { type: 'button', class: 'copy-program', id: `${id}-copy`, 'aria-describedby': `${id}-title`, onclick: () => copyText(code, button, t) }, [t.copy]);
  // Code and output scroll sideways on a phone: tabindex lets a keyboard scroll them too.
  return { code, box: h('div', { class: 'program' }, [button, h('pre', { class: 'source', tabindex: 0 }, [code])]) };
}

/** §6: the lesson's two numpy programs as it gives them, and what they print, from the core. */
/** Program 2's weight tables as heatmaps, one a head, beside what it prints: a pure view (virtual nodes) of its result. */
export const programTwoMaps = (result) => range(result.heads).map((head) => {
  const tokens = range(result.L).map(String);
  return figure({
    caption: `A[${head}]`,
    svg: heatmap(vdoc, { values: result.attention[head], rows: result.L, cols: result.L, rowLabels: tokens, colLabels: tokens, title: `A[${head}]`, cell: 40 }),
    table: { values: result.attention[head], rows: result.L, cols: result.L, rowLabels: tokens, colLabels: tokens },
  });
});

export function codeSection(ctx, frame) {
  const t = ctx.text.code;
  const one = programBox('program-1', t);
  const two = programBox('program-2', t);
  const outA = h('pre', { class: 'console', id: 'demo-a-output', 'aria-live': 'polite', tabindex: 0 });
  const outB = h('pre', { class: 'console', id: 'demo-b-output', 'aria-live': 'polite', tabindex: 0 });
  const errorA = h('div');
  const errorB = h('div');
  const mapsB = h('div', { class: 'fig-row' });
  const node = section(frame.id, frame.title, [
    h('p', {}, [t.lead]),
    h('p', { class: 'muted', id: 'programs-restored' }, [t.restored]),
    h('h3', { id: 'program-1-title' }, [t.programA]),
    numberField({ label: t.seed, value: ctx.state.demo.seed1, min: 0, max: SEED_MAX, id: 'seed1', notANumber: ctx.text.notANumber, onInput: (v) => ctx.set((s) => (s.demo.seed1 = v)) }),
    one.box,
    h('p', { class: 'muted' }, [t.output]),
    errorA,
    outA,
    h('p', { class: 'note', id: 'seed-a-note' }, [t.seedA]),
    h('h3', { id: 'program-2-title' }, [t.programB]),
    h('p', { id: 'seed-b-hint' }, [t.seedB]),
    numberField({ label: t.seed, value: ctx.state.demo.seed2, min: 0, max: SEED_MAX, id: 'seed2', notANumber: ctx.text.notANumber, onInput: (v) => ctx.set((s) => (s.demo.seed2 = v)) }),
    two.box,
    h('p', { class: 'muted' }, [t.output]),
    errorB,
    outB,
    mapsB,
    t.gloss ? h('p', { class: 'muted', id: 'programs-gloss' }, [t.gloss]) : null,
    h('p', { class: 'note' }, [t.randomNote]),
    questionsBlock(ctx),
  ]);
  // Lesson mode shows each program, with its output, on a screen of its own, then the questions on theirs.
  let screen = 0;
  for (const child of node.children) {
    if (['program-1-title', 'program-2-title', 'questions'].includes(child.id)) screen++;
    if (screen) child.dataset.screen = String(screen);
  }

  // What Python prints ends with a newline; a <pre> shows the lines without it.
  const printed = (text) => text.replace(/\n$/, '');

  return {
    node,
    reads: ['demo'],
    update() {
      const { seed1, seed2 } = ctx.state.demo;
      one.code.textContent = programOne(seed1);
      two.code.textContent = programTwo(seed2);
      // On a bad seed the last good output stays, greyed, under the error.
      try {
        checkSeed(seed1);
        fill(outA, printed(programOneOutput(ctx.mha, seed1)));
        fill(errorA, []);
      } catch (error) {
        fill(errorA, errorBox(ctx.text, error));
      }
      try {
        checkSeed(seed2);
        const { text, result } = programTwoOutput(ctx.mha, seed2);
        fill(outB, printed(text));
        show(mapsB, programTwoMaps(result));
        fill(errorB, []);
      } catch (error) {
        fill(errorB, errorBox(ctx.text, error));
      }
      outA.classList.toggle('stale', errorA.childElementCount > 0);
      outB.classList.toggle('stale', errorB.childElementCount > 0);
    },
  };
}
