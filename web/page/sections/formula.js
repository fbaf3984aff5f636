import TYPESET from 'typeset:formula';
import { h, fill } from '../../ui/dom.js';
import { formatNumber } from '../../draw/index.js';
import { checkBill } from '../checks.js';
import { defaultState } from '../state.js';
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

/** Section 1's sizes for §5's shapes, or null while the bill refuses them (it says why itself). */
function billSizes({ dModel, heads }) {
  try {
    checkBill({ dModel, heads });
  } catch {
    return null;
  }
  const gpt2 = defaultState().bill;
  return { dModel, heads, dK: dModel / heads, gpt2: dModel === gpt2.dModel && heads === gpt2.heads };
}

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
  const shape = () => {
    const hand = ctx.hand;
    const firstRow = hand && !ctx.handError ? { word: hand.tokens[0], values: Array.from(hand.headOutputs[0].subarray(0, hand.dK), (x) => formatNumber(x, 2)) } : null;
    return { L: hand?.L ?? 0, dModel: hand?.dModel ?? 4, heads: hand?.heads ?? 2, dK: hand?.dK ?? 2, bill: billSizes(ctx.state.bill), firstRow };
  };

  const choose = (name) => ctx.setUi((ui) => (ui.symbol = name));
  for (const name of Object.keys(PARTS)) {
    for (const span of math.querySelectorAll(`.sym-${name}`)) {
      span.addEventListener('mouseenter', () => choose(name));
      span.addEventListener('mouseleave', () => choose(null));
      span.addEventListener('click', () => choose(name));
    }
  }
  const notes = Object.entries(t.symbols).map(([name, [tex]]) => {
    // The typeset symbol is for the eye; screen readers get a plain-text name ("W i Q").
    const spoken = tex.replace(/\\text\{([^}]*)\}/g, '$1').replace(/[_^{}]/g, ' ').replace(/\s+/g, ' ').trim();
    const look = h('span', { 'aria-hidden': 'true' });
    look.innerHTML = TYPESET.symbols[tex];
    const button = h('button', { type: 'button', class: 'symbol', 'data-symbol': name, onfocus: () => choose(name), onmouseenter: () => choose(name), onblur: () => choose(null), onclick: () => choose(name) }, [
      h('span', { class: 'sr-only' }, [spoken]),
      look,
    ]);
    return { name, item: h('li', { class: 'symbol-note', 'data-symbol': name, onmouseenter: () => choose(name), onmouseleave: () => choose(null) }, [button, h('span', { class: 'symbol-text' })]) };
  });
  const subscripts = h('span', { class: 'symbol-text' });

  const node = section(frame.id, frame.title, [
    h('p', {}, [t.lead]),
    // Lesson mode shows the formula and the notes on one screen, the pipeline under the formula on the next
    // (data-screen), where pointing at a symbol lights its part.
    math,
    box,
    h('h3', { 'data-screen': 1 }, [t.symbolsTitle]),
    h('ol', { class: 'symbol-notes', id: 'symbol-notes', 'data-screen': 1 }, [
      ...notes.map(({ item }) => item),
      h('li', { class: 'symbol-note', id: 'count-note' }, [h('strong', {}, [t.countTitle]), h('span', { class: 'symbol-text' }, [t.countNote])]),
      h('li', { class: 'symbol-note', id: 'subscripts-note' }, [h('strong', {}, [t.subscriptsTitle]), subscripts]),
    ]),
  ]);
  return {
    node,
    reads: ['hand', 'bill', 'focus', 'resize', 'present'],
    update() {
      const focused = ctx.ui.symbol;
      const highlight = focused ? PARTS[focused] : [];
      drawPipeline(ctx, box, { highlight, title: ctx.text.pipeline.figureTitle });
      for (const span of math.querySelectorAll('.sym')) span.classList.toggle('lit', focused !== null && span.classList.contains(`sym-${focused}`));
      const now = shape();
      for (const { name, item } of notes) {
        item.classList.toggle('lit', name === focused);
        fill(item.querySelector('.symbol-text'), t.symbols[name][1](now));
      }
      fill(subscripts, t.subscripts(now));
    },
  };
}
