// The widget's stylesheet, scoped by its shadow root. Inherited properties (font, colour, line height,
// alignment…) are reset on the root box so the host page's text styles do not reach inside either.
import { HEAD_COLORS } from '../draw/index.js';
import { adoptStylesheet } from '../ui/adopt-stylesheet.js';

const headRules = HEAD_COLORS.map((color, h) => `.h${h}{--head:${color}}`).join('');

export const CSS = `
:host{display:block;max-width:100%;margin:1.25em 0;container-type:inline-size;contain:layout style}
:host([hidden]){display:none}
.mha{all:initial;display:block;box-sizing:border-box;max-width:100%;padding:12px 14px;border:1px solid #d8dbe2;
border-radius:10px;background:#fff;color:#1d2330;font:14px/1.5 system-ui,-apple-system,'Segoe UI','Noto Sans CJK SC','PingFang SC','Microsoft YaHei',sans-serif;
text-align:start;letter-spacing:normal;word-spacing:normal;white-space:normal;text-transform:none;text-indent:0;
font-variant-numeric:tabular-nums;overflow-wrap:anywhere;visibility:visible}
.mha *,.mha *::before,.mha *::after{box-sizing:border-box}
.summary{margin:0 0 8px;color:#4a5163;font-size:12.5px}
.status{margin:0;color:#4a5163;min-height:3em;display:flex;align-items:center}
.error{margin:0;padding:10px 12px;border:1px solid #e0a3a3;border-left:4px solid #b3261e;border-radius:6px;background:#fff6f5;color:#5c1410}
.error strong{display:block;margin-bottom:2px}
.error p{margin:0}
.views{display:flex;flex-wrap:wrap;gap:14px 18px;align-items:flex-start}
figure{margin:0;min-width:0;max-width:100%}
figcaption{display:flex;align-items:center;gap:6px;margin-bottom:4px;font-size:13px;font-weight:600}
figcaption .dims{font-weight:400;color:#5b6273;font-size:12px}
.swatch{display:inline-block;width:11px;height:11px;border-radius:3px;background:var(--head,#666);flex:none}
.swatch.dashed{background:#fff;border:2px dashed var(--head,#666);box-sizing:border-box}
.wide{flex:1 1 100%}
.pipeline svg{margin:0 auto}
svg{display:block;max-width:100%;height:auto;overflow:visible}
.note{margin:0 0 4px;font-size:12.5px;color:#4a5163}
.head-run{display:flex;flex-wrap:wrap;gap:6px 10px;align-items:center}
.head-run .note{flex:1 1 260px;margin:0}
.head-run button{padding:2px 10px;border:1px solid #b9bfcc;border-radius:6px;background:#fff;font-size:12.5px;cursor:pointer}
.head-run button:disabled{opacity:.5;cursor:default}
.key{display:flex;flex-wrap:wrap;gap:4px 14px;margin:0 0 4px;font-size:12.5px}
.key>span{display:inline-flex;align-items:center;gap:5px}
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
.controls{margin-top:14px;padding-top:12px;border-top:1px solid #e6e8ee;display:grid;gap:12px}
.switches{display:flex;flex-wrap:wrap;gap:8px 18px;align-items:center;font-size:13px}
.switches label{display:inline-flex;align-items:center;gap:6px;cursor:pointer}
select,input,button{font:inherit;color:inherit}
.focus{display:flex;flex-wrap:wrap;gap:4px;margin:2px 0 6px}
.focus button{padding:1px 10px;border:1px solid #b9bfcc;border-radius:999px;background:#fff;font-size:12.5px;cursor:pointer;max-width:10em;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.focus button[aria-pressed="true"]{background:#23395b;border-color:#23395b;color:#fff}
select{padding:2px 6px;border:1px solid #b9bfcc;border-radius:6px;background:#fff}
fieldset{margin:0;padding:6px 10px 10px;border:1px solid #e0e3ea;border-radius:8px;min-width:0}
legend{padding:0 4px;font-size:13px;font-weight:600}
.grid{--col-min:6em;display:grid;grid-template-columns:minmax(min-content,auto) repeat(var(--cols),minmax(var(--col-min),1fr));gap:4px 8px;align-items:center;overflow-x:auto;overscroll-behavior-x:contain;padding:3px;margin:-3px}
.grid.dense,:host([compact]) .grid{--col-min:3em}
.grid.dense .slider,:host([compact]) .slider{grid-template-columns:minmax(0,1fr)}
.grid.dense .slider output,:host([compact]) .slider output{text-align:center;font-size:11px;line-height:1}
.grid .token{font-size:13px;max-width:7em;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.grid .dimhead{font-size:11px;color:#5b6273;text-align:center;border-bottom:3px solid var(--head);padding-bottom:1px}
.slider{display:grid;grid-template-columns:minmax(0,1fr) 2.6em;align-items:center;gap:4px;min-width:0}
.slider input{width:100%;min-width:0;margin:0;accent-color:var(--head)}
.slider output{font-size:12px;text-align:end;color:#2b3140}
input:focus-visible,select:focus-visible,button:focus-visible{outline:2px solid #1a56db;outline-offset:2px}
@container (max-width:480px){
.mha{padding:10px 10px}
.views{gap:10px}
.slider{grid-template-columns:minmax(0,1fr)}
.slider output{text-align:center;font-size:11px;line-height:1}
.grid{gap:2px 6px;--col-min:3em}
}
:host([compact]) .mha{padding:8px 10px}
:host([compact]) .summary{margin-bottom:4px}
:host([compact]) .views{gap:6px 14px}
:host([compact]) .legend{flex:0 0 auto;align-self:flex-end}
:host([compact]) .controls{margin-top:8px;padding-top:8px;gap:8px}
:host([compact]) fieldset{padding:0 8px 6px}
:host([compact]) .grid{gap:1px 6px}
:host([compact]) .slider{gap:0}
@container (min-width:600px){
:host([compact]) .controls{grid-template-columns:repeat(3,minmax(0,1fr))}
:host([compact]) .switches,:host([compact]) .note{grid-column:1/-1}
}
${headRules}
`;

/** Adds the stylesheet to a shadow root: a constructed sheet (not subject to style-src), else a <style>. */
export function adoptStyles(root) {
  if (adoptStylesheet(root, CSS)) return;
  const style = root.ownerDocument.createElement('style');
  style.textContent = CSS;
  root.appendChild(style);
}
