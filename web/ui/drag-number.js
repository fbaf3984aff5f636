import { h } from './dom.js';
import { formatNumber } from '../draw/index.js';
import { touchGesture } from './touch.js';

const round = (value, step) => Math.round(Math.round(value / step) * step * 1e6) / 1e6;
/**
 * An entry as its editor writes it, and as the figures that copy it write it too (§3's slices): "1", "2.5",
 * "-0.25", "—" for NaN; a value from a link far outside the range is "1e20", no wider than "-2.55".
 */
export function entryText(v) {
  if (Number.isNaN(v)) return '—';
  if (!Number.isFinite(v)) return formatNumber(v);
  return Math.abs(v) < 1000 ? String(round(v, 0.01)) : v.toExponential(0).replace('e+', 'e');
}

/**
 * A number you can drag: the mouse right/up or left/down, a finger or pen sideways (a vertical swipe
 * scrolls the page), or the keyboard (arrows ±step, Page Up/Down ±10 steps, Home/End to the ends). It is an ARIA slider, so screen readers announce it.
 * onInput(value) fires on every change; onSelect() fires on a click or tap without a drag, or on focus.
 */
export function dragNumber({ value, min, max, step = 0.1, label, onInput, onSelect = () => {}, format = entryText }) {
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

  // Mouse: 3 px of movement starts a drag, and right or up raises the value. Touch and pen scroll the
  // page (touch-action: pan-y in style.css): only a sideways drag edits, a touch that stays put is a tap
  // (select), and a vertical swipe is left to the browser. One pointer at a time.
  let drag = null;
  const stop = () => {
    drag = null;
    node.classList.remove('dragging');
  };
  node.addEventListener('pointerdown', (event) => {
    if (event.button !== 0 || drag) return;
    const mouse = event.pointerType === 'mouse';
    node.setPointerCapture(event.pointerId);
    drag = { id: event.pointerId, x: event.clientX, y: event.clientY, start: Number.isFinite(current) ? current : 0, before: current, mouse, editing: false };
    if (mouse) {
      event.preventDefault(); // no text selection; focus without scrolling instead
      node.focus({ preventScroll: true });
    }
  });
  node.addEventListener('pointermove', (event) => {
    if (drag?.id !== event.pointerId) return;
    const dx = event.clientX - drag.x;
    const dy = event.clientY - drag.y;
    if (!drag.editing) {
      if (drag.mouse) drag.editing = Math.abs(dx - dy) > 3;
      else {
        const gesture = touchGesture(dx, dy);
        // A scroll, even where the page cannot scroll any further: never an edit or a tap.
        if (gesture === 'scroll') return stop();
        drag.editing = gesture === 'sideways';
      }
      if (drag.editing) node.classList.add('dragging');
    }
    // 8 px per step.
    if (drag.editing) change(drag.start + Math.trunc((drag.mouse ? dx - dy : dx) / 8) * step);
  });
  node.addEventListener('pointerup', (event) => {
    if (drag?.id !== event.pointerId) return;
    if (!drag.editing) {
      if (!drag.mouse) node.focus({ preventScroll: true });
      onSelect();
    }
    stop();
  });
  // The browser took the gesture over (it scrolls, or the system interrupted): undo what the drag changed.
  node.addEventListener('pointercancel', (event) => {
    if (drag?.id !== event.pointerId) return;
    if (drag.editing && Number.isFinite(drag.before)) change(drag.before);
    stop();
  });
  // Whatever else ends the capture (the node left the page mid-drag), the next press starts afresh.
  node.addEventListener('lostpointercapture', (event) => {
    if (drag?.id === event.pointerId) stop();
  });
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
  // The page sets every entry's value after each change: only the one that changed is written, so the
  // tables around the others need no new layout.
  node.setValue = (v) => {
    if (!Object.is(v, current)) show(v);
  };
  return node;
}
