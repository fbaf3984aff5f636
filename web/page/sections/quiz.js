import { h, vh, show } from '../../ui/dom.js';
import { uniqueId } from '../../ui/controls.js';
import { section, errorView, range, grouped } from '../../ui/section.js';
import { headWidth, runHand } from '../core.js';
import { newDeck, currentQuestion, isReturning, moveOn, rightFirstTime } from '../quiz-deck.js';
import { handEntryName } from '../../hand/strings.js';

const close = (a, b, tolerance) => Math.abs(a - b) <= tolerance;
const sameValues = (a, b) => a.length === b.length && a.every((x, i) => close(x, b[i], 1e-6));
const identity = (n) => range(n).map((r) => range(n).map((c) => (r === c ? 1 : 0)));
/** Mean entropy of a head's softmax rows: lower is sharper. */
const entropy = (weights, L) => range(L).reduce((sum, r) => sum - range(L).reduce((s, c) => {
  const w = weights[r * L + c];
  return w > 0 ? s + w * Math.log(w) : s;
}, 0), 0) / L;
/** Columns of an L × d matrix that are 0 in every row. */
const zeroColumns = (m, L, d) => range(d).filter((c) => range(L).every((r) => m[r * d + c] === 0));

/** The questions, in the order a fresh deck asks them. */
export const QUIZ_IDS = ['bill', 'dk', 'split', 'predict', 'mask', 'scale', 'concat', 'wo', 'ablation', 'train'];

/**
 * §11's questions on the page's numbers: §3's state `hand` and its core run `result` (or the `error` the core
 * gave for it). Each: its prompt, its kind of answer ('number', 'numbers', 'choice' or 'pick-many') with the
 * labels of its fields or options, and solve(), which asks the core and returns accept(value), the answer as
 * shown on reveal, and the explanation shown with it; it throws when §3's numbers give no answer.
 */
