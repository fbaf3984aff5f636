// The page's side of the GPT-2 worker (web/gpt2/gpt2-worker.js): starts it with the page's compiled core and the
// picked file, and runs texts one at a time, keeping only the newest request while one is running (typing
// faster than GPT-2 can answer skips the texts in between, never queues them).
import { startWorker } from '../shared/worker.js';

/** GPT-2 reads at most this many tokens here: 64 keep a forward under a second and 144 tiles legible. */
export const GPT2_TOKEN_LIMIT = 64;

/**
 * onMessage gets the worker's messages (progress, ready, result, error), and { type: 'sha256', sha256 } from the
 * hashing worker beside it, before or after 'ready'. Returns { run(request), generate(request), stop(), close() }: a
 * generation (gpt2-worker.js's 'generate') goes to the worker at once, and a run asked for meanwhile waits for it there.
 */
export function openGpt2File(file, onMessage) {
  let busy = true; // loading
  let waiting = null;
  const answered = (data) => {
    if (data.type === 'ready' || data.type === 'result' || data.type === 'error') {
      busy = false;
      if (waiting && data.type !== 'error') send(waiting);
      waiting = null;
    }
    onMessage(data);
  };
  /** The worker did not start or failed, or the page's core did not load: there is no GPT-2 here. */
  const loadFailed = (reason) => onMessage({ type: 'error', during: 'load', code: reason?.code ?? 'LOAD_FAILED', message: reason?.message ?? 'the GPT-2 worker did not start' });
  const worker = startWorker(() => new Worker(new URL('./gpt2-worker.js', import.meta.url), { type: 'module' }), answered, loadFailed, loadFailed);
  const send = (request) => {
    busy = true;
    worker.post({ type: 'run', limit: GPT2_TOKEN_LIMIT, ...request });
  };
  worker.post({ type: 'load', file, maxTokens: GPT2_TOKEN_LIMIT });
  const hasher = hashFile(file, onMessage);
  return {
    run(request) {
      if (busy) waiting = request;
      else send(request);
    },
    generate(request) {
      worker.post({ type: 'generate', ...request });
    },
    stop() {
      worker.post({ type: 'stop' });
    },
    close() {
      worker.terminate();
      hasher.close();
    },
  };
}

/**
 * The file's SHA-256 from a worker of its own, read while GPT-2's worker reads the model, so neither waits for the
 * other. onMessage({ type: 'sha256', sha256 }) once: the hex digest, or '' when it could not be computed.
 */
function hashFile(file, onMessage) {
  let worker = null;
  const done = (sha256) => {
    if (!worker) return; // closed, or already answered
    worker.terminate();
    worker = null;
    onMessage({ type: 'sha256', sha256 });
  };
  try {
    worker = new Worker(new URL('./gpt2-hash-worker.js', import.meta.url), { type: 'module' });
    worker.addEventListener('message', ({ data }) => done(data.sha256));
    worker.addEventListener('error', (event) => {
      event.preventDefault(); // said on the page as no digest, not as an error on its console
      done('');
    });
    worker.postMessage({ file });
  } catch {
    queueMicrotask(() => onMessage({ type: 'sha256', sha256: '' }));
  }
  return {
    close() {
      worker?.terminate();
      worker = null;
    },
  };
}
