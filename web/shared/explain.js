// Every number explains itself: the arithmetic behind one cell of a figure, retold from the numbers the
// core returned (a snapshot from session.js), and the cells it came from. explainCell() is pure data, so
// a test can redo the sum and compare it with the core; explanationText() turns it into words for a
// popover and a screen reader; the page outlines the sources.
//
// A cell is { figure, head, row, col }. figure: 'q' | 'k' | 'v' (head null: the whole L×d_model input,
// col 0..d_model−1; with a head: that head's slice, col 0..d_k−1), 'dots' (q·k before scaling),
// 'scores' (what the softmax reads: scaled when scale is on), 'weights', 'head' (a head's output, col
// within the head), 'concat', 'wo' (d_model×d_model), 'output'.
import { formatNumber } from '../draw/index.js';

const entry = (values, cols) => (row, col) => values[row * cols + col];
const columns = (n) => Array.from({ length: n }, (_, i) => i);

/** The input cells behind q/k/v entry (row, global col): the slice's cell and the whole matrix's. */
const inputSources = (figure, row, col, dK) => [
  { figure, head: Math.floor(col / dK), row, col: col % dK },
  { figure, head: null, row, col },
];

/** The sum of q·k over head's slice for (row, key): each product, and the sum. */
function dotProduct(snap, head, row, key) {
  const { dModel, dK } = snap;
  const q = entry(snap.q, dModel);
  const k = entry(snap.k, dModel);
  const terms = columns(dK).map((d) => {
    const dim = head * dK + d;
    return { dim, q: q(row, dim), k: k(key, dim), product: q(row, dim) * k(key, dim) };
  });
  return { terms, dot: terms.reduce((sum, t) => sum + t.product, 0) };
}

/** The structured arithmetic of one cell; its numbers are read from `snap`, its result recomputed from them. */
export function explainCell(snap, { figure, head = null, row, col }) {
  const { L, dModel, dK } = snap;
  const cell = { figure, head, row, col };
  const perHead = (values) => entry(values[head], figure === 'head' ? dK : L);

  if (figure === 'q' || figure === 'k' || figure === 'v') {
    const dim = head === null ? col : head * dK + col;
    const value = snap[figure][row * dModel + dim];
    const sources = inputSources(figure, row, dim, dK).filter((s) => s.head !== head);
    return { ...cell, kind: 'entry', value, result: value, dim, owner: Math.floor(dim / dK), terms: [], sources };
  }
  if (figure === 'wo') {
    const value = snap.wo[row * dModel + col];
    const sources = [
      ...columns(L).map((r) => ({ figure: 'concat', head: null, row: r, col: row })),
      ...columns(L).map((r) => ({ figure: 'output', head: null, row: r, col })),
    ];
    return { ...cell, kind: 'entry', value, result: value, terms: [], sources };
  }
  if (figure === 'dots' || figure === 'scores') {
    const { terms, dot } = dotProduct(snap, head, row, col);
    const scaled = figure === 'scores' && snap.scaled;
    const value = perHead(figure === 'dots' ? snap.dots : snap.scores)(row, col);
    const sources = terms.flatMap((t) => [...inputSources('q', row, t.dim, dK), ...inputSources('k', col, t.dim, dK)]);
    const dims = [head * dK, head * dK + dK - 1];
    if (!scaled) return { ...cell, kind: 'dot', value, result: dot, dot, dims, terms, sources };
    const divisor = Math.sqrt(dK);
    sources.push({ figure: 'dots', head, row, col });
    return { ...cell, kind: 'scaled', value, result: dot / divisor, dot, dK, divisor, dims, terms, sources };
  }
  if (figure === 'weights') {
    const score = perHead(snap.scores);
    const hidden = (key) => snap.causal && key > row;
    const terms = columns(L).map((key) => ({ key, score: score(row, key), exp: Math.exp(score(row, key)), masked: hidden(key) }));
    const sum = terms.reduce((total, t) => total + (t.masked ? 0 : t.exp), 0);
    const masked = hidden(col);
    const sources = terms.filter((t) => !t.masked).map((t) => ({ figure: 'scores', head, row, col: t.key }));
    return { ...cell, kind: 'weight', value: perHead(snap.attention)(row, col), result: masked ? 0 : terms[col].exp / sum, masked, sum, terms, sources };
  }
  if (figure === 'head') {
    const weight = entry(snap.attention[head], L);
    const v = entry(snap.v, dModel);
    const terms = columns(L).map((key) => ({ key, weight: weight(row, key), v: columns(dK).map((d) => v(key, head * dK + d)) }));
    const vector = columns(dK).map((d) => terms.reduce((sum, t) => sum + t.weight * t.v[d], 0));
    const sources = [
      ...columns(L).map((key) => ({ figure: 'weights', head, row, col: key })),
      ...columns(L).flatMap((key) => inputSources('v', key, head * dK + col, dK)),
    ];
    return { ...cell, kind: 'headOutput', value: perHead(snap.headOutputs)(row, col), result: vector[col], dim: head * dK + col, vector, terms, sources };
  }
  if (figure === 'concat') {
    const owner = Math.floor(col / dK);
    const ownCol = col % dK;
    const off = !snap.enabled[owner];
    const fromHead = snap.headOutputs[owner][row * dK + ownCol];
    return {
      ...cell, kind: 'concat', value: snap.concat[row * dModel + col], result: off ? 0 : fromHead, owner, ownCol, off, fromHead, terms: [],
      sources: [{ figure: 'head', head: owner, row, col: ownCol }],
    };
  }
  if (figure === 'output') {
    const concat = entry(snap.concat, dModel);
    const wo = entry(snap.wo, dModel);
    const terms = columns(dModel).map((j) => ({ dim: j, concat: concat(row, j), wo: wo(j, col), product: concat(row, j) * wo(j, col) }));
    const sources = columns(dModel).flatMap((j) => [{ figure: 'concat', head: null, row, col: j }, { figure: 'wo', head: null, row: j, col }]);
    return { ...cell, kind: 'output', value: snap.output[row * dModel + col], result: terms.reduce((sum, t) => sum + t.product, 0), terms, sources };
  }
  throw new Error(`explainCell: no figure '${figure}'`);
}

