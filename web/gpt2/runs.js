// GPT-2's runs in the worker (web/gpt2/gpt2-worker.js): a text's forward with the heads switched off, whose
// attention the page draws, and, to compare, the same text with every head on; with the 5 likeliest next tokens
// after every row of both.
//
// A model builds only on its own last forward (model.reused: the rows whose tokens and heads are the same), and
// a second GPT-2 small beside the first would double the heap and the load (594 MiB each, loaded for the page's
// 64 tokens). So a run orders its two forwards to keep what they can: it begins with the heads the model
// last ran (that forward then keeps the rows the texts share) and ends with the other. Typing with heads off
// computes one of the two forwards anew, not both; switching heads, the text unchanged, runs the heads-off
// forward alone, every head's top 5 being kept from before.
import { topNext } from '../heads/next-tokens.js';
import { offKey, everyHeadAttention } from '../heads/heads.js';
import { gpt2TokenLabel } from './tokens.js';

/** How many ids two lists share from the start. */
function sharedStart(a, b) {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

/**
 * Runs on `model` (web/src/attention.js's Model). run(ids, off) → { attention (a Float32Array per head, index
 * layer · heads + head, of the forward with `off` switched off), top: { all, now } (per row the 5 likeliest next
 * tokens [{ id, p, label }] with every head on, and with `off` off, null when none is), reused: { all, now }
 * (the rows each forward kept from the model's last, null for a forward not run) }.
 */
export function gpt2Runs(model) {
  const { vocabSize } = model.config;
  let held = null; // offKey of the model's last forward
  const tops = new Map(); // offKey → { ids, top } of the last forward with those heads off

  /** A forward of ids with `off` switched off: the rows' top 5 (those it shares with the last with these heads kept). */
  function forward(ids, off) {
    const key = offKey(off);
    model.forward(ids, { disabled: off });
    held = key;
    const kept = tops.get(key);
    const same = kept ? sharedStart(kept.ids, ids) : 0;
    const logits = model.logits();
    const top = Array.from({ length: ids.length }, (_, row) => (row < same ? kept.top[row]
      : topNext(logits, row, vocabSize).map(({ id, p }) => ({ id, p, label: gpt2TokenLabel(id) }))));
    tops.set(key, { ids, top });
    return { top, reused: model.reused };
  }

  return {
    run(ids, off) {
      const key = offKey(off);
      for (const known of tops.keys()) if (known !== '' && known !== key) tops.delete(known);
      const allOn = tops.get('');
      const allOnKnown = allOn && sharedStart(allOn.ids, ids) === ids.length;
      const order = !off.length || allOnKnown ? [off] : held === '' ? [[], off] : [off, []];
      const result = { attention: null, top: { all: null, now: null }, reused: { all: null, now: null } };
      for (const switchedOff of order) {
        const { top, reused } = forward(ids, switchedOff);
        const which = switchedOff.length ? 'now' : 'all';
        result.top[which] = top;
        result.reused[which] = reused;
        if (switchedOff === off) result.attention = everyHeadAttention(model);
      }
      result.top.all ??= allOn.top.slice(0, ids.length);
      return result;
    },
  };
}
