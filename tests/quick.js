// `npm run test:quick`: the loop while editing. It runs every tests/*.test.js but two kinds, told apart by name:
//   *.browser.test.js   the Chromium suites;
//   *.slow.test.js      the files that compile (emcc, gcc, clang), bundle (build.sh, esbuild), pack (npm pack),
//                       start `npm start`, run the sanitized C binaries or read what a build makes.
// `npm test` (node --test tests/) runs all three kinds. So a quick file needs no compiler and no build: it runs
// on a fresh clone. Each file runs in a process of its own, as many at once as the machine has cores, and has a
// budget of time: a file over FILE_BUDGET_S, or the whole tier over TOTAL_BUDGET_S, fails the tier, named with
// its time. Make it quicker, or move what is slow into a *.slow.test.js file (tests/README.md).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { availableParallelism, constants, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const FILE_BUDGET_S = 20;
const TOTAL_BUDGET_S = 60;
/** A file still running at this many times its budget is stopped: it has failed, and may never end. */
const STOP_AFTER = 3;

const isQuick = (name) => name.endsWith('.test.js') && !name.endsWith('.browser.test.js') && !name.endsWith('.slow.test.js');

const dir = fileURLToPath(new URL('.', import.meta.url));
// Largest first: the longest files start early, so none is left running alone at the end.
const files = readdirSync(dir).filter(isQuick).sort((a, b) => statSync(dir + b).size - statSync(dir + a).size || a.localeCompare(b));

/** Seconds of CPU used by this process and the children it has waited for, where Linux says (/proc). */
function cpuSeconds() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').replace(/^.*\) /s, '').split(' ');
    return fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks), 0) / 100; // utime stime cutime cstime, in USER_HZ
  } catch {
    return null;
  }
}

const running = new Set();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const child of running) stop(child);
    process.exit(128 + constants.signals[signal]);
  });
}

/** Ends a file's process group (its test runner and the process that runs the file). */
function stop(child) {
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Runs one file with the test runner's spec reporter: { name, seconds, passed, output }. */
function runFile(name) {
  return new Promise((resolve) => {
    const begun = performance.now();
    const child = spawn(process.execPath, ['--test', '--test-reporter=spec', dir + name], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    running.add(child);
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    let stopped = false;
    const timer = setTimeout(() => {
      stopped = true;
      stop(child);
    }, STOP_AFTER * FILE_BUDGET_S * 1000);
    child.on('close', (code) => {
      clearTimeout(timer);
      running.delete(child);
      const seconds = (performance.now() - begun) / 1000;
      if (stopped) output += `\nquick.js: stopped after ${seconds.toFixed(1)} s, ${STOP_AFTER} times the budget of a file\n`;
      resolve({ name, seconds, passed: code === 0 && !stopped, output });
    });
  });
}

/** One line for a file that passed: its time and tests, then the tests it skipped, with their reasons. */
function summary({ name, seconds, output }) {
  const plain = output.replace(/\x1b\[[0-9;]*m/g, '');
  const count = (what) => Number(plain.match(new RegExp(`^ℹ ${what} (\\d+)$`, 'm'))?.[1] ?? 0);
  const skipped = plain.split('\n').filter((line) => /^\s*﹣ /.test(line)).map((line) => `    ${line.trim().replace(/ \([\d.]+ms\)/, '')}`);
  const tests = count('tests');
  return [`✔ ${name}  ${seconds.toFixed(1)} s  (${tests} test${tests === 1 ? '' : 's'}${skipped.length ? `, ${skipped.length} skipped` : ''})`, ...skipped].join('\n');
}

const load = loadavg()[0];
const cpuBefore = cpuSeconds();
const begun = performance.now();
const queue = [...files];
const results = [];
const workers = Array.from({ length: Math.min(availableParallelism(), files.length) }, async () => {
  while (queue.length) {
    const result = await runFile(queue.shift());
    results.push(result);
    console.log(result.passed ? summary(result) : `${result.output.trimEnd()}\n✖ ${result.name}  ${result.seconds.toFixed(1)} s: failed`);
  }
});
await Promise.all(workers);
const total = (performance.now() - begun) / 1000;
const cpuAfter = cpuSeconds();

const failed = results.filter((result) => !result.passed);
const over = results.filter((result) => result.seconds > FILE_BUDGET_S).sort((a, b) => b.seconds - a.seconds);
const slowest = [...results].sort((a, b) => b.seconds - a.seconds).slice(0, 5);
const cpu = cpuBefore === null || cpuAfter === null ? '' : `, ${(cpuAfter - cpuBefore).toFixed(1)} s of CPU`;
console.log(`\nquick tier: ${files.length} files in ${total.toFixed(1)} s${cpu}, ${workers.length} at a time (load average ${load.toFixed(1)} at the start)`);
console.log(`slowest: ${slowest.map(({ name, seconds }) => `${name} ${seconds.toFixed(1)} s`).join(', ')}`);
for (const { name, seconds } of over) {
  console.log(`✖ ${name} took ${seconds.toFixed(1)} s, over the ${FILE_BUDGET_S} s a quick file may take: make it quicker, or move what is slow into a *.slow.test.js file`);
}
if (total > TOTAL_BUDGET_S) console.log(`✖ the quick tier took ${total.toFixed(1)} s, over its budget of ${TOTAL_BUDGET_S} s: the slowest files are above`);
for (const { name } of failed) console.log(`✖ ${name} failed: its output is above`);
process.exitCode = failed.length || over.length || total > TOTAL_BUDGET_S ? 1 : 0;
