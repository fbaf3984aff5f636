// Benchmarks training the heads (mha.createTrainer, c/lib/train.c) on the default two-view task
// (vocab 16, L 8, d_model 8, batch 32, Adam lr 0.01), for h = 1, 2 and 4, in Node and in Chromium:
//   steps/s        training steps per second (after warm-up; median of 3 runs of 500 steps)
//   steps, time    to reach the target held-out accuracy (evaluated every `--every` steps; the wall
//                  time includes those evaluations, as the page's loop would)
//   final          held-out loss and accuracy after `--steps` steps
//   section        in Chromium, the page's 训练 section (web/training/panel.js, its Web Worker, default
//                  speed): wall time from "start" to the target, as a learner sees it
// Medians over seeds 0 .. N-1. The same measuring function runs in Node and in the Chromium page.
//
//   node tests/bench/train.js [--seeds N] [--steps N] [--every N] [--target A] [--no-browser] [--out FILE]
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const config = {
  seeds: Number(option('--seeds', 5)),
  maxSteps: Number(option('--steps', 3000)),
  every: Number(option('--every', 25)),
  target: Number(option('--target', 0.95)),
  heads: [1, 2, 4],
};
const outFile = path.resolve(option('--out', path.join(here, '..', 'artifacts', 'train-results.json')));

/** Self-contained (it is sent to the browser as source): measures every h on every seed. */
async function measure({ moduleUrl, seeds, maxSteps, every, target, heads }) {
  const { loadAttention } = await import(moduleUrl);
  const mha = await loadAttention();
  const median = (xs) => {
    const s = xs.filter((x) => x != null).sort((a, b) => a - b);
    return s.length ? s[Math.floor((s.length - 1) / 2)] : null;
  };
  const rows = [];
  for (const h of heads) {
    // steps per second: a warm-up, then 3 timed runs of 500 steps
    const speed = mha.createTrainer({ heads: h, seed: 1000 });
    speed.step(200);
    const rates = [];
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      speed.step(500);
      rates.push(500 / ((performance.now() - t0) / 1000));
    }
    const paramCount = speed.paramCount;
    speed.dispose();

    const runs = [];
    for (let seed = 0; seed < seeds; seed++) {
      const trainer = mha.createTrainer({ heads: h, seed });
      const t0 = performance.now();
      let reached = null;
      let ms = null;
      while (trainer.steps < maxSteps) {
        trainer.step(every);
        if (reached == null && trainer.evaluate().accuracy >= target) {
          reached = trainer.steps;
          ms = performance.now() - t0;
        }
      }
      const final = trainer.evaluate();
      runs.push({ seed, reached, ms, finalLoss: final.loss, finalAccuracy: final.accuracy, previous: final.previous.accuracy, first: final.first.accuracy });
      trainer.dispose();
    }
    rows.push({
      heads: h,
      paramCount,
      stepsPerSecond: median(rates),
      reachedCount: runs.filter((r) => r.reached != null).length,
      stepsToTarget: median(runs.map((r) => r.reached)),
      msToTarget: median(runs.map((r) => r.ms)),
      finalLoss: median(runs.map((r) => r.finalLoss)),
      finalAccuracy: median(runs.map((r) => r.finalAccuracy)),
      runs,
    });
  }
  return rows;
}

async function inChromium() {
  const { startBrowserAndServer } = await import('../browser.js');
  const session = await startBrowserAndServer();
  try {
    const page = await session.browser.newPage();
    await page.goto(`${session.baseUrl}dist/`).catch(() => {}); // any same-origin page will do
    const source = `(${measure.toString()})(${JSON.stringify({ ...config, moduleUrl: `${session.baseUrl}src/attention.js` })})`;
    const version = session.browser.version();
    const rows = await page.evaluate(source);
    await page.close();
    return { version, rows, section: await inSection(session) };
  } finally {
    await session.close();
  }
}

/**
 * The 训练 section as a learner sees it: bundled like web/tools/bundle.js does, training in its Web Worker at
 * the default speed (4 steps per 40 ms tick, with an evaluation and a redraw per tick). Wall time from
 * "start" to the target accuracy, for each h (seed 0).
 */
