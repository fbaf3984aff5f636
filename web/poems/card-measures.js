// The card's measures of the heads' roles and of the poem writer's repetition, computed from whatever model
// ships: every head's role scores on the held-out poems and on the fresh test set (`headRoles`,
// `headRoles.fresh`), and how much the writer repeats itself beside real verse (`repetition`). The page reads
// them from the card; tests/poems.test.js computes them again and checks the card and the labels. And the three
// guided examples the page starts from (`guided`), for heads named as the page names them.
//
// build/card-measures.js writes them into web/poems/poems.card.json (the rest of the card is build/train.js's,
// which runs it when it ships a model). The fresh test set's poems are committed as web/poems/fresh-test.json, a
// copy of the model's corpus's (build/corpus/fresh-test.json, bodies only), so that they can be measured
// without the corpus.
import { BOUNDARY_ID } from './vocabulary.js';
import { evaluationWindows } from './baselines.js';
import { measureHeadRoles, roleQueries } from './head-roles.js';
import { Continuation, fittingText, REPEAT_PENALTY, WRITER } from './runs.js';
import { regularVerse, repetitionMeasures } from './verse.js';
import { HEAD_ROLES, labelRole } from '../heads/roles.js';

const round = (value) => Math.round(value * 1e4) / 1e4;
const rounded = (object) => Object.fromEntries(Object.entries(object).map(([key, value]) => [key, value === null ? null : round(value)]));

/** Every head's role scores over poems (bodies) read as the card reads them: { chance, rows, heads: [{ layer, head, ...scores }] }. */
export function headRolesOn(poems, bodies) {
  const { model, encode, kinds } = poems;
  const windows = bodies.flatMap((body) => evaluationWindows(Array.from(encode(body)), model.config.context).map(({ input }) => input));
  const roles = measureHeadRoles(model, windows, kinds);
  return { chance: rounded(roles.chance), rows: roles.rows, heads: roles.heads.map(({ layer, head, scores }) => ({ layer, head, ...rounded(scores) })) };
}

/** A poem written by the page's writer (Continuation with `verse`) from an opening clause, as text (opening included). */
export function writePoem(poems, mha, opening, { temperature = WRITER.temperature, seed = WRITER.seed, repetition = true } = {}) {
  const ids = [BOUNDARY_ID, ...poems.encode(`${opening}，`)];
  const continuation = new Continuation(poems, mha, { ids, off: [], temperature, seed, verse: true, repetition });
  while (!continuation.advance(1000));
  return `${opening}，${continuation.added.map((id) => poems.vocabulary[id]).join('')}`;
}

/**
 * The writer's repetition beside real verse's: `realVerse`, the fresh test set's regular poems
 * (verse.js's regularVerse); `ruleOn` and `ruleOff`, WRITER.samples poems written at the page's temperature
 * from WRITER.openings with seeds 1, 2, … in turn, with the repetition rule and without. A sample that is not
 * regular verse counts in `irregular` (the form rules leave none).
 */
export function repetitionOn(poems, mha, freshBodies) {
  const real = freshBodies.map(regularVerse).filter(Boolean).map((verse) => verse.clauses);
  const sampled = (repetition) => {
    const clauses = [];
    let irregular = 0;
    for (let i = 0; i < WRITER.samples; i++) {
      const opening = WRITER.openings[i % WRITER.openings.length];
      const verse = regularVerse(writePoem(poems, mha, opening, { seed: 1 + Math.floor(i / WRITER.openings.length), repetition }));
      if (verse) clauses.push(verse.clauses);
      else irregular++;
    }
    return { ...rounded(repetitionMeasures(clauses)), poems: clauses.length, irregular };
  };
  return {
    penalty: REPEAT_PENALTY, temperature: WRITER.temperature,
    realVerse: { ...rounded(repetitionMeasures(real)), poems: real.length, of: freshBodies.length },
    ruleOn: sampled(true), ruleOff: sampled(false),
  };
}

/** A guided example's position is at least this far into its poem, where there is something to look back at. */
const GUIDED_FROM_ROW = 8;
/** The roles a guided example may show, most telling first. */
export const GUIDED_ROLES = ['parallel', 'previous', 'parity', 'parallelNext2', 'copying', 'lineStart', 'parallelNext', 'back4to5', 'self', 'back2', 'back3', 'punctuation', 'first'];

/**
 * Up to three guided examples for the page: for each of the first roles in GUIDED_ROLES that names a head
 * (labelRole on the fresh test set, as the page names heads), the head that scores highest in it, and the
 * held-out poem and position (as the page shows the poem: its lines that fit what it analyses, after BOUNDARY)
 * where that head puts the most weight where the role says, from GUIDED_FROM_ROW on.
 */
export function guidedExamples(poems, heldOutBodies, fresh) {
  const { model, encode, kinds } = poems;
  const labels = fresh.heads.map((scores) => labelRole(scores, fresh.chance));
  const examples = [];
  for (const role of GUIDED_ROLES) {
    if (examples.length === 3) break;
    const named = fresh.heads.filter((_, index) => labels[index] === role);
    if (!named.length) continue;
    const { layer, head } = named.reduce((a, b) => (b[role] > a[role] ? b : a));
    let best = { weight: -1 };
    heldOutBodies.forEach((body, poem) => {
      const ids = [BOUNDARY_ID, ...encode(fittingText(poems, body))];
      const weights = model.forward(ids).attention(layer, head);
      for (const [row, columns] of roleQueries(ids, kinds)[role]) {
        if (row < GUIDED_FROM_ROW) continue;
        const weight = columns.reduce((sum, column) => sum + weights[row * ids.length + column], 0);
        if (weight > best.weight) best = { role, layer, head, index: layer * model.config.heads + head, poem, position: row, weight: round(weight) };
      }
    });
    examples.push(best);
  }
  return examples;
}

/** The card's head roles (held-out, as build/train.js writes them, with the fresh test set's beside them) and repetition. */
export function cardMeasures(poems, mha, { heldOutBodies, freshBodies }) {
  const heldOut = headRolesOn(poems, heldOutBodies);
  const fresh = headRolesOn(poems, freshBodies);
  const best = Object.fromEntries(HEAD_ROLES.map(({ name }) => {
    const top = heldOut.heads.reduce((a, b) => (b[name] > a[name] ? b : a));
    return [name, { layer: top.layer, head: top.head, score: top[name], chance: heldOut.chance[name] }];
  }));
  return {
    headRoles: {
      definitions: Object.fromEntries(HEAD_ROLES.map(({ name, explains }) => [name, explains])),
      chance: heldOut.chance, rows: heldOut.rows, best, heads: heldOut.heads,
      fresh: { poems: freshBodies.length, ...fresh },
    },
    repetition: repetitionOn(poems, mha, freshBodies),
    guided: guidedExamples(poems, heldOutBodies, fresh),
  };
}
