// The threaded core (mha-core-mt, c/lib/pool.c) and the single-threaded one side by side in Node: the same
// bits from both, errors in the same place, options checked, and a Node process that ends when its work
// does (idle threads must not keep it alive). Each `fresh(…)` is the package's entry with a loader of its own
// (attentionLoader), so a fresh core: attention.js's own loadAttention is the page's one instance
// (web/src/shared-core.js). The browser's two paths (isolated page or not) are in threads.browser.test.js.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import * as attention from '../web/src/attention.js';
import { attentionLoader } from '../web/src/load.js';
import { seededRandom, randomMatrix } from './seeded.js';

const attentionJs = new URL('../web/src/attention.js', import.meta.url);
const fresh = () => ({ ...attention, loadAttention: attentionLoader() });
const threadedModule = (mha) => WebAssembly.Module.imports(mha.wasmModule).some((entry) => entry.kind === 'memory');

const threaded = await (await fresh('threaded')).loadAttention();
const single = await (await fresh('single')).loadAttention({ threads: 1 });

test('Node loads the threaded core with a thread per core (up to 8); threads: 1 the single-threaded one', async () => {
  const { threadsAvailable } = await fresh('probe');
  assert.equal(threadsAvailable(), true);
  assert.equal(threaded.threads, Math.min(availableParallelism(), 8));
  assert.equal(threadedModule(threaded), true);
  assert.equal(single.threads, 1);
  assert.equal(threadedModule(single), false);
});

// Big enough that the products and the heads are spread over the threads (c/lib/pool.c: from 1 M multiply-adds).
function bigLayerInputs() {
  const random = seededRandom(20261201);
  const d = 256, L = 192;
  const m = (n, spread) => Float32Array.from(randomMatrix(random, n, spread));
  return { d, h: 8, L, args: { x: m(L * d, 1), wq: m(d * d, 0.12), wk: m(d * d, 0.12), wv: m(d * d, 0.06), wo: m(d * d, 0.06) } };
}

function everyTensor(mha, { d, h, L, args }, options) {
  const layer = mha.createLayer({ dModel: d, heads: h, maxLen: L });
  const result = layer.forward({ ...args, ...options });
  const tensors = [result.q(), result.k(), result.v(), result.concat(), result.output()].map((a) => a.slice());
  for (let i = 0; i < h; i++) tensors.push(result.attention(i).slice(), result.headOutput(i).slice());
  layer.dispose();
  return tensors;
}

test('a layer spread over the threads gives the same bits as on one (causal or not, a head switched off)', () => {
  const inputs = bigLayerInputs();
  for (const options of [{ causal: true }, { causal: false, enabled: [true, false, true, true, true, true, true, true] }]) {
    const many = everyTensor(threaded, inputs, options), one = everyTensor(single, inputs, options);
    assert.equal(many.length, one.length);
    many.forEach((tensor, i) => assert.deepEqual(tensor, one[i], `tensor ${i}, ${JSON.stringify(options)}`));
  }
});

test('beside the threaded core, a layer too small to share a step runs on the single-threaded one', () => {
  const sharedViews = (mha, dModel, maxLen) => {
    const layer = mha.createLayer({ dModel, heads: 4, maxLen });
    const random = seededRandom(dModel * 1000 + maxLen);
    const m = (n) => Float32Array.from(randomMatrix(random, n, 0.3));
    const output = layer.forward({ x: m(maxLen * dModel), wq: m(dModel * dModel), wk: m(dModel * dModel), wv: m(dModel * dModel), wo: m(dModel * dModel) }).output();
    const result = { shared: output.buffer instanceof SharedArrayBuffer, output: output.slice() };
    layer.dispose();
    return result;
  };
  // c/lib/pool.c shares steps from 2^20 multiply-adds: 64 rows × 128² is the first such layer, 63 rows stay under.
  for (const [dModel, maxLen, spread] of [[4, 3, false], [64, 16, false], [128, 63, false], [128, 64, true], [256, 192, true]]) {
    const many = sharedViews(threaded, dModel, maxLen), one = sharedViews(single, dModel, maxLen);
    assert.equal(many.shared, spread, `d ${dModel}, L ${maxLen}: ${spread ? 'the threaded core' : 'the single-threaded core'}`);
    assert.equal(one.shared, false);
    assert.deepEqual(many.output, one.output, `d ${dModel}, L ${maxLen}: the same bits`);
  }
  const bad = (mha) => {
    try {
      mha.createLayer({ dModel: 6, heads: 4, maxLen: 3 });
    } catch (error) {
      return [error.code, error.message];
    }
  };
  assert.deepEqual(bad(threaded), bad(single), 'a bad size is reported the same way from either core');
  assert.equal(bad(threaded)[0], 'HEADS_NOT_DIVISOR');
});

