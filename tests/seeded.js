// Seeded helpers for property tests: the same seed gives the same cases on every machine.

/** mulberry32: a tiny, well-known 32-bit generator; returns floats in [0, 1). */
export function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** n floats in [-spread, spread), as float32 values stored in a Float64Array (so both sides see the same inputs). */
export function randomMatrix(random, n, spread = 1) {
  const values = new Float64Array(n); // a loop: Float64Array.from({ length: n }, …) is 8 times slower in V8
  for (let i = 0; i < n; i++) values[i] = Math.fround((random() * 2 - 1) * spread);
  return values;
}

/** Largest |a[i] - b[i]|. */
export function maxAbsDiff(a, b) {
  if (a.length !== b.length) throw new Error(`lengths differ: ${a.length} vs ${b.length}`);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}

/** Rounds every entry to two decimals, as the lesson prints its tables. */
export const round2 = (values) => Array.from(values, (value) => Math.round(value * 100) / 100);
