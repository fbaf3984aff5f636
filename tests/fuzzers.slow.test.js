// The documented commands run as written: the coverage-guided fuzzers (Debian's clang and libFuzzer) that
// c/README.md and the harnesses' header comments give, built and run for a few seconds each, the model loader's
// with hostile seeds in its corpus; the build of the native GPT benchmark that its header gives; and the GPT-2
// bench's arguments, read before it writes its 548 MB file.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const FUZZ_SECONDS = 3;

/**
 * The compiler commands a file documents: each from a line that starts with `clang` or `gcc` (in a code block or
 * a comment) through the lines its trailing backslashes continue, as one line.
 */
function documentedCommands(file) {
  const text = readFileSync(join(root, file), 'utf8');
  return [...text.matchAll(/^[ \t]*((?:clang|gcc) (?:.*\\\n)*.*)$/gm)]
    .map(([, command]) => command.replace(/\\\n/g, ' ').replace(/\*\/\s*$/, '').trim().split(/\s+/).join(' '));
}

/** Headers with no tensors, each loaded as the bytes they are (a program's first byte 0) and four times, whole and in steps in turn (224). */
function emptyHeaderSeeds() {
  return ['{}', '{"__metadata__":{}}'].flatMap((header) => {
    const file = Buffer.alloc(8 + header.length);
    file.writeBigUInt64LE(BigInt(header.length));
    file.write(header, 8);
    return [0, 224].map((mode) => Buffer.concat([Buffer.from([mode]), file]));
  });
}

