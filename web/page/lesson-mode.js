// Lesson mode, for a teacher at a projector (P, or ?present=1): the lesson's parts one screen at a time,
// the part's number and title in a bar fixed at the top with the position and the buttons, moved with the
// arrow keys, PageDown / PageUp (what a presenter's clicker sends), Home and End; Escape or P leaves.
// A part may have several screens: its section marks what each shows with data-screen="n" (what has
// none shows on every screen). The address keeps the part and screen (?present=1&part=3),
// so a reload or a shared link opens the same screen. The stylesheet's html.presenting rules lay it out.
import { h } from '../ui/dom.js';
import { PARTS, MAX_SCREENS } from './state.js';
import { LESSON_MODE_TEXT } from './lesson-mode-strings.js';

/** The keys that move, and by how many screens. */
const MOVES = { ArrowRight: 1, PageDown: 1, ArrowLeft: -1, PageUp: -1 };

/** What a slider (or a figure whose cells take the arrows) does with a key, so keeps. */
const SLIDER_KEYS = new Set(['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End']);
/** What a presenter's clicker sends: they move the lesson from any control but a rich-text editor. */
const CLICKER_KEYS = new Set(['PageDown', 'PageUp']);
/** Inputs that are no box: a checkbox or a button takes Space and Enter, none of the moving keys. */
const NOT_BOXES = new Set(['checkbox', 'radio', 'range', 'button', 'submit', 'reset', 'image', 'file', 'color']);

/**
 * Whether the focused control keeps the key: a contenteditable every key; a text box, a textarea or a menu every
 * key but PageDown / PageUp (a teacher who typed a poem, then clicked on, found the screen stayed); a slider or a
 * figure's cells the arrows, Home and End; a radio group its arrows; a checkbox or a button none of the moving
 * keys. So a clicker moves the lesson after any control a class sees used: a menu or a slider that kept PageDown
 * would change the numbers instead, and the screen would stay.
 */
function keeps(target, key) {
  if (target.closest?.('[contenteditable]:not([contenteditable="false"])')) return true;
  const input = target.closest?.('input');
  if (target.closest?.('select, textarea') || (input && !NOT_BOXES.has(input.type))) return !CLICKER_KEYS.has(key);
  if (input?.type === 'radio') return key.startsWith('Arrow');
  if (input?.type === 'range' || target.closest?.('[role="slider"], [data-arrow-keys]')) return SLIDER_KEYS.has(key);
  return false;
}

/** Where the search for a part's zoom stops: a part 20 times the screen is a slip, not a size to fit. */
const SMALLEST_ZOOM = 0.05;

/**
 * How many screens a section has in lesson mode: the largest data-screen in it, of what is not hidden (§10 shows one
 * of two models, each with its own screens).
 */
const screensOf = (node) => Math.min(MAX_SCREENS, Math.max(1, ...[...node.querySelectorAll('[data-screen]')]
  .filter((part) => !part.closest('[hidden]')).map((part) => Number(part.dataset.screen) || 1)));

/**
 * Lesson mode over the page's sections: `sectionNodes()` gives their nodes in order (one part each).
 * Returns { makeBar, show, keydown }: the bar to put on the page (made again for each language), `show()`
 * to bring the page in line with the state, and the window's keydown handler.
 */
