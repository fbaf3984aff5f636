// §10's views of a real model's heads, the same for the poetry model (web/poems/section.js) and GPT-2
// (web/gpt2/section.js): a head's tile, the head enlarged, its roles, the next tokens with heads on and off.
// Each is a pure function of data to virtual nodes (show() them, ../ui/dom.js), bar the two boxes built once
// to show them in and bringIntoView, which scrolls to one. What differs between the models comes in as data: the words (the poetry model's
// TEXT.poems, or GPT-2's over them), the ids' prefix ('poem', 'gpt2'), the roles measured, the top tokens
// already labelled.
import { h, vh, vdoc, keyBy } from '../ui/dom.js';
import { figure } from '../ui/section.js';
import { heatmap, lineView, rowBars, textWeights, FUTURE_COLOR } from '../draw/index.js';
import { explainCell, explanationText, shortNumber, productSum, factor, termDigits, weightNumber } from '../shared/explain.js';
import { layerHead } from './heads.js';
import { LABEL_TIMES_CHANCE } from './roles.js';

/** The longest text whose enlarged head is drawn as lines from the query to every token; longer ones read as text. */
const LINES_AT_MOST = 24;
/** The weighted sum of v writes out this many of its heaviest terms (and the key picked); the rest as one. */
const SUM_TERMS = 3;

const fixed = (value, digits = 3) => (value === null || value === undefined ? '—' : value.toFixed(digits));

/** The box of the tiles: one row a layer of `columns` heads (two rows on a phone when a row has more than four). */
export function tilesBox(id, label, columns) {
  return h('div', { class: 'poem-tiles', id, role: 'group', 'aria-label': label,
    style: { '--heads': columns, '--phone-heads': columns > 4 && columns % 2 === 0 ? columns / 2 : columns } });
}

/** The box of the enlarged head: clicking a token on the left of its lines view calls onPosition(index). */
export function enlargedBox(id, onPosition) {
  return h('div', { class: 'fig-row', id, onclick: (event) => {
    const token = event.target.closest?.('.query-token');
    if (token) onPosition(Number(token.dataset.index));
  } });
}

/**
 * Scrolls `node` (a figure a button far above it just changed) to the top of the window once the change is drawn:
 * smoothly, or at once for a learner who asks the browser for less motion. In lesson mode, which shows a screen
 * at a time, the page's lesson:reveal handler shows the screen holding it instead (and cancels the event).
 */
export function bringIntoView(node) {
  if (!node.dispatchEvent(new CustomEvent('lesson:reveal', { bubbles: true, cancelable: true }))) return;
  const behavior = matchMedia('(prefers-reduced-motion: reduce)').matches ? 'auto' : 'smooth';
  requestAnimationFrame(() => node.scrollIntoView({ block: 'start', behavior }));
}

/** What a tile says a head does: its clear role (roles.js's clearRole) or mixed. */
export const roleWord = (words, role) => (role ? words.roleNames[role] : words.mixed);

/**
 * Head `index`'s tile: `picture` (its canvas, ../ui/section.js's tileCanvases), its name and `role` (words).
 * The button is named by its visible words; the picture is for the eye. Clicking it calls onPick(index).
 */
export function headTile(words, { index, heads, picture, role, pressed, onPick }) {
  const [layer, head] = layerHead(index, heads);
  return vh('button', { type: 'button', class: 'poem-tile', 'data-index': index, 'aria-pressed': String(pressed), onclick: () => onPick(index) }, [
    vh('span', { class: 'tile-picture', 'aria-hidden': 'true' }, [picture]),
    vh('span', { class: 'tile-name' }, [words.tileName(layer, head)]),
    vh('span', { class: 'tile-role' }, [role]),
  ]);
}

/**
 * Head `index` enlarged: its L×L `weights` as a heatmap (the future of a causal model greyed, as in the tiles),
 * and as lines from the token at `row` (a longer text: as it reads, each token tinted by `row`'s weight); on a phone, where a map of 64 × 64 cells cannot be read, the row's
 * weights as a list of bars instead of the map (the page's stylesheet shows one or the other). `role`: its name, if it has one;
 * `off`: the head is switched off (its weights are still computed, its output zeroed), which the caption says.
 */