/** fn(folder) with a new folder in the system's temporary folder, removed afterwards. */
function withScratchFolder(fn) {
  const folder = mkdtempSync(join(tmpdir(), 'fuzzers-'));
  try {
    return fn(folder);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Runs `command` with bash from `folder`, where it sees the repository's c/ and tests/ (so nothing lands in the work tree). */
function runIn(folder, command) {
  for (const name of ['c', 'tests']) symlinkSync(join(root, name), join(folder, name));
  return spawnSync('bash', ['-c', command], { cwd: folder, encoding: 'utf8', maxBuffer: 64 * 2 ** 20, timeout: 300_000 });
}

const fuzzSources = ['c/README.md', 'c/fuzz/fuzz_api.c', 'c/fuzz/fuzz_model.c'];
const fuzzCommands = new Map(); // command → the files that document it
for (const file of fuzzSources) {
  for (const command of documentedCommands(file)) fuzzCommands.set(command, [...(fuzzCommands.get(command) ?? []), file]);
}

test('c/README.md and each harness document a libFuzzer command for fuzz_api and fuzz_model', () => {
  const harnesses = (file) => documentedCommands(file).map((command) => command.match(/-o (fuzz_\w+) /)?.[1]).sort();
  assert.deepEqual(harnesses('c/README.md'), ['fuzz_api', 'fuzz_model']);
  assert.deepEqual(harnesses('c/fuzz/fuzz_api.c'), ['fuzz_api']);
  assert.deepEqual(harnesses('c/fuzz/fuzz_model.c'), ['fuzz_model']);
});

for (const [command, files] of fuzzCommands) {
  const harness = command.match(/-o (fuzz_\w+) /)?.[1];
  test(`${files.join(' and ')}: the libFuzzer command for ${harness} builds and fuzzes without a finding`, (t) => {
    const run = command.match(/ \.\/(fuzz_\w+) -max_total_time=\d+ (\S+)$/);
    assert.ok(run && run[1] === harness, `the command ends by running ./${harness} -max_total_time=SECONDS CORPUS: ${command}`);
    withScratchFolder((folder) => {
      if (harness === 'fuzz_model') {
        mkdirSync(join(folder, run[2]));
        emptyHeaderSeeds().forEach((seed, i) => writeFileSync(join(folder, run[2], `empty-header-${i}`), seed));
      }
      const result = runIn(folder, command.replace(/-max_total_time=\d+/, `-max_total_time=${FUZZ_SECONDS}`));
      const log = `${result.stdout}${result.stderr}`;
      assert.equal(result.status, 0, `${command}\n${log.slice(-6000)}\n(clang and its libFuzzer runtime: bash tests/install-tools.sh)`);
      const done = log.match(/Done (\d+) runs in (\d+) second/);
      assert.ok(done, log.slice(-2000));
      assert.deepEqual(readdirSync(folder).filter((name) => /^(crash|leak|timeout|oom)-/.test(name)), []);
      t.diagnostic(`${harness}: ${done[1]} runs in ${done[2]} s`);
    });
  });
}

test('c/build/fuzz_model (gcc, ASan + UBSan) replays headers with no tensors as BAD_MODEL, and refuses a file it cannot read', () => {
  const binary = join(root, 'c/build/fuzz_model');
  withScratchFolder((folder) => {
    const seeds = emptyHeaderSeeds().map((seed, i) => {
      const path = join(folder, `empty-header-${i}`);
      writeFileSync(path, seed);
      return path;
    });
    const replayed = spawnSync(binary, seeds, { encoding: 'utf8' });
    assert.equal(replayed.error, undefined, `could not run ${binary}: run bash build.sh native`);
    assert.equal(replayed.status, 0, replayed.stdout + replayed.stderr);
    // Each header loaded once, and four times: ten loads.
    assert.equal(replayed.stdout, 'fuzz_model: 4 inputs replayed, no broken promise; calls by status: BAD_MODEL 10\n');
    const missing = spawnSync(binary, [join(folder, 'no-such-input')], { encoding: 'utf8' });
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /^fuzz_model: cannot read the input .*no-such-input\n$/);
  });
});

test('tests/bench/bench_gpt.c: its documented build command builds a benchmark that runs', () => {
  const [command] = documentedCommands('tests/bench/bench_gpt.c');
  assert.match(command ?? '', /-o bench_gpt$/);
  withScratchFolder((folder) => {
    const built = runIn(folder, command);
    assert.equal(built.status, 0, `${command}\n${built.stderr}`);
    // 1 block, d_model 8, 2 heads, a vocabulary of 17, batches of 2 sequences of 5 tokens, 1 step.
    const ran = spawnSync(join(folder, 'bench_gpt'), ['1', '8', '2', '17', '2', '5', '1'], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(ran.status, 0, ran.stdout + ran.stderr);
  });
});

test('node tests/bench/gpt2.js: --help prints the usage, a wrong argument stops with it (exit 2), both before any file is written', () => {
  const bench = join(root, 'tests/bench/gpt2.js');
  withScratchFolder((temporary) => {
    // Its 548 MB file would go to TMPDIR: a run that starts working within the timeout leaves it there, or is killed.
    const run = (...args) => spawnSync(process.execPath, [bench, ...args], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, TMPDIR: temporary } });
    for (const help of ['--help', '-h']) {
      const helped = run(help);
      assert.equal(helped.status, 0, helped.stdout + helped.stderr);
      assert.match(helped.stdout, /^usage: node tests\/bench\/gpt2\.js \[--no-chromium\] \[--runs N\]/);
    }
    for (const [args, why] of [[['--frobnicate'], /--frobnicate/], [['extra'], /extra/], [['--runs'], /--runs/], [['--runs', 'x'], /--runs must be a whole number from 1 up, got "x"/],
      [['--runs', '0'], /got "0"/], [['--no-chromium', '--runs', '2.5'], /got "2.5"/]]) {
      const refused = run(...args);
      assert.equal(refused.status, 2, `${args.join(' ')}: ${refused.stdout}${refused.stderr}`);
      assert.match(refused.stderr, why);
      assert.match(refused.stderr, /usage: node tests\/bench\/gpt2\.js/);
      assert.equal(refused.stdout, '');
    }
    assert.deepEqual(readdirSync(temporary), [], 'nothing was written');
  });
});
