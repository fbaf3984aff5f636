// What §4's pipeline figure says, Chinese first and English second (the page's TEXT.{zh,en}.pipeline).
import { FIGURE_LABELS } from '../shared/figure-labels.js';

export const PIPELINE_TEXT = {
  zh: {
    lead: '下面这张图把整个过程画在一起，数据就是上面那一组。每个矩阵下面写着它的形状。',
    caveat: '先说清楚：上面那组 q、k、v 是为了好讲而挑的小整数，不是学出来的。真实模型里，一个头专盯“鱼”、另一个头平均巡逻，这样的分工只能在训练中长出来；没训练过的头就算彼此不同，也只是抽到的随机数不同（第六节程序二的两个头就是这样）。看分工怎样长出来：',
    // Lesson mode's caveat, short enough to read out from the screen.
    caveatShort: '数字是手工挑的示意：盯“鱼”的头、平均巡逻的头，这种分工只能靠训练长出来。看它怎样长出来：',
    play: '播放',
    pause: '暂停',
    back: '上一步',
    forward: '下一步',
    stepOf: (s) => `第 ${s} / 8 步`,
    overview: '总览',
    captions: [
      '总览：完整的 q（k、v 同形）进来，被切给各个头，各头独立算注意力，结果拼回去再乘 Wᴼ。按“播放”或“下一步”逐步看。',
      '第 1 步：完整的 q、k、v，形状都是 L × d_model。',
      '第 2 步：按列切成 h 段，每个头拿到自己的 L × d_k 切片，数值不变。',
      '第 3 步：每个头在自己的切片上打分 q·kᵀ，再除以 √d_k，得到 L × L 的分数表。',
      '第 4 步：每个头各自做 softmax（开了掩码就先遮住未来的词），每行配比加起来是 1。',
      '第 5 步：每个头用自己的配比加权自己的 v 切片，得到 L × d_k 的头输出。',
      '第 6 步：把 h 个头的输出按列拼接，回到 L × d_model。',
      '第 7 步：乘上 d_model × d_model 的 Wᴼ，把各头的信息混在一起。',
      '第 8 步：输出仍是 L × d_model，和输入一样大——多头只改变“怎么看”，不改变形状。',
    ],
    labels: FIGURE_LABELS.zh.pipeline,
    figureTitle: '多头注意力流水线',
  },
  en: {
    lead: 'The figure below puts the whole process together, drawn from the same numbers as above. Each matrix has its shape written under it.',
    caveat: 'To be clear: the q, k and v above are small integers picked by hand to teach with, not learnt ones. In a real model, a head that fixes on 鱼 (fish) and another that patrols evenly are roles that only grow out of training; untrained heads may differ, but only because they drew different random numbers (as the two heads of program 2 in section 6 do). To watch roles grow:',
    caveatShort: 'Hand-picked numbers: a head that fixes on 鱼, or patrols evenly, only grows out of training:',
    play: 'Play',
    pause: 'Pause',
    back: 'Step back',
    forward: 'Step forward',
    stepOf: (s) => `Step ${s} of 8`,
    overview: 'Overview',
    captions: [
      'Overview: the full q (k and v have the same shape) comes in, is cut up among the heads, each head runs attention on its own, and the results are joined and multiplied by Wᴼ. Press Play or Step forward.',
      'Step 1: the full q, k and v, each L × d_model.',
      'Step 2: cut by columns into h slices; each head gets its own L × d_k slice, values unchanged.',
      'Step 3: each head scores its slice, q·kᵀ, divided by √d_k: an L × L table of scores.',
      'Step 4: each head applies softmax on its own (masking future words first when the mask is on); every row of weights sums to 1.',
      'Step 5: each head weights its own v slice by its weights: an L × d_k head output.',
      'Step 6: the h head outputs are joined column by column, back to L × d_model.',
      'Step 7: multiply by Wᴼ (d_model × d_model), which mixes the heads\' information.',
      'Step 8: the output is L × d_model, the same size as the input — multiple heads change how the layer looks, not the shape.',
    ],
    labels: FIGURE_LABELS.en.pipeline,
    figureTitle: 'The multi-head attention pipeline',
  },
};