export function lessonMode(ctx, sectionNodes) {
  let bar = null;
  let shown = null; // the section laid out for the screen, fitted again whenever its size changes
  // A part grows as it is drawn (the numbers come in, a section's module or its worker answers); fitting it
  // sets the size it is then observed at, so this settles after one more call.
  const resized = new ResizeObserver(() => refresh());

  const sequence = () => sectionNodes().flatMap((node, i) => Array.from({ length: screensOf(node) }, (_, s) => ({ part: i + 1, screen: s + 1 })));
  // A link may name a screen past the part's last: it shows the last.
  const indexNow = (screens) => Math.max(0, screens.findLastIndex(({ part, screen }) => part === ctx.state.part && screen <= ctx.state.screen));

  function goTo(index) {
    const screens = sequence();
    const { part, screen } = screens[Math.max(0, Math.min(screens.length - 1, index))];
    ctx.set((s) => Object.assign(s, { part, screen }));
    show();
    scrollTo(0, 0);
  }
  const move = (by) => goTo(indexNow(sequence()) + by);

  /**
   * Shows the screen holding `node`: the screen its nearest data-screen marks, else the screen shown (when it
   * is in the part shown) or its part's first. False when no part holds it.
   */
  function reveal(node) {
    const nodes = sectionNodes();
    const part = nodes.findIndex((section) => section.contains(node)) + 1;
    if (!part) return false;
    const marked = node.closest('[data-screen]');
    const screen = marked ? Number(marked.dataset.screen) : part === ctx.state.part ? ctx.state.screen : 1;
    const screens = sequence();
    goTo(screens.findLastIndex((at) => at.part === part && at.screen <= screen));
    return true;
  }

  /** On: from the part at the top of the window. Off: back on the long page, at the part that was shown. */
  function toggle() {
    const nodes = sectionNodes();
    if (!ctx.state.present) {
      const top = nodes.findIndex((node) => node.getBoundingClientRect().bottom > 80);
      ctx.set((s) => Object.assign(s, { present: true, part: top < 0 ? nodes.length : top + 1, screen: 1 }));
      show();
      scrollTo(0, 0);
      return;
    }
    const was = nodes[ctx.state.part - 1];
    ctx.set((s) => Object.assign(s, { present: false, part: 1, screen: 1 }));
    show();
    was?.scrollIntoView();
  }

  function makeBar() {
    const t = LESSON_MODE_TEXT[ctx.lang];
    const button = (id, label, text, onclick) => h('button', { type: 'button', id, 'aria-label': label, title: label, onclick }, [text]);
    bar = h('nav', { class: 'lesson-bar', id: 'lesson-bar', 'aria-label': t.bar, hidden: true }, [
      h('p', { class: 'lesson-bar-title', id: 'lesson-bar-title', 'aria-live': 'polite' }),
      h('span', { class: 'lesson-bar-position', id: 'lesson-position' }),
      button('lesson-previous', t.previous, '◀', () => move(-1)),
      button('lesson-next', t.next, '▶', () => move(1)),
      button('lesson-leave', t.leave, `✕ ${t.leaveShort}`, toggle),
    ]);
    return bar;
  }

  /** Shows the state's part and screen (or the whole page when the mode is off). */
  function show() {
    const on = ctx.state.present;
    const nodes = sectionNodes();
    document.documentElement.classList.toggle('presenting', on);
    if (shown) shown.style.zoom = '';
    shown = null;
    resized.disconnect();
    if (!bar) return;
    bar.hidden = !on;
    const part = Math.min(ctx.state.part, nodes.length);
    nodes.forEach((node, i) => {
      node.classList.toggle('current-part', on && i === part - 1);
      if (!on || i !== part - 1) node.removeAttribute('data-showing');
    });
    if (!on) return;
    shown = nodes[part - 1];
    resized.observe(shown);
    refresh();
  }

  /** Lays out the shown part's screen, and says where it is, again (a part that grows may gain screens). */
  function refresh() {
    if (!shown) return;
    const part = sectionNodes().indexOf(shown) + 1;
    const screens = screensOf(shown);
    const screen = Math.min(ctx.state.screen, screens);
    shown.dataset.showing = String(screen);
    const t = LESSON_MODE_TEXT[ctx.lang];
    // Written only when they change: the title is read out as it changes, not at each refit.
    const write = (node, text) => node.textContent !== text && (node.textContent = text);
    write(bar.querySelector('#lesson-bar-title'), shown.querySelector('h2').textContent);
    const position = bar.querySelector('#lesson-position');
    write(position, t.position(part, PARTS) + (screens > 1 ? ` · ${screen}/${screens}` : ''));
    position.title = screens > 1 ? t.screen(screen, screens) : '';
    const screensList = sequence();
    const index = screensList.findIndex((at) => at.part === part && at.screen === screen);
    bar.querySelector('#lesson-previous').disabled = index <= 0;
    bar.querySelector('#lesson-next').disabled = index >= screensList.length - 1;
    fit();
  }

  /**
   * Scales the shown part down when it is taller or wider than the screen under the bar (a small screen,
   * a long poem), so that nothing it shows is below the fold. The parts are laid out to fit a 1920 × 1080
   * projector without it. A part does not shrink in proportion (scaled down, it has more room across and
   * wraps less; a figure sized to the window keeps its size), so the zoom is found by halving: the largest
   * that fits, to 1/256, down to SMALLEST_ZOOM.
   */
  function fit() {
    if (!shown) return;
    const room = { height: innerHeight - bar.offsetHeight, width: document.documentElement.clientWidth };
    const fitsAt = (zoom) => {
      shown.style.zoom = zoom === 1 ? '' : String(zoom);
      const { height, width } = shown.getBoundingClientRect(); // in the screen's pixels; scrollWidth in the part's
      return height <= room.height && Math.max(width, shown.scrollWidth * zoom) <= room.width;
    };
    if (fitsAt(1)) return;
    let [fits, tooLarge] = [SMALLEST_ZOOM, 1];
    while (tooLarge - fits > 1 / 256) {
      const zoom = Math.round(((fits + tooLarge) / 2) * 1000) / 1000;
      if (fitsAt(zoom)) fits = zoom;
      else tooLarge = zoom;
    }
    shown.style.zoom = String(fits);
  }

  /** P switches the mode; in it the moving keys move and Escape leaves. Not while a box, a slider or a figure takes the key. */
  function keydown(event) {
    if (event.ctrlKey || event.altKey || event.metaKey || event.isComposing || event.defaultPrevented) return;
    if (keeps(event.target, event.key)) return;
    const { key } = event;
    if (key?.toLowerCase() === 'p') {
      if (!event.repeat) toggle();
      return;
    }
    if (!ctx.state.present) return;
    if (key === 'Escape') toggle();
    else if (key in MOVES) move(MOVES[key]);
    else if (key === 'Home') goTo(0);
    else if (key === 'End') goTo(Infinity);
    else return;
    event.preventDefault();
  }

  // In lesson mode a link within the page, or a button that brings a figure into view (lesson:reveal), shows
  // the screen holding its target: scrolling to it would find it hidden.
  document.addEventListener('click', (event) => {
    const link = ctx.state.present && event.button === 0 && !event.ctrlKey && !event.metaKey && !event.shiftKey && event.target.closest?.('a[href^="#"]');
    const target = link && document.getElementById(decodeURIComponent(link.hash.slice(1)));
    if (target && reveal(target)) event.preventDefault();
  });
  document.addEventListener('lesson:reveal', (event) => ctx.state.present && reveal(event.target) && event.preventDefault());
  // A section whose module came in is a new node: shown again.
  document.addEventListener('lesson:rendered', () => ctx.state.present && !shown?.isConnected && show());
  addEventListener('resize', fit);
  return { makeBar, show, keydown };
}
