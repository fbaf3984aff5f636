// Bundles the page and the widget into web/dist with esbuild, and ships KaTeX's stylesheet and fonts
// beside them, so the served folder needs nothing from node_modules or the network.
// Run by build.sh's web target (the bundles import the committed web/dist/mha-core.mjs).
import { build } from 'esbuild';
import { cpSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const web = fileURLToPath(new URL('.', import.meta.url));
const dist = `${web}dist/`;

const entries = [
  { in: `${web}page/main.js`, out: 'page' },
  { in: `${web}widget/define.js`, out: 'widget' },
  { in: `${web}training/train-worker.js`, out: 'train-worker' },
  // Fetched only when a teacher opens a GPT-2 file; it alone carries GPT-2's tokenizer.
  { in: `${web}gpt2/gpt2-worker.js`, out: 'gpt2-worker' },
  // §9's held-out measure, started once the poetry model has loaded.
  { in: `${web}poems/poems-worker.js`, out: 'poems-worker' },
];

const common = { bundle: true, target: 'es2022', minify: true, legalComments: 'eof', logLevel: 'warning' };

await build({ ...common, entryPoints: entries, outdir: dist, format: 'esm' });

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

const katex = fileURLToPath(new URL('../node_modules/katex/dist/', import.meta.url));
cpSync(`${katex}katex.min.css`, `${dist}katex/katex.min.css`);
cpSync(`${katex}fonts`, `${dist}katex/fonts`, { recursive: true });
