// The lesson's poetry model as shipped (web/poems/poems.safetensors + poems.card.json, made by
// web/poems/build/train.js): its card's numbers measured again in wasm, its tokenizer and loadPoemModel's errors.
// The short training run, built with gcc and repeated against its recorded loss curve, is poems-training.slow.test.js.
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { loadAttention } from '../web/src/attention.js';
import { evaluationWindows } from '../web/poems/baselines.js';
import { heldOutLoss } from '../web/poems/evaluate.js';
import { measureHeadRoles, roleQueries, tokenKinds } from '../web/poems/head-roles.js';
import { HEAD_ROLES, labelRole } from '../web/heads/roles.js';
import { heldOutPoems, TANG300_PATH } from '../web/poems/build/tang300.js';
import { MODEL_PATH, SAMPLE_OPENINGS } from '../web/poems/build/train.js';
import { BUILD_DIR } from '../web/poems/build/corpus.js';
import { clauseLengthModel, countingLosses, kneserNey3 } from '../web/poems/build/kneser-ney.js';
import { Continuation, fittingText, WRITER } from '../web/poems/runs.js';
import { GUIDED_ROLES, writePoem } from '../web/poems/card-measures.js';
import { clausesOf, regularVerse, repetitionMeasures, rhymeCharacters, POEM_CLAUSES } from '../web/poems/verse.js';
import { headSteps, heaviestKey } from '../web/heads/head-figures.js';
import { EXPLAIN_WORDS } from '../web/shared/figure-labels.js';
import { UNKNOWN_ID } from '../web/poems/vocabulary.js';
import { gpt2File, randomWeights } from './gpt-reference.js';
import { seededRandom } from './seeded.js';

const mha = await loadAttention();
const poems = await mha.loadPoemModel();
const { model, encode, decode, card } = poems;
const heldOutIds = card.heldOut.poems.map((poem) => Array.from(encode(poem.body)));
const vocabulary = JSON.parse(model.metadata.vocabulary);
const writer = { ...poems, vocabulary, kinds: tokenKinds(vocabulary) };
const freshBodies = JSON.parse(readFileSync(new URL('../web/poems/fresh-test.json', import.meta.url), 'utf8')).map((poem) => poem.body);

test('the shipped file: at most 4 MB, the card’s sizes and hash, at least 2 layers', () => {
  const bytes = readFileSync(MODEL_PATH);
  assert.ok(bytes.length <= 4 * 2 ** 20, `${bytes.length} bytes`);
  assert.equal(card.model.bytes, bytes.length);
  assert.equal(card.model.sha256, createHash('sha256').update(bytes).digest('hex'));
  const { layers, heads, dModel, context, vocabSize } = model.config;
  assert.deepEqual({ layers, heads, dModel, context, vocabSize },
    { layers: card.model.layers, heads: card.model.heads, dModel: card.model.dModel, context: card.model.context, vocabSize: card.model.vocabSize });
  assert.ok(layers >= 2);
  assert.equal(vocabulary.length, vocabSize);
});

test('the card’s held-out poems are entries 10, 20, … of tang300', { skip: !existsSync(TANG300_PATH) && 'fortunes-zh is not installed' }, () => {
  const want = heldOutPoems(readFileSync(TANG300_PATH, 'utf8'));
  assert.deepEqual(card.heldOut.poems, want.map(({ entry, title, author, body }) => ({ entry, title, author, body })));
});

