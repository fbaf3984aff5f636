// Variant characters (异体字) that OpenCC's t2s leaves in 全唐诗's text beside their standard simplified forms
// (鴈 beside 雁, 疎 beside 疏, 蘂 beside 蕊, 慙 beside 惭, 猨 beside 猿), found systematically and kept as a
// committed table, variants.json, so the corpus build needs nothing more than before.
//
//   node web/poems/build/variants.js     finds the table again and rewrites variants.json (needs the build's
//                                        install, opencc and Debian's unicode-data for Unihan_Variants.txt)
//
// The rule (findVariants): a character of the training text outside GB2312 (the 6,763 characters of simplified
// Chinese's first standard) whose Unihan semantic or Z variant (kSemanticVariant, kZVariant), converted by
// OpenCC t2s, is a GB2312 character the text also uses; of several, the one it uses most. Kept as they are:
// the characters of the held-out poems of 唐诗三百首 (their text is never rewritten: 袴, in 纨袴), and
// EXCLUDED, characters that are standard in their own right or whose Unihan variant is another word.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
export const VARIANTS_PATH = join(HERE, 'variants.json');
export const UNIHAN_VARIANTS = '/usr/share/unicode/Unihan_Variants.txt.bz2';

/**
 * Not converted although the rule finds them: standard characters of their own (珪 a jade tablet, not 圭; 邠 and
 * 郤 a place and a family name; 惇, 喆, 侁, 埼 in names; 祐, 烝, 菑, 炁 words of their own), and Unihan pairs that
 * are no variants in verse (刓 "to round off", not 园; 裌 a lined robe, not 袷; 圢 a field path; 卍 the sign).
 */
export const EXCLUDED = [...'珪邠郤惇喆侁埼祐烝菑炁刓裌圢卍'];

/** The committed table: { variant: standard }. */
export const VARIANTS = JSON.parse(readFileSync(VARIANTS_PATH, 'utf8'));

/** GB2312's Han characters (rows 16–87), decoded by the WHATWG GBK decoder Node has. */
export function gb2312Han() {
  const decoder = new TextDecoder('gb18030');
  const set = new Set();
  for (let row = 0xb0; row <= 0xf7; row++) {
    for (let column = 0xa1; column <= 0xfe; column++) {
      const text = decoder.decode(new Uint8Array([row, column]));
      if (text.length === 1 && /\p{Script=Han}/u.test(text)) set.add(text);
    }
  }
  return set;
}

/** Unihan's kSemanticVariant and kZVariant of each character: Map(character → [variant…]). */
export function unihanVariants(text) {
  const variants = new Map();
  const character = (code) => String.fromCodePoint(parseInt(code.slice(2), 16));
  for (const line of text.split('\n')) {
    const [code, field, value] = line.split('\t');
    if (!value || (field !== 'kSemanticVariant' && field !== 'kZVariant')) continue;
    const list = variants.get(character(code)) ?? [];
    for (const entry of value.split(' ')) list.push(character(entry.split('<')[0]));
    variants.set(character(code), list);
  }
  return variants;
}

/**
 * The table: counts (Map character → occurrences in the text), unihan (unihanVariants), t2s (a function from an
 * array of characters to their OpenCC t2s conversions), gb2312 (a Set), keep (characters never converted).
 */
export function findVariants({ counts, unihan, t2s, gb2312, keep = [] }) {
  const kept = new Set([...EXCLUDED, ...keep]);
  const candidates = [];
  for (const character of counts.keys()) {
    if (gb2312.has(character) || kept.has(character) || !/\p{Script=Han}/u.test(character)) continue;
    for (const variant of unihan.get(character) ?? []) candidates.push([character, variant]);
  }
  const converted = t2s(candidates.map(([, variant]) => variant));
  const table = new Map();
  candidates.forEach(([character], i) => {
    const standard = converted[i];
    if (standard === character || !gb2312.has(standard) || !counts.has(standard)) return;
    const before = table.get(character);
    if (!before || counts.get(standard) > counts.get(before)) table.set(character, standard);
  });
  return Object.fromEntries([...table].sort(([a], [b]) => counts.get(b) - counts.get(a) || (a < b ? -1 : 1)));
}

async function main() {
  const { readQuantangshi, toSimplified, trainingPoemBody } = await import('./corpus.js');
  const { heldOutPoems, TANG300_PATH } = await import('./tang300.js');
  const paragraphs = readQuantangshi().poems.map((poem) => poem.paragraphs);
  const simplified = toSimplified(paragraphs.flat());
  let next = 0;
  const counts = new Map();
  for (const poem of paragraphs) {
    const body = trainingPoemBody(simplified.slice(next, (next += poem.length)));
    for (const character of body ?? '') counts.set(character, (counts.get(character) ?? 0) + 1);
  }
  const held = heldOutPoems(readFileSync(TANG300_PATH, 'utf8'));
  const table = findVariants({
    counts,
    unihan: unihanVariants(execFileSync('bzcat', [UNIHAN_VARIANTS], { encoding: 'utf8', maxBuffer: 1 << 28 })),
    t2s: (characters) => toSimplified(characters),
    gb2312: gb2312Han(),
    keep: held.flatMap((poem) => [...poem.body]),
  });
  writeFileSync(VARIANTS_PATH, `${JSON.stringify(table, null, 0).replace(/,"/g, ',\n"')}\n`);
  console.log(`variants: ${Object.keys(table).length} characters, ${Object.keys(table).reduce((sum, c) => sum + counts.get(c), 0)} occurrences`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