export function enlargedHead(words, { prefix, index, heads, weights, labels, row, role = null, off = false }) {
  const [layer, head] = layerHead(index, heads);
  const L = labels.length;
  // A cell size that stays put while the learner types, and cells matched by their place, so a keystroke
  // adds only the new row and column (a causal model's earlier rows do not change); the figure scales
  // down to the screen.
  const cell = L <= 16 ? 26 : 14;
  return [
    figure({
      id: `${prefix}-heatmap`,
      // its name, where the page gives it one, and whether it is off
      caption: [words.bigTitle(layer, head), role && roleWord(words, role), off && words.headOff].filter(Boolean).join(' · '),
      className: 'wide-only',
      svg: keyBy(heatmap(vdoc, { values: weights, rows: L, cols: L, rowLabels: labels, colLabels: labels, showNumbers: false, cell,
        masked: (r, c) => c > r, maskedColor: FUTURE_COLOR, focusRow: row, title: words.heatmapTitle(layer, head) }), ['data-row', 'data-col']),
    }),
    figure({
      id: `${prefix}-bars`,
      className: 'phone-only',
      caption: words.barsTitle(layer, head, labels[row]),
      svg: rowBars(vdoc, { labels: labels.slice(0, row + 1), weights: Array.prototype.slice.call(weights, row * L, row * L + row + 1), focus: row, title: words.barsTitle(layer, head, labels[row]) }),
    }),
    // Lines from a query to 64 keys make a tall, thin figure with one line in it: a long text is shown as it
    // reads instead, each token tinted by the query's weight.
    L > LINES_AT_MOST ? figure({
      id: `${prefix}-text`,
      className: 'wide-only', // a phone shows the same row as bars
      caption: words.textTitle(layer, head, labels[row]),
      svg: textWeights(vdoc, { labels, weights: Array.prototype.slice.call(weights, row * L, (row + 1) * L), focus: row, lineBreak: '↵', title: words.textTitle(layer, head, labels[row]) }),
    }) : figure({
      id: `${prefix}-lines`,
      caption: words.linesTitle(layer, head),
      svg: lineView(vdoc, { tokens: labels, attention: [weights], visibleHeads: [0], focus: row, rowGap: 26, title: words.linesTitle(layer, head), queryLabel: words.query, keyLabel: words.key }),
    }),
  ];
}

/**
 * How many times its chance level a score is, as the roles table writes it: the ratio of the numbers as written,
 * so that a reader dividing them finds it (0.059 / 0.069 is 0.9, even where the unrounded pair gives 0.84); but
 * where that would put the score on the other side of LABEL_TIMES_CHANCE, the line a name needs (0.183 / 0.062
 * is 3.0 where 0.18299 / 0.0622 is 2.94), the unrounded ratio to two places, cut towards its side.
 */
export function timesChance(score, chance, shownScore, shownChance) {
  const written = (Number(shownScore) / Number(shownChance)).toFixed(1);
  const exact = score / chance;
  if (Number(written) >= LABEL_TIMES_CHANCE === exact >= LABEL_TIMES_CHANCE) return written;
  return (exact >= LABEL_TIMES_CHANCE ? Math.ceil(exact * 100) / 100 : Math.floor(exact * 100) / 100).toFixed(2);
}

/**
 * Head `index`'s roles: a row per role of `roles` (names), a column per measure of `columns`: { title, where
 * (its data-where, if any), measured: { scores (this head's, by role), chance, rows (how many positions each
 * role applies at, when known: a role at none is not applicable) }, or null while it is being measured }.
 * Then, unless `verdict` is null, the verdict: `verdict.role`, the role that stands out, or null (mixed). While a
 * column is being measured, `waiting` ({ text, done, total }, total 0 while not known) says so above the table.
 */
