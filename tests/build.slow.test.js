// The build is reproducible, and the committed wasm core is what c/ builds: a rebuild, elsewhere, gives
// the same bytes, and in a git checkout the built files are the committed ones.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const BUILT = ['mha-core.wasm', 'mha-core.mjs', 'mha-core-mt.wasm', 'mha-core-mt.mjs', 'mha-core-mt.worker.js', 'mha-core-fma.wasm', 'mha-core-mt-fma.wasm'];
const CORE = [...BUILT, 'mha-core.inputs'].map((file) => `web/dist/${file}`);

test('a second build of the wasm module is byte-identical to web/dist', () => {
  const elsewhere = mkdtempSync(join(tmpdir(), 'mha-build-'));
  try {
    const run = spawnSync('bash', ['build.sh', '--wasm-to', elsewhere], { cwd: root, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    for (const file of BUILT) {
      const built = readFileSync(join(root, 'web/dist', file));
      assert.ok(built.equals(readFileSync(join(elsewhere, file))), `${file} differs between two builds`);
    }
  } finally {
    rmSync(elsewhere, { recursive: true, force: true });
  }
});

const git = (...args) => spawnSync('git', args, { cwd: root, encoding: 'utf8' });
const inCheckout = git('rev-parse', '--is-inside-work-tree').stdout.trim() === 'true';

test('the committed wasm core is what c/ builds (else: bash build.sh wasm, and commit web/dist/mha-core.*)', { skip: !inCheckout && 'not a git checkout' }, () => {
  assert.equal(git('ls-files', '--error-unmatch', ...CORE).status, 0, 'the wasm core is committed');
  const changed = git('status', '--porcelain', '--', ...CORE).stdout.trim();
  assert.equal(changed, '', `built from today's c/, these differ from the committed files:\n${changed}`);
});

test('build.sh refuses what it does not know, rather than building everything', () => {
  const run = spawnSync('bash', ['build.sh', 'wsam'], { cwd: root, encoding: 'utf8' });
  assert.equal(run.status, 2);
  assert.match(run.stderr, /unknown argument 'wsam' \(targets: wasm, native, web/);
});

test('the bundles’ colour schemes, pruned by web/tools/pure-schemes.js, give the colours the source gives', async () => {
  const { build } = await import('esbuild');
  const { pureSchemes } = await import('../web/tools/pure-schemes.js');
  const colours = join(root, 'web/draw/color.js');
  const bundled = async (plugins) => (await build({ entryPoints: [colours], bundle: true, minify: true, write: false, format: 'esm', plugins })).outputFiles[0].text;
  const [pruned, whole] = await Promise.all([bundled([pureSchemes]), bundled([])]);
  assert.ok(pruned.length < whole.length - 5000, `the unused schemes are dropped: ${pruned.length} against ${whole.length} bytes`);
  assert.ok(whole.includes('aliceblue') && !pruned.includes('aliceblue'), 'd3-color\'s table of CSS colour names is dropped');
  const { weightColor, signedColor } = await import(`data:text/javascript;base64,${Buffer.from(pruned).toString('base64')}`);
  const source = await import('../web/draw/color.js');
  for (let i = 0; i <= 100; i++) {
    assert.equal(weightColor(i / 100), source.weightColor(i / 100), `viridis at ${i / 100}`);
    assert.equal(signedColor(i / 50 - 1, [-1, 1]), source.signedColor(i / 50 - 1, [-1, 1]), `PuOr at ${i / 50 - 1}`);
  }
});
