// Every word the page shows, Chinese first and English second. Written for this page; numbers in the
// sentences are filled in from the live core by the sections. Error sentences come from the shared table.
import { ERROR_TEXT } from '../shared/errors.js';
import { FIGURE_LABELS } from '../shared/figure-labels.js';
import { HAND_TEXT } from '../hand/strings.js';
import { PIPELINE_TEXT } from '../pipeline/strings.js';
import { grouped } from '../ui/section.js';

// §5 gives each shape for the hand example and for section 1's sizes (GPT-2's by default); `bill` is
// { dModel, heads, dK, gpt2 }, or null while section 1 refuses its numbers.
const billHeadsZh = (bill) => (!bill ? '' : bill.gpt2 ? `，GPT-2 装了 ${bill.heads} 套` : `，第一节里此刻是 ${bill.heads}`);
const billShapeZh = (bill, shape) => (!bill ? '' : bill.gpt2 ? `，GPT-2（d_model = ${bill.dModel}，h = ${bill.heads}）里是 ${shape(bill)}` : `，按第一节的 d_model = ${bill.dModel}、h = ${bill.heads} 是 ${shape(bill)}`);
const billHeadsEn = (bill) => (!bill ? '' : bill.gpt2 ? ` (GPT-2 wears ${bill.heads})` : ` (${bill.heads} in section 1 now)`);
const billShapeEn = (bill, shape) => (!bill ? '' : bill.gpt2 ? `, ${shape(bill)} in GPT-2 (d_model = ${bill.dModel}, h = ${bill.heads})` : `, ${shape(bill)} with section 1's d_model = ${bill.dModel} and h = ${bill.heads}`);

/**
 * A count in 万 or 亿, as a Chinese class reads it: at least three significant figures, whole units once
 * there are more (21,233,664 → 2123 万, 2,359,296 → 236 万, the lesson's own). `exact` says whether the
 * rounding lost nothing. Null below 1 万, where the count is short enough to read as it is.
 */
export function inWan(count) {
  if (count < 1e4) return null;
  const round = (size) => Number((count / size).toFixed(Math.max(0, 3 - String(Math.floor(count / size)).length)));
  // 99,999,999 rounds to 10000 万: that is 1 亿.
  const [unit, size] = round(1e4) < 1e4 ? ['万', 1e4] : ['亿', 1e8];
  const rounded = round(size);
  return { text: `${rounded} ${unit}`, exact: Math.round(rounded * size) === count };
}
const approxZh = (count) => {
  const wan = inWan(count);
  return !wan ? '' : `（${wan.exact ? '即' : '约'} ${wan.text}）`;
};

