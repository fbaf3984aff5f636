// An esbuild plugin for web/tools/bundle.js. d3-scale-chromatic ships one file that builds all of its forty-odd
// colour schemes when it loads; a bundler keeps them all, since a call may have effects. The page and the
// widget use two (draw/color.js: viridis and PuOr), and the widget counts its bytes. Marking the schemes'
// builds pure (/* @__PURE__ */, the annotation bundlers read) lets esbuild drop the ones nobody imports:
// 2.7 KB of the widget's gzip. The schemes kept are built by the same code as before.
// d3-color, which the schemes parse their colours with, carries the 148 CSS colour names (aliceblue …
// yellowgreen) for color("steelblue"); the schemes hand it "#rrggbb" alone, and nothing else here calls it,
// so the table goes too: 1.3 KB of the widget's gzip (and what shared K/V heads added to it).
import { readFile } from 'node:fs/promises';

export const pureSchemes = {
  name: 'pure-schemes',
  setup(bundler) {
    bundler.onLoad({ filter: /[\\/]d3-scale-chromatic[\\/]dist[\\/]d3-scale-chromatic\.mjs$/ }, async ({ path }) => {
      const source = await readFile(path, 'utf8');
      // `new Array(3).concat("…", …).map(colors)` as one call that can carry the annotation; then every
      // top-level `var x = f(…)` marked pure.
      const contents = source
        .replace(/new Array\(3\)\.concat\(([^)]*)\)\.map\(colors\)/g, 'schemeOf([$1])')
        .replace(/^(var [\w$]+ = )(?=[\w$]+\()/gm, '$1/* @__PURE__ */ ')
        + '\nfunction schemeOf(specifiers) { return new Array(3).concat(specifiers).map(colors); }\n';
      return { contents, loader: 'js' };
    });
    bundler.onLoad({ filter: /[\\/]d3-color[\\/]dist[\\/]d3-color\.mjs$/ }, async ({ path }) => {
      const source = await readFile(path, 'utf8');
      return { contents: source.replace(/^var named = \{[^}]*\};/m, 'var named = {};'), loader: 'js' };
    });
  },
};
