// The TypeScript declarations that ship with the package compile against a program using the API.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
const usage = fileURLToPath(new URL('./types/usage.ts', import.meta.url));

test('web/src/attention.d.ts and web/widget/widget.d.ts describe the API a program uses', () => {
  const run = spawnSync(process.execPath, [tsc, '--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext',
    '--moduleResolution', 'nodenext', '--lib', 'es2022,dom', usage], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stdout + run.stderr);
});
