// The page's side of the rooms' workers (web/shared/worker.js), against a stand-in Worker class: a worker that
// cannot be constructed, fails before answering, fails after answering or stays silent; the page's compiled
// core goes out with the first message.
import test from 'node:test';
import assert from 'node:assert/strict';
import { loadAttention } from '../web/src/attention.js';
import { startWorker } from '../web/shared/worker.js';

/** globalThis.Worker's stand-in: records what it is posted, and dispatches what a test makes it say. */
class FakeWorker {
  static refuse = false; // the constructor throws, as under a CSP without worker-src
  static made = [];
  listeners = { message: [], error: [] };
  posted = [];
  terminated = false;

  constructor(url, options) {
    if (FakeWorker.refuse) throw new Error(`cannot start ${url}`);
    this.options = options;
    FakeWorker.made.push(this);
  }

  addEventListener(type, listener) {
    this.listeners[type].push(listener);
  }

  postMessage(message) {
    this.posted.push(message);
  }

  terminate() {
    this.terminated = true;
  }

  answer(data) {
    for (const listener of this.listeners.message) listener({ data });
  }

  /** An 'error' event; returns it, to see whether it was handled. */
  fail(message) {
    const event = { message, defaultPrevented: false, preventDefault: () => (event.defaultPrevented = true) };
    for (const listener of this.listeners.error) listener(event);
    return event;
  }
}
globalThis.Worker = FakeWorker;

const mha = await loadAttention();
const later = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts a fake worker as a host would; `calls` records each callback. */
function start(answerMs) {
  const calls = { messages: [], fallbacks: [], errors: [] };
  const handle = startWorker(
    () => new Worker(new URL('./x-worker.js', import.meta.url), { type: 'module' }),
    (data) => calls.messages.push(data),
    (reason) => calls.fallbacks.push(reason),
    (reason) => calls.errors.push(reason),
    answerMs,
  );
  return { handle, calls, worker: FakeWorker.made.at(-1) };
}

test('a worker that cannot be constructed: the fallback, once the helper has returned (unless terminated first); nothing is posted', async () => {
  FakeWorker.refuse = true;
  FakeWorker.made = [];
  try {
    const { handle, calls } = start();
    assert.equal(handle.running, false);
    assert.equal(calls.fallbacks.length, 0, 'not before startWorker returns');
    handle.post({ type: 'load' });
    await later();
    assert.deepEqual(calls.fallbacks, [undefined]);
    assert.equal(FakeWorker.made.length, 0);

    const closed = start(); // terminated before it could give way: nothing to fall back for
    closed.handle.terminate();
    await later();
    assert.deepEqual(closed.calls.fallbacks, []);
  } finally {
    FakeWorker.refuse = false;
  }
});

test("an 'error' before the first answer: the fallback once, the worker terminated, the event handled", async () => {
  const { handle, calls, worker } = start(30);
  handle.post({ type: 'load' });
  await later();
  assert.equal(worker.posted.length, 1);
  const event = worker.fail('the script did not load');
  assert.deepEqual(calls.fallbacks, [event]);
  assert.ok(event.defaultPrevented, 'not an error on the console');
  assert.ok(worker.terminated);
  assert.equal(handle.running, false);
  assert.deepEqual(calls.errors, []);
  handle.post({ type: 'run' });
  await later(60); // past answerMs: the watchdog does not give it up again
  assert.equal(calls.fallbacks.length, 1);
  assert.equal(worker.posted.length, 1, 'nothing is posted to a worker given up');
});

test("an 'error' after an answer is reported, not a fallback: the worker keeps running", async () => {
  const { handle, calls, worker } = start();
  handle.post({ type: 'load' });
  await later();
  worker.answer({ type: 'ready' });
  const event = worker.fail('Uncaught Error: oops');
  assert.deepEqual(calls.messages, [{ type: 'ready' }]);
  assert.deepEqual(calls.errors, [event]);
  assert.ok(event.defaultPrevented);
  assert.deepEqual(calls.fallbacks, []);
  assert.equal(worker.terminated, false);
  assert.equal(handle.running, true);
});

test('a worker that never answers is given up answerMs after the first message; one that answers is not', async () => {
  const silent = start(30);
  silent.handle.post({ type: 'init' });
  await later(); // timers run in the order they expire: this one before the watchdog
  assert.equal(silent.worker.posted.length, 1);
  assert.deepEqual(silent.calls.fallbacks, [], 'not yet');
  await later(60);
  assert.deepEqual(silent.calls.fallbacks, [undefined]);
  assert.ok(silent.worker.terminated);
  assert.equal(silent.handle.running, false);

  const answering = start(30);
  answering.handle.post({ type: 'init' });
  await later();
  answering.worker.answer({ type: 'ready' });
  await later(60);
  assert.deepEqual(answering.calls.fallbacks, []);
  assert.equal(answering.worker.terminated, false);

  const unposted = start(30); // the watchdog starts with the first message, not with the worker
  await later(60);
  assert.deepEqual(unposted.calls.fallbacks, []);
});

test("the page's compiled core goes with the first message (each until the worker answers), in order; then no more", async () => {
  const { handle, worker } = start();
  handle.post({ type: 'load', file: 'a' });
  assert.deepEqual(worker.posted, [], 'posted once the core is there');
  await later();
  assert.equal(worker.posted.length, 1);
  assert.ok(worker.posted[0].wasm instanceof WebAssembly.Module);
  assert.equal(worker.posted[0].wasm, mha.wasmModule);
  assert.deepEqual({ ...worker.posted[0], wasm: null }, { type: 'load', file: 'a', wasm: null });
  worker.answer({ type: 'ready' });
  handle.post({ type: 'run', key: 1 });
  handle.post({ type: 'run', key: 2 });
  await later();
  assert.deepEqual(worker.posted.slice(1), [{ type: 'run', key: 1 }, { type: 'run', key: 2 }]);
  handle.terminate();
  assert.ok(worker.terminated);
  handle.post({ type: 'run', key: 3 });
  await later();
  assert.equal(worker.posted.length, 3, 'nothing after terminate');
});