async function inSection(session) {
  const { build } = await import('esbuild');
  const web = path.join(here, '../../web/');
  const result = await build({
    entryPoints: [{ in: `${web}training/panel.js`, out: 'train-section' }, { in: `${web}training/train-worker.js`, out: 'train-worker' }],
    outdir: '/', write: false, bundle: true, format: 'esm', target: 'es2020', external: ['*.wasm', 'node:*'], logLevel: 'warning',
  });
  const bundles = Object.fromEntries(result.outputFiles.map((file) => [file.path.split('/').pop(), file.text]));
  const context = await session.browser.newContext();
  const js = (body) => ({ status: 200, contentType: 'text/javascript', body });
  await context.route('**/__train-bench.html', (route) => route.fulfill({ status: 200, contentType: 'text/html', body:
    `<!doctype html><meta charset="utf-8"><main id="host"></main><script type="module">import { mountTraining } from './dist/__train-section.js'; window.mountTraining = mountTraining;</script>` }));
  await context.route('**/dist/__train-section.js', (route) => route.fulfill(js(bundles['train-section.js'])));
  await context.route('**/dist/train-worker.js', (route) => route.fulfill(js(bundles['train-worker.js'])));
  const page = await context.newPage();
  await page.goto(`${session.baseUrl}__train-bench.html`);
  await page.waitForFunction(() => window.mountTraining);
  const out = [];
  for (const heads of config.heads) {
    out.push(await page.evaluate(async ({ heads, target }) => {
      const host = document.getElementById('host');
      host.replaceChildren();
      const training = window.mountTraining(host, { heads });
      await training.ready;
      await new Promise((resolve) => { const wait = () => (training.snapshot().eval ? resolve() : setTimeout(wait, 10)); wait(); });
      const t0 = performance.now();
      training.start();
      return new Promise((resolve) => {
        const poll = () => {
          const s = training.snapshot();
          if (s.eval && s.eval.accuracy >= target) resolve({ heads, runsIn: training.runsIn, steps: s.steps, ms: performance.now() - t0 });
          else if (s.steps >= 1500 || (!s.running && s.steps > 0)) resolve({ heads, runsIn: training.runsIn, steps: null, ms: null, finalAccuracy: s.eval.accuracy });
          else setTimeout(poll, 20);
        };
        poll();
      }).finally(() => training.dispose());
    }, { heads, target: config.target }));
  }
  await context.close();
  return out;
}

const fmt = (x, digits = 0) => (x == null ? '—' : x.toFixed(digits));
const fmtLoss = (x) => (x == null ? '—' : x < 0.01 ? x.toExponential(1) : x.toFixed(3));

const node = await measure({ ...config, moduleUrl: pathToFileURL(path.join(here, '../../web/src/attention.js')).href });
let chromium = null;
if (!args.includes('--no-browser')) {
  try {
    chromium = await inChromium();
  } catch (error) {
    console.error(`Chromium skipped: ${error.message.split('\n')[0]}`);
  }
}

console.log(`Training the heads: default task (vocab 16, L 8, d_model 8, batch 32, Adam lr 0.01), target held-out accuracy ${config.target}`);
console.log(`${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, Node ${process.versions.node}${chromium ? `, Chromium ${chromium.version}` : ''}; medians over seeds 0–${config.seeds - 1}, ${config.maxSteps} steps each\n`);
console.log('| h | d_k | params | steps/s Node | steps/s Chromium | reached | steps to target | time to target Node | time to target Chromium | final loss | final accuracy |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
node.forEach((row, i) => {
  const c = chromium?.rows[i];
  console.log(`| ${row.heads} | ${8 / row.heads} | ${row.paramCount} | ${fmt(row.stepsPerSecond)} | ${fmt(c?.stepsPerSecond)} | ${row.reachedCount}/${config.seeds} | ${fmt(row.stepsToTarget)} | ${row.msToTarget == null ? 'not reached' : `${fmt(row.msToTarget)} ms`} | ${c?.msToTarget == null ? (c ? 'not reached' : '—') : `${fmt(c.msToTarget)} ms`} | ${fmtLoss(row.finalLoss)} | ${fmt(row.finalAccuracy, 3)} |`);
});
if (chromium?.section) {
  console.log(`\nIn the page's 训练 section (Chromium, Web Worker, default speed: 4 steps per 40 ms tick), seed 0:`);
  for (const r of chromium.section) {
    console.log(`  h = ${r.heads}: ${r.ms == null ? `target not reached in 1500 steps (accuracy ${fmt(r.finalAccuracy, 3)})` : `target at step ${r.steps} after ${(r.ms / 1000).toFixed(1)} s`} (${r.runsIn})`);
  }
}
mkdirSync(path.dirname(outFile), { recursive: true });
writeFileSync(outFile, JSON.stringify({ config, machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.versions.node }, node, chromium }, null, 2));
console.log(`\nJSON: ${path.relative(process.cwd(), outFile)}`);
