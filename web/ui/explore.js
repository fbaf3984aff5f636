// Pointing at a cell of a figure shows its arithmetic (shared/explain.js) in a popover, outlines the
// cells it came from, and reads it out to screen readers. Mouse: hover. Touch: a tap (a swipe still
// scrolls: the cells take touch-action pan-y). Keyboard: each figure is one tab stop, the arrow keys move
// between its cells (a roving tabindex, as in an ARIA grid). Only classes and attributes of the drawn
// SVG change: no redraw per hover.
import { h, vh, show as showVirtual } from './dom.js';
import { touchGesture } from './touch.js';

let popover = null; // one per page: only one cell is explained at a time

function sharedPopover() {
  if (!popover?.isConnected) {
    popover = h('div', { class: 'cell-explanation', id: 'cell-explanation', 'aria-hidden': 'true', hidden: true });
    document.body.append(popover);
  }
  return popover;
}

let placing = 0;
let placedAt = null; // the cell the popover was last placed at, while it stays shown

/**
 * Places the popover at the next frame: measuring the cell right after a redraw would force a layout of
 * the whole page in the input's task (that made every slider step several times slower), while in the
 * frame's own callback it is the layout the frame does anyway. At a new cell it is transparent until
 * placed, so it never flashes at its old place; at the same cell redrawn (a slider step) it stays visible,
 * and is moved at that frame if the cell moved or its own size changed.
 */
function placeSoon(box, node, under) {
  if (node !== placedAt) box.style.setProperty('opacity', '0'); // not visibility: the text stays readable until then
  cancelAnimationFrame(placing);
  placing = requestAnimationFrame(() => {
    if (!node.isConnected || box.hidden) return;
    place(box, node, under);
    placedAt = node;
    box.style.removeProperty('opacity');
  });
}

/**
 * Puts the popover at the cell's left, under `under` (the cell, or what must stay in sight around it;
 * above it when there is no room below), inside the viewport.
 */
function place(box, node, under) {
  const cell = node.getBoundingClientRect();
  const around = under.getBoundingClientRect();
  const width = document.documentElement.clientWidth;
  const { offsetWidth, offsetHeight } = box;
  const left = Math.max(8, Math.min(cell.left, width - offsetWidth - 8));
  const below = around.bottom + 8;
  const top = below + offsetHeight > innerHeight && around.top - offsetHeight - 8 > 0 ? around.top - offsetHeight - 8 : below;
  box.style.setProperty('left', `${left + scrollX}px`);
  box.style.setProperty('top', `${top + scrollY}px`);
}

const position = (node) => ({ row: Number(node.dataset.row), col: Number(node.dataset.col) });

/**
 * Makes the figures under `root` explain their cells. The section says where its cells are and what
 * they mean:
 * - cellSelector: the cells of a figure; entrySelector: number editors that explain themselves too
 *   (they keep their own keys);
 * - groups(): the figures, one tab stop each; blocksOf(group): its matrices in reading order (the arrow
 *   keys go on to the next one at an edge);
 * - describe(node) → { figure, head, row, col }; label(cell, shownText) → a cell's accessible name (it
 *   must contain the number written in the cell, for speech input); labelKey() → what the names depend
 *   on besides each cell's place and number (the words, say): when it changes, every cell is named again;
 * - explain(cell) → { title, lines, spoken, sources }, or null while there are no numbers to explain (a
 *   refused link); find(source) → the nodes that show a source cell.
 * Returns refresh(), to call after every redraw.
 */