export function quizQuestions(mha, text, { hand, result, error = null }) {
  const t = text.quiz;
  const handResult = () => {
    if (error) throw error;
    return result;
  };
  const firstWord = () => hand.tokens[0];
  const probe = (changes, options = {}) => runHand(mha, { ...hand, ...changes }, { use: 'quiz-probe', ...options });
  return {
    bill: {
      kind: 'number', prompt: () => t.bill.prompt,
      solve: () => {
        const { naive, split } = mha.paramCount({ dModel: 768, heads: 12 });
        const ratio = naive / split;
        return { accept: (v) => close(v, ratio, 0.01), answer: String(ratio), why: t.bill.why(grouped(naive), grouped(split), ratio) };
      },
    },
    dk: {
      kind: 'number', prompt: () => t.dk.prompt,
      solve: () => {
        const dK = headWidth(mha, 768, 12);
        return { accept: (v) => v === dK, answer: String(dK), why: t.dk.why(768, 12, dK) };
      },
    },
    split: {
      kind: 'choice', prompt: () => t.split.prompt(firstWord()),
      options: () => [...range(hand.heads).map((i) => text.hand.headTitle(i)), t.split.all, t.split.none],
      solve: () => {
        const current = handResult();
        const q = hand.q.map((row) => row.slice());
        q[0][3] += 1;
        const moved = probe({}, { q }).attention;
        const changed = range(hand.heads).filter((head) => moved[head].some((w, i) => !close(w, current.attention[head][i], 1e-6)));
        const heads = hand.heads;
        const [all, none] = [heads, heads + 1];
        const right = changed.length === 0 ? [none] : changed.length === heads ? [all, ...(heads === 1 ? [0] : [])] : changed.length === 1 ? changed : [];
        const names = changed.map((head) => text.hand.headTitle(head)).join(', ') || t.split.nothing;
        return { accept: (v) => right.includes(v), answer: names, why: t.split.why(names) };
      },
    },
    predict: {
      kind: 'numbers', prompt: () => t.predict.prompt(hand.heads, firstWord()),
      fields: () => hand.tokens.map((token) => `${firstWord()} → ${token}`),
      solve: () => {
        const result = handResult();
        const row = Array.from(result.attention[result.heads - 1].slice(0, result.L));
        const shown = row.map((w) => w.toFixed(2)).join(', ');
        return { accept: (v) => v.every((x, i) => close(x, row[i], 0.015)), answer: `[${shown}]`, why: t.predict.why(shown) };
      },
    },
    mask: {
      kind: 'number', prompt: () => t.mask.prompt(firstWord()),
      solve: () => {
        handResult();
        const weight = probe({ causal: true }).attention[0][0];
        return { accept: (v) => close(v, weight, 0.005), answer: String(weight), why: t.mask.why(String(weight)) };
      },
    },
    scale: {
      kind: 'choice', prompt: () => t.scale.prompt, options: () => t.scale.options,
      solve: () => {
        const scaled = probe({ scale: true });
        const plain = probe({ scale: false });
        const change = entropy(plain.attention[0], plain.L) - entropy(scaled.attention[0], scaled.L);
        const right = close(change, 0, 1e-6) ? 2 : change < 0 ? 0 : 1;
        const root = String(Number(Math.sqrt(scaled.dK).toFixed(2)));
        return { accept: (v) => v === right, answer: t.scale.options[right], why: t.scale.why(scaled.dK, root) };
      },
    },
    concat: {
      kind: 'number', prompt: () => t.concat.prompt,
      solve: () => {
        const result = handResult();
        const width = result.concat.length / result.L;
        return { accept: (v) => v === width, answer: String(width), why: t.concat.why(result.heads, result.dK, width) };
      },
    },
    wo: {
      kind: 'choice', prompt: () => t.wo.prompt, options: () => t.wo.options,
      solve: () => {
        handResult();
        const r = probe({ wo: identity(hand.wo.length) });
        const sum = r.headOutputs[0].map((_, i) => r.headOutputs.reduce((s, out) => s + out[i], 0));
        const right = [r.concat, r.headOutputs[0], sum].map((candidate, i) => (sameValues(r.output, candidate) ? i : -1)).filter((i) => i >= 0);
        const names = right.map((i) => t.wo.options[i]).join(', ');
        return { accept: (v) => right.includes(v), answer: names, why: t.wo.why(names) };
      },
    },
    ablation: {
      kind: 'pick-many', prompt: () => t.ablation.prompt,
      options: () => range(hand.wo.length).map((c) => t.ablation.column(c)),
      solve: () => {
        const result = handResult();
        const off = probe({}, { enabledOverride: range(result.heads).map((head) => head !== 0) });
        const allOn = probe({}, { enabledOverride: Array(result.heads).fill(true) });
        // A column that is 0 even with every head on is right whether it is picked or not.
        const either = new Set(zeroColumns(allOn.concat, allOn.L, allOn.dModel));
        const zeroed = zeroColumns(off.concat, off.L, off.dModel).filter((c) => !either.has(c));
        const names = zeroColumns(off.concat, off.L, off.dModel).map((c) => t.ablation.column(c)).join(', ');
        return {
          accept: (picked) => sameValues(picked.filter((c) => !either.has(c)), zeroed),
          answer: names, why: t.ablation.why(names),
        };
      },
    },
    train: {
      kind: 'choice', prompt: () => t.train.prompt, options: () => t.train.options,
      solve: () => {
        const one = mha.paramCount({ dModel: 8, heads: 1 }).split;
        const four = mha.paramCount({ dModel: 8, heads: 4 }).split;
        const right = four > one ? 0 : four === one ? 1 : 2;
        return { accept: (v) => v === right, answer: t.train.options[right], why: t.train.why(grouped(one), grouped(four)) };
      },
    },
  };
}

