// What `npm pack` ships: exactly the files a consumer needs (the API, the widget's modules for bundlers,
// the wasm core, the script-tag bundles), under a size bound, and a module graph that is closed: every
// import of a shipped module resolves to a shipped file or a declared dependency, and every file it names
// with new URL('…', import.meta.url) (a worker, a wasm core, the poetry model) is shipped.
// A slow file: it runs npm, and the list it pins holds the bundles build.sh web makes (npm test builds them first).
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { moduleSpecifiers } from './module-specifiers.js';

const root = fileURLToPath(new URL('..', import.meta.url));

const SHIPPED = [
  'README.md',
  'package.json',
  'web/dist/mha-core.mjs',
  'web/dist/mha-core.wasm',
  'web/dist/mha-core-mt.mjs',
  'web/dist/mha-core-mt.wasm',
  'web/dist/mha-core-mt.worker.js',
  'web/dist/mha-core-fma.wasm',
  'web/dist/mha-core-mt-fma.wasm',
  'web/dist/train-worker.js',
  'web/dist/widget.classic.js',
  'web/dist/widget.js',
  'web/draw/bars.js',
  'web/draw/color.js',
  'web/draw/compose.js',
  'web/draw/grid.js',
  'web/draw/heatmap.js',
  'web/draw/index.js',
  'web/draw/legend.js',
  'web/draw/lines.js',
  'web/draw/loss.js',
  'web/draw/matrix.js',
  'web/draw/pipeline.js',
  'web/draw/svg.js',
  'web/draw/table.js',
  'web/draw/tile.js',
  'web/hand/maps.js',
  'web/poems/poems.card.json',
  'web/poems/poems.safetensors',
  'web/ui/adopt-stylesheet.js',
  'web/ui/dom.js',
  'web/ui/drawn-heads.js',
  'web/ui/redraw.js',
  'web/ui/slices.js',
  'web/shared/clip.js',
  'web/shared/errors.js',
  'web/shared/figure-labels.js',
  'web/shared/lesson.js',
  'web/shared/session.js',
  'web/shared/worker.js',
  'web/ui/touch.js',
  'web/training/host.js',
  'web/training/strings.js',
  'web/training/train-worker.js',
  'web/training/panel.js',
  'web/training/views.js',
  'web/src/README.md',
  'web/src/attention.d.ts',
  'web/src/attention.js',
  'web/src/checks.js',
  'web/src/fetch-file.js',
  'web/src/instance.js',
  'web/src/layer.js',
  'web/src/lifetime.js',
  'web/src/load.js',
  'web/src/gpt-model.js',
  'web/src/poem-model.js',
  'web/src/random.js',
  'web/src/shared-core.js',
  'web/src/trainer.js',
  'web/widget/controls.js',
  'web/widget/define.js',
  'web/widget/element.js',
  'web/widget/keys.js',
  'web/widget/parse.js',
  'web/widget/render.js',
  'web/widget/strings.js',
  'web/widget/styles.js',
  'web/widget/README.md',
  'web/widget/widget.d.ts',
];
// The poetry model (web/poems/poems.safetensors, F16, 2.75 MB, and its 46 kB card) is most of the package:
// weights hardly compress, so it adds 2.55 MB to the tarball and 2.78 MB unpacked. The rest stays under the
// old bounds of 250 kB and 680 kB.
// The threaded core (mha-core-mt.*, for cross-origin isolated pages) adds 60 kB to the tarball, 165 kB unpacked;
// both cores' fused multiply-add wasm (mha-core-fma.wasm, mha-core-mt-fma.wasm) 100 kB and 220 kB more.
const MAX_TARBALL_BYTES = 250_000 + 2_650_000 + 60_000 + 100_000;
// The wasm core grew by 35 kB with the GPT-2 model; the modules the page and widget share add 14 kB; the API's
// split into modules by job (web/src/) 7 kB of headers, imports and their README lines; the widget's runs of
// heads drawn a slice a frame (web/ui/drawn-heads.js) and README's rows on hostile input 12 kB more. The card
// grew by 12 kB with the heads' roles on the fresh test set and the writer's repetition, and K/V heads shared by
// groups (kvHeads: the API, its checks, types and README) added 4 kB.
const MAX_UNPACKED_BYTES = 680_000 + 2_850_000 + 165_000 + 220_000 + 20_000 + 16_000;

const [pack] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
const files = pack.files.map((file) => file.path).sort();

test('npm pack ships these files and nothing else (no C sources, test binaries, page bundle or fonts)', () => {
  assert.deepEqual(files, [...SHIPPED].sort());
});

test(`the tarball stays under ${MAX_TARBALL_BYTES / 1000} kB (${MAX_UNPACKED_BYTES / 1000} kB unpacked)`, () => {
  assert.ok(pack.size <= MAX_TARBALL_BYTES, `tarball ${pack.size} bytes`);
  assert.ok(pack.unpackedSize <= MAX_UNPACKED_BYTES, `unpacked ${pack.unpackedSize} bytes`);
});

test('no shipped script imports a Node built-in; every import resolves to a shipped file or a dependency, every URL to a shipped file', () => {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const dependencies = Object.keys(manifest.dependencies ?? {});
  const targets = Object.values(manifest.exports).flatMap((entry) => Object.values(entry)).map((path) => normalize(path));
  for (const target of targets) assert.ok(files.includes(target), `the export ${target} is shipped`);
  for (const file of files.filter((path) => /\.m?js$/.test(path))) {
    const source = readFileSync(join(root, file), 'utf8');
    assert.doesNotMatch(source, /\bimport\s*\(\s*['"]node:|from\s*['"]node:/, `${file} must not import Node built-ins (it runs in browsers)`);
    if (/^web\/dist\/(widget|train-worker)/.test(file)) continue; // bundles: nothing left to resolve
    const { imports, urls } = moduleSpecifiers(source);
    for (const specifier of imports) {
      if (specifier.startsWith('.')) {
        assert.ok(files.includes(normalize(join(dirname(file), specifier))), `${file} imports ${specifier}, which is not shipped`);
      } else {
        assert.ok(dependencies.includes(specifier.split('/')[0]), `${file} imports ${specifier}, not a dependency`);
      }
    }
    for (const url of urls) assert.ok(files.includes(normalize(join(dirname(file), url))), `${file} names ${url}, which is not shipped`);
  }
});
