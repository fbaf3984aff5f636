// Touch on the number controls of the page and the widget: on a phone the q/k/v grids fill the screen,
// so a vertical swipe over them must scroll the page and edit nothing. A sideways drag edits; a touch
// that stays put is a tap. Mouse and keyboard are not affected.

/** How far (px) a finger may wander and still tap. */
export const TOUCH_SLOP = 8;

/** What a touch that has moved (dx, dy) from where it landed is: 'tap' (within the slop), 'sideways' or 'scroll'. */
export function touchGesture(dx, dy) {
  if (Math.hypot(dx, dy) <= TOUCH_SLOP) return 'tap';
  return Math.abs(dx) > Math.abs(dy) ? 'sideways' : 'scroll';
}

/**
 * A finger landing on an <input type="range"> moves its thumb there at once (Chromium does), so a swipe
 * across a grid of sliders would edit while it scrolls. This holds back the input events of a touch or
 * pen until it is a sideways drag or a tap (which then sets the value, as on any slider), and keeps the
 * old value if it is a scroll. The other listeners on the input see only the changes that count.
 */
export function holdTouchUntilSideways(input) {
  let touch = null; // { id, x, y, before, held, gesture }
  input.addEventListener('pointerdown', (event) => {
    if (event.pointerType === 'mouse' || touch) return;
    touch = { id: event.pointerId, x: event.clientX, y: event.clientY, before: input.value, held: null, gesture: 'tap' };
  });
  // A capture listener on the input runs before its ordinary ones, so they never see a held change.
  input.addEventListener('input', (event) => {
    if (!touch || touch.gesture === 'sideways') return;
    event.stopImmediatePropagation();
    touch.held = input.value;
    input.value = touch.before;
  }, { capture: true });
  const release = () => {
    touch.gesture = 'sideways';
    if (touch.held === null) return;
    input.value = touch.held;
    input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  };
  input.addEventListener('pointermove', (event) => {
    if (touch?.id !== event.pointerId || touch.gesture !== 'tap') return;
    touch.gesture = touchGesture(event.clientX - touch.x, event.clientY - touch.y);
    if (touch.gesture === 'sideways') release();
  });
  input.addEventListener('pointerup', (event) => {
    if (touch?.id !== event.pointerId) return;
    if (touch.gesture === 'tap') release();
    touch = null;
  });
  // The browser took the touch over to scroll: the value was never changed.
  input.addEventListener('pointercancel', (event) => {
    if (touch?.id === event.pointerId) touch = null;
  });
}
