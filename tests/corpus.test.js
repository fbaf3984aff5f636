// The model's corpus (web/poems/build/): the held-out poems of 唐诗三百首, the loose leak matcher, the vocabulary,
// the baselines against hand-computed values, and a writer that gives the same bytes twice. None of it
// needs 全唐诗 (85 MB) or opencc: the tiny corpora here are already in simplified characters. Where the
// real corpus was built (npm run corpus), its training text is checked for held-out lines; elsewhere the
// committed summary, which the build wrote after the same check, is.
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fortuneEntries, heldOutPoems, poemOfEntry, TANG300_PATH, TYPO_FIXES } from '../web/poems/build/tang300.js';
import { createLeakMatcher, deletionKeys, matchUnits } from '../web/poems/build/leakage.js';
import { BOUNDARY, buildVocabulary, decode, encodePoems, UNKNOWN } from '../web/poems/vocabulary.js';
import { baselineLosses, evaluationWindows, ngramModel } from '../web/poems/baselines.js';
import { cleanVerse, prepareCorpus, SUMMARY_PATH, trainingPoemBody, writeCorpus } from '../web/poems/build/corpus.js';
import { EXCLUDED, findVariants, gb2312Han, unihanVariants, VARIANTS } from '../web/poems/build/variants.js';
import { clauseLengthModel, countingLosses, discounts, kneserNey3, poemBootstrap } from '../web/poems/build/kneser-ney.js';

const hasTang300 = existsSync(TANG300_PATH);

test('the held-out poems of the real tang300: entries 10, 20, …, 310, bodies apart from a preface, typos corrected', { skip: !hasTang300 && 'fortunes-zh is not installed' }, () => {
  const text = readFileSync(TANG300_PATH, 'utf8');
  assert.equal(fortuneEntries(text).length, 313);
  const poems = heldOutPoems(text);
  assert.equal(poems.length, 31);
  assert.deepEqual(poems.map((poem) => poem.entry), Array.from({ length: 31 }, (_, i) => 10 * (i + 1)));
  assert.deepEqual(poems[0], {
    entry: 10,
    title: '宿业师山房待丁大不至',
    author: '孟浩然',
    body: '夕阳度西岭，群壑倏已暝。\n松月生夜凉，风泉满清听。\n樵人归欲尽，烟鸟栖初定。\n之子期宿来，孤琴候萝径。',
  });
  for (const { body } of poems) {
    assert.doesNotMatch(body, /\x1b|^《.*》$|^作者：/m);
    assert.equal(body, body.trim());
  }
  const pipa = poems.find((poem) => poem.entry === 60);
  assert.equal(pipa.title, '琵琶行・并序');
  assert.match(pipa.preface, /^元和十年，余左迁九江郡司马。[^]*命曰《琵琶行》。$/, 'the prose preface is kept apart');
  assert.match(pipa.body, /^浔阳江头夜送客，枫叶荻花秋瑟瑟。\n/, 'the verse is the body');
  assert.equal(poems.filter((poem) => 'preface' in poem).length, 1);
  // Every fix of the table was made, and none of the typos it names is left.
  const all = poems.map((poem) => `${poem.preface ?? ''}${poem.body}`).join('\n');
  for (const { from, to } of TYPO_FIXES) {
    assert.ok(all.includes(to), `${to} is in the held-out text`);
    assert.ok(!all.includes(from), `${from} is not`);
  }
});

test('fortune entries: colours stripped, whitespace trimmed, empty entries not counted', () => {
  const text = '\x1b[32m《甲》\x1b[m\n\x1b[33m作者：某\x1b[m\n一二三四五，  \n%\n\n  \n%\n《乙》\n作者：某\n  \n序。\n  \n六七八九十。\n%\n';
  const entries = fortuneEntries(text);
  assert.deepEqual(entries, ['《甲》\n作者：某\n一二三四五，', '《乙》\n作者：某\n  \n序。\n  \n六七八九十。']);
  assert.deepEqual(poemOfEntry(entries[1]), { title: '乙', author: '某', preface: '序。', body: '六七八九十。' });
  assert.throws(() => poemOfEntry('一二三四五。\n六七八九十。'), /expected 《title》/);
  assert.throws(() => poemOfEntry('《甲》\n作者：某'), /expected 《title》/);
});

