// §9's views of a real model's heads, the same for the poetry model (web/poems/section.js) and GPT-2
// (web/gpt2/section.js): a head's tile, the head enlarged, its roles, the next tokens with heads on and off.
// Each is a pure function of data to virtual nodes (show() them, ../ui/dom.js), bar the two boxes built once
// to show them in. What differs between the models comes in as data: the words (the poetry model's
// TEXT.poems, or GPT-2's over them), the ids' prefix ('poem', 'gpt2'), the roles measured, the top tokens
// already labelled.
import { h, vh, vdoc, keyBy } from '../ui/dom.js';
import { figure } from '../ui/section.js';
import { heatmap, lineView, rowBars, FUTURE_COLOR } from '../draw/index.js';
import { layerHead } from './heads.js';

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

/** What a tile says a head does: its clear role (head-roles.js's clearRole) or mixed. */
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
 * and as lines from the token at `row`; on a phone, where a map of 64 × 64 cells cannot be read, the row's
 * weights as a list of bars instead of the map (the page's stylesheet shows one or the other).
 */
export function enlargedHead(words, { prefix, index, heads, weights, labels, row }) {
  const [layer, head] = layerHead(index, heads);
  const L = labels.length;
  // A cell size that stays put while the learner types, and cells matched by their place, so a keystroke
  // adds only the new row and column (a causal model's earlier rows do not change); the figure scales
  // down to the screen.
  const cell = L <= 16 ? 26 : 14;
  return [
    figure({
      id: `${prefix}-heatmap`,
      caption: words.bigTitle(layer, head),
      className: 'wide-only',
      svg: keyBy(heatmap(vdoc, { values: weights, rows: L, cols: L, rowLabels: labels, colLabels: labels, showNumbers: false, cell,
        masked: (r, c) => c > r, maskedColor: FUTURE_COLOR, title: words.heatmapTitle(layer, head) }), ['data-row', 'data-col']),
    }),
    figure({
      id: `${prefix}-bars`,
      className: 'phone-only',
      caption: words.barsTitle(layer, head, labels[row]),
      svg: rowBars(vdoc, { labels: labels.slice(0, row + 1), weights: Array.prototype.slice.call(weights, row * L, row * L + row + 1), focus: row, title: words.barsTitle(layer, head, labels[row]) }),
    }),
    figure({
      id: `${prefix}-lines`,
      caption: words.linesTitle(layer, head),
      svg: lineView(vdoc, { tokens: labels, attention: [weights], visibleHeads: [0], focus: row, rowGap: L > 24 ? 18 : 26, title: words.linesTitle(layer, head), queryLabel: words.query, keyLabel: words.key }),
    }),
  ];
}

/**
 * Head `index`'s roles: a row per role of `roles` (names), a column per measure of `columns`: { title, where
 * (its data-where, if any), measured: { scores (this head's, by role), chance, rows (how many positions each
 * role applies at, when known: a role at none is not applicable) }, or null while it is being measured }.
 * Then, unless `verdict` is null, the verdict: `verdict.role`, the role that stands out, or null (mixed).
 */
export function rolesTable(words, { prefix, index, heads, roles, columns, verdict }) {
  const [layer, head] = layerHead(index, heads);
  const titleId = `${prefix}-roles-title`;
  const cell = ({ where, measured }, name) => {
    if (!measured) return [words.lossPending];
    if (measured.rows && !measured.rows[name]) return [vh('small', {}, [words.notApplicable])];
    const value = measured.scores[name];
    return [
      vh('span', { class: 'role-score', 'data-role': name, 'data-where': where, 'data-value': value === null ? '' : String(value) }, [fixed(value)]),
      vh('small', {}, [words.chance(fixed(measured.chance[name]), value === null || !measured.chance[name] ? null : (value / measured.chance[name]).toFixed(1))]),
    ];
  };
  return [
    vh('h3', { id: titleId }, [words.rolesTitle(layer, head)]),
    vh('p', { class: 'muted' }, [words.rolesNote]),
    vh('table', { class: 'poem-roles', 'aria-labelledby': titleId }, [
      vh('thead', {}, [vh('tr', {}, [words.roleColumn, ...columns.map(({ title }) => title)].map((name) => vh('th', { scope: 'col' }, [name])))]),
      vh('tbody', {}, roles.map((name) => vh('tr', { 'data-role': name }, [
        vh('th', { scope: 'row' }, [vh('strong', {}, [words.roleNames[name]]), vh('small', {}, [words.roleExplains[name]])]),
        ...columns.map((column) => vh('td', {}, cell(column, name))),
      ]))),
    ]),
    verdict ? vh('p', { id: `${prefix}-verdict` }, [
      verdict.role ? words.verdict(words.roleNames[verdict.role]) : words.verdictMixed, ' ', vh('small', { class: 'muted' }, [words.verdictRule]),
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
