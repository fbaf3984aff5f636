import TYPESET from 'typeset:formula';
import { h } from '../../ui/dom.js';
import { section } from '../../ui/section.js';
import { drawPipeline } from '../../pipeline/section.js';

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
 * §5: the formula, typeset by KaTeX when the page was built (TYPESET: web/bundle.js typesets formula-tex.js);
 * hovering or focusing a symbol lights its part of the pipeline.
 */
export function formulaSection(ctx) {
  const t = ctx.text.formula;
  const info = h('p', { class: 'symbol-info', id: 'symbol-info', 'aria-live': 'polite' }, [t.hint]);
  const box = h('div', { class: 'pipeline-box', id: 'formula-pipeline', 'data-screen': 2 });
  // Each equation wraps on a narrow screen (formula-tex.js says where), so nothing is cut off.
  const math = h('div', { class: 'formula', role: 'img', 'aria-label': t.formulaLabel, 'data-screen': 1 });
  math.innerHTML = TYPESET.equations.join('');
  // The typeset HTML is decorative for assistive technology (KaTeX adds MathML); keyboard users use the buttons.
  const shape = () => ({ L: ctx.hand?.L ?? 0, dModel: ctx.hand?.dModel ?? 4, heads: ctx.hand?.heads ?? 2, dK: ctx.hand?.dK ?? 2 });

  const choose = (name) => ctx.setUi((ui) => (ui.symbol = name));
  for (const name of Object.keys(PARTS)) {
    for (const span of math.querySelectorAll(`.sym-${name}`)) {
      span.addEventListener('mouseenter', () => choose(name));
      span.addEventListener('mouseleave', () => choose(null));
      span.addEventListener('click', () => choose(name));
    }
  }
  const buttons = Object.entries(t.symbols).map(([name, [tex]]) => {
    // The typeset symbol is for the eye; screen readers get a plain-text name ("W i Q").
    const spoken = tex.replace(/\\text\{([^}]*)\}/g, '$1').replace(/[_^{}]/g, ' ').replace(/\s+/g, ' ').trim();
    const look = h('span', { 'aria-hidden': 'true' });
    look.innerHTML = TYPESET.symbols[tex];
    return h('button', { type: 'button', class: 'symbol', 'data-symbol': name, onfocus: () => choose(name), onmouseenter: () => choose(name), onblur: () => choose(null), onclick: () => choose(name) }, [
      h('span', { class: 'sr-only' }, [spoken]),
      look,
    ]);
  });

  const node = section('formula-section', ctx.text.sections.formula, [
    h('p', {}, [t.lead]),
    // Lesson mode shows the formula on one screen, the pipeline on the next; the symbols on both (data-screen).
    math,
    h('h3', { 'data-screen': 1 }, [t.symbolsTitle]),
    h('div', { class: 'symbols' }, buttons),
    info,
    box,
    h('p', { class: 'muted', id: 'dk-note', 'data-screen': 1 }),
    h('p', { class: 'muted', 'data-screen': 1 }, [t.countNote]),
  ]);
  return {
    node,
    reads: ['hand', 'focus', 'resize', 'present'],
    update() {
      const focused = ctx.ui.symbol;
      const highlight = focused ? PARTS[focused] : [];
      drawPipeline(ctx, box, { highlight, title: ctx.text.pipeline.figureTitle });
      for (const span of math.querySelectorAll('.sym')) span.classList.toggle('lit', focused !== null && span.classList.contains(`sym-${focused}`));
      for (const button of buttons) button.classList.toggle('lit', button.dataset.symbol === focused);
      info.textContent = focused ? t.symbols[focused][1](shape()) : t.hint;
      node.querySelector('#dk-note').textContent = t.dkNote(shape());
    },
  };
}
