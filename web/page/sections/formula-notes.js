// §5's notes (web/ui/README.md, rule 5): a pure view of the hand example's core run and §1's sizes in §5's words.
// Apart from formula.js, which imports the formula typeset when the page is built, so that Node can test it.
import { vh } from '../../ui/dom.js';
import { formatNumber } from '../../draw/index.js';
import { checkBill } from '../checks.js';
import { defaultState } from '../state.js';

/** Section 1's sizes for §5's shapes, or null while the bill refuses them (it says why itself). */
function billSizes({ dModel, heads }) {
  try {
    checkBill({ dModel, heads });
  } catch {
    return null;
  }
  const gpt2 = defaultState().bill;
  return { dModel, heads, dK: dModel / heads, gpt2: dModel === gpt2.dModel && heads === gpt2.heads };
}

/**
 * What the notes say of the numbers: the hand example's shape from its core run `hand` (the lesson's sizes while
 * there is none), §1's sizes (`bill`, the state's), and head 1's first row, unless the core refused §3's numbers.
 */
export function formulaShape({ hand, handError = null, bill }) {
  const firstRow = hand && !handError ? { word: hand.tokens[0], values: Array.from(hand.headOutputs[0].subarray(0, hand.dK), (x) => formatNumber(x, 2)) } : null;
  return { L: hand?.L ?? 0, dModel: hand?.dModel ?? 4, heads: hand?.heads ?? 2, dK: hand?.dK ?? 2, bill: billSizes(bill), firstRow };
}

/**
 * The notes in the lesson's reading order (a symbol's typeset look is `look(name)`, the mount's), the one `focused`
 * lit; then the parameter count and the subscripts not to misread. `on.enter(name)` and `on.leave()` follow the pointer.
 */
export function formulaNotes(t, shape, { focused = null, look, on = {} }) {
  return [
    ...Object.keys(t.symbols).map((name) => vh('li', {
      class: name === focused ? 'symbol-note lit' : 'symbol-note', 'data-symbol': name, onmouseenter: on.enter && (() => on.enter(name)), onmouseleave: on.leave,
    }, [look(name), vh('span', { class: 'symbol-text' }, [t.symbols[name][1](shape)])])),
    vh('li', { class: 'symbol-note', id: 'count-note' }, [vh('strong', {}, [t.countTitle]), vh('span', { class: 'symbol-text' }, [t.countNote])]),
    vh('li', { class: 'symbol-note', id: 'subscripts-note' }, [vh('strong', {}, [t.subscriptsTitle]), vh('span', { class: 'symbol-text' }, [t.subscripts(shape)])]),
  ];
}
