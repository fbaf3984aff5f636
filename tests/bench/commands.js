// The command loop of bench_native.c's protocol for the bench's Node children (bench_wasm.js,
// bench_ort.js): each command on stdin answers one line on stdout.
//   load DIR L D H   read DIR/{x,wq,wk,wv,wo}.f32; prepare(inputs, L, d, h) makes the layer  → "ok"
//   time fast REPS   REPS forwards                                                         → seconds per forward
//   dump fast FILE   one forward, the L×D output written to FILE                             → "ok"
//   quit
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';

/**
 * Answers commands until quit. prepare resolves to { time(reps), output() }: seconds per forward over
 * reps forwards, and one forward's output (either may return a promise).
 */
export async function answerCommands(prepare) {
  let layer;
  for await (const line of createInterface({ input: process.stdin })) {
    const [command, ...words] = line.trim().split(/\s+/);
    if (command === 'load') {
      const [dir, L, d, h] = [words[0], ...words.slice(1).map(Number)];
      const read = (name) => {
        const bytes = readFileSync(path.join(dir, `${name}.f32`));
        return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4).slice();
      };
      const inputs = Object.fromEntries(['x', 'wq', 'wk', 'wv', 'wo'].map((name) => [name, read(name)]));
      layer = await prepare(inputs, L, d, h);
      console.log('ok');
    } else if (command === 'time') {
      console.log(await layer.time(Number(words[1])));
    } else if (command === 'dump') {
      const output = await layer.output();
      writeFileSync(words[1], Buffer.from(output.buffer, output.byteOffset, output.byteLength));
      console.log('ok');
    } else if (command === 'quit') {
      break;
    } else {
      throw new Error(`unknown command ${line}`);
    }
  }
}
