// The 训练 (training) section, shared by the lesson page and the widget's view="train": pick h (and on the
// page MHA, GQA or MQA), start / pause / reset, watch the loss fall and each head's attention on a fixed example
// sentence change as training runs, then switch heads off one at a time (ablation). Training runs in a module
// Web Worker (host.js) so dragging and scrolling stay smooth. What it shows is drawn by views.js; this module
// keeps the state and wires the controls and the worker's messages to those views.
//
//   import { mountTraining } from './panel.js';
//   import * as compare from './compare.js';
//   const training = mountTraining(container, { lang: 'zh', compare });   // builds the section into container
//   training.start(); training.pause(); training.reset(); training.setHeads(4); training.setKvHeads(2);
//   training.snapshot();   // the latest numbers: { heads, steps, loss, eval, attention, ablation, … }
//   training.dispose();
//
// Works in a page and in a shadow root, also under a strict Content-Security-Policy (style-src 'self'):
// its small stylesheet is a constructed one and its few computed styles are CSSOM writes, never inline
// <style> elements or style attributes.
import { ERROR_TEXT, errorSentence } from '../shared/errors.js';
import { adoptStylesheet } from '../ui/adopt-stylesheet.js';
import { hFor, vh, show } from '../ui/dom.js';
import { startTrainingHost } from './host.js';
import { HEAD_CHOICES, TRAIN_TEXT, WORDS } from './strings.js';
import { TRAIN_EXAMPLE, headViews, viewName, kvChoices, lossView, headsView, predictionsView, ablationView } from './views.js';

const STYLE = `
.mha-train .train-controls{display:flex;flex-wrap:wrap;gap:10px 16px;align-items:flex-end;margin:12px 0}
.mha-train fieldset{border:0;padding:0;margin:0;display:flex;gap:4px;align-items:center}
.mha-train fieldset legend{float:left;margin-right:8px;font-size:.9rem;color:#5b5b63}
.mha-train .h-choice{display:inline-flex;align-items:center;gap:4px;min-height:40px;padding:0 8px;border:1px solid #b9b9c3;border-radius:8px;cursor:pointer}
.mha-train .h-choice:has(input:checked){background:#e6f0fb;border-color:#0b5cad}
.mha-train .train-status{font-variant-numeric:tabular-nums;min-height:1.6em;display:grid}
.mha-train .train-status>*{grid-area:1/1}
.mha-train .train-figs{display:flex;flex-wrap:wrap;gap:12px 20px;align-items:flex-start;margin:8px 0}
.mha-train figure{margin:0;min-width:0;max-width:100%}
.mha-train figure>svg{display:block;max-width:100%;height:auto}
.mha-train figcaption{font-size:.9rem;color:#5b5b63;margin-bottom:4px}
.mha-train .swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:5px}
.mha-train .head-view{font-size:.85rem;margin-top:2px}
.mha-train table.train-table{border-collapse:collapse;font-size:.88rem;font-variant-numeric:tabular-nums;margin:6px 0}
.mha-train table.train-table th,.mha-train table.train-table td{border-bottom:1px solid #e3e3e8;padding:3px 8px;text-align:right}
.mha-train table.train-table th:first-child,.mha-train table.train-table td:first-child{text-align:left}
.mha-train .right{color:#006b3c}.mha-train .wrong{color:#a4000f}
.mha-train .bar{display:inline-block;height:10px;background:#0b5cad;border-radius:2px;vertical-align:middle;margin-left:6px}
.mha-train .train-error{color:#a4000f}
.mha-train .train-placeholder{visibility:hidden}
.mha-train .train-ablation{overflow-x:auto;max-width:100%}
.mha-train .train-ablation caption{text-align:left}
.mha-train .sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
`;

// A progress message with the widest numbers, for the hidden status line that keeps the real ones' place.
const LONG_STATUS = { steps: 1500, eval: { loss: 0.888, accuracy: 0.888, previous: { accuracy: 0.888 }, first: { accuracy: 0.888 } } };

/**
 * Builds the training section into `container`. Options: lang ('zh' | 'en'), heads (1, 2 or 4), kvHeads
 * (K/V heads, one of kvChoices(heads); default heads), seed, heading (false to leave out the <h2>),
 * workerUrl (where the worker bundle is; defaults to train-worker.js beside this module or bundle),
 * stepsPerTick, maxSteps, onModel(h, kvHeads) (called when the learner picks another h or K/V count), compare (./compare.js, which
 * the page hands in: with it the learner picks MHA, GQA or MQA and sees the finished ones compared; without it,
 * as in the widget, h alone).
 */
