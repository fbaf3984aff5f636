// GPT-2 small in the wasm core: load time, peak heap and the time of one forward of 64 tokens (and of one token
// more, the 63 before it kept), in Node and in headless Chromium. The repository cannot ship GPT-2's weights, so this writes a file with GPT-2 small's exact
// tensor names, shapes and F32 layout and random weights (548 MB as Hugging Face's, in the system's temporary folder, deleted
// at the end) and loads it as a Blob, the way the page loads the file a teacher picks.
//
//   node tests/bench/gpt2.js [--no-chromium] [--runs 9]
import { openAsBlob, rmSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadAttention } from '../../web/src/attention.js';
import { ISOLATION_HEADERS } from '../../web/tools/serve.js';
import { GPT2_SMALL, gpt2WeightBytes, writeGpt2Small } from './gpt2-file.js';
import { timeForwards } from './forwards.js';

const TOKENS = 64;
const USAGE = `usage: node tests/bench/gpt2.js [--no-chromium] [--runs N]
  Writes a 548 MB file shaped as GPT-2 small to the system's temporary folder (deleted at the end), then times
  its load and forwards in Node and, unless --no-chromium, in headless Chromium and the lesson page.
    --runs N        the forwards timed in each, whose median is printed (default 9)
    --no-chromium   Node alone
    --help          this text`;

