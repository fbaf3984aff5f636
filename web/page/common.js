// Pieces shared by the sections: section frames, figures with screen-reader tables, inline errors.
import { h } from './dom.js';
import { tableFor } from '../draw/index.js';
import { vh, vdoc } from './vdom.js';

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

/** A readable inline error with the core's code, e.g. "HEADS_NOT_DIVISOR — heads 7 does not divide …". */
export function errorBox(text, error) {
  const code = error?.code ?? 'UNEXPECTED';
  const summary = text.errors[code] ?? text.errors.UNEXPECTED;
  return h('p', { class: 'error', role: 'alert', 'data-code': code }, [
    h('code', {}, [code]),
    ` ${summary}: ${error?.message ?? String(error)}`,
  ]);
}

/** Columns [start, start + width) of a flat L×cols matrix, as a flat L×width array. */
export function sliceColumns(values, rows, cols, start, width) {
  const out = new Float32Array(rows * width);
  for (let r = 0; r < rows; r++) for (let c = 0; c < width; c++) out[r * width + c] = values[r * cols + start + c];
  return out;
}

export const range = (n) => Array.from({ length: n }, (_, i) => i);