test('held-out loss measured again in wasm: within 1 % of the card, and it beats counting', () => {
  const { loss, targets } = heldOutLoss(model, heldOutIds);
  assert.equal(targets, card.heldOut.targets);
  assert.ok(Math.abs(loss - card.heldOutLoss) <= 0.01 * card.heldOutLoss, `measured ${loss}, card ${card.heldOutLoss}`);
  assert.ok(card.baselines.kn3 < card.baselines.bigram && card.baselines.bigram < card.baselines.unigram);
  // The targets: at most 0.92 × a Kneser-Ney 3-gram of the same training text on the same targets, and below the
  // 3-gram told the clause length, on 唐诗三百首's held-out poems and on the fresh test set of 全唐诗.
  for (const [name, set] of [['唐诗三百首', card.tang300], ['the fresh test set', card.freshTest]]) {
    assert.ok(set.ratio.modelToKn3.value <= 0.92, `${name}: ${set.loss.model.mean} is ${set.ratio.modelToKn3.value} × the 3-gram's ${set.loss.kn3.mean}`);
    assert.ok(set.loss.model.mean < set.loss.kn3ClauseLength.mean, `${name}: ${set.loss.model.mean} vs ${set.loss.kn3ClauseLength.mean}`);
    assert.ok(set.ratio.modelToKn3.interval95[1] < 1, `${name}: the interval ${set.ratio.modelToKn3.interval95} stays below 1`);
  }
  assert.equal(card.heldOutLoss, card.tang300.loss.model.mean);
});

// #36's targets: a model trained on to a context of 128 (build/train.js LONGER_RUN) reached them where the
// 64-character one (4.207 and 4.267) did not. The fresh test set's loss is measured again in
// tests/poems-writer.slow.test.js (35,537 targets take seconds).
test('the held-out loss is at most 4.2 nats on 唐诗三百首 and 4.25 on the fresh test set', () => {
  const { loss } = heldOutLoss(model, heldOutIds);
  assert.ok(Math.abs(loss - card.heldOutLoss) < 1e-4, `measured ${loss}, card ${card.heldOutLoss}`);
  assert.ok(loss <= 4.2, `唐诗三百首: ${loss}`);
  assert.ok(card.freshTest.loss.model.mean <= 4.25, `the fresh test set: ${card.freshTest.loss.model.mean}`);
});

const corpusDir = join(BUILD_DIR, 'train.bin');
// The built corpus may be a later one than the shipped model's (the cleaned verse of #36, built before its model ships).
const builtStream = existsSync(corpusDir) ? createHash('sha256').update(readFileSync(corpusDir)).digest('hex') : null;
const cardCorpusSkip = !builtStream ? 'corpus not built (npm run corpus)'
  : builtStream !== card.corpus.version.streamSha256 && 'the built corpus is not the shipped model\'s (another stream hash)';
test('the card\'s counting baselines computed again from the built corpus', { skip: cardCorpusSkip }, () => {
  const bytes = readFileSync(corpusDir);
  const stream = new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.length / 2);
  const kinds = tokenKinds(vocabulary);
  const isSeparator = (id) => kinds.separator[id] === 1;
  const counting = { kn: kneserNey3(stream, vocabulary.length), separatorShare: clauseLengthModel(stream, isSeparator),
    separatorIds: vocabulary.flatMap((_, id) => (isSeparator(id) ? [id] : [])), isSeparator };
  const windows = heldOutIds.flatMap((ids) => evaluationWindows(ids, model.config.context));
  const { kn3, withLength } = countingLosses(windows, counting);
  const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
  assert.ok(Math.abs(mean(kn3) - card.baselines.kn3) < 1e-4, `${mean(kn3)} vs the card's ${card.baselines.kn3}`);
  assert.ok(Math.abs(mean(withLength) - card.baselines.kn3ClauseLength) < 1e-4, `${mean(withLength)} vs ${card.baselines.kn3ClauseLength}`);
});

