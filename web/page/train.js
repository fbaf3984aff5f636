// The 训练 (training) section: pick h, start / pause / reset, watch the loss fall and each head's
// attention on a fixed example sentence change as training runs, then switch heads off one at a time
// (ablation). Training runs in a module Web Worker (./train-worker.js) so dragging and scrolling stay
// smooth; if no worker can start, the same loop runs in this thread in small slices.
//
//   import { mountTraining } from './train.js';
//   const training = mountTraining(container, { lang: 'zh' });   // builds the section into container
//   training.start(); training.pause(); training.reset(); training.setHeads(4);
//   training.snapshot();   // the latest numbers: { heads, steps, loss, eval, attention, ablation, … }
//   training.dispose();
//
// Works in a page and in a shadow root, also under a strict Content-Security-Policy (style-src 'self'):
// its small stylesheet is a constructed one and its few computed styles are CSSOM writes, never inline
// <style> elements or style attributes.
import { heatmap, headColor, tableFor } from '../draw/index.js';
import { ERROR_TEXT, errorSentence } from '../shared/errors.js';
import { adoptStylesheet } from '../widget/adopt-stylesheet.js';
import { loadAttention } from '../src/attention.js';
import { createTrainingHost } from './train-worker.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
const HEAD_CHOICES = [1, 2, 4];

// vocab 16: token ids 0..15 drawn as words. The example sentence uses 8 different ones.
const WORDS = {
  zh: ['猫', '吃', '鱼', '狗', '看', '书', '我', '你', '山', '水', '花', '鸟', '日', '月', '风', '云'],
  en: ['cat', 'eat', 'fish', 'dog', 'see', 'book', 'I', 'you', 'hill', 'water', 'tree', 'bird', 'sun', 'moon', 'wind', 'cloud'],
};
export const TRAIN_EXAMPLE = [6, 4, 0, 1, 2, 11, 8, 9]; // 我 看 猫 吃 鱼 鸟 山 水

