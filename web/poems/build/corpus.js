// Builds the model's corpus: 全唐诗 (npm chinese-poetry) in simplified characters as the training text,
// minus every poem that shares a line with a held-out poem of 唐诗三百首 (Debian fortunes-zh), a
// character vocabulary, both as token ids, and a summary the model card and the tests read.
//
//   node web/poems/build/corpus.js [--tang300 FILE] [--out DIR] [--min-count N] [--context N]
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { baselineLosses, DEFAULT_CONTEXT, DEFAULT_ADD_K } from '../baselines.js';
import { clauses, createLeakMatcher, MIN_MATCH_LENGTH } from './leakage.js';
import { heldOutPoems, TANG300_PATH } from './tang300.js';
import { VARIANTS } from './variants.js';
import { buildVocabulary, DEFAULT_MIN_COUNT, encodePoems, encoder, UNKNOWN_ID } from '../vocabulary.js';

const HERE = dirname(fileURLToPath(import.meta.url));
export const BUILD_DIR = join(HERE, 'corpus');
/** The committed copy of the summary: the tests read it where the corpus was never built. */
export const SUMMARY_PATH = join(HERE, 'corpus-summary.json');
export const OPENCC_CONFIG = 't2s.json';
/** One clean poem of 全唐诗 in this many is the fresh test set (1 %). */
export const FRESH_TEST_EVERY = 100;
const QUANTANGSHI_FILE = /^poet\.tang\.(\d+)\.json$/;

/** 全唐诗's poems (traditional characters, as { title, author, paragraphs }) in the package's order. */
export function readQuantangshi() {
  let packageJson;
  try {
    packageJson = createRequire(import.meta.url).resolve('chinese-poetry/package.json');
  } catch {
    throw new Error('the npm package chinese-poetry is missing: npm ci --prefix web/poems/build installs it (the build\'s own install, apart from the project\'s)');
  }
  const folder = join(dirname(packageJson), 'dist', 'quantangshi');
  const files = readdirSync(folder)
    .map((name) => [name, QUANTANGSHI_FILE.exec(name)])
    .filter(([, match]) => match)
    .sort(([, a], [, b]) => Number(a[1]) - Number(b[1]));
  return {
    version: JSON.parse(readFileSync(packageJson, 'utf8')).version,
    poems: files.flatMap(([name]) => JSON.parse(readFileSync(join(folder, name), 'utf8'))),
  };
}

/**
 * Traditional to simplified with Debian's opencc, all lines in one run (a run per poem would take
 * minutes). OpenCC maps line to line, which the count check holds it to.
 */
export function toSimplified(lines) {
  const output = runOpencc(['-c', OPENCC_CONFIG], `${lines.join('\n')}\n`);
  const converted = output.replace(/\n$/, '').split('\n');
  if (converted.length !== lines.length) throw new Error(`opencc gave ${converted.length} lines for ${lines.length}`);
  return converted;
}

function runOpencc(args, input) {
  try {
    return execFileSync('opencc', args, { input, encoding: 'utf8', maxBuffer: 1 << 30 });
  } catch (error) {
    if (error.code === 'ENOENT') throw new Error('opencc is missing: apt-get install opencc');
    throw error;
  }
}

export function openccVersion() {
  const text = runOpencc(['--version']);
  return /Version:\s*(\S+)/.exec(text)?.[1] ?? text.trim();
}

/** The Debian package's version, or null off Debian (the summary then says only what was measured). */
function debianVersion(name) {
  try {
    return execFileSync('dpkg-query', ['-W', '-f', '${Version}', name], { encoding: 'utf8', stdio: 'pipe' });
  } catch {
    return null;
  }
}

/** What may appear in a training poem: Han characters, the newline and the punctuation of the held-out poems. */
const POEM_TEXT = /^[\p{Script=Han}\n，。？！、；：“”‘’《》]*$/u;

/**
 * A 全唐诗 poem's body in the held-out poems' form (one line per paragraph, no title, no author), or
 * null when it is no clean poem. Editors' notes in （…） (variant readings, 一作…) are removed;
 * [字] marks an editor's restored character, which is kept; 「」『』 become “”‘’ as in 唐诗三百首.
 * A poem with anything else left (□ for a lost character, {…} spelling out a rare one, 〖〗 notes,
 * digits) is dropped whole: its text is damaged or not verse.
 */
export function trainingPoemBody(paragraphs) {
  let text = paragraphs.map((line) => line.trim()).filter(Boolean).join('\n');
  for (let before = ''; before !== text;) {
    before = text;
    text = text.replace(/（[^（）]*）/g, '');
  }
  text = text
    .replace(/\[([^[\]]*)\]/g, '$1')
    .replace(/「/g, '“').replace(/」/g, '”').replace(/『/g, '‘').replace(/』/g, '’')
    .split('\n').map((line) => line.trim()).filter(Boolean).join('\n');
  return text && POEM_TEXT.test(text) ? text : null;
}

