// `npm run test:quick`: the Node unit and golden tests, a loop of about a minute with no browser, no build
// and no install. `npm test` runs every file, as CI does; only it runs the Chromium suites (*.browser.test.js)
// and the files below, which build with emcc or clang, or run the sanitized C binaries of `bash build.sh native`.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SLOW = new Set([
  'build.test.js', // rebuilds the wasm module with emcc
  'fuzzers.test.js', // builds the coverage-guided fuzzers with clang
  'native.test.js', // the C tests and the fuzz harnesses' seeded drivers under ASan + UBSan
]);

const dir = fileURLToPath(new URL('.', import.meta.url));
const quick = readdirSync(dir).filter((name) => name.endsWith('.test.js') && !name.endsWith('.browser.test.js') && !SLOW.has(name));
const run = spawnSync(process.execPath, ['--test', ...quick.sort().map((name) => dir + name)], { stdio: 'inherit' });
process.exitCode = run.status ?? 1;
