// Golden snapshots for the tests of pure views: the drawing functions (draw.test.js, .svg) and the sections'
// views (views.test.js, .html), rendered with linkedom as the DOM. A golden is rewritten by UPDATE_GOLDEN=1.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const update = process.env.UPDATE_GOLDEN === '1';

/** Serialises with every decimal number rounded to 2 places, one element per line for readable diffs. */
export function normalise(node) {
  return node.outerHTML
    .replace(/-?\d+\.\d+/g, (n) => String(Math.round(Number(n) * 100) / 100))
    .replace(/></g, '>\n<');
}

/** Compares a node with tests/golden/<name> (name with its extension: 'heatmap.svg', 'views/bill-zh.html'). */
export function matchGolden(name, node) {
  const actual = normalise(node) + '\n';
  const file = fileURLToPath(new URL(`./golden/${name}`, import.meta.url));
  if (update) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, actual);
    return;
  }
  let expected;
  try {
    expected = readFileSync(file, 'utf8');
  } catch {
    assert.fail(`missing golden ${name}; run with UPDATE_GOLDEN=1 to create it`);
  }
  assert.equal(actual, expected, `${name} differs from its golden; if intended, rerun with UPDATE_GOLDEN=1`);
}
