// The lesson page: state (in the URL) → the attention core → the drawing functions.
// Every input changes the state (ctx.set) or the UI-only state (ctx.setUi); at the end of the event's
// task the redraw works out which areas changed by comparing them with what it saw last, recomputes
// through the core only what they touch, and repaints the sections that read them.
import { TEXT } from './text.js';
import { h } from '../ui/dom.js';
import { fromQuery, toQuery, DEFAULT_SENTENCE } from './state.js';
import { loadAttention, runHand, randomDraws, runRandom } from './core.js';
import { checkHand, checkViews } from './checks.js';
import { errorBox, section as sectionFrame } from '../ui/section.js';
import { SLICE_MS } from '../ui/slices.js';
import { areaWatcher, redrawLoop, drawParts } from '../ui/redraw.js';
import { SECTIONS } from './registry.js';
import { wideScreen } from '../pipeline/section.js';
import { initialViewPicks } from './sections/views.js';
import { initialGqaPicks } from '../gqa/picks.js';
import { lessonMode } from './lesson-mode.js';
import { recapFacts } from './recap.js';

const app = document.getElementById('app');

/** UI-only state: what the learner points at; not part of the lesson's state, so not in the URL. */
const ui = {
  selected: null, // the hand entry being edited: { matrix, row, col }
  symbol: null, // the formula symbol whose part of the pipeline is lit
  wide: wideScreen(), // the pipeline lies flat on wide screens
  views: initialViewPicks(), // the views' pickers: focused word, hidden heads, first head drawn, picked head
  gqa: initialGqaPicks(), // §13's h, h_kv and context length
  realHeads: undefined, // §10's: whose heads, and each model's picks (set as its code comes in)
};

/**
 * The areas a section may read, each computed from the state or the UI state; the redraw compares
 * them before and after a change. 'url' (the address was written) is announced rather than compared.
 */
const WATCHED = {
  lang: (s) => s.lang,
  present: (s) => s.present,
  bill: (s) => s.bill,
  hand: (s) => s.hand,
  structure: (s) => [s.hand.tokens.length, s.hand.heads], // what the hand editors are built for
  step: (s) => s.step,
  demo: (s) => s.demo,
  views: (s) => s.views,
  'views-structure': (s) => s.views.source,
  selected: (s, u) => u.selected,
  focus: (s, u) => u.symbol,
  resize: (s, u) => u.wide,
  'views-picks': (s, u) => u.views,
  poems: (s) => s.poems,
  'real-heads-picks': (s, u) => u.realHeads,
  gqa: (s, u) => u.gqa,
};
const AREAS = [...Object.keys(WATCHED), 'url'];
const kept = new Map(); // ctx.keep's

const ctx = {
  mha: null,
  state: fromQuery(new URLSearchParams(location.search)),
  ui,
  hand: null,
  handAllOn: null,
  handError: null,
  views: null,
  viewsError: null,
  viewsDrawing: null, // while a big model's random numbers are being drawn: { drawn, total }
  get lang() {
    return this.state.lang;
  },
  get text() {
    return TEXT[this.state.lang];
  },
  /** Whether this redraw draws every part of every section, near the screen or not (see drawAll). */
  get drawingEverything() {
    return drawEverything;
  },
  /** The views' sentence: the typed one, or the default for the current language. */
  sentence() {
    return this.state.views.sentence ?? DEFAULT_SENTENCE[this.state.lang];
  },
  /** Changes the state; what changed is redrawn once, at the end of this task (a new language rebuilds the page). */
  set(mutate) {
    mutate(this.state);
    const changed = noteChanges();
    if (changed.includes('lang')) {
      rebuild();
      // Not in this task: writing the address makes the browser lay the page out at once (to save where it is
      // scrolled), the header and a section just built included (40–55 ms of the click's task).
      scheduleUrl();
      return;
    }
    invalidate(...changed, 'url');
  },
  /** Draws again, at the end of this task, the sections that read these areas (a part of one came into view). */
  redraw(...areas) {
    invalidate(...areas);
  },
  /** Changes the UI-only state (ui above); what changed is redrawn at the end of this task. */
  setUi(mutate) {
    mutate(ui);
    const changed = noteChanges();
    if (changed.length) invalidate(...changed);
  },
  /**
   * What a section keeps across the page's rebuilds that is not data (a model it loaded, a worker, their results):
   * made by make() the first time `name` is asked for, the same object ever after. Never compared: a section
   * that changes it asks for its redraw.
   */
  keep(name, make) {
    if (!kept.has(name)) kept.set(name, make());
    return kept.get(name);
  },
};