export function cellExplorer(root, { cellSelector, entrySelector = null, groups, blocksOf, describe, label, labelKey = () => '', explain, find }) {
  const live = h('p', { class: 'sr-only', 'aria-live': 'polite' });
  root.append(live);
  const remembered = new WeakMap(); // group → the { block, row, col } holding its tab stop
  let shown = null; // { node, cell }
  let touch = null;
  // What the redraws changed since the last refresh, as the DOM recorded it: only those cells are named
  // again (naming every cell on every redraw made a slider step twice as slow).
  const changes = [];
  const watcher = new MutationObserver((records) => changes.push(...records));
  watcher.observe(root, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['data-row', 'data-col', 'data-figure', 'data-head', 'data-matrix'] });
  let namedFor = null; // labelKey() when the cells were named

  const cellNode = (target) => target?.closest?.(entrySelector ? `${cellSelector}, ${entrySelector}` : cellSelector) ?? null;
  const isEntry = (node) => Boolean(entrySelector && node.matches(entrySelector));

  /** Outlines exactly these nodes (Map node → its class), touching only those whose outline changes. */
  function mark(marks = new Map()) {
    for (const node of root.querySelectorAll('.explain-target, .explain-source')) if (!marks.has(node)) node.classList.remove('explain-target', 'explain-source');
    for (const [node, name] of marks) {
      if (node.classList.contains(name)) continue;
      node.classList.remove('explain-target', 'explain-source');
      node.classList.add(name);
    }
  }

  function show(node, { announce = false } = {}) {
    const cell = describe(node);
    const explained = explain(cell);
    if (!explained) return hide();
    const { title, lines, spoken, sources } = explained;
    const marks = new Map();
    for (const source of sources) for (const found of find(source)) if (found !== node) marks.set(found, 'explain-source');
    mark(marks.set(node, 'explain-target'));
    const box = sharedPopover();
    // Patched, not rebuilt: a slider step changes a number or two of the explanation shown.
    showVirtual(box, [vh('strong', {}, [title]), ...lines.map((line) => vh('div', { class: 'explain-line' }, [line]))]);
    box.hidden = false;
    // An entry's explanation goes under its whole table: dragging it, the learner watches the rows below.
    placeSoon(box, node, isEntry(node) ? node.closest('table') ?? node : node);
    if (announce) live.textContent = spoken;
    shown = { node, cell };
  }

  function hide() {
    mark();
    if (popover) popover.hidden = true;
    placedAt = null;
    shown = null;
  }

  /** Back to the focused cell, if there is one, else nothing shown. */
  function fallBack() {
    const focused = cellNode(document.activeElement);
    if (focused && root.contains(focused)) show(focused);
    else hide();
  }

  root.addEventListener('pointerover', (event) => {
    const node = cellNode(event.target);
    if (event.pointerType === 'mouse' && node && node !== shown?.node) show(node);
  });
  root.addEventListener('pointerout', (event) => {
    if (event.pointerType === 'mouse' && cellNode(event.target) && !cellNode(event.relatedTarget)) fallBack();
  });
  // A tap focuses the cell (focusin shows it); a swipe is the browser's, to scroll.
  root.addEventListener('pointerdown', (event) => {
    const node = cellNode(event.target);
    touch = node && event.pointerType !== 'mouse' ? { id: event.pointerId, x: event.clientX, y: event.clientY, node } : null;
  });
  root.addEventListener('pointerup', (event) => {
    if (touch?.id !== event.pointerId) return;
    const { node, x, y } = touch;
    touch = null;
    if (touchGesture(event.clientX - x, event.clientY - y) !== 'tap' || isEntry(node)) return;
    if (document.activeElement === node) show(node, { announce: true });
    else node.focus({ preventScroll: true });
  });
  root.addEventListener('pointercancel', () => (touch = null));
  root.addEventListener('focusin', (event) => {
    const node = cellNode(event.target);
    if (!node) return;
    if (!isEntry(node)) rove(node);
    show(node, { announce: true });
  });
  root.addEventListener('focusout', (event) => {
    if (cellNode(event.target) && !cellNode(event.relatedTarget)) hide();
  });
  root.addEventListener('keydown', (event) => {
    const node = cellNode(event.target);
    if (!node || isEntry(node)) return;
    if (event.key === 'Escape') hide();
    else if (event.key === 'Enter' || event.key === ' ') show(node, { announce: true });
    else {
      const next = neighbour(node, event.key);
      if (next === undefined) return;
      if (next) next.focus();
    }
    event.preventDefault();
  });

  const groupOf = (node) => groups().find((group) => group.contains(node));

  /** The cell the key moves to (null: none, stay), or undefined for keys that are not moves. */
  function neighbour(node, key) {
    const group = groupOf(node);
    const blocks = blocksOf(group);
    const index = blocks.findIndex((block) => block.contains(node));
    const cells = (block) => [...block.querySelectorAll(cellSelector)];
    const { row, col } = position(node);
    const at = (block, r, c) => cells(block).find((cell) => position(cell).row === r && position(cell).col === c) ?? null;
    const size = (block) => cells(block).reduce(([rows, cols], cell) => [Math.max(rows, position(cell).row + 1), Math.max(cols, position(cell).col + 1)], [0, 0]);
    const [rows, cols] = size(blocks[index]);
    const across = (step) => {
      const block = blocks[index + step];
      if (!block) return null;
      const [otherRows, otherCols] = size(block);
      return at(block, Math.min(row, otherRows - 1), step > 0 ? 0 : otherCols - 1);
    };
    switch (key) {
      case 'ArrowRight': return col + 1 < cols ? at(blocks[index], row, col + 1) : across(1);
      case 'ArrowLeft': return col > 0 ? at(blocks[index], row, col - 1) : across(-1);
      case 'ArrowDown': return row + 1 < rows ? at(blocks[index], row + 1, col) : null;
      case 'ArrowUp': return row > 0 ? at(blocks[index], row - 1, col) : null;
      case 'Home': return at(blocks[index], row, 0);
      case 'End': return at(blocks[index], row, cols - 1);
      default: return undefined;
    }
  }

  /** Moves the group's one tab stop to `node`. */
  function rove(node) {
    const group = groupOf(node);
    if (!group) return;
    for (const cell of group.querySelectorAll(`${cellSelector}[tabindex="0"]`)) if (cell !== node) cell.setAttribute('tabindex', '-1');
    node.setAttribute('tabindex', '0');
    remembered.set(group, { block: blocksOf(group).findIndex((block) => block.contains(node)), ...position(node) });
  }

  /** The cells a change recorded by the watcher inside a figure may have renamed: its own, or the ones it added or moved. */
  function changedCells(record, target, cells) {
    const cell = target.closest(cellSelector);
    if (cell) cells.add(cell);
    else if (record.type === 'attributes') for (const node of target.querySelectorAll(cellSelector)) cells.add(node);
    for (const added of record.addedNodes) {
      if (added.nodeType !== Node.ELEMENT_NODE) continue;
      if (added.matches(cellSelector)) cells.add(added);
      for (const node of added.querySelectorAll(cellSelector)) cells.add(node);
    }
  }

  /** A cell as a focusable button named by its place and its number. */
  function name(node) {
    const text = label(describe(node), node.textContent.trim());
    if (node.getAttribute('aria-label') !== text) node.setAttribute('aria-label', text);
    if (node.getAttribute('role') !== 'button') node.setAttribute('role', 'button');
    if (!node.hasAttribute('tabindex')) node.setAttribute('tabindex', '-1');
  }

  /** A figure of focusable cells is a group of them, no longer one image, with one tab stop. */
  function keepTabStop(group) {
    if (group.getAttribute('role') !== 'group') group.setAttribute('role', 'group');
    // Its cells take the arrow keys, Home and End, as a slider does: lesson mode leaves them theirs.
    if (!group.hasAttribute('data-arrow-keys')) group.setAttribute('data-arrow-keys', '');
    const blocks = blocksOf(group);
    const keep = remembered.get(group);
    const kept = keep && blocks[keep.block]?.querySelector(`${cellSelector}[data-row="${keep.row}"][data-col="${keep.col}"]`);
    const stop = kept ?? blocks[0]?.querySelector(cellSelector);
    for (const cell of group.querySelectorAll(`${cellSelector}[tabindex="0"]`)) if (cell !== stop) cell.setAttribute('tabindex', '-1');
    if (stop && stop.getAttribute('tabindex') !== '0') stop.setAttribute('tabindex', '0');
  }

  return {
    /** After a redraw: the cells it changed focusable and named, one tab stop per figure, the shown cell's new numbers. */
    refresh() {
      const records = [...changes.splice(0), ...watcher.takeRecords()];
      const figures = groups();
      const toName = new Map(); // figure → its cells to name (a figure whose cells went may have lost its tab stop)
      const everyCell = (figure) => toName.set(figure, new Set(figure.querySelectorAll(cellSelector)));
      const key = labelKey();
      if (key !== namedFor) {
        namedFor = key;
        figures.forEach(everyCell);
      } else {
        for (const record of records) {
          const target = record.target.nodeType === Node.ELEMENT_NODE ? record.target : record.target.parentElement;
          if (!target?.isConnected) continue;
          const figure = figures.find((group) => group.contains(target));
          if (!figure) {
            // Outside the figures: whole figures may have been added.
            for (const added of record.addedNodes) for (const group of figures) if (added.contains(group)) everyCell(group);
            continue;
          }
          if (!toName.has(figure)) toName.set(figure, new Set());
          changedCells(record, target, toName.get(figure));
        }
      }
      for (const [figure, cells] of toName) {
        for (const cell of cells) if (cell.isConnected) name(cell);
        keepTabStop(figure);
      }
      if (!shown) return;
      // The cell shown may have been redrawn as a new node (a new h, a word added): find it again.
      if (shown.node.isConnected) show(shown.node);
      else hide();
    },
  };
}
