import { h, vdoc, show } from '../../ui/dom.js';
import { section } from '../../ui/section.js';
import { checkBill } from '../checks.js';

/** §2's numbers, the bill's d_model and h worked through (null when the bill refuses them: its own section says why). */
export function splitNumbers({ dModel, heads }) {
  try {
    checkBill({ dModel, heads });
    return { dModel, heads, dK: dModel / heads };
  } catch {
    return null;
  }
}

/** Each step's line worked with the numbers, a pure view (a virtual text) per step; nothing without numbers. */
export const splitLines = (t, numbers) => t.steps.map((step) => (numbers ? [vdoc.createTextNode(step.live(numbers))] : []));

/**
 * §2: the paper's answer in three steps (cut, each on its own, join and fuse), one short card each, with
 * the bill's d_model and h worked through every step.
 */
export function splitSection(ctx, frame) {
  const t = ctx.text.split;
  const lives = t.steps.map((_, i) => h('p', { class: 'muted split-live', id: `split-live-${i}` }));
  const waiting = h('p', { class: 'muted', id: 'split-waiting', hidden: true }, [t.waiting]);
  const node = section(frame.id, frame.title, [
    h('p', { id: 'split-lead' }, [t.lead]),
    h('ol', { class: 'split-steps' }, t.steps.map((step, i) => h('li', { class: 'split-step' }, [
      h('h3', {}, [step.title]),
      h('p', {}, [step.text]),
      lives[i],
    ]))),
    waiting,
    h('p', {}, [t.next]),
  ]);
  return {
    node,
    reads: ['bill'],
    update() {
      const numbers = splitNumbers(ctx.state.bill);
      splitLines(t, numbers).forEach((line, i) => show(lives[i], line));
      waiting.hidden = Boolean(numbers);
    },
  };
}