/** A line with no Han character: 全唐诗's paragraphs sometimes end a poem with a lone 。 (or ”。) of its own. */
const BARE_LINE = /^[^\p{Script=Han}]*$/u;
/** What the source prints for a poem it does not have: a poem of this one line. */
export const PLACEHOLDER_LINE = '空。';

/**
 * The verse of a clean poem body without what is not verse: lines of bare punctuation and 空。 placeholders
 * dropped, variant characters (variants.js) written in their standard form. { body (null when nothing is left),
 * changes: { bareLines, placeholderLines, variants: { character: occurrences } } }.
 */
export function cleanVerse(body, variants = VARIANTS) {
  const changes = { bareLines: 0, placeholderLines: 0, variants: {} };
  const lines = body.split('\n').filter((line) => {
    if (BARE_LINE.test(line)) changes.bareLines++;
    else if (line === PLACEHOLDER_LINE) changes.placeholderLines++;
    else return true;
    return false;
  });
  const text = [...lines.join('\n')].map((character) => {
    const standard = Object.hasOwn(variants, character) ? variants[character] : null;
    if (!standard) return character;
    changes.variants[character] = (changes.variants[character] ?? 0) + 1;
    return standard;
  }).join('');
  return { body: text || null, changes };
}

/** Cleans a set of poems ({ body, … }): the ones left, and the sum of the changes with the poems left empty. */
function cleanSet(poems, variants) {
  const tally = { bareLines: 0, placeholderLines: 0, poemsLeftEmpty: 0, variantCharacters: 0, variants: {} };
  const left = [];
  for (const poem of poems) {
    const { body, changes } = cleanVerse(poem.body, variants);
    tally.bareLines += changes.bareLines;
    tally.placeholderLines += changes.placeholderLines;
    for (const [character, n] of Object.entries(changes.variants)) {
      tally.variants[character] = (tally.variants[character] ?? 0) + n;
      tally.variantCharacters += n;
    }
    if (body === null) tally.poemsLeftEmpty++;
    else left.push({ ...poem, body });
  }
  tally.variants = Object.fromEntries(Object.entries(tally.variants).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1)));
  return { left, tally };
}

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/**
 * What of the held-out poems occurs verbatim in a text: whole lines (the no-leakage promise) and clauses
 * of at least MIN_MATCH_LENGTH characters (a stricter check the leak removal also passes). Both must be empty.
 */
export function heldOutTextIn(text, heldOut) {
  const lines = heldOut.flatMap((poem) => poem.body.split('\n').filter((line) => line && text.includes(line)));
  const phrases = heldOut.flatMap((poem) => clauses(poem.body)
    .filter((clause) => [...clause].length >= MIN_MATCH_LENGTH && text.includes(clause)));
  return { lines, clauses: phrases };
}

/**
 * Everything the corpus is, from the held-out poems ({ entry, title, author, body }) and the training
 * poems already in simplified characters ([paragraph…]). `sources` goes into the summary as it is; each
 * leak match names the training poem by its index in trainingPoems (全唐诗's file order).
 */