export const TEXT = {
  zh: {
    htmlLang: 'zh-CN',
    docTitle: '多头注意力 —— 一个头一种眼光 · Transformer 实现机制 · 第 10 课',
    switchLang: 'English',
    switchLangLabel: 'Switch to English',
    kicker: 'Transformer 实现机制 · 第 10 课',
    title: '多头注意力 —— 一个头一种眼光',
    intro: [
      '单头注意力只戴一套眼镜：一套 Q/K/V 替整句话算出一张配比表（第 8 课的叫法：softmax 替每个词把注意力分成几成），“猫”该看“鱼”多少，就只有那一个数。可一句话里的关系不止一种——代词要找它指的人，动词要找宾语，形容词要找它修饰的名词，语气词要找情绪落在哪里。一套眼镜只有一种眼光，多戴几套的人才看得更全：这就是多头注意力的全部动机。第 8 课埋下的伏笔（“吃”把最大的一份配比给了自己，换成多个头就会各有所爱），也在这一课兑现。',
      '多头注意力给几个“头”各配一套眼镜：每个头在同一句话上按自己的方式算一遍注意力，最后把它们看到的合起来。本页的每一个数字都由编译成 WebAssembly 的 C 注意力内核在你的浏览器里实时算出；拖动任何数字，所有图都会跟着变。',
    ],
    toc: '目录',
    sections: {
      bill: '一、朴素方案和它的账单：多装几套眼镜要花多少',
      split: '二、切分，不是重复：切 → 各算各的 → 拼 + 融合',
      hand: '三、亲手切：把「猫吃鱼」分给两个头',
      pipeline: '四、流水线：切分 → 各头计算 → 拼接 → Wᴼ',
      formula: '五、公式：论文里的那一行',
      code: '六、代码：课文的两段程序',
      views: '七、换个角度看注意力',
      ablation: '八、关掉一个头会怎样',
      train: '九、训练：看两个头学出两种眼光',
      poems: '十、真实模型里的头',
      quiz: '十一、检索练习',
      share: '十二、分享与导出',
      gqa: '十三、多头之后：共用 K 和 V 的头（MQA、GQA）',
    },
    bill: {
      lead: '改动最小的想法谁都想得到：要几种眼光，就多装几套眼镜——h 套互不相干的 W_Q、W_K、W_V，每套都是完整的 d_model × d_model，各算各的注意力，输出再拼起来。论文的办法则是把 d_model 维切成 h 段，每个头只拿 d_k = d_model ÷ h 维，最后用一个 Wᴼ（d_model × d_model）把各头的结果融合（下一节细说）。先别急着写代码，改一改下面的数，算算两种做法的账。',
      dModel: 'd_model（模型维度）',
      heads: 'h（头数：装几套眼镜）',
      naive: '朴素做法：h 套完整的眼镜（只有 Q/K/V，不含 Wᴼ）',
      naiveFormula: 'h · 3 · d_model²',
      split: '论文做法：切分 + Wᴼ',
      splitFormula: '3 · d_model² + d_model²',
      ratio: '朴素做法（不含 Wᴼ）是切分做法（含 Wᴼ）的',
      times: '倍',
      likeWithLike: ({ naive, split, ratio, wo }) => `两边只数同样的东西——Q/K/V 三套眼镜：朴素 ${naive}，切分 ${split}，${ratio === '1' ? '两者一样多' : `朴素是切分的 ${ratio} 倍`}；切分做法另加的只有一个 Wᴼ（${wo} 个参数）。`,
      identity: '单头 + 输出投影（h = 1）：',
      identityNote: '——切分做法与它完全相等：4 · d_model²。多出来的几种看法不花额外参数。',
      dk: '每个头的维度 d_k = d_model ÷ h =',
      waste: (dModel, heads, ratio) => (heads === 1
        ? '只装一套眼镜时谈不上重复。h 一大，朴素做法就多出一笔看不见的浪费：每套眼镜都在同一个完整空间里学习，学到的东西多半彼此重叠。'
        : `朴素做法还有一笔看不见的浪费：这 ${heads} 套眼镜都在同一个 ${dModel} 维的完整空间里各干各的，学出来的东西多半高度重叠——花了 ${ratio} 倍的钱，买到的是 ${heads} 份差不多的目光。问题不在要不要多装几套眼镜，而在怎么装得便宜。`),
      gpt2: '默认值是 GPT-2 的设置：d_model = 768，h = 12。',
      params: '个参数',
      approx: approxZh,
    },
    split: {
      lead: '《Attention Is All You Need》换了个问法，答案就便宜了：不再给每个头各买一台完整的望远镜，而是把手上这一台的视野分成 h 段，每个头只管自己那一段，各看各的。具体分三步：',
      steps: [
        {
          title: '切',
          text: '望远镜分段，就是把 d_model 维切成 h 份，每个头拿 d_k = d_model ÷ h 维。q、k、v 按同样的列切，数值一个不改。',
          live: (n) => `按第一节的数：d_k = ${n.dModel} ÷ ${n.heads} = ${n.dK}`,
        },
        {
          title: '各算各的',
          text: '每个头只在自己那几维的小空间里，独立走第 8 课的四步：打分 → 缩放 → softmax → 加权 v；要掩码时，每个头都戴上第 9 课的掩码。h 张小配比表，互不干扰。',
          live: (n) => `${n.heads} 个头，${n.heads} 张 L × L 的配比表，每个头只看 ${n.dK} 维`,
        },
        {
          title: '拼 + 融合',
          text: '把 h 份输出按列拼回 d_model 维（Concat，纯拼接，没有参数），再乘一个可训练的 Wᴼ：各头开会碰个头，由 Wᴼ 决定每个头的话听几成。',
          live: (n) => `拼回 ${n.heads} × ${n.dK} = ${n.dModel} 维，再乘 ${n.dModel} × ${n.dModel} 的 Wᴼ`,
        },
      ],
      waiting: '第一节的 d_model 和 h 改成能整除的数之后，这里的数会跟着变。',
      next: '切分不改参数总量：h 套小眼镜加起来仍是 3 × d_model²，再加 Wᴼ 的 d_model²。下一节就拿「猫吃鱼」亲手切一遍。',
    },
    hand: HAND_TEXT.zh,
    // Pointing at a cell of a figure (ui/explore.js).
    explain: {
      hint: '想知道图里某个数是怎么来的？把鼠标移到它上面，或点一下、用 Tab 键聚焦后按方向键：算式会用当前的数写出来，它用到的格子会被框出。',
      pipelineHint: '图里的每一格都能指着看：鼠标移上去、点一下，或用 Tab 键聚焦后按方向键，就会写出它的算式。',
    },
    pipeline: PIPELINE_TEXT.zh,
    formula: {
      lead: '《Attention Is All You Need》里多头注意力只有一行。公式下面按顺序逐个解释每个符号，可以从头到尾照着读一遍；把鼠标移到（或用 Tab 键聚焦）公式或列表里的符号，流水线会标出它对应的部分。',
      symbolsTitle: '逐个符号',
      formulaLabel: 'MultiHead(Q, K, V) 等于 Concat(head 1 到 head h) 乘以 W O；head i 等于 Attention(Q 乘 W i Q, K 乘 W i K, V 乘 W i V)',
      // In reading order: the lesson's (h, W_i, head_i, Concat, Wᴼ) with the formula's other symbols where they fall.
      // `s` holds the hand example's shape, section 1's (s.bill, null when refused) and head 1's first row.
      symbols: {
        h: ['h', (s) => `头数：装几套眼镜，是训练前就定下的超参数。手算例子里 h = ${s.heads}${billHeadsZh(s.bill)}。下标 i = 1…h 说的是第几套眼镜（第几个头），不是词的位置。`],
        q: ['Q, K, V', (s) => `整句的查询、键、值，形状 L × d_model：手算例子里是 ${s.L}×${s.dModel}。`],
        wq: ['W_i^Q', (s) => `第 i 个头自己的三副小眼镜之一（给 q 的那副），形状 d_model × d_k：手算例子里是 ${s.dModel}×${s.dK}${billShapeZh(s.bill, (b) => `${b.dModel}×${b.dK}`)}。它是从完整的 W_Q（d_model × d_model）按列切下的第 i 段：实际实现先把整个 W_Q 一次乘完，再把结果按列分给各个头。手算例子里 q 已经投影好了，所以第 i 个头直接取 q 的第 i 段列。`],
        wk: ['W_i^K', (s) => `第 i 个头的第二副小眼镜，给 k：同样是 d_model × d_k，手算例子里 ${s.dModel}×${s.dK}${billShapeZh(s.bill, (b) => `${b.dModel}×${b.dK}`)}。`],
        wv: ['W_i^V', (s) => `第 i 个头的第三副小眼镜，给 v：同样是 d_model × d_k，手算例子里 ${s.dModel}×${s.dK}${billShapeZh(s.bill, (b) => `${b.dModel}×${b.dK}`)}。`],
        attention: ['\\text{Attention}', (s) => `单头注意力的四步：打分、缩放、softmax、加权 v；每个头得到一张 L × L = ${s.L}×${s.L} 的配比表。`],
        head: ['\\text{head}_i', (s) => `第 i 个头走完四步后的输出，形状 L × d_k = ${s.L}×${s.dK}。${s.firstRow ? `第三节里头 1 的“${s.firstRow.word}”行此刻是 [${s.firstRow.values.join(', ')}]，就是那里一步步算出来的那一行。` : ''}`],
        concat: ['\\text{Concat}', (s) => `把 h 个头的输出按列并排，拼回 L × d_model = ${s.L}×${s.dModel}；只是重新排放，没有参数。`],
        wo: ['W^O', (s) => `输出融合矩阵，d_model × d_model：手算例子里是 ${s.dModel}×${s.dModel}${billShapeZh(s.bill, (b) => `${b.dModel}×${b.dModel}`)}。可以把它当成一台“会议纪要整合器”：各头的发言都原样记在 Concat 里，Wᴼ 把它们跨头整理成一份结论——第三节里那位定下每份报告采纳几成的主管，就是它。`],
        multihead: ['\\text{MultiHead}(Q,K,V)', (s) => `整层的输出，形状 L × d_model = ${s.L}×${s.dModel}，和输入一样大。`],
      },
      countTitle: '参数账',
      countNote: 'h 个头的小眼镜加起来是 h × 3 × d_model × d_k = 3 × d_model²（切分不改总量），再加 Wᴼ 的 d_model²，共 4 × d_model²：多出来的几种眼光不多花一个参数。',
      subscriptsTitle: '下标别认错',
      subscripts: (s) => `Wᴼ 的 O 是 Output（输出）的 O，不是数字 0；W_i 的 i 是头的编号；这里的 d_k = d_model ÷ h = ${s.dModel} ÷ ${s.heads} = ${s.dK}，是一个头的宽度，不是第 8 课单头时那个等于 d_model 的 d_k。同一个记号换了场合，意思就跟着换。`,
    },
    code: {
      lead: '课文的第六部分是两段 numpy 程序，下面原样照录：一段用数字核对参数账和形状链，一段把多头注意力写成一个类。numpy 的 RandomState 是确定的，同一个种子抽出的随机数一模一样；本页用与 numpy 逐位相同的随机数生成器，把同样的矩阵交给注意力内核，所以每段程序下面的输出，就是 Python 运行它时打印的内容。',
      restored: '课文排版时程序丢了缩进，这里按 Python 的语法补了回来（循环、函数、类和方法的主体），其余一字未改。',
      seedA: '程序一只打印参数个数和形状，所以换种子时矩阵里的随机数变了，打印结果却一字不变：形状与数值无关。',
      seedB: '改一下程序二的种子试试：程序里的种子、两张配比表和最后一行的对比都会跟着变。',
      seed: '种子',
      programA: '程序一：切分账本与形状体检',
      programB: '程序二：GPT 同款的多头注意力类',
      copy: '复制程序',
      copied: '已复制',
      selected: '已选中，按 Ctrl+C 复制',
      output: '输出（由注意力内核计算，与 Python 打印的一致）',
      randomNote: '随机初始化的头没有语义：两个头的配比不同，只是因为各自的权重抽到了不同的随机数。“盯着宾语的头”“指代头”之类的分工要靠训练才会出现。',
    },
    // The lesson's closing questions, answered with the core's numbers (sections/questions.js computes them).
    questions: {
      title: '老师答疑：课上常被问到的四个问题',
      lead: '课文最后留了几个好问题。下面每个都答得很短，数字由注意力内核算出，链接指向页面上能亲手验证它的地方。',
      see: '去看：',
      items: [
        {
          id: 'heads',
          question: '头数 h 怎么选？',
          answer: (f) => `h 是训练前定下的超参数，没有标准答案。d_model 固定时，h 只决定怎么切，不改参数总数：d_model = ${f.dModel} 时，h = ${f.tried.join('、')} 的多头注意力分别有 ${f.counts.join('、')} 个参数，一个不差；变的只是每个头的宽度 d_k（${f.widths.join('、')}）。头越多，眼光的种类越多，每个头能用的维数却越少；GPT-2 取 h = ${f.heads}，每个头 ${f.dModel / f.heads} 维。第八节看关掉一个头的代价，第九节比较 h = 1 和 h = 2 训练出来的样子。`,
          link: { href: '#bill', text: (sections) => sections.bill },
        },
        {
          id: 'divide',
          question: 'h 不能整除 d_model 行不行？',
          answer: (f) => `不行：切分要让每个头分到同样多的维，d_model ÷ h 必须是整数（课文程序二的类一开头就用 assert 检查这一条）。在第一节把 h 填成 ${f.notDividing}，账单会拒绝，并说明原因：“${f.refusal}”`,
          link: { href: '#bill', text: (sections) => sections.bill },
        },
        {
          id: 'wo',
          question: 'Wᴼ 能不能省？',
          answer: (f) => `省掉 Wᴼ，就等于让它永远是单位矩阵：输出只是 Concat，各头的结论并排放着，彼此从不混合。第三节打开时 Wᴼ 正是单位矩阵，“${f.word}”的输出就是 Concat 的那一行 ${f.output}：前 ${f.handDK} 格只来自头 1，后 ${f.handDK} 格只来自头 2。有了 Wᴼ，输出的每一列都能按学到的比例综合所有头；它的代价是 d_model² 个参数（d_model = ${f.dModel} 时是 ${f.woCount} 个），就是账单里“+ d_model²”那一笔。`,
          link: { href: '#wo-note', text: () => '第三节的 Wᴼ：拖动一格试试' },
        },
        {
          id: 'q',
          question: '切 k、v 好理解，为什么 q 也要切？',
          answer: (f) => `打分是 q 和 k 的点积，两边必须一样长：头 i 的 k 只有 d_k 维，它的 q 也只能是同样位置的那 d_k 维；只切 k、v 而留着完整的 q，维数对不上，点积算不出来。切下来的 q 就是这个头“想问什么”：按课文的数，头 2 拿到的 q_${f.word} 是 ${f.qSlice}，和每个 k 的点积都是 0，所以“${f.word}”在头 2 的配比是 ${f.secondHeadRow}，平均分。`,
          link: { href: '#hand', text: (sections) => sections.hand },
        },
      ],
    },
    views: {
      lead: '热力图之外，还可以把注意力画成连线：左边是发出查询的词，右边是被看的词，线越粗越深表示配比越大，每个头一种颜色（BertViz 的 head view 就是这么画的）。头多、句子长的时候，把所有头的热力图排成网格更容易一眼比较。',
      source: '数据来源',
      sourceHand: '上面的手算例子',
      sourceBig: '更大的随机模型',
      bigNote: '随机模型：词向量 X 和 Wq、Wk、Wv 都由种子生成（与程序二同样的做法），所以词的“意思”并不影响结果——这里看的是形状和分布，不是语义。试试 d_model 64、h 8、十几个词。',
      dModel: 'd_model',
      heads: 'h',
      sentence: '句子（有空格按空格分词，否则一个字一个词）',
      seed: '种子',
      weightScale: (w) => `权重大小 ×${w}（越大，注意力越集中）`,
      causal: '因果掩码',
      focus: '只看这个词的连线',
      focusAll: '全部',
      showHeads: '显示哪些头',
      oneHead: '只看一个头的连线（指向预览，点一下固定）',
      allHeads: '全部',
      lines: '连线视图',
      grid: '所有头的热力图',
      linesTitle: '注意力连线：左边是查询词，右边是被看的词',
      gridTitle: '每个头的配比表',
      query: FIGURE_LABELS.zh.query,
      key: FIGURE_LABELS.zh.key,
      drawnHeads: FIGURE_LABELS.zh.drawnHeads,
      drawing: (total) => `正在抽取 ${total} 个随机数（与 numpy 同一串）……`,
    },
    ablation: {
      lead: '把某个头关掉，它在 Concat 里的那几列就变成 0，输出也随之改变。对比全部头开启时的输出，看看每个头贡献了什么。',
      paper: '延伸阅读：Michel 等人的《Are Sixteen Heads Really Better than One?》发现，训练好的模型里有不少头可以剪掉而几乎不掉点。',
      toggle: (i) => `头 ${i + 1} 开启`,
      allOn: '全部头开启时的输出',
      current: '当前输出',
      diff: '差值（当前 − 全开）',
      noChange: '所有头都开着，差值为 0。关掉一个头试试。',
    },
    quiz: {
      lead: '合上上面的内容，试着回答。每道题的答案都在你按“核对”时由当前页面的模型实时算出；答错或揭晓的题，隔两道题后会再出现一次。',
      counting: '数法：本页的维和列从 0 数起（和代码里的下标一样），头、词和行从 1 数起。',
      check: '核对',
      reveal: '揭晓',
      next: '下一题',
      restart: '再练一遍',
      correct: (why) => `对了！${why}`,
      wrong: '还不对，再想想；也可以揭晓答案，或先做下一题，这道稍后再来。',
      pickFirst: '先填上答案（或选一项）再核对。',
      cannotSolve: '这道题用页面上此刻的数字来算，可它们算不出结果（原因见上）。把那些数改好再回来做，或者先做下一题——这道题过一会儿还会再出现。',
      revealed: (answer, why) => `答案：${answer}。${why}这道题隔两道题后会再出现。`,
      progress: (done, total, left) => `已完成 ${done} / ${total} 题 · 还剩 ${left} 题`,
      returning: '之前没答对的题，再来一次',
      finished: (total, first) => `全部完成！${total} 道题里有 ${first} 道第一次就答对。`,
      bill: {
        prompt: '按 GPT-2 的设置（d_model = 768，h = 12），朴素做法（h 套完整 Q/K/V）的参数量是切分做法（含 Wᴼ）的几倍？',
        why: (naive, split, ratio) => `朴素做法 ${naive} 个参数，切分做法 ${split} 个，相除得 ${ratio}。`,
      },
      dk: {
        prompt: 'GPT-2 的 d_model = 768、h = 12，每个头的维度 d_k 是多少？',
        why: (dModel, heads, dK) => `d_k = d_model ÷ h = ${dModel} ÷ ${heads} = ${dK}。`,
      },
      split: {
        prompt: (word) => `如果改动“${word}”的 q 的第 3 维（从 0 数起，即第四列），在当前设置下哪个头的配比表会变？`,
        all: '所有头都会变',
        none: '都不变',
        why: (list) => `内核验证：把这一维加 1 后，变化的头是 ${list}。每一维只属于一个头的切片，别的头根本看不见它。`,
        nothing: '没有',
      },
      predict: {
        prompt: (head, word) => `先预测：在当前设置下，头 ${head} 里“${word}”这一行的配比各是多少？（填两位小数）`,
        why: (row) => `内核给出的这一行：[${row}]。`,
      },
      mask: {
        prompt: (word) => `打开因果掩码后，第 1 个词“${word}”在头 1 里给自己的配比是多少？`,
        why: (weight) => `句首的词前面没有词，掩码遮住了这一行的其余格子，softmax 后它给自己的配比是 ${weight}。`,
      },
      scale: {
        prompt: '和除以 √d_k 相比，不除的话，在当前设置下头 1 的配比会怎样？',
        options: ['更集中（更尖）', '更平均', '完全不变'],
        why: (dK, root) => `当前 d_k = ${dK}，√d_k = ${root}。${root === '1' ? '除以 1 等于没除，配比一样。' : `不除，分数都大了 ${root} 倍，softmax 就更集中。`}`,
      },
      concat: {
        prompt: '把各头的输出拼接（Concat）之后，在当前设置下每个词的向量有几维？',
        why: (heads, dK, width) => `${heads} 个头各 ${dK} 维，拼起来 ${heads} × ${dK} = ${width} 维，回到 d_model。`,
      },
      wo: {
        prompt: '如果 Wᴼ 是单位矩阵，输出等于什么？',
        options: ['Concat 本身', '头 1 的输出', '各头输出逐项相加'],
        why: (list) => `内核验证：在当前设置下把 Wᴼ 换成单位矩阵，输出与这些相同：${list}。`,
      },
      ablation: {
        prompt: '关掉头 1 后，Concat 的哪几列会变成 0？（列从 0 数起，可多选）',
        column: (c) => `第 ${c} 列`,
        why: (list) => `内核验证：关掉头 1 后全为 0 的列是 ${list}——正是头 1 的切片。`,
      },
      train: {
        prompt: '训练区的模型 d_model = 8。把 h 从 1 改成 4，注意力层（W_Q、W_K、W_V、Wᴼ）的参数量会怎样？',
        options: ['变多', '不变', '变少'],
        why: (one, four) => `h = 1 时 ${one} 个，h = 4 时 ${four} 个：切法不同，总数相同，所以训练区比的是切法，不是参数多少。`,
      },
    },
    share: {
      lead: '页面的全部状态都写在网址里：复制链接发给别人，对方打开就是你现在看到的样子。图也可以导出成 SVG 或 PNG。',
      copy: '复制链接',
      copied: '已复制',
      link: '当前链接',
      pipelineSvg: '流水线 SVG',
      pipelinePng: '流水线 PNG',
      heatmapsSvg: '热力图 SVG',
      heatmapsPng: '热力图 PNG',
      heatmapsTitle: '各头的配比表',
      // What a link leaves out of a long text (state.js linkClips), so that it always opens.
      leftOut: {
        'poems.text': (kept) => `诗太长，链接里只保留了前 ${kept} 个字。`,
        'views.sentence': (kept) => `句子太长，链接里只保留了前 ${kept} 个字符。`,
      },
    },
    recap: {
      title: '学完这一课，你能',
      // The lesson's six closing points, in order, with recap.js's numbers from the core; then two of the page's own.
      items: ({ naive, split, word, heads: [one, two] }) => [
        '说清单头的窘境：一套眼镜只有一种眼光、一张配比表，一句话里的几种关系只能挤在这张表里被平均掉。',
        `算出朴素方案的账单：按 GPT-2 的 d_model = 768、h = 12，装 12 套完整的眼镜要 ${grouped(naive)} 个参数${approxZh(naive)}，学到的东西还多半重叠。`,
        '说出论文的改法为什么是切分，不是重复：d_k = d_model ÷ h，每个头只在自己那几维里独立走四步（打分、除以 √d_k、softmax、加权 v，要掩码时每个头都戴），拼回来再由 Wᴼ 融合。',
        `亲手把「猫吃鱼」切给两个头（h = 2）：同一个“${word}”，头 1 把 ${one.share}% 给了“${one.words[0]}”，头 2 均匀地各给 ${two.share}%——同一只猫，两种眼光，第 8 课的伏笔就此兑现。`,
        '逐个符号读懂论文里的那一行：MultiHead(Q, K, V) = Concat(head₁, …, head_h) Wᴼ。',
        `算出多头的参数账：切分加 Wᴼ 共 4 · d_model²，和单头加输出投影一样多——GPT-2 一层是 ${grouped(split)} 个${approxZh(split)}，多出的几种眼光不多花一个参数。`,
        '关掉一个头，从输出和损失的变化看出它做了什么；明白头的分工是训练出来的。',
        '数清 GPT-2 一层的 12 副眼镜：在第十节打开它的文件，一层 12 个头，一副一副看过去，看每副盯着哪里。',
      ],
    },
    reading: {
      title: '接下来读什么',
      items: [
        { title: '《Attention Is All You Need》', href: 'https://arxiv.org/abs/1706.03762', note: '（Vaswani 等，2017）：多头注意力的出处，本页那一行公式在论文第 3.2.2 节。' },
        { title: '《Are Sixteen Heads Really Better than One?》', href: 'https://arxiv.org/abs/1905.10650', note: '（Michel、Levy、Neubig，2019）：训练好的模型里许多头可以剪掉而几乎不掉点；第八节的消融是它的小型版本。' },
        'Vizuara《The Transformers》1.16 节：多头注意力的完整推导，图和本页的流水线一一对应。',
        'The Illustrated Transformer 的多头注意力一节：用彩色的多组 Q/K/V 箭头讲同一件事。',
        '下一课：网络变深为什么会不稳定——残差连接与 LayerNorm。',
      ],
    },
    // One sentence per code, for errors that carry no details.
    ...ERROR_TEXT.zh,
    notANumber: '这不是一个数。',
    // A number box refusing a number outside its range, the value in use `kept`.
    wholeRange: (min, max, kept) => `只能填 ${min.toLocaleString('en-US')} 到 ${max.toLocaleString('en-US')} 之间的整数，现在仍是 ${kept}。`,
    loading: '正在加载注意力内核……',
    presentHint: '在投影仪前讲课：按 P 键（光标不在输入框里时）进入课堂模式，一屏讲一部分，图放大，长段说明收起；用 → ← 或翻页笔（PageDown / PageUp）切换，按 Esc 或 P 回到平常的样子。地址里加上 ?present=1，打开就是课堂模式。',
  },

  en: {
    htmlLang: 'en',
    docTitle: 'Multi-head attention — one head, one way of looking · How Transformers are built · Lesson 10',
    switchLang: '中文',
    switchLangLabel: '切换到中文',
    kicker: 'How Transformers are built · Lesson 10',
    title: 'Multi-head attention — one head, one way of looking',
    intro: [
      'A single attention head wears one pair of glasses: one set of Q/K/V scores the whole sentence into a single table of weights, so how much 猫 (cat) looks at 鱼 (fish) is one number. But a sentence holds many kinds of relation at once — a pronoun and what it refers to, a verb and its object, an adjective and its noun, a particle and the feeling it lands on. One pair of glasses gives one way of seeing; whoever wears several sees more. That is the whole motive for multi-head attention, and this lesson settles the hint lesson 8 left (吃, "eat", gave its largest weight to itself; with several heads, each has favourites of its own).',
      'Multi-head attention gives several "heads" a pair of glasses each: every head runs attention over the same sentence in its own way, and what they see is merged at the end. Every number on this page is computed live in your browser by a C attention core compiled to WebAssembly; drag any number and every figure follows.',
    ],
    toc: 'Contents',
    sections: {
      bill: '1. The naive plan and its bill: what more pairs of glasses cost',
      split: '2. Split, not copy: cut → each on its own → join and fuse',
      hand: '3. By hand: 猫吃鱼 split across two heads',
      pipeline: '4. The pipeline: split → heads → concat → Wᴼ',
      formula: '5. The formula: one line from the paper',
      code: '6. The code: the lesson\'s two programs',
      views: '7. Other ways to look at attention',
      ablation: '8. Switch a head off',
      train: '9. Training: watch two heads learn two views',
      poems: '10. Real heads in a trained model',
      quiz: '11. Retrieval practice',
      share: '12. Share and export',
      gqa: '13. After multi-head attention: heads that share K and V (MQA, GQA)',
    },
    bill: {
      lead: 'The smallest change anyone would think of: for more ways of looking, wear more pairs of glasses — h independent sets of W_Q, W_K, W_V, each a complete d_model × d_model, each running attention on its own, their outputs joined. The paper instead cuts the d_model dimensions into h slices, gives each head d_k = d_model ÷ h of them, and merges the heads with one Wᴼ (d_model × d_model), as the next section shows. Before writing any code, change the numbers below and compare the two bills.',
      dModel: 'd_model (model width)',
      heads: 'h (heads: how many pairs of glasses)',
      naive: 'Naive: h full pairs of glasses (Q/K/V sets only, no Wᴼ)',
      naiveFormula: 'h · 3 · d_model²',
      split: 'Paper: split + Wᴼ',
      splitFormula: '3 · d_model² + d_model²',
      ratio: 'The naive bill (no Wᴼ) is',
      times: '× the split one (with Wᴼ)',
      likeWithLike: ({ naive, split, ratio, wo }) => `Counting the same things on both sides, the Q/K/V glasses alone: naive ${naive}, split ${split}, ${ratio === '1' ? 'the same' : `so the naive bill is ${ratio}× the split one`}; all the split design adds is one Wᴼ (${wo} parameters).`,
      identity: 'One head + output projection (h = 1): ',
      identityNote: ' — the split design costs exactly this: 4 · d_model². The extra ways of looking come free.',
      dk: 'Width of each head d_k = d_model ÷ h =',
      waste: (dModel, heads, ratio) => (heads === 1
        ? 'With one pair of glasses nothing is repeated. As h grows, the naive design also wastes what you cannot see: every pair learns in the same full space, and what they learn largely overlaps.'
        : `The naive design also wastes what you cannot see: all ${heads} pairs of glasses work in the same full ${dModel}-dimensional space, so what they learn largely overlaps — ${ratio} times the cost for ${heads} similar views. The question is not whether to wear more glasses, but how to wear them cheaply.`),
      gpt2: 'The defaults are GPT-2\'s: d_model = 768, h = 12.',
      params: 'parameters',
      approx: () => '',
    },
    split: {
      lead: '"Attention Is All You Need" makes the answer cheap by asking differently: instead of buying every head a whole telescope of its own, take the one telescope there is and divide its view into h sections, each head minding its own section. Three steps:',
      steps: [
        {
          title: 'Cut',
          text: 'Dividing the telescope means cutting the d_model dimensions into h slices; each head gets d_k = d_model ÷ h of them. q, k and v are cut by the same columns, and no value changes.',
          live: (n) => `With section 1's numbers: d_k = ${n.dModel} ÷ ${n.heads} = ${n.dK}`,
        },
        {
          title: 'Each on its own',
          text: 'Each head runs lesson 8\'s four steps in its own small space: score → scale → softmax → weight v; when there is a mask, every head wears lesson 9\'s mask. h small weight tables, none disturbing another.',
          live: (n) => `${n.heads} heads, ${n.heads} tables of L × L weights, each head seeing ${n.dK} dimensions`,
        },
        {
          title: 'Join and fuse',
          text: 'Join the h outputs column by column back to d_model dimensions (Concat: no parameters), then multiply by a trainable Wᴼ: the heads meet, and Wᴼ decides how much to hear from each.',
          live: (n) => `Back to ${n.heads} × ${n.dK} = ${n.dModel} dimensions, then Wᴼ, ${n.dModel} × ${n.dModel}`,
        },
      ],
      waiting: 'Once section 1\'s d_model and h divide, the numbers here follow them.',
      next: 'Splitting does not change the total: the h small pairs of glasses still add up to 3 × d_model², plus d_model² for Wᴼ. The next section splits 猫吃鱼 by hand.',
    },
    hand: HAND_TEXT.en,
    // Pointing at a cell of a figure (ui/explore.js).
    explain: {
      hint: 'Wonder where a number in a figure comes from? Point at it, tap it, or Tab to a figure and use the arrow keys: its arithmetic is written out with the live numbers, and the cells it uses are outlined.',
      pipelineHint: 'Every cell of this figure can be pointed at, tapped, or reached with Tab and the arrow keys, to see its arithmetic.',
    },
    pipeline: PIPELINE_TEXT.en,
    formula: {
      lead: 'In "Attention Is All You Need", multi-head attention takes a single line. Under it, every symbol is explained in order, to be read through from top to bottom; hover over (or Tab to) a symbol in the formula or the list and the pipeline marks the matching part.',
      symbolsTitle: 'Symbol by symbol',
      formulaLabel: 'MultiHead of Q, K, V equals Concat of head 1 to head h, times W O; head i equals Attention of Q times W i Q, K times W i K, V times W i V',
      symbols: {
        h: ['h', (s) => `The number of heads: how many pairs of glasses, a hyperparameter fixed before training. In the hand example h = ${s.heads}${billHeadsEn(s.bill)}. The subscript i = 1…h says which pair of glasses (which head), not which word.`],
        q: ['Q, K, V', (s) => `Queries, keys and values for the whole sentence, L × d_model: ${s.L}×${s.dModel} in the hand example.`],
        wq: ['W_i^Q', (s) => `One of head i's own three small pairs of glasses (the one for q), d_model × d_k: ${s.dModel}×${s.dK} in the hand example${billShapeEn(s.bill, (b) => `${b.dModel}×${b.dK}`)}. It is the i-th block of columns cut from the full W_Q (d_model × d_model): real implementations multiply by the whole W_Q at once, then share the result's columns out among the heads. In the hand example q is already projected, so head i simply takes the i-th block of q's columns.`],
        wk: ['W_i^K', (s) => `Head i's second small pair of glasses, for k: also d_model × d_k, ${s.dModel}×${s.dK} in the hand example${billShapeEn(s.bill, (b) => `${b.dModel}×${b.dK}`)}.`],
        wv: ['W_i^V', (s) => `Head i's third small pair of glasses, for v: also d_model × d_k, ${s.dModel}×${s.dK} in the hand example${billShapeEn(s.bill, (b) => `${b.dModel}×${b.dK}`)}.`],
        attention: ['\\text{Attention}', (s) => `Single-head attention's four steps: score, scale, softmax, weight v. Each head gets an L × L = ${s.L}×${s.L} table of weights.`],
        head: ['\\text{head}_i', (s) => `Head i's output after the four steps, L × d_k = ${s.L}×${s.dK}.${s.firstRow ? ` In section 3, head 1's row for “${s.firstRow.word}” is now [${s.firstRow.values.join(', ')}]: the very row worked out there step by step.` : ''}`],
        concat: ['\\text{Concat}', (s) => `Places the h head outputs side by side, back to L × d_model = ${s.L}×${s.dModel}: a rearrangement, with no parameters.`],
        wo: ['W^O', (s) => `The output merging matrix, d_model × d_model: ${s.dModel}×${s.dModel} in the hand example${billShapeEn(s.bill, (b) => `${b.dModel}×${b.dModel}`)}. Think of it as a meeting-minutes consolidator: every head's say is kept word for word in the concat, and Wᴼ works it across the heads into one conclusion — it is section 3's supervisor, who decides how much of each investigator's report to take.`],
        multihead: ['\\text{MultiHead}(Q,K,V)', (s) => `The layer's output, L × d_model = ${s.L}×${s.dModel}, the same size as its input.`],
      },
      countTitle: 'The parameter count',
      countNote: 'The heads\' small pairs of glasses add up to h × 3 × d_model × d_k = 3 × d_model² (splitting changes no total), plus d_model² for Wᴼ: 4 × d_model² in all. The extra ways of looking cost not one parameter more.',
      subscriptsTitle: 'Subscripts not to misread',
      subscripts: (s) => `The O of Wᴼ is for Output, not the digit 0; the i of W_i numbers the head; and d_k here is d_model ÷ h = ${s.dModel} ÷ ${s.heads} = ${s.dK}, the width of one head, not lesson 8's single-head d_k, which was d_model itself. The same symbol, in another setting, means something else.`,
    },
    code: {
      lead: 'Part six of the lesson is two numpy programs, quoted below as the lesson gives them, Chinese comments and all: one checks the parameter bill and the chain of shapes in numbers, the other writes multi-head attention as a class. numpy\'s RandomState is deterministic, the same seed giving the same numbers; this page uses a generator that matches numpy bit for bit and hands the same matrices to the attention core, so the output under each program is what Python prints when it runs it.',
      restored: 'The lesson\'s text lost the programs\' indentation; it is restored here as Python needs it (the bodies of the loop, the function, the class and its methods), and nothing else is changed.',
      seedA: 'Program 1 prints only parameter counts and shapes, so another seed changes its random matrices but not one character of its output: shapes do not depend on values.',
      seedB: 'Try another seed for program 2: the seed in the program, both weight tables and the comparison of their last rows change with it.',
      seed: 'Seed',
      programA: 'Program 1: the split bill and a shape check',
      programB: 'Program 2: a GPT-style multi-head attention class',
      copy: 'Copy the program',
      copied: 'Copied',
      selected: 'Selected: press Ctrl+C to copy',
      output: 'Output (computed by the attention core; the same as Python prints)',
      gloss: 'The programs print in Chinese: 朴素 naive, 原论文 the paper\'s way, 切分 split, 参数 parameters, 单头 one head, 应为 should be, 头 head, 输出 output, 进出同形状 same shape in and out, 配比表 weight table, 上三角=未来=0 upper triangle = future = 0, 两头同格对比(第 3 行) the two heads\' row 3 side by side, 各有所爱(随机版) different tastes (random ones), 参数量账 parameter count, 各…个 … each, 共 in all, 形状不变量依旧 the shape is kept.',
      randomNote: 'Randomly initialised heads mean nothing yet: the two heads differ only because they drew different random numbers. Roles such as "the head that finds the object" only appear through training.',
    },
    questions: {
      title: 'Questions a class asks',
      lead: 'The lesson ends with a few good questions. Each is answered briefly below, with numbers computed by the attention core and a link to the part of the page where you can check it yourself.',
      see: 'See ',
      items: [
        {
          id: 'heads',
          question: 'How many heads should there be?',
          answer: (f) => `h is a hyperparameter, fixed before training, with no single right answer. For a given d_model, h only decides how the dimensions are cut, not how many parameters there are: at d_model = ${f.dModel}, multi-head attention with h = ${f.tried.join(', ')} has ${f.counts.join(', ')} parameters, not one more or fewer; only each head's width d_k changes (${f.widths.join(', ')}). More heads give more kinds of view, but fewer dimensions to each; GPT-2 uses h = ${f.heads}, ${f.dModel / f.heads} dimensions a head. Section 8 shows what switching a head off costs, and section 9 compares what h = 1 and h = 2 learn.`,
          link: { href: '#bill', text: (sections) => sections.bill },
        },
        {
          id: 'divide',
          question: 'What if h does not divide d_model?',
          answer: (f) => `It cannot work: the split gives every head the same number of dimensions, so d_model ÷ h must be a whole number (the class in the lesson's program 2 checks this with an assert first thing). Put h = ${f.notDividing} into section 1 and the bill refuses it, saying why: “${f.refusal}”`,
          link: { href: '#bill', text: (sections) => sections.bill },
        },
        {
          id: 'wo',
          question: 'Can Wᴼ be left out?',
          answer: (f) => `Leaving Wᴼ out is keeping it the identity for good: the output is just the concat, the heads' findings side by side, never mixed. Section 3 opens with Wᴼ the identity, and the output for “${f.word}” is the concat's row, ${f.output}: the first ${f.handDK} entries come from head 1 alone, the last ${f.handDK} from head 2 alone. With Wᴼ, every column of the output can weigh all the heads in learnt proportions; it costs d_model² parameters (${f.woCount} at d_model = ${f.dModel}), the "+ d_model²" on the bill.`,
          link: { href: '#wo-note', text: () => 'Section 3\'s Wᴼ: drag an entry and see' },
        },
        {
          id: 'q',
          question: 'Cutting k and v makes sense; why cut q too?',
          answer: (f) => `A score is the dot product of q and k, and the two must be equally long: head i's k has only d_k dimensions, so its q can only be the same d_k dimensions; cut k and v but keep q whole and the sizes do not match, so no dot product can be taken. The slice of q is what the head asks: with the lesson's numbers, head 2's q for “${f.word}” is ${f.qSlice}, its dot product with every k is 0, and so the weights of “${f.word}” in head 2 are ${f.secondHeadRow}, spread evenly.`,
          link: { href: '#hand', text: (sections) => sections.hand },
        },
      ],
    },
    views: {
      lead: 'Besides heatmaps, attention can be drawn as lines: the querying words on the left, the words looked at on the right, thicker and darker for more weight, one colour per head (the "head view" of BertViz). With many heads and a long sentence, a grid of all heads\' heatmaps is easier to compare at a glance.',
      source: 'Data',
      sourceHand: 'the hand example above',
      sourceBig: 'a larger random model',
      bigNote: 'The random model draws the word vectors X and Wq, Wk, Wv from the seed (as program 2 does), so the words\' meanings play no part: this shows shapes and spreads, not semantics. Try d_model 64, h 8 and a dozen words or more.',
      dModel: 'd_model',
      heads: 'h',
      sentence: 'Sentence (split on spaces if it has any, otherwise one character per word)',
      seed: 'Seed',
      weightScale: (w) => `Weight size ×${w} (larger → sharper attention)`,
      causal: 'Causal mask',
      focus: 'Only this word\'s lines',
      focusAll: 'all',
      showHeads: 'Heads to show',
      oneHead: 'One head\'s lines only (point to preview, click to keep)',
      allHeads: 'all',
      lines: 'Line view',
      grid: 'All heads',
      linesTitle: 'Attention as lines: querying words on the left, words looked at on the right',
      gridTitle: 'Attention weights of every head',
      query: FIGURE_LABELS.en.query,
      key: FIGURE_LABELS.en.key,
      drawnHeads: FIGURE_LABELS.en.drawnHeads,
      drawing: (total) => `Drawing ${total} random numbers (numpy's own sequence)…`,
    },
    ablation: {
      lead: 'Switch a head off and its columns in the concat become 0, so the output changes. Compare with the output when every head is on to see what each head contributes.',
      paper: 'Further reading: Michel et al., "Are Sixteen Heads Really Better than One?", found that many heads of a trained model can be pruned with little loss.',
      toggle: (i) => `Head ${i + 1} on`,
      allOn: 'Output with every head on',
      current: 'Current output',
      diff: 'Difference (current − all on)',
      noChange: 'Every head is on, so the difference is 0. Switch one off.',
    },
    quiz: {
      lead: 'Without scrolling up, try to answer. Each answer is computed by the live model on this page when you press Check; a question you miss or reveal comes back once more, two questions later.',
      counting: 'Counting: on this page dimensions and columns count from 0 (like indices in code); heads, words and rows count from 1.',
      check: 'Check',
      reveal: 'Reveal',
      next: 'Next question',
      restart: 'Practise again',
      correct: (why) => `Correct! ${why}`,
      wrong: 'Not yet — think again; or reveal the answer, or go on and this one comes back later.',
      pickFirst: 'Fill in an answer (or pick one) first, then check.',
      cannotSolve: 'This question is worked out from the numbers on the page right now, and they give no result (see above). Fix them and come back, or go on to the next question: this one will come back a little later.',
      revealed: (answer, why) => `Answer: ${answer}. ${why} This question comes back two questions later.`,
      progress: (done, total, left) => `${done} of ${total} done · ${left} to go`,
      returning: 'One you missed before, once more',
      finished: (total, first) => `All done! You got ${first} of the ${total} questions right the first time.`,
      bill: {
        prompt: 'With GPT-2\'s sizes (d_model = 768, h = 12), how many times larger is the naive bill (h full Q/K/V sets) than the split one (with Wᴼ)?',
        why: (naive, split, ratio) => `The naive way has ${naive} parameters, the split way ${split}: a ratio of ${ratio}.`,
      },
      dk: {
        prompt: 'GPT-2 has d_model = 768 and h = 12. What is d_k, the width of each head?',
        why: (dModel, heads, dK) => `d_k = d_model ÷ h = ${dModel} ÷ ${heads} = ${dK}.`,
      },
      split: {
        prompt: (word) => `If you change dimension 3 (counting from 0: the fourth column) of “${word}”'s q, whose weight table changes with the current settings?`,
        all: 'Every head',
        none: 'None',
        why: (list) => `Checked with the core: after adding 1 to that entry, the heads that changed are: ${list}. Each dimension is in one head's slice only; the other heads never see it.`,
        nothing: 'none',
      },
      predict: {
        prompt: (head, word) => `Predict first: with the current settings, what are the weights in head ${head}'s row for “${word}”? (two decimals)`,
        why: (row) => `The core's row: [${row}].`,
      },
      mask: {
        prompt: (word) => `With the causal mask on, what weight does the first word, “${word}”, give itself in head 1?`,
        why: (weight) => `The first word has no words before it: the mask hides the rest of its row, so after softmax it gives itself ${weight}.`,
      },
      scale: {
        prompt: 'Compared with dividing by √d_k, what happens to head 1\'s weights with the current settings if you do not divide?',
        options: ['They get sharper', 'They get flatter', 'They stay exactly the same'],
        why: (dK, root) => `Now d_k = ${dK}, so √d_k = ${root}. ${root === '1' ? 'Dividing by 1 changes nothing.' : `Without it every score is ${root} times larger, so the softmax gets sharper.`}`,
      },
      concat: {
        prompt: 'After the heads\' outputs are concatenated, how many dimensions does each word\'s vector have with the current settings?',
        why: (heads, dK, width) => `${heads} head${heads === 1 ? '' : 's'} of ${dK} dimension${dK === 1 ? '' : 's'} each: ${heads} × ${dK} = ${width}, back to d_model.`,
      },
      wo: {
        prompt: 'If Wᴼ is the identity matrix, what is the output?',
        options: ['The concat itself', 'Head 1\'s output', 'The heads\' outputs added up'],
        why: (list) => `Checked with the core: with the current settings and an identity Wᴼ, the output equals: ${list}.`,
      },
      ablation: {
        prompt: 'Switch head 1 off: which columns of the concat become 0? (counting from 0; pick all that apply)',
        column: (c) => `column ${c}`,
        why: (list) => `Checked with the core: with head 1 off, the columns that are all 0 are ${list} — exactly head 1's slice.`,
      },
      train: {
        prompt: 'The training section\'s model has d_model = 8. If h goes from 1 to 4, what happens to the attention layer\'s parameter count (W_Q, W_K, W_V, Wᴼ)?',
        options: ['It grows', 'It stays the same', 'It shrinks'],
        why: (one, four) => `${one} with h = 1, ${four} with h = 4: a different split, the same total — so the training section compares splits, not sizes.`,
      },
    },
    share: {
      lead: 'The whole state of the page lives in its address: copy the link and whoever opens it sees what you see now. The figures export as SVG or PNG.',
      copy: 'Copy link',
      copied: 'Copied',
      link: 'Current link',
      pipelineSvg: 'Pipeline SVG',
      pipelinePng: 'Pipeline PNG',
      heatmapsSvg: 'Heatmaps SVG',
      heatmapsPng: 'Heatmaps PNG',
      heatmapsTitle: 'Attention weights of each head',
      leftOut: {
        'poems.text': (kept) => `The poem is too long; the link keeps its first ${kept} characters.`,
        'views.sentence': (kept) => `The sentence is too long; the link keeps its first ${kept} characters.`,
      },
    },
    recap: {
      title: 'After this lesson you can',
      items: ({ naive, split, word, heads: [one, two] }) => [
        'Say what a single head cannot do: one pair of glasses is one way of looking, one table of weights, so the several relations in a sentence are squeezed into that table and averaged away.',
        `Price the naive plan: with GPT-2's d_model = 768 and h = 12, twelve full pairs of glasses cost ${grouped(naive)} parameters, and what they learn largely overlaps.`,
        'Say why the paper splits rather than copies: d_k = d_model ÷ h, each head runs the four steps in its own few dimensions (scores, divide by √d_k, softmax, weight the v rows; every head wears the mask when there is one), and Wᴼ fuses them once they are joined back.',
        `Split 猫吃鱼 across two heads (h = 2) by hand: for the same “${word}”, head 1 gives ${one.share}% to “${one.words[0]}” and head 2 gives ${two.share}% to each word — one cat, two ways of looking, and lesson 8's hint paid off.`,
        'Read the paper\'s one line symbol by symbol: MultiHead(Q, K, V) = Concat(head₁, …, head_h) Wᴼ.',
        `Work out the multi-head bill: split plus Wᴼ is 4 · d_model², the same as one head with an output projection (${grouped(split)} in a layer of GPT-2): the extra ways of looking cost not one parameter more.`,
        'Switch a head off and tell from the change in output and loss what it did; know that heads divide the work only through training.',
        'Count the 12 pairs of glasses in a layer of GPT-2: open its file in section 10 and go through a layer\'s 12 heads one by one, seeing where each pair looks.',
      ],
    },
    reading: {
      title: 'What to read next',
      items: [
        { title: 'Attention Is All You Need', href: 'https://arxiv.org/abs/1706.03762', note: ' (Vaswani et al., 2017): where multi-head attention comes from; this page\'s one-line formula is in section 3.2.2.' },
        { title: 'Are Sixteen Heads Really Better than One?', href: 'https://arxiv.org/abs/1905.10650', note: ' (Michel, Levy and Neubig, 2019): many heads of a trained model can be pruned with almost no loss; section 8\'s ablation is a small version of it.' },
        'Vizuara, "The Transformers", section 1.16: the full derivation of multi-head attention; its figures match this page\'s pipeline.',
        'The Illustrated Transformer, the multi-head section: the same idea told with coloured sets of Q/K/V arrows.',
        'Next lesson: why deep networks become unstable — residual connections and LayerNorm.',
      ],
    },
    ...ERROR_TEXT.en,
    notANumber: 'That is not a number.',
    wholeRange: (min, max, kept) => `Only whole numbers from ${min.toLocaleString('en-US')} to ${max.toLocaleString('en-US')}; it stays ${kept}.`,
    loading: 'Loading the attention core…',
    presentHint: 'Teaching at a projector? Press P (when you are not typing in a box) for lesson mode: one part of the lesson a screen, larger figures, the long explanations folded away. Move with → ← or a presenter\'s clicker (PageDown / PageUp); Esc or P returns. Add ?present=1 to the address to open the page in it.',
  },
};
