// The web code's floors (README, "How the web code is layered"): the page and the widget stand on
// web/shared/ and web/draw/, never on each other; shared modules and drawing know neither front.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const web = fileURLToPath(new URL('../web/', import.meta.url));

function modules(folder) {
  return readdirSync(join(web, folder), { recursive: true }).filter((file) => file.endsWith('.js')).map((file) => join(web, folder, file));
}

/** The web/ folders a module imports from ('page', 'widget', 'shared', 'draw', 'src', 'dist'). */
function importedFolders(file) {
  const source = readFileSync(file, 'utf8');
  return [...source.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s*['"](\.[^'"]+)['"]/gm)]
    .map(([, specifier]) => relative(web, resolve(dirname(file), specifier)).split(/[\\/]/)[0]);
}

const ALLOWED = {
  // The page measures the poetry model with the card's own definitions (web/model/head-roles.js, evaluate.js).
  page: ['page', 'shared', 'draw', 'src', 'model'],
  widget: ['widget', 'shared', 'draw', 'src'],
  shared: ['shared', 'draw', 'src'],
  draw: ['draw'],
};

for (const [floor, allowed] of Object.entries(ALLOWED)) {
  test(`web/${floor}/ imports only from ${allowed.map((f) => `web/${f}/`).join(', ')}`, () => {
    for (const file of modules(floor)) {
      for (const folder of importedFolders(file)) {
        assert.ok(allowed.includes(folder), `${relative(web, file)} imports from web/${folder}/`);
      }
    }
  });
}
