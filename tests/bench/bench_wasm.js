// bench_wasm.js THREADS: this module in Node with loadAttention({ threads }) for tests/bench/core.js,
// in a process of its own because loadAttention loads one core per process. Speaks bench_native.c's
// protocol (commands.js); its first line says how many threads run, and "fma" after them when the cores
// use fused multiply-add (Node 20 runs them with --experimental-wasm-relaxed-simd).
import { loadAttention } from '../../web/src/attention.js';
import { answerCommands } from './commands.js';

const mha = await loadAttention({ threads: Number(process.argv[2]) });
console.log(`${mha.threads}${mha.fma ? ' fma' : ''}`);
let layer;
await answerCommands((inputs, L, d, h) => {
  layer?.dispose();
  layer = mha.createLayer({ dModel: d, heads: h, maxLen: L });
  const args = { ...inputs, causal: true };
  return {
    time(reps) {
      const start = process.hrtime.bigint();
      for (let i = 0; i < reps; i++) layer.forward(args);
      return Number(process.hrtime.bigint() - start) / 1e9 / reps;
    },
    output: () => layer.forward(args).output(),
  };
});
