import { h, vdoc, show, findAll } from '../ui/dom.js';
import { section } from '../ui/section.js';
import { pipeline, PROJECTOR_SIZES } from '../draw/index.js';
import { cellExplorer } from '../ui/explore.js';
import { explainCell, explanationText, cellTitle } from '../shared/explain.js';
import { EXPLAIN_WORDS } from '../shared/figure-labels.js';

const reducedMotion = () => window.matchMedia('(prefers-reduced-motion: reduce)').matches;

/** The main pipeline lies flat on wide screens; read from the window, so drawing forces no layout. */
export const wideScreen = () => window.innerWidth >= 700;

/**
 * The pipeline figure, a pure function of the hand example's core run `result` and its Wᴼ (`wo`, rows), drawn
 * with `doc` (vdoc on the page, the real document for export): every stage lit up to `step`, the parts in
 * `highlight` lit alone, in the figure's words `labels`; `sizes`, the projector's in lesson mode.
 */
export function pipelineFigure(doc, result, { wo, labels, step = 0, highlight = [], title, orientation = 'horizontal', sizes }) {
  return pipeline(doc, {
    ...result, // the forward's snapshot, as the widget's pipeline draws it
    wo: wo.flat(),
    step,
    highlight,
    orientation,
    sizes,
    labels,
    title,
  });
}

/** §4's words for `step`: the caption under the player and its counter. */
export const stepWords = (t, step) => ({ caption: t.captions[step], counter: step === 0 ? t.overview : t.stepOf(step) });

/**
 * §4's figure as the page shows it (virtual nodes, rule 5 of ../ui/README.md): pipelineFigure in §4's words `t`,
 * `enter` marking the lit stage so that it fades in (the step just changed).
 */
export function pipelineView(t, result, { wo, step = 0, highlight = [], title = t.figureTitle, orientation, sizes, enter = false }) {
  const svg = pipelineFigure(vdoc, result, { wo, labels: t.labels, step, highlight, title, orientation, sizes });
  if (enter) {
    for (const stage of findAll(svg, (n) => /\bactive\b/.test(n.attrs.class ?? ''))) stage.attrs.class += ' enter';
  }
  return svg;
}

/** The page's orientation and sizes for the pipeline: flat on a wide screen, at the projector's sizes in lesson mode. */
function layout(ctx, orientation = wideScreen() ? 'horizontal' : 'vertical') {
  return { orientation, sizes: ctx.state.present && orientation === 'horizontal' ? PROJECTOR_SIZES : undefined };
}

/** The pipeline SVG of the page's hand example, drawn with `doc` (the real document for export). */
export function pipelineSvg(ctx, doc, { step = 0, highlight = [], title, orientation }) {
  return pipelineFigure(doc, ctx.hand, { wo: ctx.state.hand.wo, labels: ctx.text.pipeline.labels, step, highlight, title, ...layout(ctx, orientation) });
}

/** Draws the page's pipeline into `box`; `enter` marks the lit stage so it fades in (the step just changed). */
export function drawPipeline(ctx, box, { enter = false, step = 0, highlight = [], title }) {
  if (!ctx.hand) return;
  show(box, pipelineView(ctx.text.pipeline, ctx.hand, { wo: ctx.state.hand.wo, step, highlight, title, enter, ...layout(ctx) }));
}

// The pipeline's matrices as explain.js names them, and back.
const PIPELINE_FIGURE_OF = { q: 'q', k: 'k', v: 'v', s: 'scores', a: 'weights', head: 'head', concat: 'concat', wo: 'wo', output: 'output' };
const PIPELINE_MATRIX_OF = Object.fromEntries(Object.entries(PIPELINE_FIGURE_OF).map(([matrix, figure]) => [figure, matrix]));
const PIPELINE_STAGE_OF = {
  q: (head) => (head === null ? '[data-part="input"]' : `[data-part="split"][data-head="${head}"]`),
  scores: (head) => `[data-part="scores"][data-head="${head}"]`,
  weights: (head) => `[data-part="weights"][data-head="${head}"]`,
  head: (head) => `[data-part="heads"][data-head="${head}"]`,
  concat: () => '[data-part="concat"]',
  wo: () => '[data-part="wo"]',
  output: () => '[data-part="output"]',
};
PIPELINE_STAGE_OF.k = PIPELINE_STAGE_OF.v = PIPELINE_STAGE_OF.q;

/** The cell of explain.js a pipeline rect shows. */
function pipelineCell(rect) {
  const head = rect.closest('g.stage').dataset.head;
  return { figure: PIPELINE_FIGURE_OF[rect.closest('g[data-matrix]').dataset.matrix], head: head === undefined ? null : Number(head), row: Number(rect.dataset.row), col: Number(rect.dataset.col) };
}