export function rolesTable(words, { prefix, index, heads, roles, columns, verdict, waiting = null }) {
  const [layer, head] = layerHead(index, heads);
  const titleId = `${prefix}-roles-title`;
  const cell = ({ where, measured }, name) => {
    if (!measured) return [words.lossPending];
    if (measured.rows && !measured.rows[name]) return [vh('small', {}, [words.notApplicable])];
    const value = measured.scores[name];
    const [shownValue, shownChance] = [fixed(value), fixed(measured.chance[name])];
    const ratio = value === null || !Number(shownChance) ? null : timesChance(value, measured.chance[name], shownValue, shownChance);
    return [
      vh('span', { class: 'role-score', 'data-role': name, 'data-where': where, 'data-value': value === null ? '' : String(value) }, [shownValue]),
      vh('small', {}, [words.chance(shownChance, ratio)]),
    ];
  };
  return [
    vh('h3', { id: titleId }, [words.rolesTitle(layer, head)]),
    vh('p', { class: 'muted' }, [words.rolesNote]),
    waiting ? vh('p', { class: 'muted', id: `${prefix}-roles-waiting`, 'data-state': 'measuring' }, [
      waiting.text, ' ', vh('progress', { 'aria-label': waiting.text, ...(waiting.total ? { max: waiting.total, value: waiting.done } : {}) }),
    ]) : null,
    vh('table', { class: 'poem-roles', 'aria-labelledby': titleId }, [
      vh('thead', {}, [vh('tr', {}, [words.roleColumn, ...columns.map(({ title }) => title)].map((name) => vh('th', { scope: 'col' }, [name])))]),
      vh('tbody', {}, roles.map((name) => vh('tr', { 'data-role': name }, [
        vh('th', { scope: 'row' }, [vh('strong', {}, [words.roleNames[name]]), vh('small', {}, [words.roleExplains[name]])]),
        ...columns.map((column) => vh('td', {}, cell(column, name))),
      ]))),
    ]),
    // The verdict's role is defined again beside it: lesson mode hides the table's definitions for room.
    verdict ? vh('p', { id: `${prefix}-verdict` }, [
      verdict.role ? words.verdict(words.roleNames[verdict.role], words.roleExplains[verdict.role]) : words.verdictMixed, ' ',
      vh('small', { class: 'muted' }, [words.verdictRule]),
    ]) : null,
  ];
}

/**
 * The likeliest next tokens after the token at `row` (`label`): with every head on (`allOn`), and with the
 * `offCount` heads off (`now`, or null when none is off); each a list of { id, p, label }, likeliest first.
 */
export function nextTokens(words, { prefix, row, label, allOn, now, offCount }) {
  const list = (id, caption, top) => vh('figure', { class: 'poem-top', id }, [
    vh('figcaption', {}, [caption]),
    vh('ol', {}, top.map(({ id: next, p, label: shown }) => vh('li', { 'data-id': next, 'data-p': String(p) }, [
      vh('span', { class: 'next-char' }, [shown]), ' ', vh('span', { class: 'next-p' }, [p.toFixed(3)]),
    ]))),
  ]);
  return [
    vh('h3', {}, [words.predictionTitle(row, label)]),
    vh('div', { class: 'fig-row' }, [
      list(`${prefix}-top-all`, words.allOnColumn, allOn),
      now ? list(`${prefix}-top-now`, words.nowColumn(offCount), now) : null,
    ]),
  ];
}

/** The key the row looks at most: where the steps start before the learner picks another. */
export function heaviestKey(weights, L, row) {
  let best = 0;
  for (let j = 1; j <= row; j++) if (weights[row * L + j] > weights[row * L + best]) best = j;
  return best;
}

const SUPERSCRIPT_DIGITS = '⁰¹²³⁴⁵⁶⁷⁸⁹';
/**
 * e^s and its sum as a learner can divide them: past 9,999 three figures and ×10ⁿ (9.97×10⁴ ÷ 9.99×10⁴ = 0.998),
 * where shortNumber's 1.0e5 ÷ 1.0e5 would seem to give 1.
 */
