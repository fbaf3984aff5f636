import { h, fill } from '../../shared/dom.js';
import { uniqueId } from '../dom.js';
import { section, errorBox, range } from '../common.js';
import { headWidth, runHand } from '../model.js';

/** §9: retrieval practice; every answer is checked against the live core, not a stored key. */
export function quizSection(ctx) {
  const t = ctx.text.quiz;
  const feedback = () => h('p', { class: 'feedback', 'aria-live': 'polite' });
  const verdict = (box, ok, extra = '') => {
    box.className = `feedback ${ok ? 'right' : 'wrong'}`;
    box.textContent = `${ok ? t.correct : t.wrong}${extra ? ` ${extra}` : ''}`;
  };
  const guarded = (box, check) => () => {
    try {
      check();
    } catch (error) {
      fill(box, errorBox(ctx.text, error));
    }
  };

  // 1. d_k for GPT-2.
  const q1Input = h('input', { type: 'number', id: 'quiz-1', inputmode: 'numeric' });
  const q1Feedback = feedback();
  const q1 = h('li', {}, [
    h('label', { for: 'quiz-1' }, [t.q1]),
    h('div', { class: 'answer' }, [q1Input, h('button', { type: 'button', onclick: guarded(q1Feedback, () => verdict(q1Feedback, q1Input.valueAsNumber === headWidth(ctx.mha, 768, 12))) }, [t.check])]),
    q1Feedback,
  ]);

  // 2. Predict head 2's row of the first word.
  const q2Text = h('p', { id: 'quiz-2-text' });
  let q2Inputs = [];
  const q2Body = h('div', { class: 'answer' });
  const q2Feedback = feedback();
  /** The hand example's result; while it is refused, that refusal is the answer to every question about it. */
  const handResult = () => {
    if (ctx.handError) throw ctx.handError;
    return ctx.hand;
  };
  const q2Row = () => Array.from(handResult().attention[1].slice(0, ctx.hand.L));
  const q2 = h('li', {}, [q2Text, q2Body, q2Feedback]);

  // 3. Which head sees dimension 3 of the first word's q?
  const q3Text = h('p', { id: 'quiz-3-text' });
  const q3Options = h('div', { class: 'options', role: 'radiogroup', 'aria-labelledby': 'quiz-3-text' });
  const q3Feedback = feedback();
  const q3 = h('li', {}, [q3Text, q3Options, q3Feedback]);

  // 4. The bill's ratio.
  const q4Input = h('input', { type: 'number', id: 'quiz-4', step: 0.1, inputmode: 'decimal' });
  const q4Feedback = feedback();
  const q4 = h('li', {}, [
    h('label', { for: 'quiz-4' }, [t.q4]),
    h('div', { class: 'answer' }, [q4Input, h('button', { type: 'button', onclick: guarded(q4Feedback, () => {
      const { naive, split } = ctx.mha.paramCount({ dModel: 768, heads: 12 });
      verdict(q4Feedback, Math.abs(q4Input.valueAsNumber - naive / split) < 0.01);
    }) }, [t.check])]),
    q4Feedback,
  ]);

  /** Adds 1 to the first word's q[3] in a probe forward and lists the heads whose weights moved. */
  function changedHeads() {
    const current = handResult();
    const hand = ctx.state.hand;
    const q = hand.q.map((row) => row.slice());
    q[0][3] += 1;
    const probe = runHand(ctx.mha, hand, { use: 'quiz-probe', q });
    return range(hand.heads).filter((head) => probe.attention[head].some((w, i) => Math.abs(w - current.attention[head][i]) > 1e-6));
  }

  function build() {
    const hand = ctx.state.hand;
    const first = hand.tokens[0];
    q2Text.textContent = t.q2(first);
    if (hand.heads < 2) {
      fill(q2Body, h('p', { class: 'muted' }, [t.q2NeedTwo]));
    } else {
      q2Inputs = hand.tokens.map((token, i) => h('input', { type: 'number', step: 0.01, inputmode: 'decimal', class: 'short', id: `quiz-2-${i}`, 'aria-label': `${first} → ${token}` }));
      fill(q2Body, [
        ...q2Inputs,
        h('button', { type: 'button', id: 'quiz-2-check', onclick: guarded(q2Feedback, () => {
          const row = q2Row();
          verdict(q2Feedback, row.every((w, i) => Math.abs(q2Inputs[i].valueAsNumber - w) <= 0.015));
        }) }, [t.check]),
        h('button', { type: 'button', id: 'quiz-2-reveal', onclick: guarded(q2Feedback, () => {
          q2Feedback.className = 'feedback';
          q2Feedback.textContent = t.q2Answer(q2Row().map((w) => w.toFixed(2)).join(', '));
        }) }, [t.reveal]),
      ]);
    }
    q3Text.textContent = t.q3.replace('猫', first);
    const labels = t.q3Options(range(hand.heads));
    const name = uniqueId('quiz3');
    fill(q3Options, labels.map((label, i) => {
      const id = `${name}-${i}`;
      return h('label', { for: id }, [h('input', { type: 'radio', name, id, value: i }), ` ${label}`]);
    }));
    q3Options.append(h('button', { type: 'button', onclick: guarded(q3Feedback, () => {
      const picked = Number(q3Options.querySelector('input:checked')?.value ?? -1);
      const changed = changedHeads();
      const all = labels.length - 2;
      const none = labels.length - 1;
      const right = changed.length === 0 ? [none] : changed.length === hand.heads ? [all, ...(hand.heads === 1 ? [0] : [])] : changed.length === 1 ? [changed[0]] : [];
      const list = changed.length ? changed.map((head) => labels[head]).join(', ') : t.none;
      verdict(q3Feedback, right.includes(picked), t.q3Explain(list));
    }) }, [t.check]));
  }

  const node = section('quiz-section', ctx.text.sections.quiz, [h('p', {}, [t.lead]), h('ol', { class: 'quiz' }, [q1, q2, q3, q4])]);
  return {
    node,
    reads: ['structure'],
    update: build,
  };
}
