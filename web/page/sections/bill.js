import { h } from '../../ui/dom.js';
import { numberField } from '../../ui/controls.js';
import { section, errorBox, grouped } from '../../ui/section.js';
import { checkBill } from '../checks.js';
import { BILL_MAX_D_MODEL } from '../state.js';


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
      const { dModel, heads } = ctx.state.bill;
      let counts;
      try {
        checkBill({ dModel, heads });
        counts = ctx.mha.paramCount({ dModel, heads });
        const oneHead = ctx.mha.paramCount({ dModel, heads: 1 });
        counts.single = oneHead.split;
        // One head's split bill is its Q/K/V plus Wᴼ, its naive bill the Q/K/V alone: the difference is Wᴼ.
        counts.wo = oneHead.split - oneHead.naive;
      } catch (error) {
        result.replaceChildren(errorBox(ctx.text, error));
        return;
      }
      const row = (label, formula, value, id) =>
        h('div', { class: 'bill-row' }, [h('span', { class: 'bill-label' }, [label, h('small', {}, [formula])]), h('output', { id, class: 'bill-value' }, [grouped(value)]), h('span', { class: 'unit' }, [t.params, t.approx(value)])]);
      const twoDecimals = (x) => String(Math.round(x * 100) / 100);
      const ratio = twoDecimals(counts.naive / counts.split);
      // The lesson's ratio counts Wᴼ on one side only; like with like is the Q/K/V of both.
      const splitGlasses = counts.split - counts.wo;
      result.replaceChildren(
        row(t.naive, t.naiveFormula, counts.naive, 'bill-naive'),
        row(t.split, t.splitFormula, counts.split, 'bill-split'),
        h('p', { class: 'bill-ratio' }, [`${t.ratio} `, h('strong', { id: 'bill-ratio' }, [ratio]), ` ${t.times}`]),
        h('p', { id: 'bill-like' }, [t.likeWithLike({ naive: grouped(counts.naive), split: grouped(splitGlasses), ratio: twoDecimals(counts.naive / splitGlasses), wo: grouped(counts.wo) })]),
        // The naive plan's hidden waste, priced with the numbers above.
        h('p', { id: 'bill-waste' }, [t.waste(dModel, heads, ratio)]),
        h('p', {}, [`${t.identity}: `, h('strong', { id: 'bill-single' }, [grouped(counts.single)]), `${t.approx(counts.single)} — ${t.identityNote}`]),
        h('p', {}, [`${t.dk} ${dModel} ÷ ${heads} = `, h('strong', { id: 'bill-dk' }, [String(dModel / heads)])]),
      );
    },
  };
}
