// The fused multiply-add builds (mha-core-fma.wasm, mha-core-mt-fma.wasm: relaxed SIMD, see build.sh and
// c/wasm/relaxed_madd.js). Node 20 has relaxed SIMD only behind a flag, so this process keeps the other builds and
// fma-child.js checks the fused ones in a Node with the flag: loaded by default beside the threaded core, the
// same bits on one thread as on many, closer to the float64 reference than the unfused core and not the same
// bits, the lesson's numbers. c/wasm/relaxed_madd.js, which makes them, is checked on modules built here by hand.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmaAvailable, loadAttention } from '../web/src/attention.js';

const dist = (file) => readFileSync(new URL(`../web/dist/${file}`, import.meta.url));

test('without relaxed SIMD (Node 20 unflagged) the fused builds do not compile, and the other cores load', async () => {
  const engineHasIt = WebAssembly.validate(dist('mha-core-fma.wasm'));
  assert.equal(fmaAvailable(), engineHasIt, 'the probe agrees with the engine');
  assert.equal(WebAssembly.validate(dist('mha-core-mt-fma.wasm')), engineHasIt);
  if (!engineHasIt) assert.equal((await loadAttention()).fma, false);
});

test('with relaxed SIMD: the fused cores by default, the same bits on any thread count, near the reference', () => {
  const child = spawnSync(process.execPath, ['--experimental-wasm-relaxed-simd', fileURLToPath(new URL('fma-child.js', import.meta.url))], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  const seen = JSON.parse(child.stdout);
  assert.equal(seen.fmaAvailable, true);
  assert.deepEqual(seen.kinds.fused, [true, 2], 'by default: the fused threaded core, two threads');
  assert.deepEqual(seen.kinds.unfused, [false, 2], 'fma: false: the unfused one');
  assert.deepEqual(seen.kinds.fusedSingle, [true, 1], 'the fused single-threaded module, handed in, says what it is');
  assert.equal(seen.fusedEqualsFusedSingle, true, 'two threads give the bits of one');
  assert.ok(seen.bitsDifferFromUnfused > 1000, `the products are fused: ${seen.bitsDifferFromUnfused} outputs differ from the unfused core's`);
  for (const [name, diff] of Object.entries(seen.fromReference)) assert.ok(diff < seen.tolerance, `${name}: ${diff} from the float64 reference`);
  assert.ok(seen.fromReference.fused <= seen.fromReference.unfused * 1.5, 'rounding once is no worse');
  assert.deepEqual(seen.lesson, [[0.25, 0.25, 0.5, 0.11, 0.45, 0.45, 0.33, 0.33, 0.33], [0.33, 0.33, 0.33, 0.16, 0.67, 0.16, 0.4, 0.4, 0.2], [1.26, 0.25]]);
});

// One function (v128, v128, v128) → v128 whose body is clang 14's f32x4.fma; `data` adds a memory and a data
// segment holding the same three bytes, which are no instruction.
function handMadeModule({ fma = true, data = false } = {}) {
  const op = fma ? [0xfd, 0xaf, 0x01] : [0xfd, 0xe6, 0x01]; // f32x4.fma, or f32x4.mul
  const body = [0x00, 0x20, 0x00, 0x20, 0x01, ...(fma ? [0x20, 0x02] : []), ...op, 0x0b];
  const type = fma ? [0x60, 0x03, 0x7b, 0x7b, 0x7b, 0x01, 0x7b] : [0x60, 0x02, 0x7b, 0x7b, 0x01, 0x7b];
  const section = (id, bytes) => [id, bytes.length, ...bytes];
  return Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, ...type]), ...section(3, [1, 0]),
    ...(data ? section(5, [1, 0x00, 1]) : []),
    ...section(10, [1, body.length, ...body]),
    ...(data ? section(11, [1, 0x00, 0x41, 0x00, 0x0b, 3, 0xfd, 0xaf, 0x01]) : [])]);
}

function relaxedMadd(input) {
  const dir = mkdtempSync(join(tmpdir(), 'mha-relaxed-'));
  try {
    writeFileSync(join(dir, 'in.wasm'), input);
    const run = spawnSync(process.execPath, [fileURLToPath(new URL('../c/wasm/relaxed_madd.js', import.meta.url)), join(dir, 'in.wasm'), join(dir, 'out.wasm')], { encoding: 'utf8' });
    return { status: run.status, stderr: run.stderr, output: run.status === 0 ? readFileSync(join(dir, 'out.wasm')) : null };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('c/wasm/relaxed_madd.js rewrites each f32x4.fma to f32x4.relaxed_madd and marks the module', () => {
  const input = handMadeModule();
  const { status, stderr, output } = relaxedMadd(input);
  assert.equal(status, 0, stderr);
  const at = input.indexOf(Buffer.from([0xfd, 0xaf, 0x01]));
  const want = Buffer.from(input);
  want.set([0x85, 0x02], at + 1);
  assert.ok(output.subarray(0, input.length).equals(want), 'only the opcode changed');
  const name = 'mha-fused-multiply-add';
  assert.ok(output.subarray(input.length).equals(Buffer.from([0, name.length + 1, name.length, ...Buffer.from(name)])), 'then the custom section');
});

test('c/wasm/relaxed_madd.js refuses a module where the bytes are not only the instruction, or there is none', () => {
  const inData = relaxedMadd(handMadeModule({ data: true }));
  assert.equal(inData.status, 2);
  assert.match(inData.stderr, /2 places hold f32x4\.fma's bytes but 1 are the instruction/);
  const none = relaxedMadd(handMadeModule({ fma: false }));
  assert.equal(none.status, 2);
  assert.match(none.stderr, /has no f32x4\.relaxed_fma: was it built with -mrelaxed-simd\?/);
});
