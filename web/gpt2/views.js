// §10's views of GPT-2 (web/ui/README.md, rule 5): pure functions of a run's numbers (runs.js) and the words
// `words` (POEMS_TEXT[lang] under GPT-2's own, GPT2_TEXT[lang]) to virtual nodes; section.js shows them. The views
// any model's heads share are ../heads/head-figures.js's.
import { vh } from '../ui/dom.js';
import { rolesTable } from '../heads/head-figures.js';
import { clearRole } from '../heads/roles.js';
import { cacheView } from '../heads/cache-view.js';
import { GPT2_ROLES, gpt2Roles } from './roles.js';

/**
 * Head `index`'s roles, measured on the sentence alone (its token `ids`, which of them are `punctuation`, and the
 * head's L×L `weights`), which gives the verdict.
 */
export function gpt2RolesView(words, { index, heads, ids, punctuation, weights }) {
  const roles = gpt2Roles(ids, punctuation, [weights]);
  return rolesTable(words, {
    prefix: 'gpt2', index, heads, roles: GPT2_ROLES.map(({ name }) => name),
    columns: [{ title: words.textColumn, measured: { scores: roles.heads[0], chance: roles.chance, rows: roles.rows } }],
    verdict: { role: clearRole(roles.heads[0], roles.chance) },
  });
}

/**
 * The sentence as GPT-2 reads it: how many tokens the whole text makes (`total`) and how many are read (`ids`),
 * each token read, and the byte tokens that together make one character (`characters`: { from, to, text }).
 */
export function tokensView(words, { ids, total, labels, byteTokens, characters }) {
  const pairs = [...new Set(characters.map(({ from, to, text }) => `${labels.slice(from, to + 1).join(' ')} = ${text}`))];
  return [
    vh('p', { class: 'muted', id: 'gpt2-tokens-count', 'data-total': String(total), 'data-read': String(ids.length) }, [words.tokensTitle(total, ids.length)]),
    vh('p', { class: 'gpt2-token-list' }, labels.map((label, i) => vh('code', { class: 'gpt2-token', 'data-id': ids[i], 'data-bytes': String(byteTokens[i]) }, [label]))),
    pairs.length ? vh('p', { class: 'muted', id: 'gpt2-bytes' }, [words.bytesNote, ...pairs.flatMap((pair) => [' ', vh('code', {}, [pair])])]) : null,
  ];
}

const speed = (words, perSecond, stepMs, forwardMs, kept) =>
  vh('p', { id: 'gpt2-speed', 'data-per-second': String(perSecond), 'data-step-ms': stepMs, 'data-forward-ms': forwardMs, 'data-kept': String(kept) },
    [words.speed(perSecond.toFixed(1), stepMs, forwardMs, kept)]);

/**
 * GPT-2 writing on with the key-value cache: the text so far as merged tokens (tokens.js's mergedTokens; those
 * written marked), how fast the steps ran, and the last step's query against the cache for head `index`. `gen` is
 * the worker's steps gathered: { prompt (how many ids are the prompt's), ids, tokens, rows (the last step's, a row
 * a head), steps, ms (every step's, summed), forwardMs, reused (the prompt's positions its forward kept), done, stopped, temperature,
 * seed, offCount (heads off), count (asked for), total (the whole text's tokens, once done) }; `limit` the most tokens.
 */
export function generationView(words, gen, { index, heads, config, limit }) {
  const written = gen.ids.length - gen.prompt;
  // A sentence of `limit` tokens or more left no room: that is said, not "0 tokens written".
  if (gen.done && gen.total >= limit) return [vh('p', { class: 'note outcome', id: 'gpt2-gen-status', 'data-no-room': 'true' }, [words.room(gen.total, limit, gen.count)])];
  const perSecond = gen.ms > 0 ? (1000 * gen.steps) / gen.ms : 0;
  const row = gen.rows?.[index];
  const weight = (from, to) => Array.prototype.slice.call(row, from, to + 1).reduce((sum, w) => sum + w, 0);
  return [
    vh('p', { class: 'muted', id: 'gpt2-gen-status' }, [gen.done ? words.generated(written, gen.temperature, gen.seed, gen.stopped, gen.offCount) : words.generating(written)]),
    vh('p', { class: 'gpt2-token-list', id: 'gpt2-gen-tokens' }, gen.tokens.map(({ from, to, label }) =>
      vh('code', { class: to >= gen.prompt ? 'gpt2-token-written' : 'gpt2-token-read', 'data-from': from, 'data-to': to }, [label]))),
    gen.tokens.some(({ from, to }) => to > from) ? vh('p', { class: 'muted', id: 'gpt2-gen-merged' }, [words.mergedNote]) : null,
    gen.steps ? speed(words, perSecond, (gen.ms / gen.steps).toFixed(1), String(Math.round(gen.forwardMs)), gen.reused) : null,
    gen.done && gen.ids.length >= limit ? vh('p', { class: 'note outcome', id: 'gpt2-cache-full' }, [words.cacheFull(limit)]) : null,
    ...(row ? cacheView(words, { prefix: 'gpt2', step: written, index, heads, config, length: gen.ids.length,
      full: gen.ids.length >= limit, entries: gen.tokens.map(({ from, to, label }) => ({ label, weight: weight(from, to), rows: to - from + 1 })) }) : []),
  ];
}