test('leak matcher: a line one character off is caught, however it is punctuated or broken', () => {
  const matcher = createLeakMatcher([
    { entry: 90, body: '国破山河在，城春草木深。\n感时花溅泪，恨别鸟惊心。' },
    { entry: 80, body: '日色欲尽花含烟，月明欲素愁不眠。' },
  ]);
  const caught = (body) => matcher.match(body)?.entry ?? null;
  assert.equal(caught('国破山河在，城春草木深。'), 90, 'verbatim');
  assert.equal(caught('山川久寂寞，国破山河在。'), 90, 'one clause of another couplet');
  assert.equal(caught('日色已尽花含烟，月明欲素愁不眠。'), 80, 'a character changed');
  assert.equal(caught('日色尽花含烟'), 80, 'a character dropped');
  assert.equal(caught('春日色欲尽花含烟'), 80, 'a character added');
  assert.equal(caught('感时花溅泪恨别鸟惊心'), 90, 'no punctuation');
  assert.equal(caught('感时花溅泪，\n恨别鸟惊心。'), 90, 'broken over two lines');
  assert.equal(caught('秋风国破山河在，古寺残灯。'), 90, 'quoted inside a longer clause');
  assert.deepEqual(matcher.match('日色已尽花含烟。'), { entry: 80, heldOut: '日色欲尽花含烟', training: '日色已尽花含烟' });
  assert.equal(caught('白日依山尽，黄河入海流。'), null, 'an unrelated poem');
  assert.equal(caught('国破江山改，城空草树深。'), null, 'two or more characters off in each clause');
  assert.equal(caught('国破，城春。'), null, 'clauses under five characters are formulae');
});

test('leak matcher units and keys', () => {
  assert.deepEqual(matchUnits('君不见，黄河之水天上来。\n关关雎鸠。'), ['黄河之水天上来', '君不见黄河之水天上来']);
  assert.deepEqual([...deletionKeys('甲乙丙')], ['甲乙丙', '乙丙', '甲丙', '甲乙']);
  assert.deepEqual([...deletionKeys('𠀋乙')], ['𠀋乙', '乙', '𠀋'], 'characters beyond the BMP count as one');
});

test('training poems: editors\' notes removed, damaged or non-verse poems dropped', () => {
  assert.equal(trainingPoemBody(['阑风长雨（一作“东风细雨”）秋纷纷，', ' 四海八荒同一云。 ', '']), '阑风长雨秋纷纷，\n四海八荒同一云。');
  assert.equal(trainingPoemBody(['停杯试北望，还欲泪沾[襟]。']), '停杯试北望，还欲泪沾襟。');
  assert.equal(trainingPoemBody(['童子解吟《长恨曲》，「胡儿」能唱『琵琶篇』。']), '童子解吟《长恨曲》，“胡儿”能唱‘琵琶篇’。');
  assert.equal(trainingPoemBody(['（注文跨行，', '至此方止）一二三四五。']), '一二三四五。');
  assert.equal(trainingPoemBody(['江上重云起，何曾裛□尘。']), null, 'a lost character');
  assert.equal(trainingPoemBody(['此流又高悬，{汸番}在长空。']), null, 'a character spelled out');
  assert.equal(trainingPoemBody(['〖1〗这首诗见敦煌本。']), null, 'a numbered note');
  assert.equal(trainingPoemBody(['（只有注）']), null, 'nothing left');
});

