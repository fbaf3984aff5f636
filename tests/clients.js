// Shared by the tests that put the widget into real clients (a Vite or webpack app, a reveal.js deck,
// a MkDocs site, a Jupyter notebook, a plain page): the README's recipes as files, the package as npm
// packs it, a static server for what a client built, and the checks every client must pass in Chromium.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sirv from 'sirv';
import { HANG_MS } from './browser.js';

export const root = fileURLToPath(new URL('..', import.meta.url));
/** The folder a page without a bundler copies (`npm run build` writes it), as the README names it. */
export const WIDGET_FOLDER = join(root, 'web/dist/widget');

/**
 * The files of one recipe in web/widget/README.md's "Use it in your course" section: under `### heading`, each
 * code block preceded by a line naming its file in backticks ("`docs/index.md`:", "`lesson.ipynb`, a
 * code cell:"). Returns { path: text }.
 */
export function recipe(heading) {
  const readme = readFileSync(join(root, 'web/widget/README.md'), 'utf8');
  const section = readme.split(/^## /m).find((part) => part.startsWith('Use it in your course'));
  assert.ok(section, 'web/widget/README.md has a "Use it in your course" section');
  const part = section.split(/^### /m).find((text) => text.startsWith(`${heading}\n`));
  assert.ok(part, `web/widget/README.md has a recipe "### ${heading}"`);
  const files = {};
  for (const [, path, text] of part.matchAll(/^`([^`\n]+)`[^`\n]*:\n\n```[\w-]*\n([\s\S]*?)^```$/gm)) files[path] = text;
  assert.ok(Object.keys(files).length > 0, `the recipe "${heading}" names its files`);
  return files;
}

