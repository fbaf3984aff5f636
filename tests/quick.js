// `npm run test:quick`: the Node unit and golden tests, a loop of about a minute with no browser, no build
// and no install. `npm test` runs every file, as CI does; only it runs two kinds, told apart by their names:
// the Chromium suites (*.browser.test.js) and the slow files (*.slow.test.js), which build with emcc or clang,
// or run the sanitized C binaries of `bash build.sh native`.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const isQuick = (name) => name.endsWith('.test.js') && !name.endsWith('.browser.test.js') && !name.endsWith('.slow.test.js');

const dir = fileURLToPath(new URL('.', import.meta.url));
const quick = readdirSync(dir).filter(isQuick);
const run = spawnSync(process.execPath, ['--test', ...quick.sort().map((name) => dir + name)], { stdio: 'inherit' });
process.exitCode = run.status ?? 1;
