// What §3's hand example (猫吃鱼) says, Chinese first and English second (the page's TEXT.{zh,en}.hand).
import { shown } from '../shared/errors.js';
import { FIGURE_LABELS } from '../shared/figure-labels.js';

/**
 * Names an entry of §3's matrices as its tables do (q[猫] 第 0 维, Wᴼ[3][3]: dimensions and columns count
 * from 0), so that an error about them reads the same in every section that shows one. `t` is TEXT[lang].hand.
 */
export const handEntryName = (t, tokens) => (matrix, row, col) => (matrix === 'wo' ? `Wᴼ[${row}][${col}]` : t.entryName(matrix, tokens[row], col));

// The "停一秒" callout (facts from pause.js): what changed, the heads on the first word's row, then lesson 8's
// hint. Each sentence is built from the facts alone: a tie is named as one, alike heads count as one view.
/** a, b and c: words may hold commas of their own, so the list is joined, never split again. */
const listed = (items, comma, and) => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(comma)}${and}${items.at(-1)}`);
const quotedZh = (words) => listed(words.map((w) => `“${w}”`), '、', '和');
const lookZh = (look, head) => (look.even
  ? `头 ${head + 1} 雨露均沾，均匀巡逻看得见的每个词（${look.share}% × ${look.count}）`
  : look.fixed
  ? `头 ${head + 1} 盯上了“${look.words[0]}”（${look.share}%）`
  : look.words.length > 1
  ? `头 ${head + 1} 最看${quotedZh(look.words)}，并列（各 ${look.share}%）`
  : `头 ${head + 1} 最看“${look.words[0]}”（${look.share}%）`);
/** 两, or the number spaced from the Chinese around it (`before` after a Chinese character). */
const countZh = (n, before = '') => (n === 2 ? '两' : `${before}${n} `);
const headListZh = (heads) => listed(heads.map((head) => `头 ${head + 1}`), '、', ' 和');

function viewsZh(f) {
  const n = f.views.length;
  if (n === f.heads) return `${countZh(f.heads)}套眼镜，${countZh(n)}种眼光。`;
  // Heads are compared on the first word's row only: on another row they may differ.
  if (n === 1) return `此刻${countZh(f.heads, ' ')}个头在“${f.word}”这一行上看法${f.heads === 2 ? '' : '都'}一样：眼镜多了，眼光却没分开。`;
  const alike = f.views.filter((group) => group.length > 1).map((group) => `${headListZh(group)} 看法相同`).join('，');
  return `在“${f.word}”这一行上，${countZh(f.heads)}套眼镜，却只有${countZh(n, ' ')}种眼光：${alike}。`;
}

function changesZh(f) {
  const names = {
    heads: () => `h（${f.lesson.heads} → ${f.heads}）`,
    mask: () => (f.causal ? '掩码（打开了）' : '掩码（关掉了）'),
    scale: () => (f.scaled ? '÷ √d_k 缩放（打开了）' : '÷ √d_k 缩放（关掉了）'),
    words: () => '词',
    numbers: () => 'q、k、v 里的数',
  };
  return `你改了：${f.changes.map((change) => names[change]()).join('、')}。`;
}

/** Multi-head's promise; when the heads were just seen looking alike, that only training delivers it. */
const sameView = (f) => f.heads > 1 && !f.alone && f.views.length === 1;
const promiseZh = (f) => (sameView(f)
  ? `多头能把不同的口味分给不同的头去尝，可眼下${countZh(f.heads, ' ')}个头尝的还是同一种——分工要靠训练。`
  : '多头把不同的口味分给不同的头去尝。');

function selfZh(f) {
  const { self } = f;
  const lessonSetting = !self.causal && self.scaled;
  const head = `一个不切的单头（d_k = ${self.dK}${self.causal ? '，戴着掩码' : ''}${self.scaled ? '' : '，不缩放'}）`;
  const row = `同一组 q、k、v 交给${head}，“${self.word}”这一行`;
  const lessonNote = lessonSetting || !f.lesson?.self ? '' : `（第 8 课的单头不戴掩码、要缩放，课文的数字下给自己 ${f.lesson.self.weight}）`;
  const others = self.topWords.filter((w) => w !== self.word);
  if (self.selfTop && others.length === 0) {
    return `${lessonSetting ? '这也兑现了第 8 课的伏笔' : '再看第 8 课的伏笔'}：${row}把最大的一份 ${self.weight} 给了自己${lessonNote}。那份“自恋”只是单头的一种口味；${promiseZh(f)}`;
  }
  const top = self.selfTop ? `与${quotedZh(others)}并列最大` : `最大的一份 ${self.topWeight} 给了${quotedZh(self.topWords)}${self.topWords.length > 1 ? `（各 ${self.topWeight}）` : ''}`;
  return `再看第 8 课的伏笔：${row}给自己 ${self.weight}，${top}${lessonNote}。单头只有这一种口味；${promiseZh(f)}`;
}

function pauseZh(f) {
  const looks = (facts) => facts.looks.map(lookZh).join('，');
  const changed = f.changed ? changesZh(f) : '';
  const ask = `${countZh(f.heads, ' ')}个头怎么看同一个词`;
  const said = f.heads === 1
    ? [`${changed}现在 h = 1：只有一套眼镜，“${f.word}”这一行只有一种看法（${looks(f)}）。把 h 改回 2，就能对照两个头怎么看同一个词。`]
    : f.oneWord
    ? [`${changed}现在只有一个词“${f.word}”：它只能看自己，每个头都把 100% 给了它，没什么可对照的。再添一个词，就能对照${ask}。`]
    : f.alone
    ? [`${changed}戴上掩码，句首的“${f.word}”只看得见自己，每个头都把 100% 给了它，没什么可对照的。关掉掩码，再对照${ask}。`]
    : f.changed
    ? [`${changed}现在同一个“${f.word}”：${looks(f)}。课文的数字是：${looks(f.lesson)}。${viewsZh(f)}`]
    : [`同一个“${f.word}”，${looks(f)}——${viewsZh(f)}没有谁对谁错：真实模型里哪种眼光有用，由训练说了算。`];
  if (f.self) said.push(selfZh(f));
  return said;
}

const quotedEn = (words) => listed(words.map((w) => `“${w}”`), ', ', ' and ');
const lookEn = (look, head) => (look.even
  ? `head ${head + 1} plays no favourites, patrolling evenly over the words it sees (${look.share}% × ${look.count})`
  : look.fixed
  ? `head ${head + 1} locks onto “${look.words[0]}” (${look.share}%)`
  : look.words.length > 1
  ? `head ${head + 1} looks most at ${quotedEn(look.words)}, tied (${look.share}% each)`
  : `head ${head + 1} looks most at “${look.words[0]}” (${look.share}%)`);
const countEn = (n) => (n === 2 ? 'two' : String(n));
const headListEn = (heads) => listed(heads.map((head) => `head ${head + 1}`), ', ', ' and ');

/** How many views the heads take, as a phrase (the caller makes it a sentence or part of one). */
function viewsEn(f) {
  const n = f.views.length;
  if (n === f.heads) return `${countEn(f.heads)} pairs of glasses, ${countEn(n)} ways of looking`;
  if (n === 1) return `right now ${f.heads === 2 ? 'the two' : `all ${f.heads}`} heads look alike on “${f.word}”'s row: more glasses, but no separate views`;
  const alike = f.views.filter((group) => group.length > 1).map((group) => `${headListEn(group)} look alike`).join('; ');
  return `on “${f.word}”'s row, ${f.heads} pairs of glasses, but only ${countEn(n)} ways of looking: ${alike}`;
}
const sentenceEn = (phrase) => `${phrase[0].toUpperCase()}${phrase.slice(1)}.`;

