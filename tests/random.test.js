// mha.randomState(seed) must be numpy's legacy np.random.RandomState(seed), bit for bit.
// The expected numbers come from numpy (tests/fixtures/make_fixtures.py -> numpy.json);
// every double is compared with Object.is, so even one differing last bit fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadAttention } from '../web/src/attention.js';

const fixture = JSON.parse(readFileSync(new URL('./fixtures/numpy.json', import.meta.url), 'utf8'));
const mha = await loadAttention();

/** Fails on the first index whose double differs (Object.is: tells -0 from 0, NaN from NaN). */
function assertSameDoubles(actual, expected, label) {
  assert.ok(actual instanceof Float64Array, `${label}: expected a Float64Array`);
  assert.equal(actual.length, expected.length, `${label}: length`);
  for (let i = 0; i < expected.length; i++) {
    if (!Object.is(actual[i], expected[i])) {
      assert.fail(`${label}[${i}]: got ${actual[i]}, numpy gives ${expected[i]}`);
    }
  }
}

/** Concatenates Float64Arrays. */
function concat(parts) {
  const out = new Float64Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const flat = (rows) => rows.flat(Infinity);

test('fixture was made by numpy and covers the promised seeds', () => {
  assert.equal(typeof fixture.numpyVersion, 'string');
  assert.deepEqual(
    fixture.randn.map((r) => r.seed),
    [0, 1, 10, 11, 42, 123456789, 4294967295],
  );
  for (const { values } of fixture.randn) assert.equal(values.length, 1001);
  assert.deepEqual(fixture.random_sample.map((r) => r.seed), [0, 10]);
});

for (const { seed, values } of fixture.randn) {
  test(`randn(1001) of seed ${seed} equals numpy exactly`, () => {
    assertSameDoubles(mha.randomState(seed).randn(1001), values, `seed ${seed}`);
  });

  test(`randn of seed ${seed} drawn in odd-sized chunks continues numpy's stream`, () => {
    const rs = mha.randomState(seed);
    // Odd sizes on purpose: most chunk borders fall inside a polar pair, whose
    // second half must come from the cache on the next call.
    const shapes = [[7], [3, 5], [1], [13], [3, 3], [2], [1, 1], [5, 7], [11], [1, 9], [3]];
    const parts = [];
    let drawn = 0;
    for (let i = 0; drawn < values.length; i++) {
      let shape = shapes[i % shapes.length];
      const size = shape.reduce((a, b) => a * b, 1);
      if (drawn + size > values.length) shape = [values.length - drawn];
      const part = rs.randn(...shape);
      assert.equal(part.length, shape.reduce((a, b) => a * b, 1), `chunk ${i} length`);
      parts.push(part);
      drawn += part.length;
    }
    assertSameDoubles(concat(parts), values, `seed ${seed} chunked`);
  });
}

test('randn(a, b) is the C order of numpy randn(a, b): the same stream as randn(a*b)', () => {
  const { values } = fixture.randn.find((r) => r.seed === 42);
  const rs = mha.randomState(42);
  const m = rs.randn(7, 11);
  assertSameDoubles(m, values.slice(0, 77), 'randn(7, 11)');
  assertSameDoubles(rs.randn(2, 3, 5), values.slice(77, 107), 'randn(2, 3, 5)');
});

for (const { seed, values } of fixture.random_sample) {
  test(`randomSample(${values.length}) of seed ${seed} equals numpy exactly`, () => {
    assertSameDoubles(mha.randomState(seed).randomSample(values.length), values, `random_sample seed ${seed}`);
  });

  test(`randomSample of seed ${seed} in chunks continues the stream`, () => {
    const rs = mha.randomState(seed);
    const parts = [rs.randomSample(3), rs.randomSample(1), rs.randomSample(7), rs.randomSample(values.length - 11)];
    assertSameDoubles(concat(parts), values, `random_sample seed ${seed} chunked`);
  });
}

test('two states with the same seed are independent', () => {
  const { values } = fixture.randn.find((r) => r.seed === 10);
  const a = mha.randomState(10);
  const b = mha.randomState(10);
  const a1 = a.randn(3); // leaves a cached half-pair in a only
  const b1 = b.randn(1);
  const a2 = a.randn(4);
  const b2 = b.randn(6);
  assertSameDoubles(a1, values.slice(0, 3), 'a first');
  assertSameDoubles(b1, values.slice(0, 1), 'b first');
  assertSameDoubles(a2, values.slice(3, 7), 'a second');
  assertSameDoubles(b2, values.slice(1, 7), 'b second');
  // a state of another seed does not disturb either
  mha.randomState(11).randn(5);
  assertSameDoubles(a.randn(2), values.slice(7, 9), 'a third');
  assertSameDoubles(b.randn(2), values.slice(7, 9), 'b third');
});

test('a fresh state with the same seed restarts the stream', () => {
  const { values } = fixture.randn.find((r) => r.seed === 0);
  mha.randomState(0).randn(5);
  assertSameDoubles(mha.randomState(0).randn(5), values.slice(0, 5), 'restart');
});

test("the lesson's first demo draws X, Wq, Wk, Wv, Wo exactly as numpy (seed 10)", () => {
  const d = fixture.demo10;
  const rs = mha.randomState(d.seed);
  const scaled = (a, s) => a.map((v) => v * s); // numpy's `rng.randn(8, 8) * 0.5`
  assertSameDoubles(rs.randn(3, 8), flat(d.X), 'X');
  assertSameDoubles(scaled(rs.randn(8, 8), 0.5), flat(d.Wq), 'Wq');
  assertSameDoubles(scaled(rs.randn(8, 8), 0.5), flat(d.Wk), 'Wk');
  assertSameDoubles(scaled(rs.randn(8, 8), 0.5), flat(d.Wv), 'Wv');
  assertSameDoubles(rs.randn(8, 8), flat(d.Wo), 'Wo');
});

test("the lesson's second demo draws X before the class's Wq, Wk, Wv, Wo (seed 11)", () => {
  const d = fixture.demo11;
  const rs = mha.randomState(d.seed);
  const scaled = (a) => a.map((v) => v * 0.4);
  assertSameDoubles(rs.randn(4, 8), flat(d.X), 'X');
  assertSameDoubles(scaled(rs.randn(8, 8)), flat(d.Wq), 'Wq');
  assertSameDoubles(scaled(rs.randn(8, 8)), flat(d.Wk), 'Wk');
  assertSameDoubles(scaled(rs.randn(8, 8)), flat(d.Wv), 'Wv');
  assertSameDoubles(scaled(rs.randn(8, 8)), flat(d.Wo), 'Wo');
});

test('seeds outside 0..2^32-1 or not whole numbers throw BAD_ARGUMENT', () => {
  for (const seed of [-1, 2 ** 32, 1.5, NaN]) {
    assert.throws(
      () => mha.randomState(seed),
      (err) => err instanceof Error && err.code === 'BAD_ARGUMENT',
      `randomState(${seed}) should throw BAD_ARGUMENT`,
    );
  }
  // the ends of the range are valid
  assert.equal(mha.randomState(0).randn(1).length, 1);
  assert.equal(mha.randomState(2 ** 32 - 1).randn(1).length, 1);
});
