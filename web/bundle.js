// Bundles the page and the widget into web/dist with esbuild, and ships KaTeX's stylesheet and fonts
// beside them, so the served folder needs nothing from node_modules or the network.
// Run by build.sh after the wasm module is built (the bundles import web/dist/mha-core.mjs).
import { build } from 'esbuild';
import { cpSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const web = fileURLToPath(new URL('.', import.meta.url));
const dist = `${web}dist/`;

const entries = [
  { in: `${web}page/main.js`, out: 'page' },
  { in: `${web}widget/define.js`, out: 'widget' },
  { in: `${web}page/train-worker.js`, out: 'train-worker' },
].filter((entry) => existsSync(entry.in));

await build({
  entryPoints: entries,
  outdir: dist,
  bundle: true,
  format: 'esm',
  target: 'es2020',
  minify: true,
  legalComments: 'eof',
  logLevel: 'warning',
  // The wasm is fetched at run time from beside the bundle (new URL(..., import.meta.url)).
  external: ['*.wasm', 'node:*'],
});

const katex = fileURLToPath(new URL('../node_modules/katex/dist/', import.meta.url));
cpSync(`${katex}katex.min.css`, `${dist}katex/katex.min.css`);
cpSync(`${katex}fonts`, `${dist}katex/fonts`, { recursive: true });
