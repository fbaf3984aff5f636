// The built corpus (npm run corpus) checked whole: no held-out line in the training text, and the committed
// summary describes it. Slow (its leak check reads 3.5 M characters); skipped where the corpus is not built.
// corpus.test.js holds the corpus tools' tests on small texts.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { heldOutPoems, TANG300_PATH } from '../web/poems/build/tang300.js';
import { MIN_MATCH_LENGTH } from '../web/poems/build/leakage.js';
import { BUILD_DIR, heldOutTextIn, SUMMARY_PATH } from '../web/poems/build/corpus.js';

const hasTang300 = existsSync(TANG300_PATH);
const summary = JSON.parse(readFileSync(SUMMARY_PATH, 'utf8'));
const trainText = join(BUILD_DIR, 'train.txt');

test('the built corpus holds no held-out line and is the one the summary describes', { skip: !existsSync(trainText) && 'corpus not built (npm run corpus)' }, () => {
  const text = readFileSync(trainText, 'utf8').replace(/\n$/, '');
  assert.equal(createHash('sha256').update(text).digest('hex'), summary.training.textSha256,
    'web/poems/build/corpus-summary.json describes another build: run npm run corpus and commit the summary');
  const heldOut = JSON.parse(readFileSync(join(BUILD_DIR, 'heldout.json'), 'utf8'));
  if (hasTang300) {
    assert.deepEqual(heldOut.map(({ ids, ...poem }) => poem), heldOutPoems(readFileSync(TANG300_PATH, 'utf8')));
  }
  assert.deepEqual(heldOutTextIn(text, heldOut), { lines: [], clauses: [] });
  const fresh = JSON.parse(readFileSync(join(BUILD_DIR, 'fresh-test.json'), 'utf8'));
  assert.equal(fresh.length, summary.freshTest.poems);
  // Lines of the fresh test set as the leak rule reads them: with at least MIN_MATCH_LENGTH Han characters (a few
  // 全唐诗 lines are a lone 。 or one character).
  const { lines, clauses: freshClauses } = heldOutTextIn(text, fresh);
  assert.deepEqual(freshClauses, [], 'no clause of the fresh test set is trained on');
  assert.deepEqual(lines.filter((line) => (line.match(/\p{Script=Han}/gu) ?? []).length >= MIN_MATCH_LENGTH), [], 'nor any line');
});