// Two poems "ab" and "ba": the stream is B a b B b a B, 7 tokens; a and b tie at 2 and sort by code point.
const tiny = { bodies: ['ab', 'ba'], tokens: [BOUNDARY, UNKNOWN, 'a', 'b'] };

test('vocabulary: special tokens, then by count and code point, a cut-off, one unknown token', () => {
  assert.deepEqual(buildVocabulary(tiny.bodies, { minCount: 1 }), tiny.tokens);
  assert.deepEqual(buildVocabulary(['甲乙乙\n丙丙丙\n'], { minCount: 2 }), [BOUNDARY, UNKNOWN, '丙', '\n', '乙']);
  const stream = encodePoems(['甲乙', '丁'], buildVocabulary(['甲乙乙'], { minCount: 1 }));
  assert.deepEqual([...stream], [0, 3, 2, 0, 1, 0]);
  assert.equal(decode(stream, buildVocabulary(['甲乙乙'], { minCount: 1 })), `${BOUNDARY}甲乙${BOUNDARY}${UNKNOWN}${BOUNDARY}`);
});

test('unigram (add-1) and Witten–Bell bigram against hand-computed values', () => {
  const stream = encodePoems(tiny.bodies, tiny.tokens);
  assert.deepEqual([...stream], [0, 2, 3, 0, 3, 2, 0]);
  const model = ngramModel(stream, 4);
  // N = 7, V = 4: P(B) = (3+1)/11, P(unk) = 1/11, P(a) = P(b) = 3/11.
  assert.deepEqual([0, 1, 2, 3].map(model.unigram), [4 / 11, 1 / 11, 3 / 11, 3 / 11]);
  // Each history is followed twice, by 2 different tokens: P(w | h) = (c(h w) + 2 P(w)) / 4.
  assert.equal(model.bigram(0, 2), (1 + 2 * 3 / 11) / 4);
  assert.equal(model.bigram(2, 1), (0 + 2 * 1 / 11) / 4);
  assert.equal(model.bigram(1, 2), 3 / 11, 'a history never seen falls back to the unigram');
  // Held out "ab" and "ac" (c is unknown): targets a|B, b|a, a|B, unk|a.
  const losses = baselineLosses(stream, 4, [[2, 3], [2, 1]]);
  assert.equal(losses.targets, 4);
  assert.ok(Math.abs(losses.unigram - (3 * Math.log(11 / 3) + Math.log(11)) / 4) < 1e-12);
  assert.ok(Math.abs(losses.bigram - (3 * Math.log(44 / 17) + Math.log(22)) / 4) < 1e-12);
  assert.deepEqual(baselineLosses(stream, 4, [[2, 3], [2, 1]], { context: 1 }), losses, 'the bigram always has its token before');
});

test('evaluation windows: every character a target once, at most `context` inputs, BOUNDARY first', () => {
  assert.deepEqual(evaluationWindows([5, 6, 7, 8, 9], 2), [
    { input: [0, 5], target: [5, 6] },
    { input: [6, 7], target: [7, 8] },
    { input: [8], target: [9] },
  ]);
  assert.deepEqual(evaluationWindows([5, 6], 64), [{ input: [0, 5], target: [5, 6] }]);
  assert.throws(() => evaluationWindows([5], 0), RangeError);
});

const tinyHeldOut = [
  { entry: 10, title: '春望', author: '杜甫', body: '国破山河在，城春草木深。\n感时花溅泪，恨别鸟惊心。' },
  { entry: 20, title: '甲', author: '乙', body: '白日依山尽，黄河入海流。' },
];
const tinyTraining = [
  ['床前明月光，疑是地上霜。', '举头望明月，低头思故乡。'],
  ['国破山河在，城春草不深。'],
  ['江上重云起，何曾裛□尘。'],
  ['千山鸟飞绝，万径人踪灭。', '孤舟蓑笠翁，独钓寒江雪。'],
  ['白日依山尽（一作“没”），黄河入海去。'],
];

