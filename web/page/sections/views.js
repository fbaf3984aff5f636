import { h, vdoc, fill, show, keyBy } from '../../ui/dom.js';
import { checkbox, numberField, uniqueId } from '../../ui/controls.js';
import { section, figure, errorBox, grouped } from '../../ui/section.js';
import { lineView, headGrid, headKey, legend, headColor } from '../../draw/index.js';
import { headDash } from '../../draw/color.js';
import { wideScreen } from '../../pipeline/section.js';
import { BIG_MAX_D_MODEL, WEIGHT_SCALE } from '../state.js';
import { SEED_MAX } from '../../shared/lesson.js';
import { drawnHeadCount, headRun, headRunNote } from '../../ui/drawn-heads.js';
import { handEntryName } from '../../hand/strings.js';

/** The views' pickers as first chosen: nothing focused or hidden, the first heads drawn, no head picked. */
export const initialViewPicks = () => ({ focus: null, hidden: [], first: null, picked: null, previewed: null });

const shapeOf = ({ heads, L }) => `${heads}/${L}`;

/**
 * The pickers' choices as they apply to `result`: a run of heads chosen for another shape starts over at
 * head 0, and a focused word or hidden head the model no longer has counts for nothing. With them, the heads
 * drawn (`shownHeads`, a run of at most drawnHeadCount) and those whose lines show (`visibleHeads`).
 */
export function viewsPicks(picks, result) {
  const firstHead = picks.first?.shape === shapeOf(result) ? picks.first.head : 0;
  const hidden = picks.hidden.filter((head) => head < result.heads);
  const shownHeads = headRun(result.heads, drawnHeadCount(result.L), firstHead);
  const solo = [picks.previewed, picks.picked].find((head) => head !== null && shownHeads.includes(head)) ?? null;
  return {
    firstHead,
    hidden,
    pickedHead: picks.picked,
    focus: picks.focus !== null && picks.focus < result.L ? picks.focus : null,
    shownHeads,
    visibleHeads: solo !== null ? [solo] : shownHeads.filter((head) => !hidden.includes(head)),
  };
}

/**
 * §7's two figures, a pure view (virtual nodes) of a run `result` (the hand example's or a random model's) as
 * viewsPicks reads the pickers: the lines of the visible heads and the grid of the heads drawn, `width` wide,
 * with its key and the weights' legend (titled `weightLegend`).
 */
export function viewsFigures(t, result, { firstHead, shownHeads, visibleHeads, focus }, { width, weightLegend }) {
  const lines = figure({
    id: 'lines-figure',
    caption: t.lines,
    // Lines matched by head and words: one that comes or goes with the weights leaves the others be.
    svg: keyBy(lineView(vdoc, { tokens: result.tokens, attention: result.attention, visibleHeads, focus, title: t.linesTitle, queryLabel: t.query, keyLabel: t.key, rowGap: result.L > 12 ? 24 : 32 }), ['data-head', 'data-from', 'data-to']),
  });
  const grid = figure({
    id: 'grid-figure',
    caption: t.grid,
    svg: headGrid(vdoc, { tokens: result.tokens, attention: result.attention, enabled: result.enabled, first: firstHead, count: shownHeads.length, title: t.gridTitle, width }),
  });
  grid.append(
    headKey(vdoc, { heads: shownHeads.length, first: firstHead, title: t.showHeads }),
    legend(vdoc, { scale: 'weights', id: 'views-weights', title: weightLegend }),
  );
  return { lines, grid };
}

