// A newcomer's first `npm start` installs the locked packages (`npm ci`, from build.sh): it must print no
// warning. npm warns when a package's engines leave out the running Node (EBADENGINE: katex 0.19's commander 15
// and webpack-cli 7.3's rechoir 1.0 want Node 22) and when a package has install scripts that package.json's
// allowScripts does not cover (esbuild's postinstall). Both are read here from the lockfile, without installing.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const lock = JSON.parse(readFileSync(new URL('../package-lock.json', import.meta.url), 'utf8'));

/** Whether `version` (x.y.z) meets an npm engines range: `||` of space-separated >=, >, <=, <, ^, ~ or exact versions. */
function satisfies(version, range) {
  const parse = (text) => text.replace(/^v/, '').split('.').map((part) => (/^\d+$/.test(part) ? Number(part) : 0));
  const compare = (a, b) => {
    for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
    return 0;
  };
  const v = parse(version);
  return range.split('||').some((alternative) => alternative.trim().replace(/([<>=^~]+)\s+/g, '$1').split(/\s+/).every((comparator) => {
    const [, op = '', text] = comparator.match(/^([<>=^~]*)(.+)$/);
    const bound = parse(text);
    const given = text.split('.').filter((part) => /^\d+$/.test(part)).length; // ^13.7 fixes two parts, ^10 one
    const c = compare(v, bound);
    if (op === '>=') return c >= 0;
    if (op === '>') return c > 0;
    if (op === '<=') return c <= 0;
    if (op === '<') return c < 0;
    if (op === '^' || op === '~') {
      const fixed = op === '^' ? (bound[0] > 0 || given === 1 ? 1 : 2) : Math.min(given, 2);
      return c >= 0 && v.slice(0, fixed).every((part, i) => part === bound[i]);
    }
    return compare(v.slice(0, given), bound.slice(0, given)) === 0;
  }));
}

test('the engines check reads the forms the lockfile uses', () => {
  assert.ok(satisfies('20.16.0', '>=20.16') && !satisfies('20.15.1', '>=20.16'));
  assert.ok(satisfies('20.20.2', '>= 12') && !satisfies('20.20.2', '>= 22.15.0') && !satisfies('20.20.2', '>=22.12.0'));
  assert.ok(satisfies('20.20.2', '^20.19.0 || >=22.12.0') && !satisfies('20.18.0', '^20.19.0 || >=22.12.0') && satisfies('23.0.0', '^20.19.0 || >=22.12.0'));
  assert.ok(satisfies('13.8.0', '^10 || ^12 || ^13.7 || ^14 || >=15.0.1') && !satisfies('13.6.0', '^10 || ^12 || ^13.7'));
  assert.ok(satisfies('20.20.2', '>=0.8.x') && satisfies('20.0.0', '20') && !satisfies('21.0.0', '20'));
});

// The package's dependencies run wherever it does (package.json's engines, from Node 20.16); its development
// tools (vite 8, linkedom's parsers) need Node 20.19, and Debian's Node 20 is 20.20.
const PACKAGE_NODE = pkg.engines.node.match(/^>=\s*(\d+\.\d+(?:\.\d+)?)$/)[1];
const DEVELOPMENT_NODE = '20.19.0';

test(`every locked package accepts Node ${PACKAGE_NODE} (a dependency) or ${DEVELOPMENT_NODE} and this Node (a development tool): no EBADENGINE`, () => {
  const refused = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    const range = entry.engines?.node;
    if (!path || !range) continue;
    const nodes = entry.dev ? [DEVELOPMENT_NODE, process.versions.node] : [PACKAGE_NODE, process.versions.node];
    for (const node of nodes) if (!satisfies(node, range)) refused.push(`${path.replace(/^.*node_modules\//, '')}@${entry.version} wants Node ${range}, not ${node}`);
  }
  assert.deepEqual(refused, []);
});

test('every locked package with install scripts is covered by package.json\'s allowScripts: no install-scripts warning', () => {
  const covered = (name, version) => Object.keys(pkg.allowScripts ?? {}).some((key) => key === name || key === `${name}@${version}`);
  const uncovered = Object.entries(lock.packages)
    .filter(([path, entry]) => path && entry.hasInstallScript)
    .map(([path, entry]) => [path.replace(/^.*node_modules\//, ''), entry.version])
    .filter(([name, version]) => !covered(name, version));
  assert.deepEqual(uncovered, []);
});
