// Every word the widget shows, in Chinese (the default) and English. Messages that quote author data
// return plain strings: the element only ever puts them into the page with textContent. The words on the
// figures come from the table the lesson page uses too.
import { FIGURE_LABELS } from '../shared/figure-labels.js';
import { clipText } from '../shared/clip.js';

const quote = (text) => JSON.stringify(clipText(text, 32));
const cellZh = (name, r, c) => (c === undefined ? `${name} 第 ${r + 1} 项` : `${name} 第 ${r + 1} 行第 ${c + 1} 列`);
const cellEn = (name, r, c) => (c === undefined ? `${name} item ${r + 1}` : `${name} row ${r + 1}, column ${c + 1}`);

export const STRINGS = {
  zh: {
    loading: '正在载入注意力计算核心…',
    errorTitle: '无法显示多头注意力',
    coreError: '计算核心报错',
    head: FIGURE_LABELS.zh.head,
    dims: (from, to) => (from === to ? `维 ${from}` : `维 ${from}–${to}`),
    weightsOf: (h) => `头 ${h + 1} 的配比表（行 = 查询词，列 = 被看的词）`,
    weightsLegend: FIGURE_LABELS.zh.weightLegend,
    summary: ({ L, d, heads, kvHeads, dK, causal, scale }) =>
      `${L} 个词 · d_model = ${d} · h = ${heads}${kvHeads ? ` · h_kv = ${kvHeads}` : ''} · d_k = ${dK} · ${causal ? '因果掩码 开' : '因果掩码 关'} · ${scale ? '÷√d_k' : '不缩放'}`,
    query: FIGURE_LABELS.zh.query,
    focusLabel: '只看一个查询词的连线',
    focusAll: '全部',
    key: FIGURE_LABELS.zh.key,
    linesTitle: '每个词看向谁：线越粗越实，配比越大；颜色区分头',
    pipelineTitle: '多头流水线：Q 切成各头 → 打分 → softmax → 加权 V → 拼接 → ·Wᴼ',
    concatTitle: '拼接（Concat）：各头输出并排，列的颜色表示来自哪个头',
    outputTitle: '输出 = Concat · Wᴼ',
    headsLabel: '头数 h',
    causalLabel: '因果掩码（只看自己和前面的词）',
    scaleLabel: '缩放 ÷√d_k',
    slidersLegend: (name) => `${name}（拖动或用方向键调整）`,
    sliderLabel: (name, token, dim, h) => `${name} · ${token} · 维 ${dim}（头 ${h + 1}）`,
    tooManySliders: (L, d, max) => `${L} 个词 × ${d} 维的数太多，不逐个给滑块（最多 ${max} 个）；头数、掩码和缩放仍可调。`,
    clipped: (indexes) => `第 ${indexes.map((i) => i + 1).join('、')} 个词太长，显示时截短了`,
    pipeline: FIGURE_LABELS.zh.pipeline,
    drawnHeads: FIGURE_LABELS.zh.drawnHeads,
    error: {
      BAD_JSON: (name) => `${name} 不是合法的 JSON${name === 'tokens' ? '，应形如 ["猫","吃","鱼"]' : '，应形如 [[1,0],[0,1]]'}`,
      NOT_FINITE: (name, r, c, value) => `${cellZh(name, r, c)}是 ${value}；只接受有限的数`,
      BEYOND_FLOAT32: (name, r, c, value) => `${cellZh(name, r, c)}是 ${value}，超出了 float32 的范围（绝对值要小于约 3.4×10³⁸），在核心里会变成无穷大`,
      NOT_A_NUMBER: (name, r, c, value) => `${cellZh(name, r, c)}不是数字：${quote(value)}`,
      NOT_A_MATRIX: (name) => `${name} 应是若干行数字组成的数组（每个词一行），例如 [[1,0],[0,1]]`,
      EMPTY: (name) => `${name} 是空的，至少要有一个词、一个维度`,
      RAGGED_ROWS: (name, r, n, first) => `${name} 的行长短不一：第 1 行有 ${first} 个数，第 ${r + 1} 行有 ${n} 个`,
      SHAPE_MISMATCH: (name, shape, qShape) => `${name} 是 ${shape}，q 却是 ${qShape}；q、k、v 的形状必须相同`,
      MISSING: (name) => `缺少 ${name} 属性：q、k、v 三个都要给`,
      BAD_TOKENS: () => 'tokens 应是由字符串组成的数组，例如 ["猫","吃","鱼"]',
      TOKEN_COUNT: (tokens, rows) => `tokens 有 ${tokens} 个词，q 却有 ${rows} 行；两者必须一样多`,
      BAD_HEADS: (value) => `heads 应是正整数，收到 ${quote(value)}`,
      TRAIN_HEADS: (value, choices) => `view="train" 的 heads 只能是 ${choices.join('、')}（训练的模型 d_model = 8），收到 ${quote(value)}`,
      HEADS_NOT_DIVISOR: (heads, d) => `heads ${heads} 不能整除 d_model ${d}（q 每行的数字个数），可选 ${divisors(d).join('、')}`,
      BAD_VIEW: (value) => `view 只能是 heatmaps、pipeline、lines、full 或 train，收到 ${quote(value)}`,
      WO_SHAPE: (shape, d) => `wo 是 ${shape}，应是 d_model × d_model = ${d}×${d}`,
      TOO_LARGE: (L, d, maxL, maxD) => `太大了：${L} 个词 × ${d} 维；本组件最多 ${maxL} 个词、每行 ${maxD} 个数`,
      TOO_LONG: (name, length, max) => `${name} ${length ? `有 ${length} 个字符` : '写成 JSON'}，太长了；每个属性最多 ${max} 个字符（32 个词 × 64 维的数写出来也用不了这么多）`,
      LOAD_FAILED: (detail) => `载入 mha-core.wasm 失败（它应和 widget.js 放在同一个文件夹）：${detail}`,
      LOAD_FROM_FILE: () => '这一页是直接打开的文件（file://），浏览器不许它载入 mha-core.wasm。请经由 http 打开：例如在网页所在的文件夹里运行 python3 -m http.server，再打开 http://localhost:8000/',
    },
  },
  en: {
    loading: 'Loading the attention core…',
    errorTitle: 'Cannot show multi-head attention',
    coreError: 'The attention core says',
    head: FIGURE_LABELS.en.head,
    dims: (from, to) => (from === to ? `dim ${from}` : `dims ${from}–${to}`),
    weightsOf: (h) => `Head ${h + 1} attention weights (rows: queries, columns: the tokens they look at)`,
    weightsLegend: FIGURE_LABELS.en.weightLegend,
    summary: ({ L, d, heads, kvHeads, dK, causal, scale }) =>
      `${L} tokens · d_model = ${d} · h = ${heads}${kvHeads ? ` · h_kv = ${kvHeads}` : ''} · d_k = ${dK} · causal mask ${causal ? 'on' : 'off'} · ${scale ? '÷√d_k' : 'no scaling'}`,
    query: FIGURE_LABELS.en.query,
    focusLabel: "Show one query token's lines",
    focusAll: 'all',
    key: FIGURE_LABELS.en.key,
    linesTitle: 'Who each token looks at: thicker, darker lines carry more weight; colours tell the heads apart',
    pipelineTitle: 'The multi-head pipeline: split Q into heads → scores → softmax → weight V → concat → ·Wᴼ',
    concatTitle: 'Concat: the heads side by side, columns coloured by head',
    outputTitle: 'Output = Concat · Wᴼ',
    headsLabel: 'Heads h',
    causalLabel: 'Causal mask (each token sees itself and earlier ones)',
    scaleLabel: 'Scale ÷√d_k',
    slidersLegend: (name) => `${name} (drag, or use the arrow keys)`,
    sliderLabel: (name, token, dim, h) => `${name} · ${token} · dim ${dim} (head ${h + 1})`,
    tooManySliders: (L, d, max) => `${L} tokens × ${d} dims is too many numbers for one slider each (at most ${max}); heads, mask and scale still work.`,
    clipped: (indexes) => `Too long, shortened for display: token ${indexes.map((i) => i + 1).join(', ')}`,
    pipeline: FIGURE_LABELS.en.pipeline,
    drawnHeads: FIGURE_LABELS.en.drawnHeads,
    error: {
      BAD_JSON: (name) => `${name} is not valid JSON; expected something like ${name === 'tokens' ? '["the","cat","ate"]' : '[[1,0],[0,1]]'}`,
      NOT_FINITE: (name, r, c, value) => `${cellEn(name, r, c)} is ${value}; only finite numbers are allowed`,
      BEYOND_FLOAT32: (name, r, c, value) => `${cellEn(name, r, c)} is ${value}, beyond float32 (sizes under about 3.4×10³⁸), so the core would read it as infinity`,
      NOT_A_NUMBER: (name, r, c, value) => `${cellEn(name, r, c)} is not a number: ${quote(value)}`,
      NOT_A_MATRIX: (name) => `${name} must be an array of rows of numbers (one row per token), e.g. [[1,0],[0,1]]`,
      EMPTY: (name) => `${name} is empty; it needs at least one token and one dimension`,
      RAGGED_ROWS: (name, r, n, first) => `${name} has rows of different lengths: row 1 has ${first} numbers, row ${r + 1} has ${n}`,
      SHAPE_MISMATCH: (name, shape, qShape) => `${name} is ${shape} but q is ${qShape}; q, k and v must have the same shape`,
      MISSING: (name) => `the ${name} attribute is missing: give all three of q, k and v`,
      BAD_TOKENS: () => 'tokens must be an array of strings, e.g. ["the","cat","ate"]',
      TOKEN_COUNT: (tokens, rows) => `tokens has ${tokens} tokens but q has ${rows} rows; they must match`,
      BAD_HEADS: (value) => `heads must be a positive whole number, got ${quote(value)}`,
      TRAIN_HEADS: (value, choices) => `with view="train", heads is ${choices.slice(0, -1).join(', ')} or ${choices.at(-1)} (the model trained has d_model 8), got ${quote(value)}`,
      HEADS_NOT_DIVISOR: (heads, d) => `heads ${heads} does not divide d_model ${d} (the numbers per row of q); try ${divisors(d).join(', ')}`,
      BAD_VIEW: (value) => `view must be heatmaps, pipeline, lines, full or train, got ${quote(value)}`,
      WO_SHAPE: (shape, d) => `wo is ${shape}; it must be d_model × d_model = ${d}×${d}`,
      TOO_LARGE: (L, d, maxL, maxD) => `too large: ${L} tokens × ${d} dims; this widget takes at most ${maxL} tokens and ${maxD} numbers per row`,
      TOO_LONG: (name, length, max) => `${name} is ${length ? `${length} characters long` : 'too long as JSON'}; an attribute may have at most ${max} (32 tokens × 64 numbers need far fewer)`,
      LOAD_FAILED: (detail) => `could not load mha-core.wasm (keep it in the same folder as widget.js): ${detail}`,
      LOAD_FROM_FILE: () => 'this page was opened as a file (file://), from which the browser loads no mha-core.wasm. Open it over http: for example, run python3 -m http.server in the page\'s folder, then open http://localhost:8000/',
    },
  },
};

/** The whole numbers that divide n, ascending: the head counts a d_model allows. */
export function divisors(n) {
  const out = [];
  for (let i = 1; i <= n; i++) if (n % i === 0) out.push(i);
  return out;
}

/** 'en', 'en-GB' → 'en'; anything else (absent, 'zh', 'zh-CN', …) → 'zh'. */
export function languageOf(value) {
  return typeof value === 'string' && /^en(-|$)/i.test(value.trim()) ? 'en' : 'zh';
}
