import TYPESET from 'typeset:formula';
import { h, show } from '../../ui/dom.js';
import { section } from '../../ui/section.js';
import { drawPipeline } from '../../pipeline/section.js';
import { formulaShape, formulaNotes } from './formula-notes.js';

/** Which parts of the pipeline each symbol stands for (the TeX of formula-tex.js marks each with sym-<name>). */
const PARTS = {
  multihead: ['output'],
  concat: ['concat'],
  head: ['heads'],
  h: ['split', 'scores', 'weights', 'heads'],
  wo: ['wo'],
  attention: ['scores', 'weights'],
  wq: ['split'],
  wk: ['split'],
  wv: ['split'],
  q: ['input'],
};

/**
 * §5: the formula, typeset by KaTeX when the page was built (TYPESET: web/tools/bundle.js typesets formula-tex.js),
 * then every symbol's note in reading order, all shown at once so a teacher can read them out; hovering or
 * focusing a symbol lights its part of the pipeline and its note.
 */
export function formulaSection(ctx, frame) {
  const t = ctx.text.formula;
  const box = h('div', { class: 'pipeline-box', id: 'formula-pipeline', 'data-screen': 2 });
  // Each equation wraps on a narrow screen (formula-tex.js says where), so nothing is cut off.
  const math = h('div', { class: 'formula', role: 'img', 'aria-label': t.formulaLabel });
  math.innerHTML = TYPESET.equations.join('');
  // The typeset HTML is decorative for assistive technology (KaTeX adds MathML); keyboard users use the buttons.

  const choose = (name) => ctx.setUi((ui) => (ui.symbol = name));
  for (const name of Object.keys(PARTS)) {
    for (const span of math.querySelectorAll(`.sym-${name}`)) {
      span.addEventListener('mouseenter', () => choose(name));
      span.addEventListener('mouseleave', () => choose(null));
      span.addEventListener('click', () => choose(name));
    }
  }
  // Each symbol's button, with its typeset look, is built once: the notes' view shows it as it is.
  const buttons = Object.fromEntries(Object.entries(t.symbols).map(([name, [tex]]) => {
    // The typeset symbol is for the eye; screen readers get a plain-text name ("W i Q").
    const spoken = tex.replace(/\\text\{([^}]*)\}/g, '$1').replace(/[_^{}]/g, ' ').replace(/\s+/g, ' ').trim();
    const look = h('span', { 'aria-hidden': 'true' });
    look.innerHTML = TYPESET.symbols[tex];
    return [name, h('button', { type: 'button', class: 'symbol', 'data-symbol': name, onfocus: () => choose(name), onmouseenter: () => choose(name), onblur: () => choose(null), onclick: () => choose(name) }, [
      h('span', { class: 'sr-only' }, [spoken]),
      look,
    ])];
  }));
  const notes = h('ol', { class: 'symbol-notes', id: 'symbol-notes', 'data-screen': 1 });
  const on = { enter: choose, leave: () => choose(null) };
  const drawNotes = () => show(notes, formulaNotes(t, formulaShape({ hand: ctx.hand, handError: ctx.handError, bill: ctx.state.bill }), { focused: ctx.ui.symbol, look: (name) => buttons[name], on }));
  drawNotes();

  const node = section(frame.id, frame.title, [
    h('p', {}, [t.lead]),
    // Lesson mode shows the formula and the notes on one screen, the pipeline under the formula on the next
    // (data-screen), where pointing at a symbol lights its part.
    math,
    box,
    h('h3', { 'data-screen': 1 }, [t.symbolsTitle]),
    notes,
  ]);
  return {
    node,
    reads: ['hand', 'bill', 'focus', 'resize', 'present'],
    update() {
      const focused = ctx.ui.symbol;
      const highlight = focused ? PARTS[focused] : [];
      drawPipeline(ctx, box, { highlight, title: ctx.text.pipeline.figureTitle });
      for (const span of math.querySelectorAll('.sym')) span.classList.toggle('lit', focused !== null && span.classList.contains(`sym-${focused}`));
      drawNotes();
    },
  };
}
