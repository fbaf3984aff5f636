// Keys a focused control inside the widget acts on go no further than its shadow root. A page that
// listens on document or window (reveal.js turns slides on arrows and Space) sees the host element as
// document.activeElement, not the slider inside, so it cannot tell that the key is already taken.
// Listeners in the capture phase still see every key first; no widget can stop those.

const MOVE = new Set(['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End', 'PageUp', 'PageDown']);

/** Whether `control` (the event's target inside the shadow root) does something with this key. */
export function controlHandlesKey(control, { key, ctrlKey, metaKey, altKey }) {
  if (ctrlKey || metaKey || altKey) return false; // shortcuts belong to the page and the browser
  switch (control.localName) {
    case 'button':
      return key === ' ' || key === 'Enter';
    case 'select': // moves the choice, opens the list, or jumps to the option starting with a letter
      return MOVE.has(key) || key === ' ' || key === 'Enter' || key.length === 1;
    case 'textarea':
      return key !== 'Tab' && key !== 'Escape';
    case 'input':
      switch (control.type) {
        case 'range':
          return MOVE.has(key);
        case 'checkbox':
          return key === ' ';
        case 'radio':
          return key === ' ' || key.startsWith('Arrow');
        case 'button':
        case 'submit':
        case 'reset':
          return key === ' ' || key === 'Enter';
        default: // text, number…: typing and moving the caret
          return key !== 'Tab' && key !== 'Escape';
      }
    default:
      return false;
  }
}

/** A keydown / keypress / keyup listener for a shadow root. */
export function keepControlKeys(event) {
  if (controlHandlesKey(event.target, event)) event.stopPropagation();
}
