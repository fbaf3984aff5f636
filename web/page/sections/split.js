import { h, fill } from '../../ui/dom.js';
import { section } from '../../ui/section.js';
import { checkBill } from '../checks.js';

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
      const { dModel, heads } = ctx.state.bill;
      let numbers = null;
      try {
        checkBill({ dModel, heads }); // the bill's own section says why when it refuses them
        numbers = { dModel, heads, dK: dModel / heads };
      } catch {
        // numbers stay null: the steps are shown without them
      }
      t.steps.forEach((step, i) => fill(lives[i], numbers ? step.live(numbers) : []));
      waiting.hidden = Boolean(numbers);
    },
  };
}
