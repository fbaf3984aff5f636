// Writes the card's measures (../card-measures.js: the heads' roles on the held-out poems and the fresh test
// set, the writer's repetition) into a shipped model's card, and the fresh test set's poems beside it
// (fresh-test.json, bodies only), so that the page and the tests measure them without the corpus.
// build/train.js runs it when it ships a model; run alone it measures the model in web/poems/ again:
//   node web/poems/build/card-measures.js
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadAttention } from '../../src/attention.js';
import { tokenKinds } from '../head-roles.js';
import { cardMeasures } from '../card-measures.js';

const HERE = dirname(fileURLToPath(import.meta.url));

/**
 * Measures the model and card in outDir and writes the measures into the card. `freshTest` is the corpus's
 * fresh test set ({ body } each): written as outDir's fresh-test.json first; without it, the committed one is used.
 */
export async function writeCardMeasures(outDir, freshTest = null) {
  const freshPath = join(outDir, 'fresh-test.json');
  if (freshTest) writeFileSync(freshPath, `${JSON.stringify(freshTest.map(({ body }) => ({ body })))}\n`);
  const freshBodies = JSON.parse(readFileSync(freshPath, 'utf8')).map((poem) => poem.body);
  const mha = await loadAttention();
  const cardPath = join(outDir, 'poems.card.json');
  const loaded = await mha.loadPoemModel({ model: pathToFileURL(join(outDir, 'poems.safetensors')), card: pathToFileURL(cardPath) });
  try {
    const vocabulary = JSON.parse(loaded.model.metadata.vocabulary);
    const poems = { ...loaded, vocabulary, kinds: tokenKinds(vocabulary) };
    const card = JSON.parse(readFileSync(cardPath, 'utf8'));
    const measures = cardMeasures(poems, mha, { heldOutBodies: card.heldOut.poems.map((poem) => poem.body), freshBodies });
    writeFileSync(cardPath, `${JSON.stringify({ ...card, ...measures }, null, 1)}\n`);
    return measures;
  } finally {
    loaded.model.dispose();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outDir = join(HERE, '..');
  const builtFresh = join(HERE, 'corpus', 'fresh-test.json');
  // The built corpus's fresh set only if it is the shipped model's corpus (a later corpus may be built before its model ships).
  const card = JSON.parse(readFileSync(join(outDir, 'poems.card.json'), 'utf8'));
  const summaryPath = join(HERE, 'corpus', 'summary.json');
  const sameCorpus = existsSync(summaryPath) && JSON.parse(readFileSync(summaryPath, 'utf8')).training.streamSha256 === card.corpus.version.streamSha256;
  const measures = await writeCardMeasures(outDir, sameCorpus && existsSync(builtFresh) ? JSON.parse(readFileSync(builtFresh, 'utf8')) : null);
  console.log(JSON.stringify(measures.repetition));
}
