// Seeded fuzzing of the JS API (the C API's own harness, c/fuzz/fuzz_api.c, runs in tests/native.slow.test.js).
// Random calls, valid and hostile: every valid one must match the float64 reference, every bad one must
// be an MHAError with a code, and after each error the shared instance must still compute the lesson.
import test from 'node:test';
import assert from 'node:assert/strict';
import { loadAttention, MHAError } from '../web/src/attention.js';
import { referenceAttention } from './reference.js';
import { seededRandom, maxAbsDiff, round2 } from './seeded.js';

const mha = await loadAttention();
const lessonLayer = mha.createLayer({ dModel: 4, heads: 2, maxLen: 3 });
const lesson = {
  q: [[1, 1, 0, 0], [0, 2, 0, 2], [0, 0, 1, 1]],
  k: [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]],
  v: [[1, 0, 1, 0], [0, 1, 0, 1], [2, 0, 0, 2]],
};

function lessonStillWorks() {
  lessonLayer.forward({ ...lesson, causal: false });
  assert.deepEqual(round2(lessonLayer.attention(0).subarray(0, 3)), [0.25, 0.25, 0.5]);
  assert.deepEqual(round2(lessonLayer.attention(1).subarray(3, 6)), [0.16, 0.67, 0.16]);
}

const CODES = new Set(['BAD_SIZE', 'HEADS_NOT_DIVISOR', 'TOO_LARGE', 'OUT_OF_MEMORY', 'SEQ_TOO_LONG', 'NOT_FINITE', 'BAD_INPUT',
  'HEAD_INDEX', 'NO_FORWARD', 'BAD_LENGTH', 'BAD_ARGUMENT', 'DISPOSED', 'KV_HEADS_NOT_DIVISOR']);

/** Hostile stand-ins for a number, an array or an options value. */
function hostileValue(random, layer) {
  const menu = [
    NaN, Infinity, -Infinity, 1e39, -1e39, 2 ** 32, -(2 ** 32), 2 ** 53, 1.5, -0, '1', null, undefined, {}, [], true, Symbol('s'), 10n,
    { length: -1 }, { length: 2 ** 40 }, { length: Infinity }, { length: '3' }, 'abc',
    { length: 2, get 0() { layer?.dispose(); return 1; }, 1: 1 },
    new Proxy([1, 2], { get: (target, key) => (key === 'length' ? 1e12 : target[key]) }),
  ];
  return menu[Math.floor(random() * menu.length)];
}

/** A random array of n float32 values, sometimes with one hostile entry. */
function numbers(random, n, spread) {
  const values = Array.from({ length: n }, () => Math.fround((random() * 2 - 1) * spread));
  return values;
}

test('seeded fuzz of the JS API: valid calls match the reference, bad ones are coded errors, the instance survives', () => {
  const random = seededRandom(2026);
  const counts = { valid: 0, errors: {} };
  const startBytes = mha.memoryBytes();
  for (let round = 0; round < 3000; round++) {
    const h = 1 + Math.floor(random() * 4), dk = 1 + Math.floor(random() * 6), d = h * dk, maxLen = 1 + Math.floor(random() * 8);
    let layer;
    const attempt = (call) => {
      try {
        return call();
      } catch (error) {
        assert.ok(error instanceof MHAError, `round ${round}: a plain ${error?.name}: ${error?.message}`);
        assert.ok(CODES.has(error.code), `round ${round}: unknown code ${error.code}`);
        assert.ok(error.message.length > 10, 'a sentence');
        counts.errors[error.code] = (counts.errors[error.code] ?? 0) + 1;
        lessonStillWorks();
        return undefined;
      }
    };
    const kind = random();
    if (kind < 0.1) { // hostile sizes
      const sizes = { dModel: d, heads: h, maxLen };
      const key = ['dModel', 'heads', 'maxLen'][Math.floor(random() * 3)];
      sizes[key] = hostileValue(random);
      attempt(() => mha.createLayer(sizes).dispose());
      continue;
    }
    if (kind < 0.15) { // a head count that does not divide d_model
      attempt(() => mha.createLayer({ dModel: 2 * Math.floor(random() * 32) + 1, heads: 2, maxLen }).dispose());
      continue;
    }
    layer = attempt(() => mha.createLayer({ dModel: d, heads: h, maxLen }));
    if (!layer) continue;
    const L = 1 + Math.floor(random() * maxLen), spread = [0.5, 2, 1e19, 3e38][Math.floor(random() * 4) * (random() < 0.8 ? 0 : 1)];
    const projection = random() < 0.5;
    const options = projection
      ? { x: numbers(random, L * d, 1), wq: numbers(random, d * d, spread), wk: numbers(random, d * d, spread), wv: numbers(random, d * d, 1) }
      : { q: numbers(random, L * d, spread), k: numbers(random, L * d, spread), v: numbers(random, L * d, 1) };
    if (random() < 0.5) options.wo = numbers(random, d * d, 1);
    options.causal = random() < 0.5;
    options.scale = random() < 0.8;
    if (random() < 0.3) options.enabled = Array.from({ length: h }, () => random() < 0.7);
    const breakIt = random() < 0.3;
    if (breakIt) {
      const keys = [...Object.keys(options), 'casual', 'bias', 'enabled', 'wo', 'plain'];
      options[keys[Math.floor(random() * keys.length)]] = hostileValue(random, layer);
    }
    const done = attempt(() => layer.forward(options));
    if (done && !breakIt && spread < 1e19) {
      const want = referenceAttention({ ...options, d, h });
      for (let i = 0; i < h; i++) assert.ok(maxAbsDiff(layer.attention(i), want.attention[i]) < 1e-4, `round ${round}: head ${i}`);
      assert.ok(maxAbsDiff(layer.output(), want.output) < 1e-3 * Math.max(1, spread), `round ${round}: output`);
      counts.valid++;
    } else if (done) {
      assert.ok(layer.output().every(Number.isFinite), `round ${round}: a forward that succeeds gives finite numbers`);
    }
    attempt(() => layer[['attention', 'scores', 'headOutput'][Math.floor(random() * 3)]](random() < 0.5 ? Math.floor(random() * h) : hostileValue(random)));
    layer.dispose();
  }
  lessonStillWorks();
  assert.ok(counts.valid > 1000, `enough valid calls checked against the reference: ${counts.valid}`);
  for (const code of ['BAD_SIZE', 'HEADS_NOT_DIVISOR', 'NOT_FINITE', 'BAD_LENGTH', 'BAD_ARGUMENT', 'HEAD_INDEX', 'DISPOSED']) {
    assert.ok(counts.errors[code] > 0, `the fuzz reached ${code}: ${JSON.stringify(counts.errors)}`);
  }
  assert.ok(mha.memoryBytes() <= Math.max(startBytes, 64 * 2 ** 20), `the heap stays bounded: ${mha.memoryBytes()} bytes`);
});

