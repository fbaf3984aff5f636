// How long one slice of work that could hold up the page runs before it yields: the page's draws, §10's
// generation and the held-out measure, here and in its worker, all cut their work at this (a task over 50 ms
// is a long task; between slices the page answers input and the worker reads its messages).
export const SLICE_MS = 25;