test('greedy continuations of famous openings keep the clause length, alternate ，and 。 for two couplets, and write no unknown character', () => {
  const clause = (opening) => [...opening].length - 1;
  for (const opening of SAMPLE_OPENINGS) {
    const continuation = new Continuation({ model, vocabulary, kinds: tokenKinds(vocabulary) }, mha, { ids: [0, ...encode(opening)], off: [], count: 24, temperature: 0 });
    while (!continuation.advance(1000));
    const text = continuation.added.map((id) => vocabulary[id]).join('');
    assert.ok(!continuation.added.includes(UNKNOWN_ID), `${opening}${text}`);
    assert.equal(card.samples.find((sample) => sample.opening === opening)?.greedy, text, 'the card\'s sample');
    // opening = one clause and its ，; then: clause 。 (line break?) clause ， clause 。 — two couplets.
    const clauses = `${opening}${text}`.split('\n').join('').match(/[^，。！？；、]+[，。！？；、]/g) ?? [];
    assert.ok(clauses.length >= 4, `${opening}${text}: ${clauses.length} clauses`);
    clauses.slice(0, 4).forEach((c, i) => {
      assert.equal([...c].length - 1, clause(opening), `${opening}${text}: clause ${i + 1} 「${c}」`);
      assert.equal(c.at(-1), i % 2 ? '。' : '，', `${opening}${text}: clause ${i + 1} ends 「${c.at(-1)}」`);
    });
  }
});

test('head roles measured again match the card; a previous-character head ≥ 0.8, 对仗 heads well above chance', () => {
  const windows = heldOutIds.flatMap((ids) => evaluationWindows(ids, model.config.context).map(({ input }) => input));
  const roles = measureHeadRoles(model, windows, tokenKinds(vocabulary));
  for (const { layer, head, scores } of roles.heads) {
    const recorded = card.headRoles.heads.find((h) => h.layer === layer && h.head === head);
    for (const { name } of HEAD_ROLES) {
      assert.ok(Math.abs(scores[name] - recorded[name]) < 1e-4, `layer ${layer} head ${head} ${name}: ${scores[name]} vs ${recorded[name]}`);
    }
  }
  for (const { name } of HEAD_ROLES) assert.ok(Math.abs(roles.chance[name] - card.headRoles.chance[name]) < 1e-4, name);
  const best = (name) => Math.max(...roles.heads.map((h) => h.scores[name]));
  assert.ok(best('previous') >= 0.8, `best previous-character score ${best('previous')}`);
  // 对仗: a head reading the first clause's counterpart (same place, next or two ahead) well above chance.
  const couplet = ['parallel', 'parallelNext', 'parallelNext2'].map((name) => best(name) / roles.chance[name]);
  assert.ok(Math.max(...couplet) >= 3, `best 对仗 scores over chance ${couplet}`);
});

test('the guided examples: heads the page names for their role, each at the held-out place it puts the most weight on', () => {
  const { fresh } = card.headRoles;
  const labels = fresh.heads.map((scores) => labelRole(scores, fresh.chance));
  const kinds = tokenKinds(vocabulary);
  // The first three roles (in GUIDED_ROLES' order) that name a head, none left out.
  const named = GUIDED_ROLES.filter((role) => labels.includes(role)).slice(0, 3);
  assert.deepEqual(card.guided.map(({ role }) => role), named);
  for (const { role, layer, head, index, poem, position, weight } of card.guided) {
    assert.equal(index, layer * model.config.heads + head);
    assert.equal(labels[index], role, `layer ${layer} head ${head}`);
    const rivals = fresh.heads.filter((_, i) => labels[i] === role).map((scores) => scores[role]);
    assert.equal(fresh.heads[index][role], Math.max(...rivals), 'the strongest head of its role');
    const ids = [0, ...encode(fittingText(writer, card.heldOut.poems[poem].body))];
    const weights = model.forward(ids).attention(layer, head);
    const [, columns] = roleQueries(ids, kinds)[role].find(([row]) => row === position);
    const measured = columns.reduce((sum, column) => sum + weights[position * ids.length + column], 0);
    assert.ok(Math.abs(measured - weight) < 1e-4, `${role}: ${measured} vs the card's ${weight}`);
    assert.ok(weight >= 0.5, `${role}: a guided example shows its role plainly (${weight})`);
  }
});

