// GPT-2's own tokenizer for the page's GPT-2 part: byte-level BPE with GPT-2's vocabulary and merges (the
// r50k_base encoding of the npm package gpt-tokenizer, MIT). Imported only by the GPT-2 worker, so the page's
// bundle does not carry its 50,257 tokens until a teacher opens a GPT-2 file.
import { encode, decode } from 'gpt-tokenizer/encoding/r50k_base';

/** <|endoftext|>: GPT-2's document boundary, put first so every text starts as a new document. */
export const END_OF_TEXT = 50256;

/** The model's input for a text: <|endoftext|>, then GPT-2's tokens, at most `limit` in all. */
export function gpt2Input(text, limit) {
  // A typed "<|endoftext|>" is text like any other, not the special token.
  return [END_OF_TEXT, ...encode(String(text), { disallowedSpecial: new Set() })].slice(0, limit);
}

/**
 * A token as the tokenizer split it, readable: a leading or inner space as ␣ (GPT-2's Ġ), a line break as ↵,
 * a tab as →; a piece of a character split across tokens as �.
 */
export function gpt2TokenLabel(id) {
  if (id === END_OF_TEXT) return '<|endoftext|>';
  return (decode([id]) || '�').replace(/ /g, '␣').replace(/\n/g, '↵').replace(/\t/g, '→');
}

/** Punctuation marks and symbols (spaces around them allowed) and line breaks: the punctuation role's targets. */
export function isPunctuationToken(id) {
  const text = decode([id]);
  return id !== END_OF_TEXT && (/^\s*[\p{P}\p{S}]+\s*$/u.test(text) || text.includes('\n'));
}