/** The options, read before any work: --help prints the usage; a wrong argument stops with it (exit 2). */
function readOptions(args) {
  const wrong = (message) => {
    console.error(`tests/bench/gpt2.js: ${message}\n${USAGE}`);
    process.exit(2);
  };
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: { 'no-chromium': { type: 'boolean' }, runs: { type: 'string', default: '9' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (error) {
    wrong(error.message);
  }
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) wrong(`--runs must be a whole number from 1 up, got "${values.runs}"`);
  return { runs, withChromium: !values['no-chromium'] };
}

const { runs, withChromium } = readOptions(process.argv.slice(2));

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

const ids = Array.from({ length: TOKENS }, (_, i) => (i * 7919 + 11) % GPT2_SMALL.vocab);

async function inNode(path) {
  const mha = await loadAttention();
  const heapBefore = mha.memoryBytes();
  const start = performance.now();
  const model = await mha.loadModel(await openAsBlob(path), { maxTokens: TOKENS }); // as the page loads it
  const loadMs = performance.now() - start;
  const heapLoaded = mha.memoryBytes();
  const { full, added } = timeForwards(model, ids, runs);
  const config = { ...model.config };
  model.dispose();
  return { config, threads: mha.threads, loadMs, heapBefore, heapLoaded, heapPeak: mha.memoryBytes(), forwardMs: median(full), addedMs: median(added), rssPeak: process.resourceUsage().maxRSS * 1024 };
}

async function inChromium(path) {
  const { startBrowserAndServer } = await import('../browser.js');
  const served = await startBrowserAndServer();
  try {
    const page = await served.browser.newPage();
    const blank = `${served.baseUrl}__gpt2-bench.html`;
    // Cross-origin isolated, as the lesson page is served: so the threaded core runs, as in Node.
    await page.route(blank, (route) => route.fulfill({ contentType: 'text/html', headers: ISOLATION_HEADERS, body: '<!doctype html><title>bench</title><input type="file" id="file">' }));
    await page.goto(blank);
    await page.setInputFiles('#file', path);
    return await page.evaluate(async ([ids, runs, timing, maxTokens]) => {
      const { loadAttention } = await import('/src/attention.js');
      const mha = await loadAttention();
      const start = performance.now();
      const model = await mha.loadModel(document.querySelector('#file').files[0], { maxTokens });
      const loadMs = performance.now() - start;
      const timeForwards = (0, eval)(`(${timing})`); // forwards.js's, sent as its source
      const { full, added } = timeForwards(model, ids, runs);
      const heapPeak = mha.memoryBytes();
      model.dispose();
      return { loadMs, full, added, heapPeak, threads: mha.threads, isolated: crossOriginIsolated, version: navigator.userAgent.match(/Chrome\/[\d.]+/)?.[0] };
    }, [ids, runs, timeForwards.toString(), TOKENS]).then(({ full, added, ...rest }) => ({ ...rest, forwardMs: median(full), addedMs: median(added) }));
  } finally {
    await served.close();
  }
}

/**
 * The lesson page's GPT-2 part with the file: picked with the file input, read and run in its worker. Times the
 * load to the first result and to the file's SHA-256 shown, and a 64-token run as the worker reports it, while a requestAnimationFrame loop
 * records the longest gap between frames on the page's main thread.
 */
async function inPage(path) {
  const { startBrowserAndServer, lessonDrawn } = await import('../browser.js');
  const served = await startBrowserAndServer();
  try {
    const page = await served.browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${served.baseUrl}?lang=en`);
    await lessonDrawn(page); // §10 is built once its module has come
    await page.locator('#poems-section').scrollIntoViewIfNeeded();
    await page.check('#poem-source-gpt2');
    const start = performance.now();
    await page.setInputFiles('#gpt2-drop input[type=file]', path);
    await page.waitForSelector('#gpt2-took:text-matches("took")', { timeout: 300000 });
    const loadMs = performance.now() - start;
    await page.waitForSelector('#gpt2-sha256 code', { timeout: 300000 }); // hashed beside the load, in a worker of its own
    const hashMs = performance.now() - start;
    // 62 tokens, `<|endoftext|>` first and the run's number last: within the 64 a run reads, so each run
    // changes the last token and keeps the 61 before it.
    const text = 'The quick brown fox jumps over the lazy dog. '.repeat(6);
    const times = [];
    let longestFrameMs = 0;
    for (let i = 0; i < runs; i++) {
      await page.evaluate(() => {
        window.longestFrame = 0;
        let last = performance.now();
        const frame = (now) => {
          window.longestFrame = Math.max(window.longestFrame, now - last);
          last = now;
          if (!window.stopFrames) requestAnimationFrame(frame);
        };
        window.stopFrames = false;
        requestAnimationFrame(frame);
      });
      await page.fill('#gpt2-body textarea', `${text}${i}`);
      await page.waitForFunction((want) => document.querySelector('#gpt2-tokens')?.dataset.key === `|${want}` && document.querySelector('#gpt2-tiles')?.dataset.drawn === '144', `${text}${i}`, { timeout: 60000 });
      times.push(Number((await page.textContent('#gpt2-took')).match(/took (\d+) ms/)[1]));
      longestFrameMs = Math.max(longestFrameMs, await page.evaluate(() => {
        window.stopFrames = true;
        return window.longestFrame;
      }));
    }
    const tokens = await page.$$eval('.gpt2-token', (items) => items.length);
    return { loadMs, hashMs, forwardMs: median(times), longestFrameMs, tokens };
  } finally {
    await served.close();
  }
}

const folder = mkdtempSync(join(tmpdir(), 'gpt2-bench-'));
const path = join(folder, 'model.safetensors');
try {
  const t0 = performance.now();
  writeGpt2Small(path);
  console.log(`wrote a GPT-2 small-shaped file: ${(statSync(path).size / 1e6).toFixed(0)} MB in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const node = await inNode(path);
  console.log(`config ${JSON.stringify(node.config)}`);
  const weights = gpt2WeightBytes();
  console.log(`Node ${process.version}: load ${(node.loadMs / 1000).toFixed(2)} s; heap ${mib(node.heapBefore)} before, ${mib(node.heapLoaded)} loaded, ${mib(node.heapPeak)} after the forwards timed (${(node.heapPeak / weights).toFixed(2)}× the ${mib(weights)} of weights, buffers for ${TOKENS} tokens); peak RSS ${mib(node.rssPeak)}`);
  console.log(`Node, ${node.threads} thread(s): forward of ${TOKENS} tokens (12 blocks + logits over ${GPT2_SMALL.vocab} tokens), median of ${runs}: ${node.forwardMs.toFixed(0)} ms; one token added to ${TOKENS - 1} kept: ${node.addedMs.toFixed(1)} ms`);
  if (withChromium) {
    const chromium = await inChromium(path);
    const lesson = await inPage(path);
    console.log(`the lesson page: file to first result ${(lesson.loadMs / 1000).toFixed(2)} s, to its SHA-256 shown ${(lesson.hashMs / 1000).toFixed(2)} s; the worker's run of ${lesson.tokens} tokens after the last one changed (every head on; the tokens before it kept), median of ${runs}: ${lesson.forwardMs} ms; longest gap between the page's frames meanwhile ${lesson.longestFrameMs.toFixed(0)} ms`);
    console.log(`Chromium ${chromium.version}, ${chromium.isolated ? 'cross-origin isolated' : 'not isolated'}, ${chromium.threads} thread(s): load ${(chromium.loadMs / 1000).toFixed(2)} s; heap ${mib(chromium.heapPeak)}; forward of ${TOKENS} tokens, median of ${runs}: ${chromium.forwardMs.toFixed(0)} ms (${(chromium.forwardMs / node.forwardMs).toFixed(2)}× Node's); one token added to ${TOKENS - 1} kept: ${chromium.addedMs.toFixed(1)} ms`);
  }
} finally {
  rmSync(folder, { recursive: true, force: true });
}
