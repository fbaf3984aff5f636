// What every coded error says to a learner, in Chinese and in English: one table for the lesson page,
// the widget and the training section. A sentence is built from the error's code and its `details` (the
// values involved, from the core or from the page's own checks), never from the core's English message.

// A number quoted in a message: as it is when short, in e-notation when huge, so no message outgrows its box.
export const shown = (value) => (Number.isFinite(value) && Math.abs(value) >= 1e6 ? value.toExponential(2).replace('e+', 'e') : String(value)).replace('-', '−');
// Chinese runs straight on after Chinese, with a space after Latin letters and numbers ("d_model 必须", "种子必须").
const spaced = (text) => (/[\x21-\x7e]$/.test(text) ? `${text} ` : text);
const MATRIX_NAMES = { q: 'q', k: 'k', v: 'v', x: 'X', wq: 'W_q', wk: 'W_k', wv: 'W_v', wo: 'Wᴼ' };
const matrixName = (name) => MATRIX_NAMES[name] ?? name;

const FIELDS_ZH = { dModel: 'd_model', heads: '头数 h', kvHeads: 'K/V 头数 h_kv', seed: '种子', weightScale: '权重大小' };
const STAGES_ZH = { scores: '打分', attention: 'softmax 配比', 'head output': '头输出', concat: 'Concat', output: '输出', logits: '下一个词元的打分' };
// The core leaves out `column` when a whole row is meant.
const placeZh = (row, column) => `第 ${row + 1} 行${column === undefined ? '' : `第 ${column + 1} 列`}`;
const cellZh = (name, row, column) => `${matrixName(name)} ${placeZh(row, column)}`;

const FIELDS_EN = { dModel: 'd_model', heads: 'The head count h', kvHeads: 'h_kv', seed: 'The seed', weightScale: 'The weight size' }; // each begins a sentence
const STAGES_EN = { scores: 'The scores', attention: 'The softmax weights', 'head output': 'A head output', concat: 'The concat', output: 'The output', logits: 'The next-token scores' };
const placeEn = (row, column) => `row ${row + 1}${column === undefined ? '' : `, column ${column + 1}`}`;
const cellEn = (name, row, column) => `${matrixName(name)} ${placeEn(row, column)}`;

