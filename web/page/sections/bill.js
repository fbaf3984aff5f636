import { h, vh, show } from '../../ui/dom.js';
import { numberField } from '../../ui/controls.js';
import { section, errorBox, grouped } from '../../ui/section.js';
import { checkBill } from '../checks.js';
import { BILL_MAX_D_MODEL } from '../state.js';

/**
 * §1's numbers from the core's paramCount: both bills, one head's split bill, and Wᴼ's part of it (one head's
 * split bill is its Q/K/V plus Wᴼ, its naive bill the Q/K/V alone). Throws the page's or the core's error for
 * a d_model or h it refuses.
 */
export function billFacts(mha, { dModel, heads }) {
  checkBill({ dModel, heads });
  const { naive, split } = mha.paramCount({ dModel, heads });
  const oneHead = mha.paramCount({ dModel, heads: 1 });
  return { dModel, heads, naive, split, single: oneHead.split, wo: oneHead.split - oneHead.naive };
}

/** §1's result: a pure view (virtual nodes, ../../ui/dom.js) of billFacts' numbers in the words `t` (TEXT[lang].bill). */
export function billView(t, { dModel, heads, naive, split, single, wo }) {
  const row = (label, formula, value, id) =>
    vh('div', { class: 'bill-row' }, [vh('span', { class: 'bill-label' }, [label, vh('small', {}, [formula])]), vh('output', { id, class: 'bill-value' }, [grouped(value)]), vh('span', { class: 'unit' }, [t.params, t.approx(value)])]);
  const twoDecimals = (x) => String(Math.round(x * 100) / 100);
  const ratio = twoDecimals(naive / split);
  // The lesson's ratio counts Wᴼ on one side only; like with like is the Q/K/V of both.
  const splitGlasses = split - wo;
  return [
    row(t.naive, t.naiveFormula, naive, 'bill-naive'),
    row(t.split, t.splitFormula, split, 'bill-split'),
    vh('p', { class: 'bill-ratio' }, [`${t.ratio} `, vh('strong', { id: 'bill-ratio' }, [ratio]), ` ${t.times}`]),
    vh('p', { id: 'bill-like' }, [t.likeWithLike({ naive: grouped(naive), split: grouped(splitGlasses), ratio: twoDecimals(naive / splitGlasses), wo: grouped(wo) })]),
    // The naive plan's hidden waste, priced with the numbers above.
    vh('p', { id: 'bill-waste' }, [t.waste(dModel, heads, ratio)]),
    vh('p', {}, [t.identity, vh('strong', { id: 'bill-single' }, [grouped(single)]), `${t.approx(single)}${t.identityNote}`]),
    vh('p', {}, [`${t.dk} ${dModel} ÷ ${heads} = `, vh('strong', { id: 'bill-dk' }, [String(dModel / heads)])]),
  ];
}

/** §1: the parameter bill, naive h·3·d² against split 3·d² + d², live from the core's paramCount. */
export function billSection(ctx, frame) {
  const t = ctx.text.bill;
  const result = h('div', { class: 'bill-result', 'aria-live': 'polite' });
  const node = section(frame.id, frame.title, [
    h('p', {}, [t.lead]),
    h('div', { class: 'controls' }, [
      numberField({ label: t.dModel, value: ctx.state.bill.dModel, min: 1, max: BILL_MAX_D_MODEL, id: 'bill-dmodel', notANumber: ctx.text.notANumber, onInput: (v) => ctx.set((s) => (s.bill.dModel = v)) }),
      numberField({ label: t.heads, value: ctx.state.bill.heads, min: 1, max: BILL_MAX_D_MODEL, id: 'bill-heads', notANumber: ctx.text.notANumber, onInput: (v) => ctx.set((s) => (s.bill.heads = v)) }),
    ]),
    h('p', { class: 'muted' }, [t.gpt2]),
    result,
  ]);
  return {
    node,
    reads: ['bill'],
    update() {
      let facts;
      try {
        facts = billFacts(ctx.mha, ctx.state.bill);
      } catch (error) {
        result.replaceChildren(errorBox(ctx.text, error));
        return;
      }
      show(result, billView(t, facts));
    },
  };
}