/** §4: the pipeline figure and its 8-step animation (play, pause, step back and forward, captions). */
export function pipelineSection(ctx, frame) {
  const t = ctx.text.pipeline;
  const box = h('div', { class: 'pipeline-box explorable', id: 'pipeline' });
  const caption = h('p', { class: 'step-caption', id: 'step-caption', 'aria-live': 'polite' });
  const counter = h('span', { class: 'step-counter', id: 'step-counter' });
  let timer = null;

  const goTo = (step) => ctx.set((s) => (s.step = Math.max(0, Math.min(8, step))));
  const stop = () => {
    clearInterval(timer);
    timer = null;
    playButton.textContent = `▶ ${t.play}`;
    playButton.setAttribute('aria-pressed', 'false');
  };
  const play = () => {
    if (timer) return stop();
    if (ctx.state.step >= 8) goTo(0);
    playButton.textContent = `⏸ ${t.pause}`;
    playButton.setAttribute('aria-pressed', 'true');
    // Reduced motion: no fades (see the stylesheet) and a slower pace, so each step can be read.
    timer = setInterval(() => {
      if (ctx.state.step >= 8) return stop();
      goTo(ctx.state.step + 1);
    }, reducedMotion() ? 3500 : 1600);
    goTo(ctx.state.step + 1);
  };
  const playButton = h('button', { type: 'button', id: 'step-play', 'aria-pressed': 'false', onclick: play }, [`▶ ${t.play}`]);
  const backButton = h('button', { type: 'button', id: 'step-back', onclick: () => { stop(); goTo(ctx.state.step - 1); } }, [`◀ ${t.back}`]);
  const forwardButton = h('button', { type: 'button', id: 'step-forward', onclick: () => { stop(); goTo(ctx.state.step + 1); } }, [`${t.forward} ▶`]);

  const node = section(frame.id, frame.title, [
    h('p', {}, [t.lead]),
    // The lesson's caveat: hand-picked numbers; heads get their roles only from training (§9 shows it).
    h('p', { class: 'note', id: 'pipeline-caveat' }, [`${t.caveat} `, h('a', { href: '#train-section' }, [ctx.text.sections.train])]),
    h('p', { class: 'lesson-mode-note', id: 'pipeline-caveat-short' }, [`${t.caveatShort} `, h('a', { href: '#train-section' }, [ctx.text.sections.train])]),
    h('div', { class: 'player', role: 'group', 'aria-label': t.figureTitle }, [
      backButton,
      playButton,
      forwardButton,
      counter,
    ]),
    caption,
    h('p', { class: 'muted', id: 'pipeline-explain-hint' }, [ctx.text.explain.pipelineHint]),
    box, // the figure carries its own colour key, so an export has it too
  ]);
  const explorer = cellExplorer(box, {
    cellSelector: 'rect[data-row]',
    groups: () => [...box.querySelectorAll('svg.mha-pipeline')],
    blocksOf: (group) => [...group.querySelectorAll('g[data-matrix]')],
    describe: pipelineCell,
    label: (cell, shown) => EXPLAIN_WORDS[ctx.lang].withValue(cellTitle(ctx.hand, cell, { tokens: ctx.hand.tokens, words: EXPLAIN_WORDS[ctx.lang] }), shown),
    // A cell's name holds the words, d_k (its dimension) and whether the scores are scaled.
    labelKey: () => `${ctx.hand.tokens.join('\u0001')}/${ctx.hand.dK}/${ctx.hand.scaled}`,
    explain: (cell) => {
      if (!ctx.hand || ctx.handError) return null;
      const explanation = explainCell(ctx.hand, cell);
      return { ...explanationText(explanation, { tokens: ctx.hand.tokens, words: EXPLAIN_WORDS[ctx.lang] }), sources: explanation.sources };
    },
    find: ({ figure, head, row, col }) => {
      const stage = PIPELINE_STAGE_OF[figure]?.(head);
      return stage ? box.querySelectorAll(`g.stage${stage} g[data-matrix="${PIPELINE_MATRIX_OF[figure]}"] rect[data-row="${row}"][data-col="${col}"]`) : [];
    },
  });
  return {
    node,
    reads: ['hand', 'step', 'resize', 'present'],
    update(areas) {
      const step = ctx.state.step;
      drawPipeline(ctx, box, { step, title: t.figureTitle, enter: areas.has('step') && !areas.has('hand') && !reducedMotion() });
      const words = stepWords(t, step);
      caption.textContent = words.caption;
      counter.textContent = words.counter;
      // At the ends a step button has nowhere to go; the keyboard's focus moves to the one that has.
      const focused = document.activeElement;
      backButton.disabled = step === 0;
      forwardButton.disabled = step === 8;
      if (focused?.disabled) (focused === backButton ? forwardButton : backButton).focus();
      node.dataset.step = String(step);
      if (ctx.hand) explorer.refresh();
    },
    dispose: stop,
  };
}
