import { h, vdoc, fill, show } from '../../ui/dom.js';
import { checkbox } from '../../ui/controls.js';
import { section, figure, range } from '../../ui/section.js';
import { matrixView, heatmap } from '../../draw/index.js';

/**
 * §8's figures, a pure view (virtual nodes) of two runs of the hand example: `current` with the heads in `off`
 * switched off and `allOn`: the concat (the heads off greyed), both outputs, and their difference.
 */
export function ablationFigures(t, { current, allOn, off }) {
  const { L, dModel, dK, tokens } = current;
  const dims = range(dModel).map(String);
  const diff = current.output.map((value, i) => value - allOn.output[i]);
  const rows = { rows: L, cols: dModel, rowLabels: tokens, colLabels: dims };
  return [
    figure({ id: 'ablation-concat', caption: 'Concat', svg: matrixView(vdoc, { values: current.concat, ...rows, headOf: (c) => Math.floor(c / dK), disabledHeads: off, title: 'Concat', cell: 40 }), table: { values: current.concat, ...rows } }),
    figure({ caption: t.allOn, svg: matrixView(vdoc, { values: allOn.output, ...rows, fill: 'signed', title: t.allOn, cell: 40 }), table: { values: allOn.output, ...rows } }),
    figure({ caption: t.current, svg: matrixView(vdoc, { values: current.output, ...rows, fill: 'signed', title: t.current, cell: 40 }), table: { values: current.output, ...rows } }),
    figure({ id: 'ablation-diff', caption: t.diff, svg: heatmap(vdoc, { values: diff, ...rows, scale: 'signed', title: t.diff, cell: 40 }), table: { values: diff, ...rows } }),
  ];
}

/** §8: head ablation — switch heads off and compare the output with every head on. */
export function ablationSection(ctx, frame) {
  const t = ctx.text.ablation;
  const toggles = h('div', { class: 'controls', id: 'ablation-toggles' });
  const figures = h('div', { class: 'fig-row' });
  const note = h('p', { class: 'muted', 'aria-live': 'polite' });
  const node = section(frame.id, frame.title, [
    h('p', {}, [t.lead]),
    toggles,
    note,
    figures,
    h('p', { class: 'note' }, [t.paper, ' ', h('a', { href: 'https://arxiv.org/abs/1905.10650', rel: 'noopener' }, ['arXiv:1905.10650'])]),
  ]);
  return {
    node,
    reads: ['hand', 'structure'],
    update() {
      const { heads, off } = ctx.state.hand;
      if (toggles.dataset.heads !== String(heads) || toggles.dataset.off !== off.join()) {
        toggles.dataset.heads = String(heads);
        toggles.dataset.off = off.join();
        fill(toggles, range(heads).map((head) => checkbox({
          label: t.toggle(head),
          checked: !off.includes(head),
          id: `ablate-${head}`,
          onChange: (on) => ctx.set((s) => { s.hand.off = on ? s.hand.off.filter((x) => x !== head) : [...s.hand.off, head].sort(); }),
        })));
      }
      const current = ctx.hand;
      const allOn = ctx.handAllOn;
      if (!current || !allOn) return;
      note.textContent = off.length ? '' : t.noChange;
      show(figures, ablationFigures(t, { current, allOn, off }));
    },
  };
}
