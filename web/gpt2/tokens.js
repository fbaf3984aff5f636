// GPT-2's own tokenizer for the page's GPT-2 part: byte-level BPE with GPT-2's vocabulary and merges (the
// r50k_base encoding of the npm package gpt-tokenizer, MIT). Imported only by the GPT-2 worker, so the page's
// bundle does not carry its 50,257 tokens until a teacher opens a GPT-2 file.
//
// A token is a run of bytes. Most are whole UTF-8 text; a character GPT-2 saw rarely in its English training
// text (a Chinese character, say) is split into byte tokens that are no text on their own: they are shown as
// their bytes, ⟨e7⟩ ⟨8c⟩ ⟨ab⟩ for 猫. The vocabulary table gives each token's bytes itself: the package's
// decode() keeps a half character from one call to the next, so it cannot be asked about one token at a time.
import { encode } from 'gpt-tokenizer/encoding/r50k_base';
import vocabulary from 'gpt-tokenizer/bpeRanks/r50k_base';

/** <|endoftext|>: GPT-2's document boundary, put first so every text starts as a new document. */
export const END_OF_TEXT = 50256;

const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The model's input for a text: <|endoftext|>, then GPT-2's tokens, at most `limit` in all. */
export function gpt2Input(text, limit) {
  // A typed "<|endoftext|>" is text like any other, not the special token.
  return [END_OF_TEXT, ...encode(String(text), { disallowedSpecial: new Set() })].slice(0, limit);
}

/** A token's bytes (<|endoftext|> as its name's). */
export function gpt2TokenBytes(id) {
  const entry = id === END_OF_TEXT ? '<|endoftext|>' : vocabulary[id];
  return typeof entry === 'string' ? utf8.encode(entry) : Uint8Array.from(entry);
}

/** Whether a token's bytes are no UTF-8 text on their own: a piece of a character. */
export const isByteToken = (id) => id !== END_OF_TEXT && typeof vocabulary[id] !== 'string';

/** Bytes as text, or null where they are no UTF-8 text. */
function text(bytes) {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

/** How many bytes the UTF-8 character starting at bytes[i] takes, when they are one; else 0. */
function characterLength(bytes, i) {
  const lead = bytes[i];
  const length = lead < 0x80 ? 1 : lead >= 0xc2 && lead < 0xe0 ? 2 : lead >= 0xe0 && lead < 0xf0 ? 3 : lead >= 0xf0 && lead < 0xf5 ? 4 : 0;
  return length && i + length <= bytes.length && text(bytes.subarray(i, i + length)) !== null ? length : 0;
}

const hex = (bytes) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join(' ');

/**
 * A token as the tokenizer split it, readable: a leading or inner space as ␣ (GPT-2's Ġ), a line break as ↵,
 * a tab as →; bytes that are no character on their own as hex in ⟨ ⟩ (the first byte of 猫 is ⟨e7⟩).
 */
export function gpt2TokenLabel(id) {
  if (id === END_OF_TEXT) return '<|endoftext|>';
  const bytes = gpt2TokenBytes(id);
  let label = '';
  let stray = []; // bytes that begin no character, gathered into one ⟨ ⟩
  for (let i = 0; i < bytes.length;) {
    const length = characterLength(bytes, i);
    if (length) {
      if (stray.length) label += `⟨${hex(stray)}⟩`;
      stray = [];
      label += text(bytes.subarray(i, i + length)).replace(' ', '␣').replace('\n', '↵').replace('\t', '→');
      i += length;
    } else stray.push(bytes[i++]);
  }
  if (stray.length) label += `⟨${hex(stray)}⟩`;
  return label;
}

/**
 * Where byte tokens make whole characters again: [{ from, to, text }], the tokens from..to (inclusive) whose bytes
 * together are `text` (猫's three byte tokens: text '猫'). A character takes at most 4 bytes, so at most 4 tokens.
 */
export function characterRuns(ids) {
  const runs = [];
  for (let from = 0; from < ids.length; from++) {
    if (!isByteToken(ids[from])) continue;
    const bytes = [];
    for (let to = from; to < ids.length && to < from + 4; to++) {
      bytes.push(...gpt2TokenBytes(ids[to]));
      const joined = text(Uint8Array.from(bytes));
      if (joined !== null) {
        runs.push({ from, to, text: joined });
        from = to;
        break;
      }
    }
  }
  return runs;
}

/** Punctuation marks and symbols (spaces around them allowed) and line breaks: the punctuation role's targets. */
export function isPunctuationToken(id) {
  const entry = vocabulary[id];
  return id !== END_OF_TEXT && typeof entry === 'string' && (/^\s*[\p{P}\p{S}]+\s*$/u.test(entry) || entry.includes('\n'));
}

/** Text as a label shows it: spaces as ␣, line breaks as ↵, tabs as →. */
const visible = (text) => text.replaceAll(' ', '␣').replaceAll('\n', '↵').replaceAll('\t', '→');

/**
 * Tokens as a reader sees them: [{ from, to, label }], each a run of tokens from..to (inclusive). Byte tokens
 * whose bytes complete a character are one entry with the text they make (characterRuns: 猫's three, one entry
 * '猫'); every other token is an entry of its own as gpt2TokenLabel shows it, so a character still split at the
 * end of `ids` shows its byte tokens until the token that completes it comes.
 */
export function mergedTokens(ids) {
  const runs = new Map(characterRuns(ids).map((run) => [run.from, run]));
  const entries = [];
  for (let i = 0; i < ids.length; i++) {
    const run = runs.get(i);
    entries.push(run ? { from: i, to: run.to, label: visible(run.text) } : { from: i, to: i, label: gpt2TokenLabel(ids[i]) });
    if (run) i = run.to;
  }
  return entries;
}