export function prepareCorpus({ heldOut, trainingPoems, minCount = DEFAULT_MIN_COUNT, context = DEFAULT_CONTEXT, sources = {}, variants = VARIANTS }) {
  const matcher = createLeakMatcher(heldOut);
  const clean = [];
  const leaks = [];
  let unclean = 0;
  trainingPoems.forEach((paragraphs, index) => {
    const body = trainingPoemBody(paragraphs);
    if (body === null) {
      unclean++;
      return;
    }
    const leak = matcher.match(body);
    if (leak) leaks.push({ poemIndex: index, ...leak });
    else clean.push({ poemIndex: index, body });
  });
  // The fresh test set: one clean poem in FRESH_TEST_EVERY, never trained on, and every other poem that
  // shares a clause or a line with one of them (the same leak rule) left out of training too. Chosen, and
  // matched, before the verse is cleaned (cleanVerse), so it is the same poems as before the cleaning.
  const fresh = clean.filter((_, i) => i % FRESH_TEST_EVERY === FRESH_TEST_EVERY / 2);
  const freshMatcher = createLeakMatcher(fresh.map(({ poemIndex, body }) => ({ entry: poemIndex, body })));
  const freshIndices = new Set(fresh.map((poem) => poem.poemIndex));
  const freshLeaks = [];
  const uncleanedTraining = [];
  for (const { poemIndex, body } of clean) {
    if (freshIndices.has(poemIndex)) continue;
    const leak = freshMatcher.match(body);
    if (leak) freshLeaks.push({ poemIndex, freshPoemIndex: leak.entry });
    else uncleanedTraining.push({ poemIndex, body });
  }
  // The training text and the fresh test set are cleaned alike: both are 全唐诗 through the same steps, and a
  // model should be judged on verse, not on the source's stray 。 lines or on a spelling its vocabulary no longer
  // has. 唐诗三百首's text is never rewritten (what the rules would change in it is counted: nothing).
  const training = cleanSet(uncleanedTraining, variants);
  const freshCleaned = cleanSet(fresh, variants);
  const heldOutCleaning = cleanSet(heldOut, variants).tally;
  const bodies = training.left.map((poem) => poem.body);
  const freshTest = freshCleaned.left;
  const trainingText = bodies.join('\n\n');
  const leaked = heldOutTextIn(trainingText, heldOut);
  const left = [...leaked.lines, ...leaked.clauses];
  if (left.length) throw new Error(`held-out text left in the training text: ${left.join(' / ')}`);

  const vocabulary = buildVocabulary(bodies, { minCount });
  const stream = encodePoems(bodies, vocabulary);
  const encode = encoder(vocabulary);
  const heldOutIds = heldOut.map((poem) => encode(poem.body));
  const freshIds = freshTest.map((poem) => encode(poem.body));
  const baselines = baselineLosses(stream, vocabulary.length, heldOutIds, { context });
  const caught = new Set(leaks.map((leak) => leak.entry));
  const count = (texts) => texts.reduce((sum, text) => sum + [...text].length, 0);

  const summary = {
    sources,
    training: {
      poemsRead: trainingPoems.length,
      poemsDropped: unclean,
      poemsRemovedForLeakage: leaks.length,
      poems: bodies.length,
      characters: count(bodies),
      tokens: stream.length,
      unknownTokens: stream.filter((id) => id === UNKNOWN_ID).length,
      textSha256: sha256(trainingText),
      streamSha256: sha256(new Uint8Array(stream.buffer)),
    },
    heldOut: {
      poems: heldOut.length,
      entries: heldOut.map((poem) => poem.entry),
      characters: baselines.targets,
      unknownTokens: heldOutIds.flat().filter((id) => id === UNKNOWN_ID).length,
      linesInTrainingText: leaked.lines.length,
      clausesInTrainingText: leaked.clauses.length,
    },
    freshTest: {
      rule: `every ${FRESH_TEST_EVERY}th clean poem of 全唐诗 (in the package's order, counting from the ${FRESH_TEST_EVERY / 2}th), held out by poem; training poems that share a clause or a line with one of them by the leak rule below are left out too`,
      poems: freshTest.length,
      characters: count(freshTest.map((poem) => poem.body)),
      unknownTokens: freshIds.flat().filter((id) => id === UNKNOWN_ID).length,
      poemsRemovedForLeakage: freshLeaks.length,
    },
    leakage: {
      rule: `a clause or a whole line of at least ${MIN_MATCH_LENGTH} Han characters, punctuation removed, at most one edit (a character changed, added or dropped) from one of a held-out poem, or holding one verbatim`,
      heldOutPoemsCaught: caught.size,
      heldOutEntriesNotCaught: heldOut.map((poem) => poem.entry).filter((entry) => !caught.has(entry)),
      matches: leaks,
    },
    cleaning: {
      rule: 'lines of bare punctuation (a lone 。) and 空。 placeholder lines dropped, a poem left empty dropped; variant characters written in their standard form (web/poems/build/variants.js: outside GB2312, a Unihan semantic or Z variant that OpenCC t2s turns into a GB2312 character the text uses); the fresh test set cleaned as the training text, 唐诗三百首 never rewritten',
      variantTable: Object.keys(variants).length,
      training: training.tally,
      freshTest: freshCleaned.tally,
      heldOutWouldChange: { bareLines: heldOutCleaning.bareLines, placeholderLines: heldOutCleaning.placeholderLines, variantCharacters: heldOutCleaning.variantCharacters },
    },
    vocabulary: { size: vocabulary.length, minCount, specialTokens: vocabulary.slice(0, 2) },
    baselines: {
      context,
      unigram: { lossNats: round(baselines.unigram), smoothing: `add-${DEFAULT_ADD_K}` },
      bigram: { lossNats: round(baselines.bigram), smoothing: 'Witten–Bell interpolation with the unigram' },
    },
  };
  return {
    summary, vocabulary, stream, trainingText,
    heldOut: heldOut.map((poem, i) => ({ ...poem, ids: heldOutIds[i] })),
    freshTest: freshTest.map((poem, i) => ({ ...poem, ids: freshIds[i] })),
  };
}

