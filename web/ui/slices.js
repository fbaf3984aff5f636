// How long one slice of work that could hold up the page runs before it yields: the page's draws, §10's
// generation and the held-out measure, here and in its worker, all cut their work at this (a task over 50 ms
// is a long task; between slices the page answers input and the worker reads its messages).
export const SLICE_MS = 25;

/**
 * The most elements one slice adds to the page: the browser lays them out in the frame after it, about 6 ms a
 * thousand on a 2-core machine without a GPU, so that frame stays under a long task.
 */
export const SLICE_ELEMENTS = 4000;

// One queue of steps for everything on the page that draws in slices, so that twenty widgets starting together
// share each slice instead of each running its own first slice in the same task.
const queue = [];
let running = false;
let room = SLICE_ELEMENTS; // what the slice in progress may still add

/**
 * Queues `step`, a function that does a bounded piece of work and returns true while it has more to do. Steps
 * run in turn, first queued first, in the current task's microtasks and then one slice per frame (each frame
 * lays out one slice's work, not that of several). A slice ends after SLICE_MS, or once its steps have added
 * SLICE_ELEMENTS elements (see mayAdd). Returns { cancel() }, which takes the step off the queue.
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

/**
 * Whether a step may add `elements` to the page in the slice in progress; counted when it may. A step that may
 * not keeps its work for its next turn (the next slice, which always takes the first), and returns true.
 */
export function mayAdd(elements) {
  if (elements > room && room < SLICE_ELEMENTS) {
    room = 0; // the slice ends here
    return false;
  }
  room -= elements;
  return true;
}

function runSlice() {
  const start = performance.now();
  room = SLICE_ELEMENTS;
  try {
    while (queue.length && room > 0 && performance.now() - start < SLICE_MS) {
      const job = queue.shift(); // off the queue first: a step that throws is not run again
      if (job.step()) queue.unshift(job);
    }
  } finally {
    if (queue.length) requestAnimationFrame(() => setTimeout(runSlice));
    else running = false;
  }
}
