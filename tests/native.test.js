// The C unit tests, built natively under AddressSanitizer and UBSan by build.sh.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

test('native C tests pass under ASan + UBSan', () => {
  const binary = fileURLToPath(new URL('../c/build/test_native', import.meta.url));
  const run = spawnSync(binary, { encoding: 'utf8', env: { ...process.env, ASAN_OPTIONS: 'detect_leaks=1' } });
  assert.equal(run.error, undefined, `could not run ${binary}: run bash build.sh`);
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /native C tests: passed \(0 failed checks\)/);
});
