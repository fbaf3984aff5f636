import { section } from '../ui/section.js';
import { mountTraining } from './panel.js';
import * as compare from './compare.js';

/** §9: train the heads on the two-views task and watch them specialise (runs in a Web Worker). */
export function trainSection(ctx, frame) {
  const body = document.createElement('div');
  const node = section(frame.id, frame.title, [body]);
  // The model picked (h and its K/V heads) goes into the page's state, so a shared link (and a switch of language) keeps it.
  const { heads, kvHeads } = ctx.state.train;
  const training = mountTraining(body, {
    lang: ctx.lang, heading: false, heads, kvHeads: kvHeads || heads, compare,
    onModel: (h, kv) => ctx.set((s) => { s.train.heads = h; s.train.kvHeads = kv === h ? 0 : kv; }),
  });
  return { node, reads: [], update() {}, dispose: () => training.dispose() };
}
