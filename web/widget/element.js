// <multi-head-attention>: the lesson's interactive heads for any HTML page. Importing this module
// registers nothing; define.js does (and web/dist/widget.js is built from it).
//
//   attributes / properties → parseState (pure) → one layer of the shared core → web/draw → shadow root
//
// Nothing here throws to the host page: bad attributes and core errors render as a short inline
// message with their code, plus one console.warn, and the element recovers when the input is fixed.
import { loadAttention } from '../src/attention.js';
import { ERROR_TEXT, errorSentence } from '../shared/errors.js';
import { mountTraining } from '../page/train.js';
import { parseState, matrixToAttribute, LESSON_EXAMPLE } from './parse.js';
import { renderViews, renderSummary, renderError, h } from './render.js';
import { buildControls, controlsKey } from './controls.js';
import { adoptStyles } from './styles.js';
import { keepControlKeys } from './keys.js';
import { STRINGS, languageOf } from './strings.js';

const DATA = ['tokens', 'q', 'k', 'v', 'wo'];
const FLAGS = ['causal', 'editable', 'compact'];
const ATTRIBUTES = [...DATA, 'heads', ...FLAGS, 'scale', 'view', 'lang'];
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
  #mha = null;
  #id = `mha-${++count}`;
  #parsed = null; // { state } or { error } for the current attributes; null once one of them changes
  #layer = null;
  #layerKey = '';
  #training = null; // the mounted training section when view="train"
  #trainingKey = '';
  #snap = null;
  #result = null;
  #controls = null;
  #queued = false;
  #reflecting = false;
  #lastWarning = '';
  #width = 0;
  #resize = null;
  #frame = 0;
  #focus = null; // the query token the lines view keeps, null for all
  #settled = null;
  #settle = null;

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: 'open' });
    adoptStyles(this.#root);
    for (const type of ['keydown', 'keypress', 'keyup']) this.#root.addEventListener(type, keepControlKeys);
    this.#box = h(this.ownerDocument, 'div', 'mha');
    this.#box.setAttribute('part', 'base');
    this.#root.append(this.#box);
  }

  connectedCallback() {
    // A property set before this class was defined sits on the instance; route it through the setter.
    for (const name of ['tokens', 'q', 'k', 'v', 'wo', 'heads', 'causal', 'scale', 'editable', 'compact', 'view']) {
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
    this.#stopTraining();
    this.#resize?.disconnect();
    this.#resize = null;
    this.#layer?.dispose();
    this.#layer = null;
    this.#layerKey = '';
  }

  attributeChangedCallback(name, before, after) {
    // A learner's edit has already updated the parsed state it mirrors into the attributes.
    if (this.#reflecting || before === after) return;
    this.#parsed = null;
    this.#schedule();
  }

  // ---- properties: the same state as the attributes --------------------------------------------

  /** The live result: { attention: Float32Array per head, output, concat, scores, headOutputs }, or null. */
  get result() {
    return this.#result;
  }

  /** Resolves with the result (or null on error) once pending attribute changes are rendered. */
  get updateComplete() {
    return this.#settle ? this.#settled : Promise.resolve(this.#result);
  }

  get tokens() {
    return this.#current().state?.tokens.slice() ?? null;
  }
  set tokens(value) {
    this.#setData('tokens', value, (list) => JSON.stringify(Array.from(list)));
  }
  get q() {
    return this.#matrix('q');
  }
  set q(value) {
    this.#setData('q', value, matrixToAttribute);
  }
  get k() {
    return this.#matrix('k');
  }
  set k(value) {
    this.#setData('k', value, matrixToAttribute);
  }
  get v() {
    return this.#matrix('v');
  }
  set v(value) {
    this.#setData('v', value, matrixToAttribute);
  }
  get wo() {
    return this.#matrix('wo');
  }
  set wo(value) {
    this.#setData('wo', value, matrixToAttribute);
  }
  get heads() {
    return this.#current().state?.heads ?? null;
  }
  set heads(value) {
    if (value === null || value === undefined) this.removeAttribute('heads');
    else this.setAttribute('heads', String(value));
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
    if (value === null || value === undefined) this.removeAttribute('view');
    else this.setAttribute('view', String(value));
  }

  #setData(name, value, serialise) {
    if (value === null || value === undefined) return this.removeAttribute(name);
    let text;
    try {
      text = typeof value === 'string' ? value : serialise(value);
    } catch {
      text = String(value); // e.g. a cyclic array: the parser then reports it inline
    }
    return this.setAttribute(name, text);
  }

  #matrix(name) {
    return this.#current().state?.[name]?.map((row) => row.slice()) ?? null;
  }

  /** The attributes as parsed: parsed once after each change, so getters cost no JSON parsing. */
  #current() {
    if (this.#parsed) return this.#parsed;
    const attrs = {};
    for (const name of ATTRIBUTES) attrs[name] = this.getAttribute(name);
    for (const name of FLAGS) attrs[name] = this.hasAttribute(name);
    this.#parsed = parseState(attrs);
    return this.#parsed;
  }

  // ---- rendering --------------------------------------------------------------------------------

  #schedule() {
    if (this.#queued) return;
    this.#queued = true;
    if (!this.#settle) this.#settled = new Promise((resolve) => (this.#settle = resolve));
    queueMicrotask(() => {
      this.#queued = false;
      this.#update().catch((error) => this.#fail('INTERNAL', String(error?.message ?? error), error));
    });
  }

  async #update() {
    if (!this.isConnected) return this.#done();
    let parsed;
    try {
      parsed = this.#current();
    } catch (error) {
      return this.#fail('INTERNAL', String(error?.message ?? error), error);
    }
    if (parsed.error) return this.#fail(parsed.error.code, parsed.error.message);

    let mha;
    try {
      if (!core && this.#box.childElementCount === 0) {
        this.#box.replaceChildren(h(this.ownerDocument, 'p', 'status', STRINGS[parsed.state.lang].loading));
      }
      mha = await sharedCore();
    } catch (error) {
      const t = STRINGS[parsed.state.lang].error;
      return this.#fail('LOAD_FAILED', t.LOAD_FAILED(String(error?.message ?? error)), error);
    }
    // Attributes may have changed while the core loaded; a newer update is then already queued.
    if (this.#queued || this.#parsed !== parsed || !this.isConnected) return undefined;
    this.#mha = mha;
    if (parsed.state.view === 'train') {
      this.#showTraining(parsed.state);
      return this.#done();
    }
    this.#stopTraining();
    if (this.#compute()) this.#draw();
    return this.#done();
  }

  /** view="train": the training section of the lesson page (its own worker and core), mounted once per language and h. */
  #showTraining(state) {
    const heads = [1, 2, 4].includes(state.heads) ? state.heads : 2;
    const key = `${state.lang}/${heads}`;
    if (this.#training && this.#trainingKey === key) return;
    this.#stopTraining();
    const box = this.ownerDocument.createElement('div');
    this.#box.replaceChildren(box);
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
      const key = `${state.d}/${state.heads}/${state.L}`;
      if (this.#layerKey !== key || !this.#layer) {
        this.#layer?.dispose();
        this.#layer = null;
        this.#layer = this.#mha.createLayer({ dModel: state.d, heads: state.heads, maxLen: state.L });
        this.#layerKey = key;
      }
      const layer = this.#layer;
      layer.forward({ q: state.q, k: state.k, v: state.v, wo: state.wo ?? undefined, causal: state.causal, scale: state.scale });
      // Copy now: the core's arrays are views that the next call on any layer may invalidate.
      const perHead = (read) => Array.from({ length: state.heads }, (_, i) => read.call(layer, i).slice());
      const concat = layer.concat().slice();
      this.#snap = {
        q: layer.q().slice(),
        scores: perHead(layer.scores),
        attention: perHead(layer.attention),
        headOutputs: perHead(layer.headOutput),
        concat,
        output: layer.output().slice(),
        wo: state.wo ? state.wo.flat() : identity(state.d),
      };
      const { attention, scores, headOutputs, output } = this.#snap;
      this.#result = { attention: attention.map((a) => a.slice()), output: output.slice(), concat: concat.slice(), scores: scores.map((s) => s.slice()), headOutputs: headOutputs.map((o) => o.slice()) };
      this.#lastWarning = '';
      return true;
    } catch (error) {
      const t = STRINGS[state.lang];
      if (error?.name === 'MHAError') this.#fail(error.code, `${t.coreError}: ${errorSentence(ERROR_TEXT[state.lang], error)}`);
      else this.#fail('INTERNAL', String(error?.message ?? error), error);
      return false;
    }
  }

  /** Redraws the summary, the figures and (when editable) the sliders from the current snapshot. */
  #draw() {
    const state = this.#parsed.state;
    const doc = this.ownerDocument;
    const width = this.#width || this.clientWidth || 640;
    try {
      const summary = renderSummary(doc, state);
      const views = renderViews(doc, state, this.#snap, {
        width: Math.max(200, width - 30),
        id: this.#id,
        focus: this.#focus,
        onFocus: (index) => {
          this.#focus = index;
          this.#draw();
          this.#root.querySelector(`.focus button[data-focus="${index ?? ''}"]`)?.focus();
        },
      });
      views.setAttribute('part', 'views');
      if (state.editable) {
        if (!this.#controls || this.#controls.key !== controlsKey(state)) this.#controls = this.#buildControls(state);
        else this.#controls.update(state);
      } else {
        this.#controls = null;
      }
      this.#box.lang = state.lang;
      const [oldSummary, oldViews, oldControls] = this.#box.children;
      if (this.#controls && oldControls === this.#controls.element && oldSummary?.matches('.summary') && oldViews?.matches('.views')) {
        // Swap the figures around the panel: removing a focused slider from the tree would blur it.
        oldSummary.replaceWith(summary);
        oldViews.replaceWith(views);
      } else {
        this.#box.replaceChildren(summary, views, ...(this.#controls ? [this.#controls.element] : []));
      }
    } catch (error) {
      this.#fail('INTERNAL', String(error?.message ?? error), error);
    }
  }

  #buildControls(state) {
    return buildControls(this.ownerDocument, state, {
      matrix: (name, r, c, value) => this.#learnerEdit((s) => {
        s[name][r][c] = value;
        return [[name, matrixToAttribute(s[name])]];
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
    if (!state || !this.#mha) return;
    const attributes = change(state);
    this.#reflecting = true;
    try {
      // The lesson example is the default only while no data attribute is given: write it all out.
      if (DATA.slice(0, 4).every((name) => !this.hasAttribute(name))) {
        this.setAttribute('tokens', JSON.stringify(LESSON_EXAMPLE.tokens));
        for (const name of ['q', 'k', 'v']) this.setAttribute(name, matrixToAttribute(state[name]));
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

  /** Shows an inline error (code + sentence), warns once per distinct error, clears the result. */
  #fail(code, message, cause) {
    const lang = this.#parsed?.state?.lang ?? languageOf(this.getAttribute('lang'));
    this.#result = null;
    this.#snap = null;
    this.#controls = null;
    try {
      this.#box.lang = lang;
      const box = renderError(this.ownerDocument, lang, { code, message });
      box.setAttribute('part', 'error');
      this.#box.replaceChildren(box);
    } catch {
      this.#box.textContent = `${code}: ${message}`;
    }
    const warning = `<${this.localName || TAG}> ${code}: ${message}`;
    if (warning !== this.#lastWarning) {
      this.#lastWarning = warning;
      console.warn(warning, ...(cause ? [cause] : []));
    }
    return this.#done();
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

function identity(n) {
  const out = new Float32Array(n * n);
  for (let i = 0; i < n; i++) out[i * n + i] = 1;
  return out;
}
