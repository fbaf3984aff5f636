import { h } from './dom.js';
import { formatNumber } from '../draw/index.js';

const round = (value, step) => Math.round(Math.round(value / step) * step * 1e6) / 1e6;
/** "2.5", "-0.25", "—" for NaN; a value from a link far outside the range is "1e20", no wider than "-2.55". */
function cellText(v) {
  if (Number.isNaN(v)) return '—';
  if (!Number.isFinite(v)) return formatNumber(v);
  return Math.abs(v) < 1000 ? String(round(v, 0.01)) : v.toExponential(0).replace('e+', 'e');
}

/**
 * A number you can drag: pointer (mouse, pen, touch) left/right, or the keyboard (arrows ±step,
 * Page Up/Down ±10 steps, Home/End to the ends). It is an ARIA slider, so screen readers announce it.
 * onInput(value) fires on every change; onSelect() fires on a click without a drag, or on focus.
 */
export function dragNumber({ value, min, max, step = 0.1, label, onInput, onSelect = () => {}, format = cellText }) {
  const node = h('span', { class: 'drag-number', role: 'slider', tabindex: 0, 'aria-label': label, 'aria-valuemin': min, 'aria-valuemax': max });
  let current = value;
  const show = (v) => {
    current = v;
    const text = format(v);
    node.textContent = text;
    // Six characters ("-1e308") get a smaller font, so they take no more room than "-2.55".
    node.classList.toggle('long', text.length > 5);
    node.setAttribute('aria-valuenow', Number.isFinite(v) ? String(v) : '');
    node.setAttribute('aria-valuetext', text);
  };
  const change = (v) => {
    const next = round(Math.min(max, Math.max(min, v)), step);
    if (next === current) return;
    show(next);
    onInput(next);
  };
  show(value);

  let drag = null;
  node.addEventListener('pointerdown', (event) => {
    if (event.button !== 0) return;
    node.setPointerCapture(event.pointerId);
    drag = { x: event.clientX, y: event.clientY, start: Number.isFinite(current) ? current : 0, moved: false };
    node.classList.add('dragging');
    event.preventDefault();
    node.focus({ preventScroll: true });
  });
  node.addEventListener('pointermove', (event) => {
    if (!drag) return;
    // 8 px per step; dragging up counts like dragging right, so vertical thumbs work on phones.
    const distance = event.clientX - drag.x - (event.clientY - drag.y);
    if (Math.abs(distance) > 3) drag.moved = true;
    if (drag.moved) change(drag.start + Math.trunc(distance / 8) * step);
  });
  const end = () => {
    if (!drag) return;
    if (!drag.moved) onSelect();
    drag = null;
    node.classList.remove('dragging');
  };
  node.addEventListener('pointerup', end);
  node.addEventListener('pointercancel', end);
  node.addEventListener('focus', () => onSelect());
  node.addEventListener('keydown', (event) => {
    const base = Number.isFinite(current) ? current : 0;
    const moves = { ArrowRight: step, ArrowUp: step, ArrowLeft: -step, ArrowDown: -step, PageUp: 10 * step, PageDown: -10 * step };
    if (event.key in moves) change(base + moves[event.key]);
    else if (event.key === 'Home') change(min);
    else if (event.key === 'End') change(max);
    else return;
    event.preventDefault();
  });
  node.setValue = show;
  return node;
}