/** What a check or a reveal found, as the card says it: `outcome` { kind, why, answer, error, cellName }. */
function feedbackView(text, outcome) {
  const t = text.quiz;
  if (!outcome) return vh('p', { class: 'feedback', id: 'quiz-feedback', 'aria-live': 'polite' });
  const { kind, why, answer, error, cellName } = outcome;
  // §3's numbers as they are give no answer: the error names their entries as §3 does, and the learner may go on.
  const said = {
    hint: () => [t.pickFirst],
    right: () => [t.correct(why)],
    wrong: () => [t.wrong],
    revealed: () => [t.revealed(answer, why)],
    failed: () => [errorView(text, error, { cellName }), vh('span', { id: 'quiz-cannot-solve' }, [t.cannotSolve])],
  }[kind]();
  return vh('p', { class: kind === 'failed' ? 'feedback' : `feedback ${kind}`, id: 'quiz-feedback', 'aria-live': 'polite' }, said);
}

/**
 * §11's card, a pure view (virtual nodes) of `question` (one of quizQuestions'): whether it `returning` (missed
 * before), its prompt, its empty fields (radio buttons named `name`), its buttons, and the `outcome` of the last
 * check or reveal; the next button shows once the learner `mayGoOn`. `on` holds the buttons' handlers.
 */
export function quizCard(text, question, { returning = false, outcome = null, mayGoOn = false, name = 'quiz', on = {} }) {
  const t = text.quiz;
  const fields = () => {
    if (question.kind === 'number') return [vh('input', { type: 'number', id: 'quiz-answer', step: 'any', inputmode: 'decimal', 'aria-labelledby': 'quiz-prompt' })];
    if (question.kind === 'numbers') {
      return question.fields().map((label, i) => vh('input', { type: 'number', step: 0.01, inputmode: 'decimal', class: 'short', id: `quiz-answer-${i}`, 'aria-label': label }));
    }
    const many = question.kind === 'pick-many';
    const boxes = question.options().map((label, i) => vh('label', { for: `quiz-option-${i}`, class: 'option' }, [
      vh('input', { type: many ? 'checkbox' : 'radio', name, id: `quiz-option-${i}`, value: i }),
      ` ${label}`,
    ]));
    return [vh('div', { class: 'options', role: many ? 'group' : 'radiogroup', 'aria-labelledby': 'quiz-prompt' }, boxes)];
  };
  return [
    returning ? vh('p', { class: 'quiz-returning' }, [t.returning]) : null,
    vh('p', { class: 'quiz-prompt', id: 'quiz-prompt', tabindex: -1 }, [question.prompt()]),
    vh('div', { class: 'answer' }, fields()),
    vh('div', { class: 'quiz-buttons' }, [
      vh('button', { type: 'submit', id: 'quiz-check' }, [t.check]),
      vh('button', { type: 'button', id: 'quiz-reveal', onclick: on.reveal }, [t.reveal]),
      vh('button', { type: 'button', id: 'quiz-next', hidden: !mayGoOn, onclick: on.next }, [t.next]),
    ]),
    feedbackView(text, outcome),
  ];
}

/** The card once every question is answered: how many were right the first time, and a button to start again. */
export function quizFinished(t, { total, first, onRestart }) {
  return [
    vh('p', { class: 'quiz-prompt', id: 'quiz-prompt', tabindex: -1 }, [t.finished(total, first)]),
    vh('button', { type: 'button', id: 'quiz-restart', onclick: onRestart }, [t.restart]),
  ];
}

/** The learner's answer in `card` to a question of `kind`, or null when nothing is filled in or chosen. */
function readAnswer(card, kind) {
  if (kind === 'number') {
    const value = card.querySelector('#quiz-answer').valueAsNumber;
    return Number.isFinite(value) ? value : null;
  }
  if (kind === 'numbers') {
    const values = [...card.querySelectorAll('input[id^="quiz-answer-"]')].map((input) => input.valueAsNumber);
    return values.every(Number.isFinite) ? values : null;
  }
  const chosen = [...card.querySelectorAll('.options input:checked')].map((input) => Number(input.value));
  if (kind === 'pick-many') return chosen.length ? chosen : null;
  return chosen[0] ?? null;
}