export function mountTraining(container, { lang = 'zh', heads = 2, kvHeads, seed = 0, heading = true, workerUrl, stepsPerTick = 4, maxSteps = 1500, onModel = () => {}, compare = null } = {}) {
  const doc = container.ownerDocument;
  const t = TRAIN_TEXT[lang] ?? TRAIN_TEXT.zh;
  const c = compare && (compare.COMPARE_TEXT[lang] ?? compare.COMPARE_TEXT.zh);
  const words = WORDS[lang] ?? WORDS.zh;
  const node = hFor(doc); // the frame's elements, in the container's document
  const uid = `train-${Math.random().toString(36).slice(2, 8)}`;
  const startHeads = HEAD_CHOICES.includes(heads) ? heads : 2;

  const state = {
    heads: startHeads,
    kvHeads: compare && kvChoices(startHeads).includes(kvHeads) ? kvHeads : startHeads,
    ready: null, // the 'ready' message
    progress: null, // the latest 'progress' message
    ablation: null,
    history: [], // [steps, held-out loss] of this run
    past: new Map(), // 'h/kvHeads' → the last finished run of that model: { heads, kvHeads, points, paramCount, views }
    running: false,
    error: null,
  };
  const runKey = (h, kv) => `${h}/${kv}`;

  // ---- the static frame ----
  const headRadios = HEAD_CHOICES.map((h) => {
    const input = node('input', { type: 'radio', name: `${uid}-heads`, value: h, checked: h === state.heads, onchange: () => setHeads(h) });
    return node('label', { class: 'h-choice' }, [input, `h = ${h}`]);
  });
  const kvBox = compare && node('fieldset', { class: 'train-kv' });
  const kvLead = compare && node('p', { class: 'muted train-kv-lead' });
  const startButton = node('button', { type: 'button', class: 'train-start', disabled: true, onclick: () => (state.running ? pause() : start()) }, [t.start]);
  const resetButton = node('button', { type: 'button', class: 'train-reset', disabled: true, onclick: () => reset() }, [t.reset]);
  let speed = stepsPerTick; // the speed chosen: a new model trains at it too
  const speedSelect = node('select', { id: `${uid}-speed`, onchange: (e) => host.send({ type: 'speed', stepsPerTick: (speed = Number(e.target.value)) }) },
    Object.entries(t.speeds).map(([value, label]) => node('option', { value, selected: Number(value) === stepsPerTick }, [label])));
  const params = node('span', { class: 'muted train-params' });
  const status = node('p', { class: 'train-status', role: 'status', 'aria-live': 'polite' }, [t.loading]);
  const lossFigure = node('figure', { class: 'train-loss' }, [node('figcaption', {}, [t.lossTitle]), node('div', { class: 'fig-svg' })]);
  const headFigures = node('div', { class: 'train-figs train-heads', 'data-screen': '2' });
  const predictions = node('div', { class: 'train-predictions', 'data-screen': '1' });
  const compareBox = compare && node('div', { class: 'train-compare-box', 'data-screen': '3' });
  const ablationBox = node('div', { class: 'train-ablation', role: 'group', 'aria-label': t.ablation, 'data-screen': '4' }, [node('p', { class: 'muted' }, [t.ablationWait])]);
  const errorLine = node('p', { class: 'train-error', role: 'alert', hidden: true });

  const root = node('div', { class: 'mha-train', 'data-state': 'loading' }, [
    heading ? node('h2', { id: `${uid}-title` }, [t.title]) : null,
    node('p', {}, [t.lead]),
    node('p', { class: 'muted' }, [t.oneHead]),
    kvLead,
    node('div', { class: 'train-controls' }, [
      node('fieldset', {}, [node('legend', {}, [t.heads]), ...headRadios]),
      kvBox,
      startButton,
      resetButton,
      node('label', { class: 'field', for: `${uid}-speed` }, [node('span', {}, [t.speed]), speedSelect]),
      params,
    ]),
    status,
    errorLine,
    // The page's lesson mode shows a screen at a time (data-screen): the loss and the answers, the heads, the
    // comparison, the ablation, each under the controls; the widget shows them all.
    node('div', { class: 'train-figs', 'data-screen': '1' }, [lossFigure]),
    headFigures,
    predictions,
    c && node('h3', { 'data-screen': '3' }, [c.compareTitle]),
    compareBox,
    node('h3', { 'data-screen': '4' }, [t.ablation]),
    node('p', { class: 'muted', 'data-screen': '4' }, [t.ablationLead]),
    ablationBox,
  ]);
  // The stylesheet goes to the widget's shadow root, or to the page's document (the container may not
  // be in it yet); only a browser without constructed stylesheets gets a <style> element.
  const scope = container.getRootNode();
  const style = STYLE + (compare?.STYLE ?? '');
  if (!adoptStylesheet(scope.nodeType === 11 && 'host' in scope ? scope : doc, style)) root.prepend(node('style', {}, [style]));
  container.append(root);

  const placeholder = (text) => node('span', { class: 'train-placeholder', 'aria-hidden': 'true' }, [text]);

  // ---- messages from the trainer ----
  let frame = 0;
  const raf = doc.defaultView?.requestAnimationFrame?.bind(doc.defaultView) ?? ((fn) => setTimeout(fn, 16));
  const schedule = () => {
    if (!frame) frame = raf(() => {
      frame = 0;
      render();
    });
  };
  let readyResolve;
  const ready = new Promise((resolve) => (readyResolve = resolve));

  function onMessage(message) {
    switch (message.type) {
      case 'ready':
        state.ready = message;
        state.history = [];
        state.ablation = null;
        state.error = null;
        readyResolve();
        break;
      case 'progress':
        if (message.steps === 0) state.history = [];
        if (!state.history.length || state.history[state.history.length - 1][0] !== message.steps) state.history.push([message.steps, message.eval.loss]);
        state.progress = message;
        state.running = message.running;
        if (message.steps === 0) state.ablation = null;
        if (message.done) archive();
        break;
      case 'ablation':
        state.ablation = message;
        break;
      case 'error':
        state.error = message;
        state.running = false;
        break;
      default:
        return;
    }
    schedule();
  }

  const init = () => host.send({ type: 'init', heads: state.heads, kvHeads: state.kvHeads, seed, example: TRAIN_EXAMPLE, stepsPerTick: speed, maxSteps });
  const host = startTrainingHost(onMessage, workerUrl);
  init();
  render(); // the placeholders, until the trainer answers

  /** Keeps this run as its model's last (with what its heads look at now), for the loss curve and the comparison. */
  function archive() {
    const r = state.ready;
    const p = state.progress;
    if (state.history.length < 2 || !r || !p || p.attention.length !== r.heads) return;
    const views = p.attention.map((a) => viewName(headViews(a, r.seqLen), r.heads));
    state.past.set(runKey(r.heads, r.kvHeads), { heads: r.heads, kvHeads: r.kvHeads, points: state.history.slice(), paramCount: r.paramCount, views });
  }
  function start() {
    // A finished run starts over from step 0 (the worker resets it): its curve is kept as the last run's,
    // as reset keeps it, and its ablation goes with it.
    if (state.progress?.done) {
      state.history = [];
      state.ablation = null;
    }
    state.running = true;
    host.send({ type: 'start' });
    schedule();
  }
  function pause() {
    state.running = false;
    host.send({ type: 'pause' });
    schedule();
  }
  function reset() {
    archive();
    state.running = false;
    state.history = [];
    state.ablation = null;
    host.send({ type: 'reset' });
    schedule();
  }
  /** A new model: h query heads, kv K/V heads (MHA when kv is h), trained from step 0 on the same seed. */
  function setModel(h, kv) {
    archive();
    state.heads = h;
    state.kvHeads = kv;
    state.running = false;
    state.progress = null;
    state.ablation = null;
    state.history = [];
    for (const label of headRadios) label.querySelector('input').checked = Number(label.querySelector('input').value) === h;
    init();
    schedule();
  }
  function setHeads(h) {
    if (!HEAD_CHOICES.includes(h)) return;
    setModel(h, h);
    onModel(h, h);
  }
  function setKvHeads(kv) {
    if (!compare || !kvChoices(state.heads).includes(kv)) return;
    setModel(state.heads, kv);
    onModel(state.heads, kv);
  }

  // ---- drawing ----
  function render() {
    const p = state.progress;
    const r = state.ready;
    root.dataset.state = state.error ? 'error' : !p ? 'loading' : state.running ? 'running' : p.done ? 'done' : p.steps ? 'paused' : 'ready';
    root.dataset.steps = p ? String(p.steps) : '0';
    root.dataset.kvHeads = String(state.kvHeads);
    errorLine.hidden = !state.error;
    errorLine.textContent = state.error ? `${t.error}${state.error.code} — ${errorSentence(ERROR_TEXT[lang] ?? ERROR_TEXT.zh, state.error)}` : '';
    // Not "starting…" forever when it cannot start; under it, hidden, a status line as long as the real ones.
    if (!p) status.replaceChildren(node('span', {}, [state.error ? '' : t.loading]), placeholder(t.status(LONG_STATUS)));
    startButton.disabled = !p;
    resetButton.disabled = !p;
    startButton.textContent = state.running ? t.pause : p?.steps && !p.done ? t.resume : t.start;
    if (r) params.textContent = t.params(r.paramCount, r.dK);
    else params.replaceChildren(placeholder(t.params(8888, 8)));
    if (compare) {
      drawKvChoice();
      drawComparison();
    }
    drawLoss();
    const current = p && r && p.attention.length === state.heads && r.kvHeads === state.kvHeads;
    if (!current) {
      // Until the trainer's first numbers: the heads and predictions drawn hidden at the size they will have,
      // so what follows the section does not move down when the numbers arrive (the section grew by about
      // 900 px on a desktop, 1,300 on a phone).
      const L = TRAIN_EXAMPLE.length;
      show(headFigures, headsView(t, words, { attention: Array.from({ length: state.heads }, () => new Float32Array(L * L)), seqLen: L, example: TRAIN_EXAMPLE, hidden: true }));
      show(predictions, predictionsView(t, words, { predict: { previous: TRAIN_EXAMPLE, first: TRAIN_EXAMPLE }, example: TRAIN_EXAMPLE, hidden: true }));
      return;
    }
    status.textContent = t.status(p);
    show(headFigures, headsView(t, words, { attention: p.attention, seqLen: r.seqLen, example: r.example, kvGroups: r.kvGroups }));
    show(predictions, predictionsView(t, words, { predict: p.predict, example: r.example }));
    drawAblation();
  }

  // The K/V choice for the h picked (compare.js draws it: the widget trains MHA alone).
  function drawKvChoice() {
    const lead = compare.kvLeadText(c, state.heads);
    kvLead.hidden = !lead;
    if (lead && kvLead.textContent !== lead) kvLead.textContent = lead;
    kvBox.hidden = !lead;
    show(kvBox, compare.kvChoiceView(c, { heads: state.heads, kvHeads: state.kvHeads, name: `${uid}-kv`, onPick: setKvHeads }));
    // A radio the learner clicked no longer follows its attribute: its property says which is picked.
    for (const input of kvBox.querySelectorAll('input')) input.checked = Number(input.value) === state.kvHeads;
  }

  function drawLoss() {
    const past = [...state.past.values()].filter((run) => !(run.heads === state.heads && run.kvHeads === state.kvHeads && state.history.length > 1));
    const current = state.history.length ? [{ heads: state.heads, kvHeads: state.kvHeads, points: state.history, current: true }] : [];
    show(lossFigure.querySelector('.fig-svg'), lossView(t, { runs: [...past, ...current], maxSteps: state.ready?.maxSteps ?? maxSteps }));
  }

  function drawComparison() {
    const runs = [...state.past.values()].filter((run) => run.heads === state.heads);
    show(compareBox, compare.comparisonView(c, { ...compare.comparisonFacts(runs, state.ready?.maxSteps ?? maxSteps), heads: state.heads }));
  }

  function drawAblation() {
    const a = state.ablation;
    if (!a || a.off.length !== state.heads) {
      ablationBox.removeAttribute('tabindex');
      show(ablationBox, vh('p', { class: 'muted' }, [t.ablationWait]));
      return;
    }
    // On a phone the table may be wider than the screen: its box scrolls, and a keyboard can scroll it too.
    ablationBox.setAttribute('tabindex', '0');
    show(ablationBox, ablationView(t, a));
  }

  return {
    element: root,
    /** Resolves once the trainer answered for the first time. */
    ready,
    /** 'worker' or 'thread': where training runs. */
    get runsIn() {
      return host.kind;
    },
    start,
    pause,
    reset,
    setHeads,
    setKvHeads,
    /** The latest numbers the section shows (copies are not needed: they came by message). */
    snapshot() {
      const p = state.progress;
      return {
        heads: state.heads,
        kvHeads: state.kvHeads,
        running: state.running,
        steps: p?.steps ?? 0,
        loss: p?.loss ?? NaN,
        eval: p?.eval ?? null,
        attention: p ? p.attention.map((a) => Array.from(a)) : [],
        seqLen: state.ready?.seqLen ?? 0,
        history: state.history.slice(),
        ablation: state.ablation,
        compared: compare?.comparisonFacts([...state.past.values()].filter((run) => run.heads === state.heads), state.ready?.maxSteps ?? maxSteps) ?? null,
        error: state.error,
      };
    },
    dispose() {
      host.close();
      root.remove();
    },
  };
}