const TEXT = {
  zh: {
    title: '十、训练:看两个头学出两种眼光',
    lead: '随机初始化的头没有意义——每个头看哪里,是训练决定的。这里有一个小任务:句子由 16 个词随机组成,模型在每个位置要同时说出两件事:前一个词是什么,句首的词是什么。一种眼光是“往回看一步”,另一种是“看句首”。d_model = 8 不变,h 取 1、2 或 4:参数量完全相同,只是切法不同。',
    oneHead: 'h = 1 时,一个头在每一行只有一张 softmax 权重表,要么看前一个词,要么看句首,要么各分一半——分一半时读出层拿到的是两个词的混合,分不开。',
    heads: '头数 h',
    start: '开始训练',
    resume: '继续训练',
    pause: '暂停',
    reset: '重置',
    speed: '速度',
    speeds: { 1: '慢', 4: '中', 25: '快' },
    params: (n, dK) => `参数量 ${n}(d_k = ${dK})`,
    status: (s) => `第 ${s.steps} 步 · 验证损失 ${fmt(s.eval.loss, 3)} · 准确率 ${pct(s.eval.accuracy)}(前一个词 ${pct(s.eval.previous.accuracy)},句首 ${pct(s.eval.first.accuracy)})`,
    loading: '正在启动训练……',
    lossTitle: '验证损失(对数坐标)随训练步数的变化',
    lossAxis: '损失',
    stepsAxis: '步数',
    current: (h) => `h = ${h}(本次)`,
    past: (h) => `h = ${h}(上次)`,
    example: '例句',
    head: (i) => `头 ${i + 1}`,
    heatmapTitle: (i, words) => `头 ${i + 1} 在例句「${words.join('')}」上的注意力权重`,
    query: '查询(行)',
    key: '键(列)',
    views: { previous: '看前一个词', first: '看句首', mixed: '还没分工' },
    viewShare: (v) => `往回一步 ${pct(v.previous)} · 句首 ${pct(v.first)}`,
    predictions: '模型在例句上的回答',
    position: '位置',
    token: '词',
    predPrev: '前一个词',
    predFirst: '句首',
    ablation: '消融:关掉一个头,损失变多少',
    ablationLead: '训练暂停或结束后,依次关掉每个头(它在拼接里的那几列变成 0),在验证集上重新算损失。损失涨得越多,这个头越重要;看它坏了哪一项预测,就知道它学的是哪种眼光。',
    allOn: '全部头都开',
    without: (i) => `关掉头 ${i + 1}`,
    loss: '损失',
    accuracy: '准确率',
    prevAcc: '前一个词',
    firstAcc: '句首',
    ablationWait: '先训练一会儿,再暂停——这里会列出每个头的消融结果。',
    error: '训练出错:',
  },
  en: {
    title: '10. Training: watch two heads learn two views',
    lead: 'Randomly initialised heads mean nothing — training decides where each head looks. Here is a small task: sentences are random words from a vocabulary of 16, and at every position the model must say two things at once: what the previous word was, and what the first word of the sentence was. One view is “look one step back”, the other “look at the start”. d_model stays 8 and h is 1, 2 or 4: exactly the same number of parameters, only split differently.',
    oneHead: 'With h = 1 a single head has one softmax row per position: it can look one step back, or at the start, or split its weight — and then the read-out gets a blend of two words it cannot take apart.',
    heads: 'Heads h',
    start: 'Start training',
    resume: 'Resume',
    pause: 'Pause',
    reset: 'Reset',
    speed: 'Speed',
    speeds: { 1: 'slow', 4: 'normal', 25: 'fast' },
    params: (n, dK) => `${n} parameters (d_k = ${dK})`,
    status: (s) => `step ${s.steps} · held-out loss ${fmt(s.eval.loss, 3)} · accuracy ${pct(s.eval.accuracy)} (previous word ${pct(s.eval.previous.accuracy)}, first word ${pct(s.eval.first.accuracy)})`,
    loading: 'Starting the trainer…',
    lossTitle: 'Held-out loss (log scale) against training steps',
    lossAxis: 'loss',
    stepsAxis: 'steps',
    current: (h) => `h = ${h} (this run)`,
    past: (h) => `h = ${h} (last run)`,
    example: 'Example',
    head: (i) => `Head ${i + 1}`,
    heatmapTitle: (i, words) => `Head ${i + 1}'s attention weights on the example “${words.join(' ')}”`,
    query: 'query (row)',
    key: 'key (column)',
    views: { previous: 'looks one step back', first: 'looks at the start', mixed: 'no view yet' },
    viewShare: (v) => `one step back ${pct(v.previous)} · start ${pct(v.first)}`,
    predictions: "The model's answers on the example",
    position: 'position',
    token: 'word',
    predPrev: 'previous',
    predFirst: 'first',
    ablation: 'Ablation: switch one head off, see the loss change',
    ablationLead: 'When training is paused or finished, each head is switched off in turn (its columns of the concat become 0) and the held-out loss is computed again. The more the loss rises, the more the head matters; which prediction breaks tells you which view it learned.',
    allOn: 'all heads on',
    without: (i) => `head ${i + 1} off`,
    loss: 'loss',
    accuracy: 'accuracy',
    prevAcc: 'previous',
    firstAcc: 'first',
    ablationWait: 'Train for a while, then pause: the ablation of every head appears here.',
    error: 'Training failed: ',
  },
};

const STYLE = `
.mha-train .train-controls{display:flex;flex-wrap:wrap;gap:10px 16px;align-items:flex-end;margin:12px 0}
.mha-train fieldset{border:0;padding:0;margin:0;display:flex;gap:4px;align-items:center}
.mha-train fieldset legend{float:left;margin-right:8px;font-size:.9rem;color:#5b5b63}
.mha-train .h-choice{display:inline-flex;align-items:center;gap:4px;min-height:40px;padding:0 8px;border:1px solid #b9b9c3;border-radius:8px;cursor:pointer}
.mha-train .h-choice:has(input:checked){background:#e6f0fb;border-color:#0b5cad}
.mha-train .train-status{font-variant-numeric:tabular-nums;min-height:1.6em}
.mha-train .train-figs{display:flex;flex-wrap:wrap;gap:12px 20px;align-items:flex-start;margin:8px 0}
.mha-train figure{margin:0}
.mha-train figcaption{font-size:.9rem;color:#5b5b63;margin-bottom:4px}
.mha-train .swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:5px}
.mha-train .head-view{font-size:.85rem;margin-top:2px}
.mha-train table.train-table{border-collapse:collapse;font-size:.88rem;font-variant-numeric:tabular-nums;margin:6px 0}
.mha-train table.train-table th,.mha-train table.train-table td{border-bottom:1px solid #e3e3e8;padding:3px 8px;text-align:right}
.mha-train table.train-table th:first-child,.mha-train table.train-table td:first-child{text-align:left}
.mha-train .right{color:#006b3c}.mha-train .wrong{color:#a4000f}
.mha-train .bar{display:inline-block;height:10px;background:#0b5cad;border-radius:2px;vertical-align:middle;margin-left:6px}
.mha-train .train-error{color:#a4000f}
.mha-train .sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
`;