test('head roles look where their definitions say, on a couplet', () => {
  const kinds = tokenKinds(vocabulary);
  const ids = Array.from(encode('白日依山尽，黄河入海流。\n'));
  const queries = roleQueries([0, ...ids], kinds);
  // 黄 (row 7) is the first character of the second clause: 白 (row 1) is its place in the first.
  assert.deepEqual(queries.parallel.find(([row]) => row === 7), [7, [1]]);
  assert.deepEqual(queries.parallelNext.find(([row]) => row === 7), [7, [2]]); // 河 is next: 日 is its place
  assert.deepEqual(queries.parallelNext.find(([row]) => row === 11), [11, [6]]); // 流 is last: next is ，'s place
  assert.deepEqual(queries.previous[0], [1, [0]]);
  assert.deepEqual(queries.self[0], [1, [1]]);
  assert.deepEqual([queries.back2[0], queries.back3[0]], [[2, [0]], [3, [0]]]);
  assert.deepEqual(queries.lineStart.slice(0, 2), [[2, [1]], [3, [1]]]); // 白 opens the line
  assert.deepEqual(queries.punctuation.find(([row]) => row === 7), [7, [6]]);
  // Across couplets (a 。 and a line break between the clauses) there is no 对仗 row; a new line starts at 黄.
  const twoLines = roleQueries([0, ...encode('白日依山尽。\n黄河入海流。')], kinds);
  assert.deepEqual([twoLines.parallel, twoLines.parallelNext], [[], []]);
  assert.deepEqual(twoLines.lineStart.find(([row]) => row === 9), [9, [8]]);
  const repeated = roleQueries(Array.from(encode('明月明月')), kinds);
  assert.deepEqual(repeated.copying, [[2, [1]], [3, [2]]]); // each 明/月 looks at what followed it before
});

test('encode and decode: a held-out poem round-trips; characters outside the vocabulary become the unknown token', () => {
  const { body } = card.heldOut.poems[0];
  const ids = encode(body);
  assert.ok(ids instanceof Int32Array);
  assert.equal(ids.length, [...body].length);
  assert.equal(decode(ids), body.replace(/./gsu, (char) => (vocabulary.includes(char) ? char : vocabulary[UNKNOWN_ID])));
  assert.deepEqual(Array.from(encode('𪚥月')), [UNKNOWN_ID, vocabulary.indexOf('月')]);
  assert.equal(decode(encode('床前明月光')), '床前明月光');
});

test('decode: an id that is no whole number in the vocabulary is refused, never read off the array', () => {
  for (const ids of [['constructor', 'length'], [0.5], ['1'], [NaN]]) {
    assert.throws(() => decode(ids), (error) => error.code === 'BAD_ARGUMENT' && /whole number/.test(error.message), String(ids));
  }
  for (const ids of [[-1], [1e9], [vocabulary.length]]) {
    assert.throws(() => decode(ids), (error) => error.code === 'TOKEN_RANGE' && error.message.includes(`0 to ${vocabulary.length - 1}`), String(ids));
  }
  assert.throws(() => decode({ length: 2 ** 40 }), (error) => error.code === 'BAD_LENGTH');
  assert.throws(() => decode(7), (error) => error.code === 'BAD_ARGUMENT');
  assert.equal(decode([]), '');
  assert.equal(decode(encode('明月')), '明月'); // still working after the refusals
});

