// §10, real heads in a trained model: one frame over two models. It holds the switch between them and shows
// one model's part at a time: the poetry model that ships with the lesson (web/poems/section.js) or GPT-2 from
// a file the teacher opens (web/gpt2/section.js). The parts know nothing of each other; both draw with the same
// views and measures (web/heads/).
import { h } from '../ui/dom.js';
import { uniqueId } from '../ui/controls.js';
import { section } from '../ui/section.js';
import { poemsPart, initialPoemPicks } from '../poems/section.js';
import { gpt2Part, initialGpt2Picks } from '../gpt2/section.js';
import { POEMS_TEXT } from '../poems/strings.js';
import { GPT2_TEXT } from '../gpt2/strings.js';
import { REAL_HEADS_TEXT } from './strings.js';

const SOURCES = ['poems', 'gpt2'];

/** §10's pickers (UI-only state): whose heads are shown, and each part's own picks. */
const initialRealHeadsPicks = () => ({
  source: 'poems', // 'poems' (the shipped model) or 'gpt2' (a file the teacher opens)
  poems: initialPoemPicks(),
  gpt2: initialGpt2Picks(),
});

/** The page's words with §10's: they come with this module, not in the page's first view. */
const WORDS = Object.fromEntries(['zh', 'en'].map((lang) => [lang, { poems: POEMS_TEXT[lang], gpt2: GPT2_TEXT[lang], realHeads: REAL_HEADS_TEXT[lang] }]));

/** §10: the switch, and the part of the model it names. */
export function realHeadsSection(pageCtx, frame) {
  const ctx = Object.create(pageCtx, { text: { get: () => ({ ...pageCtx.text, ...WORDS[pageCtx.lang] }) } });
  const t = ctx.text.realHeads;
  ctx.ui.realHeads ??= initialRealHeadsPicks(); // the first time its module comes in
  // Each part reads and changes its own picks, and asks for a redraw of the section.
  const picksOf = (name) => ({
    picks: () => ctx.ui.realHeads[name],
    pick: (mutate) => ctx.setUi((ui) => mutate(ui.realHeads[name])),
    redraw: () => ctx.redraw('real-heads-picks'),
  });
  const parts = { poems: poemsPart(ctx, picksOf('poems')), gpt2: gpt2Part(ctx, picksOf('gpt2')) };
  const sourceName = uniqueId('poem-source');
  const sources = SOURCES.map((value) => h('input', { type: 'radio', name: sourceName, value, id: `poem-source-${value}`,
    onchange: () => ctx.setUi((ui) => (ui.realHeads.source = value)) }));
  const sourceBox = h('fieldset', { class: 'choice', id: 'poem-source' }, [
    h('legend', {}, [t.sourceTitle]),
    ...sources.map((input) => h('label', { class: 'check', for: input.id }, [input, h('span', {}, [input.value === 'poems' ? t.sourcePoems : t.sourceGpt2])])),
  ]);
  return {
    node: section(frame.id, frame.title, [sourceBox, parts.poems.node, parts.gpt2.node]),
    reads: ['poems', 'real-heads-picks'],
    update() {
      const { source } = ctx.ui.realHeads;
      sources.forEach((input) => (input.checked = input.value === source));
      // Toggled, so that a keystroke writes nothing here.
      for (const name of SOURCES) parts[name].node.toggleAttribute('hidden', name !== source);
      parts[source].update();
    },
    dispose() {
      for (const name of SOURCES) parts[name].dispose?.();
    },
  };
}
