// Finds the training poems that share a line with a held-out poem. Editions differ: punctuation,
// where a couplet is broken, and a character here or there (全唐诗's variant readings, OpenCC's choice
// between 着 and 著), so lines are compared loosely.

/** Clauses and lines shorter than this are formulae shared by many poems, not evidence of a copy. */
export const MIN_MATCH_LENGTH = 5;

const NOT_HAN = /[^\p{Script=Han}]+/u;

/** The runs of Han characters of a line, between its punctuation marks. */
export function clauses(line) {
  return line.split(NOT_HAN).filter(Boolean);
}

/**
 * The units a poem is compared by: each clause (the Han characters between two punctuation marks) and
 * each whole line with its punctuation removed, when at least MIN_MATCH_LENGTH characters long. Whole
 * lines catch verse of short clauses; clauses catch couplets that another edition breaks differently.
 */
export function matchUnits(text) {
  const units = new Set();
  for (const line of text.split('\n')) {
    const parts = clauses(line);
    for (const unit of [...parts, parts.join('')]) {
      if ([...unit].length >= MIN_MATCH_LENGTH) units.add(unit);
    }
  }
  return [...units];
}

/**
 * The unit and every string one character shorter made by deleting one character. Two units share a
 * key when they are equal or one edit apart: a character changed, added or dropped (or two neighbours
 * swapped). This is the symmetric-deletion trick: it needs no pairwise comparison of 900,000 clauses.
 */
export function deletionKeys(unit) {
  const chars = [...unit];
  const keys = new Set([unit]);
  for (let i = 0; i < chars.length; i++) keys.add(chars.slice(0, i).join('') + chars.slice(i + 1).join(''));
  return keys;
}

/**
 * A matcher for the held-out poems ({ entry, body }). `match(body)` gives the first unit of that body
 * that is at most one edit from a unit of a held-out poem, or that holds one verbatim (a famous line
 * quoted inside a longer one), as { entry, heldOut, training }; null when there is none.
 */
export function createLeakMatcher(heldOutPoems) {
  const byKey = new Map();
  const byUnit = new Map();
  for (const poem of heldOutPoems) {
    for (const unit of matchUnits(poem.body)) {
      if (!byUnit.has(unit)) byUnit.set(unit, { entry: poem.entry, heldOut: unit });
      for (const key of deletionKeys(unit)) {
        if (!byKey.has(key)) byKey.set(key, { entry: poem.entry, heldOut: unit });
      }
    }
  }
  const unitLengths = [...new Set([...byUnit.keys()].map((unit) => [...unit].length))];
  const heldOutInside = (unit) => {
    const chars = [...unit];
    for (const length of unitLengths) {
      for (let start = 0; start + length <= chars.length; start++) {
        const found = byUnit.get(chars.slice(start, start + length).join(''));
        if (found) return found;
      }
    }
    return null;
  };
  return {
    match(body) {
      for (const unit of matchUnits(body)) {
        for (const key of deletionKeys(unit)) {
          const found = byKey.get(key);
          if (found) return { ...found, training: unit };
        }
        const found = heldOutInside(unit);
        if (found) return { ...found, training: unit };
      }
      return null;
    },
  };
}
