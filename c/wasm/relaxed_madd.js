// node c/wasm/relaxed_madd.js IN.wasm OUT.wasm — run by build.sh on the -fma builds (c/ built with -mrelaxed-simd).
// Emscripten 3.1.6's clang 14 writes relaxed SIMD's fused multiply-add as the proposal's early
// f32x4.fma (0xfd 0xaf 0x01), which engines now reject; the standard f32x4.relaxed_madd(a, b, c) = a·b + c
// (0xfd 0x85 0x02, the same length) computes what kernels.c's vmadd asks of it. The bytes are rewritten in
// place, after checking against binaryen's disassembly (wasm-dis) that every occurrence of the three bytes
// is that instruction, and that the module has no other relaxed instruction. A custom section
// "mha-fused-multiply-add" then marks the module, for web/src/instance.js to tell the builds apart.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { customSection } from './mark_build.js';

const [input, output] = process.argv.slice(2);
const fail = (message) => {
  console.error(`relaxed_madd.js: ${message}`);
  process.exit(2);
};
if (!input || !output) fail('usage: node c/wasm/relaxed_madd.js IN.wasm OUT.wasm');

const bytes = readFileSync(input);
const text = spawnSync('wasm-dis', ['--enable-simd', '--enable-relaxed-simd', '--enable-threads', '--enable-bulk-memory', input], {
  encoding: 'utf8',
  maxBuffer: 1 << 30,
});
if (text.status !== 0) fail(`wasm-dis ${input} failed: ${text.error ?? text.stderr}`);
const instructions = text.stdout.match(/\(f32x4\.relaxed_fma\b/g)?.length ?? 0;
const relaxed = text.stdout.match(/\([\w.]*relaxed[\w.]*/g)?.length ?? 0;
if (relaxed !== instructions) fail(`${input} has relaxed instructions other than f32x4.relaxed_fma, which this script does not rewrite`);
if (instructions === 0) fail(`${input} has no f32x4.relaxed_fma: was it built with -mrelaxed-simd?`);

const places = [];
for (let i = bytes.indexOf(0xfd); i >= 0 && i + 2 < bytes.length; i = bytes.indexOf(0xfd, i + 1)) {
  if (bytes[i + 1] === 0xaf && bytes[i + 2] === 0x01) places.push(i);
}
// Each instruction is one occurrence; any more would be the same bytes inside a constant or a name.
if (places.length !== instructions) fail(`${input}: ${places.length} places hold f32x4.fma's bytes but ${instructions} are the instruction`);
for (const i of places) bytes.set([0x85, 0x02], i + 1);

writeFileSync(output, Buffer.concat([bytes, customSection('mha-fused-multiply-add')]));