test('the poetry model: the same logits and attention on the threaded core', async () => {
  const [a, b] = await Promise.all([threaded.loadPoemModel(), single.loadPoemModel()]);
  const tokens = a.encode('白日依山尽，黄河入海流。欲穷千里目，更上一层楼。').slice(0, 24);
  const ra = a.model.forward(tokens), rb = b.model.forward(tokens);
  assert.deepEqual(ra.logits().slice(), rb.logits().slice());
  assert.deepEqual(ra.attention(2, 5).slice(), rb.attention(2, 5).slice());
});

test('an overflow in a spread step names the same place, and the threaded core keeps working', () => {
  const inputs = bigLayerInputs();
  const { d, h, L } = inputs;
  const huge = (args) => {
    const q = args.x.slice(), k = args.x.slice();
    for (let c = 3 * (d / h); c < 4 * (d / h); c++) (q[40 * d + c] = 3e38), (k[c] = 1e20); // head 3, row 40 first
    return { q, k, v: args.x };
  };
  const failure = (mha) => {
    const layer = mha.createLayer({ dModel: d, heads: h, maxLen: L });
    try {
      layer.forward(huge(inputs.args));
    } catch (error) {
      return { code: error.code, details: error.details };
    } finally {
      layer.dispose();
    }
    return null;
  };
  const many = failure(threaded);
  assert.deepEqual(many, failure(single));
  assert.deepEqual(many, { code: 'NOT_FINITE', details: { name: 'scores', head: 3, row: 40 } });
  assert.deepEqual(everyTensor(threaded, inputs, { causal: true }), everyTensor(single, inputs, { causal: true }));
});

test('a worker handed the threaded module loads the threaded core, on as many threads as it asks (one too)', async () => {
  for (const threads of [2, 1]) {
    const inWorker = await (await fresh(`worker-${threads}`)).loadAttention({ wasm: threaded.wasmModule, threads });
    assert.equal(threadedModule(inWorker), true);
    assert.equal(inWorker.threads, threads);
  }
});

test('bad thread counts and misspelt options are refused before anything loads', async () => {
  const { loadAttention } = await fresh('refused');
  for (const [options, code, pattern] of [
    [{ threads: 0 }, 'BAD_SIZE', /threads must be a positive whole number, got 0/],
    [{ threads: 2.5 }, 'BAD_SIZE', /threads must be a positive whole number/],
    [{ threads: '4' }, 'BAD_SIZE', /threads must be a positive whole number/],
    [{ thread: 2 }, 'BAD_ARGUMENT', /unknown option 'thread' for loadAttention; did you mean 'threads'\?/],
    [{ fma: 'yes' }, 'BAD_ARGUMENT', /fma must be true or false, got "yes"/],
    [{ fam: false }, 'BAD_ARGUMENT', /unknown option 'fam' for loadAttention; did you mean 'fma'\?/],
    [null, 'BAD_ARGUMENT', /loadAttention takes an options object/],
  ]) {
    await assert.rejects(loadAttention(options), (error) => error.code === code && pattern.test(error.message), JSON.stringify(options));
  }
});

test('a Node script that used the threaded core ends by itself', () => {
  const script = `
    const { loadAttention } = await import(${JSON.stringify(attentionJs.href)});
    const mha = await loadAttention();
    const layer = mha.createLayer({ dModel: 256, heads: 8, maxLen: 192 });
    layer.forward({ x: new Float32Array(192 * 256).fill(0.1), wq: new Float32Array(256 * 256).fill(0.01),
      wk: new Float32Array(256 * 256).fill(0.01), wv: new Float32Array(256 * 256).fill(0.01), causal: true });
    console.log(mha.threads);`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(run.signal, null, 'the script was killed: its threads kept Node running');
  assert.equal(run.status, 0, run.stderr);
  assert.equal(Number(run.stdout.trim()), Math.min(availableParallelism(), 8));
  assert.equal(run.stderr, '', 'nothing printed to stderr (no warning about blocking the main thread)');
});