/** A number as the explanation writes it: at most `digits` decimals, no trailing zeros, a real minus sign. */
export function shortNumber(value, digits = 2) {
  const text = formatNumber(value, digits);
  return (text.includes('.') && !text.includes('e') ? text.replace(/\.?0+$/, '') : text).replace(/^-/, '−');
}
/** A weight keeps its decimals (0.50), as on the heatmap. */
export const weightNumber = (value, digits = 2) => formatNumber(value, digits);
/** A factor after ×: negative ones in brackets (one that rounds to 0 is written 0). */
export function factor(value, digits = 2) {
  const text = shortNumber(value, digits);
  return text.startsWith('−') ? `(${text})` : text;
}
/**
 * A sum of products x×y as a learner writes it: a negative x after the first term is subtracted
 * ("− 0.92×(−2.02)"), never added as "+ −0.92×…". `left` writes x (a weight keeps its decimals: weightNumber).
 */
export function productSum(pairs, digits = 2, left = shortNumber) {
  return pairs.map(([x, y], i) => {
    const product = `${left(i && x < 0 ? -x : x, digits)}×${factor(y, digits)}`;
    return i === 0 ? product : `${x < 0 ? ' − ' : ' + '}${product}`;
  }).join('');
}
const vector = (values, digits = 2) => `[${values.map((value) => shortNumber(value, digits)).join(', ')}]`;

const roundTo = (value, digits) => Number(value.toFixed(digits));

/**
 * How many decimals a sum's terms are written with: the fewest, from 2 to 4, at which the products of the
 * terms as written add up to the result as written (2 decimals), so a learner redoing the sum gets the same
 * number. `sums` is a list of [[x, y] pairs, result] (several for a vector). Where not even 4 do, the terms
 * keep 2 decimals and `addsUp` is false: the explanation says its terms are rounded.
 */
export function termDigits(sums) {
  for (let digits = 2; digits <= 4; digits++) {
    const addsUp = sums.every(([pairs, result]) =>
      formatNumber(pairs.reduce((total, [x, y]) => total + roundTo(x, digits) * roundTo(y, digits), 0), 2) === formatNumber(result, 2));
    if (addsUp) return { digits, addsUp };
  }
  return { digits: 2, addsUp: false };
}
const SUBSCRIPT = '₀₁₂₃₄₅₆₇₈₉';
const sub = (n) => String(n).replace(/\d/g, (d) => SUBSCRIPT[d]);

/** Columns are named as the figures label them: words for the square ones, d_model dimensions for the rest. */
function titleFor({ figure, head, row, col }, { dim, scaled, tokens, words }) {
  const token = (i) => tokens[i] ?? String(i + 1);
  const square = figure === 'dots' || figure === 'scores' || figure === 'weights';
  return words.title({ figure, head, row: figure === 'wo' ? row : token(row), col: square ? token(col) : dim, scaled });
}