/**
 * §11: retrieval practice, one question at a time. Every answer is computed from the live core when the
 * learner checks, never read from a stored key; a missed or revealed question comes back two questions
 * later (quiz-deck.js). The deck lives on ctx, so a language switch keeps the learner's place.
 */
export function quizSection(ctx, frame) {
  const t = ctx.text.quiz;
  const questions = () => quizQuestions(ctx.mha, ctx.text, { hand: ctx.state.hand, result: ctx.hand, error: ctx.handError });
  if (!ctx.quizDeck) ctx.quizDeck = newDeck(QUIZ_IDS);

  const progress = h('p', { class: 'quiz-progress muted', id: 'quiz-progress', 'aria-live': 'polite' });
  const card = h('form', { class: 'quiz-card', id: 'quiz-card', novalidate: true, onsubmit: (event) => {
    event.preventDefault();
    check();
  } });
  const name = uniqueId('quiz');

  // The question on screen and what the learner has done with it: { id, outcome, mayGoOn, missed }.
  let asked = null;

  const answered = (outcome, { missed = asked.missed, mayGoOn = true } = {}) => {
    Object.assign(asked, { outcome, missed, mayGoOn: asked.mayGoOn || mayGoOn });
    drawCard();
  };
  /** Calls action with the core's answer, or says why §3's numbers give none (the question comes back later). */
  const guarded = (action) => {
    let solved;
    try {
      solved = questions()[asked.id].solve();
    } catch (error) {
      return answered({ kind: 'failed', error, cellName: handEntryName(ctx.text.hand, ctx.state.hand.tokens) }, { missed: true });
    }
    return action(solved);
  };

  function check() {
    if (!asked) return;
    const value = readAnswer(card, questions()[asked.id].kind);
    if (value === null) return answered({ kind: 'hint' }, { mayGoOn: false });
    guarded(({ accept, why }) => (accept(value) ? answered({ kind: 'right', why }) : answered({ kind: 'wrong' }, { missed: true })));
  }

  const reveal = () => guarded(({ answer, why }) => answered({ kind: 'revealed', answer, why }, { missed: true }));

  function next() {
    moveOn(ctx.quizDeck, { missed: asked.missed });
    showCard({ focus: true });
  }

  /** Draws the card of the question asked (its prompt follows §3's numbers), with what the learner did. */
  function drawCard() {
    const deck = ctx.quizDeck;
    show(card, quizCard(ctx.text, questions()[asked.id], { returning: isReturning(deck), outcome: asked.outcome, mayGoOn: asked.mayGoOn, name, on: { reveal, next } }));
  }

  /** Shows the deck's current question (or the end of the deck), with empty fields. */
  function showCard({ focus = false } = {}) {
    const deck = ctx.quizDeck;
    const id = currentQuestion(deck);
    progress.textContent = t.progress(deck.done.length, deck.ids.length, deck.queue.length);
    // A new question starts with new fields, never the last one's typed or chosen answer.
    show(card, []);
    if (id === null) {
      asked = null;
      show(card, quizFinished(t, { total: deck.ids.length, first: rightFirstTime(deck), onRestart: () => {
        ctx.quizDeck = newDeck(QUIZ_IDS);
        showCard({ focus: true });
      } }));
      if (focus) card.querySelector('#quiz-restart').focus();
      return;
    }
    asked = { id, outcome: null, mayGoOn: false, missed: false };
    card.dataset.question = id;
    drawCard();
    if (focus) card.querySelector('#quiz-prompt').focus();
  }

  const node = section(frame.id, frame.title, [h('p', {}, [t.lead]), h('p', { class: 'muted', id: 'quiz-counting' }, [t.counting]), progress, card]);
  return {
    node,
    reads: ['structure', 'hand'],
    update(areas) {
      // A new head count or sentence length changes the fields; other edits only the wording.
      if (!asked || areas.has('structure') || areas.has('lang')) showCard();
      else drawCard();
    },
  };
}