export function expNumber(value) {
  if (!Number.isFinite(value) || value < 1e4) return shortNumber(value);
  const [mantissa, power] = value.toExponential(2).split('e');
  return `${mantissa}×10${[...String(Number(power))].map((digit) => SUPERSCRIPT_DIGITS[digit]).join('')}`;
}

/**
 * The lesson's four steps on a real head: the query at `row` and the key at `key` as the core computed them
 * (`qkv`, the block's L×3·dModel queries, keys and values), their dot product, its scaling by √d_k, the
 * softmax over the row, worked out as §3 works out the lesson's 猫吃鱼 and set beside the weight the core
 * gave (`weights`, the head's L×L), and the row's weighted sum of the core's v: the head's output there.
 * The sums are retold by ../shared/explain.js from a one-head snapshot of the row's first row + 1
 * positions, so the arithmetic is written exactly as §3 writes it. `off`: the head is switched off, which a
 * line above the steps says (they are computed all the same; only the output is zeroed).
 */
export function headSteps(words, explainWords, { prefix, index, heads, dModel, labels, row, key, qkv, weights, off = false }) {
  const [layer, head] = layerHead(index, heads);
  const dK = dModel / heads;
  const L = labels.length;
  const positions = row + 1;
  const slice = (position, part) => qkv.subarray(position * 3 * dModel + part * dModel + head * dK, position * 3 * dModel + part * dModel + (head + 1) * dK);
  const q = new Float64Array(positions * dK);
  const k = new Float64Array(positions * dK);
  for (let p = 0; p < positions; p++) {
    q.set(slice(p, 0), p * dK);
    k.set(slice(p, 1), p * dK);
  }
  // The steps read the query's row alone: the others stay zero.
  const dots = new Float64Array(positions * positions);
  const attention = new Float64Array(positions * positions);
  for (let j = 0; j <= row; j++) {
    let dot = 0;
    for (let e = 0; e < dK; e++) dot += q[row * dK + e] * k[j * dK + e];
    dots[row * positions + j] = dot;
    attention[row * positions + j] = weights[row * L + j];
  }
  const snap = { L: positions, dModel: dK, dK, q, k, dots: [dots], scores: [dots.map((dot) => dot / Math.sqrt(dK))], attention: [attention], scaled: true, causal: true };
  const tokens = labels.slice(0, positions);
  const told = (figure) => explanationText(explainCell(snap, { figure, head: 0, row, col: key }), { tokens, words: explainWords });
  // A score's lines: the dot product (and a note if its terms are rounded), its scaling, and the head's slice
  // of d_model, left out: here the vectors are that slice already.
  const score = told('scores').lines.slice(0, -1);
  const [dotLines, scaleLine] = [score.slice(0, -1), score.at(-1)];
  const softmax = explainCell(snap, { figure: 'weights', head: 0, row, col: key });
  const core = weights[row * L + key];
  const agrees = Math.abs(softmax.result - core) < 1e-4;
  const sum = weightedSum(words, explainWords, { prefix, weights: weights.subarray(row * L, row * L + positions), v: (p) => slice(p, 2), labels, row, key, dK });
  return [
    vh('h3', {}, [words.stepsTitle(layer, head, labels[row], labels[key])]),
    vh('p', { class: 'muted' }, [words.stepsNote(dK)]),
    off ? vh('p', { id: `${prefix}-steps-off` }, [words.stepsOff]) : null,
    figure({
      id: `${prefix}-qk`,
      caption: words.qkCaption(labels[row], labels[key], dK),
      svg: heatmap(vdoc, { values: [...slice(row, 0), ...slice(key, 1)], rows: 2, cols: dK, scale: 'signed', cell: 40, digits: 2,
        rowLabels: [`q · ${labels[row]}`, `k · ${labels[key]}`], colLabels: Array.from({ length: dK }, (_, e) => String(e)), title: words.qkCaption(labels[row], labels[key], dK) }),
    }),
    vh('ol', { class: 'head-steps', id: `${prefix}-step-list` }, [
      vh('li', { 'data-step': 'score', 'data-value': String(dots[row * positions + key]) }, [words.stepScore, ...dotLines.map((line) => vh('span', { class: 'step-sum' }, [line]))]),
      vh('li', { 'data-step': 'scale', 'data-value': String(softmax.terms[key].score) }, [words.stepScale(dK, dModel, heads), vh('span', { class: 'step-sum' }, [scaleLine])]),
      vh('li', { 'data-step': 'softmax', 'data-value': String(softmax.result) }, [
        words.stepSoftmax(positions),
        vh('span', { class: 'step-sum' }, [positions <= 8
          ? told('weights').lines.join(' ')
          : `e^${shortNumber(softmax.terms[key].score)} ÷ Σ e^s = ${expNumber(softmax.terms[key].exp)} ÷ ${expNumber(softmax.sum)} = ${softmax.result.toFixed(3)}`]),
        vh('span', { class: 'step-sum', 'data-step': 'core', 'data-value': String(core), 'data-agrees': String(agrees) }, [words.stepCore(core.toFixed(3), agrees)]),
      ]),
      sum.step,
    ]),
    sum.figure,
  ];
}

