// The `editable` panel: a head-count menu, mask and scale switches, and one labelled, keyboard-operable
// slider per q/k/v entry. Built once per shape and updated in place afterwards, so a slider being
// dragged keeps its focus while the figures above it are redrawn.
import { formatNumber } from '../draw/index.js';
import { STRINGS, divisors } from './strings.js';
import { hFor } from '../ui/dom.js';
import { holdTouchUntilSideways } from '../ui/touch.js';

const MATRICES = ['q', 'k', 'v'];
const STEP = 0.1;
/** Above this many entries per matrix (L × d) the panel keeps its switches but drops the sliders. */
export const MAX_SLIDER_ENTRIES = 160;
const DENSE_AFTER_COLUMNS = 8;

/** Slider bounds for a matrix: at least −2…2, widened to whole numbers around the given values. */
function bounds(rows) {
  const values = rows.flat();
  return [Math.min(-2, Math.floor(Math.min(...values))), Math.max(2, Math.ceil(Math.max(...values)))];
}

/** The head counts the menu offers: divisors of d_model that kv-heads divides too, as the core takes no other. */
export function headChoices(d, kvHeads) {
  return divisors(d).filter((n) => !kvHeads || n % kvHeads === 0);
}

/** What forces a rebuild rather than an in-place update. */
export function controlsKey(state) {
  return JSON.stringify([state.lang, state.labels, state.d, state.kvHeads, MATRICES.map((name) => bounds(state[name]))]);
}

/**
 * Builds the panel for `state`. on: { matrix(name, row, col, value), heads(n), causal(bool), scale(bool) }.
 * Returns { element, key, update(state) }.
 */
export function buildControls(doc, state, on) {
  const t = STRINGS[state.lang];
  const h = hFor(doc);
  const panel = h('div', { class: 'controls', part: 'controls' });

  const switches = h('div', { class: 'switches' });
  const headsLabel = h('label', {}, [t.headsLabel]);
  const select = doc.createElement('select');
  for (const n of headChoices(state.d, state.kvHeads)) {
    const option = h('option', {}, [`${n}(d_k = ${state.d / n})`]);
    option.value = String(n);
    select.append(option);
  }
  select.addEventListener('change', () => on.heads(Number(select.value)));
  headsLabel.append(select);

  const toggle = (text, handler) => {
    const label = h('label', {});
    const box = doc.createElement('input');
    box.type = 'checkbox';
    box.addEventListener('change', () => handler(box.checked));
    label.append(box, doc.createTextNode(text));
    return { label, box };
  };
  const causal = toggle(t.causalLabel, on.causal);
  const scale = toggle(t.scaleLabel, on.scale);
  switches.append(headsLabel, causal.label, scale.label);
  panel.append(switches);

  const sliders = { q: [], k: [], v: [] };
  const dimHeads = [];
  const withSliders = state.L * state.d <= MAX_SLIDER_ENTRIES;
  if (!withSliders) panel.append(h('p', { class: 'note' }, [t.tooManySliders(state.L, state.d, MAX_SLIDER_ENTRIES)]));
  for (const name of withSliders ? MATRICES : []) {
    const [lo, hi] = bounds(state[name]);
    const fieldset = doc.createElement('fieldset');
    fieldset.dataset.matrix = name;
    fieldset.append(h('legend', {}, [t.slidersLegend(name)]));
    // Over 8 columns each value goes under its slider, and a grid still too wide for the widget scrolls
    // sideways rather than squeezing its sliders to nothing.
    const grid = h('div', { class: state.d > DENSE_AFTER_COLUMNS ? 'grid dense' : 'grid' });
    grid.style.setProperty('--cols', String(state.d)); // CSSOM, allowed under a strict style-src
    grid.append(h('span', {}));
    for (let c = 0; c < state.d; c++) {
      const head = h('span', { class: 'dimhead' }, [c]);
      head.setAttribute('aria-hidden', 'true');
      dimHeads.push([head, c]);
      grid.append(head);
    }
    sliders[name] = state.labels.map((token, r) => {
      grid.append(h('span', { class: 'token' }, [token]));
      return Array.from({ length: state.d }, (_, c) => {
        const wrap = h('span', { class: 'slider' });
        const input = doc.createElement('input');
        input.type = 'range';
        input.min = String(lo);
        input.max = String(hi);
        input.step = String(STEP);
        input.dataset.row = String(r);
        input.dataset.col = String(c);
        holdTouchUntilSideways(input); // a vertical swipe over the grid scrolls and edits nothing
        const output = doc.createElement('output');
        output.setAttribute('aria-hidden', 'true');
        input.addEventListener('input', () => {
          const value = Math.round(Number(input.value) * 1000) / 1000;
          output.textContent = formatNumber(value, 1);
          on.matrix(name, r, c, value);
        });
        wrap.append(input, output);
        grid.append(wrap);
        return { input, output, wrap, token, c };
      });
    });
    fieldset.append(grid);
    panel.append(fieldset);
  }

  const update = (next) => {
    const dK = next.d / next.heads;
    for (const option of select.options ?? select.querySelectorAll('option')) option.selected = option.value === String(next.heads);
    causal.box.checked = next.causal;
    scale.box.checked = next.scale;
    for (const [head, c] of dimHeads) head.className = `dimhead h${Math.floor(c / dK) % 8}`;
    for (const name of MATRICES) {
      sliders[name].forEach((row, r) => row.forEach(({ input, output, wrap, token, c }) => {
        const head = Math.floor(c / dK);
        wrap.className = `slider h${head % 8}`;
        input.setAttribute('aria-label', t.sliderLabel(name, token, c, head));
        const value = next[name][r][c];
        if (Number(input.value) !== value) input.value = String(value);
        output.textContent = formatNumber(value, Number.isInteger(value * 10) ? 1 : 2);
      }));
    }
  };
  update(state);
  return { element: panel, key: controlsKey(state), update };
}