const changedAreas = areaWatcher(WATCHED, ctx.state, ui);
/** The areas whose values differ from when this was last asked. */
const noteChanges = () => changedAreas(ctx.state, ui);

let sections = [];
let urlTimer = 0;
const loop = redrawLoop(render);

/**
 * Marks areas as changed and redraws once at the end of the current task, so the input's effect is on
 * screen in the very next frame. Chrome delivers drag and slider events once per frame, and events
 * within one task share a single redraw.
 */
function invalidate(...areas) {
  if (areas.includes('url')) scheduleUrl();
  loop.invalidate(...areas);
}

/** Writes the state into the address bar, at most a few times a second while dragging. */
function scheduleUrl() {
  clearTimeout(urlTimer);
  urlTimer = setTimeout(writeUrl, 150);
}

function writeUrl() {
  const query = toQuery(ctx.state).toString();
  history.replaceState(null, '', query ? `?${query}` : location.pathname);
  const langSwitch = document.getElementById('lang-switch');
  if (langSwitch) langSwitch.href = otherLanguageUrl();
  invalidate('url-written');
}
let drawTimer = 0;

function compute(areas) {
  const { hand, views } = ctx.state;
  if (areas.has('hand') || areas.has('structure')) {
    try {
      checkHand(hand);
      ctx.hand = runHand(ctx.mha, hand);
      ctx.handAllOn = hand.off.length ? runHand(ctx.mha, hand, { use: 'hand-all', enabledOverride: Array(hand.heads).fill(true) }) : ctx.hand;
      ctx.handError = null;
    } catch (error) {
      ctx.handError = error;
    }
  }
  const viewsTouched = areas.has('views') || areas.has('views-structure');
  if (views.source === 'hand' && (viewsTouched || areas.has('hand') || areas.has('structure'))) {
    ctx.views = ctx.hand;
    ctx.viewsError = ctx.handError;
    ctx.viewsDrawing = null;
  } else if (views.source === 'big' && viewsTouched) {
    clearTimeout(drawTimer);
    ctx.viewsDrawing = null;
    try {
      const tokens = checkViews(views, ctx.sentence());
      const draws = randomDraws(ctx.mha, { seed: views.seed, length: tokens.length, dModel: views.dModel });
      ctx.viewsError = null;
      if (draws.advance(SLICE_MS)) {
        ctx.views = runRandom(ctx.mha, draws, { use: 'big', tokens, ...views });
      } else {
        // The rest is drawn a slice per task (each of them coming back here), so the page stays live.
        ctx.viewsDrawing = { drawn: draws.drawn, total: draws.total };
        drawTimer = setTimeout(() => invalidate('views'));
      }
    } catch (error) {
      ctx.viewsError = error;
    }
  }
}

let drawEverything = true;

/**
 * A section whose code comes in a module of its own (the registry's `load`; web/tools/bundle.js splits it off):
 * until the module has come, the section is its frame and heading. The module is fetched when the frame
 * comes within 1,000 px of the window, or else once the page is idle after its first draw (see start), so
 * that printing, a link to the section and data-lesson="drawn" find it built; the section is then made and
 * drawn in its place.
 */
