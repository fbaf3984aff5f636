// The page teaches as the lesson does: its parts numbered as the lesson's, §3's "停一秒" callout told from
// the core's numbers, and §6's two programs quoted as the lesson gives them, printing what Python prints
// (tests/fixtures/lesson-program-{1,2}.py and .out: the programs, and what Python 3 with numpy printed).
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAttention } from '../web/src/attention.js';
import { runHand } from '../web/page/model.js';
import { defaultState } from '../web/page/state.js';
import { defaultHand } from '../web/hand/limits.js';
import { pauseFacts } from '../web/hand/pause.js';
import { HAND_TEXT } from '../web/hand/strings.js';
import { PIPELINE_TEXT } from '../web/pipeline/strings.js';
import { TEXT } from '../web/page/text.js';
import { FIGURE_LABELS } from '../web/shared/figure-labels.js';
import { grouped } from '../web/ui/section.js';
import { programOne, programTwo, programOneOutput, programTwoOutput } from '../web/page/lesson-programs.js';

const mha = await loadAttention();
const fixture = (name) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

/** A forward's result as the callout reads it: rows of weights per head, the words, the mask. */
const result = (tokens, heads, { causal = false, dK = 4 / heads.length } = {}) => ({
  L: tokens.length, heads: heads.length, dK, causal, tokens, attention: heads.map((rows) => Float32Array.from(rows.flat())),
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
  assert.equal(heads, '同一个“猫”，头 1 最看“鱼”（50%），头 2 平均分给看得见的每个词（33% × 3）——两套眼镜，两种眼光。没有谁对谁错：真实模型里哪种眼光有用，由训练说了算。');
  assert.match(hint, /第 8 课的伏笔.*d_k = 4.*“吃”这一行把最大的一份 0\.67 给了自己.*多头把不同的口味分给不同的头/);
  const [headsEn, hintEn] = HAND_TEXT.en.pause(facts);
  assert.match(headsEn, /head 1 looks most at “鱼” \(50%\); head 2 spreads evenly over the words it sees \(33% × 3\) — two pairs of glasses, two ways of looking/);
  assert.match(hintEn, /lesson 8's hint.*0\.67, to “吃” itself/);
});

test('after an edit the callout says what changed, against the lesson\'s numbers', () => {
  const edited = result(WORDS, [
    [[0.1, 0.7, 0.2], [0.2, 0.6, 0.2], [third, third, third]],
    [[third, third, third], [0.16, 0.67, 0.16], [0.4, 0.4, 0.2]],
  ]);
  const single = result(WORDS, [[[0.5, 0.2, 0.3], [0.5, 0.3, 0.2], [0.3, 0.3, 0.4]]]);
  const facts = pauseFacts(edited, single, lesson);
  assert.equal(facts.changed, true);
  const [heads, hint] = HAND_TEXT.zh.pause(facts);
  assert.equal(heads, '你改过数字，现在同一个“猫”：头 1 最看“吃”（70%），头 2 平均分给看得见的每个词（33% × 3）。课文的数字是：头 1 最看“鱼”（50%），头 2 平均分给看得见的每个词（33% × 3）。两套眼镜，两种眼光。');
  assert.match(hint, /“吃”这一行给自己 0\.30，最大的一份给了“猫”/);
  assert.match(HAND_TEXT.en.pause(facts)[0], /^You have changed the numbers\. Now, for the same “猫”: head 1 looks most at “吃” \(70%\);.*The lesson's numbers: head 1 looks most at “鱼” \(50%\)/);
});

test('heads that look alike, a single head, the mask and one word are each told as they are', () => {
  const alike = result(WORDS, [[[third, third, third], [0, 1, 0], [0, 0, 1]], [[third, third, third], [0, 1, 0], [0, 0, 1]]]);
  assert.match(HAND_TEXT.zh.pause(pauseFacts(alike, lessonSingle, lesson))[0], /此刻几个头看法一样/);
  assert.match(HAND_TEXT.en.pause(pauseFacts(alike, lessonSingle, lesson))[0], /the heads look alike/);
  const one = result(WORDS, [[[0.5, 0.2, 0.3], [0.09, 0.665, 0.245], [0.3, 0.3, 0.4]]]);
  assert.match(HAND_TEXT.zh.pause(pauseFacts(one, lessonSingle, lesson))[0], /^现在 h = 1：只有一套眼镜，“猫”这一行只有一种看法（头 1 最看“猫”（50%））/);
  // With the mask the first word sees only itself: there is nothing to compare, and the callout says so.
  const masked = result(WORDS, [[[1, 0, 0], [0.5, 0.5, 0], [0.2, 0.3, 0.5]], [[1, 0, 0], [0.4, 0.6, 0], [0.3, 0.3, 0.4]]], { causal: true });
  assert.deepEqual(pauseFacts(masked, lessonSingle, lesson).looks[0], { even: false, share: 100, count: 1, word: '猫' });
  assert.match(HAND_TEXT.zh.pause(pauseFacts(masked, lessonSingle, lesson))[0], /^打开掩码后，句首的“猫”只看得见自己.*两种眼光。$/);
  assert.match(HAND_TEXT.en.pause(pauseFacts(masked, lessonSingle, lesson))[0], /sees only itself/);
  assert.equal(pauseFacts(result(['猫'], [[[1]], [[1]]]), result(['猫'], [[[1]]]), lesson).self, null);
  // One word, mask off: the mask is not what leaves it alone, so the callout asks for another word.
  const oneWord = pauseFacts(result(['猫'], [[[1]], [[1]]]), result(['猫'], [[[1]]]), lesson);
  assert.equal(HAND_TEXT.zh.pause(oneWord)[0], '现在只有一个词“猫”：它只能看自己，每个头都把 100% 给了它，没什么可对照的。再添一个词，就能对照同一个词的两种眼光。');
  assert.match(HAND_TEXT.en.pause(oneWord)[0], /^There is only one word, “猫”: .* Add a word to see two ways of looking at it\.$/);
  assert.doesNotMatch(HAND_TEXT.zh.pause(oneWord).join(''), /掩码/);
});

test('an even row is written as the lesson writes it (33% × 3), and to a tenth where whole percentages would not add up', () => {
  const evenOver = (count) => pauseFacts(result(Array.from({ length: count }, (_, i) => `w${i}`), [Array.from({ length: count }, () => Array(count).fill(1 / count))], { dK: 4 }), lessonSingle).looks[0];
  assert.deepEqual([3, 4, 5, 6, 7, 8].map((count) => `${evenOver(count).share}% × ${count}`), ['33% × 3', '25% × 4', '20% × 5', '16.7% × 6', '14.3% × 7', '12.5% × 8']);
});

test('from the core: the lesson\'s 猫 row is 50% on 鱼 in head 1 and 33% × 3 in head 2; one head gives 吃 0.67', () => {
  const hand = defaultHand();
  const facts = pauseFacts(runHand(mha, hand, { use: 'voice-heads' }), runHand(mha, { ...hand, heads: 1 }, { use: 'voice-single' }));
  assert.deepEqual(facts.looks, [{ even: false, share: 50, count: 3, word: '鱼' }, { even: true, share: 33, count: 3, word: '猫' }]);
  assert.deepEqual(facts.self, { word: '吃', weight: '0.67', top: true, topWord: '吃', dK: 4 });
});

test('the first six parts carry the lesson\'s numbers, 一 to 六, and the page\'s own follow from 七', () => {
  const order = ['bill', 'split', 'hand', 'pipeline', 'formula', 'code', 'views', 'ablation', 'train', 'poems', 'quiz', 'share'];
  for (const lang of ['zh', 'en']) assert.deepEqual(Object.keys(TEXT[lang].sections), order, lang);
  const numerals = ['一', '二', '三', '四', '五', '六', '七', '八', '九', '十', '十一', '十二'];
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
  const { GPT2_TEXT } = await import('../web/gpt2/strings.js');
  const state = { heads: 12, dModel: 768, dK: 64 };
  const places = {
    zh: {
      opening: TEXT.zh.intro.join(''), bill: TEXT.zh.bill.heads, h: TEXT.zh.formula.symbols.h[1](state),
      wq: TEXT.zh.formula.symbols.wq[1](state), recap: TEXT.zh.recap.items.join(''), gpt2: GPT2_TEXT.zh.tilesNote,
    },
    en: {
      opening: TEXT.en.intro.join(''), bill: TEXT.en.bill.heads, h: TEXT.en.formula.symbols.h[1](state),
      wq: TEXT.en.formula.symbols.wq[1](state), recap: TEXT.en.recap.items.join(''), gpt2: GPT2_TEXT.en.tilesNote,
    },
  };
  for (const [place, words] of Object.entries(places.zh)) assert.match(words, /眼镜/, `zh ${place}: ${words}`);
  for (const [place, words] of Object.entries(places.en)) assert.match(words, /glasses/, `en ${place}: ${words}`);
  assert.match(places.zh.recap, /12 副眼镜/, 'the recap’s promise: GPT-2’s 12 pairs, counted');
  assert.match(places.zh.gpt2, /一副一副/);
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
