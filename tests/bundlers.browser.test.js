// The package in bundler apps, as a course author would build them from the README's recipes: the
// tarball `npm pack` makes, installed into a Vite app (built, and served by the dev server), a webpack
// app and an esbuild bundle, each opened in Chromium. Checked: no warning about Node built-ins, the
// lesson's numbers, the keyboard, training in a worker that is handed the page's core (it fetches no
// wasm), one copy of the loader and one wasm instance on the page, and LOAD_FAILED when the wasm is gone.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { build } from 'esbuild';
import { launchChromium } from './browser.js';
import { root, recipe, packTarball, installApp, writeFiles, serveDirectory, openClient, checkLesson, checkKeyboard, checkTraining } from './clients.js';

const viteCli = join(root, 'node_modules/vite/bin/vite.js');
const webpackCli = join(root, 'node_modules/webpack-cli/bin/cli.js');
// A message only the Emscripten loader holds, which minifiers keep: once per copy of it in a script.
const LOADER_MARK = 'instantiateWasm callback failed';

let work;
let browser;
const apps = {}; // name → { url, close, buildLog }
let viteDev; // the dev server's process

/** Runs a bundler's command line in dir; its output is kept for the warnings check. */
function run(dir, args) {
  const result = spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  assert.equal(result.status, 0, `${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
  return result.stdout + result.stderr;
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'mha-bundlers-'));
  const tarball = packTarball(work);
  const readme = readFileSync(join(root, 'web/widget/README.md'), 'utf8');
  assert.ok(readme.includes(`npm install ./${basename(tarball)}`), `web/widget/README.md installs the file npm pack wrote, ${basename(tarball)}`);
  const vite = recipe('Vite');

  const viteApp = join(work, 'vite');
  installApp(viteApp, tarball, vite);
  const viteLog = run(viteApp, [viteCli, 'build']);

  const webpackApp = join(work, 'webpack');
  installApp(webpackApp, tarball, { 'src/index.js': vite['main.js'], ...recipe('webpack') });
  const webpackLog = run(webpackApp, [webpackCli, '--mode', 'production']);

  // esbuild follows neither new URL(…, import.meta.url) nor new Worker(…): the recipe copies the two files.
  const esbuildOut = join(viteApp, 'esbuild-out');
  const result = await build({ entryPoints: [join(viteApp, 'main.js')], bundle: true, format: 'esm', minify: true, outdir: esbuildOut, logLevel: 'silent', absWorkingDir: viteApp });
  const shipped = join(viteApp, 'node_modules/multihead-attention-lesson/web/dist');
  for (const file of ['mha-core.wasm', 'train-worker.js']) cpSync(join(shipped, file), join(esbuildOut, file));
  writeFiles(esbuildOut, { 'index.html': vite['index.html'] });

  for (const [name, dir, buildLog] of [['Vite', join(viteApp, 'dist'), viteLog], ['webpack', join(webpackApp, 'dist'), webpackLog], ['esbuild', esbuildOut, result.warnings.join('\n')]]) {
    apps[name] = { ...(await serveDirectory(dir)), buildLog };
  }

  viteDev = spawn(process.execPath, [viteCli, '--host', '127.0.0.1', '--port', '0', '--strictPort'], { cwd: viteApp, env: { ...process.env, NO_COLOR: '1' } });
  const devUrl = await new Promise((resolve, reject) => {
    let output = '';
    viteDev.stdout.on('data', (chunk) => {
      output += chunk;
      const found = /Local:\s+(http:\/\/127\.0\.0\.1:\d+\/)/.exec(output);
      if (found) resolve(found[1]);
    });
    viteDev.once('exit', (code) => reject(new Error(`vite exited (${code}): ${output}`)));
  });
  apps['Vite dev server'] = { url: devUrl, close: () => viteDev.kill(), buildLog: '' };

  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await Promise.all(Object.values(apps).map((app) => app.close()));
  if (work) rmSync(work, { recursive: true, force: true });
});

test('vite build and webpack: no warning about Node built-ins, nothing externalised', () => {
  for (const [name, app] of Object.entries(apps)) {
    assert.doesNotMatch(app.buildLog, /node:|externali[sz]ed|browser compatibility/i, `${name}:\n${app.buildLog}`);
  }
  assert.match(apps.Vite.buildLog, /mha-core-[\w-]+\.wasm/, 'Vite copied the wasm under a hashed name');
});

for (const name of ['Vite', 'Vite dev server', 'webpack', 'esbuild']) {
  test(`${name}: the lesson's numbers, the keyboard, training in a worker; one loader and one wasm instance`, async () => {
    const { page, context, log } = await openClient(browser, apps[name].url);
    try {
      await checkLesson(page);
      await page.waitForFunction(() => document.querySelector('#bill').textContent !== '');
      assert.equal(await page.textContent('#bill'), '2,359,296', 'the page uses the API too');
      await checkKeyboard(page);
      const workerUrls = await checkTraining(page);
      assert.equal(workerUrls.length, 1, `training runs in one worker: ${workerUrls}`);
      assert.deepEqual(log.errors, []);
      assert.deepEqual(log.offsite, []);

      // The worker was handed the page's compiled core: it fetched no wasm.
      const [worker] = page.workers();
      const fetched = (scope) => scope.evaluate(() => performance.getEntriesByType('resource').map((entry) => entry.name));
      const workerFetched = [worker.url(), ...(await fetched(worker))];
      assert.deepEqual(workerFetched.filter((address) => /\.wasm\b/.test(address)), []);
      const wasmRequests = log.requests.filter((address) => /\.wasm\b/.test(address));
      assert.equal(wasmRequests.length, 1, `one wasm download: ${wasmRequests}`);
      assert.deepEqual(await page.evaluate(() => window.wasmCalls), { compile: 1, instantiate: 1 }, 'one wasm instance in the page');

      // One copy of the loader in the scripts the page runs, one in the worker's (another thread). Counted
      // on built apps: the dev server serves modules one by one, and Chromium then lists a module
      // worker's imports among the page's resources.
      if (name === 'Vite dev server') return;
      const copies = async (addresses) => {
        let count = 0;
        for (const address of new Set(addresses.filter((a) => !/\.(wasm|css|html)\b/.test(a)))) count += (await (await fetch(address)).text()).split(LOADER_MARK).length - 1;
        return count;
      };
      const pageFetched = (await fetched(page)).filter((address) => address !== worker.url());
      assert.equal(await copies(pageFetched), 1, `the page's scripts hold the loader once: ${pageFetched}`);
      assert.equal(await copies(workerFetched), 1, `the worker's scripts hold it once: ${workerFetched}`);
    } finally {
      await context.close();
    }
  });
}

