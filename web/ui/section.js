// Pieces shared by the sections: section frames, figures with screen-reader tables, inline errors.
import { h, vh, vdoc } from './dom.js';
import { tableFor, tilePixels } from '../draw/index.js';
import { errorSentence, errorCode } from '../shared/errors.js';

export function section(id, title, children) {
  return h('section', { id, class: 'lesson-section', 'aria-labelledby': `${id}-title` }, [h('h2', { id: `${id}-title` }, [title]), ...children]);
}

/**
 * A virtual figure (see ../ui/dom.js; pass an SVG drawn with `vdoc`): the SVG, a caption, and optionally the
 * same numbers as a visually hidden table.
 */
export function figure({ svg, caption, table, id, className = '' }) {
  return vh('figure', { id, class: `fig ${className}` }, [
    vh('figcaption', {}, [caption]),
    vh('div', { class: 'fig-svg' }, [svg]),
    table ? tableFor(vdoc, { ...table, caption: table.caption ?? caption }) : null,
  ]);
}

/**
 * The thumbnails of a section's heads, one canvas each, kept across redraws: `paint(i, { weights, length, off })`
 * repaints head i's canvas with draw/tile.js's pixels (one per cell) and hands it back, to be shown among
 * virtual nodes as it is. A canvas keeps room for `capacity` cells a side and shows its top-left length × length,
 * scaled up unsmoothed by a transform (its box crops the rest): resizing a canvas would allocate its bitmap
 * afresh, and a keystroke changes the length of every tile; a transform, unlike a width, needs no layout.
 */
export function tileCanvases(capacity) {
  const canvases = [];
  return function paint(i, { weights, length, off }) {
    const canvas = (canvases[i] ??= h('canvas', { class: 'mha-tile' }));
    if (canvas.width < length) canvas.width = canvas.height = Math.max(capacity, length);
    if (length) canvas.getContext('2d').putImageData(new ImageData(tilePixels({ weights, length }), length, length), 0, 0);
    canvas.style.transform = `scale(${canvas.width / Math.max(1, length)})`;
    canvas.dataset.cells = String(length);
    canvas.classList.toggle('off', off);
    return canvas;
  };
}

/**
 * An inline error in the page's language: a sentence made from the code and the error's details (the values
 * involved), never the core's English message. A learner reads the sentence alone; the code stays in
 * `data-code`, for tests and developers. `context.cellName(name, row, column)` names a matrix entry the way
 * the section labels it.
 */
export function errorBox(text, error, context = {}) {
  return errorIn(h, text, error, context);
}

/** errorBox as a virtual node, for a pure view. */
export function errorView(text, error, context = {}) {
  return errorIn(vh, text, error, context);
}

function errorIn(make, text, error, context) {
  const code = errorCode(error);
  if (code === 'UNEXPECTED') console.warn(error); // not one of the page's or the core's errors: a bug
  return make('p', { class: 'error', role: 'alert', 'data-code': code }, [errorSentence(text, error, context)]);
}

/** Columns [start, start + width) of a flat L×cols matrix, as a flat L×width array. */
export function sliceColumns(values, rows, cols, start, width) {
  const out = new Float32Array(rows * width);
  for (let r = 0; r < rows; r++) for (let c = 0; c < width; c++) out[r * width + c] = values[r * cols + start + c];
  return out;
}

export const range = (n) => Array.from({ length: n }, (_, i) => i);

/** 21233664 → "21,233,664": big counts with thousands separators, the same in both languages. */
export const grouped = new Intl.NumberFormat('en-US').format;

const isList = (value) => Array.isArray(value) || ArrayBuffer.isView(value);

/** A copy of drawing inputs, so later changes to the arrays they came from cannot go unnoticed. */
const copied = (value) => (isList(value) ? Array.from(value, copied) : value);

/** Whether two inputs are the same: arrays (and typed arrays) entry by entry, anything else itself. */
function sameValues(a, b) {
  if (Object.is(a, b)) return true;
  if (!isList(a) || !isList(b) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!sameValues(a[i], b[i])) return false;
  return true;
}

/**
 * Drawings kept by name: `drawing(name, inputs, draw)` calls draw() only when `inputs` (everything the
 * drawing is made from) differ from last time's, and otherwise hands back the same virtual nodes, which
 * show() then skips. A slider that moves one head's numbers redraws that head's figures only.
 */
export function keptDrawings() {
  const kept = new Map(); // name → { inputs, node }
  return (name, inputs, draw) => {
    const last = kept.get(name);
    if (last && sameValues(last.inputs, inputs)) return last.node;
    const node = draw();
    kept.set(name, { inputs: copied(inputs), node });
    return node;
  };
}

/**
 * Parts of a section drawn only while they are near the screen (within `margin`): draws(node) says
 * whether to draw a part now, and remembers one that was not (marked data-pending), so that `onNear()`
 * is called when it comes near, to draw it then with the numbers of that moment. Options of draws():
 * `anyway` draws it wherever it is (the first time, or when its size changes); `version` names what it
 * would show, so a part away from the screen that already shows that version is not pending (a redraw
 * for another part leaves it be).
 */
export function partsNearScreen(onNear, margin = '400px 0px') {
  const near = new Set();
  const skipped = new Set();
  const drawnAt = new WeakMap(); // part → the version it shows
  const observer = new IntersectionObserver((entries) => {
    let wanted = false;
    for (const { target, isIntersecting } of entries) {
      if (!isIntersecting) near.delete(target);
      else {
        near.add(target);
        if (skipped.delete(target)) wanted = true;
      }
    }
    if (wanted) onNear();
  }, { rootMargin: margin });
  return {
    watch: (...nodes) => nodes.forEach((node) => observer.observe(node)),
    /** Stops watching parts that left the page. */
    unwatch(...nodes) {
      for (const node of nodes) {
        observer.unobserve(node);
        near.delete(node);
        skipped.delete(node);
      }
    },
    draws(node, { anyway = false, version } = {}) {
      const now = anyway || near.has(node);
      if (now) {
        skipped.delete(node);
        drawnAt.set(node, version);
      } else if (version === undefined || drawnAt.get(node) !== version) skipped.add(node);
      node.toggleAttribute('data-pending', skipped.has(node));
      return now;
    },
    disconnect: () => observer.disconnect(),
  };
}
