import { h, fill } from '../../shared/dom.js';
import { download, svgBlob, pngBlob } from '../dom.js';
import { section, errorBox, range } from '../common.js';
import { pipelineSvg } from './pipeline.js';
import { heatmap, compose } from '../../draw/index.js';

/** §10: the shareable link (the whole state is in the URL) and SVG/PNG export of the figures. */
export function shareSection(ctx) {
  const t = ctx.text.share;
  const link = h('input', { type: 'text', id: 'share-link', readonly: true, value: location.href });
  const copyButton = h('button', { type: 'button', id: 'share-copy', onclick: async () => {
    link.select();
    try {
      await navigator.clipboard.writeText(link.value);
    } catch {
      document.execCommand?.('copy');
    }
    copyButton.textContent = t.copied;
    setTimeout(() => (copyButton.textContent = t.copy), 1500);
  } }, [t.copy]);

  /** A fresh full-size pipeline at the current step, wide layout, for export. */
  const exportedPipeline = () => pipelineSvg(ctx, document, { step: ctx.state.step, title: ctx.text.pipeline.figureTitle, orientation: 'horizontal' });
  const heatmapsSvg = () => {
    const r = ctx.hand;
    const parts = range(r.heads).map((head) => heatmap(document, {
      values: r.attention[head], rows: r.L, cols: r.L, rowLabels: r.tokens, colLabels: r.tokens, title: ctx.text.hand.headTitle(head), colHeader: ctx.text.hand.headTitle(head),
    }));
    return compose(document, { parts, title: t.heatmapsTitle, caption: t.heatmapsTitle });
  };
  const exportStatus = h('div');
  const exportButton = (label, id, make, kind) => h('button', { type: 'button', id, onclick: async () => {
    fill(exportStatus, []);
    try {
      const svg = make();
      const name = `multihead-${id.replace('export-', '')}`;
      if (kind === 'svg') download(svgBlob(svg), `${name}.svg`);
      else download(await pngBlob(svg), `${name}.png`);
    } catch (error) {
      console.warn(error);
      fill(exportStatus, errorBox(ctx.text, { code: 'EXPORT_FAILED' }));
    }
  } }, [label]);

  const node = section('share-section', ctx.text.sections.share, [
    h('p', {}, [t.lead]),
    h('div', { class: 'controls' }, [h('label', { class: 'field wide', for: 'share-link' }, [h('span', {}, [t.link]), link]), copyButton]),
    h('div', { class: 'controls' }, [
      exportButton(t.pipelineSvg, 'export-pipeline-svg', exportedPipeline, 'svg'),
      exportButton(t.pipelinePng, 'export-pipeline-png', exportedPipeline, 'png'),
      exportButton(t.heatmapsSvg, 'export-heatmaps-svg', heatmapsSvg, 'svg'),
      exportButton(t.heatmapsPng, 'export-heatmaps-png', heatmapsSvg, 'png'),
    ]),
    exportStatus,
  ]);
  return {
    node,
    reads: ['url'],
    update() {
      link.value = location.href;
    },
  };
}