test('prepareCorpus removes leaking poems and writes the same bytes twice', () => {
  const options = { heldOut: tinyHeldOut, trainingPoems: tinyTraining, minCount: 2, context: 8, sources: { note: 'tiny' } };
  const corpus = prepareCorpus(options);
  assert.deepEqual(corpus.summary.leakage.matches.map(({ poemIndex, entry }) => [poemIndex, entry]), [[1, 10], [4, 20]]);
  assert.equal(corpus.summary.training.poems, 2);
  assert.equal(corpus.summary.training.poemsDropped, 1);
  assert.equal(corpus.trainingText, '床前明月光，疑是地上霜。\n举头望明月，低头思故乡。\n\n千山鸟飞绝，万径人踪灭。\n孤舟蓑笠翁，独钓寒江雪。');
  assert.deepEqual(corpus.vocabulary, [BOUNDARY, UNKNOWN, '。', '，', '\n', '头', '明', '月']);
  assert.equal(corpus.summary.heldOut.characters, [...tinyHeldOut[0].body, ...tinyHeldOut[1].body].length);

  const dirs = [mkdtempSync(join(tmpdir(), 'corpus-a-')), mkdtempSync(join(tmpdir(), 'corpus-b-'))];
  try {
    for (const dir of dirs) writeCorpus(prepareCorpus(options), dir);
    for (const file of ['train.bin', 'train.txt', 'heldout.json', 'vocabulary.json', 'summary.json']) {
      assert.deepEqual(readFileSync(join(dirs[0], file)), readFileSync(join(dirs[1], file)), file);
    }
    const bin = readFileSync(join(dirs[0], 'train.bin'));
    assert.deepEqual([...new Uint16Array(bin.buffer, bin.byteOffset, bin.length / 2)], [...corpus.stream], 'Uint16 little-endian');
    const heldOut = JSON.parse(readFileSync(join(dirs[0], 'heldout.json'), 'utf8'));
    assert.deepEqual(heldOut[1].ids, [1, 1, 1, 1, 1, 3, 1, 1, 1, 1, 1, 2]);
  } finally {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
});

test('prepareCorpus refuses a training text that still holds a held-out line', () => {
  const heldOut = [{ entry: 10, body: '君不见，\n黄河之水天上来。' }];
  assert.throws(() => prepareCorpus({ heldOut, trainingPoems: [['君不见，', '高堂明镜悲白发。']] }), /held-out text left .*君不见/);
});

const summary = JSON.parse(readFileSync(SUMMARY_PATH, 'utf8'));

test('the committed corpus summary: 31 held-out poems, none of their lines in the training text', () => {
  assert.equal(summary.heldOut.poems, 31);
  assert.deepEqual(summary.heldOut.entries, Array.from({ length: 31 }, (_, i) => 10 * (i + 1)));
  assert.equal(summary.heldOut.linesInTrainingText, 0);
  assert.equal(summary.heldOut.clausesInTrainingText, 0);
  assert.equal(summary.leakage.heldOutPoemsCaught, 31);
  const lock = JSON.parse(readFileSync(new URL('../web/poems/build/package-lock.json', import.meta.url), 'utf8'));
  assert.equal(summary.sources.training.version, lock.packages['node_modules/chinese-poetry'].version, 'the corpus was built from the locked package');
  assert.ok(summary.baselines.bigram.lossNats < summary.baselines.unigram.lossNats);
  // The fresh test set: 1 % of 全唐诗's clean poems, with every training poem that echoes one of them removed.
  assert.ok(summary.freshTest.poems > 500 && summary.freshTest.characters > 30000, JSON.stringify(summary.freshTest));
  assert.ok(summary.freshTest.poemsRemovedForLeakage > 0);
  // The cleaning (#36): counted for the training text and the fresh test set; 唐诗三百首 would not change.
  assert.ok(summary.cleaning.training.bareLines > 3000 && summary.cleaning.training.placeholderLines > 0, JSON.stringify(summary.cleaning.training.bareLines));
  assert.ok(summary.cleaning.training.variantCharacters > 10000);
  assert.deepEqual(summary.cleaning.heldOutWouldChange, { bareLines: 0, placeholderLines: 0, variantCharacters: 0 });
});

test('cleanVerse: bare punctuation lines and 空。 placeholders dropped, variants written in their standard form, counted', () => {
  const variants = { 鴈: '雁', 疎: '疏' };
  assert.deepEqual(cleanVerse('鴈飞疎影斜，月下鴈声远。\n江上秋风起。\n。', variants), {
    body: '雁飞疏影斜，月下雁声远。\n江上秋风起。',
    changes: { bareLines: 1, placeholderLines: 0, variants: { 鴈: 2, 疎: 1 } },
  });
  assert.deepEqual(cleanVerse('空。', variants), { body: null, changes: { bareLines: 0, placeholderLines: 1, variants: {} } });
  assert.deepEqual(cleanVerse('。\n”。', variants).changes.bareLines, 2);
  assert.equal(cleanVerse('空山不见人，但闻人语响。', variants).body, '空山不见人，但闻人语响。', 'a line that starts with 空 stays');
  // In prepareCorpus: the fresh test set is chosen before the cleaning, and both sets are cleaned and counted.
  const corpus = prepareCorpus({
    heldOut: [{ entry: 10, body: '白日依山尽，黄河入海流。' }],
    trainingPoems: [['鴈飞南国远，', '疎雨过江来。', '。'], ['空。'], ['秋风吹落叶，明月照高楼。']],
    minCount: 1, variants,
  });
  assert.deepEqual(corpus.summary.cleaning.training, { bareLines: 1, placeholderLines: 1, poemsLeftEmpty: 1, variantCharacters: 2, variants: { 疎: 1, 鴈: 1 } });
  assert.equal(corpus.trainingText, '雁飞南国远，\n疏雨过江来。\n\n秋风吹落叶，明月照高楼。');
  assert.deepEqual(corpus.summary.cleaning.heldOutWouldChange, { bareLines: 0, placeholderLines: 0, variantCharacters: 0 });
});

test('the variant table: found by the rule from Unihan, OpenCC and GB2312, sparing the held-out poems and EXCLUDED', () => {
  const gb2312 = gb2312Han();
  assert.equal(gb2312.size, 6763);
  assert.ok(gb2312.has('雁') && !gb2312.has('鴈'));
  const unihan = unihanVariants('U+9D08\tkSemanticVariant\tU+96C1<kLau,kMatthews\nU+6159\tkSemanticVariant\tU+615A<kMatthews\n' +
    'U+6159\tkSimplifiedVariant\tU+30467\nU+73EA\tkSemanticVariant\tU+572D<kMatthews\nU+88B4\tkSemanticVariant\tU+8932<kMatthews\n');
  const t2s = (characters) => characters.map((c) => ({ 慚: '惭', 褲: '裤' })[c] ?? c);
  const counts = new Map([...'鴈雁慙惭珪圭袴裤'].map((c) => [c, 1]));
  assert.deepEqual(findVariants({ counts, unihan, t2s, gb2312, keep: ['袴'] }), { 鴈: '雁', 慙: '惭' }, '珪 is EXCLUDED, 袴 kept');
  // The committed table: issue #36's examples, no GB2312 character converted, nothing excluded or of the held-out poems.
  for (const [variant, standard] of [['鴈', '雁'], ['疎', '疏'], ['蘂', '蕊'], ['慙', '惭'], ['猨', '猿']]) assert.equal(VARIANTS[variant], standard);
  for (const [variant, standard] of Object.entries(VARIANTS)) {
    assert.ok(!gb2312.has(variant) && gb2312.has(standard), `${variant} → ${standard}`);
    assert.ok(!EXCLUDED.includes(variant), variant);
  }
  assert.equal(VARIANTS['袴'], undefined, 'the held-out poems print 袴 (纨袴)');
});

test('Kneser-Ney 3-gram: the discounts, a probability worked by hand, and every distribution sums to 1', () => {
  assert.deepEqual(discounts([0, 10, 5, 3, 2]).map((d) => Math.round(d * 1e6) / 1e6), [0.5, 1.1, 1.666667]);
  // Trigrams 012 ×2, 120, 201 ×2, 013, 130, 301 (too few counts for the estimate: D = 0.5, 1, 1.5 at every order).
  // P(2 | 0 1) = (2 − 1)/3 + γ(0 1) P(2 | 1), γ(0 1) = (0.5·1 + 1·1)/3; P(2 | 1) = (1 − 0.5)/2 + 0.5 P(2) over
  // the continuation counts (12, 13 once each); P(2) = (1 − 0.5)/5 + 0.5/4 over w's predecessor counts 2:1, 0:2, 1:1, 3:1.
  const kn = kneserNey3([0, 1, 2, 0, 1, 3, 0, 1, 2], 4);
  assert.ok(Math.abs(kn.prob(2, 1, 0) - (1 / 3 + 0.5 * (0.25 + 0.5 * 0.225))) < 1e-12);
  const stream = Array.from({ length: 3000 }, (_, i) => (i * 7 + (i >> 3) * 3) % 11);
  const model = kneserNey3(stream, 12);
  for (const [v, u] of [[3, 5], [0, -1], [11, 4], [-1, -1]]) {
    const total = Array.from({ length: 12 }, (_, w) => model.prob(w, v, u)).reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(total - 1) < 1e-9, `P(· | ${u} ${v}) sums to ${total}`);
  }
});

