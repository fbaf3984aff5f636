// How long one slice of work that could hold up the page runs before it yields: the page's draws, §10's
// generation and the held-out measure, here and in its worker, all cut their work at this (a task over 50 ms
// is a long task; between slices the page answers input and the worker reads its messages).
export const SLICE_MS = 25;

// One queue of steps for everything on the page that draws in slices, so that twenty widgets starting together
// share each slice instead of each running its own first slice in the same task.
const queue = [];
let running = false;

/**
 * Queues `step`, a function that does a bounded piece of work and returns true while it has more to do. Steps
 * run in turn, first queued first, in the current task's microtasks and then one slice of SLICE_MS per frame
 * (each frame lays out one slice's work, not that of several). Returns { cancel() }, which takes it off the queue.
 */
export function inSlices(step) {
  const job = { step };
  queue.push(job);
  if (!running) {
    running = true;
    queueMicrotask(runSlice);
  }
  return {
    cancel() {
      const at = queue.indexOf(job);
      if (at >= 0) queue.splice(at, 1);
    },
  };
}

function runSlice() {
  const start = performance.now();
  try {
    while (queue.length && performance.now() - start < SLICE_MS) {
      const job = queue.shift(); // off the queue first: a step that throws is not run again
      if (job.step()) queue.unshift(job);
    }
  } finally {
    if (queue.length) requestAnimationFrame(() => setTimeout(runSlice));
    else running = false;
  }
}