export const ERROR_TEXT = {
  zh: {
    errors: {
      HEADS_NOT_DIVISOR: '头数必须能整除 d_model。',
      KV_HEADS_NOT_DIVISOR: 'K/V 头数 h_kv 必须能整除头数 h。',
      BAD_SIZE: '尺寸必须是正整数。',
      TOO_LARGE: '太大了，算不了。',
      OUT_OF_MEMORY: '内存不够了，换小一点的尺寸试试。',
      NOT_FINITE: '有一个数不是有限的数（NaN 或无穷大），或者计算中溢出了。',
      OUT_OF_RANGE: '有一个数超出了允许的范围。',
      SEQ_TOO_LONG: '句子太长了。',
      TOKEN_TOO_LONG: '有一个词太长了。',
      EMPTY: '请至少输入一个词。',
      BAD_ARGUMENT: '输入不合法。',
      BAD_INPUT: '输入不完整。',
      BAD_LENGTH: '长度不对。',
      HEAD_INDEX: '没有这个头。',
      NO_FORWARD: '还没有算过。',
      DISPOSED: '这个模型已经释放了，请刷新页面。',
      BAD_MODEL: '模型文件坏了或者不完整，打不开。',
      TOKEN_RANGE: '有一个词元不在模型的词表里。',
      EXPORT_FAILED: '导出失败了，请再试一次。',
      LOAD_FAILED: '注意力内核加载失败。请刷新页面再试；如果还不行，这个浏览器可能不支持 WebAssembly。',
      UNEXPECTED: '出错了，请刷新页面再试。',
    },
    // Sentences built from an error's details; `cellName` names an entry the way the section does.
    errorDetails: {
      BAD_SIZE: ({ name, value }) => `${spaced(FIELDS_ZH[name])}必须是正整数${Number.isNaN(value) ? '' : `，现在是 ${shown(value)}`}。`,
      TOO_LARGE: ({ name, value, max }) => `${FIELDS_ZH[name]} = ${shown(value)} 太大了，这里最多 ${max}。`,
      HEADS_NOT_DIVISOR: ({ heads, dModel, below, above }) =>
        `头数 h = ${heads} 不能整除 d_model = ${dModel}，没法让每个头分到同样多的维。最接近的可选值是 ${above ? `${below} 或 ${above}` : below}。`,
      KV_HEADS_NOT_DIVISOR: ({ kvHeads, heads }) =>
        `K/V 头数 h_kv = ${kvHeads} 不能整除头数 h = ${heads}：每个 K/V 头要由同样多的查询头共用。`,
      BAD_ARGUMENT: ({ name, value, min, max }) => name in FIELDS_ZH && `${spaced(FIELDS_ZH[name])}必须是 ${min} 到 ${max} 之间的整数${Number.isNaN(value) ? '' : `，现在是 ${shown(value)}`}。`,
      OUT_OF_RANGE: ({ name, row, column, value, min, max }, { cellName = cellZh }) =>
        `${spaced(row === undefined ? FIELDS_ZH[name] : cellName(name, row, column))}是 ${shown(value)}，只能在 ${shown(min)} 到 ${shown(max)} 之间。`,
      NOT_FINITE: ({ name, row, column, head }, { cellName = cellZh }) => (name in STAGES_ZH
        ? `计算${STAGES_ZH[name]}时溢出了（${head === undefined ? '' : `头 ${head + 1}，`}${placeZh(row, column)}超出了 float32 能表示的范围），请把输入的数调小一些。`
        : `${spaced(cellName(name, row, column))}不是有限的数（NaN 或无穷大）。`),
      SEQ_TOO_LONG: ({ count, max }) => `句子有 ${count} 个词，最多 ${max} 个。`,
      TOKEN_TOO_LONG: ({ index, start, length, max }) => `第 ${index + 1} 个词“${start}…”有 ${length} 个字符，一个词最多 ${max} 个字符。`,
    },
  },
  en: {
    errors: {
      HEADS_NOT_DIVISOR: 'The head count must divide d_model.',
      KV_HEADS_NOT_DIVISOR: 'h_kv must divide the head count h.',
      BAD_SIZE: 'Sizes must be positive whole numbers.',
      TOO_LARGE: 'Too large to compute.',
      OUT_OF_MEMORY: 'Out of memory; try smaller sizes.',
      NOT_FINITE: 'A value is not a finite number (NaN or infinity), or the computation overflowed.',
      OUT_OF_RANGE: 'A value is outside its allowed range.',
      SEQ_TOO_LONG: 'The sentence is too long.',
      TOKEN_TOO_LONG: 'A word is too long.',
      EMPTY: 'Type at least one word.',
      BAD_ARGUMENT: 'Invalid input.',
      BAD_INPUT: 'Incomplete input.',
      BAD_LENGTH: 'Wrong length.',
      HEAD_INDEX: 'There is no such head.',
      NO_FORWARD: 'Nothing has been computed yet.',
      DISPOSED: 'This model was released; reload the page.',
      BAD_MODEL: 'The model file is broken or incomplete and cannot be opened.',
      TOKEN_RANGE: 'A token is outside the model\'s vocabulary.',
      EXPORT_FAILED: 'The export failed; try again.',
      LOAD_FAILED: 'The attention core failed to load. Reload the page; if that does not help, this browser may not support WebAssembly.',
      UNEXPECTED: 'Something went wrong; reload the page and try again.',
    },
    errorDetails: {
      BAD_SIZE: ({ name, value }) => `${FIELDS_EN[name]} must be a positive whole number${Number.isNaN(value) ? '' : `; it is ${shown(value)}`}.`,
      TOO_LARGE: ({ name, value, max }) => `${FIELDS_EN[name]} = ${shown(value)} is too large; at most ${max} here.`,
      HEADS_NOT_DIVISOR: ({ heads, dModel, below, above }) =>
        `h = ${heads} does not divide d_model = ${dModel}, so the heads cannot get equal slices. The nearest head counts that do: ${above ? `${below} or ${above}` : below}.`,
      KV_HEADS_NOT_DIVISOR: ({ kvHeads, heads }) =>
        `h_kv = ${kvHeads} does not divide h = ${heads}: each K/V head must serve as many query heads as the others.`,
      BAD_ARGUMENT: ({ name, value, min, max }) => name in FIELDS_EN && `${FIELDS_EN[name]} must be a whole number from ${min} to ${max}${Number.isNaN(value) ? '' : `; it is ${shown(value)}`}.`,
      OUT_OF_RANGE: ({ name, row, column, value, min, max }, { cellName = cellEn }) =>
        `${row === undefined ? FIELDS_EN[name] : cellName(name, row, column)} is ${shown(value)}; it must be from ${shown(min)} to ${shown(max)}.`,
      NOT_FINITE: ({ name, row, column, head }, { cellName = cellEn }) => (name in STAGES_EN
        ? `${STAGES_EN[name]} overflowed${head === undefined ? '' : ` in head ${head + 1}`}: ${placeEn(row, column)} is beyond what float32 can hold. Use smaller inputs.`
        : `${cellName(name, row, column)} is not a finite number (NaN or infinity).`),
      SEQ_TOO_LONG: ({ count, max }) => `The sentence has ${count} words; at most ${max}.`,
      TOKEN_TOO_LONG: ({ index, start, length, max }) => `Word ${index + 1}, “${start}…”, has ${length} characters; a word has at most ${max}.`,
    },
  },
};

const codeOf = (error) => (typeof error?.code === 'string' ? error.code : 'UNEXPECTED');

/**
 * The sentence for `error` from `table` (ERROR_TEXT.zh or .en, or a text table holding the same two
 * keys): from its details when the code has a detailed sentence and the details fit it, else the code's
 * own sentence. `context.cellName(name, row, column)` names a matrix entry the way the caller labels it.
 */
export function errorSentence(table, error, context = {}) {
  const code = codeOf(error);
  const detailed = error?.details && table.errorDetails[code]?.(error.details, context);
  return detailed || (table.errors[code] ?? table.errors.UNEXPECTED);
}

export { codeOf as errorCode };