/**
 * The fourth step at `row`: its `weights` (the row's, over the positions in view) times each position's v (`v(p)`,
 * the head's d_k slice the core computed), added up: the head's output at `row`. The heaviest SUM_TERMS terms
 * and the key picked are drawn as rows of weight × v, the others as one row, the sum beneath; one dimension's
 * sum is written out, with the decimals it takes to add up as written.
 */
function weightedSum(words, explainWords, { prefix, weights, v, labels, row, key, dK }) {
  const positions = weights.length;
  const byWeight = Array.from({ length: positions }, (_, p) => p).sort((a, b) => weights[b] - weights[a]);
  const written = [...new Set([...byWeight.slice(0, SUM_TERMS), key])].sort((a, b) => a - b);
  const rest = byWeight.filter((p) => !written.includes(p));
  const weighted = (p) => Array.from(v(p), (x) => weights[p] * x);
  const restRow = Array.from({ length: dK }, (_, e) => rest.reduce((total, p) => total + weights[p] * v(p)[e], 0));
  const output = Array.from({ length: dK }, (_, e) => written.reduce((total, p) => total + weights[p] * v(p)[e], restRow[e]));
  // The dimension written out: where the output is largest, so that the sum is worth reading.
  const dim = output.reduce((best, x, e) => (Math.abs(x) > Math.abs(output[best]) ? e : best), 0);
  const pairs = written.map((p) => [weights[p], v(p)[dim]]);
  const fit = termDigits([[rest.length ? [...pairs, [1, restRow[dim]]] : pairs, output[dim]]]);
  const restTerm = rest.length ? ` + ${words.sumRest(rest.length)} ${factor(restRow[dim], fit.digits)}` : '';
  const rows = [...written.map(weighted), ...(rest.length ? [restRow] : []), output];
  const rowLabels = [
    ...written.map((p) => `${weightNumber(weights[p], fit.digits)} × v · ${labels[p]}`),
    ...(rest.length ? [words.sumRest(rest.length)] : []),
    `= ${words.sumOutput(labels[row])}`,
  ];
  return {
    step: vh('li', { 'data-step': 'weighted', 'data-dim': String(dim), 'data-value': String(output[dim]) }, [
      words.stepWeighted(positions, dK),
      vh('span', { class: 'step-sum' }, [`${explainWords.column(dim)}${productSum(pairs, fit.digits, weightNumber)}${restTerm} = ${shortNumber(output[dim])}`]),
      fit.addsUp ? null : vh('span', { class: 'step-sum' }, [explainWords.rounded]),
    ]),
    figure: figure({
      id: `${prefix}-sum`,
      caption: words.sumCaption(labels[row], dK),
      svg: heatmap(vdoc, { values: rows.flat(), rows: rows.length, cols: dK, scale: 'signed', cell: 40, digits: 2, rowLabels,
        colLabels: Array.from({ length: dK }, (_, e) => String(e)), title: words.sumCaption(labels[row], dK) }),
    }),
  };
}
