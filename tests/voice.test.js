// The page teaches as the lesson does: its parts numbered as the lesson's, §3's "停一秒" callout told from
// the core's numbers, and §6's two programs quoted as the lesson gives them, printing what Python prints
// (tests/fixtures/lesson-program-{1,2}.py and .out: the programs, and what Python 3 with numpy printed).
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAttention } from '../web/src/attention.js';
import { runHand } from '../web/page/core.js';
import { defaultState } from '../web/page/state.js';
import { defaultHand, HAND_MAX_TOKENS } from '../web/hand/limits.js';
import { pauseFacts, handChanges } from '../web/hand/pause.js';
import { seededRandom } from './seeded.js';
import { HAND_TEXT } from '../web/hand/strings.js';
import { PIPELINE_TEXT } from '../web/pipeline/strings.js';
import { TEXT, inWan } from '../web/page/text.js';
import { recapFacts } from '../web/page/recap.js';
import { FIGURE_LABELS } from '../web/shared/figure-labels.js';
import { grouped } from '../web/ui/section.js';
import { programOne, programTwo, programOneOutput, programTwoOutput } from '../web/page/lesson-programs.js';
import { POEMS_TEXT } from '../web/poems/strings.js';
import { GPT2_TEXT } from '../web/gpt2/strings.js';
import { REAL_HEADS_TEXT } from '../web/real-heads/strings.js';

const mha = await loadAttention();
const fixture = (name) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

/** A forward's result as the callout reads it: rows of weights per head, the words, the mask and scaling. */
const result = (tokens, heads, { causal = false, scaled = true, dK = 4 / heads.length } = {}) => ({
  L: tokens.length, heads: heads.length, dK, causal, scaled, tokens, attention: heads.map((rows) => Float32Array.from(rows.flat())),
});
const WORDS = ['猫', '吃', '鱼'];
const third = 1 / 3;
// The lesson's numbers: head 1's 猫 row [0.25, 0.25, 0.50], head 2's even; one head gives 吃 0.67 of its own row.
const lessonHeads = result(WORDS, [
  [[0.2483, 0.2483, 0.5035], [0.11, 0.45, 0.45], [third, third, third]],
  [[third, third, third], [0.16, 0.67, 0.16], [0.4, 0.4, 0.2]],
]);
const lessonSingle = result(WORDS, [[[0.5, 0.2, 0.3], [0.09, 0.665, 0.245], [0.3, 0.3, 0.4]]]);
const lesson = pauseFacts(lessonHeads, lessonSingle);

