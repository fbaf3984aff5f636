// The C binaries that bash build.sh native builds under AddressSanitizer and UBSan: the unit tests, and the
// seeded drivers of the two fuzz harnesses (c/fuzz/fuzz_api.c, the whole C API; c/fuzz/fuzz_model.c, the model loader).
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Runs c/build/`name` with `args`, leaks detected; its output, after checking it exited 0. */
function runNative(name, args = []) {
  const binary = fileURLToPath(new URL(`../c/build/${name}`, import.meta.url));
  const run = spawnSync(binary, args, { encoding: 'utf8', env: { ...process.env, ASAN_OPTIONS: 'detect_leaks=1' } });
  assert.equal(run.error, undefined, `could not run ${binary}: run bash build.sh native`);
  assert.equal(run.status, 0, run.stdout + run.stderr);
  return run.stdout;
}

/** A seeded fuzz run of `seconds` at most: its status counts, after checking it ran enough and broke no promise. */
function seededFuzz(name, seconds) {
  const stdout = runNative(name, ['2026', '20000', String(seconds)]);
  const summary = stdout.match(new RegExp(`${name}: (\\d+) runs from seed 2026, no broken promise; calls by status: (.*)`));
  assert.ok(summary, stdout);
  assert.ok(Number(summary[1]) >= 1000, `enough runs in the time allowed: ${summary[1]}`);
  return Object.fromEntries([...summary[2].matchAll(/(\w+) (\d+)/g)].map(([, code, n]) => [code, Number(n)]));
}

test('native C tests pass under ASan + UBSan, and the C writer saves the shipped model again to its same bytes', () => {
  const shipped = fileURLToPath(new URL('../web/poems/poems.safetensors', import.meta.url));
  assert.match(runNative('test_native', [shipped]), /native C tests: passed \(0 failed checks\)/);
});

test('seeded fuzz of the C API under ASan + UBSan (c/fuzz/fuzz_api.c)', () => {
  const seen = seededFuzz('fuzz_api', 30);
  for (const code of ['OK', 'BAD_SIZE', 'HEADS_NOT_DIVISOR', 'TOO_LARGE', 'SEQ_TOO_LONG', 'NOT_FINITE', 'BAD_INPUT', 'HEAD_INDEX', 'NO_FORWARD']) {
    assert.ok(seen[code] > 0, `the fuzz reached ${code}: ${JSON.stringify(seen)}`);
  }
});

test('seeded fuzz of the C loader with hostile bytes under ASan + UBSan (c/fuzz/fuzz_model.c)', () => {
  const seen = seededFuzz('fuzz_model', 3);
  for (const code of ['OK', 'BAD_MODEL', 'TOKEN_RANGE', 'SEQ_TOO_LONG']) assert.ok(seen[code] > 0, `the fuzz reached ${code}: ${JSON.stringify(seen)}`);
});
