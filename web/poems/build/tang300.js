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
 * A poem's title, author and body. The body keeps its line breaks; each line is trimmed, since spaces are
 * layout in this file, not text, and so is the body. A prose preface (the lines before an empty line, as
 * 琵琶行 has) is kept apart: it is prose, not verse, and no measure is taken on it.
 */
export function poemOfEntry(entry) {
  const [titleLine, authorLine, ...lines] = entry.split('\n').map((line) => line.trim());
  const title = /^《(.+)》$/.exec(titleLine);
  const author = /^作者：(.*)$/.exec(authorLine ?? '');
  const text = lines.join('\n').trim();
  if (!title || !author || !text) {
    throw new Error(`tang300: expected 《title》, 作者：… and a body, got ${JSON.stringify(entry.slice(0, 60))}`);
  }
  const parts = text.split(/\n\n+/);
  const body = parts.at(-1);
  return parts.length > 1 ? { title: title[1], author: author[1], preface: parts.slice(0, -1).join('\n\n'), body } : { title: title[1], author: author[1], body };
}

/**
 * The typos of fortunes-zh's 唐诗三百首 in the held-out poems, corrected before anything is measured. Each was
 * found by comparing the poem, clause by clause, with its 全唐诗 text (npm chinese-poetry, in simplified
 * characters: the leak matcher pairs them) and kept only where the fortunes text is no known reading: a
 * character miswritten for one that looks or sounds alike, two characters swapped, a full stop inside a
 * couplet. Where 全唐诗 has another reading that 唐诗三百首 editions print too (春来发几枝 against 秋来发故枝), the
 * fortunes text stays. Each `from` must occur exactly once in its poem, so a new fortunes-zh is noticed.
 */
export const TYPO_FIXES = [
  { entry: 10, from: '樵人归尽欲', to: '樵人归欲尽' },
  { entry: 20, from: '欲恃一瓢酒', to: '欲持一瓢酒' },
  { entry: 50, from: '万年回首丘山重', to: '万牛回首丘山重' },
  { entry: 50, from: '志士幽人草怨嗟', to: '志士幽人莫怨嗟' },
  { entry: 60, from: '尝学琶琵', to: '尝学琵琶' },
  { entry: 60, from: '转徒于江湖间', to: '转徙于江湖间' },
  { entry: 60, from: '每被秋娘炉', to: '每被秋娘妒' },
  { entry: 60, from: '一曲红消', to: '一曲红绡' },
  { entry: 60, from: '绕舱明月江水寒', to: '绕船月明江水寒' },
  { entry: 60, from: '山歌与姑笛', to: '山歌与村笛' },
  { entry: 60, from: '江州司马清衫湿', to: '江州司马青衫湿' },
  { entry: 180, from: '宗臣遣像', to: '宗臣遗像' },
  { entry: 190, from: '芙蓉水。密雨', to: '芙蓉水，密雨' },
  { entry: 190, from: '百越纹身地', to: '百越文身地' },
  { entry: 220, from: '遣恨失吞吴', to: '遗恨失吞吴' },
];

/** A held-out poem with its typos corrected (TYPO_FIXES), in its preface and its body. */
function corrected(poem) {
  let text = poem.preface === undefined ? poem.body : `${poem.preface}\n\n${poem.body}`;
  for (const { from, to } of TYPO_FIXES.filter((fix) => fix.entry === poem.entry)) {
    if (text.split(from).length !== 2) throw new Error(`tang300: entry ${poem.entry} should hold "${from}" once`);
    text = text.replace(from, to);
  }
  const at = text.lastIndexOf('\n\n');
  return at < 0 ? { ...poem, body: text } : { ...poem, preface: text.slice(0, at), body: text.slice(at + 2) };
}

/** Entries 10, 20, 30, … (counting from 1): the 31 held-out poems of the 313, their typos corrected. */
export function heldOutPoems(text) {
  return fortuneEntries(text).flatMap((entry, index) =>
    (index + 1) % HELD_OUT_EVERY === 0 ? [corrected({ entry: index + 1, ...poemOfEntry(entry) })] : []);
}
