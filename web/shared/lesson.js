// The lesson's own data, the same on the page and in the widget.

/** numpy's RandomState takes seeds from 0 to 2³² − 1. */
export const SEED_MAX = 2 ** 32 - 1;

/** The hand example of the lesson (猫吃鱼, 3 tokens × 4 dims), as printed in its table. */
export const LESSON_EXAMPLE = Object.freeze({
  tokens: Object.freeze(['猫', '吃', '鱼']),
  q: Object.freeze([[1, 1, 0, 0], [0, 2, 0, 2], [0, 0, 1, 1]].map(Object.freeze)),
  k: Object.freeze([[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]].map(Object.freeze)),
  v: Object.freeze([[1, 0, 1, 0], [0, 1, 0, 1], [2, 0, 0, 2]].map(Object.freeze)),
});

/** A fresh, editable copy of the example. */
export const lessonExample = () => ({
  tokens: [...LESSON_EXAMPLE.tokens],
  q: LESSON_EXAMPLE.q.map((row) => [...row]),
  k: LESSON_EXAMPLE.k.map((row) => [...row]),
  v: LESSON_EXAMPLE.v.map((row) => [...row]),
});

/** The n×n identity as rows: Wᴼ's default, which lets the concat through unchanged. */
export const identity = (n) => Array.from({ length: n }, (_, r) => Array.from({ length: n }, (_, c) => (r === c ? 1 : 0)));
