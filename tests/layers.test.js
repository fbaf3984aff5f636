// The web code's floors (README, "How the web code is layered"): the page and the widget stand on
// web/shared/ and web/draw/, never on each other; shared modules and drawing know neither front; the API
// (web/src/) stands on the wasm core alone, and web/model/'s code on the API. A module depends on what it
// imports (statically or with import()) and on what it names with new URL('…', import.meta.url): a worker,
// a wasm file, a model file.
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { moduleSpecifiers } from './module-specifiers.js';

const web = fileURLToPath(new URL('../web/', import.meta.url));

function modules(folder) {
  return readdirSync(join(web, folder), { recursive: true }).filter((file) => file.endsWith('.js')).map((file) => join(web, folder, file));
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

const ALLOWED = {
  // The page measures the poetry model with the card's own definitions (web/model/head-roles.js, evaluate.js).
  page: ['page', 'shared', 'draw', 'src', 'model'],
  widget: ['widget', 'shared', 'draw', 'src'],
  shared: ['shared', 'draw', 'src'],
  draw: ['draw'],
  // The API stands on the wasm core alone.
  src: ['src', 'dist'],
  // web/model/train.js measures the model's card with the API, in wasm as the page does.
  model: ['model', 'src'],
};

// Files a module may name although its floor stands below their folder: data, which depends on nothing. The API's
// default poetry model is the two files web/model/train.js wrote, named by web/src/poem-model.js alone.
const DATA = { 'src/poem-model.js': ['model/poems.safetensors', 'model/poems.card.json'] };

test('the specifiers read: static and dynamic imports, new URL(…, import.meta.url); not comments, nothing computed', () => {
  const source = `// new Worker(new URL('./…', import.meta.url)) is what bundlers follow
import { a } from './a.js';
export { b } from "../b.js";
import './c.js';
const d = await import(/* @vite-ignore */ './d.js');
const e = new Worker(new URL('./e.js', import.meta.url), { type: 'module' });
const f = new URL(\`../model/f.safetensors\`, import.meta.url);
const g = await import(\`./\${name}.js\`); const h = new URL(address, import.meta.url); import('node:fs');`;
  assert.deepEqual(moduleSpecifiers(source), { imports: ['./a.js', '../b.js', './c.js', './d.js', 'node:fs'], urls: ['./e.js', '../model/f.safetensors'] });
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