const fmt = (x, digits = 2) => (Number.isFinite(x) ? x.toFixed(digits) : '—');
const pct = (x) => (Number.isFinite(x) ? `${Math.round(x * 100)}%` : '—');

/** Mean weight of rows r ≥ 2 on the previous position and on position 0: the two views. */
export function headViews(attention, L) {
  let previous = 0;
  let first = 0;
  for (let r = 2; r < L; r++) {
    previous += attention[r * L + r - 1];
    first += attention[r * L];
  }
  return { previous: previous / (L - 2), first: first / (L - 2) };
}

function viewName(view) {
  if (view.previous >= 0.6 && view.previous > view.first) return 'previous';
  if (view.first >= 0.6) return 'first';
  return 'mixed';
}

/** A worker that has not answered by then is given up for this thread. */
const WORKER_ANSWER_MS = 10000;

/**
 * Starts the trainer in a module worker; falls back to this thread if the worker cannot run. The worker
 * is handed the page's compiled core with every 'init', so it never has to find mha-core.wasm itself
 * (a bundler may have put it anywhere). A core that cannot load is reported as a LOAD_FAILED error.
 */
function startHost(onMessage, workerUrl) {
  let local = null;
  let worker = null;
  let answered = false;
  let watchdog = 0;
  let delivery = Promise.resolve();
  const unanswered = []; // sent before the worker answered: replayed here if it cannot start
  const runHere = () => {
    clearTimeout(watchdog);
    worker?.terminate();
    worker = null;
    answered = true;
    local = createTrainingHost((message) => onMessage(message));
    for (const message of unanswered.splice(0)) local(message);
  };
  try {
    // The literal new Worker(new URL('./…', import.meta.url)) is what bundlers recognise as a worker entry.
    worker = workerUrl
      ? new Worker(workerUrl, { type: 'module' })
      : new Worker(new URL('./train-worker.js', import.meta.url), { type: 'module' });
    worker.addEventListener('message', (event) => {
      answered = true;
      clearTimeout(watchdog);
      unanswered.length = 0;
      onMessage(event.data);
    });
    worker.addEventListener('error', (event) => {
      event.preventDefault?.();
      if (!answered && worker) runHere(); // the worker script did not load: run here instead
      else onMessage({ type: 'error', code: 'UNEXPECTED', message: event.message ?? 'the training worker stopped' });
    });
  } catch {
    worker = null;
    local = createTrainingHost((message) => onMessage(message));
  }
  const loadFailed = (error) => onMessage({ type: 'error', code: error?.code ?? 'LOAD_FAILED', message: error?.message ?? String(error) });
  return {
    get kind() {
      return worker ? 'worker' : 'thread';
    },
    send(message) {
      if (!worker) return local(message);
      if (!answered) unanswered.push(message);
      // In order, each 'init' once the page's core is there to go with it.
      delivery = delivery
        .then(async () => {
          const wasm = message.type === 'init' ? (await loadAttention()).wasmModule : undefined;
          if (!worker) return; // it failed meanwhile: the message was replayed here
          worker.postMessage(wasm ? { ...message, wasm } : message);
          if (!answered) watchdog ||= setTimeout(() => !answered && worker && runHere(), WORKER_ANSWER_MS);
        })
        .catch(loadFailed);
      return delivery;
    },
    close() {
      clearTimeout(watchdog);
      if (worker) worker.terminate();
      else local?.({ type: 'dispose' });
    },
  };
}

/**
 * Builds the training section into `container`. Options: lang ('zh' | 'en'), heads (1, 2 or 4),
 * seed, heading (false to leave out the <h2>), workerUrl (where the worker bundle is; defaults to
 * train-worker.js beside this module or bundle), stepsPerTick, maxSteps.
 */