test('loadPoemModel: LOAD_FAILED for a file that is not there, BAD_MODEL for a broken one or one without a vocabulary', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'poems-errors-'));
  try {
    const missing = new URL(`file://${join(dir, 'none.safetensors')}`);
    await assert.rejects(mha.loadPoemModel({ model: missing }), (error) => error.code === 'LOAD_FAILED' && /none\.safetensors/.test(error.message));
    await assert.rejects(mha.loadPoemModel({ card: missing }), (error) => error.code === 'LOAD_FAILED');
    const truncated = join(dir, 'truncated.safetensors');
    writeFileSync(truncated, readFileSync(MODEL_PATH).subarray(0, statSync(MODEL_PATH).size - 100));
    await assert.rejects(mha.loadPoemModel({ model: new URL(`file://${truncated}`) }), (error) => error.code === 'BAD_MODEL');
    const config = { layers: 1, heads: 2, dModel: 8, context: 4, vocab: 5 };
    const noVocabulary = join(dir, 'no-vocabulary.safetensors');
    writeFileSync(noVocabulary, gpt2File(config, randomWeights(config, seededRandom(3))));
    await assert.rejects(mha.loadPoemModel({ model: new URL(`file://${noVocabulary}`) }), (error) => error.code === 'BAD_MODEL' && /vocabulary/.test(error.message));
    // unknown_id is a plain decimal in range: not " 4 ", "1e0", "0x1" or 5 of a vocabulary of 5.
    const withUnknownId = (unknownId) => {
      const file = join(dir, 'unknown-id.safetensors');
      const metadata = { n_head: '2', vocabulary: JSON.stringify(['a', 'b', 'c', 'd', 'e']), unknown_id: unknownId };
      writeFileSync(file, gpt2File(config, randomWeights(config, seededRandom(3)), { metadata }));
      return mha.loadPoemModel({ model: new URL(`file://${file}`) });
    };
    for (const unknownId of [' 4 ', '1e0', '0x1', '01', '5', '-0', '']) {
      await assert.rejects(withUnknownId(unknownId), (error) => error.code === 'BAD_MODEL' && /unknown_id/.test(error.message), JSON.stringify(unknownId));
    }
    const small = await withUnknownId('4');
    assert.equal(small.decode(small.encode('abz')), 'abe');
    small.model.dispose();
    await assert.rejects(mha.loadPoemModel({ modle: 'x' }), (error) => error.code === 'BAD_ARGUMENT');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Every virtual element under `nodes` (vdoc's records) whose attribute `name` is `value`. */
function findAll(nodes, name, value, found = []) {
  for (const node of [].concat(nodes)) {
    if (!node?.attrs) continue;
    if (node.attrs[name] === value) found.push(node);
    findAll(node.children, name, value, found);
  }
  return found;
}

test('the four steps on a real head: the core’s q and k, q·k, ÷√d_k and the softmax give the core’s weight; the weights times the core’s v give the head’s output', () => {
  const ids = [0, ...encode('床前明月光，疑是地上霜。')];
  const L = ids.length;
  const { heads, dModel } = model.config;
  const dK = dModel / heads;
  model.forward(ids);
  const words = {
    stepsTitle: () => '', stepsNote: () => '', qkCaption: () => 'qk', stepScore: '', stepScale: () => '', stepSoftmax: () => '', stepCore: () => '',
    stepWeighted: () => '', sumRest: (n) => `rest ${n}`, sumOutput: () => 'out', sumCaption: () => 'sum',
  };
  const labels = ids.map(String);
  for (const [index, row] of [[0, 5], [heads + 3, L - 1], [2 * heads + 7, 3]]) {
    const layer = Math.floor(index / heads);
    const head = index % heads;
    const qkv = model.qkv(layer).slice();
    const weights = model.attention(layer, head).slice();
    const key = heaviestKey(weights, L, row);
    assert.ok(weights[row * L + key] === Math.max(...weights.subarray(row * L, row * L + row + 1)), 'the heaviest key starts the steps');
    for (const shownKey of [key, 0, row]) {
      const nodes = headSteps(words, EXPLAIN_WORDS.en, { prefix: 'p', index, heads, dModel, labels, row, key: shownKey, qkv, weights });
      // Written out here: the head's slices of q and k, and the scaled dot product.
      const q = qkv.subarray(row * 3 * dModel + head * dK, row * 3 * dModel + (head + 1) * dK);
      const k = qkv.subarray(shownKey * 3 * dModel + dModel + head * dK, shownKey * 3 * dModel + dModel + (head + 1) * dK);
      const cellsOf = (id) => findAll(findAll(nodes, 'id', id), 'class', 'cell').map((cell) => Number(cell.attrs['data-value']));
      assert.deepEqual(cellsOf('p-qk'), [...q, ...k], 'the figure shows the core’s q then k');
      const dot = q.reduce((sum, x, e) => sum + x * k[e], 0);
      const [scoreStep] = findAll(nodes, 'data-step', 'score');
      assert.ok(Math.abs(Number(scoreStep.attrs['data-value']) - dot) < 1e-9, 'the score is q·k');
      const [scaleStep] = findAll(nodes, 'data-step', 'scale');
      assert.ok(Math.abs(Number(scaleStep.attrs['data-value']) - dot / Math.sqrt(dK)) < 1e-9, 'scaled, it is q·k/√d_k');
      // The fourth step: the row's weights times the core's v, added up, as the figure's last row and one dimension's sum.
      const v = (p) => qkv.subarray(p * 3 * dModel + 2 * dModel + head * dK, p * 3 * dModel + 2 * dModel + (head + 1) * dK);
      const output = Array.from({ length: dK }, (_, e) => Array.from({ length: row + 1 }, (_, p) => weights[row * L + p] * v(p)[e]).reduce((a, b) => a + b));
      const sumCells = cellsOf('p-sum');
      sumCells.slice(-dK).forEach((value, e) => assert.ok(Math.abs(value - output[e]) < 1e-9, `output dimension ${e}: ${value} against ${output[e]}`));
      const [weightedStep] = findAll(nodes, 'data-step', 'weighted');
      const dim = Number(weightedStep.attrs['data-dim']);
      assert.ok(Math.abs(Number(weightedStep.attrs['data-value']) - output[dim]) < 1e-9);
      assert.equal(Math.abs(output[dim]), Math.max(...output.map(Math.abs)), 'the dimension written out is the largest');
      const sumLine = weightedStep.children.find((child) => child?.attrs?.class === 'step-sum').children[0].data;
      assert.doesNotMatch(sumLine, /\+ −/);
      // Each row of the figure but the last is a part of the sum: the columns add up to the output.
      const rowsShown = sumCells.length / dK - 1;
      for (let e = 0; e < dK; e++) {
        const column = Array.from({ length: rowsShown }, (_, r) => sumCells[r * dK + e]).reduce((a, b) => a + b);
        assert.ok(Math.abs(column - output[e]) < 1e-6, `column ${e} adds up`);
      }
      const [softmaxStep] = findAll(nodes, 'data-step', 'softmax');
      assert.ok(Math.abs(Number(softmaxStep.attrs['data-value']) - weights[row * L + shownKey]) < 1e-5, 'the softmax gives the core’s weight');
      const [coreStep] = findAll(nodes, 'data-step', 'core');
      assert.equal(coreStep.attrs['data-agrees'], 'true');
      assert.equal(Number(coreStep.attrs['data-value']), weights[row * L + shownKey]);
    }
  }
});

test('README’s poetry-model table gives the card’s numbers', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const table = readme.slice(readme.indexOf('### The poetry model'));
  const row = (name) => table.split('\n').find((line) => line.startsWith(`| ${name} |`));
  const { tang300, freshTest } = card;
  const cells = {
    'Kneser-Ney 3-gram': [tang300.loss.kn3.mean, freshTest.loss.kn3.mean],
    'the 3-gram told the clause length': [tang300.loss.kn3ClauseLength.mean, freshTest.loss.kn3ClauseLength.mean],
    '**the model**': [tang300.loss.model.mean, freshTest.loss.model.mean, tang300.ratio.modelToKn3.value, freshTest.ratio.modelToKn3.value],
  };
  // The card keeps four places: one that ends in 5 (4.1525, of 4.15252) is written either way to three.
  const written = (number) => [Math.floor(number * 1000 + 1e-6), Math.ceil(number * 1000 - 1e-6)]
    .filter((thousandths) => Math.abs(thousandths / 1000 - number) <= 0.0005 + 1e-9).map((thousandths) => (thousandths / 1000).toFixed(3));
  for (const [name, numbers] of Object.entries(cells)) {
    assert.ok(row(name), `README has a row “${name}”`);
    for (const number of numbers) assert.ok(written(number).some((text) => row(name).includes(text)), `${name}: ${written(number)} in “${row(name)}”`);
  }
});

test('regular verse and its repetition measures, on poems worked by hand', () => {
  assert.deepEqual(regularVerse('白日依山尽，黄河入海流。\n欲穷千里目，更上一层楼。'), { clauses: ['白日依山尽', '黄河入海流', '欲穷千里目', '更上一层楼'], length: 5 });
  for (const irregular of ['白日依山尽，黄河入海流。', '白日依山尽，黄河入海流。\n欲穷千里目。更上一层楼。', '白日依山尽，黄河入海流。欲穷千里目，更上一层楼。',
    '白日依山尽，黄河入海流。\n欲穷千里目，更上一层楼。\n', '白日依山，黄河入海。\n欲穷千里，更上一层。', '白日依山尽，黄河入海流。\n欲穷千里目，更上一楼。']) {
    assert.equal(regularVerse(irregular), null, irregular);
  }
  assert.deepEqual(clausesOf('明月光，\n月'), { clauses: [{ text: '明月光', close: '，' }], rest: '月', other: 0 });
  // 20 characters, 15 different (山, 海 and 流 twice, 人 three times): 5 repeat an earlier one; rhymes 流 and 流.
  // 登鹳雀楼 repeats none.
  const clauses = ['山人山水人', '人在海中流', '日月星辰上', '江河湖海流'];
  assert.deepEqual(rhymeCharacters(clauses), ['流', '流']);
  const measured = repetitionMeasures([clauses, ['白日依山尽', '黄河入海流', '欲穷千里目', '更上一层楼']]);
  assert.equal(measured.poems, 2);
  assert.ok(Math.abs(measured.repeatedCharacters - (5 / 20 + 0) / 2) < 1e-12, String(measured.repeatedCharacters));
  assert.equal(measured.rhymeRepeated, 0.5);
});

test('the page\'s writer, at its first temperature and seed, writes the ten openings into whole poems: 4 or 8 lines of the opening\'s length, no rhyme repeated', () => {
  for (const opening of WRITER.openings) {
    const poem = writePoem(writer, mha, opening);
    const verse = regularVerse(poem);
    assert.ok(verse, `regular verse: ${poem}`);
    assert.ok(POEM_CLAUSES.includes(verse.clauses.length), poem);
    assert.equal(verse.length, [...opening].length, poem);
    const rhymes = rhymeCharacters(verse.clauses);
    assert.equal(new Set(rhymes).size, rhymes.length, `no rhyme character twice: ${poem}`);
    assert.ok(!poem.includes(vocabulary[UNKNOWN_ID]), poem);
  }
});

test('the new roles look where their definitions say: 3, 5 and 7 back; 4 and 5 back; two places ahead in the first clause', () => {
  const kinds = tokenKinds(vocabulary);
  const queries = roleQueries([0, ...encode('白日依山尽，黄河入海流。\n')], kinds);
  assert.deepEqual(queries.parity.slice(0, 3), [[3, [0]], [4, [1]], [5, [2, 0]]]);
  assert.deepEqual(queries.parity.find(([row]) => row === 9), [9, [6, 4, 2]]);
  assert.deepEqual(queries.back4to5.slice(0, 1), [[5, [1, 0]]]);
  // 黄 (row 7) predicts 河, whose place is 日 (2); two ahead is 依 (3). From 海 (row 10), two ahead would be the ，: none.
  assert.deepEqual(queries.parallelNext2.map(([row, [column]]) => [row, column]), [[7, 3], [8, 4], [9, 5]]);
});

test('the committed fresh test set is the built corpus\'s, when that is the shipped model\'s corpus', { skip: cardCorpusSkip }, () => {
  const built = JSON.parse(readFileSync(join(BUILD_DIR, 'fresh-test.json'), 'utf8'));
  assert.deepEqual(freshBodies, built.map((poem) => poem.body));
});
