// The words written on and beside the figures, Chinese first and English second: one table for the
// lesson page and the widget, so the same figure reads the same in both.

export const FIGURE_LABELS = {
  zh: {
    head: (i) => `头 ${i + 1}`,
    weightLegend: '注意力配比',
    query: '查询',
    key: '被看',
    // Many heads drawn a run at a time (ui/drawn-heads.js).
    drawnHeads: {
      note: (heads, L, max, from, to) => `这个模型有 ${heads} 个头，每个头一张 ${L}×${L} 的配比表；为了不让页面卡住，一次只画 ${max} 个头，现在画的是头 ${from}–${to}。`,
      earlier: '前一组头',
      later: '后一组头',
    },
    pipeline: {
      scores: 'S', weights: 'A', heads: '头', concat: 'Concat', wo: 'Wᴼ', output: '输出', off: '已关',
      weightsKey: '注意力配比（0 到 1）', valuesKey: '其他所有数值（负 ↔ 正，同一刻度）',
      ops: { split: '切分', scores: 'q·kᵀ/√d_k', weights: 'softmax', heads: '·V', concat: '拼接', wo: '·Wᴼ', output: '=' },
    },
  },
  en: {
    head: (i) => `Head ${i + 1}`,
    weightLegend: 'Attention weight',
    query: 'query',
    key: 'looked at',
    drawnHeads: {
      note: (heads, L, max, from, to) => `This model has ${heads} heads of ${L}×${L} weights each; to keep the page responsive, ${max} heads are drawn at a time: now heads ${from}–${to}.`,
      earlier: 'Earlier heads',
      later: 'Later heads',
    },
    pipeline: {
      scores: 'S', weights: 'A', heads: 'head', concat: 'Concat', wo: 'Wᴼ', output: 'output', off: 'off',
      weightsKey: 'Attention weight (0 to 1)', valuesKey: 'Every other value (negative ↔ positive, one scale)',
      ops: { split: 'split', scores: 'q·kᵀ/√d_k', weights: 'softmax', heads: '·V', concat: 'concat', wo: '·Wᴼ', output: '=' },
    },
  },
};

// The words of a cell's explanation (shared/explain.js), for the popover and for screen readers. The
// formulas themselves are the same in both languages.
const EXPLAIN_FIGURE_NAMES = {
  zh: { q: 'q', k: 'k', v: 'v', dots: '打分 q·kᵀ', scores: '缩放后的分数', unscaledScores: '打分 q·kᵀ', weights: 'softmax 配比', head: '头输出', concat: 'Concat', wo: 'Wᴼ', output: '输出' },
  en: { q: 'q', k: 'k', v: 'v', dots: 'score q·kᵀ', scores: 'scaled score', unscaledScores: 'score q·kᵀ', weights: 'softmax weight', head: 'head output', concat: 'Concat', wo: 'Wᴼ', output: 'output' },
};
const explainedName = (names, figure, head, scaled) => {
  const name = figure === 'scores' && !scaled ? names.unscaledScores : names[figure];
  return head !== null && (figure === 'q' || figure === 'k' || figure === 'v') ? `${name}${'₁₂₃₄₅₆₇₈₉'[head] ?? `_${head + 1}`}` : name;
};

export const EXPLAIN_WORDS = {
  zh: {
    sentenceGap: '；',
    withValue: (title, value) => (value ? `${title}：${value}` : title),
    title: ({ figure, head, row, col, scaled }) => {
      const where = { dots: `${row} → ${col}`, scores: `${row} → ${col}`, weights: `${row} → ${col}`, wo: `第 ${row} 行，第 ${col} 列` }[figure] ?? `${row}，第 ${col} 维`;
      return [head === null ? null : FIGURE_LABELS.zh.head(head), explainedName(EXPLAIN_FIGURE_NAMES.zh, figure, head, scaled), where].filter(Boolean).join(' · ');
    },
    input: ({ matrix, token, dim, head, owner, value }) => (head === null
      ? `${matrix}[${token}] 第 ${dim} 维 = ${value}，是输入；它落在头 ${owner + 1} 的切片里`
      : `${matrix}[${token}] 第 ${dim} 维 = ${value}，头 ${owner + 1} 的切片原样取来，数值不变`),
    wo: (row, col, value) => `Wᴼ[${row}][${col}] = ${value}：Concat 的第 ${row} 列乘上它，加进输出的第 ${col} 列`,
    slice: (head, first, last) => (first === last ? `只用头 ${head + 1} 的第 ${first} 维` : `只在头 ${head + 1} 的第 ${first}–${last} 维上求和`),
    maskedCell: (row, col) => `因果掩码遮住了 ${col}（它在 ${row} 之后）：配比为 0，也不计入这一行的 softmax`,
    excluded: (tokens) => `被掩码遮住、不计入：${tokens.join('、')}`,
    column: (dim) => `第 ${dim} 维：`,
    concatFrom: (owner, dim, value) => `来自头 ${owner + 1} 的输出，同一行、第 ${dim} 维，原样搬来：${value}`,
    concatOff: (owner) => `头 ${owner + 1} 已关掉：这一列是 0`,
    outputRule: (token, col) => `Concat 的“${token}”行 · Wᴼ 的第 ${col} 列`,
    rounded: '（每一项都已四舍五入，照着写出的数相加会差一点）',
  },
  en: {
    sentenceGap: '; ',
    withValue: (title, value) => (value ? `${title}: ${value}` : title),
    title: ({ figure, head, row, col, scaled }) => {
      const where = { dots: `${row} → ${col}`, scores: `${row} → ${col}`, weights: `${row} → ${col}`, wo: `row ${row}, column ${col}` }[figure] ?? `${row}, dimension ${col}`;
      return [head === null ? null : FIGURE_LABELS.en.head(head), explainedName(EXPLAIN_FIGURE_NAMES.en, figure, head, scaled), where].filter(Boolean).join(' · ');
    },
    input: ({ matrix, token, dim, head, owner, value }) => (head === null
      ? `${matrix}[${token}] dimension ${dim} = ${value}, an input; it goes to head ${owner + 1}'s slice`
      : `${matrix}[${token}] dimension ${dim} = ${value}, taken unchanged into head ${owner + 1}'s slice`),
    wo: (row, col, value) => `Wᴼ[${row}][${col}] = ${value}: Concat's column ${row} times this is added into output column ${col}`,
    slice: (head, first, last) => (first === last ? `only head ${head + 1}'s dimension ${first}` : `summed over head ${head + 1}'s dimensions ${first}–${last} only`),
    maskedCell: (row, col) => `the causal mask hides ${col} (it comes after ${row}): weight 0, and left out of the row's softmax`,
    excluded: (tokens) => `masked, left out: ${tokens.join(', ')}`,
    column: (dim) => `dimension ${dim}: `,
    concatFrom: (owner, dim, value) => `copied from head ${owner + 1}'s output, same row, dimension ${dim}: ${value}`,
    concatOff: (owner) => `head ${owner + 1} is switched off: this column is 0`,
    outputRule: (token, col) => `Concat's ${token} row · column ${col} of Wᴼ`,
    rounded: '(each term is rounded, so the numbers as written add up to a little less or more)',
  },
};
