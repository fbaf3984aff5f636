// bench_ort.js THREADS: ONNX Runtime Web (its wasm backend, from node_modules) running
// tests/bench/attention.onnx with THREADS threads, for tests/bench/core.js. A process per thread
// count: ORT sets its threads once per process. Speaks bench_native.c's protocol (commands.js);
// its first line says how many threads run (ORT drops to 1 where it cannot start more).
import { readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-web';
import { onnxFile } from './attention-onnx.js';
import { answerCommands } from './commands.js';

ort.env.wasm.numThreads = Number(process.argv[2]);
const session = await ort.InferenceSession.create(readFileSync(onnxFile), { executionProviders: ['wasm'] });
console.log(ort.env.wasm.numThreads);
await answerCommands((inputs, L, d, h) => {
  // The graph reads the heads from W_q, W_k and W_v's shape: [d, h, d_k], the same bytes as d × d.
  const byHead = [d, h, d / h];
  const feeds = {
    x: new ort.Tensor('float32', inputs.x, [L, d]),
    wq: new ort.Tensor('float32', inputs.wq, byHead),
    wk: new ort.Tensor('float32', inputs.wk, byHead),
    wv: new ort.Tensor('float32', inputs.wv, byHead),
    wo: new ort.Tensor('float32', inputs.wo, [d, d]),
  };
  return {
    async time(reps) {
      const start = process.hrtime.bigint();
      for (let i = 0; i < reps; i++) await session.run(feeds);
      return Number(process.hrtime.bigint() - start) / 1e9 / reps;
    },
    output: async () => (await session.run(feeds)).out.data,
  };
});
