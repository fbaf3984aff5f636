// randomState: numpy's legacy generator (np.random.RandomState), in the core, for the lesson's numpy programs.
import { MHAError, describe, seedArg } from './checks.js';
import { freeWhenCollected } from './lifetime.js';

// Most random numbers one randn or randomSample call may draw (128 MB of doubles).
const MAX_RANDOM_DRAW = 2 ** 24;

const freeState = (core, ptr) => core._wasm_free(ptr);

/** numpy's legacy np.random.RandomState(seed) on `core`, giving numpy's exact doubles. */
export function randomState(core, seed) {
  const ptr = core._wasm_random_create(seedArg(seed));
  if (!ptr) throw new MHAError('OUT_OF_MEMORY', 'not enough memory for a random state');
  const draw = (fill, count) => {
    const out = core._wasm_malloc(Math.max(count, 1) * 8);
    if (!out) throw new MHAError('OUT_OF_MEMORY', `not enough memory for ${count} random numbers`);
    fill(ptr, out, count);
    const values = new Float64Array(core.HEAPF64.buffer, out, count).slice();
    core._wasm_free(out);
    return values;
  };
  const state = {
    /** randn(3, 8) → 24 normals in C order; the stream continues across calls. */
    randn: (...shape) => draw(core._wasm_random_randn, shapeSize(shape)),
    /** random_sample(n) → n doubles in [0, 1). */
    randomSample: (n = 1) => draw(core._wasm_random_sample, shapeSize([n])),
  };
  freeWhenCollected(state, freeState, core, ptr); // no dispose(): its few bytes go when it does
  return state;
}

/** How many numbers a shape holds: whole numbers ≥ 0, at most MAX_RANDOM_DRAW together. */
function shapeSize(shape) {
  let size = 1;
  for (const n of shape) {
    if (!Number.isInteger(n) || n < 0) throw new MHAError('BAD_ARGUMENT', `a shape needs whole numbers ≥ 0, got ${describe(n)}`);
    size *= n;
  }
  if (size > MAX_RANDOM_DRAW) throw new MHAError('TOO_LARGE', `${size} random numbers at once is too many (at most ${MAX_RANDOM_DRAW})`);
  return size;
}
