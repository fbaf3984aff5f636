// loadAttention's sources: a URL (read from disk in Node), bytes, or a compiled WebAssembly.Module (what a
// worker is handed); a source that cannot be loaded rejects with LOAD_FAILED and a later call can try
// again; a valid wasm that is not this build's core (another module, an older or newer build) is refused
// before it runs, with no rejection left unhandled; once loaded, every call returns the same instance. This file gets its own process from
// node --test, so the first call here really is the first.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadAttention } from '../web/src/attention.js';
import { attentionLoader } from '../web/src/load.js';
import { loadAttention as sharedLoadAttention } from '../web/src/shared-core.js';
import { coreBuild } from '../web/dist/mha-core.mjs';
import { customSection } from '../c/wasm/mark_build.js';

const wasmFile = new URL('../web/dist/mha-core.wasm', import.meta.url);

async function rejectsWith(promise, code, pattern) {
  await assert.rejects(promise, (error) => error.name === 'MHAError' && error.code === code && pattern.test(error.message));
}

test('a missing file, bytes that are not wasm and an unreachable URL reject with LOAD_FAILED', async () => {
  await rejectsWith(loadAttention({ wasm: new URL('./no-such-core.wasm', wasmFile) }), 'LOAD_FAILED', /no-such-core\.wasm/);
  await rejectsWith(loadAttention({ wasm: new TextEncoder().encode('<!doctype html>') }), 'LOAD_FAILED', /could not load the attention core/);
  await rejectsWith(loadAttention({ wasm: 'http://127.0.0.1:9/mha-core.wasm' }), 'LOAD_FAILED', /could not load/);
});

test('a valid wasm that is not this build of the core rejects with LOAD_FAILED before it runs, and nothing is left unhandled', async () => {
  const unhandled = [];
  const onUnhandled = (reason) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    const core = readFileSync(wasmFile);
    const mark = customSection('mha-core-build', Buffer.from(coreBuild));
    assert.ok(core.subarray(-mark.length).equals(mark), 'build.sh marks the wasm with the glue\'s build');
    const unmarked = core.subarray(0, -mark.length); // what every build before the marks was
    const otherBuild = Buffer.concat([unmarked, customSection('mha-core-build', Buffer.from('0123456789abcdef'))]);
    const empty = Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
    for (const [wasm, pattern] of [[empty, /no build of the attention core this code knows/], [unmarked, /an older release/],
      [otherBuild, /build 0123456789abcdef of the attention core, but this code calls build [0-9a-f]{16}/],
      [new WebAssembly.Module(otherBuild), /build 0123456789abcdef/]]) {
      await rejectsWith(loadAttention({ wasm }), 'LOAD_FAILED', pattern);
    }
    // Marked as this build but no core (what the glue reads is missing): refused as it starts, not left pending.
    await rejectsWith(loadAttention({ wasm: Buffer.concat([empty, mark]) }), 'LOAD_FAILED', /did not start as the attention core/);
    await new Promise((resolve) => setTimeout(resolve, 50)); // an unhandled rejection is reported after a turn
    assert.deepEqual(unhandled.map(String), []);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});

test('after a failure the default source loads, and its compiled module loads a second core', async () => {
  const mha = await loadAttention();
  assert.ok(mha.wasmModule instanceof WebAssembly.Module);
  assert.deepEqual(mha.paramCount({ dModel: 768, heads: 12 }), { naive: 21233664, split: 2359296, wq: 589824, wk: 589824, wv: 589824, wo: 589824, kvCacheBytes: 6144 });
  assert.equal(await loadAttention({ wasm: readFileSync(wasmFile) }), mha, 'one instance: later sources are not loaded again');

  // What a worker does with the module it is handed: instantiate it, no fetch, the same numbers.
  const inWorker = await attentionLoader()({ wasm: mha.wasmModule });
  assert.notEqual(inWorker, mha);
  const layer = inWorker.createLayer({ dModel: 4, heads: 2, maxLen: 3 });
  layer.forward({ q: [[1, 1, 0, 0], [0, 2, 0, 2], [0, 0, 1, 1]], k: [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]], v: [[1, 0, 1, 0], [0, 1, 0, 1], [2, 0, 0, 2]], causal: false });
  assert.deepEqual(Array.from(layer.attention(0).slice(0, 3), (x) => Number(x.toFixed(2))), [0.25, 0.25, 0.5]);
});

test('the widget and the package entry share one core; the entry adds the model loaders to it', async () => {
  const shared = await sharedLoadAttention();
  assert.equal(shared, await loadAttention(), 'one instance for the page');
  assert.equal(typeof shared.loadPoemModel, 'function');
  await assert.rejects(shared.loadModel(new Uint8Array(8)), (error) => error.code === 'BAD_MODEL', 'the entry\'s loader reads the file');
});