const round = (x) => Math.round(x * 1e4) / 1e4;

/**
 * Writes the corpus into outDir: train.bin (the token stream, Uint16 little-endian), train.txt (the
 * same text in UTF-8, poems separated by an empty line), heldout.json, fresh-test.json (the fresh test set with
 * its ids), vocabulary.json, summary.json.
 * Nothing in them depends on the time or the machine, so the same inputs give the same bytes.
 */
export function writeCorpus(corpus, outDir) {
  mkdirSync(outDir, { recursive: true });
  const bytes = new Uint8Array(corpus.stream.length * 2);
  const view = new DataView(bytes.buffer);
  corpus.stream.forEach((id, i) => view.setUint16(i * 2, id, true));
  writeFileSync(join(outDir, 'train.bin'), bytes);
  writeFileSync(join(outDir, 'train.txt'), `${corpus.trainingText}\n`);
  writeFileSync(join(outDir, 'heldout.json'), `${JSON.stringify(corpus.heldOut, null, 1)}\n`);
  writeFileSync(join(outDir, 'fresh-test.json'), `${JSON.stringify(corpus.freshTest)}\n`);
  writeFileSync(join(outDir, 'vocabulary.json'), `${JSON.stringify(corpus.vocabulary)}\n`);
  writeFileSync(join(outDir, 'summary.json'), `${JSON.stringify(corpus.summary, null, 2)}\n`);
}

/**
 * A build script's options (node:util parseArgs `options`): { values, positive(name) (a whole number ≥ 1),
 * usageError(message) }. A wrong option stops the script with one line naming it, not a stack trace.
 */
export function scriptOptions(script, options) {
  const usageError = (message) => {
    console.error(`web/poems/build/${script}: ${message}`);
    process.exit(2);
  };
  let values;
  try {
    ({ values } = parseArgs({ options }));
  } catch (error) {
    usageError(error.message);
  }
  const positive = (name) => {
    const value = Number(values[name]);
    if (!Number.isInteger(value) || value < 1) usageError(`--${name} must be a positive whole number, got ${values[name]}`);
    return value;
  };
  return { values, positive, usageError };
}

function main() {
  const { values, positive } = scriptOptions('corpus.js', {
    tang300: { type: 'string', default: TANG300_PATH },
    out: { type: 'string', default: BUILD_DIR },
    'min-count': { type: 'string', default: String(DEFAULT_MIN_COUNT) },
    context: { type: 'string', default: String(DEFAULT_CONTEXT) },
  });
  const minCount = positive('min-count');
  const context = positive('context');
  const tang300 = readFileSync(values.tang300);
  const quantangshi = readQuantangshi();
  const paragraphs = quantangshi.poems.map((poem) => poem.paragraphs);
  const simplified = toSimplified(paragraphs.flat());
  let next = 0;
  const trainingPoems = paragraphs.map((poem) => simplified.slice(next, (next += poem.length)));
  const corpus = prepareCorpus({
    heldOut: heldOutPoems(tang300.toString('utf8')),
    trainingPoems,
    minCount,
    context,
    sources: {
      heldOut: values.tang300 === TANG300_PATH
        ? { debianPackage: 'fortunes-zh', version: debianVersion('fortunes-zh'), file: 'tang300', sha256: sha256(tang300) }
        : { file: basename(values.tang300), sha256: sha256(tang300) },
      training: { npmPackage: 'chinese-poetry', version: quantangshi.version, files: 'dist/quantangshi/poet.tang.*.json', license: 'MIT' },
      conversion: { tool: 'opencc', version: openccVersion(), debianVersion: debianVersion('opencc'), config: OPENCC_CONFIG },
    },
  });
  writeCorpus(corpus, values.out);
  writeFileSync(SUMMARY_PATH, `${JSON.stringify(corpus.summary, null, 2)}\n`);
  const { training, heldOut, leakage, vocabulary, baselines } = corpus.summary;
  console.log(`corpus: ${training.poems} training poems, ${training.characters} characters; ` +
    `${leakage.matches.length} removed for leakage (${leakage.heldOutPoemsCaught} of ${heldOut.poems} held-out poems caught); ` +
    `vocabulary ${vocabulary.size}; held-out ${heldOut.characters} characters; ` +
    `fresh test ${corpus.summary.freshTest.poems} poems, ${corpus.summary.freshTest.characters} characters ` +
    `(${corpus.summary.freshTest.poemsRemovedForLeakage} more removed from training): ` +
    `unigram ${baselines.unigram.lossNats}, bigram ${baselines.bigram.lossNats} nats/char`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    main();
  } catch (error) {
    console.error(`web/poems/build/corpus.js: ${error.message}`);
    process.exitCode = 1;
  }
}
