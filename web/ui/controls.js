// The page's own controls (a labelled checkbox, a number box that refuses what it cannot take) and
// figure export; elements are built with the shared h() (../ui/dom.js).
import { h } from './dom.js';

let uid = 0;
export const uniqueId = (prefix) => `${prefix}-${++uid}`;

/** A labelled checkbox. */
export function checkbox({ label, checked, onChange, id = uniqueId('check') }) {
  const input = h('input', { type: 'checkbox', id, checked, onchange: (e) => onChange(e.target.checked) });
  return h('label', { class: 'check', for: id }, [input, h('span', {}, [label])]);
}

/**
 * A labelled number box. onInput(value) gets numbers only. `refuse(value)` may return a sentence saying what the
 * box takes (its range, the value still in use), shown while the box holds a number it refuses, or nothing (NaN,
 * being retyped); something that is no number gets `notANumber`. Refused, the value in use does not change, and
 * leaving the box puts it back and takes the sentence away: no sentence stands beside a value in use.
 * `current()` is the value in use (by default the last one taken).
 */
export function numberField({ label, value, onInput, notANumber, refuse = () => null, current, min, max, step = 1, id = uniqueId('num'), width = 6, hideLabel = false }) {
  let taken = value;
  const valueInUse = current ?? (() => taken);
  const hint = h('span', { class: 'field-hint', id: `${id}-hint`, 'aria-live': 'polite' });
  const showProblem = (problem) => {
    hint.textContent = problem ?? '';
    if (problem) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
  };
  const input = h('input', {
    type: 'number', id, value: Number.isFinite(value) ? value : '', min, max, step, inputmode: 'decimal', style: `width:${width}em`, 'aria-describedby': hint.id,
    oninput: () => {
      const typed = input.valueAsNumber;
      if (Number.isNaN(typed) && input.validity.badInput) return showProblem(notANumber);
      const problem = refuse(typed);
      showProblem(problem);
      if (problem || Number.isNaN(typed)) return;
      taken = typed;
      onInput(typed);
    },
    onchange: () => {
      if (!Number.isNaN(input.valueAsNumber) && !refuse(input.valueAsNumber)) return;
      const inUse = valueInUse();
      input.value = Number.isFinite(inUse) ? String(inUse) : '';
      showProblem(null);
    },
  });
  return h('label', { class: 'field', for: id }, [h('span', { class: hideLabel ? 'sr-only' : null }, [label]), input, hint]);
}

/**
 * A numberField's `refuse` for whole numbers from `min` to `max` (a number, or a function when the range moves):
 * `say(min, max)`, the sentence giving that range, for anything else.
 */
export function wholeNumbers(min, max, say) {
  return (value) => {
    const top = typeof max === 'function' ? max() : max;
    return Number.isInteger(value) && value >= min && value <= top ? null : say(min, top);
  };
}

/** Downloads a Blob under a file name. */
export function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const link = h('a', { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function svgBlob(svg) {
  const text = new XMLSerializer().serializeToString(svg);
  return new Blob([`<?xml version="1.0" encoding="UTF-8"?>\n${text}`], { type: 'image/svg+xml' });
}

/** Rasterises an SVG at 2× through a canvas, on a white background. */
export function pngBlob(svg, scale = 2) {
  const width = Number(svg.getAttribute('width'));
  const height = Number(svg.getAttribute('height'));
  const url = URL.createObjectURL(svgBlob(svg));
  return new Promise((resolve, reject) => {
    const image = new Image();
    image.onload = () => {
      const canvas = document.createElement('canvas');
      canvas.width = Math.ceil(width * scale);
      canvas.height = Math.ceil(height * scale);
      const context = canvas.getContext('2d');
      context.fillStyle = '#ffffff';
      context.fillRect(0, 0, canvas.width, canvas.height);
      context.drawImage(image, 0, 0, canvas.width, canvas.height);
      URL.revokeObjectURL(url);
      canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('PNG encoding failed'))), 'image/png');
    };
    image.onerror = () => reject(new Error('the SVG could not be rasterised'));
    image.src = url;
  });
}
