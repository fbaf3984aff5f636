// The lesson's sections, in the page's order: the one list the page builds its sections, its table of
// contents and lesson mode's parts from. Adding a section is adding an entry here, its title in
// TEXT[lang].sections[key] (text.js) and its folder (see web/ui/README.md, "Adding a section").
import { billSection } from './sections/bill.js';
import { splitSection } from './sections/split.js';
import { handSection } from '../hand/section.js';
import { pipelineSection } from '../pipeline/section.js';
import { formulaSection } from './sections/formula.js';
import { codeSection } from './sections/code.js';
import { viewsSection } from './sections/views.js';
import { ablationSection } from './sections/ablation.js';
import { quizSection } from './sections/quiz.js';
import { shareSection } from './sections/share.js';

/**
 * Each entry: `key` names its title in the text, `id` its element (a link target: kept stable, since
 * shared links and course pages point at them), and either `make(ctx, frame)` — frame is `{ id, title }`,
 * for section() in web/ui/section.js — or `load()`, resolving to make, for a section whose code comes in
 * a module of its own (far below the first screen; web/tools/bundle.js splits it off).
 */
export const SECTIONS = [
  { key: 'bill', id: 'bill', make: billSection },
  { key: 'split', id: 'split-section', make: splitSection },
  { key: 'hand', id: 'hand', make: handSection },
  { key: 'pipeline', id: 'pipeline-section', make: pipelineSection },
  { key: 'formula', id: 'formula-section', make: formulaSection },
  { key: 'code', id: 'code-section', make: codeSection },
  { key: 'views', id: 'views-section', make: viewsSection },
  { key: 'ablation', id: 'ablation-section', make: ablationSection },
  { key: 'train', id: 'train-section', load: () => import('../training/section.js').then((module) => module.trainSection) },
  { key: 'poems', id: 'poems-section', load: () => import('../real-heads/section.js').then((module) => module.realHeadsSection) },
  { key: 'quiz', id: 'quiz-section', make: quizSection },
  { key: 'share', id: 'share-section', make: shareSection },
  // The coda, past the lesson's twelve parts: what courses teach after multi-head attention.
  { key: 'gqa', id: 'gqa-section', load: () => import('../gqa/section.js').then((module) => module.gqaSection) },
];
