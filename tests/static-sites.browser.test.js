// The widget where course pages are written without a bundler, each from the README's recipe with the
// real tool and the built folder web/dist/widget/ copied as a teacher would: the folder alone under
// `python3 -m http.server` (its example page), a plain HTML page, a MkDocs site (Debian's mkdocs, whose
// extra_javascript writes a classic <script defer>) and a Jupyter notebook (Debian's jupyter-notebook, an HTML
// cell run in the page). Each must show the lesson's numbers, work from the keyboard and train.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launchChromium } from './browser.js';
import { recipe, writeFiles, serveDirectory, servePython, copyWidgetFolder, openClient, checkLesson, checkKeyboard, checkTraining } from './clients.js';

const hasMkdocs = spawnSync('mkdocs', ['--version']).status === 0;
const hasJupyter = spawnSync('jupyter-notebook', ['--version']).status === 0;
const MISSING = (tool, pkg) => `${tool} is not installed (apt-get install ${pkg}; .ci/run installs it)`;

let work;
let browser;
const sites = {}; // name → { url, close }

/** A port nothing listens on, for a server that cannot be asked for port 0. */
function freePort() {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Jupyter Notebook on dir, with its configuration and runtime files kept under dir. */
async function startJupyter(dir) {
  const port = await freePort();
  const env = { ...process.env, JUPYTER_CONFIG_DIR: join(dir, '.jupyter'), JUPYTER_DATA_DIR: join(dir, '.jupyter/data'), JUPYTER_RUNTIME_DIR: join(dir, '.jupyter/runtime'), IPYTHONDIR: join(dir, '.ipython') };
  const server = spawn('jupyter-notebook', ['--no-browser', '--allow-root', '--ip=127.0.0.1', `--port=${port}`, '--port-retries=0',
    '--NotebookApp.token=', '--NotebookApp.password=', `--notebook-dir=${dir}`], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise((resolve, reject) => {
    let output = '';
    const look = (chunk) => {
      output += chunk;
      if (/is running at/.test(output)) resolve();
    };
    server.stdout.on('data', look);
    server.stderr.on('data', look);
    server.once('exit', (code) => reject(new Error(`jupyter-notebook exited (${code}): ${output}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((resolve) => {
      server.once('exit', resolve);
      server.kill('SIGTERM'); // the notebook server shuts its kernels down on SIGTERM
    }),
  };
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'mha-sites-'));

  const folder = join(work, 'widget');
  copyWidgetFolder(folder);
  sites.folder = await servePython(folder);

  const plain = join(work, 'plain');
  writeFiles(plain, recipe('Plain HTML'));
  copyWidgetFolder(join(plain, 'widget'));
  sites.plain = await serveDirectory(plain);

  if (hasMkdocs) {
    const docs = join(work, 'mkdocs');
    writeFiles(docs, recipe('MkDocs'));
    copyWidgetFolder(join(docs, 'docs/widget'));
    const built = spawnSync('mkdocs', ['build', '--quiet'], { cwd: docs, encoding: 'utf8' });
    assert.equal(built.status, 0, built.stderr);
    sites.mkdocs = await serveDirectory(join(docs, 'site'));
  }

  if (hasJupyter) {
    const notebook = join(work, 'notebook');
    const cell = recipe('Jupyter')['lesson.ipynb'];
    writeFiles(notebook, {
      'lesson.ipynb': JSON.stringify({
        cells: [{ cell_type: 'code', execution_count: null, metadata: {}, outputs: [], source: cell.split(/(?<=\n)/) }],
        metadata: { kernelspec: { display_name: 'Python 3', language: 'python', name: 'python3' } },
        nbformat: 4,
        nbformat_minor: 5,
      }),
    });
    copyWidgetFolder(join(notebook, 'widget'));
    sites.jupyter = await startJupyter(notebook);
  }
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await Promise.all(Object.values(sites).map((site) => site.close()));
  if (work) rmSync(work, { recursive: true, force: true });
});

test('the widget folder alone under python3 -m http.server: its example page draws the lesson and trains, fetching only the folder', async () => {
  const { page, context, log } = await openClient(browser, sites.folder.url);
  try {
    assert.equal(await page.getAttribute('meta[name="viewport"]', 'content'), 'width=device-width, initial-scale=1');
    await checkLesson(page);
    await checkKeyboard(page);
    assert.equal((await checkTraining(page)).length, 1, 'training runs in a worker');
    assert.deepEqual(log.errors, []);
    assert.deepEqual(log.offsite, []);
    // The module form asks for the files beside it and nothing else; the classic form is the MkDocs test's.
    const fetched = new Set(log.requests.map((address) => new URL(address, sites.folder.url).pathname.slice(1) || 'index.html'));
    assert.deepEqual([...fetched].sort(), ['index.html', 'mha-core.wasm', 'train-worker.js', 'widget.js']);
    assert.deepEqual(readdirSync(join(work, 'widget')).sort(), ['index.html', 'mha-core.wasm', 'train-worker.js', 'widget.classic.js', 'widget.js'],
      'the folder holds what the widget fetches, in both forms, and its example page');
  } finally {
    await context.close();
  }
});

test('opened from the disk (file://), the folder says to serve it over http: in the example page\'s text, and from the classic form', async () => {
  const disk = join(work, 'disk');
  copyWidgetFolder(disk);
  writeFiles(disk, { 'classic.html': '<!doctype html><meta charset="utf-8"><script src="widget.classic.js"></script><multi-head-attention></multi-head-attention>' });
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    // No module script loads from file://: what the reader sees is the element's own text.
    await page.goto(pathToFileURL(join(disk, 'index.html')).href);
    assert.equal(await page.evaluate(() => customElements.get('multi-head-attention')), undefined, 'the module did not load');
    assert.match(await page.textContent('multi-head-attention[editable]'), /经由 http 打开[\s\S]*open this page over http/);
    // A classic script runs, but the page can fetch no wasm: the widget names the cause and the command.
    await page.goto(pathToFileURL(join(disk, 'classic.html')).href);
    assert.equal(await page.evaluate(() => document.querySelector('multi-head-attention').updateComplete), null, 'it shows an error');
    const error = await page.$eval('multi-head-attention', (el) => ({ code: el.shadowRoot.querySelector('.error').dataset.code, text: el.shadowRoot.textContent }));
    assert.equal(error.code, 'LOAD_FAILED');
    assert.match(error.text, /file:\/\/[\s\S]*python3 -m http\.server/);
  } finally {
    await context.close();
  }
});

test('plain HTML (the module widget.js): the lesson, the keyboard, training in a worker', async () => {
  const { page, context, log } = await openClient(browser, `${sites.plain.url}lesson.html`);
  try {
    await checkLesson(page);
    await checkKeyboard(page);
    assert.equal((await checkTraining(page)).length, 1, 'training runs in a worker');
    assert.deepEqual(log.errors, []);
    assert.deepEqual(log.offsite, []);
  } finally {
    await context.close();
  }
});

test('MkDocs (extra_javascript, a classic <script defer>): the lesson, the keyboard, training in a worker', { skip: !hasMkdocs && MISSING('mkdocs', 'mkdocs') }, async () => {
  const { page, context, log } = await openClient(browser, sites.mkdocs.url);
  try {
    assert.match(await page.content(), /<script src="widget\/widget\.classic\.js" defer(="")?><\/script>/, 'MkDocs wrote a classic deferred script');
    await checkLesson(page);
    await checkKeyboard(page);
    const workers = await checkTraining(page); // the theme's search runs in a worker too
    assert.equal(workers.filter((address) => address.endsWith('/widget/train-worker.js')).length, 1, `training runs in a worker: ${workers}`);
    // The mkdocs theme fetches highlight.js from a CDN, which this test blocks; nothing else may fail.
    assert.deepEqual(log.offsite.filter((address) => !address.startsWith('https://cdnjs.cloudflare.com/ajax/libs/highlight.js/')), []);
    assert.deepEqual(log.errors.filter((text) => !/hljs is not defined|net::ERR_FAILED/.test(text)), []);
  } finally {
    await context.close();
  }
});

test('Jupyter Notebook (an HTML cell): run the cell, then the lesson, the keyboard, training in a worker', { skip: !hasJupyter && MISSING('jupyter-notebook', 'jupyter-notebook python3-ipykernel') }, async () => {
  const { page, context, log } = await openClient(browser, `${sites.jupyter.url}notebooks/lesson.ipynb`);
  try {
    await page.waitForFunction(() => window.Jupyter?.notebook?.kernel?.is_connected(), null, { timeout: 30000 });
    await page.click('.cell .input_area');
    await page.keyboard.press('Shift+Enter');
    await checkLesson(page);
    // In a notebook Tab belongs to the code cells: a learner clicks a slider, then uses the arrow keys.
    await checkKeyboard(page, { reach: 'focus' });
    assert.equal((await checkTraining(page)).length, 1, 'training runs in a worker');
    // The notebook's own page asks for an ipywidgets extension Debian does not ship; nothing of ours fails.
    assert.deepEqual(log.errors.filter((text) => !/404|MIME type \('text\/html'\)/.test(text)), []);
    assert.deepEqual(log.requests.filter((address) => /\/files\/widget\//.test(address) && /\.(js|wasm)$/.test(address)).sort(),
      ['mha-core.wasm', 'train-worker.js', 'widget.js'].map((file) => `${sites.jupyter.url}files/widget/${file}`));
    assert.deepEqual(log.offsite, []);
  } finally {
    await context.close();
  }
});
