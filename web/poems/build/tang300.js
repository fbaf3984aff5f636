// The evaluation poems: 唐诗三百首 as Debian's fortunes-zh ships it. Every tenth entry is held out and
// never trained on, so the model card's loss is measured on poems the model has not seen.
export const TANG300_PATH = '/usr/share/games/fortunes/tang300';
export const HELD_OUT_EVERY = 10;

// The file colours titles and authors for a terminal; the colours are no part of the text.
const ANSI_ESCAPE = /\x1b\[[0-9;]*m/g;

/** The file's entries in order: escapes stripped, whitespace trimmed, empty entries skipped. */
export function fortuneEntries(text) {
  const entries = [];
  let lines = [];
  for (const line of `${text.replace(ANSI_ESCAPE, '')}\n%`.split(/\r?\n/)) {
    if (line !== '%') {
      lines.push(line);
      continue;
    }
    const entry = lines.join('\n').trim();
    if (entry) entries.push(entry);
    lines = [];
  }
  return entries;
}

/**
 * A poem's title, author and body. The body keeps its line breaks (a preface stays, with the empty
 * line after it); each line is trimmed, since spaces are layout in this file, not text, and so is the body.
 */
export function poemOfEntry(entry) {
  const [titleLine, authorLine, ...lines] = entry.split('\n').map((line) => line.trim());
  const title = /^《(.+)》$/.exec(titleLine);
  const author = /^作者：(.*)$/.exec(authorLine ?? '');
  const body = lines.join('\n').trim();
  if (!title || !author || !body) {
    throw new Error(`tang300: expected 《title》, 作者：… and a body, got ${JSON.stringify(entry.slice(0, 60))}`);
  }
  return { title: title[1], author: author[1], body };
}

/** Entries 10, 20, 30, … (counting from 1): the 31 held-out poems of the 313. */
export function heldOutPoems(text) {
  return fortuneEntries(text).flatMap((entry, index) =>
    (index + 1) % HELD_OUT_EVERY === 0 ? [{ entry: index + 1, ...poemOfEntry(entry) }] : []);
}