/** §7: the BertViz-style line view and the all-heads grid, for the hand example or a larger random model. */
export function viewsSection(ctx, frame) {
  const t = ctx.text.views;
  const bigControls = h('div', { class: 'controls big-controls' });
  const status = h('div');
  const capped = h('div', { class: 'controls', id: 'views-capped' });
  const headToggles = h('fieldset', { class: 'choice', id: 'views-head-toggles' });
  // The pickers' choices live in ctx.ui.views (UI-only state): every change goes through ctx.setUi.
  const pick = (mutate) => ctx.setUi((ui) => mutate(ui.views));
  const focusSelect = h('select', { id: 'focus-token', onchange: (e) => pick((v) => (v.focus = e.target.value === '' ? null : Number(e.target.value))) });
  // Clicking a word on the left of the line view keeps only its lines (again: all of them).
  const linesBox = h('div', { id: 'lines-view', onclick: (event) => {
    const token = event.target.closest?.('.query-token');
    if (!token) return;
    const index = Number(token.dataset.index);
    pick((v) => (v.focus = v.focus === index ? null : index));
  } });
  const gridBox = h('div', { id: 'grid-view' });
  // One head's lines alone, as in BertViz: a pointer over (or keyboard focus on) a head's button
  // previews it, a click or tap keeps it until clicked again.
  const headPick = h('fieldset', { class: 'choice head-pick', id: 'views-head-pick' });
  let drawnResult = null;

  const sourceChoice = h('fieldset', { class: 'choice' }, [
    h('legend', {}, [t.source]),
    ...[['hand', t.sourceHand], ['big', t.sourceBig]].map(([value, label]) => {
      const id = uniqueId('source');
      return h('label', { for: id }, [
        h('input', { type: 'radio', name: 'views-source', id, value, checked: ctx.state.views.source === value, onchange: () => ctx.set((s) => (s.views.source = value)) }),
        ` ${label}`,
      ]);
    }),
  ]);

  function buildBigControls() {
    const views = ctx.state.views;
    if (views.source !== 'big') return fill(bigControls, []);
    const scaleLabel = h('span', {}, [t.weightScale(views.weightScale)]);
    const scaleId = uniqueId('wscale');
    fill(bigControls, [
      h('p', { class: 'muted' }, [t.bigNote]),
      numberField({ label: t.dModel, value: views.dModel, min: 1, max: BIG_MAX_D_MODEL, id: 'views-dmodel', notANumber: ctx.text.notANumber, onInput: (v) => ctx.set((s) => (s.views.dModel = v)) }),
      numberField({ label: t.heads, value: views.heads, min: 1, max: BIG_MAX_D_MODEL, id: 'views-heads', notANumber: ctx.text.notANumber, onInput: (v) => ctx.set((s) => (s.views.heads = v)) }),
      numberField({ label: t.seed, value: views.seed, min: 0, max: SEED_MAX, id: 'views-seed', notANumber: ctx.text.notANumber, onInput: (v) => ctx.set((s) => (s.views.seed = v)) }),
      h('label', { class: 'field wide', for: 'views-sentence' }, [
        h('span', {}, [t.sentence]),
        h('input', { type: 'text', id: 'views-sentence', value: ctx.sentence(), oninput: (e) => ctx.set((s) => (s.views.sentence = e.target.value)) }),
      ]),
      h('label', { class: 'field wide', for: scaleId }, [
        scaleLabel,
        h('input', { type: 'range', id: scaleId, 'data-role': 'weight-scale', ...WEIGHT_SCALE, value: views.weightScale, oninput: (e) => {
          const value = Number(e.target.value);
          scaleLabel.textContent = t.weightScale(value);
          ctx.set((s) => (s.views.weightScale = value));
        } }),
      ]),
      checkbox({ label: t.causal, checked: views.causal, id: 'views-mask', onChange: (on) => ctx.set((s) => (s.views.causal = on)) }),
    ]);
  }

  /** The note saying how many heads are drawn, with buttons to move along them, when there are too many. */
  function buildCapped({ heads, L }, shownHeads) {
    const count = drawnHeadCount(L);
    fill(capped, headRunNote(document, {
      heads, shown: shownHeads, count, words: t.drawnHeads,
      note: (from, to) => t.drawnHeads.note(heads, L, count, from, to),
      onMove: (start) => pick((v) => (v.first = { shape: shapeOf({ heads, L }), head: start })),
      ids: { back: 'views-heads-back', next: 'views-heads-next' },
    }) ?? []);
  }

  function buildPickers(result, shownHeads, { firstHead, hidden, pickedHead, focus }) {
    const key = `${result.heads}/${firstHead}/${shownHeads.length}/${result.tokens.join('\u0001')}`;
    if (headToggles.dataset.key === key) return;
    headToggles.dataset.key = key;
    buildCapped(result, shownHeads);
    fill(headToggles, [
      h('legend', {}, [t.showHeads]),
      ...shownHeads.map((head) => checkbox({ label: `h${head + 1}`, checked: !hidden.includes(head), onChange: (on) => pick((v) => (v.hidden = on ? v.hidden.filter((n) => n !== head) : [...v.hidden, head])) })),
    ]);
    const preview = (head) => pick((v) => (v.previewed = head));
    fill(headPick, [
      h('legend', {}, [t.oneHead]),
      ...[null, ...shownHeads].map((head) => h('button', {
        type: 'button',
        'data-head': head ?? '',
        'aria-pressed': String(pickedHead === head),
        onclick: () => {
          const picked = head !== null && ctx.ui.views.picked === head ? null : head;
          headPick.querySelectorAll('button').forEach((b) => b.setAttribute('aria-pressed', String(b.dataset.head === String(picked ?? ''))));
          pick((v) => Object.assign(v, { picked, previewed: null }));
        },
        // Touch and clicks also fire these, so only a mouse pointer or keyboard focus previews.
        onpointerenter: (e) => e.pointerType === 'mouse' && preview(head),
        onpointerleave: (e) => e.pointerType === 'mouse' && preview(null),
        onfocus: (e) => e.target.matches(':focus-visible') && preview(head),
        onblur: () => preview(null),
      }, head === null ? [t.allHeads] : [h('span', { class: `swatch${headDash(head) ? ' dashed' : ''}`, style: `--head:${headColor(head)}`, 'aria-hidden': 'true' }), `h${head + 1}`])),
    ]);
    fill(focusSelect, [
      h('option', { value: '', selected: focus === null }, [t.focusAll]),
      ...result.tokens.map((token, i) => h('option', { value: i, selected: focus === i }, [`${i + 1}. ${token}`])),
    ]);
  }

  /** While a big model's random numbers are drawn: how far along, over the last figures (faded). */
  function drawingStatus({ drawn, total }) {
    return h('p', { class: 'muted', id: 'views-drawing' }, [
      t.drawing(grouped(total)),
      ' ',
      h('progress', { max: total, value: drawn, 'aria-label': t.drawing(grouped(total)) }),
    ]);
  }

  const node = section(frame.id, frame.title, [
    h('p', {}, [t.lead]),
    h('div', { class: 'controls' }, [sourceChoice]),
    bigControls,
    status,
    capped,
    h('div', { class: 'controls' }, [headToggles, h('label', { class: 'field', for: 'focus-token' }, [h('span', {}, [t.focus]), focusSelect])]),
    headPick,
    h('div', { class: 'views-layout' }, [linesBox, gridBox]),
  ]);
  buildBigControls();

  return {
    node,
    reads: ['views', 'views-structure', 'views-picks', 'hand', 'resize'],
    update(areas) {
      if (areas.has('views-structure')) buildBigControls();
      // The hand example's entries are named as §3 names them.
      const named = ctx.state.views.source === 'hand' ? { cellName: handEntryName(ctx.text.hand, ctx.state.hand.tokens) } : undefined;
      const notice = ctx.viewsError ? errorBox(ctx.text, ctx.viewsError, named) : ctx.viewsDrawing ? drawingStatus(ctx.viewsDrawing) : null;
      fill(status, notice);
      const result = ctx.views;
      node.classList.toggle('stale', Boolean(notice));
      if (!result) return;
      // While numbers are still being drawn, the last figures stay as they are.
      if (result === drawnResult && !areas.has('views-picks') && !areas.has('resize')) return;
      drawnResult = result;
      const picks = viewsPicks(ctx.ui.views, result);
      buildPickers(result, picks.shownHeads, picks);
      const { lines, grid } = viewsFigures(t, result, picks, { width: wideScreen() ? 600 : Math.max(240, window.innerWidth - 56), weightLegend: ctx.text.hand.weightLegend });
      show(linesBox, lines);
      show(gridBox, grid);
    },
  };
}
