// Where the training section's trainer runs: a module Web Worker (./train-worker.js), or, when no
// worker can start, the same host in this thread (createTrainingHost), fed the messages the worker missed.
import { startWorker } from '../shared/worker.js';
import { createTrainingHost } from './train-worker.js';

/** A worker that has not answered by then is given up for this thread. */
const WORKER_ANSWER_MS = 10000;

/**
 * Starts the trainer in a module worker; falls back to this thread if the worker cannot run. The worker
 * is handed the page's compiled core (startWorker), so it never has to find mha-core.wasm itself.
 * A core that cannot load is reported as a LOAD_FAILED error.
 */
export function startTrainingHost(onMessage, workerUrl) {
  let local = null;
  let unanswered = []; // sent before the worker answered, to replay here if it cannot start; null once it answered
  const answered = (message) => {
    unanswered = null;
    onMessage(message);
  };
  const runHere = () => {
    local = createTrainingHost(onMessage);
    for (const message of unanswered) local(message);
  };
  const reportError = (error) => onMessage({ type: 'error', code: error.code ?? 'UNEXPECTED', message: error.message ?? 'the training worker stopped' });
  const worker = startWorker(
    () => (workerUrl
      ? new Worker(workerUrl, { type: 'module' })
      : new Worker(new URL('./train-worker.js', import.meta.url), { type: 'module' })),
    answered, runHere, reportError, WORKER_ANSWER_MS,
  );
  return {
    get kind() {
      return worker.running ? 'worker' : 'thread';
    },
    send(message) {
      if (local) return local(message);
      unanswered?.push(message);
      worker.post(message);
    },
    close() {
      if (local) local({ type: 'dispose' });
      else worker.terminate();
    },
  };
}
