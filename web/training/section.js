import { section } from '../ui/section.js';
import { mountTraining } from './panel.js';
import * as compare from './compare.js';

/** §9: train the heads on the two-views task and watch them specialise (runs in a Web Worker). */
export function trainSection(ctx, frame) {
  const body = document.createElement('div');
  const node = section(frame.id, frame.title, [body]);
  // The h picked goes into the page's state, so a shared link (and a switch of language) keeps it.
  const training = mountTraining(body, { lang: ctx.lang, heading: false, heads: ctx.state.train.heads, compare, onHeads: (h) => ctx.set((s) => (s.train.heads = h)) });
  return { node, reads: [], update() {}, dispose: () => training.dispose() };
}
