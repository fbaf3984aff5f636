// GPT-2 in the core and in ONNX Runtime Web side by side: the same random weights in GPT-2's shapes, the same
// ids, each engine in a process of its own (ORT sets its threads once per process; the core's threaded build
// is chosen when it loads), interleaved, medians. First it checks that the two agree on a small model.
//
//   node tests/bench/gpt2-ort.js [--tokens 64,256] [--threads 1,2] [--runs 5] [--small]
//     --small    GPT-2's shape with 2 layers and a 5,000-token vocabulary, for a quick look
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gpt2File, randomWeights } from '../gpt-reference.js';
import { seededRandom } from '../seeded.js';
import { gpt2Onnx } from './gpt2-onnx.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const GPT2_SMALL = { layers: 12, heads: 12, dModel: 768, context: 1024, vocab: 50257 };
const idsOf = (L, vocab) => Array.from({ length: L }, (_, i) => (i * 7919 + 11) % vocab);
const median = (values) => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** One engine in this process: loads the files in `dir`, times `runs` forwards of `tokens` ids, prints the times and the last row of the logits. */
async function engine({ dir, which, threads, tokens, runs, vocab }) {
  const ids = idsOf(tokens, vocab);
  let forward; // a forward timed
  let exact; // the forward of `ids`, whose logits are compared
  if (which === 'core') {
    const { loadAttention } = await import('../../web/src/attention.js');
    const mha = await loadAttention({ threads });
    const model = await mha.loadModel(readFileSync(join(dir, 'model.safetensors')), { maxTokens: tokens });
    // A forward keeps the rows it shares with the last one; a new first token each time shares none.
    let first = 0;
    forward = () => model.forward([(ids[0] + ++first) % vocab, ...ids.slice(1)]).logits();
    exact = () => model.forward(ids).logits();
  } else {
    const ort = await import('onnxruntime-web');
    ort.env.wasm.numThreads = threads;
    const session = await ort.InferenceSession.create(readFileSync(join(dir, 'model.onnx')), { executionProviders: ['wasm'] });
    const feeds = {
      ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [tokens]),
      positions: new ort.Tensor('int64', BigInt64Array.from(ids, (_, i) => BigInt(i)), [tokens]),
    };
    forward = async () => (await session.run(feeds)).logits.data;
    exact = forward;
  }
  await forward(); // warm-up, untimed
  const ms = [];
  for (let r = 0; r < runs; r++) {
    const start = performance.now();
    await forward();
    ms.push(performance.now() - start);
  }
  const logits = await exact();
  console.log(JSON.stringify({ ms, row: Array.from(logits.subarray((tokens - 1) * vocab, tokens * vocab)) }));
}

function inChild(options) {
  const result = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--engine', JSON.stringify(options)], { cwd: HERE, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (result.status !== 0) throw new Error(`${options.which} failed: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').at(-1));
}

function writeModel(dir, config, seed) {
  const weights = randomWeights(config, seededRandom(seed), { spread: 0.05 });
  writeFileSync(join(dir, 'model.safetensors'), gpt2File(config, weights));
  writeFileSync(join(dir, 'model.onnx'), gpt2Onnx(config, weights));
}

const { values } = parseArgs({ options: {
  engine: { type: 'string' }, tokens: { type: 'string', default: '64,256' }, threads: { type: 'string', default: '1,2' },
  runs: { type: 'string', default: '5' }, small: { type: 'boolean', default: false },
} });
if (values.engine) {
  await engine(JSON.parse(values.engine));
} else {
  const dir = mkdtempSync(join(tmpdir(), 'gpt2-ort-'));
  try {
    // Agreement first, on a small model: the largest difference of the last row's logits.
    const check = { layers: 2, heads: 4, dModel: 64, context: 64, vocab: 300 };
    writeModel(dir, check, 5);
    const [core, ort] = ['core', 'ort'].map((which) => inChild({ dir, which, threads: 1, tokens: 32, runs: 1, vocab: check.vocab }));
    const diff = Math.max(...core.row.map((v, i) => Math.abs(v - ort.row[i])));
    console.log(`agreement on a 2-layer model, 32 tokens: logits differ by at most ${diff.toExponential(2)}`);
    if (!(diff < 1e-4)) throw new Error('the core and ONNX Runtime disagree');
    const config = values.small ? { ...GPT2_SMALL, layers: 2, vocab: 5000 } : GPT2_SMALL;
    writeModel(dir, config, 7);
    const runs = Number(values.runs);
    console.log(`${JSON.stringify(config)}: one forward (the blocks and the logits), median of ${runs}`);
    console.log('| tokens | threads | core | ONNX Runtime Web | ORT ÷ core |\n|---|---|---|---|---|');
    for (const tokens of values.tokens.split(',').map(Number)) {
      for (const threads of values.threads.split(',').map(Number)) {
        const [core, ort] = ['core', 'ort'].map((which) => median(inChild({ dir, which, threads, tokens, runs, vocab: config.vocab }).ms));
        console.log(`| ${tokens} | ${threads} | ${core.toFixed(0)} ms | ${ort.toFixed(0)} ms | ${(ort / core).toFixed(2)}× |`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
