// <multi-head-attention>: the lesson's interactive heads for any HTML page. Importing this module
// registers nothing; define.js does (and web/dist/widget.js is built from it).
//
//   attributes / properties → parseState (pure) → a session on the shared core → web/draw → shadow root
//
// Nothing here throws to the host page: bad attributes and core errors render as a short inline
// message with their code, plus one console.warn, and the element recovers when the input is fixed.
import { loadAttention } from '../src/shared-core.js';
import { ERROR_TEXT, errorSentence } from '../shared/errors.js';
import { mountTraining } from '../training/panel.js';
import { createSession, snapshot } from '../shared/session.js';
import { LESSON_EXAMPLE, identity } from '../shared/lesson.js';
import { hFor, vh, vdoc, show, elementCount } from '../ui/dom.js';
import { inSlices, mayAdd } from '../ui/slices.js';
import { redrawLoop } from '../ui/redraw.js';
import { parseState, dataToAttribute, shareKV } from './parse.js';
import { viewParts, viewsBox, renderSummary, renderNotice, renderError } from './render.js';
import { buildControls, controlsKey } from './controls.js';
import { adoptStyles } from './styles.js';
import { keepControlKeys } from './keys.js';
import { STRINGS, languageOf } from './strings.js';

const DATA = ['tokens', 'q', 'k', 'v', 'wo'];
const FLAGS = ['causal', 'editable', 'compact'];
const ATTRIBUTES = [...DATA, 'heads', 'kv-heads', ...FLAGS, 'scale', 'view', 'lang'];
const TAG = 'multi-head-attention';

// In Node (unit tests, server-side imports) there is no HTMLElement; the class still loads.
const Base = globalThis.HTMLElement ?? class {};

let count = 0;

export class MultiHeadAttentionElement extends Base {
  static get observedAttributes() {
    return ATTRIBUTES;
  }