function lazySection(load) {
  let make = null;
  let loading = null;
  const fetchModule = () => (loading ??= load().then((made) => (make = made), (error) => {
    loading = null; // tried again when the frame next comes near
    throw error;
  }));
  return (ctx, frame) => {
    if (make) return make(ctx, frame);
    const shell = { node: sectionFrame(frame.id, frame.title, []), reads: [], update() {}, waiting: true };
    shell.arrive = () => fetchModule().then(() => fillIn(shell, () => make(ctx, frame)), (error) => console.warn(error));
    const near = new IntersectionObserver((entries) => entries.some((entry) => entry.isIntersecting) && shell.arrive(), { rootMargin: '1000px 0px' });
    near.observe(shell.node);
    shell.dispose = () => near.disconnect();
    // A frame made again while its module is on its way (a language switch) takes it when it comes.
    if (loading) shell.arrive();
    return shell;
  };
}

/**
 * Puts the section that `make` builds where `shell` stood (unless the page was rebuilt meanwhile), to be
 * drawn wherever it is: a lazy section's frame once its module has come, an old language's section.
 */
function fillIn(shell, make) {
  const index = sections.indexOf(shell);
  if (index < 0) return;
  shell.dispose?.();
  const made = make(ctx);
  // Drawn at the next redraw wherever it is (fresh), with every area it reads.
  Object.assign(made, { visible: false, pending: new Set(made.reads), fresh: true });
  sections[index] = made;
  visibility.unobserve(shell.node);
  shell.node.replaceWith(made.node);
  visibility.observe(made.node);
  invalidate('catch-up');
}

const visibility = new IntersectionObserver((entries) => {
  for (const entry of entries) {
    const section = sections.find((s) => s.node === entry.target);
    if (!section) continue;
    section.visible = entry.isIntersecting;
    if (section.visible && section.pending.size) invalidate('catch-up');
  }
}, { rootMargin: '400px 0px' });

let undrawn = new Set(); // areas computed in an earlier task whose figures are still to be drawn

/** Redraws what changed (see invalidate); `whole`: every section that is to be drawn now, in this task (printing). */
function render(computed, { whole = false } = {}) {
  const started = performance.now();
  compute(computed);
  const timings = { core: performance.now() - started };
  for (const area of computed) undrawn.add(area);
  // After a long computation (a big random model's forward), the figures are drawn in a task of their own.
  if (timings.core > 2 * SLICE_MS) {
    setTimeout(() => invalidate('catch-up'));
    return;
  }
  const areas = undrawn;
  undrawn = new Set();
  if (areas.has('url-written')) areas.add('url');
  // Drawing every section (the first draw) takes turns with the browser: sections near the screen first, then in
  // page order, until SLICE_MS has gone, and the rest in the next frame's task, so that neither this task nor the
  // layout of the frame after it holds the page: all in one task, the first draw ran 47–59 ms of the main thread and
  // the layout of the frame after it 53–68 ms (116–126 ms each on a machine at load 3); a slice at a time, 25–38 ms.
  // Printing draws them all at once (whole).
  const sliced = drawEverything && !whole;
  const order = sliced ? [...sections.filter((s) => s.visible), ...sections.filter((s) => !s.visible)] : sections;
  // Sections off screen only remember what changed (marked data-pending), and catch up as they scroll into view;
  // every section is drawn wherever it is in the first draw, and one just come in (fillIn); in the first draw,
  // those past the slice's time wait for the next slice. `left`: one the first draw has still to draw.
  const left = drawParts(order, areas, {
    everywhere: drawEverything,
    inTime: () => !sliced || performance.now() - started <= SLICE_MS,
    update(section, sectionAreas) {
      const sectionStart = performance.now();
      section.update(sectionAreas);
      timings[section.node.id] = performance.now() - sectionStart;
    },
  });
  if (left) {
    requestAnimationFrame(() => setTimeout(() => invalidate('catch-up')));
  } else {
    // Says when every section has been drawn once, §9 and §10 included (tests wait on it, not on a clock).
    if (!sections.some((section) => section.waiting) && !switching.length) document.documentElement.dataset.lesson = 'drawn';
    drawEverything = false;
  }
  // Lets tests and the latency benchmark know that every view reflects the latest input.
  document.dispatchEvent(new CustomEvent('lesson:rendered', { detail: { areas: [...areas], ms: performance.now() - started, timings } }));
}