function changesEn(f) {
  const names = {
    heads: () => `h (${f.lesson.heads} → ${f.heads})`,
    mask: () => `the mask (now ${f.causal ? 'on' : 'off'})`,
    scale: () => `the ÷ √d_k scaling (now ${f.scaled ? 'on' : 'off'})`,
    words: () => 'the words',
    numbers: () => 'numbers in q, k or v',
  };
  return `You changed ${listed(f.changes.map((change) => names[change]()), ', ', ' and ')}. `;
}

const promiseEn = (f) => (sameView(f)
  ? `multi-head attention can hand different flavours to different heads, but right now the ${countEn(f.heads)} heads taste the same one — dividing the work is what training does.`
  : 'multi-head attention hands different flavours to different heads.');

function selfEn(f) {
  const { self } = f;
  const lessonSetting = !self.causal && self.scaled;
  const settings = [self.causal ? 'masked' : '', self.scaled ? '' : 'unscaled'].filter(Boolean).join(', ');
  const head = `a single uncut head (d_k = ${self.dK}${settings ? `, ${settings}` : ''})`;
  const lessonNote = lessonSetting || !f.lesson?.self ? '' : ` (lesson 8's single head, unmasked and scaled, gives itself ${f.lesson.self.weight} on the lesson's numbers)`;
  const others = self.topWords.filter((w) => w !== self.word);
  if (self.selfTop && others.length === 0) {
    return `${lessonSetting ? 'This pays off lesson 8\'s hint' : 'And lesson 8\'s hint'}: given the same q, k and v, ${head} gives the largest share of “${self.word}”'s row, ${self.weight}, to “${self.word}” itself${lessonNote}. That self-regard was only one flavour, a single head's; ${promiseEn(f)}`;
  }
  const top = self.selfTop ? `tied for the largest with ${quotedEn(others)}` : `and its largest share, ${self.topWeight}${self.topWords.length > 1 ? ' each' : ''}, to ${quotedEn(self.topWords)}`;
  return `And lesson 8's hint: given the same q, k and v, ${head} gives “${self.word}” ${self.weight} of its own row, ${top}${lessonNote}. A single head has that one flavour; ${promiseEn(f)}`;
}

