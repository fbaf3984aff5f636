// The words written on and beside the figures, Chinese first and English second: one table for the
// lesson page and the widget, so the same figure reads the same in both.

export const FIGURE_LABELS = {
  zh: {
    head: (i) => `头 ${i + 1}`,
    weightLegend: '注意力权重',
    query: '查询',
    key: '被看',
    pipeline: {
      scores: 'S', weights: 'A', heads: '头', concat: 'Concat', wo: 'Wᴼ', output: '输出', off: '已关',
      weightsKey: '注意力权重（0 到 1）', valuesKey: '其他所有数值（负 ↔ 正，同一刻度）',
      ops: { split: '切分', scores: 'q·kᵀ/√d_k', weights: 'softmax', heads: '·V', concat: '拼接', wo: '·Wᴼ', output: '=' },
    },
  },
  en: {
    head: (i) => `Head ${i + 1}`,
    weightLegend: 'Attention weight',
    query: 'query',
    key: 'looked at',
    pipeline: {
      scores: 'S', weights: 'A', heads: 'head', concat: 'Concat', wo: 'Wᴼ', output: 'output', off: 'off',
      weightsKey: 'Attention weight (0 to 1)', valuesKey: 'Every other value (negative ↔ positive, one scale)',
      ops: { split: 'split', scores: 'q·kᵀ/√d_k', weights: 'softmax', heads: '·V', concat: 'concat', wo: '·Wᴼ', output: '=' },
    },
  },
};