test('seeded fuzz of shared K/V heads: any kvHeads, right or wrong, and inputs of right and wrong widths', () => {
  const random = seededRandom(37);
  const counts = { valid: 0, errors: {} };
  for (let round = 0; round < 800; round++) {
    const h = 1 + Math.floor(random() * 6), dk = 1 + Math.floor(random() * 4), d = h * dk, maxLen = 1 + Math.floor(random() * 6);
    const divisors = Array.from({ length: h }, (_, i) => i + 1).filter((n) => h % n === 0);
    const pick = random();
    const kvHeads = pick < 0.6 ? divisors[Math.floor(random() * divisors.length)] : pick < 0.7 ? 0 : pick < 0.8 ? h + 1 + Math.floor(random() * 4)
      : pick < 0.9 ? 1 + Math.floor(random() * h) : hostileValue(random);
    let layer;
    try {
      layer = mha.createLayer({ dModel: d, heads: h, maxLen, kvHeads });
    } catch (error) {
      assert.ok(error instanceof MHAError && CODES.has(error.code), `round ${round}: ${error?.code} ${error?.message}`);
      if (error.code === 'KV_HEADS_NOT_DIVISOR') assert.deepEqual(error.details, { kvHeads, heads: h });
      counts.errors[error.code] = (counts.errors[error.code] ?? 0) + 1;
      lessonStillWorks();
      continue;
    }
    const shared = layer.kvHeads, kvd = shared * dk, L = 1 + Math.floor(random() * maxLen);
    const wrong = random() < 0.2 ? (kvd === d ? 0 : d - kvd) : 0; // k and v, or wk and wv, of the multi-head width
    const options = random() < 0.5
      ? { x: numbers(random, L * d, 1), wq: numbers(random, d * d, 1), wk: numbers(random, d * (kvd + wrong), 1), wv: numbers(random, d * (kvd + wrong), 1) }
      : { q: numbers(random, L * d, 1), k: numbers(random, L * (kvd + wrong), 1), v: numbers(random, L * (kvd + wrong), 1) };
    options.causal = random() < 0.5;
    try {
      layer.forward(options);
      const clean = Object.values(options).every((a) => typeof a === 'boolean' || a.every(Number.isFinite));
      assert.ok(!wrong || !clean, `round ${round}: inputs of the wrong width were taken`);
      const want = referenceAttention({ ...options, d, h, kvHeads: shared });
      for (let i = 0; i < h; i++) assert.ok(maxAbsDiff(layer.attention(i), want.attention[i]) < 1e-4, `round ${round}: head ${i}`);
      assert.ok(maxAbsDiff(layer.output(), want.output) < 1e-4, `round ${round}: output`);
      counts.valid++;
    } catch (error) {
      if (!(error instanceof MHAError)) throw error;
      assert.ok(CODES.has(error.code), `round ${round}: ${error.code}`);
      counts.errors[error.code] = (counts.errors[error.code] ?? 0) + 1;
      lessonStillWorks();
    }
    layer.dispose();
  }
  assert.ok(counts.valid > 300, `valid calls checked: ${counts.valid}`);
  for (const code of ['BAD_SIZE', 'KV_HEADS_NOT_DIVISOR', 'BAD_LENGTH']) assert.ok(counts.errors[code] > 0, `reached ${code}: ${JSON.stringify(counts.errors)}`);
});
