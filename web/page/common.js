// Pieces shared by the sections: section frames, figures with screen-reader tables, inline errors.
import { h, vh, vdoc } from '../shared/dom.js';
import { tableFor } from '../draw/index.js';
import { errorSentence, errorCode } from '../shared/errors.js';

export function section(id, title, children) {
  return h('section', { id, class: 'lesson-section', 'aria-labelledby': `${id}-title` }, [h('h2', { id: `${id}-title` }, [title]), ...children]);
}

/**
 * A virtual figure (see vdom.js; pass an SVG drawn with `vdoc`): the SVG, a caption, and optionally the
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
 * An inline error in the page's language: its code, then a sentence made from the code and the error's
 * details (the values involved), never the core's English message. `context.cellName(name, row, column)`
 * names a matrix entry the way the section labels it.
 */
export function errorBox(text, error, context = {}) {
  const code = errorCode(error);
  if (code === 'UNEXPECTED') console.warn(error); // not one of the page's or the core's errors: a bug
  return h('p', { class: 'error', role: 'alert', 'data-code': code }, [h('code', {}, [code]), ` ${errorSentence(text, error, context)}`]);
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
