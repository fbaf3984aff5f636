// The page's side of the held-out measure (web/poems/poems-worker.js): the held-out poems are scored with a set of heads
// switched off in a worker with its own core and model, so the page stays free for typing meanwhile. Where no
// worker can start (or it fails), the same passes run here instead, a slice per task.
import { startWorker } from '../shared/worker.js';
import { HeldOutPass } from './evaluate.js';
import { SLICE_MS } from '../ui/slices.js';

/**
 * Measures one set of heads off at a time for `poems` (loadPoems'): measure(key, off) starts one, replacing
 * the one in progress; onProgress(key, done, total) and onResult(key, result) report.
 */
export function heldOutMeasurer(poems, { onProgress, onResult }) {
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
    worker.terminate();
    if (current) measureHere(current);
  }

  const worker = startWorker(
    () => new Worker(new URL('./poems-worker.js', import.meta.url), { type: 'module' }),
    (data) => {
      if (data.type === 'progress') onProgress(data.key, data.done, data.total);
      else if (data.type === 'result') onResult(data.key, data.result);
      else giveUp();
    },
    giveUp,
    giveUp,
  );
  worker.post({ type: 'load', file: poems.file });

  return {
    measure(key, off) {
      current = { key, off };
      if (worker.running) worker.post({ type: 'measure', key, off });
      else measureHere(current);
    },
  };
}