/** A cell's name without its arithmetic (cheap enough for every cell's accessible name on every redraw). */
export function cellTitle(snap, cell, { tokens, words }) {
  const perHeadColumns = cell.head !== null && ['q', 'k', 'v', 'head'].includes(cell.figure);
  return titleFor(cell, { dim: perHeadColumns ? cell.head * snap.dK + cell.col : cell.col, scaled: cell.figure === 'scores' && snap.scaled, tokens, words });
}

/**
 * The explanation in words: { title, lines } for the popover, and `spoken`, the same as one string for a
 * screen reader. `words` is FIGURE_LABELS[lang].explain; `tokens` names the rows.
 */
export function explanationText(explanation, { tokens, words }) {
  const e = explanation;
  const token = (i) => tokens[i] ?? String(i + 1);
  const qk = `q_${token(e.row)} · k_${token(e.col)}`;
  // Each sum's terms are written with as many decimals as it takes for them to add up as written.
  const productFit = (terms, a, b, result) => termDigits([[terms.map((t) => [t[a], t[b]]), result]]);
  const products = (terms, a, b, { digits }) => productSum(terms.map((t) => [t[a], t[b]]), digits);
  const rounded = (...fits) => (fits.every((fit) => fit.addsUp) ? [] : [words.rounded]);
  let lines;
  switch (e.kind) {
    case 'entry':
      lines = [e.figure === 'wo' ? words.wo(e.row, e.col, shortNumber(e.value)) : words.input({ matrix: e.figure, token: token(e.row), dim: e.dim, head: e.head, owner: e.owner, value: shortNumber(e.value) })];
      break;
    case 'dot': {
      const fit = productFit(e.terms, 'q', 'k', e.result);
      lines = [`${qk} = ${products(e.terms, 'q', 'k', fit)} = ${shortNumber(e.result)}`, ...rounded(fit), words.slice(e.head, ...e.dims)];
      break;
    }
    case 'scaled': {
      const fit = productFit(e.terms, 'q', 'k', e.dot);
      lines = [`${qk} = ${products(e.terms, 'q', 'k', fit)} = ${shortNumber(e.dot)}`, ...rounded(fit), `${shortNumber(e.dot)} ÷ √${e.dK} = ${shortNumber(e.result)}`, words.slice(e.head, ...e.dims)];
      break;
    }
    case 'weight': {
      const kept = e.terms.filter((t) => !t.masked);
      const hidden = e.terms.filter((t) => t.masked).map((t) => token(t.key));
      lines = e.masked
        ? [words.maskedCell(token(e.row), token(e.col))]
        : [
          `e^${shortNumber(e.terms[e.col].score)} ÷ (${kept.map((t) => `e^${shortNumber(t.score)}`).join(' + ')})`,
          `= ${shortNumber(e.terms[e.col].exp)} ÷ ${shortNumber(e.sum)} = ${weightNumber(e.result)}`,
        ];
      if (hidden.length && !e.masked) lines.push(words.excluded(hidden));
      break;
    }
    case 'headOutput': {
      const column = (d) => [e.terms.map((t) => [t.weight, t.v[d]]), e.vector[d]];
      const all = termDigits(e.vector.map((_, d) => column(d)));
      const one = termDigits([column(e.col)]);
      lines = [
        `head${sub(e.head + 1)}[${token(e.row)}] = ${e.terms.map((t) => `${weightNumber(t.weight, all.digits)}×${vector(t.v, all.digits)}`).join(' + ')} = ${vector(e.vector)}`,
        `${words.column(e.dim)}${productSum(e.terms.map((t) => [t.weight, t.v[e.col]]), one.digits, weightNumber)} = ${shortNumber(e.result)}`,
        ...rounded(all, one),
      ];
      break;
    }
    case 'concat':
      lines = [e.off ? words.concatOff(e.owner) : words.concatFrom(e.owner, e.col, shortNumber(e.result))];
      break;
    case 'output': {
      const fit = productFit(e.terms, 'concat', 'wo', e.result);
      lines = [words.outputRule(token(e.row), e.col), `= ${products(e.terms, 'concat', 'wo', fit)} = ${shortNumber(e.result)}`, ...rounded(fit)];
      break;
    }
    default:
      throw new Error(`explanationText: no kind '${e.kind}'`);
  }
  const title = titleFor(e, { dim: e.dim ?? e.col, scaled: e.kind === 'scaled', tokens, words });
  return { title, lines, spoken: [title, ...lines].join(words.sentenceGap) };
}
