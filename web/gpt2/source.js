// The page's side of the GPT-2 worker (web/gpt2/gpt2-worker.js): starts it with the page's compiled core and the
// picked file, and runs texts one at a time, keeping only the newest request while one is running (typing
// faster than GPT-2 can answer skips the texts in between, never queues them).
import { loadAttention } from '../src/attention.js';

/** GPT-2 reads at most this many tokens here: 64 keep a forward under a second and 144 tiles legible. */
export const GPT2_TOKEN_LIMIT = 64;

/** onMessage gets the worker's messages (progress, ready, result, error). Returns { run(request), close() }. */
export function openGpt2File(file, onMessage) {
  // The literal new Worker(new URL('./…', import.meta.url)) is what bundlers recognise as a worker entry.
  const worker = new Worker(new URL('./gpt2-worker.js', import.meta.url), { type: 'module' });
  let busy = true; // loading
  let waiting = null;
  const send = (request) => {
    busy = true;
    worker.postMessage({ type: 'run', limit: GPT2_TOKEN_LIMIT, ...request });
  };
  worker.addEventListener('message', ({ data }) => {
    if (data.type === 'ready' || data.type === 'result' || data.type === 'error') {
      busy = false;
      if (waiting && data.type !== 'error') send(waiting);
      waiting = null;
    }
    onMessage(data);
  });
  worker.addEventListener('error', (event) => {
    event.preventDefault?.();
    onMessage({ type: 'error', during: 'load', code: 'LOAD_FAILED', message: event.message ?? 'the GPT-2 worker did not start' });
  });
  loadAttention().then((mha) => worker.postMessage({ type: 'load', file, wasm: mha.wasmModule }),
    (error) => onMessage({ type: 'error', during: 'load', code: error?.code ?? 'LOAD_FAILED', message: error?.message ?? String(error) }));
  return {
    run(request) {
      if (busy) waiting = request;
      else send(request);
    },
    close: () => worker.terminate(),
  };
}