test('the clause-length model counts to five or seven, and moves the 3-gram\'s mass between separators and the rest', () => {
  const vocabulary = ['<|poem|>', '<|unk|>', '，', '。', '\n', '月', '光'];
  const isSeparator = (id) => id >= 2 && id <= 4;
  const five = [5, 6, 5, 6, 5];
  const poem = [0, ...five, 2, ...five, 3, 4, ...five, 2, ...five, 3, 4];
  const stream = Array.from({ length: 40 }, () => poem).flat();
  const share = clauseLengthModel(stream, isSeparator);
  assert.ok(share(5, 5) > 0.9 && share(3, 5) < 0.1, `after 5 of 5: ${share(5, 5)}; after 3: ${share(3, 5)}`);
  const kn = kneserNey3(stream, vocabulary.length);
  const windows = evaluationWindows(poem.slice(1), 64);
  const { kn3, withLength } = countingLosses(windows, { kn, separatorShare: share, separatorIds: [2, 3, 4], isSeparator });
  assert.equal(kn3.length, poem.length - 1);
  assert.ok(withLength.reduce((a, b) => a + b, 0) < kn3.reduce((a, b) => a + b, 0), 'knowing the clause length helps on regular verse');
});

test('poem bootstrap: an interval around the mean, none where every poem is the same', () => {
  const uniforms = Array.from({ length: 2000 * 4 }, (_, i) => ((i * 0.6180339887) % 1));
  const same = Array.from({ length: 4 }, () => ({ sums: { a: 2, b: 4 }, targets: 1 }));
  assert.deepEqual(poemBootstrap(same, ['a', 'b'], { uniforms, ratios: [['a', 'b']] }), { a: [2, 2], b: [4, 4], 'a/b': [0.5, 0.5] });
  const varied = [1, 2, 3, 10].map((x) => ({ sums: { a: x }, targets: 1 }));
  const [low, high] = poemBootstrap(varied, ['a'], { uniforms }).a;
  assert.ok(low < 4 && 4 < high && low >= 1 && high <= 10, `[${low}, ${high}] around the mean 4`);
});
