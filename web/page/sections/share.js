import { h, fill } from '../../ui/dom.js';
import { download, svgBlob, pngBlob } from '../../ui/controls.js';
import { section, errorBox, range } from '../../ui/section.js';
import { shareLink, linkClips } from '../state.js';
import { pipelineSvg } from '../../pipeline/section.js';
import { heatmap, compose, legend } from '../../draw/index.js';

/**
 * What §12 shows of `state` (rule 5 of ../../ui/README.md): the link that opens it (built from the state, on the
 * page's address `pageHref`, without a #section), and the sentence saying what it leaves out of a long text, in
 * §12's words `t`.
 */
export function shareFacts(t, state, pageHref) {
  return { link: shareLink(state, pageHref), leftOut: linkClips(state).map(({ path, kept }) => t.leftOut[path](kept)).join(' ') };
}

/**
 * The heatmaps export: each head's weights of the hand example's core run `result`, side by side, over their key,
 * drawn with `doc` (the page's document for a download, linkedom's in a test) in the page's words `text`.
 */
export function heatmapsFigure(doc, text, result) {
  const title = text.share.heatmapsTitle;
  const parts = range(result.heads).map((head) => heatmap(doc, {
    values: result.attention[head], rows: result.L, cols: result.L, rowLabels: result.tokens, colLabels: result.tokens, title: text.hand.headTitle(head), colHeader: text.hand.headTitle(head),
  }));
  const row = compose(doc, { parts, title });
  const key = legend(doc, { scale: 'weights', title: text.hand.weightLegend, steps: 40 });
  return compose(doc, { parts: [row, key], direction: 'column', gap: 4, title, caption: title });
}

/** §12: the shareable link (the whole state is in the URL) and SVG/PNG export of the figures. */
export function shareSection(ctx, frame) {
  const t = ctx.text.share;
  // Refreshed on focus and on copy as well: this section redraws only when on screen.
  const link = h('input', { type: 'text', id: 'share-link', readonly: true, 'aria-describedby': 'share-left-out', onfocus: refresh });
  const leftOut = h('p', { class: 'muted', id: 'share-left-out' });
  /** The link, and what it leaves out of a long text. */
  function refresh() {
    const facts = shareFacts(t, ctx.state, location.href);
    link.value = facts.link;
    leftOut.textContent = facts.leftOut;
  }
  refresh();
  const copyButton = h('button', { type: 'button', id: 'share-copy', onclick: async () => {
    refresh();
    link.select();
    try {
      await navigator.clipboard.writeText(link.value);
    } catch {
      document.execCommand?.('copy');
    }
    copyButton.textContent = t.copied;
    setTimeout(() => (copyButton.textContent = t.copy), 1500);
  } }, [t.copy]);

  /** A fresh full-size pipeline, every stage lit whatever the animation's step, wide layout, with its key. */
  const exportedPipeline = () => pipelineSvg(ctx, document, { step: 0, title: ctx.text.pipeline.figureTitle, orientation: 'horizontal' });
  const heatmapsSvg = () => heatmapsFigure(document, ctx.text, ctx.hand);
  const exportStatus = h('div');
  const exportButton = (label, figure, make, kind) => h('button', { type: 'button', id: `export-${figure}-${kind}`, onclick: async () => {
    fill(exportStatus, []);
    try {
      const svg = make();
      const name = `multihead-${figure}.${kind}`;
      if (kind === 'svg') download(svgBlob(svg), name);
      else download(await pngBlob(svg), name);
    } catch (error) {
      console.warn(error);
      fill(exportStatus, errorBox(ctx.text, { code: 'EXPORT_FAILED' }));
    }
  } }, [label]);

  const node = section(frame.id, frame.title, [
    h('p', {}, [t.lead]),
    h('div', { class: 'controls' }, [h('label', { class: 'field wide', for: 'share-link' }, [h('span', {}, [t.link]), link]), copyButton]),
    leftOut,
    h('div', { class: 'controls' }, [
      exportButton(t.pipelineSvg, 'pipeline', exportedPipeline, 'svg'),
      exportButton(t.pipelinePng, 'pipeline', exportedPipeline, 'png'),
      exportButton(t.heatmapsSvg, 'heatmaps', heatmapsSvg, 'svg'),
      exportButton(t.heatmapsPng, 'heatmaps', heatmapsSvg, 'png'),
    ]),
    exportStatus,
  ]);
  return {
    node,
    reads: ['url'],
    update: refresh,
  };
}
