// The numbers the closing recap names, from the core: GPT-2's two bills (section 1) and the two heads on
// 猫's row in the lesson's hand example (section 3), as the heatmaps show them.
import { runHand } from './core.js';
import { defaultHand } from '../hand/limits.js';
import { rowLook } from '../hand/pause.js';

/** `{ naive, split, word, heads: [rowLook, rowLook] }`: the bills in parameters, and each head's look at the first word. */
export function recapFacts(mha) {
  const { naive, split } = mha.paramCount({ dModel: 768, heads: 12 });
  const hand = runHand(mha, defaultHand(), { use: 'recap' });
  return { naive, split, word: hand.tokens[0], heads: [0, 1].map((head) => rowLook(hand, head)) };
}
