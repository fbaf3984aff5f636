import { h } from './dom.js';

const round = (value, step) => Math.round(Math.round(value / step) * step * 1e6) / 1e6;

/**
 * A number you can drag: pointer (mouse, pen, touch) left/right, or the keyboard (arrows ±step,
 * Page Up/Down ±10 steps, Home/End to the ends). It is an ARIA slider, so screen readers announce it.
 * onInput(value) fires on every change; onSelect() fires on a click without a drag, or on focus.
 */
export function dragNumber({ value, min, max, step = 0.1, label, onInput, onSelect = () => {}, format = (v) => (Number.isFinite(v) ? String(round(v, 0.01)) : '—') }) {
  const node = h('span', { class: 'drag-number', role: 'slider', tabindex: 0, 'aria-label': label, 'aria-valuemin': min, 'aria-valuemax': max });
  let current = value;
  const show = (v) => {
    current = v;
    node.textContent = format(v);
    node.setAttribute('aria-valuenow', Number.isFinite(v) ? String(v) : '');
    node.setAttribute('aria-valuetext', format(v));
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