test('Vite: a wasm the server cannot give (404, or an HTML fallback page) shows LOAD_FAILED within 5 s in both widgets', async () => {
  for (const answer of [{ status: 404, body: 'not found' }, { status: 200, contentType: 'text/html', body: '<!doctype html><title>app</title>' }]) {
    const { page, context } = await openClient(browser, apps.Vite.url, {
      before: (ctx) => ctx.route('**/*.wasm', (route) => route.fulfill(answer)),
    });
    try {
      await page.waitForFunction(() => [...document.querySelectorAll('multi-head-attention')]
        .every((el) => el.shadowRoot.querySelector('[data-code="LOAD_FAILED"]')), null, { timeout: 5000 });
      const train = await page.$eval('multi-head-attention[view="train"]', (el) => el.shadowRoot.textContent);
      assert.doesNotMatch(train, /Starting the trainer|正在启动训练/, 'no endless "starting" message');
    } finally {
      await context.close();
    }
  }
});

test('Vite: a worker script that does not load, or a worker that never answers, leaves training to the page', async () => {
  const answers = [{ status: 404, body: 'not found' }, { status: 200, contentType: 'text/javascript', body: '// loads, then never answers' }];
  await Promise.all(answers.map(async (answer) => {
    const { page, context, log } = await openClient(browser, apps.Vite.url, {
      before: (ctx) => ctx.route('**/train-worker*', (route) => route.fulfill(answer)),
    });
    try {
      await checkLesson(page);
      const started = Date.now();
      assert.deepEqual(await checkTraining(page), [], 'no worker is left running');
      if (answer.status === 200) assert.ok(Date.now() - started < 15000, 'a silent worker is given up after 10 s');
      assert.deepEqual(log.errors.filter((text) => !/404|Failed to load resource/.test(text)), []);
    } finally {
      await context.close();
    }
  }));
});
