// The order of the retrieval-practice questions in one visit: each question once, and one the learner
// missed (or had revealed) comes back after two others, so it is recalled again rather than re-read. No
// question comes back a third time while another has not been asked yet: a learner who reveals every
// answer still meets every question.

export const RETURN_AFTER = 2;

/** A fresh deck asking `ids` in order. */
export function newDeck(ids) {
  return { ids: [...ids], queue: [...ids], done: [], missedOnce: new Set(), asked: new Map() };
}

/** The id of the question being asked, or null when every question has been answered. */
export const currentQuestion = (deck) => deck.queue[0] ?? null;

/** Whether the current question is one the learner missed before, now asked again. */
export const isReturning = (deck) => deck.missedOnce.has(deck.queue[0]);

/**
 * Moves past the current question. Got right with no miss this time, it is done; missed (or revealed),
 * it goes back into the queue behind the next RETURN_AFTER questions (or last, when fewer are left), and,
 * once it has come back before, behind every question not asked yet as well.
 */
export function moveOn(deck, { missed }) {
  const id = deck.queue.shift();
  if (id === undefined) return deck;
  deck.asked.set(id, (deck.asked.get(id) ?? 0) + 1);
  if (missed) {
    deck.missedOnce.add(id);
    let at = Math.min(RETURN_AFTER, deck.queue.length);
    if (deck.asked.get(id) >= 2) {
      const lastUnasked = deck.queue.findLastIndex((other) => !deck.asked.has(other));
      at = Math.max(at, lastUnasked + 1);
    }
    deck.queue.splice(at, 0, id);
  } else {
    deck.done.push(id);
  }
  return deck;
}

/** How many questions were answered right the first time they were asked. */
export const rightFirstTime = (deck) => deck.done.filter((id) => !deck.missedOnce.has(id)).length;
