// The lesson page's first view stays small (tests/bench/page-load.js measures how soon it is ready). What the
// browser runs before the first screen is web/dist/page.js and the chunks it imports statically: it holds §5's
// formula as HTML, typeset by KaTeX when the page was built, and no typesetter; §9 and §10 come in chunks of
// their own, fetched with import() when they come near; and the whole weighs under a budget as brotli.
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { brotliCompressSync, constants } from 'node:zlib';

const dist = new URL('../web/dist/', import.meta.url);
const page = new URL('page.js', dist);
const built = existsSync(page) || 'run bash build.sh web first';

/**
 * The first view's scripts, brotli-compressed as web/tools/precompress.js does: measured at 84.5 KB when set (152 KB
 * when KaTeX and §9 and §10 came with page.js), with room for the sections to grow.
 */
const FIRST_VIEW_BROTLI_BYTES = 100_000;

/** The chunks a bundle imports statically (`import{…}from"./x.js"`, `import"./x.js"`), not with import(). */
const staticImports = (source) => [...source.matchAll(/\bimport\s*(?:[\w$\s{},*]*?from\s*)?"(\.\/[^"]+)"/g)].map(([, path]) => path);
const dynamicImports = (source) => [...source.matchAll(/\bimport\("(\.\/[^"]+)"\)/g)].map(([, path]) => path);

/** page.js and every chunk it reaches by static imports: { name: source }. */
function firstView() {
  const files = {};
  const visit = (name) => {
    if (name in files) return;
    files[name] = readFileSync(new URL(name, dist), 'utf8');
    for (const path of staticImports(files[name])) visit(path.slice(2));
  };
  visit('page.js');
  return files;
}

/** Code that only KaTeX's parser and renderer hold (the typeset HTML keeps its TeX, in MathML's annotation). */
const KATEX_CODE = /KaTeX parse error|renderToString/;

test('the import patterns read esbuild\'s minified output', () => {
  const source = 'import{a as b,c}from"./page-chunk-A.js";import"./page-chunk-B.js";const s=()=>import("./page-section-C.js");';
  assert.deepEqual(staticImports(source), ['./page-chunk-A.js', './page-chunk-B.js']);
  assert.deepEqual(dynamicImports(source), ['./page-section-C.js']);
});

test('the page carries §5 typeset, not KaTeX: no chunk of it holds KaTeX\'s code', { skip: built !== true && built }, () => {
  const files = firstView();
  const all = Object.values(files).join('\n');
  assert.ok(all.includes('class="katex-display"'), 'the equations as KaTeX\'s HTML');
  assert.ok(all.includes('<math xmlns="http://www.w3.org/1998/Math/MathML"'), 'with their MathML');
  assert.ok(all.includes('sym sym-wq'), 'their symbols marked for the pipeline');
  for (const name of readdirSync(dist).filter((file) => /^page(?:-.+)?\.js$/.test(file))) {
    assert.ok(!KATEX_CODE.test(readFileSync(new URL(name, dist), 'utf8')), `${name} holds KaTeX's code`);
  }
});

test('§9 and §10 are chunks fetched with import(), outside the first view', { skip: built !== true && built }, () => {
  const files = firstView();
  const all = Object.values(files).join('\n');
  // Class names and ids that only the training panel and the poetry model's section write.
  assert.ok(!all.includes('mha-train'), 'the training panel is not in the first view');
  assert.ok(!all.includes('poems-status'), 'the poetry model\'s section is not in the first view');
  const lazy = dynamicImports(files['page.js']).map((path) => readFileSync(new URL(path, dist), 'utf8'));
  assert.ok(lazy.some((source) => source.includes('mha-train')) && lazy.some((source) => source.includes('poems-status')), 'each in a chunk page.js imports when needed');
});

test(`the first view's scripts weigh under ${FIRST_VIEW_BROTLI_BYTES / 1000} KB as brotli`, { skip: built !== true && built }, (t) => {
  const files = firstView();
  const sizes = Object.entries(files).map(([name, source]) => [name, brotliCompressSync(source, { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY } }).length]);
  const total = sizes.reduce((sum, [, size]) => sum + size, 0);
  t.diagnostic(`${sizes.map(([name, size]) => `${name} ${size} B`).join(' + ')} = ${total} B`);
  assert.ok(total < FIRST_VIEW_BROTLI_BYTES, `${total} bytes`);
});
