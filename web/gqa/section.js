import { h, show, fill } from '../ui/dom.js';
import { numberField } from '../ui/controls.js';
import { section, errorBox } from '../ui/section.js';
import { createSession } from '../shared/session.js';
import { exampleFacts, billFacts, groupFacts, MAX_CONTEXT } from './facts.js';
import { exampleView, billView, groupsView } from './views.js';

const MAX_HEADS = 16;

/**
 * §13, the coda: heads that share K and V (MQA, GQA). 猫吃鱼 with one shared K/V head beside §3's two, the
 * bill of parameters and K/V cache, and which query heads read which K/V head for an h and h_kv picked here.
 */
export function gqaSection(ctx, frame) {
  const t = ctx.text.gqa;
  const picks = () => ctx.ui.gqa;
  const session = createSession(ctx.mha);
  const example = h('div', { id: 'gqa-example' });
  const exampleStale = h('div', { id: 'gqa-example-stale' });
  const groupsError = h('div', { id: 'gqa-groups-error' });
  const bill = h('div', { id: 'gqa-bill', 'aria-live': 'polite' });
  const groups = h('div', { id: 'gqa-pipeline', 'aria-live': 'polite' });
  const divisors = h('p', { class: 'muted', id: 'gqa-divisors' });
  const setPick = (key) => (value) => ctx.setUi((ui) => (ui.gqa = { ...ui.gqa, [key]: value }));
  const node = section(frame.id, frame.title, [
    h('div', { 'data-screen': 1 }, [h('p', {}, [t.lead]), h('p', {}, [t.why])]),
    h('div', { class: 'gqa-part', 'data-screen': 2 }, [h('h3', {}, [t.exampleTitle]), h('p', { class: 'muted' }, [t.exampleLead]), exampleStale, example]),
    h('div', { class: 'gqa-part', 'data-screen': 3 }, [
      h('h3', {}, [t.billTitle]),
      h('p', { class: 'muted' }, [t.billLead]),
      h('div', { class: 'controls' }, [
        numberField({ label: t.context, value: picks().context, min: 1, max: MAX_CONTEXT, id: 'gqa-context', notANumber: ctx.text.notANumber, onInput: setPick('context') }),
      ]),
      bill,
      h('p', { class: 'muted' }, [t.billNote]),
    ]),
    h('div', { class: 'gqa-part', 'data-screen': 4 }, [
      h('h3', {}, [t.groupsTitle]),
      h('p', { class: 'muted' }, [t.groupsLead]),
      h('div', { class: 'controls' }, [
        numberField({ label: t.heads, value: picks().heads, min: 1, max: MAX_HEADS, id: 'gqa-h', notANumber: ctx.text.notANumber, onInput: setPick('heads') }),
        numberField({ label: t.kvHeads, value: picks().kvHeads, min: 1, max: MAX_HEADS, id: 'gqa-h-kv', notANumber: ctx.text.notANumber, onInput: setPick('kvHeads') }),
      ]),
      divisors,
      groupsError,
      groups,
    ]),
  ]);
  return {
    node,
    reads: ['hand', 'gqa'],
    update(areas) {
      if (areas.has('hand')) {
        // While §3 refuses its inputs, the last example stays, greyed, under the reason.
        fill(exampleStale, ctx.handError ? [h('p', {}, [t.stale]), errorBox(ctx.text, ctx.handError)] : null);
        example.classList.toggle('stale', Boolean(ctx.handError));
        if (!ctx.handError) show(example, exampleView(t, exampleFacts(session, ctx.state.hand)));
      }
      if (areas.has('gqa')) {
        const { heads, kvHeads, context } = picks();
        show(bill, billView(t, billFacts(ctx.mha, context)));
        divisors.textContent = t.divisors(Array.from({ length: heads }, (_, i) => i + 1).filter((d) => heads % d === 0));
        try {
          show(groups, groupsView(t, groupFacts(session, { heads, kvHeads })));
          fill(groupsError, null);
        } catch (error) {
          show(groups, []);
          fill(groupsError, errorBox(ctx.text, error));
        }
      }
    },
    dispose() {
      session.dispose();
    },
  };
}
