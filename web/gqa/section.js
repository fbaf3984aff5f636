import { h, vh, show, fill } from '../ui/dom.js';
import { numberField, wholeNumbers } from '../ui/controls.js';
import { section, errorBox } from '../ui/section.js';
import { startWorker } from '../shared/worker.js';
import { fetchPoemFile, openPoems } from '../poems/runs.js';
import { createSession } from '../shared/session.js';
import { exampleFacts, billFacts, groupFacts, questionFacts, divisorsOf, poemGroupFacts, MAX_CONTEXT } from './facts.js';
import { exampleView, billView, groupsView, poemGroupsView } from './views.js';
import { measureGroups } from './poem-groups.js';
import { GQA_TEXT } from './strings.js';

const MAX_HEADS = 16;
/** A worker that has not answered by then is given up, and the poetry model measured in the page. */
const WORKER_ANSWER_MS = 10000;

/**
 * §13, the coda: heads that share K and V (MQA, GQA). 猫吃鱼 with one shared K/V head beside §3's two, the
 * bill of parameters and K/V cache, and which query heads read which K/V head for an h and h_kv picked here.
 */
export function gqaSection(ctx, frame) {
  // The coda's words come with its module, not in the page's first view (its title alone is in TEXT.sections).
  const t = GQA_TEXT[ctx.lang];
  const picks = () => ctx.ui.gqa;
  const session = createSession(ctx.mha);
  const example = h('div', { id: 'gqa-example' });
  const exampleStale = h('div', { id: 'gqa-example-stale' });
  const groupsError = h('div', { id: 'gqa-groups-error' });
  const bill = h('div', { id: 'gqa-bill', 'aria-live': 'polite' });
  const groups = h('div', { id: 'gqa-pipeline', 'aria-live': 'polite' });
  const divisors = h('p', { class: 'muted', id: 'gqa-divisors' });
  // The two questions: typed answers stay in their boxes; what a check found is UI state (ctx.ui.gqa.answers).
  const asked = ['cache', 'weight'];
  const shownAnswer = (fact) => (fact.key === 'cache' ? String(Number(fact.answer.toFixed(6))) : fact.answer.toFixed(2));
  const questionParts = Object.fromEntries(asked.map((key) => {
    const id = `gqa-q-${key}`;
    const input = h('input', { type: 'number', step: 'any', id, inputmode: 'decimal', style: 'width:7em' });
    return [key, {
      input,
      prompt: h('p', { class: 'gqa-question', id: `${id}-prompt` }),
      result: h('p', { class: 'gqa-result', id: `${id}-result`, 'aria-live': 'polite' }),
      label: h('label', { for: id }, [t.questions[key].label]),
    }];
  }));
  const facts = () => questionFacts(ctx.mha, session, ctx.state.hand);
  // An outcome is kept with the §3 numbers it was checked on: once they change, it no longer shows.
  const handNow = () => JSON.stringify(ctx.state.hand);
  const answer = (key, outcome) => ctx.setUi((ui) => (ui.gqa = { ...ui.gqa, answers: { ...ui.gqa.answers, [key]: { ...outcome, hand: handNow() } } }));
  const check = (key) => {
    const typed = questionParts[key].input.valueAsNumber;
    if (Number.isNaN(typed)) return answer(key, { said: 'empty' });
    const fact = facts().find((f) => f.key === key);
    answer(key, { said: Math.abs(typed - fact.answer) <= fact.tolerance ? 'right' : 'wrong', answer: shownAnswer(fact) });
  };
  const reveal = (key) => answer(key, { said: 'revealed', answer: shownAnswer(facts().find((f) => f.key === key)) });
  const setPick = (key) => (value) => ctx.setUi((ui) => (ui.gqa = { ...ui.gqa, [key]: value }));
  // A box refuses what is no whole number in its range; h_kv takes any such number, so that one not dividing h
  // shows the core's sentence.
  const whole = (key, max) => ({
    min: 1, max, notANumber: ctx.text.notANumber, onInput: setPick(key), current: () => picks()[key],
    refuse: wholeNumbers(1, max, (from, to) => ctx.text.wholeRange(from, to, picks()[key])),
  });
  // The poetry model made grouped-query: fetched when asked, then rewritten and measured in a worker (here, a slice
  // a task, where none starts); the results kept for the page's life (a language switch builds the section again).
  const store = ctx.keep('gqa-poems', () => ({ phase: 'idle', percent: 0, measuring: null, results: [], heads: 0, error: null }));
  const poemsBox = h('div', { id: 'gqa-poems', 'aria-live': 'polite' });
  const poemsButton = h('button', { type: 'button', id: 'gqa-poems-start', onclick: () => measurePoems() }, [t.poemsStart]);
  const redraw = () => ctx.setUi((ui) => (ui.gqa = { ...ui.gqa, poems: (ui.gqa.poems ?? 0) + 1 }));
  const failed = (error) => {
    Object.assign(store, { phase: 'failed', error: { code: error?.code ?? 'UNEXPECTED', message: error?.message ?? String(error) } });
    redraw();
  };
  const measuring = (kvHeads) => {
    Object.assign(store, { phase: 'measuring', measuring: kvHeads });
    redraw();
  };
  const finished = (heads, results) => {
    Object.assign(store, { phase: 'done', heads, results });
    redraw();
  };
  async function measureHere(file) {
    try {
      const poems = await openPoems(ctx.mha, file);
      const bytes = new Uint8Array(await file.arrayBuffer());
      finished(poems.model.config.heads, await measureGroups(ctx.mha, poems, bytes, { onMeasuring: measuring, pause: () => new Promise((resolve) => setTimeout(resolve)) }));
      poems.model.dispose();
    } catch (error) {
      failed(error);
    }
  }
  async function measurePoems() {
    if (store.phase !== 'idle' && store.phase !== 'failed') return;
    Object.assign(store, { phase: 'loading', percent: 0, error: null });
    redraw();
    const file = await fetchPoemFile((got, total) => {
      store.percent = total ? Math.floor((100 * got) / total) : 0;
      redraw();
    });
    if (!file) return measureHere(null); // openPoems says why
    const worker = startWorker(
      () => new Worker(new URL('./poem-groups-worker.js', import.meta.url), { type: 'module' }),
      (data) => {
        if (data.type === 'measuring') return measuring(data.kvHeads);
        worker.terminate();
        if (data.type === 'result') finished(data.heads, data.results);
        else failed(data);
      },
      () => measureHere(file),
      failed,
      WORKER_ANSWER_MS,
    );
    worker.post({ type: 'measure', file });
  }
  const node = section(frame.id, frame.title, [
    h('div', { 'data-screen': 1 }, [h('p', {}, [t.lead]), h('p', {}, [t.why])]),
    h('div', { class: 'gqa-part', 'data-screen': 2 }, [h('h3', {}, [t.exampleTitle]), h('p', { class: 'muted' }, [t.exampleLead]), exampleStale, example]),
    h('div', { class: 'gqa-part', 'data-screen': 3 }, [
      h('h3', {}, [t.billTitle]),
      h('p', { class: 'muted' }, [t.billLead]),
      h('div', { class: 'controls' }, [
        numberField({ label: t.context, value: picks().context, id: 'gqa-context', width: 8, ...whole('context', MAX_CONTEXT) }),
      ]),
      bill,
      h('p', { class: 'muted' }, [t.billNote]),
    ]),
    h('div', { class: 'gqa-part', 'data-screen': 4 }, [
      h('h3', {}, [t.groupsTitle]),
      h('p', { class: 'muted' }, [t.groupsLead]),
      h('div', { class: 'controls' }, [
        numberField({ label: t.heads, value: picks().heads, id: 'gqa-h', ...whole('heads', MAX_HEADS) }),
        numberField({ label: t.kvHeads, value: picks().kvHeads, id: 'gqa-h-kv', ...whole('kvHeads', MAX_HEADS) }),
      ]),
      divisors,
      groupsError,
      groups,
      h('h3', {}, [t.questionsTitle]),
      ...asked.map((key) => h('div', { class: 'gqa-ask' }, [
        questionParts[key].prompt,
        h('div', { class: 'controls' }, [
          questionParts[key].label,
          questionParts[key].input,
          h('button', { type: 'button', id: `gqa-q-${key}-check`, onclick: () => check(key) }, [t.check]),
          h('button', { type: 'button', id: `gqa-q-${key}-reveal`, onclick: () => reveal(key) }, [t.reveal]),
        ]),
        questionParts[key].result,
      ])),
    ]),
    h('div', { class: 'gqa-part', 'data-screen': 5 }, [
      h('h3', {}, [t.poemsTitle]),
      h('p', { class: 'muted' }, [t.poemsLead]),
      h('div', { class: 'controls' }, [poemsButton]),
      poemsBox,
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
      const answers = picks().answers ?? {};
      const said = { right: (a) => t.right(a.answer), wrong: (a, key) => (key === 'weight' ? t.wrongWeight : t.wrong), revealed: (a) => t.answerIs(a.answer), empty: () => t.unanswered };
      for (const key of asked) {
        const words = ctx.state.hand.tokens;
        questionParts[key].prompt.textContent = t.questions[key].prompt([words[0], words.at(-1)]);
        const outcome = key === 'weight' && answers[key]?.hand !== handNow() ? null : answers[key];
        questionParts[key].result.textContent = outcome ? said[outcome.said](outcome, key) : '';
        questionParts[key].result.dataset.said = outcome?.said ?? '';
      }
      if (areas.has('gqa')) {
        poemsButton.disabled = store.phase === 'loading' || store.phase === 'measuring';
        poemsButton.hidden = store.phase === 'done';
        show(poemsBox, store.phase === 'done' ? poemGroupsView(t, poemGroupFacts(store.results, store.heads))
          : store.phase === 'loading' ? vh('p', { class: 'muted' }, [t.poemsLoading(store.percent)])
            : store.phase === 'measuring' ? vh('p', { class: 'muted' }, [t.poemsMeasuring(store.measuring)])
              : store.phase === 'failed' ? errorBox(ctx.text, store.error) : []);
        const { heads, kvHeads, context } = picks();
        show(bill, billView(t, billFacts(ctx.mha, context)));
        divisors.textContent = t.divisors(divisorsOf(heads));
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