function otherLanguageUrl() {
  const query = toQuery(ctx.state);
  query.set('lang', ctx.lang === 'zh' ? 'en' : 'zh');
  return `?${query}`;
}

function header() {
  const t = ctx.text;
  const toggle = h('a', {
    class: 'lang-switch',
    id: 'lang-switch',
    href: otherLanguageUrl(),
    lang: ctx.lang === 'zh' ? 'en' : 'zh',
    'aria-label': t.switchLangLabel,
    onclick: (event) => {
      event.preventDefault();
      ctx.set((s) => (s.lang = s.lang === 'zh' ? 'en' : 'zh'));
      // The new header's switch takes the focus in the next frame, where the browser lays the page out anyway:
      // focus() makes it lay out at once, so a switch by the keyboard or a script laid out the header and the
      // section just built in its own task (50–75 ms of it at load 10).
      requestAnimationFrame(() => document.getElementById('lang-switch')?.focus({ preventScroll: true }));
    },
  }, [t.switchLang]);
  return h('header', { class: 'page-header' }, [
    h('div', { class: 'header-bar' }, [h('p', { class: 'kicker' }, [t.kicker]), toggle]),
    h('h1', {}, [t.title]),
    ...t.intro.map((p) => h('p', { class: 'intro' }, [p])),
    h('nav', { 'aria-label': t.toc }, [h('ol', { class: 'toc' }, SECTIONS.map(({ id, key }) => h('li', {}, [h('a', { href: `#${id}` }, [t.sections[key]])])))]),
  ]);
}

/** A reading-list entry: a plain sentence, or a work's title linked (in a new tab) with a note after it. */
const readingItem = (item) => (typeof item === 'string' ? [item]
  : [h('a', { href: item.href, target: '_blank', rel: 'noopener' }, [item.title]), item.note]);

function footer() {
  const { recap, reading } = ctx.text;
  return h('footer', { class: 'reading' }, [
    h('section', { class: 'recap', id: 'recap', 'aria-labelledby': 'recap-title' }, [
      h('h2', { id: 'recap-title' }, [recap.title]),
      h('ul', {}, recap.items(recapFacts(ctx.mha)).map((item) => h('li', {}, [item]))),
    ]),
    h('h2', {}, [reading.title]),
    h('ul', { id: 'reading-list' }, reading.items.map((item) => h('li', {}, readingItem(item)))),
    h('p', { class: 'muted', id: 'present-hint' }, [ctx.text.presentHint]),
  ]);
}

// Lesson mode (?present=1, or P): one part of the lesson a screen, for a projector.
const lesson = lessonMode(ctx, () => sections.map((section) => section.node));

// Each registry entry's maker: its own, or a frame that fetches its module (the sections far below the first screen).
const MAKERS = SECTIONS.map((entry) => entry.make ?? lazySection(entry.load));

/**
 * `node` marked with the current language. Every part of the page carries its own: a change of <html>'s
 * lang alone lays out and shapes the whole page's text again (60–600 ms), so a switch changes it last.
 */
function inLanguage(node) {
  node.lang = ctx.text.htmlLang;
  return node;
}

/** The parts of the page around the sections, in the current language. */
const frame = () => [header(), lesson.makeBar(), footer()].map(inLanguage);

