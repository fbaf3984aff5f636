import { h, vh, show } from '../../ui/dom.js';
import { grouped } from '../../ui/section.js';
import { formatNumber } from '../../draw/index.js';
import { errorSentence } from '../../shared/errors.js';
import { shortNumber } from '../../shared/explain.js';
import { defaultHand } from '../../hand/limits.js';
import { checkBill } from '../checks.js';
import { runHand } from '../core.js';
import { defaultState } from '../state.js';

/** A head count section 1 refuses for GPT-2's d_model: the question "does h have to divide d_model?". */
const NOT_DIVIDING = 7;

const vector = (values) => `[${Array.from(values, (x) => formatNumber(x, 2)).join(', ')}]`;

/**
 * The numbers the answers quote, from the core: the bill at GPT-2's d_model for several h, the sentence
 * section 1 refuses h = 7 with, and the lesson's 猫吃鱼 as §3 opens (Wᴼ the identity). `text` is TEXT[lang].
 */
export function questionFacts(mha, text) {
  const { dModel, heads } = defaultState().bill;
  const tried = [1, heads, heads * 2];
  // With one head, the naive bill is the three projections alone: the split bill's surplus is Wᴼ.
  const single = mha.paramCount({ dModel, heads: 1 });
  let refusal = '';
  try {
    checkBill({ dModel, heads: NOT_DIVIDING });
  } catch (error) {
    refusal = errorSentence(text, error);
  }
  const hand = runHand(mha, defaultHand(), { use: 'questions' });
  const { dK, dModel: width } = hand;
  return {
    dModel,
    heads,
    tried,
    widths: tried.map((h) => dModel / h),
    counts: tried.map((h) => grouped(mha.paramCount({ dModel, heads: h }).split)),
    notDividing: NOT_DIVIDING,
    refusal,
    woCount: grouped(single.split - single.naive),
    word: hand.tokens[0],
    handDK: dK,
    output: vector(hand.output.subarray(0, width)),
    // Head 2's slice of the first word's q, and its weights: the row that q slice leaves even.
    qSlice: `[${Array.from(hand.q.subarray(dK, 2 * dK), (x) => shortNumber(x)).join(', ')}]`,
    secondHeadRow: vector(hand.attention[1].subarray(0, hand.L)),
  };
}

/**
 * The questions a class asks after the lesson (its closing list), each answered in a few sentences with
 * the core's numbers and a link to the part of the page that shows it: a pure view (virtual nodes) of
 * questionFacts' numbers in the words `text` (TEXT[lang]).
 */
export function questionsView(text, facts) {
  const t = text.questions;
  return [
    vh('h3', { id: 'questions-title' }, [t.title]),
    vh('p', {}, [t.lead]),
    vh('dl', {}, t.items.flatMap(({ id, question, answer, link }) => [
      vh('dt', { id: `question-${id}` }, [question]),
      vh('dd', {}, [`${answer(facts)} ${t.see}`, vh('a', { href: link.href }, [link.text(text.sections)])]),
    ])),
  ];
}

/** The questions as §6 ends, built once per language. */
export const questionsBlock = (ctx) => show(h('div', { class: 'questions', id: 'questions' }), questionsView(ctx.text, questionFacts(ctx.mha, ctx.text)));
