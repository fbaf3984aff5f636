// The form of regular Tang verse, as §10's poem writer keeps it and as its repetition is measured: clauses of
// five or seven characters, each closed by ， (a couplet's first clause) or 。 (its second), a line a
// couplet, four or eight clauses a poem; the rhyme place is the last character of a couplet's second clause.
// Pure: text in, numbers out. The measures are the same for the model's poems and for real ones (the card's
// `repetition`, web/poems/card-measures.js; tests/poems.test.js).

/** One Han character: what a clause is made of (a token of the poetry model's vocabulary, or a character of text). */
export const HAN = /^\p{Script=Han}$/u;
/** What closes a couplet's first clause and its second. */
export const FIRST_CLOSE = '，';
export const SECOND_CLOSE = '。';
/** The clause lengths of regular verse, and the poem lengths in clauses. */
export const CLAUSE_LENGTHS = [5, 7];
export const POEM_CLAUSES = [4, 8];

/**
 * A poem's clauses: each run of Han characters with the mark that closes it ({ text, close }); `rest` is what
 * comes after the last closed clause (an unfinished clause's characters); `other` counts anything else met
 * (a mark with no clause before it, a character that is neither Han nor a line break).
 */
export function clausesOf(text) {
  const clauses = [];
  let rest = '';
  let other = 0;
  for (const char of text) {
    if (HAN.test(char)) rest += char;
    else if (char === '\n') {
      if (rest) other++;
    } else if (rest) {
      clauses.push({ text: rest, close: char });
      rest = '';
    } else other++;
  }
  return { clauses, rest, other };
}

/**
 * A poem (its body, lines joined by line breaks) as regular verse, or null: 4 or 8 clauses of one length, 5
 * or 7 characters, closed by ， and 。 in turn, a line break after each couplet but the last and nowhere
 * else, nothing else.
 */
export function regularVerse(text) {
  const { clauses, rest, other } = clausesOf(text);
  if (rest || other || !POEM_CLAUSES.includes(clauses.length)) return null;
  const length = [...clauses[0].text].length;
  if (!CLAUSE_LENGTHS.includes(length)) return null;
  if (!clauses.every((c, i) => [...c.text].length === length && c.close === (i % 2 ? SECOND_CLOSE : FIRST_CLOSE))) return null;
  const lines = clauses.reduce((all, c, i) => (i % 2 ? [...all.slice(0, -1), `${all.at(-1)}${c.text}${c.close}`] : [...all, `${c.text}${c.close}`]), []);
  if (text !== lines.join('\n')) return null;
  return { clauses: clauses.map((c) => c.text), length };
}

/** The rhyme characters of a poem's clauses (strings): the last character of each couplet's second clause. */
export const rhymeCharacters = (clauses) => clauses.filter((_, i) => i % 2 === 1).map((clause) => [...clause].at(-1));

/**
 * How much a poem repeats itself: `repeated`, the share of its characters that occurred before in it (a
 * character used three times counts twice); `rhymeRepeated`, whether a rhyme character occurs twice.
 */
export function poemRepetition(clauses) {
  const characters = clauses.flatMap((clause) => [...clause]);
  const rhymes = rhymeCharacters(clauses);
  return { repeated: 1 - new Set(characters).size / characters.length, rhymeRepeated: new Set(rhymes).size < rhymes.length };
}

/**
 * The repetition of a set of regular poems (arrays of clauses): the mean share of repeated characters a poem
 * and the share of poems with a rhyme character repeated; `poems`, how many.
 */
export function repetitionMeasures(poems) {
  const each = poems.map(poemRepetition);
  const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
  return {
    poems: poems.length,
    repeatedCharacters: mean(each.map((poem) => poem.repeated)),
    rhymeRepeated: mean(each.map((poem) => (poem.rhymeRepeated ? 1 : 0))),
  };
}