  #root;
  #box;
  #session = null; // this element's layer on the shared core
  #id = `mha-${++count}`;
  #parsed = null; // { state } or { error } for the current attributes; null once one of them changes
  #refused = new Map(); // data property name → a value the attribute's parser would refuse, parsed in its place
  #training = null; // the mounted training section when view="train"
  #trainingKey = '';
  #snap = null;
  #result = null;
  #controls = null;
  // One update a task, at its end, however many attributes the task changed (the page's redraw loop).
  #redraw = redrawLoop(() => this.#update().catch((error) => this.#broke(error)));
  #reflecting = false;
  #lastWarning = '';
  #width = 0;
  #resize = null;
  #frame = 0;
  #focus = null; // the query token the lines view keeps, null for all
  #heads = { shape: '', first: 0 }; // the first head drawn, for the layer's shape (heads/L) it was chosen in
  #figures = []; // the figures shown, as virtual nodes keyed by their part (render.js's viewParts)
  #drawing = null; // the redraw in progress: { cancel() }
  #settled = null;
  #settle = null;

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: 'open' });
    adoptStyles(this.#root);
    for (const type of ['keydown', 'keypress', 'keyup']) this.#root.addEventListener(type, keepControlKeys);
    this.#box = hFor(this.ownerDocument)('div', { class: 'mha', part: 'base' });
    this.#root.append(this.#box);
  }

  connectedCallback() {
    // A property set before this class was defined sits on the instance; route it through the setter.
    for (const name of ['tokens', 'q', 'k', 'v', 'wo', 'heads', 'kvHeads', 'causal', 'scale', 'editable', 'compact', 'view']) {
      if (Object.prototype.hasOwnProperty.call(this, name)) {
        const value = this[name];
        delete this[name];
        this[name] = value;
      }
    }
    if (typeof ResizeObserver === 'function' && !this.#resize) {
      this.#resize = new ResizeObserver(([entry]) => {
        const width = Math.round(entry.contentRect.width);
        if (width === this.#width) return;
        this.#width = width;
        // Redraw in the next frame, not inside the observer: a redraw changes the height, which
        // would otherwise be reported as a ResizeObserver loop.
        cancelAnimationFrame(this.#frame);
        this.#frame = requestAnimationFrame(() => {
          if (this.#snap && this.#parsed?.state && !this.#training && this.isConnected) this.#draw();
        });
      });
      this.#resize.observe(this);
    }
    this.#schedule();
  }

  disconnectedCallback() {
    // A move (out and in again within one task, as tab and slide libraries re-parent their content) keeps
    // it all, a training run included; a widget still out after that is taken down.
    queueMicrotask(() => {
      if (this.isConnected) return;
      this.#stopDrawing();
      this.#done();
      this.#stopTraining();
      this.#resize?.disconnect();
      this.#resize = null;
      this.#session?.dispose();
      this.#session = null;
    });
  }

  attributeChangedCallback(name, before, after) {
    // A learner's edit has already updated the parsed state it mirrors into the attributes.
    // An attribute written after a refused property value replaces it, even with the text it had.
    if (this.#refused.delete(name)) before = undefined;
    if (this.#reflecting || before === after) return;
    this.#parsed = null;
    this.#schedule();
  }

  // ---- properties: the same state as the attributes --------------------------------------------

  /** The live result: { attention: Float32Array per head, output, concat, scores, headOutputs }, or null. */
  get result() {
    return this.#result;
  }

  /** Resolves with the result (or null on error) once pending attribute changes are rendered, every figure drawn. */
  get updateComplete() {
    return this.#settle ? this.#settled : Promise.resolve(this.#result);
  }

  get tokens() {
    return this.#current().state?.tokens.slice() ?? null;
  }
  set tokens(value) {
    this.#setData('tokens', value);
  }
  // q, k, v and wo, made in one loop: each reads a copy of its parsed matrix and is set as its attribute is;
  // accessors on the prototype, as written ones are.
  static {
    for (const name of ['q', 'k', 'v', 'wo']) {
      Object.defineProperty(this.prototype, name, {
        get() {
          return this.#current().state?.[name]?.map((row) => row.slice()) ?? null;
        },
        set(value) {
          this.#setData(name, value);
        },
        configurable: true,
      });
    }
  }
  get heads() {
    return this.#current().state?.heads ?? null;
  }
  set heads(value) {
    this.#setText('heads', value);
  }
  /** K/V heads shared by groups of query heads (kv-heads); the head count when not shared. */
  get kvHeads() {
    const state = this.#current().state;
    return state ? state.kvHeads ?? state.heads : null;
  }
  set kvHeads(value) {
    this.#setText('kv-heads', value);
  }
  get causal() {
    return this.hasAttribute('causal');
  }
  set causal(on) {
    this.toggleAttribute('causal', Boolean(on));
  }
  get editable() {
    return this.hasAttribute('editable');
  }
  set editable(on) {
    this.toggleAttribute('editable', Boolean(on));
  }
  get compact() {
    return this.hasAttribute('compact');
  }
  set compact(on) {
    this.toggleAttribute('compact', Boolean(on));
  }
  get scale() {
    return !/^(off|false|0|no)$/i.test((this.getAttribute('scale') ?? '').trim());
  }
  set scale(on) {
    if (on) this.removeAttribute('scale');
    else this.setAttribute('scale', 'off');
  }
  get view() {
    return this.#current().state?.view ?? this.getAttribute('view');
  }
  set view(value) {
    this.#setText('view', value);
  }

  #setText(name, value) {
    if (value === null || value === undefined) this.removeAttribute(name);
    else this.setAttribute(name, Array.isArray(value) ? '[…]' : String(value)); // named, not joined: it may nest deeper than the stack
  }

  #setData(name, value) {
    const lifted = this.#refused.delete(name); // whatever is set now replaces a value refused before
    if (value === null || value === undefined) this.removeAttribute(name);
    else if (typeof value === 'string') this.setAttribute(name, value);
    else {
      // Checked against the attribute's bounds before anything is copied or written out.
      const text = dataToAttribute(name, value);
      if (text === null) this.#refused.set(name, value); // the attribute stays; parsing says why it was refused
      else this.setAttribute(name, text);
    }
    if (lifted || this.#refused.has(name)) {
      this.#parsed = null;
      this.#schedule();
    }
  }

  /** The attributes as parsed: parsed once after each change, so getters cost no JSON parsing. */
  #current() {
    if (this.#parsed) return this.#parsed;
    const attrs = {};
    for (const name of ATTRIBUTES) attrs[name] = this.#refused.get(name) ?? this.getAttribute(name);
    for (const name of FLAGS) attrs[name] = this.hasAttribute(name);
    this.#parsed = parseState(attrs);
    return this.#parsed;
  }

  // ---- rendering --------------------------------------------------------------------------------

  #schedule() {
    this.#unsettle();
    this.#redraw.invalidate();
  }

  async #update() {
    if (!this.isConnected) return this.#done();
    let parsed;
    try {
      parsed = this.#current();
    } catch (error) {
      return this.#broke(error);
    }
    if (parsed.error) return this.#fail(parsed.error.code, parsed.error.message);

    let mha;
    try {
      if (!core && this.#box.childElementCount === 0) {
        show(this.#box, vh('p', { class: 'status' }, [STRINGS[parsed.state.lang].loading]));
      }
      mha = await sharedCore();
    } catch (error) {
      const t = STRINGS[parsed.state.lang].error;
      // Opened from the disk, the page can fetch nothing, wherever the wasm is: say how to serve it instead.
      const message = globalThis.location?.protocol === 'file:' ? t.LOAD_FROM_FILE() : t.LOAD_FAILED(String(error?.message ?? error));
      return this.#fail('LOAD_FAILED', message, error);
    }
    // Attributes may have changed while the core loaded; a newer update is then already queued.
    if (this.#redraw.queued || this.#parsed !== parsed || !this.isConnected) return undefined;
    this.#session ??= createSession(mha);
    if (parsed.state.view === 'train') {
      this.#showTraining(parsed.state);
      return this.#done();
    }
    this.#stopTraining();
    this.#draw({ compute: true }); // which settles updateComplete once its last figure is shown
    return undefined;
  }

  /** view="train": the training section of the lesson page (its own worker and core), mounted once per language and h. */
  #showTraining(state) {
    const { heads } = state; // one the section offers (parse.js)
    const key = `${state.lang}/${heads}`;
    if (this.#training && this.#trainingKey === key) return;
    this.#stopTraining();
    this.#stopDrawing();
    const box = this.ownerDocument.createElement('div');
    show(this.#box, box);
    this.#training = mountTraining(box, { lang: state.lang, heads, heading: false });
    this.#trainingKey = key;
    this.#result = null;
  }

  #stopTraining() {
    this.#training?.dispose();
    this.#training = null;
    this.#trainingKey = '';
  }

  /** Runs the forward pass for the current state and copies the results out of the wasm heap. */
  #compute() {
    const state = this.#parsed.state;
    try {
      const { heads } = state, kvHeads = state.kvHeads ?? heads;
      const layer = this.#session.layer('widget', { dModel: state.d, heads, maxLen: state.L, kvHeads });
      const [k, v] = [state.k, state.v].map((m) => shareKV(m, heads, kvHeads));
      layer.forward({ q: state.q, k: k.core, v: v.core, wo: state.wo ?? undefined, causal: state.causal, scale: state.scale });
      // Copy now: the core's arrays are views that the next call on any layer may invalidate.
      this.#snap = { ...snapshot(layer, { scaled: state.scale }), wo: (state.wo ?? identity(state.d)).flat(), kv: [k.shown, v.shown] };
      const { attention, scores, headOutputs, output, concat } = this.#snap;
      this.#result = { attention: attention.map((a) => a.slice()), output: output.slice(), concat: concat.slice(), scores: scores.map((s) => s.slice()), headOutputs: headOutputs.map((o) => o.slice()) };
      this.#lastWarning = '';
      return true;
    } catch (error) {
      const t = STRINGS[state.lang];
      if (error?.name === 'MHAError') this.#fail(error.code, `${t.coreError}: ${errorSentence(ERROR_TEXT[state.lang], error)}`);
      else this.#broke(error);
      return false;
    }
  }

  /**
   * Redraws the summary, the figures and (when editable) the sliders from the current snapshot (computed first
   * when `compute`), a figure at a time in the page's shared slices (ui/slices.js: so many ms and elements a
   * frame), so that neither a large layer nor many widgets at once hold up the page. A figure shown before keeps
   * its place, with its old numbers, until it is drawn again; the last one settles updateComplete.
   */
  #draw({ compute = false } = {}) {
    this.#drawing?.cancel();
    this.#unsettle(); // updateComplete waits for the last figure
    let parts = null;
    let figures;
    let summary;
    let next = 0;
    let waiting = null; // a figure drawn but not shown: it did not fit in the slice's elements
    const step = () => {
      // An attribute changed since: the update it queued draws instead.
      if (this.#redraw.queued || !this.#parsed?.state) return false;
      if (!parts) {
        if (compute && !this.#compute()) return false;
        ({ parts, figures, summary } = this.#drawn() ?? {});
        if (!parts) return false;
      }
      const state = this.#parsed.state;
      try {
        if (next < parts.length) {
          const figure = waiting ?? parts[next].draw();
          figure.key = parts[next].key; // show() matches the figures by it
          // The browser lays out a slice's elements in one frame: a large figure waits for the next slice.
          waiting = mayAdd(elementCount(figure)) ? null : figure;
          if (waiting) return true;
          figures[next++] = figure;
        }
        // Patched in place: the focused button or slider stays the same element, so it keeps the focus.
        show(this.#box, [...summary, viewsBox(vdoc, state, figures), this.#controls?.element]);
      } catch (error) {
        this.#broke(error);
        return false;
      }
      this.#figures = figures.filter(Boolean);
      if (next < parts.length) return true;
      this.#drawing = null;
      if (!this.#redraw.queued) this.#done();
      return false;
    };
    this.#drawing = inSlices(step);
  }

  /** What a redraw of the current snapshot shows: its parts (render.js's viewParts), the figures shown before in their places, the summary; undefined after an error. */
  #drawn() {
    const state = this.#parsed.state;
    // The width the resize observer will first report, so that its report redraws nothing.
    this.#width ||= this.clientWidth;
    const width = this.#width || 640;
    const shape = `${state.heads}/${state.L}`;
    let parts;
    try {
      parts = viewParts(vdoc, state, this.#snap, {
        width: Math.max(200, width - 30),
        id: this.#id,
        focus: this.#focus,
        onFocus: (index) => {
          this.#focus = index;
          this.#draw();
        },
        firstHead: this.#heads.shape === shape ? this.#heads.first : 0,
        onMoveHeads: (first) => {
          this.#heads = { shape, first };
          this.#draw();
        },
      });
      if (state.editable) {
        if (!this.#controls || this.#controls.key !== controlsKey(state)) this.#controls = this.#buildControls(state);
        else this.#controls.update(state);
      } else {
        this.#controls = null;
      }
    } catch (error) {
      this.#broke(error);
      return undefined;
    }
    // Set only when it changes: the browser restyles everything inside on each write.
    if (this.#box.lang !== state.lang) this.#box.lang = state.lang;
    return {
      parts,
      figures: parts.map(({ key }) => this.#figures.find((figure) => figure.key === key) ?? null),
      summary: [renderSummary(vdoc, state), renderNotice(vdoc, state)],
    };
  }

  #stopDrawing() {
    this.#drawing?.cancel();
    this.#drawing = null;
    this.#figures = [];
  }

  #buildControls(state) {
    return buildControls(this.ownerDocument, state, {
      matrix: (name, r, c, value) => this.#learnerEdit((s) => {
        s[name][r][c] = value;
        return [[name, JSON.stringify(s[name])]];
      }),
      heads: (n) => this.#learnerEdit((s) => {
        s.heads = n;
        s.dK = s.d / n;
        return [['heads', String(n)]];
      }),
      causal: (on) => this.#learnerEdit((s) => {
        s.causal = on;
        return [['causal', on ? '' : null]];
      }),
      scale: (on) => this.#learnerEdit((s) => {
        s.scale = on;
        return [['scale', on ? null : 'off']];
      }),
    });
  }

  /** A change made inside the widget: update the state, mirror it into the attributes, recompute, tell the page. */
  #learnerEdit(change) {
    const state = this.#parsed?.state;
    if (!state || !this.#session) return;
    const attributes = change(state);
    this.#reflecting = true;
    try {
      // The lesson example is the default only while no data attribute is given: write it all out.
      if (DATA.slice(0, 4).every((name) => !this.hasAttribute(name))) {
        this.setAttribute('tokens', JSON.stringify(LESSON_EXAMPLE.tokens));
        for (const name of ['q', 'k', 'v']) this.setAttribute(name, JSON.stringify(state[name]));
      }
      for (const [name, value] of attributes) {
        if (value === null) this.removeAttribute(name);
        else this.setAttribute(name, value);
      }
    } finally {
      this.#reflecting = false;
    }
    if (!this.#compute()) return;
    this.#draw();
    this.dispatchEvent(new CustomEvent('mha-change', { detail: this.#result, bubbles: true, composed: true }));
  }

  /** A bug of the widget's own, shown as any error is. */
  #broke(error) {
    return this.#fail('INTERNAL', String(error?.message ?? error), error);
  }

  /** Shows an inline error (a sentence; its code in data-code and the warning), warns once per distinct error, clears the result. */
  #fail(code, message, cause) {
    const lang = this.#parsed?.state?.lang ?? languageOf(this.getAttribute('lang'));
    this.#stopDrawing();
    this.#result = null;
    this.#snap = null;
    this.#controls = null;
    try {
      this.#box.lang = lang;
      show(this.#box, renderError(vdoc, lang, { code, message }));
    } catch {
      this.#box.textContent = message;
    }
    const warning = `<${this.localName || TAG}> ${code}: ${message}`;
    if (warning !== this.#lastWarning) {
      this.#lastWarning = warning;
      console.warn(warning, ...(cause ? [cause] : []));
    }
    return this.#done();
  }

  /** updateComplete now waits for the next #done(). */
  #unsettle() {
    if (!this.#settle) this.#settled = new Promise((resolve) => (this.#settle = resolve));
  }

  #done() {
    const settle = this.#settle;
    this.#settle = null;
    settle?.(this.#result);
    return undefined;
  }
}

let core = null;

/** One shared core for every widget on the page (loadAttention returns the same instance to all). */
async function sharedCore() {
  core ??= await loadAttention();
  return core;
}
