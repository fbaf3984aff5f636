// Bundles the page and the widget into web/dist with esbuild, gathers the widget's files into web/dist/widget/,
// and ships KaTeX's stylesheet and fonts beside them, so the served folder needs nothing from node_modules or
// the network. §5's formula is typeset here, by KaTeX in Node: the page carries its HTML, not the typesetter.
// Run by build.sh's web target (the bundles import the committed web/dist/mha-core.mjs).
import { build } from 'esbuild';
import katex from 'katex';
import { cpSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EQUATIONS, SYMBOLS } from '../page/sections/formula-tex.js';
import { pureSchemes } from './pure-schemes.js';

// web/, the folder above this one (a path, not a URL: these tools read the whole folder, they import none of it).
const web = join(dirname(fileURLToPath(import.meta.url)), '..', '/');
const dist = `${web}dist/`;

const entries = [
  { in: `${web}widget/define.js`, out: 'widget' },
  { in: `${web}training/train-worker.js`, out: 'train-worker' },
  // Fetched only when a teacher opens a GPT-2 file: the first alone carries GPT-2's tokenizer, the second the
  // SHA-256 that hashes the file beside it.
  { in: `${web}gpt2/gpt2-worker.js`, out: 'gpt2-worker' },
  { in: `${web}gpt2/gpt2-hash-worker.js`, out: 'gpt2-hash-worker' },
  // §10's held-out measure, started once the poetry model has loaded.
  { in: `${web}poems/poems-worker.js`, out: 'poems-worker' },
  // The coda's poetry model made grouped-query, measured when a learner asks for it.
  { in: `${web}gqa/poem-groups-worker.js`, out: 'poem-groups-worker' },
];

const common = { bundle: true, target: 'es2022', minify: true, legalComments: 'eof', logLevel: 'warning', plugins: [pureSchemes] };

await build({ ...common, entryPoints: entries, outdir: dist, format: 'esm' });

/**
 * §5's TeX (web/page/sections/formula-tex.js) as KaTeX's HTML: each equation a display, with MathML beside
 * it; each symbol of the list inline, HTML alone (its button names it in words).
 */
function typesetFormula() {
  const options = { throwOnError: false, strict: false, trust: ({ command }) => command === '\\htmlClass' };
  return {
    equations: EQUATIONS.map((tex) => katex.renderToString(tex, { ...options, displayMode: true })),
    symbols: Object.fromEntries(SYMBOLS.map((tex) => [tex, katex.renderToString(tex, { ...options, output: 'html' })])),
  };
}

/** `import TYPESET from 'typeset:formula'` (web/page/sections/formula.js) gets typesetFormula()'s HTML. */
const typesetPlugin = {
  name: 'typeset',
  setup(bundler) {
    bundler.onResolve({ filter: /^typeset:formula$/ }, ({ path }) => ({ path, namespace: 'typeset' }));
    bundler.onLoad({ filter: /.*/, namespace: 'typeset' }, () => ({ contents: JSON.stringify(typesetFormula()), loader: 'json' }));
  },
};

// The page: page.js and the chunk it imports hold what the first screen needs. The sections it fetches when
// they come near (web/page/main.js) are chunks of their own beside it, page-*.js, named by their content:
// the last build's are removed first, with their compressed copies.
for (const name of readdirSync(dist)) if (name.startsWith('page-')) rmSync(`${dist}${name}`);
await build({
  ...common,
  entryPoints: [{ in: `${web}page/main.js`, out: 'page' }],
  outdir: dist,
  format: 'esm',
  splitting: true,
  chunkNames: 'page-[name]-[hash]',
  plugins: [...common.plugins, typesetPlugin],
});

// widget.classic.js: the same widget as a classic script, for sites that can only add <script src> or
// <script defer> (MkDocs' extra_javascript, many themes). It exports nothing; the element defines itself.
await build({
  ...common,
  entryPoints: [{ in: `${web}widget/define.js`, out: 'widget.classic' }],
  outdir: dist,
  format: 'iife',
  define: { 'import.meta.url': 'classicScriptUrl' },
  inject: [`${web}widget/classic-script-url.js`],
});

// web/dist/widget/: the one folder a course without a bundler copies beside its pages. It holds what the widget
// loads from beside its script, in either form: the single-threaded core (the widget's layers are too small to share
// among threads, so no cross-origin isolation is needed) and the training worker; and a page that shows it working.
const widgetFolder = `${dist}widget/`;
rmSync(widgetFolder, { recursive: true, force: true });
for (const file of ['widget.js', 'widget.classic.js', 'mha-core.wasm', 'train-worker.js']) cpSync(`${dist}${file}`, `${widgetFolder}${file}`);
cpSync(`${web}widget/example.html`, `${widgetFolder}index.html`);

const katexDist = join(web, '..', 'node_modules/katex/dist/');
cpSync(`${katexDist}katex.min.css`, `${dist}katex/katex.min.css`);
cpSync(`${katexDist}fonts`, `${dist}katex/fonts`, { recursive: true });