/** Writes { relative path: text } under dir. */
export function writeFiles(dir, files) {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

/** `npm pack` of this repository into dir; returns the tarball's path. */
export function packTarball(dir) {
  const [{ filename }] = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
  return join(dir, filename);
}

/**
 * An app folder with the packed tarball copied in and installed from there, as the README says
 * (`npm install ./multihead-attention-lesson-0.1.0.tgz`); its dependencies from npm's cache when they can be.
 */
export function installApp(dir, tarball, files = {}) {
  writeFiles(dir, { 'package.json': JSON.stringify({ name: 'course-app', private: true, type: 'module' }, null, 2), ...files });
  cpSync(tarball, join(dir, basename(tarball)));
  execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', `./${basename(tarball)}`], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Copies the built widget folder to `to` (a recipe's `widget/`), as a teacher would. */
export function copyWidgetFolder(to) {
  cpSync(WIDGET_FOLDER, to, { recursive: true });
}

/**
 * `python3 -m http.server` in dir, the server the widget's README gives a teacher, on a free port of 127.0.0.1.
 * Resolves to { url, close }.
 */
export async function servePython(dir) {
  const server = spawn('python3', ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1'], { cwd: dir, stdio: ['ignore', 'pipe', 'ignore'] }); // its log of requests unread
  const url = await new Promise((resolve, reject) => {
    let output = '';
    server.stdout.on('data', (chunk) => {
      output += chunk;
      const found = /port (\d+)/.exec(output);
      if (found) resolve(`http://127.0.0.1:${found[1]}/`);
    });
    server.once('error', reject);
    server.once('exit', (code) => reject(new Error(`python3 -m http.server exited (${code}): ${output}`)));
  });
  return {
    url,
    close: () => new Promise((resolve) => {
      server.once('exit', resolve);
      server.kill('SIGTERM');
    }),
  };
}

/** Serves dir statically on 127.0.0.1 (wasm as application/wasm). Resolves to { url, close }. */
export async function serveDirectory(dir) {
  const server = http.createServer(sirv(dir, { dev: true }));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/**
 * Opens url in a fresh context. Records console errors and uncaught exceptions, every request (the page's
 * and its workers'), and aborts any request that leaves `origin` (a course page needs nothing else).
 * Counts the wasm compilations and instantiations of the page's main thread.
 */
export async function openClient(browser, url, { origin = new URL(url).origin, viewport = { width: 1200, height: 900 }, before } = {}) {
  const context = await browser.newContext({ viewport });
  const log = { errors: [], requests: [], offsite: [] };
  context.on('request', (request) => log.requests.push(request.url()));
  await context.route((address) => address.origin !== origin, (route) => {
    log.offsite.push(route.request().url());
    return route.abort();
  });
  await context.addInitScript(() => {
    window.wasmCalls = { compile: 0, instantiate: 0 };
    for (const name of ['compile', 'compileStreaming', 'instantiate', 'instantiateStreaming']) {
      const original = WebAssembly[name];
      WebAssembly[name] = function counted(...args) {
        window.wasmCalls[name.startsWith('compile') ? 'compile' : 'instantiate'] += 1;
        return original.apply(this, args);
      };
    }
  });
  await before?.(context);
  const page = await context.newPage();
  page.on('console', (message) => message.type() === 'error' && !/favicon/.test(message.location().url) && log.errors.push(message.text()));
  page.on('pageerror', (error) => log.errors.push(String(error)));
  await page.goto(url);
  return { page, context, log };
}

/** The first widget matching selector has rendered the lesson's table: head 1's 猫 row is 0.25 / 0.25 / 0.50. */
export async function checkLesson(page, selector = 'multi-head-attention:not([view="train"])') {
  await page.waitForFunction((s) => document.querySelector(s)?.result, selector, { timeout: HANG_MS });
  const row = await page.$eval(selector, (el) => Array.from(el.result.attention[0].slice(0, 3), (x) => Number(x.toFixed(2))));
  assert.deepEqual(row, [0.25, 0.25, 0.5]);
  const shown = await page.$eval(selector, (el) => el.shadowRoot.textContent);
  assert.match(shown, /0\.25[\s\S]*0\.50/, 'the numbers are drawn');
}

/** The element (inside shadow roots) that has the keyboard focus: its tag, type and widget. */
export function deepFocus(page) {
  return page.evaluate(() => {
    let active = document.activeElement;
    while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
    const host = active?.getRootNode()?.host;
    return { tag: active?.localName, type: active?.type ?? null, host: host?.localName ?? null, label: active?.getAttribute('aria-label') ?? null };
  });
}

/** Presses Tab until the focus is on a control matching `wanted` inside a widget; fails after `limit` presses. */
export async function tabTo(page, wanted, limit = 80) {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    const focus = await deepFocus(page);
    if (focus.host === 'multi-head-attention' && wanted(focus)) return focus;
  }
  assert.fail(`Tab never reached the control after ${limit} presses`);
}

/**
 * Keyboard: reach the first q slider (with Tab, or by focusing it where Tab belongs to the host, as in a
 * notebook's code cell) and move it with the arrow keys; the figures follow.
 */
export async function checkKeyboard(page, { selector = 'multi-head-attention[editable]', reach = 'tab' } = {}) {
  await page.waitForFunction((s) => document.querySelector(s)?.result, selector);
  if (reach === 'tab') await tabTo(page, (focus) => focus.type === 'range');
  else await page.locator(`${selector} input[type="range"]`).first().focus();
  const before = await page.$eval(selector, (el) => el.q[0][0]);
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(([s, value]) => document.querySelector(s).q[0][0] !== value, [selector, before]);
  const after = await page.$eval(selector, (el) => el.q[0][0]);
  assert.ok(Math.abs(after - before - 0.1) < 1e-9, `ArrowRight moved q[0][0] from ${before} to ${after}`);
}

/** The view="train" widget trains: Start, then the steps climb; returns the workers' script URLs. */
export async function checkTraining(page, selector = 'multi-head-attention[view="train"]') {
  const start = page.locator(`${selector} .train-start`);
  await start.waitFor({ timeout: HANG_MS });
  await page.waitForFunction((s) => document.querySelector(s).shadowRoot.querySelector('.train-start:not([disabled])'), selector, { timeout: HANG_MS });
  await start.click();
  await page.waitForFunction((s) => Number(document.querySelector(s).shadowRoot.querySelector('.mha-train').dataset.steps) >= 40, selector, { timeout: HANG_MS });
  return page.workers().map((worker) => worker.url());
}
