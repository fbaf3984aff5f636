// The build is reproducible: building the wasm module again, elsewhere, gives the same bytes.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

test('a second build of the wasm module is byte-identical to web/dist', () => {
  const elsewhere = mkdtempSync(join(tmpdir(), 'mha-build-'));
  try {
    const run = spawnSync('bash', ['build.sh', '--wasm-to', elsewhere], { cwd: root, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    for (const file of ['mha-core.wasm', 'mha-core.mjs']) {
      const built = readFileSync(join(root, 'web/dist', file));
      assert.ok(built.equals(readFileSync(join(elsewhere, file))), `${file} differs between two builds`);
    }
  } finally {
    rmSync(elsewhere, { recursive: true, force: true });
  }
});
