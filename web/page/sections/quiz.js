import { h, fill } from '../../ui/dom.js';
import { uniqueId } from '../../ui/controls.js';
import { section, errorBox, range, grouped } from '../../ui/section.js';
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

/**
 * §11: retrieval practice, one question at a time. Every answer is computed from the live core when the
 * learner checks, never read from a stored key; a missed or revealed question comes back two questions
 * later (quiz-deck.js). The deck lives on ctx, so a language switch keeps the learner's place.
 */
export function quizSection(ctx, frame) {
  const t = ctx.text.quiz;
  const handResult = () => {
    if (ctx.handError) throw ctx.handError;
    return ctx.hand;
  };
  const hand = () => ctx.state.hand;
  const firstWord = () => hand().tokens[0];
  const probe = (changes, options = {}) => runHand(ctx.mha, { ...hand(), ...changes }, { use: 'quiz-probe', ...options });

  /**
   * Each question: its prompt, its kind of answer ('number', 'numbers', 'choice' or 'pick-many') with
   * the labels of its fields or options, and solve(), which asks the core and returns accept(value),
   * the answer as shown on reveal, and the explanation shown with it.
   */
  const QUESTIONS = {
    bill: {
      kind: 'number', prompt: () => t.bill.prompt,
      solve: () => {
        const { naive, split } = ctx.mha.paramCount({ dModel: 768, heads: 12 });
        const ratio = naive / split;
        return { accept: (v) => close(v, ratio, 0.01), answer: String(ratio), why: t.bill.why(grouped(naive), grouped(split), ratio) };
      },
    },
    dk: {
      kind: 'number', prompt: () => t.dk.prompt,
      solve: () => {
        const dK = headWidth(ctx.mha, 768, 12);
        return { accept: (v) => v === dK, answer: String(dK), why: t.dk.why(768, 12, dK) };
      },
    },
    split: {
      kind: 'choice', prompt: () => t.split.prompt(firstWord()),
      options: () => [...range(hand().heads).map((i) => ctx.text.hand.headTitle(i)), t.split.all, t.split.none],
      solve: () => {
        const current = handResult();
        const q = hand().q.map((row) => row.slice());
        q[0][3] += 1;
        const moved = probe({}, { q }).attention;
        const changed = range(hand().heads).filter((head) => moved[head].some((w, i) => !close(w, current.attention[head][i], 1e-6)));
        const heads = hand().heads;
        const [all, none] = [heads, heads + 1];
        const right = changed.length === 0 ? [none] : changed.length === heads ? [all, ...(heads === 1 ? [0] : [])] : changed.length === 1 ? changed : [];
        const names = changed.map((head) => ctx.text.hand.headTitle(head)).join(', ') || t.split.nothing;
        return { accept: (v) => right.includes(v), answer: names, why: t.split.why(names) };
      },
    },
    predict: {
      kind: 'numbers', prompt: () => t.predict.prompt(hand().heads, firstWord()),
      fields: () => hand().tokens.map((token) => `${firstWord()} → ${token}`),
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
        const r = probe({ wo: identity(hand().wo.length) });
        const sum = r.headOutputs[0].map((_, i) => r.headOutputs.reduce((s, out) => s + out[i], 0));
        const right = [r.concat, r.headOutputs[0], sum].map((candidate, i) => (sameValues(r.output, candidate) ? i : -1)).filter((i) => i >= 0);
        const names = right.map((i) => t.wo.options[i]).join(', ');
        return { accept: (v) => right.includes(v), answer: names, why: t.wo.why(names) };
      },
    },
    ablation: {
      kind: 'pick-many', prompt: () => t.ablation.prompt,
      options: () => range(hand().wo.length).map((c) => t.ablation.column(c)),
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
        const one = ctx.mha.paramCount({ dModel: 8, heads: 1 }).split;
        const four = ctx.mha.paramCount({ dModel: 8, heads: 4 }).split;
        const right = four > one ? 0 : four === one ? 1 : 2;
        return { accept: (v) => v === right, answer: t.train.options[right], why: t.train.why(grouped(one), grouped(four)) };
      },
    },
  };
  const ids = Object.keys(QUESTIONS);
  if (!ctx.quizDeck) ctx.quizDeck = newDeck(ids);

  const progress = h('p', { class: 'quiz-progress muted', id: 'quiz-progress', 'aria-live': 'polite' });
  const card = h('form', { class: 'quiz-card', id: 'quiz-card', novalidate: true, onsubmit: (event) => {
    event.preventDefault();
    check();
  } });

  // What the learner has done with the question on screen.
  let asked = null; // { id, prompt, read, missed, settled }
  let feedback = null;
  let nextButton = null;

  const say = (kind, text) => {
    feedback.className = `feedback ${kind}`;
    fill(feedback, text);
  };
  const guarded = (action) => {
    try {
      action();
    } catch (error) {
      // §3's numbers as they are give no answer: the error names their entries as §3 does, and the learner
      // may go on (the question comes back later).
      feedback.className = 'feedback';
      fill(feedback, [errorBox(ctx.text, error, { cellName: handEntryName(ctx.text.hand, ctx.state.hand.tokens) }), h('span', { id: 'quiz-cannot-solve' }, [t.cannotSolve])]);
      asked.missed = true;
      nextButton.hidden = false;
    }
  };

  function check() {
    if (!asked) return;
    const value = asked.read();
    if (value === null) {
      say('hint', t.pickFirst);
      return;
    }
    guarded(() => {
      const { accept, why } = QUESTIONS[asked.id].solve();
      if (accept(value)) {
        say('right', t.correct(why));
        asked.settled = true;
      } else {
        asked.missed = true;
        say('wrong', t.wrong);
      }
      nextButton.hidden = false;
    });
  }

  function reveal() {
    guarded(() => {
      const { answer, why } = QUESTIONS[asked.id].solve();
      asked.missed = true;
      say('revealed', t.revealed(answer, why));
      nextButton.hidden = false;
    });
  }

  function next() {
    moveOn(ctx.quizDeck, { missed: asked.missed });
    showCard({ focus: true });
  }

  /** The answer fields for a question; read() gives the answer, or null when nothing is filled in or chosen. */
  function answerFields(question) {
    const name = uniqueId('quiz');
    if (question.kind === 'number') {
      const input = h('input', { type: 'number', id: 'quiz-answer', step: 'any', inputmode: 'decimal', 'aria-labelledby': 'quiz-prompt' });
      return { nodes: [input], read: () => (Number.isFinite(input.valueAsNumber) ? input.valueAsNumber : null) };
    }
    if (question.kind === 'numbers') {
      const inputs = question.fields().map((label, i) => h('input', { type: 'number', step: 0.01, inputmode: 'decimal', class: 'short', id: `quiz-answer-${i}`, 'aria-label': label }));
      return { nodes: inputs, read: () => (inputs.every((input) => Number.isFinite(input.valueAsNumber)) ? inputs.map((input) => input.valueAsNumber) : null) };
    }
    const many = question.kind === 'pick-many';
    const boxes = question.options().map((label, i) => {
      const input = h('input', { type: many ? 'checkbox' : 'radio', name, id: `quiz-option-${i}`, value: i });
      return h('label', { for: `quiz-option-${i}`, class: 'option' }, [input, ` ${label}`]);
    });
    const group = h('div', { class: 'options', role: many ? 'group' : 'radiogroup', 'aria-labelledby': 'quiz-prompt' }, boxes);
    const chosen = () => [...group.querySelectorAll('input:checked')].map((input) => Number(input.value));
    return { nodes: [group], read: () => (many ? (chosen().length ? chosen() : null) : chosen()[0] ?? null) };
  }

  /** Shows the deck's current question (or the end of the deck), with empty fields. */
  function showCard({ focus = false } = {}) {
    const deck = ctx.quizDeck;
    const id = currentQuestion(deck);
    fill(progress, t.progress(deck.done.length, deck.ids.length, deck.queue.length));
    feedback = h('p', { class: 'feedback', id: 'quiz-feedback', 'aria-live': 'polite' });
    if (id === null) {
      asked = null;
      const again = h('button', { type: 'button', id: 'quiz-restart', onclick: () => {
        ctx.quizDeck = newDeck(ids);
        showCard({ focus: true });
      } }, [t.restart]);
      fill(card, [h('p', { class: 'quiz-prompt', id: 'quiz-prompt', tabindex: -1 }, [t.finished(deck.ids.length, rightFirstTime(deck))]), again]);
      if (focus) again.focus();
      return;
    }
    const question = QUESTIONS[id];
    const prompt = h('p', { class: 'quiz-prompt', id: 'quiz-prompt', tabindex: -1 }, [question.prompt()]);
    const fields = answerFields(question);
    asked = { id, prompt, read: fields.read, missed: false, settled: false };
    nextButton = h('button', { type: 'button', id: 'quiz-next', hidden: true, onclick: next }, [t.next]);
    card.dataset.question = id;
    fill(card, [
      ...(isReturning(deck) ? [h('p', { class: 'quiz-returning' }, [t.returning])] : []),
      prompt,
      h('div', { class: 'answer' }, fields.nodes),
      h('div', { class: 'quiz-buttons' }, [
        h('button', { type: 'submit', id: 'quiz-check' }, [t.check]),
        h('button', { type: 'button', id: 'quiz-reveal', onclick: reveal }, [t.reveal]),
        nextButton,
      ]),
      feedback,
    ]);
    if (focus) prompt.focus();
  }

  const node = section(frame.id, frame.title, [h('p', {}, [t.lead]), h('p', { class: 'muted', id: 'quiz-counting' }, [t.counting]), progress, card]);
  return {
    node,
    reads: ['structure', 'hand'],
    update(areas) {
      // A new head count or sentence length changes the fields; other edits only the wording.
      if (!asked || areas.has('structure') || areas.has('lang')) showCard();
      else asked.prompt.textContent = QUESTIONS[asked.id].prompt();
    },
  };
}