function pauseEn(f) {
  const looks = (facts) => facts.looks.map(lookEn).join('; ');
  const changed = f.changed ? changesEn(f) : '';
  const ask = `how the ${countEn(f.heads)} heads look at it`;
  const said = f.heads === 1
    ? [`${changed}Now h = 1: one pair of glasses, one way of looking at “${f.word}” (${looks(f)}). Set h back to 2 to compare how two heads look at the same word.`]
    : f.oneWord
    ? [`${changed}There is only one word, “${f.word}”: it can look only at itself, so every head gives it 100% and there is nothing to compare. Add a word to compare ${ask}.`]
    : f.alone
    ? [`${changed}With the mask on, the first word “${f.word}” sees only itself: every head gives it 100%, so there is nothing to compare. Switch the mask off to compare ${ask}.`]
    : f.changed
    ? [`${changed}Now, for the same “${f.word}”: ${looks(f)}. The lesson's numbers: ${looks(f.lesson)}. ${sentenceEn(viewsEn(f))}`]
    : [`The same “${f.word}”: ${looks(f)} — ${viewsEn(f)}. Neither is right or wrong: in a real model, training decides which view is useful.`];
  if (f.self) said.push(selfEn(f));
  return said;
}

export const HAND_TEXT = {
  zh: {
    lead: '沿用前几课的小例子：3 个词，每个词的 q、k、v 都是 4 维小整数。设 h = 2，则 d_k = 4 ÷ 2 = 2：头 1 拿第 0、1 维，头 2 拿第 2、3 维，数值本身一个都不改。每个头再独立走一遍注意力的四步：点积打分、除以 √d_k、softmax、按配比加权 v。',
    // Lesson mode's mask note, short enough to read out from the screen.
    maskNoteShort: '课文说每个头都戴掩码，但它的数字是不戴掩码算的，所以这里先关着掩码。',
    maskNote: '关于掩码：课文的叙述说每个头都要加上第 9 课的因果掩码，但它给出的数字（例如“猫”在头 1 的配比 [0.25, 0.25, 0.50]）其实是不加掩码算出来的——加了掩码，句首的“猫”只能看自己。所以这里默认关闭掩码，数字与课文一致；打开它，看上三角如何变成 0。',
    editHint: '拖动任意数字（左右拖，或用键盘方向键）即可修改；点一下数字，下方会出现对应的滑块和输入框。',
    headsLabel: '头数 h',
    mask: '因果掩码（只看自己和前面的词）',
    scale: '除以 √d_k 缩放',
    tokensLabel: '词',
    addToken: '添加一个词',
    removeToken: (t) => `删除“${t}”`,
    renameToken: (i) => `第 ${i + 1} 个词的名字`,
    reset: '恢复课文的数值',
    selected: '当前选中',
    selectedNone: '点一下上面表格里的任意数字来选中它。',
    sliderLabel: (name) => `${name} 的值`,
    typedLabel: (name) => `输入 ${name} 的值`,
    outOfRange: (min, max, kept) => `只能填 ${shown(min)} 到 ${shown(max)} 之间的数，现在仍是 ${shown(kept)}。`,
    entryName: (m, token, d) => `${m}[${token}] 第 ${d} 维`,
    headTitle: FIGURE_LABELS.zh.head,
    headDims: (a, b) => `第 ${a}–${b} 维`,
    headDim: (a) => `第 ${a} 维`,
    slice: (m) => `${m} 的切片`,
    dots: '打分 q·kᵀ',
    scaled: (dk) => `缩放后 ÷ √${dk}`,
    scaledOff: '缩放已关闭：与打分相同',
    weights: 'softmax 配比',
    headOutput: '头输出 = 配比 · v',
    concatTitle: 'Concat：把各头输出按列拼回 d_model 维',
    concatNote: '拼接本身没有参数，只是把各头的列并排放；色带标出每列来自哪个头。被关掉的头在这里是 0。',
    woTitle: 'Wᴼ：融合矩阵（可拖动修改，默认单位矩阵）',
    woNote: '把 Wᴼ 想成一位主管：每个头是一名调查员，交上来的报告就是 Concat 里属于它的那几列；主管看完所有报告，定下每份采纳几成，再合写成一份结论（输出）。单位矩阵就是主管一字不改、各份照单全收；改动某一格，就是让某份报告在某一列的结论里多占或少占。',
    woReset: '恢复单位矩阵',
    outputTitle: '输出 = Concat · Wᴼ',
    weightLegend: FIGURE_LABELS.zh.weightLegend,
    signedLegend: '打分、缩放后的分数和输出（负 ↔ 正，同一刻度：颜色相同，数就相同）',
    rowHeader: '查询词',
    pauseTitle: '停一秒',
    pause: pauseZh,
  },
  en: {
    lead: 'The small example from the earlier lessons: 3 words, each with a 4-dimensional q, k and v of small integers. With h = 2, d_k = 4 ÷ 2 = 2: head 1 takes dimensions 0 and 1, head 2 takes dimensions 2 and 3, and no value changes. Each head then runs the four steps of attention on its own: dot-product scores, divide by √d_k, softmax, weighted sum of v.',
    maskNoteShort: 'The lesson says every head wears the mask, but its numbers are computed without it: so the mask starts off here.',
    maskNote: 'About the mask: the lesson\'s text says every head wears lesson 9\'s causal mask, but its numbers (such as head 1\'s weights for 猫, [0.25, 0.25, 0.50]) are computed without it — with the mask, the first word 猫 could only look at itself. So the mask starts off here and the numbers match the lesson; switch it on and watch the upper triangle drop to 0.',
    editHint: 'Drag any number (left/right, or use the arrow keys) to change it; click a number to get a slider and a text field for it below.',
    headsLabel: 'Heads h',
    mask: 'Causal mask (look only at itself and earlier words)',
    scale: 'Scale by 1/√d_k',
    tokensLabel: 'Word',
    addToken: 'Add a word',
    removeToken: (t) => `Remove “${t}”`,
    renameToken: (i) => `Name of word ${i + 1}`,
    reset: 'Restore the lesson\'s numbers',
    selected: 'Selected',
    selectedNone: 'Click any number in the tables above to select it.',
    sliderLabel: (name) => `Value of ${name}`,
    typedLabel: (name) => `Type the value of ${name}`,
    outOfRange: (min, max, kept) => `Only numbers from ${shown(min)} to ${shown(max)}; it stays ${shown(kept)}.`,
    entryName: (m, token, d) => `${m}[${token}] dimension ${d}`,
    headTitle: FIGURE_LABELS.en.head,
    headDims: (a, b) => `dimensions ${a}–${b}`,
    headDim: (a) => `dimension ${a}`,
    slice: (m) => `${m} slice`,
    dots: 'Scores q·kᵀ',
    scaled: (dk) => `Scaled ÷ √${dk}`,
    scaledOff: 'Scaling is off: same as the scores',
    weights: 'Softmax weights',
    headOutput: 'Head output = weights · v',
    concatTitle: 'Concat: the head outputs side by side, back to d_model columns',
    concatNote: 'Concatenation has no parameters; it only places the heads\' columns next to each other. The band shows which head each column came from. A switched-off head gives zeros here.',
    woTitle: 'Wᴼ: the merging matrix (drag to edit; identity by default)',
    woNote: 'Think of Wᴼ as a supervisor: each head is an investigator, and its report is its columns of the concat; the supervisor reads every report, decides how much of each to take, and writes them into one conclusion, the output. The identity is a supervisor who takes every report whole and changes nothing; changing an entry gives one report more or less say in one column of the conclusion.',
    woReset: 'Back to the identity',
    outputTitle: 'Output = Concat · Wᴼ',
    weightLegend: FIGURE_LABELS.en.weightLegend,
    signedLegend: 'Scores, scaled scores and output (negative ↔ positive, one scale: same colour, same number)',
    rowHeader: 'query',
    pauseTitle: 'Stop for a second',
    pause: pauseEn,
  },
};
