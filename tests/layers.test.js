// The web code's floors (web/README.md): the page and the widget are shells over the feature rooms (hand,
// pipeline, training, real-heads over poems and gpt2), never over each other; a room stands on the UI layer
// (web/ui/), the shared lesson data (web/shared/), the drawing (web/draw/) and the API (web/src/), never on a
// shell; the API stands on the wasm core alone. No two folders depend on each other, even through a third. A module depends on what it imports (statically or with import()) and on what it
// names with new URL('…', import.meta.url): a worker, a wasm file, a model file.
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { moduleSpecifiers } from './module-specifiers.js';

const web = fileURLToPath(new URL('../web/', import.meta.url));

function modules(folder) {
  return readdirSync(join(web, folder), { recursive: true })
    .filter((file) => file.endsWith('.js') && !file.split(/[\\/]/).includes('node_modules'))
    .map((file) => join(web, folder, file));
}

/** A path as web/ names it: 'src/load.js'. */
const inWeb = (path) => relative(web, path).split(/[\\/]/).join('/');

/** What a module depends on: { specifier, path (absolute), folder (its web/ folder: 'page', 'src', …) }. */
function dependencies(file) {
  const { imports, urls } = moduleSpecifiers(readFileSync(file, 'utf8'));
  return [...imports.filter((specifier) => specifier.startsWith('.')), ...urls].map((specifier) => {
    const path = resolve(dirname(file), specifier);
    return { specifier, path, folder: inWeb(path).split('/')[0] };
  });
}

const BELOW_ROOMS = ['ui', 'shared', 'draw', 'src'];
const ALLOWED = {
  page: ['page', 'hand', 'pipeline', 'training', 'real-heads', 'poems', 'gpt2', 'gqa', ...BELOW_ROOMS],
  // The widget draws a head's weights, the concat and the output as §3 does (web/hand/maps.js).
  widget: ['widget', 'hand', 'training', ...BELOW_ROOMS],
  hand: ['hand', ...BELOW_ROOMS],
  pipeline: ['pipeline', ...BELOW_ROOMS],
  // The coda measures the poetry model made grouped-query with poems/'s held-out measure and heads/'s roles.
  gqa: ['gqa', 'poems', 'heads', ...BELOW_ROOMS],
  training: ['training', ...BELOW_ROOMS],
  // §10 is one frame (web/real-heads/) over two models that know nothing of each other; both measure and
  // draw their heads with web/heads/, which knows neither model: each hands its own data in.
  'real-heads': ['real-heads', 'poems', 'gpt2', 'heads', ...BELOW_ROOMS],
  poems: ['poems', 'heads', ...BELOW_ROOMS],
  gpt2: ['gpt2', 'heads', ...BELOW_ROOMS],
  heads: ['heads', 'ui', 'shared', 'draw'],
  ui: ['ui', 'shared', 'draw'],
  shared: ['shared', 'draw', 'src'],
  draw: ['draw'],
  // The API stands on the wasm core alone.
  src: ['src', 'dist'],
  // Node only: the server, the bundler (which typesets §5's TeX from the page's formula-tex.js), the compressed copies.
  tools: ['tools', 'page'],
};

// Files a module may name although its floor stands below their folder: data, which depends on nothing. The API's
// default poetry model is the two files web/poems/build/train.js wrote, named by web/src/poem-model.js alone.
const DATA = { 'src/poem-model.js': ['poems/poems.safetensors', 'poems/poems.card.json'] };

test('the specifiers read: static and dynamic imports, new URL(…, import.meta.url); not comments, nothing computed', () => {
  const source = `// new Worker(new URL('./…', import.meta.url)) is what bundlers follow
import { a } from './a.js';
export { b } from "../b.js";
import './c.js';
const d = await import(/* @vite-ignore */ './d.js');
const e = new Worker(new URL('./e.js', import.meta.url), { type: 'module' });
const f = new URL(\`../poems/f.safetensors\`, import.meta.url);
const g = await import(\`./\${name}.js\`); const h = new URL(address, import.meta.url); import('node:fs');`;
  assert.deepEqual(moduleSpecifiers(source), { imports: ['./a.js', '../b.js', './c.js', './d.js', 'node:fs'], urls: ['./e.js', '../poems/f.safetensors'] });
});

