// The tests' .safetensors writer (tests/safetensors-files.js): F16 rounding to nearest even, bit for bit at the
// edges, the layout it writes, and that it writes the shipped model to the same bytes, as the C writer does.
// The C writer's own tests are native: c/tests/test_gpt.c.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { floatToHalf, halfToFloat, writeSafetensors } from './safetensors-files.js';

test('floatToHalf rounds to the nearest half, ties to even, and keeps signs, infinities and NaN', () => {
  const cases = [
    [1, 0x3c00], [-2, 0xc000], [65504, 0x7bff], [65519, 0x7bff], [65520, 0x7c00], [1e9, 0x7c00], [-Infinity, 0xfc00],
    [2 ** -24, 0x0001], [2 ** -25, 0x0000], [3 * 2 ** -25, 0x0002], [2 ** -14, 0x0400], [-0, 0x8000],
    [1 + 2 ** -11, 0x3c00], [1 + 3 * 2 ** -11, 0x3c02], [1 + 2 ** -11 + 2 ** -20, 0x3c01], [2047 / 1024 + 2 ** -11, 0x4000],
  ];
  for (const [x, bits] of cases) assert.equal(floatToHalf(x), bits, `${x} → 0x${bits.toString(16)}`);
  assert.equal(floatToHalf(NaN) & 0x7e00, 0x7e00);
  for (let h = 0; h < 0x7c00; h += 7) assert.equal(floatToHalf(halfToFloat(h)), h, `half 0x${h.toString(16)} round-trips`);
});

test('F16 files keep names, shapes, order and metadata, round every value once, and start the data 8-byte aligned', () => {
  const values = [Float32Array.of(1, -2.5, 1e-8, 70000), Float32Array.of(0.1, 0.2, 0.3)];
  const f16 = writeSafetensors([['a', [2, 2], values[0], 'F16'], ['b', [3], values[1], 'F16']], { n_head: '2', vocabulary: '[]' });
  const view = new DataView(f16.buffer);
  const length = Number(view.getBigUint64(0, true));
  assert.equal((8 + length) % 8, 0, 'the data starts 8-byte aligned');
  const header = JSON.parse(new TextDecoder().decode(f16.subarray(8, 8 + length)));
  assert.deepEqual(Object.keys(header), ['__metadata__', 'a', 'b']);
  assert.deepEqual(header.__metadata__, { n_head: '2', vocabulary: '[]' });
  assert.deepEqual(header.b, { dtype: 'F16', shape: [3], data_offsets: [8, 14] });
  const halves = [...values[0], ...values[1]].map((x, i) => view.getUint16(8 + length + 2 * i, true));
  assert.deepEqual(halves, [...values[0], ...values[1]].map(floatToHalf));
  assert.deepEqual(halves.slice(0, 4), [0x3c00, 0xc100, 0x0000, 0x7c00]);
});

test('the shipped model is the bytes this writer writes of its tensors and metadata, as the C writer does too (tests/native.slow.test.js)', () => {
  const file = readFileSync(new URL('../web/poems/poems.safetensors', import.meta.url));
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const length = Number(view.getBigUint64(0, true));
  const { __metadata__: metadata, ...tensors } = JSON.parse(new TextDecoder().decode(file.subarray(8, 8 + length)));
  const rewritten = writeSafetensors(Object.entries(tensors).map(([name, { dtype, shape, data_offsets: [begin, end] }]) => {
    const halves = new Uint16Array(file.buffer.slice(file.byteOffset + 8 + length + begin, file.byteOffset + 8 + length + end));
    return [name, shape, Float32Array.from(halves, halfToFloat), dtype];
  }), metadata);
  assert.ok(Buffer.from(rewritten).equals(file));
});