/** Makes the registry's index-th section for the current language, not drawn yet. */
function makeSection(index) {
  const { id, key } = SECTIONS[index];
  const section = Object.assign(MAKERS[index](ctx, { id, title: ctx.text.sections[key] }), { visible: false, pending: new Set() });
  inLanguage(section.node);
  if (section.node.id !== id) throw new Error(`the section of '${key}' is #${section.node.id}, not its frame's #${id}`);
  const unknown = section.reads.filter((area) => !AREAS.includes(area));
  if (unknown.length) throw new Error(`#${section.node.id} reads unknown areas: ${unknown.join(', ')}`);
  return section;
}

/** Puts the page's language in its title, and computes the hand example the sections are built with. */
function startLanguage() {
  document.title = ctx.text.docTitle;
  // Compute the hand example first so the sections are built with data (the views follow in the first draw).
  compute(new Set(['hand']));
}

/** Builds every section for the current language, without drawing them yet (the first time). */
function buildSections() {
  startLanguage();
  document.documentElement.lang = ctx.text.htmlLang;
  sections = SECTIONS.map((entry, index) => makeSection(index));
  const [head, bar, foot] = frame();
  app.replaceChildren(head, bar, h('main', {}, sections.map((s) => s.node)), foot);
  for (const section of sections) visibility.observe(section.node);
  lesson.show();
}

/** Draws every section, off screen or not (the first time). */
function drawAll() {
  drawEverything = true;
  invalidate(...AREAS.filter((area) => area !== 'lang'));
}

let switching = []; // the sections still in the language switched from, the next to build first
let switchTimer = 0;

/**
 * A language switch: the header, lesson bar and footer at once, then the sections a task each, one near
 * the screen first (in this task), the rest in page order, and <html>'s lang once all are built. Built
 * and drawn in one task, the page was held 0.4–1.5 s. Until the last is built <html> has no data-lesson.
 */
function rebuild() {
  clearTimeout(switchTimer);
  startLanguage();
  delete document.documentElement.dataset.lesson;
  const [head, bar, foot] = frame();
  // The frame around <main> is swapped, <main> left in place: put back with replaceChildren, the whole page was
  // taken out of the document and in again, to be styled and laid out anew in this task (235 ms of the main
  // thread with §10 loaded, against 94 ms without).
  const main = app.querySelector('main');
  for (const node of [...app.children]) if (node !== main) node.remove();
  main.before(head, bar);
  main.after(foot);
  switching = [...sections.filter((section) => section.visible), ...sections.filter((section) => !section.visible)];
  buildNextSection();
}

function buildNextSection() {
  const old = switching.shift();
  const index = sections.indexOf(old);
  fillIn(old, () => makeSection(index));
  lesson.show();
  if (switching.length) switchTimer = setTimeout(buildNextSection);
  else document.documentElement.lang = ctx.text.htmlLang;
}

async function start() {
  lesson.show();
  addEventListener('keydown', lesson.keydown);
  app.replaceChildren(h('p', { class: 'loading' }, [ctx.text.loading]));
  try {
    ctx.mha = await loadAttention();
  } catch (error) {
    console.warn(error);
    app.replaceChildren(errorBox(ctx.text, { code: 'LOAD_FAILED' }));
    document.documentElement.dataset.lesson = 'failed';
    return;
  }
  // Building the sections and drawing them are two tasks, so neither holds up the page for long.
  buildSections();
  await new Promise((resolve) => setTimeout(resolve));
  drawAll();
  // What the first screen did not need comes once the page is idle (sooner if scrolled to).
  (globalThis.requestIdleCallback ?? setTimeout)(() => {
    for (const section of sections) section.arrive?.();
  });
  // The pipeline turns vertical on narrow screens; redraw when the width crosses that line.
  addEventListener('resize', () => ctx.setUi((u) => (u.wide = wideScreen())));
  // A printed page shows every section: what waits off screen (and the address, for the share link) is
  // brought up to date before the browser lays it out.
  addEventListener('beforeprint', () => {
    clearTimeout(urlTimer);
    writeUrl();
    drawAll();
    loop.flush({ whole: true });
  });
}

start();