for (const [floor, allowed] of Object.entries(ALLOWED)) {
  test(`web/${floor}/ depends only on ${allowed.map((f) => `web/${f}/`).join(', ')}, and every file it names is there`, () => {
    for (const file of modules(floor)) {
      const name = inWeb(file);
      for (const { specifier, path, folder } of dependencies(file)) {
        assert.ok(existsSync(path), `${name} names ${specifier}, which is not there`);
        const data = DATA[name]?.includes(inWeb(path));
        assert.ok(allowed.includes(folder) || data, `${name} depends on web/${folder}/ (${specifier})`);
      }
    }
  });
}

/** The first cycle in a graph of folders ({ folder: [folders it depends on] }), as a path back to its start, or null. */
function cycleIn(graph) {
  const done = new Set();
  const visit = (folder, path) => {
    if (path.includes(folder)) return [...path.slice(path.indexOf(folder)), folder];
    if (done.has(folder)) return null;
    for (const next of graph[folder] ?? []) {
      const cycle = visit(next, [...path, folder]);
      if (cycle) return cycle;
    }
    done.add(folder);
    return null;
  };
  for (const folder of Object.keys(graph)) {
    const cycle = visit(folder, []);
    if (cycle) return cycle;
  }
  return null;
}

test('a cycle of folders is found, directly or through a third', () => {
  assert.deepEqual(cycleIn({ poems: ['gpt2'], gpt2: ['poems'] }), ['poems', 'gpt2', 'poems']);
  assert.deepEqual(cycleIn({ a: ['b'], b: ['c'], c: ['a'] }), ['a', 'b', 'c', 'a']);
  assert.equal(cycleIn({ page: ['poems', 'heads'], poems: ['heads'], heads: [] }), null);
});

test('no two folders of web/ depend on each other, by their floors or by their modules, directly or through a third', () => {
  const others = (folder, list) => [...new Set(list)].filter((other) => other !== folder);
  const floors = Object.fromEntries(Object.entries(ALLOWED).map(([floor, allowed]) => [floor, others(floor, allowed)]));
  assert.equal(cycleIn(floors)?.join(' → ') ?? null, null, 'the floors allow a cycle');
  // A data file (a model, the wasm) depends on nothing, so only modules count.
  const modulesNamed = Object.fromEntries(Object.keys(ALLOWED).map((floor) => [floor, others(floor,
    modules(floor).flatMap((file) => dependencies(file).filter(({ path }) => /\.m?js$/.test(path)).map(({ folder }) => folder)))]));
  assert.equal(cycleIn(modulesNamed)?.join(' → ') ?? null, null, 'the modules depend on each other in a cycle');
});

test('every folder of web/ with modules has a floor above (web/dist/ is built)', () => {
  const folders = readdirSync(web, { withFileTypes: true }).filter((entry) => entry.isDirectory() && entry.name !== 'dist').map((entry) => entry.name);
  for (const folder of folders) {
    if (modules(folder).length) assert.ok(folder in ALLOWED, `web/${folder}/ has modules and no floor in ALLOWED`);
  }
});

test('the Node-only tools (web/tools/, and web/poems/build/ that made the model): no module outside them names them, and only they use Node', () => {
  const isTool = (name) => name.startsWith('tools/') || name.startsWith('poems/build/');
  for (const floor of Object.keys(ALLOWED)) {
    for (const file of modules(floor)) {
      const name = inWeb(file);
      const tool = isTool(name);
      for (const { specifier, path } of dependencies(file)) {
        if (!tool) assert.ok(!isTool(inWeb(path)), `${name} depends on a Node tool (${specifier})`);
      }
      if (!tool) assert.ok(!moduleSpecifiers(readFileSync(file, 'utf8')).imports.some((specifier) => specifier.startsWith('node:')), `${name} imports Node`);
    }
  }
});
