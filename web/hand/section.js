import { h, fill, show } from '../ui/dom.js';
import { checkbox, numberField, uniqueId } from '../ui/controls.js';
import { section, errorBox, range, keptDrawings, partsNearScreen } from '../ui/section.js';
import { dragNumber } from '../ui/drag-number.js';
import { holdTouchUntilSideways } from '../ui/touch.js';
import { headColor } from '../draw/index.js';
import { HAND_D_MODEL, HAND_MAX_TOKENS, HAND_BOUNDS, MAX_TOKEN_CHARS, defaultHand, tokenName } from './limits.js';
import { cellExplorer } from '../ui/explore.js';
import { explainCell, explanationText, cellTitle } from '../shared/explain.js';
import { EXPLAIN_WORDS } from '../shared/figure-labels.js';
import { createSession } from '../shared/session.js';
import { lessonPauseFacts, handPauseFacts } from './pause.js';
import { signedDomainOf, legendsView, headCard, concatView, outputView, pauseView } from './views.js';
import { handEntryName } from './strings.js';

/**
 * §3: the hand example — editable q/k/v, per-head slices, scores, softmax, head outputs, concat, Wᴼ. The mount:
 * the editors and their events here; what the figures and 停一秒 show, views.js.
 */
export function handSection(ctx, frame) {
  const t = ctx.text.hand;
  const editors = h('div', { class: 'qkv-editors', 'data-screen': 1 });
  const entryEditor = h('div', { class: 'entry-editor', id: 'entry-editor', 'data-screen': 1 });
  const status = h('div', { class: 'hand-status' });
  const headsBox = h('div', { class: 'heads', id: 'heads' });
  const concatBox = h('div', { id: 'concat' });
  const woBox = h('div', { id: 'wo-editor' });
  const outputBox = h('div', { id: 'output' });
  const legendsBox = h('div', { class: 'legends', id: 'hand-legends', 'data-screen': 1 });
  const pauseText = h('div', { id: 'pause-text' });
  const cells = { q: [], k: [], v: [], wo: [] }; // drag numbers by matrix/row/col, to update in place
  const drawing = keptDrawings(); // each figure is drawn again only when its numbers or labels change
  // The head cards, the concat and the output are drawn only near the screen: a drag in the editors at
  // the top redraws what is seen, and the figures below catch up as they come near.
  const nearScreen = partsNearScreen(() => ctx.redraw('hand'));
  nearScreen.watch(concatBox, outputBox);
  let shownCards = []; // the virtual head cards last shown, one per head
  // The callout's other forwards: lesson 8's single head on the same q, k, v, and the lesson's own numbers.
  const session = createSession(ctx.mha);
  const lessonFacts = lessonPauseFacts(session);

  const headChoice = h('fieldset', { class: 'choice' }, [
    h('legend', {}, [t.headsLabel]),
    ...[1, 2, 4].map((n) => {
      const id = uniqueId('heads');
      return h('label', { for: id }, [
        h('input', { type: 'radio', name: 'hand-heads', id, value: n, checked: ctx.state.hand.heads === n, onchange: () => ctx.set((s) => { s.hand.heads = n; s.hand.off = []; }) }),
        ` ${n}`,
      ]);
    }),
  ]);

  const node = section(frame.id, frame.title, [
    h('p', {}, [t.lead]),
    h('p', { class: 'note', id: 'mask-note' }, [t.maskNote]),
    h('p', { class: 'lesson-mode-note', id: 'mask-note-short', 'data-screen': 1 }, [t.maskNoteShort]),
    // Lesson mode shows §3 in three screens (data-screen): the table, the heads compared, concat and Wᴼ.
    h('div', { class: 'controls', 'data-screen': 1 }, [
      headChoice,
      checkbox({ label: t.mask, checked: ctx.state.hand.causal, id: 'hand-mask', onChange: (on) => ctx.set((s) => (s.hand.causal = on)) }),
      checkbox({ label: t.scale, checked: ctx.state.hand.scale, id: 'hand-scale', onChange: (on) => ctx.set((s) => (s.hand.scale = on)) }),
      h('button', { type: 'button', id: 'hand-reset', onclick: () => ctx.set((s) => { s.hand = defaultHand(); }) }, [t.reset]),
    ]),
    h('p', { class: 'muted', 'data-screen': 1 }, [t.editHint]),
    h('p', { class: 'muted', id: 'explain-hint', 'data-screen': 1 }, [ctx.text.explain.hint]),
    editors,
    entryEditor,
    status,
    legendsBox,
    // The heads side by side with 停一秒 beside them in lesson mode, on one screen.
    h('div', { class: 'heads-compared', 'data-screen': 2 }, [
      headsBox,
      h('div', { class: 'pause-callout', id: 'pause-callout', role: 'note', 'aria-labelledby': 'pause-title' }, [
        h('p', { class: 'pause-title', id: 'pause-title' }, [t.pauseTitle]),
        pauseText,
      ]),
    ]),
    // Each heading with its note and its figure: lesson mode stands the three side by side.
    h('div', { class: 'concat-and-wo', 'data-screen': 3 }, [
      h('div', { class: 'concat-step' }, [h('h3', {}, [t.concatTitle]), h('p', { class: 'muted' }, [t.concatNote]), concatBox]),
      h('div', { class: 'concat-step' }, [h('h3', {}, [t.woTitle]), h('p', { class: 'muted', id: 'wo-note' }, [t.woNote]), woBox]),
      h('div', { class: 'concat-step' }, [h('h3', {}, [t.outputTitle]), outputBox]),
    ]),
  ]);

  const entryName = (matrix, row, col) => handEntryName(t, ctx.state.hand.tokens)(matrix, row, col);

  // Every editor of an entry (its drag number, the slider, the typed box) only changes the state; the
  // update below shows the new value in the others.
  // An entry's editor can outlive its row (a word removed, or the lesson restored, while it kept the focus):
  // what it still sends is dropped.
  const setEntry = (matrix, row, col, value) => {
    if (col < (ctx.state.hand[matrix][row]?.length ?? 0)) ctx.set((s) => (s.hand[matrix][row][col] = value));
  };
  const select = (matrix, row, col) => ctx.setUi((ui) => (ui.selected = { matrix, row, col }));

  /** The slider and text field for the selected entry; rebuilt only when the selection changes. */
  function showEntryEditor(rebuild = false) {
    const { selected } = ctx.ui;
    if (!selected || !ctx.state.hand[selected.matrix][selected.row]) {
      fill(entryEditor, h('p', { class: 'muted' }, [t.selectedNone]));
      return;
    }
    const { matrix, row, col } = selected;
    const value = ctx.state.hand[matrix][row][col];
    const [min, max] = HAND_BOUNDS[matrix];
    if (!rebuild && entryEditor.dataset.key === `${matrix}/${row}/${col}`) {
      const [slider, typed] = entryEditor.querySelectorAll('input');
      if (Number.isFinite(value)) slider.value = String(value);
      if (document.activeElement !== typed) typed.value = Number.isFinite(value) ? String(value) : '';
      return;
    }
    const name = entryName(matrix, row, col);
    const valueInUse = () => ctx.state.hand[matrix][row][col];
    entryEditor.dataset.key = `${matrix}/${row}/${col}`;
    const slider = h('input', { type: 'range', id: 'entry-range', min, max, step: 0.1, value: Number.isFinite(value) ? value : 0, 'aria-label': t.sliderLabel(name), oninput: (e) => setEntry(matrix, row, col, Number(e.target.value)) });
    holdTouchUntilSideways(slider); // scrolling past it on a phone leaves the value alone
    fill(entryEditor, [
      h('span', { class: 'entry-name' }, [`${t.selected}: `, h('strong', {}, [name])]),
      slider,
      numberField({
        label: t.typedLabel(name), hideLabel: true, id: 'entry-number', value, min, max, step: 0.1, notANumber: ctx.text.notANumber, current: valueInUse,
        refuse: (typed) => (typed >= min && typed <= max ? null : t.outOfRange(min, max, valueInUse())),
        onInput: (typed) => setEntry(matrix, row, col, typed),
      }),
    ]);
  }

  function numberCell(matrix, row, col) {
    const [min, max] = HAND_BOUNDS[matrix];
    const cell = dragNumber({
      value: ctx.state.hand[matrix][row][col],
      min,
      max,
      label: entryName(matrix, row, col),
      onInput: (value) => setEntry(matrix, row, col, value),
      onSelect: () => select(matrix, row, col),
    });
    cell.dataset.matrix = matrix;
    cell.dataset.row = row;
    cell.dataset.col = col;
    (cells[matrix][row] ??= [])[col] = cell;
    return cell;
  }

  /** The q, k, v tables; rebuilt when words are added or removed or h changes (column colours). */
  function buildEditors() {
    const { tokens, heads } = ctx.state.hand;
    const dk = HAND_D_MODEL / heads;
    for (const key of ['q', 'k', 'v']) cells[key] = [];
    const table = (matrix) => h('table', { class: 'qkv', 'data-matrix': matrix }, [
      h('caption', {}, [matrix]),
      h('thead', {}, [h('tr', {}, [
        h('th', { scope: 'col' }, [t.tokensLabel]),
        ...range(HAND_D_MODEL).map((d) => h('th', { scope: 'col', style: `border-bottom:4px solid ${headColor(Math.floor(d / dk))}` }, [String(d)])),
        matrix === 'q' ? h('th', { scope: 'col' }, [h('span', { class: 'sr-only' }, [t.removeToken('')])]) : null,
      ])]),
      h('tbody', {}, tokens.map((token, row) => h('tr', {}, [
        h('th', { scope: 'row' }, [matrix === 'q'
          ? h('input', { type: 'text', class: 'token-name', value: token, maxlength: MAX_TOKEN_CHARS, placeholder: String(row + 1), 'aria-label': t.renameToken(row), oninput: (e) => renameToken(row, e.target.value) })
          : h('span', { 'data-token': row }, [token])]),
        ...range(HAND_D_MODEL).map((col) => h('td', {}, [numberCell(matrix, row, col)])),
        matrix === 'q' ? h('td', {}, [h('button', { type: 'button', class: 'icon', 'aria-label': t.removeToken(token), disabled: tokens.length <= 1, onclick: () => removeToken(row) }, ['✕'])]) : null,
      ]))),
    ]);
    fill(editors, [
      table('q'),
      table('k'),
      table('v'),
      h('button', { type: 'button', id: 'add-token', disabled: tokens.length >= HAND_MAX_TOKENS, onclick: addToken }, [`+ ${t.addToken}`]),
    ]);
  }

  function renameToken(row, typed) {
    const name = tokenName(typed, row);
    ctx.set((s) => (s.hand.tokens[row] = name));
  }

  function addToken() {
    ctx.set((s) => {
      const hand = s.hand;
      hand.tokens.push(ctx.lang === 'zh' ? `词${hand.tokens.length + 1}` : `w${hand.tokens.length + 1}`);
      for (const key of ['q', 'k', 'v']) hand[key].push(Array(HAND_D_MODEL).fill(0));
    });
  }

  function removeToken(row) {
    ctx.set((s) => {
      const hand = s.hand;
      hand.tokens.splice(row, 1);
      for (const key of ['q', 'k', 'v']) hand[key].splice(row, 1);
    });
    ctx.setUi((ui) => (ui.selected = null));
  }

  function buildWo() {
    cells.wo = [];
    fill(woBox, [
      h('table', { class: 'qkv wo', 'data-matrix': 'wo' }, [
        h('caption', { class: 'sr-only' }, ['Wᴼ']),
        h('thead', {}, [h('tr', {}, [h('th', { scope: 'col' }, ['']), ...range(HAND_D_MODEL).map((c) => h('th', { scope: 'col' }, [String(c)]))])]),
        h('tbody', {}, range(HAND_D_MODEL).map((row) => h('tr', {}, [h('th', { scope: 'row' }, [String(row)]), ...range(HAND_D_MODEL).map((col) => h('td', {}, [numberCell('wo', row, col)]))]))),
      ]),
      h('button', { type: 'button', id: 'wo-reset', onclick: () => ctx.set((s) => { s.hand.wo = defaultHand().wo; }) }, [t.woReset]),
    ]);
  }

  /** Draws the heads, the concat and the output: those near the screen, or all of them when `everywhere`. */
  function drawHeads(result, everywhere) {
    const domain = signedDomainOf(result);
    show(legendsBox, legendsView(t, domain));
    // Every figure below is made from the hand state alone: it is the version a part shows.
    const near = { anyway: everywhere, version: JSON.stringify(ctx.state.hand) };
    const cardNodes = [...headsBox.children];
    const cards = range(result.heads).map((head) => (!everywhere && cardNodes[head] && !nearScreen.draws(cardNodes[head], near)
      ? shownCards[head]
      : headCard(t, result, head, { domain, drawing })));
    show(headsBox, cards);
    shownCards = cards;
    // Every card is watched from when it is first made, whether in a full draw or the first draw after a
    // refused state (none were made then): one left unwatched would stay pending once off screen.
    const made = [...headsBox.children].filter((card) => !cardNodes.includes(card));
    nearScreen.unwatch(...cardNodes.filter((card) => !card.isConnected));
    nearScreen.watch(...made);
    for (const card of everywhere ? headsBox.children : made) nearScreen.draws(card, { ...near, anyway: true });
    if (nearScreen.draws(concatBox, near)) show(concatBox, concatView(t, result, { drawing }));
    if (nearScreen.draws(outputBox, near)) show(outputBox, outputView(t, result, { domain, drawing }));
  }

  /** Shows the state's numbers, words and switches in the editors (after a drag, a typed value, a reset). */
  function showValues() {
    const { hand } = ctx.state;
    for (const matrix of ['q', 'k', 'v', 'wo']) cells[matrix].forEach((row, r) => row.forEach((cell, c) => cell.setValue(hand[matrix][r][c])));
    for (const span of editors.querySelectorAll('[data-token]')) if (span.textContent !== hand.tokens[span.dataset.token]) span.textContent = hand.tokens[span.dataset.token];
    editors.querySelectorAll('input.token-name').forEach((input, row) => input !== document.activeElement && (input.value = hand.tokens[row]));
    headChoice.querySelectorAll('input').forEach((input) => (input.checked = Number(input.value) === hand.heads));
    node.querySelector('#hand-mask').checked = hand.causal;
    node.querySelector('#hand-scale').checked = hand.scale;
  }

  // Every cell of the figures (and every entry of the editors) explains its arithmetic.
  const figureSelector = (figure, head) => `svg[data-figure="${figure}"]${head === null ? ':not([data-head])' : `[data-head="${head}"]`}`;
  const explorer = cellExplorer(node, {
    cellSelector: 'svg[data-figure] .cell',
    entrySelector: '.drag-number[data-matrix]',
    groups: () => [...node.querySelectorAll('svg[data-figure]')],
    blocksOf: (group) => [group],
    describe: (cell) => {
      if (cell.matches('.drag-number')) return { figure: cell.dataset.matrix, head: null, row: Number(cell.dataset.row), col: Number(cell.dataset.col) };
      const svg = cell.closest('svg');
      return { figure: svg.dataset.figure, head: svg.dataset.head === undefined ? null : Number(svg.dataset.head), row: Number(cell.dataset.row), col: Number(cell.dataset.col) };
    },
    label: (cell, shown) => EXPLAIN_WORDS[ctx.lang].withValue(cellTitle(ctx.hand, cell, { tokens: ctx.hand.tokens, words: EXPLAIN_WORDS[ctx.lang] }), shown),
    // A cell's name holds the words, d_k (its dimension) and whether the scores are scaled.
    labelKey: () => `${ctx.hand.tokens.join('\u0001')}/${ctx.hand.dK}/${ctx.hand.scaled}`,
    explain: (cell) => explainedCell(cell),
    find: ({ figure, head, row, col }) => {
      const at = `[data-row="${row}"][data-col="${col}"]`;
      if (figure === 'wo' || ((figure === 'q' || figure === 'k' || figure === 'v') && head === null)) return node.querySelectorAll(`.drag-number[data-matrix="${figure}"]${at}`);
      // With scaling off there is no scaled figure: the scores the softmax reads are the dot products.
      const shown = figure === 'scores' && !ctx.state.hand.scale ? 'dots' : figure;
      return node.querySelectorAll(`${figureSelector(shown, head)} .cell${at}`);
    },
  });
  function explainedCell(cell) {
    if (!ctx.hand || ctx.handError) return null;
    const explanation = explainCell(ctx.hand, cell);
    return { ...explanationText(explanation, { tokens: ctx.hand.tokens, words: EXPLAIN_WORDS[ctx.lang] }), sources: explanation.sources };
  }

  buildEditors();
  buildWo();
  showEntryEditor(true);

  return {
    node,
    reads: ['hand', 'structure', 'selected'],
    update(areas) {
      if (areas.has('structure')) {
        buildEditors();
        buildWo();
      }
      showValues();
      // The slider follows a typed value too, so a drag starts from what was typed.
      showEntryEditor(areas.has('structure') || areas.has('selected'));
      fill(status, ctx.handError ? errorBox(ctx.text, ctx.handError, { cellName: entryName }) : null);
      // A new word or head count changes every figure's size: then all are drawn, near the screen or not.
      if (ctx.hand) drawHeads(ctx.hand, areas.has('structure') || ctx.drawingEverything);
      // Stop for a second: the heads compared on the first word, from the same forward as the figures.
      if (ctx.hand && !ctx.handError) {
        const facts = handPauseFacts(session, ctx.hand, ctx.state.hand, lessonFacts);
        show(pauseText, pauseView(t, facts));
        pauseText.dataset.changed = String(facts.changed);
      }
      node.classList.toggle('stale', Boolean(ctx.handError));
      if (ctx.hand) explorer.refresh();
    },
    dispose() {
      nearScreen.disconnect();
      session.dispose();
    },
  };
}
