// The page's side of a room's module Web Worker (training, GPT-2, the held-out measure): each starts, is handed the
// page's compiled core and gives way alike; its host keeps only its own queueing and what it does without the worker.
import { loadAttention } from '../src/shared-core.js';

/**
 * Starts the worker `create()` returns and answers { post(message), terminate(), running }.
 * - create: () => new Worker(new URL('./x-worker.js', import.meta.url), { type: 'module' }), written where it is
 *   called: bundlers find a worker entry only in that literal form.
 * - onMessage(data): each answer of the worker.
 * - onFallback(reason): the worker cannot serve, called at most once and never before startWorker returns: its
 *   constructor threw, it failed before its first answer (reason: the 'error' event), or it has not answered
 *   answerMs after the first message was posted. It is terminated by then; post sends nothing more.
 * - onError(reason): an 'error' event after the first answer, or the page's core that could not load (an MHAError,
 *   LOAD_FAILED: the message was not sent, and the next post loads it again).
 * - answerMs: how long a worker posted to may stay silent before it is given up (none: it is waited for).
 * post sends in order, once the page's core has loaded; until the worker answers, every message carries it as
 * `wasm`, for the worker to take from the first it reads, so it never looks for mha-core.wasm itself (a bundler
 * may have put it anywhere).
 */
export function startWorker(create, onMessage, onFallback, onError, answerMs) {
  let worker = null;
  let settled = false; // answered, gave way or terminated: no fallback any more
  let watchdog = 0;
  let core = null; // loadAttention(): every post waits on it, so they go out in order

  const stop = () => {
    settled = true;
    clearTimeout(watchdog);
    worker?.terminate();
    worker = null;
  };
  const fallBack = (reason) => {
    if (settled) return;
    stop();
    onFallback(reason);
  };

  try {
    worker = create();
    worker.addEventListener('message', (event) => {
      settled = true;
      clearTimeout(watchdog);
      onMessage(event.data);
    });
    worker.addEventListener('error', (event) => {
      event.preventDefault(); // handled here: not an error on the page's console
      if (settled) onError(event);
      else fallBack(event);
    });
  } catch {
    queueMicrotask(fallBack);
  }

  return {
    post(message) {
      (core ??= loadAttention()).then(
        (mha) => {
          if (!worker) return;
          worker.postMessage(settled ? message : { ...message, wasm: mha.wasmModule });
          if (answerMs && !settled) watchdog ||= setTimeout(fallBack, answerMs);
        },
        (error) => {
          core = null;
          if (worker) onError(error);
        },
      );
    },
    terminate: stop,
    /** Whether the worker is there to post to: not failed, given up or terminated. */
    get running() {
      return worker !== null;
    },
  };
}
