// Where the training section's trainer runs: a module Web Worker (./train-worker.js), or, when no
// worker can start, the same host in this thread (createTrainingHost), fed the messages the worker missed.
import { loadAttention } from '../src/attention.js';
import { createTrainingHost } from './train-worker.js';

/** A worker that has not answered by then is given up for this thread. */
const WORKER_ANSWER_MS = 10000;

/**
 * Starts the trainer in a module worker; falls back to this thread if the worker cannot run. The worker
 * is handed the page's compiled core with every 'init', so it never has to find mha-core.wasm itself
 * (a bundler may have put it anywhere). A core that cannot load is reported as a LOAD_FAILED error.
 */
export function startTrainingHost(onMessage, workerUrl) {
  let local = null;
  let worker = null;
  let answered = false;
  let watchdog = 0;
  let delivery = Promise.resolve();
  const unanswered = []; // sent before the worker answered: replayed here if it cannot start
  const runHere = () => {
    clearTimeout(watchdog);
    worker?.terminate();
    worker = null;
    answered = true;
    local = createTrainingHost((message) => onMessage(message));
    for (const message of unanswered.splice(0)) local(message);
  };
  try {
    // The literal new Worker(new URL('./…', import.meta.url)) is what bundlers recognise as a worker entry.
    worker = workerUrl
      ? new Worker(workerUrl, { type: 'module' })
      : new Worker(new URL('./train-worker.js', import.meta.url), { type: 'module' });
    worker.addEventListener('message', (event) => {
      answered = true;
      clearTimeout(watchdog);
      unanswered.length = 0;
      onMessage(event.data);
    });
    worker.addEventListener('error', (event) => {
      event.preventDefault?.();
      if (!answered && worker) runHere(); // the worker script did not load: run here instead
      else onMessage({ type: 'error', code: 'UNEXPECTED', message: event.message ?? 'the training worker stopped' });
    });
  } catch {
    worker = null;
    local = createTrainingHost((message) => onMessage(message));
  }
  const loadFailed = (error) => onMessage({ type: 'error', code: error?.code ?? 'LOAD_FAILED', message: error?.message ?? String(error) });
  return {
    get kind() {
      return worker ? 'worker' : 'thread';
    },
    send(message) {
      if (!worker) return local(message);
      if (!answered) unanswered.push(message);
      // In order, each 'init' once the page's core is there to go with it.
      delivery = delivery
        .then(async () => {
          const wasm = message.type === 'init' ? (await loadAttention()).wasmModule : undefined;
          if (!worker) return; // it failed meanwhile: the message was replayed here
          worker.postMessage(wasm ? { ...message, wasm } : message);
          if (!answered) watchdog ||= setTimeout(() => !answered && worker && runHere(), WORKER_ANSWER_MS);
        })
        .catch(loadFailed);
      return delivery;
    },
    close() {
      clearTimeout(watchdog);
      if (worker) worker.terminate();
      else local?.({ type: 'dispose' });
    },
  };
}