test('the callout compares the two heads on 猫 as the lesson does, then pays off lesson 8\'s hint', () => {
  const facts = pauseFacts(lessonHeads, lessonSingle, lesson);
  assert.equal(facts.changed, false);
  const [heads, hint] = HAND_TEXT.zh.pause(facts);
  assert.equal(heads, '同一个“猫”，头 1 盯上了“鱼”（50%），头 2 雨露均沾，均匀巡逻看得见的每个词（33% × 3）——两套眼镜，两种眼光。没有谁对谁错：真实模型里哪种眼光有用，由训练说了算。');
  assert.match(hint, /^这也兑现了第 8 课的伏笔.*d_k = 4）.*“吃”这一行把最大的一份 0\.67 给了自己。.*多头把不同的口味分给不同的头/);
  const [headsEn, hintEn] = HAND_TEXT.en.pause(facts);
  assert.match(headsEn, /head 1 locks onto “鱼” \(50%\); head 2 plays no favourites, patrolling evenly over the words it sees \(33% × 3\) — two pairs of glasses, two ways of looking\./);
  assert.match(hintEn, /^This pays off lesson 8's hint.*0\.67, to “吃” itself\./);
});

test('after an edit the callout names what changed, against the lesson\'s numbers', () => {
  const edited = result(WORDS, [
    [[0.1, 0.7, 0.2], [0.2, 0.6, 0.2], [third, third, third]],
    [[third, third, third], [0.16, 0.67, 0.16], [0.4, 0.4, 0.2]],
  ]);
  const single = result(WORDS, [[[0.5, 0.2, 0.3], [0.5, 0.3, 0.2], [0.3, 0.3, 0.4]]]);
  const facts = pauseFacts(edited, single, lesson, ['numbers']);
  assert.equal(facts.changed, true);
  const [heads, hint] = HAND_TEXT.zh.pause(facts);
  assert.equal(heads, '你改了：q、k、v 里的数。现在同一个“猫”：头 1 盯上了“吃”（70%），头 2 雨露均沾，均匀巡逻看得见的每个词（33% × 3）。课文的数字是：头 1 盯上了“鱼”（50%），头 2 雨露均沾，均匀巡逻看得见的每个词（33% × 3）。两套眼镜，两种眼光。');
  assert.match(hint, /“吃”这一行给自己 0\.30，最大的一份 0\.50 给了“猫”。/);
  assert.match(HAND_TEXT.en.pause(facts)[0], /^You changed numbers in q, k or v\. Now, for the same “猫”: head 1 locks onto “吃” \(70%\);.*The lesson's numbers: head 1 locks onto “鱼” \(50%\)/);
});

test('changing h is not editing numbers: at h = 4 the callout says h changed, names ties as ties and counts views, not heads', () => {
  const hand = { ...defaultHand(), heads: 4 };
  const facts = pauseFacts(runHand(mha, hand, { use: 'voice-heads' }), runHand(mha, { ...hand, heads: 1 }, { use: 'voice-single' }), lesson, handChanges(hand, defaultHand()));
  assert.deepEqual(facts.changes, ['heads']);
  assert.deepEqual(facts.views, [[0], [1], [2, 3]]);
  const [heads] = HAND_TEXT.zh.pause(facts);
  assert.match(heads, /^你改了：h（2 → 4）。现在同一个“猫”：头 1 最看“猫”和“鱼”，并列（各 42%），头 2 最看“吃”和“鱼”，并列（各 42%），/);
  // Alike on 猫's row only (on 吃's, heads 3 and 4 differ): the sentence says which row.
  assert.match(heads, /。在“猫”这一行上，4 套眼镜，却只有 3 种眼光：头 3 和头 4 看法相同。$/);
  assert.doesNotMatch(heads, /改过数字|q、k、v/);
  const [headsEn] = HAND_TEXT.en.pause(facts);
  assert.match(headsEn, /^You changed h \(2 → 4\)\. .*head 1 looks most at “猫” and “鱼”, tied \(42% each\).* On “猫”'s row, 4 pairs of glasses, but only 3 ways of looking: head 3 and head 4 look alike\.$/);
});

test('the single head says when it is masked or unscaled, beside lesson 8\'s own 0.67', () => {
  const hand = { ...defaultHand(), causal: true };
  const facts = pauseFacts(runHand(mha, hand, { use: 'voice-heads' }), runHand(mha, { ...hand, heads: 1 }, { use: 'voice-single' }), lesson, handChanges(hand, defaultHand()));
  const [heads, hint] = HAND_TEXT.zh.pause(facts);
  assert.match(heads, /^你改了：掩码（打开了）。戴上掩码，句首的“猫”只看得见自己/);
  assert.equal(hint, '再看第 8 课的伏笔：同一组 q、k、v 交给一个不切的单头（d_k = 4，戴着掩码），“吃”这一行把最大的一份 0.88 给了自己（第 8 课的单头不戴掩码、要缩放，课文的数字下给自己 0.67）。那份“自恋”只是单头的一种口味；多头把不同的口味分给不同的头去尝。');
  assert.match(HAND_TEXT.en.pause(facts)[1], /a single uncut head \(d_k = 4, masked\) gives the largest share of “吃”'s row, 0\.88, .*\(lesson 8's single head, unmasked and scaled, gives itself 0\.67 on the lesson's numbers\)/);
});

test('what changed is named one by one; renaming, adding or removing a word edits no number, and Wᴼ changes no row', () => {
  const lessonHand = defaultHand();
  const changed = (edit) => {
    const hand = defaultHand();
    edit(hand);
    return handChanges(hand, lessonHand);
  };
  assert.deepEqual(changed(() => {}), []);
  assert.deepEqual(changed((hand) => (hand.wo[0][1] = 2)), []);
  assert.deepEqual(changed((hand) => (hand.off = [1])), []);
  assert.deepEqual(changed((hand) => Object.assign(hand, { heads: 1, causal: true, scale: false })), ['heads', 'mask', 'scale']);
  assert.deepEqual(changed((hand) => (hand.tokens[0] = '狗')), ['words']);
  assert.deepEqual(changed((hand) => ['tokens', 'q', 'k', 'v'].forEach((m) => hand[m].splice(0, 1))), ['words']);
  assert.deepEqual(changed((hand) => ['q', 'k', 'v'].forEach((m) => hand[m].push([0, 0, 0, 0])) || hand.tokens.push('词4')), ['words']);
  assert.deepEqual(changed((hand) => (hand.v[2][3] = 1)), ['numbers']);
  // The same rows in another order, under the same words, are edited numbers.
  assert.deepEqual(changed((hand) => ([hand.q[0], hand.q[1]] = [hand.q[1], hand.q[0]])), ['numbers']);
});

test('heads that look alike, a single head, the mask and one word are each told as they are', () => {
  const alike = result(WORDS, [[[third, third, third], [0, 1, 0], [0, 0, 1]], [[third, third, third], [0, 1, 0], [0, 0, 1]]]);
  // Two heads are counted as two, and the hint's close then says the heads have yet to divide the work.
  const [alikeZh, alikeHintZh] = HAND_TEXT.zh.pause(pauseFacts(alike, lessonSingle, lesson, ['numbers']));
  assert.match(alikeZh, /此刻两个头在“猫”这一行上看法一样：眼镜多了，眼光却没分开。$/);
  assert.match(alikeHintZh, /多头能把不同的口味分给不同的头去尝，可眼下两个头尝的还是同一种——分工要靠训练。$/);
  const [alikeEn, alikeHintEn] = HAND_TEXT.en.pause(pauseFacts(alike, lessonSingle, lesson, ['numbers']));
  assert.match(alikeEn, /Right now the two heads look alike on “猫”'s row/);
  assert.match(alikeHintEn, /but right now the two heads taste the same one — dividing the work is what training does\.$/);
  const alikeFour = result(WORDS, Array(4).fill([[third, third, third], [0, 1, 0], [0, 0, 1]]));
  assert.match(HAND_TEXT.zh.pause(pauseFacts(alikeFour, lessonSingle, lesson, ['heads']))[0], /此刻 4 个头在“猫”这一行上看法都一样/);
  const one = result(WORDS, [[[0.5, 0.2, 0.3], [0.09, 0.665, 0.245], [0.3, 0.3, 0.4]]]);
  assert.match(HAND_TEXT.zh.pause(pauseFacts(one, lessonSingle, lesson, ['heads']))[0], /^你改了：h（2 → 1）。现在 h = 1：只有一套眼镜，“猫”这一行只有一种看法（头 1 最看“猫”（50%））/);
  // With the mask the first word sees only itself: there is nothing to compare, and the callout says so.
  const masked = result(WORDS, [[[1, 0, 0], [0.5, 0.5, 0], [0.2, 0.3, 0.5]], [[1, 0, 0], [0.4, 0.6, 0], [0.3, 0.3, 0.4]]], { causal: true });
  assert.deepEqual(pauseFacts(masked, lessonSingle, lesson).looks[0], { shares: [100], count: 1, top: [0], words: ['猫'], even: false, fixed: false, share: 100 });
  assert.match(HAND_TEXT.zh.pause(pauseFacts(masked, lessonSingle, lesson, ['mask']))[0], /^你改了：掩码（打开了）。戴上掩码，句首的“猫”只看得见自己.*再对照两个头怎么看同一个词。$/);
  assert.match(HAND_TEXT.en.pause(pauseFacts(masked, lessonSingle, lesson, ['mask']))[0], /sees only itself/);
  assert.equal(pauseFacts(result(['猫'], [[[1]], [[1]]]), result(['猫'], [[[1]]]), lesson).self, null);
  // One word, mask off: the mask is not what leaves it alone, so the callout asks for another word.
  const oneWord = pauseFacts(result(['猫'], [[[1]], [[1]]]), result(['猫'], [[[1]]]), lesson, ['words']);
  assert.equal(HAND_TEXT.zh.pause(oneWord)[0], '你改了：词。现在只有一个词“猫”：它只能看自己，每个头都把 100% 给了它，没什么可对照的。再添一个词，就能对照两个头怎么看同一个词。');
  assert.match(HAND_TEXT.en.pause(oneWord)[0], /^You changed the words\. There is only one word, “猫”: .* Add a word to compare how the two heads look at it\.$/);
  assert.doesNotMatch(HAND_TEXT.zh.pause(oneWord).join(''), /掩码/);
});

test('a word is named as the top only when no other shows the same share; words with commas stay whole in a tie', () => {
  const tokens = ['a,b', '和', 'c'];
  const tied = result(tokens, [[[0.4201, 0.4249, 0.155], [0, 1, 0], [0, 0, 1]], [[0.426, 0.414, 0.16], [0, 1, 0], [0, 0, 1]]]);
  const facts = pauseFacts(tied, lessonSingle, lesson, ['words', 'numbers']);
  assert.deepEqual(facts.looks.map((look) => look.words), [['a,b', '和'], ['a,b']]);
  assert.match(HAND_TEXT.zh.pause(facts)[0], /头 1 最看“a,b”和“和”，并列（各 42%），头 2 最看“a,b”（43%）/);
  assert.match(HAND_TEXT.en.pause(facts)[0], /head 1 looks most at “a,b” and “和”, tied \(42% each\); head 2 looks most at “a,b” \(43%\)/);
});

test('an even row is written as the lesson writes it (33% × 3), and to a tenth where whole percentages would not add up', () => {
  const evenOver = (count) => pauseFacts(result(Array.from({ length: count }, (_, i) => `w${i}`), [Array.from({ length: count }, () => Array(count).fill(1 / count))], { dK: 4 }), lessonSingle).looks[0];
  assert.deepEqual([3, 4, 5, 6, 7, 8].map((count) => `${evenOver(count).share}% × ${count}`), ['33% × 3', '25% × 4', '20% × 5', '16.7% × 6', '14.3% × 7', '12.5% × 8']);
});

test('from the core: the lesson\'s 猫 row is 50% on 鱼 in head 1 and 33% × 3 in head 2; one head gives 吃 0.67', () => {
  const hand = defaultHand();
  const facts = pauseFacts(runHand(mha, hand, { use: 'voice-heads' }), runHand(mha, { ...hand, heads: 1 }, { use: 'voice-single' }));
  assert.deepEqual(facts.looks.map(({ words, share, even, fixed }) => ({ words, share, even, fixed })), [
    { words: ['鱼'], share: 50, even: false, fixed: true },
    { words: ['猫', '吃', '鱼'], share: 33, even: true, fixed: false },
  ]);
  assert.deepEqual(facts.self, { word: '吃', weight: '0.67', topWeight: '0.67', topWords: ['吃'], selfTop: true, dK: 4, causal: false, scaled: true });
});

test('the first six parts carry the lesson\'s numbers, 一 to 六, and the page\'s own follow from 七 (the coda, past the lesson, is 十三)', () => {
  const order = ['bill', 'split', 'hand', 'pipeline', 'formula', 'code', 'views', 'ablation', 'train', 'poems', 'quiz', 'share', 'gqa'];
  for (const lang of ['zh', 'en']) assert.deepEqual(Object.keys(TEXT[lang].sections), order, lang);
  const numerals = ['一', '二', '三', '四', '五', '六', '七', '八', '九', '十', '十一', '十二', '十三'];
  order.forEach((key, i) => {
    assert.ok(TEXT.zh.sections[key].startsWith(`${numerals[i]}、`), TEXT.zh.sections[key]);
    assert.ok(TEXT.en.sections[key].startsWith(`${i + 1}. `), TEXT.en.sections[key]);
  });
});

test('§6 quotes the lesson\'s two programs with their default seeds, and prints exactly what Python printed', () => {
  const { seed1, seed2 } = defaultState().demo;
  assert.equal(programOne(seed1), fixture('lesson-program-1.py'));
  assert.equal(programTwo(seed2), fixture('lesson-program-2.py'));
  assert.equal(programOneOutput(mha, seed1), fixture('lesson-program-1.out'));
  assert.equal(programTwoOutput(mha, seed2).text, fixture('lesson-program-2.out'));
  // Another seed is written into the program, and program 2 prints other weights for it.
  assert.match(programTwo(12), /np\.random\.RandomState\(12\)/);
  assert.notEqual(programTwoOutput(mha, 12).text, fixture('lesson-program-2.out'));
});

test('the glasses carry the lesson where the lesson uses them: the opening, the bill, the symbols, the recap, GPT-2’s heads', async () => {
  const state = { heads: 12, dModel: 768, dK: 64 };
  const places = {
    zh: {
      opening: TEXT.zh.intro.join(''), bill: TEXT.zh.bill.heads, h: TEXT.zh.formula.symbols.h[1](state),
      wq: TEXT.zh.formula.symbols.wq[1](state), recap: TEXT.zh.recap.items(recapFacts(mha)).join(''), gpt2: GPT2_TEXT.zh.tilesNote,
    },
    en: {
      opening: TEXT.en.intro.join(''), bill: TEXT.en.bill.heads, h: TEXT.en.formula.symbols.h[1](state),
      wq: TEXT.en.formula.symbols.wq[1](state), recap: TEXT.en.recap.items(recapFacts(mha)).join(''), gpt2: GPT2_TEXT.en.tilesNote,
    },
  };
  for (const [place, words] of Object.entries(places.zh)) assert.match(words, /眼镜/, `zh ${place}: ${words}`);
  for (const [place, words] of Object.entries(places.en)) assert.match(words, /glasses/, `en ${place}: ${words}`);
  assert.match(places.zh.recap, /12 副眼镜/, 'the recap’s promise: GPT-2’s 12 pairs, counted');
  assert.match(places.zh.gpt2, /一副一副/);
});

/** Every sentence of TEXT[lang], its sentence builders called with a stand-in for any argument. */
function everySentence(lang) {
  const any = new Proxy(function () {}, {
    get: (_, key) => (key === Symbol.toPrimitive ? () => 1 : key === Symbol.iterator ? () => [any, any, any, any][Symbol.iterator]() : key === 'length' ? 0 : any),
    apply: () => any,
  });
  const found = [];
  const walk = (value, path) => {
    if (typeof value === 'string') found.push([path, value]);
    else if (value === any) return;
    else if (typeof value === 'function') walk(value(any, any, any, any), `${path}()`);
    else if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${path}[${i}]`));
    else if (value && typeof value === 'object') for (const [key, item] of Object.entries(value)) walk(item, `${path}.${key}`);
  };
  walk({ ...TEXT[lang], poems: POEMS_TEXT[lang], gpt2: GPT2_TEXT[lang], realHeads: REAL_HEADS_TEXT[lang] }, lang); // §10's come with its module
  return found;
}

test('no developer\'s word leaks into the Chinese page: no file path, bare token or nats, no name bracketed twice, no half-width marks', () => {
  const sentences = everySentence('zh');
  assert.ok(sentences.length > 400, `${sentences.length} sentences`);
  const leaks = [
    [/\b[\w-]+\/[\w.-]+\.(?:js|json|wasm|safetensors)\b/, 'a file path'],
    [/\btokens?\b/i, 'token (词元 in Chinese)'],
    [/\bnats\b/, 'nats (explained as the unit of 交叉熵)'],
    [/[（(]⟨[^⟩]*⟩[）)]/, 'a token name in brackets inside brackets (⟨⟩ reads as a bracket)'],
    [/[\u4e00-\u9fff][,;:!?]|[,;:!?][\u4e00-\u9fff]/, 'half-width punctuation in a Chinese sentence'],
  ];
  for (const [path, words] of sentences) for (const [leak, what] of leaks) assert.doesNotMatch(words, leak, `${path}: ${what}: ${words}`);
  // §10's loss is named once, with its unit and which way is better.
  const poems = POEMS_TEXT.zh;
  assert.match(poems.lossAllOn, /每字的平均交叉熵（单位：nat；越低/);
  assert.match(poems.lead, /词元（/);
  assert.equal(poems.roleExplains.first, '看第一个位置，也就是开头的 ⟨始⟩：注意力没有别处可放时的“汇点”。');
  assert.equal(poems.card(35607, 31), '留出诗共 31 首、35607 个字。');
});

test('the recap names the lesson\'s six closing points in its order, with the core\'s numbers: 2123 万, 50% and 33%, 4d²', () => {
  const facts = recapFacts(mha);
  const [one, two] = facts.heads;
  assert.ok(one.fixed && one.words[0] === '鱼' && two.even, 'the lesson\'s two looks at 猫');
  const items = TEXT.zh.recap.items(facts);
  const points = [
    /单头的窘境.*一种眼光、一张配比表/,
    /朴素方案的账单.*21,233,664 个参数（约 2123 万）/,
    /切分，不是重复：d_k = d_model ÷ h/,
    /「猫吃鱼」切给两个头（h = 2）：同一个“猫”，头 1 把 50% 给了“鱼”，头 2 均匀地各给 33%/,
    /逐个符号读懂.*MultiHead\(Q, K, V\) = Concat\(head₁, …, head_h\) Wᴼ/,
    /4 · d_model².*2,359,296 个（约 236 万）/,
  ];
  points.forEach((point, i) => assert.match(items[i], point));
  // The numbers are the core's: another hand example would give other shares.
  const other = { ...facts, heads: [{ ...one, share: 61 }, { ...two, share: 25 }] };
  assert.match(TEXT.zh.recap.items(other)[3], /头 1 把 61% 给了“鱼”，头 2 均匀地各给 25%/);
  const english = TEXT.en.recap.items(facts);
  assert.equal(english.length, items.length);
  assert.match(english[1], /21,233,664 parameters/);
  assert.match(english[3], /head 1 gives 50% to “鱼” and head 2 gives 33% to each word/);
});

test('the page goes by the lesson\'s own title and series name, in the heading and in the tab\'s title', () => {
  assert.equal(TEXT.zh.kicker, 'Transformer 实现机制 · 第 10 课');
  assert.equal(TEXT.zh.title, '多头注意力 —— 一个头一种眼光');
  for (const lang of ['zh', 'en']) {
    const { docTitle, title, kicker } = TEXT[lang];
    assert.ok(docTitle.startsWith(title) && docTitle.includes(kicker.split(' · ')[0]), `${lang}: ${docTitle}`);
  }
  // The HTML's own title, before the script runs, is the Chinese one.
  const html = readFileSync(new URL('../web/index.html', import.meta.url), 'utf8');
  assert.equal(html.match(/<title>(.*)<\/title>/)[1], TEXT.zh.docTitle);
});

test('the bill reads in 万 beside the exact count in Chinese, as the lesson does: 2123 万 and 236 万 for GPT-2', () => {
  const gpt2 = mha.paramCount({ dModel: 768, heads: 12 });
  assert.equal(TEXT.zh.bill.approx(gpt2.naive), '（约 2123 万）');
  assert.equal(TEXT.zh.bill.approx(gpt2.split), '（约 236 万）');
  assert.equal(TEXT.en.bill.approx(gpt2.naive), '');
  assert.equal(TEXT.zh.bill.approx(9999), '', 'a short count is read as it is');
  assert.equal(TEXT.zh.bill.approx(40000), '（即 4 万）');
  assert.equal(inWan(99_999_999).text, '1 亿', 'never 10000 万');
  // Any d_model and h: the short form is the core's count rounded to at least three figures.
  const random = seededRandom(10);
  for (let i = 0; i < 300; i++) {
    const dModel = 1 + Math.floor(random() * 65536);
    const count = mha.paramCount({ dModel, heads: 1 }).split * (1 + Math.floor(random() * 4));
    const wan = inWan(count);
    if (count < 1e4) { assert.equal(wan, null); continue; }
    const [, figures, unit] = wan.text.match(/^([\d.]+) (万|亿)$/);
    const size = unit === '万' ? 1e4 : 1e8;
    assert.ok(unit === '亿' || count < 99_995_000, `${count}: ${wan.text}`);
    // At least three figures: decimals while the whole part has fewer (trailing zeros are not written).
    const step = 10 ** -Math.max(0, 3 - String(Math.floor(count / size)).length);
    assert.ok(Math.abs(Number(figures) - count / size) <= step / 2 + 1e-9, `${count}: ${wan.text}`);
    assert.equal(wan.exact, Number(figures) * size === count);
  }
});

// ——— Every claim of the callout against the numbers, over many random states ———
// Each state is the lesson's hand example changed as a learner could: h, the mask, scaling, words renamed,
// added or removed (down to one), numbers typed, and ties forced (a k row copied, a q row of zeros, one
// head's slice copied to another's). The callout is written in both languages and read back: every share,
// tie, view count, change and single-head weight it states is checked against the core's attention rows,
// compared at the precision the heatmaps show (two decimals).

const LESSON_LOOKS = {
  zh: '头 1 盯上了“鱼”（50%），头 2 雨露均沾，均匀巡逻看得见的每个词（33% × 3）',
  en: 'head 1 locks onto “鱼” (50%); head 2 plays no favourites, patrolling evenly over the words it sees (33% × 3)',
};
const NAME_PARTS = ['狗', '跑', 'a', 'Z', ',', '、', '和', 'and', '7', '😀'];

/** A random hand state, and where each of its rows came from (a lesson row, or -1: a new word, zeros at first). */
function randomHandState(random) {
  const pick = (items) => items[Math.floor(random() * items.length)];
  const hand = defaultHand();
  let origins = [0, 1, 2];
  if (random() < 0.06) return { hand, origins }; // the lesson itself, now and then
  hand.heads = pick([1, 2, 2, 4, 4]);
  hand.causal = random() < 0.3;
  hand.scale = random() >= 0.2;
  const name = () => Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(NAME_PARTS)).join('');
  const removeRow = (row) => {
    for (const m of ['q', 'k', 'v']) hand[m].splice(row, 1);
    hand.tokens.splice(row, 1);
    origins.splice(row, 1);
  };
  if (random() < 0.35) {
    for (let ops = 1 + Math.floor(random() * 3); ops > 0; ops--) {
      const op = pick(['rename', 'add', 'remove']);
      if (op === 'rename') hand.tokens[Math.floor(random() * hand.tokens.length)] = name();
      else if (op === 'add' && hand.tokens.length < HAND_MAX_TOKENS) {
        hand.tokens.push(`词${hand.tokens.length + 1}`);
        for (const m of ['q', 'k', 'v']) hand[m].push([0, 0, 0, 0]);
        origins.push(-1);
      } else if (op === 'remove' && hand.tokens.length > 1) removeRow(Math.floor(random() * hand.tokens.length));
    }
  }
  if (random() < 0.1) while (hand.tokens.length > 1) removeRow(hand.tokens.length - 1);
  const rows = hand.tokens.length;
  if (random() < 0.5) {
    for (let edits = 1 + Math.floor(random() * 6); edits > 0; edits--) {
      // Whole numbers make ties likely; tenths are what the slider gives.
      const value = random() < 0.5 ? Math.round(random() * 6 - 3) : Math.round(random() * 60 - 30) / 10;
      hand[pick(['q', 'k', 'v'])][Math.floor(random() * rows)][Math.floor(random() * 4)] = value;
    }
  }
  if (random() < 0.25 && rows > 1) hand.k[Math.floor(random() * rows)] = [...hand.k[Math.floor(random() * rows)]]; // equal k rows
  if (random() < 0.15) hand.q[0] = [0, 0, 0, 0]; // an even first row in every head
  if (random() < 0.25 && hand.heads > 1) {
    // Two heads with the same q and k slices: the same weights, one view.
    const dK = 4 / hand.heads;
    const [from, to] = [Math.floor(random() * hand.heads), Math.floor(random() * hand.heads)];
    for (const m of ['q', 'k']) for (const row of hand[m]) for (let c = 0; c < dK; c++) row[to * dK + c] = row[from * dK + c];
  }
  if (random() < 0.2) hand.wo[Math.floor(random() * 4)][Math.floor(random() * 4)] = 2; // Wᴼ never moves a weight
  return { hand, origins };
}

/** What truly changed from the lesson, from the operations made: each row against where it came from. */
function trueChanges(hand, origins) {
  const lesson = defaultHand();
  const zeros = [0, 0, 0, 0];
  const edited = origins.some((origin, row) => ['q', 'k', 'v'].some((m) => {
    const was = origin < 0 ? zeros : lesson[m][origin];
    return hand[m][row].some((x, c) => x !== was[c]);
  }));
  return {
    heads: hand.heads !== 2, mask: hand.causal, scale: !hand.scale,
    words: hand.tokens.join('\u0001') !== lesson.tokens.join('\u0001'), numbers: edited,
  };
}

const shownPercentOf = (w) => Math.round(Number(w.toFixed(2)) * 100);
const quotedWords = (text) => [...text.matchAll(/“([^”]*)”/g)].map((m) => m[1]);
const sameSet = (a, b) => a.length === b.length && [...a].sort().join('\u0001') === [...b].sort().join('\u0001');

/** Row `row` of head `head` as the heatmaps show it: the words it can see and their whole percentages. */
function shownRow(result, head, row) {
  const count = result.causal ? row + 1 : result.L;
  return Array.from({ length: count }, (_, c) => ({ word: result.tokens[c], percent: shownPercentOf(result.attention[head][row * result.L + c]) }));
}

const PARSE = {
  zh: {
    look: /头 (\d+) (?:雨露均沾，均匀巡逻看得见的每个词（([\d.]+)% × (\d+)）|盯上了(“[^”]*”)（(\d+)%）|最看((?:“[^”]*”[、和]?)+)，并列（各 (\d+)%）|最看(“[^”]*”)（(\d+)%）)/g,
    lessonSplit: '课文的数字是：',
    views: /(两|\d+) ?套眼镜，(?:却只有 ?(两|\d+) ?种眼光：(.*?)。|(两|\d+) ?种眼光)/,
    alike: /此刻 ?(两|\d+) ?个头在“([^”]*)”这一行上看法都?一样/,
    row: (word) => `在“${word}”这一行上，`,
    sameTaste: /可眼下 ?(两|\d+) ?个头尝的还是同一种——分工要靠训练。$/,
    groupSplit: '，', headNumber: /头 (\d+)/g,
    changes: /^你改了：(.*?)。/,
    changeItems: (heads) => ({ heads: `h（2 → ${heads}）`, mask: '掩码（打开了）', scale: '缩放（关掉了）', words: '词', numbers: 'q、k、v 里的数' }),
    hOne: '现在 h = 1', oneWord: '现在只有一个词', alone: '戴上掩码，句首的', unchanged: '同一个“',
    selfTop: /“([^”]*)”这一行把最大的一份 ([\d.]+) 给了自己/,
    selfTied: /“([^”]*)”这一行给自己 ([\d.]+)，与(.*?)并列最大/,
    selfNot: /“([^”]*)”这一行给自己 ([\d.]+)，最大的一份 ([\d.]+) 给了(.*?)(?:（|。)/,
    setting: /单头（d_k = (\d+)(，戴着掩码)?(，不缩放)?）/,
    lessonNote: /课文的数字下给自己 ([\d.]+)）/,
    payOff: '这也兑现了第 8 课的伏笔',
  },
  en: {
    look: /head (\d+) (?:plays no favourites, patrolling evenly over the words it sees \(([\d.]+)% × (\d+)\)|locks onto (“[^”]*”) \((\d+)%\)|looks most at ((?:“[^”]*”(?:, | and )?)+), tied \((\d+)% each\)|looks most at (“[^”]*”) \((\d+)%\))/g,
    lessonSplit: 'The lesson\'s numbers: ',
    views: /(two|\d+) pairs of glasses, (?:but only (two|\d+) ways of looking: (.*?)\.|(two|\d+) ways of looking)/i,
    alike: /right now (?:the |all )(two|\d+) heads look alike on “([^”]*)”'s row/i,
    row: (word) => `on “${word}”'s row, `,
    sameTaste: /but right now the (two|\d+) heads taste the same one — dividing the work is what training does\.$/,
    groupSplit: '; ', headNumber: /head (\d+)/g,
    changes: /^You changed (.*?)\. /,
    changeItems: (heads) => ({ heads: `h (2 → ${heads})`, mask: 'the mask (now on)', scale: 'scaling (now off)', words: 'the words', numbers: 'numbers in q, k or v' }),
    hOne: 'Now h = 1', oneWord: 'There is only one word', alone: 'With the mask on, the first word', unchanged: 'The same “',
    selfTop: /gives the largest share of “([^”]*)”'s row, ([\d.]+), to “[^”]*” itself/,
    selfTied: /gives “([^”]*)” ([\d.]+) of its own row, tied for the largest with (.*?)(?: \(lesson|\. )/,
    selfNot: /gives “([^”]*)” ([\d.]+) of its own row, and its largest share, ([\d.]+)(?: each)?, to (.*?)(?: \(lesson|\. )/,
    setting: /single uncut head \(d_k = (\d+)(, masked)?(, unscaled)?\)/,
    lessonNote: /gives itself ([\d.]+) on the lesson's numbers/,
    payOff: 'This pays off lesson 8\'s hint',
  },
};
const countOf = (word) => (word === '两' || word?.toLowerCase() === 'two' ? 2 : Number(word));

/** Reads every head's look out of `text` and checks it against the result's first row. */
function checkLooks(text, result, where) {
  const found = [...text.matchAll(PARSE[where.lang].look)];
  assert.deepEqual(found.map((m) => Number(m[1])), Array.from({ length: result.heads }, (_, i) => i + 1), `${where.says}: every head once, in order`);
  for (const m of found) {
    const row = shownRow(result, Number(m[1]) - 1, 0);
    const top = Math.max(...row.map((cell) => cell.percent));
    const topWords = row.filter((cell) => cell.percent === top).map((cell) => cell.word);
    const [, , evenShare, evenCount, fixedWord, fixedShare, tiedWords, tiedShare, oneWord, oneShare] = m;
    if (evenShare) {
      assert.equal(Number(evenCount), row.length, `${where.says}: ${m[0]}`);
      assert.ok(row.length > 1 && row.every((cell) => cell.percent === Math.round(Number(evenShare))), `${where.says}: ${m[0]} against ${JSON.stringify(row)}`);
    } else if (fixedWord) {
      const others = row.filter((cell) => cell.word !== quotedWords(fixedWord)[0] || cell.percent !== top);
      assert.ok(topWords.length === 1 && topWords[0] === quotedWords(fixedWord)[0] && top === Number(fixedShare) && top >= 50, `${where.says}: ${m[0]} against ${JSON.stringify(row)}`);
      assert.ok(others.every((cell) => 2 * cell.percent <= top), `${where.says}: ${m[0]} is not clear against ${JSON.stringify(row)}`);
    } else if (tiedWords) {
      assert.ok(sameSet(quotedWords(tiedWords), topWords) && topWords.length > 1 && topWords.length < row.length && top === Number(tiedShare), `${where.says}: ${m[0]} against ${JSON.stringify(row)}`);
    } else {
      assert.ok(topWords.length === 1 && topWords[0] === quotedWords(oneWord)[0] && top === Number(oneShare), `${where.says}: ${m[0]} against ${JSON.stringify(row)}`);
    }
  }
}

/** Checks the callout's first paragraph: what changed, which comparison it makes, and how many views. */
function checkHeadsParagraph(text, result, changes, where) {
  const parse = PARSE[where.lang];
  const stated = text.match(parse.changes);
  assert.equal(Boolean(stated), Object.values(changes).some(Boolean), `${where.says}: says it changed exactly when something did`);
  const items = parse.changeItems(result.heads);
  for (const [change, truly] of Object.entries(changes)) assert.equal(Boolean(stated?.[1].includes(items[change])), truly, `${where.says}: names ${change} exactly when it changed`);
  const body = stated ? text.slice(stated[0].length) : text;
  const visibleFirst = result.causal ? 1 : result.L;
  const kind = result.heads === 1 ? 'hOne' : result.L === 1 ? 'oneWord' : visibleFirst === 1 ? 'alone' : stated ? 'changed' : 'unchanged';
  for (const other of ['hOne', 'oneWord', 'alone', 'unchanged']) assert.equal(body.startsWith(parse[other]), other === kind, `${where.says}: is the ${kind} case`);
  if (kind === 'oneWord' || kind === 'alone') {
    // "every head gives it 100%"
    for (let head = 0; head < result.heads; head++) assert.deepEqual(shownRow(result, head, 0).map((cell) => cell.percent), [100], where.says);
    return;
  }
  const [now, lessonPart] = body.split(parse.lessonSplit);
  checkLooks(now, result, where);
  assert.equal(lessonPart !== undefined, kind === 'changed', `${where.says}: gives the lesson's numbers after a change`);
  if (lessonPart) assert.ok(lessonPart.startsWith(LESSON_LOOKS[where.lang]), `${where.says}: the lesson's looks`);
  if (kind === 'hOne') return;
  // Views: heads whose first rows show the same numbers are one.
  const groups = new Map();
  for (let head = 0; head < result.heads; head++) {
    const key = shownRow(result, head, 0).map((cell) => cell.percent).join(',');
    groups.set(key, [...(groups.get(key) ?? []), head + 1]);
  }
  const views = [...groups.values()];
  if (views.length === 1) {
    const [, count, word] = body.match(parse.alike) ?? assert.fail(`${where.says}: one view`);
    assert.equal(countOf(count), result.heads, `${where.says}: counts the heads`);
    assert.equal(word, result.tokens[0], `${where.says}: names the row compared`);
    return;
  }
  const [, heads, fewer, alike, all] = body.match(parse.views) ?? assert.fail(`${where.says}: no count of views`);
  // Fewer views than heads is said of the first word's row, the only one compared.
  if (fewer) assert.ok(body.toLowerCase().includes(`${parse.row(result.tokens[0])}${heads}`.toLowerCase()), `${where.says}: names the row compared`);
  assert.equal(countOf(heads), result.heads, where.says);
  assert.equal(countOf(fewer ?? all), views.length, `${where.says}: counts ${JSON.stringify(views)}`);
  const named = alike ? alike.split(parse.groupSplit).map((group) => [...group.matchAll(parse.headNumber)].map((m) => Number(m[1]))) : [];
  assert.deepEqual(named, views.filter((group) => group.length > 1), `${where.says}: names the heads that look alike`);
}

/**
 * Checks lesson 8's single head: its settings, its second row's own weight and where its largest went; and
 * that its close says the heads still taste alike exactly when `alikeHeads` (their count) were just seen so.
 */
function checkSelfParagraph(text, single, alikeHeads, where) {
  const parse = PARSE[where.lang];
  const same = text.match(parse.sameTaste);
  assert.equal(same ? countOf(same[1]) : 0, alikeHeads, `${where.says}: the close fits the heads just compared`);
  const visible = single.causal ? 2 : single.L;
  const row = Array.from({ length: visible }, (_, c) => ({ word: single.tokens[c], weight: single.attention[0][single.L + c].toFixed(2) }));
  const top = row.reduce((best, cell) => (Number(cell.weight) > Number(best) ? cell.weight : best), row[0].weight);
  const topCells = row.map((cell, c) => ({ ...cell, c })).filter((cell) => cell.weight === top);
  const selfIsTop = topCells.some((cell) => cell.c === 1);
  const [, dK, masked, unscaled] = text.match(parse.setting) ?? assert.fail(`${where.says}: no setting`);
  assert.deepEqual([Number(dK), Boolean(masked), Boolean(unscaled)], [4, single.causal, !single.scaled], `${where.says}: the single head's settings`);
  const lessonSetting = !single.causal && single.scaled;
  const note = text.match(parse.lessonNote);
  assert.equal(note?.[1], lessonSetting ? undefined : '0.67', `${where.says}: lesson 8's own 0.67 beside a head set otherwise`);
  const alone = text.match(parse.selfTop);
  const tied = text.match(parse.selfTied);
  const not = text.match(parse.selfNot);
  assert.equal([alone, tied, not].filter(Boolean).length, 1, `${where.says}: one claim about the self-weight`);
  const others = topCells.filter((cell) => cell.c !== 1).map((cell) => cell.word);
  if (alone) {
    assert.ok(selfIsTop && others.length === 0 && alone[2] === row[1].weight && alone[1] === row[1].word, `${where.says}: ${alone[0]} against ${JSON.stringify(row)}`);
    assert.equal(text.startsWith(parse.payOff), lessonSetting, `${where.says}: pays off lesson 8 only as lesson 8 set it`);
  } else if (tied) {
    assert.ok(selfIsTop && sameSet(quotedWords(tied[3]), others) && others.length > 0 && tied[2] === row[1].weight, `${where.says}: ${tied[0]} against ${JSON.stringify(row)}`);
  } else {
    assert.ok(!selfIsTop && not[2] === row[1].weight && not[3] === top && sameSet(quotedWords(not[4]), topCells.map((cell) => cell.word)), `${where.says}: ${not[0]} against ${JSON.stringify(row)}`);
  }
}

test('停一秒 over 1,200 random states: every share, tie, view, change and single-head weight it states is true, in both languages', () => {
  const random = seededRandom(20261204);
  const lessonHand = defaultHand();
  const lessonFacts = pauseFacts(runHand(mha, lessonHand, { use: 'prop-heads' }), runHand(mha, { ...lessonHand, heads: 1 }, { use: 'prop-single' }));
  const seen = { ties: 0, fixed: 0, even: 0, alike: 0, h1: 0, h4: 0, masked: 0, unscaled: 0, oneWord: 0, unchanged: 0, words: 0, numbers: 0, selfTied: 0, selfNotTop: 0 };
  for (let n = 0; n < 1200; n++) {
    const { hand, origins } = randomHandState(random);
    const result = runHand(mha, hand, { use: 'prop-heads' });
    const single = runHand(mha, { ...hand, heads: 1 }, { use: 'prop-single' });
    const facts = pauseFacts(result, single, lessonFacts, handChanges(hand, lessonHand));
    const changes = trueChanges(hand, origins);
    // Several heads, compared on a row with more than one word to see, all showing the same numbers.
    const firstRows = Array.from({ length: result.heads }, (_, head) => shownRow(result, head, 0).map((cell) => cell.percent).join(','));
    const alikeHeads = result.heads > 1 && !result.causal && result.L > 1 && new Set(firstRows).size === 1 ? result.heads : 0;
    for (const lang of ['zh', 'en']) {
      const [heads, self, ...more] = HAND_TEXT[lang].pause(facts);
      const where = (says) => ({ lang, says: `state ${n} (${JSON.stringify(hand)}), ${lang}: ${says}` });
      assert.equal(more.length, 0);
      checkHeadsParagraph(heads, result, changes, where(heads));
      if (result.L > 1) checkSelfParagraph(self, single, alikeHeads, where(self));
      else assert.equal(self, undefined, 'one word: no second row to tell of');
    }
    const looks = facts.looks;
    seen.ties += looks.some((look) => look.words.length > 1 && !look.even);
    seen.fixed += looks.some((look) => look.fixed);
    seen.even += looks.some((look) => look.even);
    seen.alike += facts.views.length < facts.heads;
    seen.h1 += hand.heads === 1;
    seen.h4 += hand.heads === 4;
    seen.masked += hand.causal;
    seen.unscaled += !hand.scale;
    seen.oneWord += result.L === 1;
    seen.unchanged += !facts.changed;
    seen.words += changes.words;
    seen.numbers += changes.numbers;
    seen.selfTied += Boolean(facts.self?.selfTop && facts.self.topWords.length > 1);
    seen.selfNotTop += Boolean(facts.self && !facts.self.selfTop);
  }
  // Every kind of state came up often enough to count.
  for (const [kind, count] of Object.entries(seen)) assert.ok(count >= 20, `${kind}: ${count} of 1,200`);
});

/** Every source file of the page's words, the programs quoted verbatim (lesson-programs.js) aside. */
function wordFiles() {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!['dist', 'build', 'node_modules'].includes(entry.name)) walk(path);
      } else if (/\.(js|html)$/.test(entry.name) && entry.name !== 'lesson-programs.js') files.push(path);
    }
  };
  walk(fileURLToPath(new URL('../web/', import.meta.url)));
  return files;
}

test('the softmax weights are 配比 in Chinese, as lesson 8 taught them; 权重 is left to the learnt matrices', () => {
  const mixed = wordFiles().flatMap((path) => readFileSync(path, 'utf8').split('\n')
    .filter((line) => /权重表|注意力权重|softmax 权重|[每这一]行(的)?权重|权重越大/.test(line))
    .map((line) => `${path}: ${line.trim().slice(0, 80)}`));
  assert.deepEqual(mixed, []);
  assert.match(TEXT.zh.intro[0], /一张配比表（第 8 课的叫法/);
  assert.equal(HAND_TEXT.zh.weights, 'softmax 配比');
  assert.equal(FIGURE_LABELS.zh.weightLegend, '注意力配比');
  assert.match(TEXT.zh.split.steps[1].text, /h 张小配比表/);
});

test('the lesson\'s images: a telescope divided for the split, Wᴼ a supervisor and a meeting-minutes consolidator', () => {
  const sizes = { L: 3, dModel: 4, heads: 2, dK: 2, bill: null, firstRow: null };
  assert.match(TEXT.zh.split.lead, /望远镜/);
  assert.match(TEXT.en.split.lead, /telescope/);
  assert.match(HAND_TEXT.zh.woNote, /主管.*调查员.*采纳几成/);
  assert.match(HAND_TEXT.en.woNote, /supervisor.*investigator.*how much of each to take/);
  assert.match(TEXT.zh.formula.symbols.wo[1](sizes), /会议纪要整合器.*主管/);
  assert.match(TEXT.en.formula.symbols.wo[1](sizes), /meeting-minutes consolidator.*supervisor/);
});

test('§4 says its weights are hand-picked and that a head\'s role comes only from training', () => {
  assert.match(PIPELINE_TEXT.zh.caveat, /挑的小整数，不是学出来的.*平均巡逻.*只能在训练中长出来/);
  assert.match(PIPELINE_TEXT.en.caveat, /picked by hand.*patrols evenly.*only grow out of training/);
});

test('§5 reads in the lesson\'s order, with GPT-2\'s shapes, head 1\'s 猫 row from the core and the subscripts not to misread', () => {
  const hand = runHand(mha, defaultHand(), { use: 'voice-formula' });
  const { dModel, heads } = defaultState().bill;
  const sizes = {
    L: hand.L, dModel: hand.dModel, heads: hand.heads, dK: hand.dK,
    bill: { dModel, heads, dK: dModel / heads, gpt2: true },
    firstRow: { word: hand.tokens[0], values: Array.from(hand.headOutputs[0].subarray(0, hand.dK), (x) => x.toFixed(2)) },
  };
  const order = Object.keys(TEXT.zh.formula.symbols);
  assert.deepEqual(['h', 'wq', 'head', 'concat', 'wo'].map((name) => order.indexOf(name)), [0, 2, 6, 7, 8], 'the lesson\'s h, W_i, head_i, Concat, Wᴼ in its order');
  assert.deepEqual(Object.keys(TEXT.en.formula.symbols), order);
  const zh = (name) => TEXT.zh.formula.symbols[name][1](sizes);
  const en = (name) => TEXT.en.formula.symbols[name][1](sizes);
  assert.match(zh('wq'), /手算例子里是 4×2，GPT-2（d_model = 768，h = 12）里是 768×64/);
  assert.match(en('wq'), /4×2 in the hand example, 768×64 in GPT-2/);
  assert.match(zh('h'), /GPT-2 装了 12 套/);
  assert.match(zh('wo'), /768×768/);
  assert.match(zh('head'), /头 1 的“猫”行此刻是 \[1\.26, 0\.25\]/);
  assert.match(en('head'), /head 1's row for “猫” is now \[1\.26, 0\.25\]/);
  // Another bill is named as section 1's, not as GPT-2.
  const other = TEXT.zh.formula.symbols.wq[1]({ ...sizes, bill: { dModel: 512, heads: 8, dK: 64, gpt2: false } });
  assert.match(other, /按第一节的 d_model = 512、h = 8 是 512×64/);
  assert.doesNotMatch(other, /GPT-2/);
  assert.match(TEXT.zh.formula.subscripts(sizes), /O 是 Output.*不是数字 0.*d_k = d_model ÷ h = 4 ÷ 2 = 2.*不是第 8 课/);
  assert.match(TEXT.en.formula.subscripts(sizes), /Output, not the digit 0.*4 ÷ 2 = 2.*not lesson 8's/);
});

test('the lesson\'s closing questions are answered with the core\'s numbers, each pointing at the part that shows it', async () => {
  const { questionFacts } = await import('../web/page/sections/questions.js');
  const answers = (lang) => {
    const facts = questionFacts(mha, TEXT[lang]);
    return Object.fromEntries(TEXT[lang].questions.items.map(({ id, question, answer, link }) => [id, { question, answer: answer(facts), href: link.href }]));
  };
  const zh = answers('zh');
  const en = answers('en');
  assert.deepEqual(Object.keys(zh), ['heads', 'divide', 'wo', 'q']);
  assert.deepEqual(Object.keys(en), Object.keys(zh));
  const split = grouped(mha.paramCount({ dModel: 768, heads: 12 }).split);
  assert.equal(split, '2,359,296');
  assert.match(zh.heads.answer, new RegExp(`h = 1、12、24 的多头注意力分别有 ${split}、${split}、${split} 个参数.*d_k（768、64、32）`));
  // The sentence the bill refuses h = 7 with, quoted whole.
  const refusal = TEXT.zh.errorDetails.HEADS_NOT_DIVISOR({ heads: 7, dModel: 768, below: 6, above: 8 });
  assert.ok(zh.divide.answer.endsWith(`“${refusal}”`), zh.divide.answer);
  assert.ok(en.divide.answer.endsWith(`“${TEXT.en.errorDetails.HEADS_NOT_DIVISOR({ heads: 7, dModel: 768, below: 6, above: 8 })}”`), en.divide.answer);
  assert.match(zh.wo.answer, /“猫”的输出就是 Concat 的那一行 \[1\.26, 0\.25, 0\.33, 1\.00\].*589,824 个/);
  assert.match(zh.q.answer, /头 2 拿到的 q_猫 是 \[0, 0\].*配比是 \[0\.33, 0\.33, 0\.33\]/);
  assert.match(en.q.answer, /head 2's q for “猫” is \[0, 0\]/);
  assert.deepEqual(Object.values(zh).map(({ href }) => href), ['#bill', '#bill', '#wo-note', '#hand']);
});
