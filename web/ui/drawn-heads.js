// Many heads drawn a run at a time: the lesson page's views (§7) and GPT-2 tiles (§10) and the widget draw at
// most so many heads at once, with a note saying which and buttons to move along them, so that a redraw
// costs the same however many heads the model has.
import { hFor } from './dom.js';

// The figures of §7 and the widget: at most 16 heads, and at most 8192 weights in all (8 heads of 32×32).
const MAX_DRAWN_HEADS = 16;
const MAX_DRAWN_WEIGHTS = 8192;

/** How many heads of L×L weights the views draw at once. */
export const drawnHeadCount = (L) => Math.min(MAX_DRAWN_HEADS, Math.max(1, Math.floor(MAX_DRAWN_WEIGHTS / (L * L))));

/** The heads drawn, as indices: `count` of the model's `heads` from `first` (brought into range). */
export function headRun(heads, count, first) {
  const start = Math.max(0, Math.min(first, heads - 1));
  return Array.from({ length: Math.min(count, heads - start) }, (_, n) => start + n);
}

/**
 * The note saying which heads are drawn (`note(from, to)`, counted from 1) and buttons to the runs before and
 * after, which call `onMove(first)`; null when every head is drawn. `ids` names the buttons ({ back, next }).
 */
export function headRunNote(doc, { heads, shown, count, note, words, onMove, ids = {} }) {
  if (heads <= count) return null;
  const h = hFor(doc);
  const first = shown[0];
  const end = shown.at(-1) + 1;
  return [
    h('p', { class: 'note', role: 'status' }, [note(first + 1, end)]),
    h('button', { type: 'button', id: ids.back, 'data-move': 'back', disabled: first === 0, onclick: () => onMove(Math.max(0, first - count)) }, [`◀ ${words.earlier}`]),
    h('button', { type: 'button', id: ids.next, 'data-move': 'next', disabled: end === heads, onclick: () => onMove(end) }, [`${words.later} ▶`]),
  ];
}