export function mountTraining(container, { lang = 'zh', heads = 2, seed = 0, heading = true, workerUrl, stepsPerTick = 4, maxSteps = 1500 } = {}) {
  const doc = container.ownerDocument;
  const t = TEXT[lang] ?? TEXT.zh;
  const words = WORDS[lang] ?? WORDS.zh;
  const node = (tag, attrs = {}, children = []) => {
    const el = doc.createElement(tag);
    for (const [name, value] of Object.entries(attrs)) {
      if (value == null || value === false) continue;
      if (name.startsWith('on')) el.addEventListener(name.slice(2), value);
      // CSSOM writes: a strict style-src allows them, but blocks a style attribute.
      else if (name === 'style') for (const [property, text] of Object.entries(value)) el.style.setProperty(property, text);
      else el.setAttribute(name, value === true ? '' : String(value));
    }
    for (const child of [].concat(children)) if (child != null && child !== false) el.append(child);
    return el;
  };
  const uid = `train-${Math.random().toString(36).slice(2, 8)}`;

  const state = {
    heads: HEAD_CHOICES.includes(heads) ? heads : 2,
    ready: null, // the 'ready' message
    progress: null, // the latest 'progress' message
    ablation: null,
    history: [], // [steps, held-out loss] of this run
    past: new Map(), // h → history of the last finished run with that h
    running: false,
    error: null,
  };

  // ---- the static frame ----
  const headRadios = HEAD_CHOICES.map((h) => {
    const input = node('input', { type: 'radio', name: `${uid}-heads`, value: h, checked: h === state.heads, onchange: () => setHeads(h) });
    return node('label', { class: 'h-choice' }, [input, `h = ${h}`]);
  });
  const startButton = node('button', { type: 'button', class: 'train-start', disabled: true, onclick: () => (state.running ? pause() : start()) }, [t.start]);
  const resetButton = node('button', { type: 'button', class: 'train-reset', disabled: true, onclick: () => reset() }, [t.reset]);
  const speedSelect = node('select', { id: `${uid}-speed`, onchange: (e) => host.send({ type: 'speed', stepsPerTick: Number(e.target.value) }) },
    Object.entries(t.speeds).map(([value, label]) => node('option', { value, selected: Number(value) === stepsPerTick }, [label])));
  const params = node('span', { class: 'muted train-params' });
  const status = node('p', { class: 'train-status', role: 'status', 'aria-live': 'polite' }, [t.loading]);
  const lossFigure = node('figure', { class: 'train-loss' }, [node('figcaption', {}, [t.lossTitle]), node('div', { class: 'fig-svg' })]);
  const headFigures = node('div', { class: 'train-figs train-heads' });
  const predictions = node('div', { class: 'train-predictions' });
  const ablationBox = node('div', { class: 'train-ablation' }, [node('p', { class: 'muted' }, [t.ablationWait])]);
  const errorLine = node('p', { class: 'train-error', role: 'alert', hidden: true });

  const root = node('div', { class: 'mha-train', 'data-state': 'loading' }, [
    heading ? node('h2', { id: `${uid}-title` }, [t.title]) : null,
    node('p', {}, [t.lead]),
    node('p', { class: 'muted' }, [t.oneHead]),
    node('div', { class: 'train-controls' }, [
      node('fieldset', {}, [node('legend', {}, [t.heads]), ...headRadios]),
      startButton,
      resetButton,
      node('label', { class: 'field', for: `${uid}-speed` }, [node('span', {}, [t.speed]), speedSelect]),
      params,
    ]),
    status,
    errorLine,
    node('div', { class: 'train-figs' }, [lossFigure]),
    headFigures,
    predictions,
    node('h3', {}, [t.ablation]),
    node('p', { class: 'muted' }, [t.ablationLead]),
    ablationBox,
  ]);
  // The stylesheet goes to the widget's shadow root, or to the page's document (the container may not
  // be in it yet); only a browser without constructed stylesheets gets a <style> element.
  const scope = container.getRootNode();
  if (!adoptStylesheet(scope.nodeType === 11 && 'host' in scope ? scope : doc, STYLE)) root.prepend(node('style', {}, [STYLE]));
  container.append(root);

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

  const host = startHost(onMessage, workerUrl);
  host.send({ type: 'init', heads: state.heads, seed, example: TRAIN_EXAMPLE, stepsPerTick, maxSteps });

  function archive() {
    if (state.history.length > 1) state.past.set(state.ready?.heads ?? state.heads, state.history.slice());
  }
  function start() {
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
  function setHeads(h) {
    if (!HEAD_CHOICES.includes(h)) return;
    archive();
    state.heads = h;
    state.running = false;
    state.progress = null;
    state.ablation = null;
    state.history = [];
    for (const label of headRadios) label.querySelector('input').checked = Number(label.querySelector('input').value) === h;
    host.send({ type: 'init', heads: h, seed, example: TRAIN_EXAMPLE, stepsPerTick, maxSteps });
    schedule();
  }

  // ---- drawing ----
  function render() {
    const p = state.progress;
    const r = state.ready;
    root.dataset.state = state.error ? 'error' : !p ? 'loading' : state.running ? 'running' : p.done ? 'done' : p.steps ? 'paused' : 'ready';
    root.dataset.steps = p ? String(p.steps) : '0';
    errorLine.hidden = !state.error;
    errorLine.textContent = state.error ? `${t.error}${state.error.code} — ${errorSentence(ERROR_TEXT[lang] ?? ERROR_TEXT.zh, state.error)}` : '';
    if (!p) status.textContent = state.error ? '' : t.loading; // not "starting…" forever when it cannot start
    startButton.disabled = !p;
    resetButton.disabled = !p;
    startButton.textContent = state.running ? t.pause : p?.steps && !p.done ? t.resume : t.start;
    if (r) params.textContent = t.params(r.paramCount, r.dK);
    if (!p || !r || p.attention.length !== state.heads) return;
    status.textContent = t.status(p);
    lossFigure.querySelector('.fig-svg').replaceChildren(lossCurve());
    drawHeads(p, r);
    drawPredictions(p, r);
    drawAblation();
  }

  function lossCurve() {
    const width = 420;
    const height = 220;
    const left = 46;
    const bottom = 30;
    const top = 26;
    const right = 12;
    const maxX = state.ready?.maxSteps ?? maxSteps;
    const lo = Math.log10(1e-3);
    const hi = Math.log10(5);
    const x = (s) => left + (s / maxX) * (width - left - right);
    const y = (loss) => top + ((hi - Math.log10(Math.min(5, Math.max(1e-3, loss)))) / (hi - lo)) * (height - top - bottom);
    const svg = doc.createElementNS(SVG_NS, 'svg');
    const set = (el, attrs) => {
      for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
      return el;
    };
    const add = (parent, tag, attrs, text) => {
      const el = set(doc.createElementNS(SVG_NS, tag), attrs);
      if (text != null) el.textContent = text;
      parent.appendChild(el);
      return el;
    };
    set(svg, { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': t.lossTitle, class: 'loss-curve' });
    add(svg, 'title', {}, t.lossTitle);
    for (const v of [1e-3, 1e-2, 1e-1, 1]) {
      add(svg, 'line', { x1: left, x2: width - right, y1: y(v), y2: y(v), stroke: '#e3e3e8' });
      add(svg, 'text', { x: left - 6, y: y(v) + 4, 'text-anchor': 'end', 'font-size': 11, fill: '#5b5b63' }, String(v));
    }
    add(svg, 'line', { x1: left, x2: width - right, y1: height - bottom, y2: height - bottom, stroke: '#999' });
    for (let s = 0; s <= maxX; s += maxX / 5) {
      add(svg, 'text', { x: x(s), y: height - bottom + 16, 'text-anchor': 'middle', 'font-size': 11, fill: '#5b5b63' }, String(Math.round(s)));
    }
    add(svg, 'text', { x: width - right, y: height - 2, 'text-anchor': 'end', 'font-size': 11, fill: '#5b5b63' }, t.stepsAxis);
    add(svg, 'text', { x: 4, y: 14, 'font-size': 11, fill: '#5b5b63' }, t.lossAxis);
    const path = (points) => points.map(([s, l], i) => `${i ? 'L' : 'M'}${x(s).toFixed(1)},${y(l).toFixed(1)}`).join('');
    const colors = { 1: '#D55E00', 2: '#0072B2', 4: '#009E73' };
    let legendY = top - 10;
    const legend = (label, color, dashed) => {
      add(svg, 'line', { x1: width - 150, x2: width - 130, y1: legendY, y2: legendY, stroke: color, 'stroke-width': 2, 'stroke-dasharray': dashed ? '4 3' : 'none' });
      add(svg, 'text', { x: width - 126, y: legendY + 4, 'font-size': 11, fill: '#333' }, label);
      legendY += 14;
    };
    for (const [h, points] of state.past) {
      if (h === state.heads && state.history.length > 1) continue;
      add(svg, 'path', { d: path(points), fill: 'none', stroke: colors[h], 'stroke-width': 1.5, 'stroke-dasharray': '4 3', opacity: 0.7, 'data-heads': h, class: 'past' });
      legend(t.past(h), colors[h], true);
    }
    if (state.history.length) {
      add(svg, 'path', { d: path(state.history), fill: 'none', stroke: colors[state.heads], 'stroke-width': 2.2, 'data-heads': state.heads, class: 'current' });
      legend(t.current(state.heads), colors[state.heads], false);
    }
    return svg;
  }

  function drawHeads(p, r) {
    const L = r.seqLen;
    const labels = r.example.map((id) => words[id]);
    const cell = state.heads === 4 ? 34 : 36;
    headFigures.replaceChildren(...p.attention.map((a, i) => {
      const view = headViews(a, L);
      const name = viewName(view);
      const svg = heatmap(doc, { values: a, rows: L, cols: L, rowLabels: labels, colLabels: labels, cell, digits: 2, showNumbers: state.heads < 4, title: t.heatmapTitle(i, labels), rowHeader: t.query, colHeader: t.key, accent: headColor(i) });
      return node('figure', { class: 'train-head', 'data-head': i, 'data-view': name, 'data-previous': view.previous.toFixed(4), 'data-first': view.first.toFixed(4) }, [
        node('figcaption', {}, [node('span', { class: 'swatch', style: { background: headColor(i) }, 'aria-hidden': 'true' }), node('strong', {}, [t.head(i)]), ` · ${t.views[name]}`]),
        svg,
        node('div', { class: 'head-view muted' }, [t.viewShare(view)]),
        tableFor(doc, { values: a, rows: L, cols: L, rowLabels: labels, colLabels: labels, caption: t.heatmapTitle(i, labels) }),
      ]);
    }));
  }

  function drawPredictions(p, r) {
    const ex = r.example;
    const mark = (got, want) => node('td', { class: got === want ? 'right' : 'wrong' }, [`${words[got]} ${got === want ? '✓' : '✗'}`]);
    const rows = ex.map((id, i) => node('tr', {}, [
      node('td', {}, [String(i)]),
      node('td', {}, [words[id]]),
      mark(p.predict.previous[i], ex[Math.max(i - 1, 0)]),
      mark(p.predict.first[i], ex[0]),
    ]));
    predictions.replaceChildren(
      node('table', { class: 'train-table' }, [
        node('caption', { class: 'muted' }, [t.predictions]),
        node('thead', {}, [node('tr', {}, [t.position, t.token, t.predPrev, t.predFirst].map((h) => node('th', { scope: 'col' }, [h])))]),
        node('tbody', {}, rows),
      ]),
    );
  }

  function drawAblation() {
    const a = state.ablation;
    if (!a || a.off.length !== state.heads) {
      ablationBox.replaceChildren(node('p', { class: 'muted' }, [t.ablationWait]));
      return;
    }
    const maxLoss = Math.max(a.all.loss, ...a.off.map((e) => e.loss), 1e-6);
    const row = (label, e, cls) => node('tr', { class: cls }, [
      node('th', { scope: 'row' }, [label]),
      node('td', {}, [fmt(e.loss, 3), node('span', { class: 'bar', style: { width: `${Math.max(1, Math.round((e.loss / maxLoss) * 120))}px` }, 'aria-hidden': 'true' })]),
      node('td', {}, [pct(e.accuracy)]),
      node('td', {}, [pct(e.previous.accuracy)]),
      node('td', {}, [pct(e.first.accuracy)]),
    ]);
    ablationBox.replaceChildren(node('table', { class: 'train-table', 'data-steps': a.steps }, [
      node('thead', {}, [node('tr', {}, ['', t.loss, t.accuracy, t.prevAcc, t.firstAcc].map((h) => node('th', { scope: 'col' }, [h])))]),
      node('tbody', {}, [row(t.allOn, a.all, 'all-on'), ...a.off.map((e, i) => row(t.without(i), e, `head-off head-${i}`))]),
    ]));
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
    /** The latest numbers the section shows (copies are not needed: they came by message). */
    snapshot() {
      const p = state.progress;
      return {
        heads: state.heads,
        running: state.running,
        steps: p?.steps ?? 0,
        loss: p?.loss ?? NaN,
        eval: p?.eval ?? null,
        attention: p ? p.attention.map((a) => Array.from(a)) : [],
        seqLen: state.ready?.seqLen ?? 0,
        history: state.history.slice(),
        ablation: state.ablation,
        error: state.error,
      };
    },
    dispose() {
      host.close();
      root.remove();
    },
  };
}
