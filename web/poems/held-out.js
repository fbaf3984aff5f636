// The page's side of the held-out measure (web/poems/poems-worker.js): the held-out poems are scored with a set of heads
// switched off in a worker with its own core and model, so the page stays free for typing meanwhile. Where no
// worker can start (or it fails), the same passes run here instead, a slice per task.
import { loadAttention } from '../src/attention.js';
import { HeldOutPass } from './model.js';
import { SLICE_MS } from '../ui/slices.js';

/**
 * Measures one set of heads off at a time for `poems` (loadPoems'): measure(key, off) starts one, replacing
 * the one in progress; onProgress(key, done, total) and onResult(key, result) report.
 */
export function heldOutMeasurer(poems, { onProgress, onResult }) {
  let worker = null;
  let current = null; // the last { key, off } asked for
  let timer = 0;

  function measureHere({ key, off }) {
    clearTimeout(timer);
    const pass = new HeldOutPass(poems, off);
    const work = () => {
      if (pass.advance(SLICE_MS)) return onResult(key, pass.result());
      onProgress(key, pass.done, pass.windows.length);
      timer = setTimeout(work);
    };
    timer = setTimeout(work);
  }

  /** The worker did not start or failed: what it was measuring is measured here. */
  function giveUp() {
    worker?.terminate();
    worker = null;
    if (current) measureHere(current);
  }

  try {
    // The literal new Worker(new URL('./…', import.meta.url)) is what bundlers recognise as a worker entry.
    worker = new Worker(new URL('./poems-worker.js', import.meta.url), { type: 'module' });
    worker.addEventListener('message', ({ data }) => {
      if (data.type === 'progress') onProgress(data.key, data.done, data.total);
      else if (data.type === 'result') onResult(data.key, data.result);
      else giveUp();
    });
    worker.addEventListener('error', (event) => {
      event.preventDefault?.();
      giveUp();
    });
    loadAttention().then((mha) => worker?.postMessage({ type: 'load', file: poems.file, wasm: mha.wasmModule }), giveUp);
  } catch {
    worker = null;
  }

  return {
    measure(key, off) {
      current = { key, off };
      if (worker) worker.postMessage({ type: 'measure', key, off });
      else measureHere(current);
    },
  };
}
