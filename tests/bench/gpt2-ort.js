// GPT-2 small in the core and in ONNX Runtime Web side by side: the same random weights in GPT-2's shapes, the same
// ids. Each engine and thread count is a process of its own (ORT sets its threads once per process; the core's
// threaded build is chosen when it loads), all started before any is timed and kept: the forwards then take
// turns, a round at a time, each round in a new order, so a busy moment of the shared machine falls on every peer
// alike. Medians. First it checks that the engines agree on a small model.
//   core          web/src/attention.js's loadModel in Node, as `npm test` runs it
//   core, fused   the same in a Node with relaxed SIMD (--experimental-wasm-relaxed-simd), which takes the cores'
//                 fused multiply-add builds beside the threaded core, as Chromium and the lesson page do
//                 (more than one thread only: on one the page runs the core without them)
//   ORT Web       onnxruntime-web's wasm backend running tests/bench/gpt2-onnx.js's graph of the same forward
//
//   node tests/bench/gpt2-ort.js [--tokens 64,256,1024] [--threads 1,2] [--runs 5] [--quick] [--small]
//     --quick    3 runs of 64 and 256 tokens
//     --small    GPT-2's shape with 2 layers and a 5,000-token vocabulary, for a quick look
// Writes every sample to tests/artifacts/gpt2-ort-results.json.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gpt2File, randomWeights } from '../gpt-reference.js';
import { seededRandom } from '../seeded.js';
import { gpt2Onnx } from './gpt2-onnx.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const GPT2_SMALL = { layers: 12, heads: 12, dModel: 768, context: 1024, vocab: 50257 };
const RELAXED_SIMD = '--experimental-wasm-relaxed-simd';
const idsOf = (L, vocab) => Array.from({ length: L }, (_, i) => (i * 7919 + 11) % vocab);
const median = (values) => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * One engine in this process: loads the files in `dir`, runs one untimed forward, says what runs, then answers
 * stdin's lines: "time" with one timed forward's ms, "row" with the last row of the logits of `ids`. Each timed
 * forward follows an untimed one: after the other peers' turns a core of this VM takes a while to come back to
 * speed, and the threads of the threaded engines have gone to sleep.
 */
async function engine({ dir, which, threads, tokens, vocab }) {
  const ids = idsOf(tokens, vocab);
  let forward; // a forward timed
  let exact; // the forward of `ids`, whose logits are compared
  let running;
  if (which === 'core') {
    const { loadAttention } = await import('../../web/src/attention.js');
    const mha = await loadAttention({ threads });
    const model = await mha.loadModel(readFileSync(join(dir, 'model.safetensors')), { maxTokens: tokens });
    // A forward keeps the rows it shares with the last one; a new first token each time shares none.
    let first = 0;
    forward = () => model.forward([(ids[0] + ++first) % vocab, ...ids.slice(1)]).logits();
    exact = () => model.forward(ids).logits();
    running = { threads: mha.threads, fma: mha.fma };
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
    running = { threads, fma: false };
  }
  await forward(); // warm-up, untimed
  console.log(JSON.stringify(running));
  for await (const line of createInterface({ input: process.stdin })) {
    if (line === 'time') {
      await forward();
      const start = performance.now();
      await forward();
      console.log(JSON.stringify({ ms: performance.now() - start }));
    } else if (line === 'row') {
      const logits = await exact();
      console.log(JSON.stringify({ row: Array.from(logits.subarray((tokens - 1) * vocab, tokens * vocab)) }));
    }
  }
}

/** A peer: an engine in a child process, started and loaded; ask() sends a line and resolves with its answer. */
async function startPeer(name, options, nodeFlags = []) {
  const child = spawn(process.execPath, [...nodeFlags, fileURLToPath(import.meta.url), '--engine', JSON.stringify(options)], { cwd: HERE, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => {
    const { value, done } = await lines.next();
    if (done) throw new Error(`${name} stopped: ${stderr.trim()}`);
    return JSON.parse(value);
  };
  const running = await next();
  return {
    name, ...options, running, ms: [],
    ask: (line) => (child.stdin.write(`${line}\n`), next()),
    close: () => child.kill(),
  };
}

/** The peers for these thread counts: the core, its fused builds where they apply, and ORT. */
async function startPeers(dir, tokens, threadCounts, vocab) {
  const peers = [];
  for (const threads of threadCounts) {
    const options = { dir, threads, tokens, vocab };
    peers.push(await startPeer('core', { ...options, which: 'core' }));
    if (threads > 1) {
      const fused = await startPeer('core, fused', { ...options, which: 'core' }, [RELAXED_SIMD]);
      if (fused.running.fma) peers.push(fused);
      else fused.close(); // this Node has no relaxed SIMD
    }
    peers.push(await startPeer('ORT Web', { ...options, which: 'ort' }));
  }
  return peers;
}

function writeModel(dir, config, seed) {
  const weights = randomWeights(config, seededRandom(seed), { spread: 0.05 });
  writeFileSync(join(dir, 'model.safetensors'), gpt2File(config, weights));
  writeFileSync(join(dir, 'model.onnx'), gpt2Onnx(config, weights));
}

/** The largest difference between the last rows of the logits of the core (plain and fused) and of ORT. */
async function agreement(dir, config) {
  const peers = await startPeers(dir, 32, [2], config.vocab);
  try {
    const rows = await Promise.all(peers.map(async (peer) => (await peer.ask('row')).row));
    const ort = rows[peers.findIndex((peer) => peer.which === 'ort')];
    return peers.filter((peer) => peer.which === 'core').map((peer) => ({
      name: peer.name,
      diff: Math.max(...rows[peers.indexOf(peer)].map((v, i) => Math.abs(v - ort[i]))),
    }));
  } finally {
    for (const peer of peers) peer.close();
  }
}

const { values } = parseArgs({ options: {
  engine: { type: 'string' }, tokens: { type: 'string' }, threads: { type: 'string' }, runs: { type: 'string' },
  quick: { type: 'boolean', default: false }, small: { type: 'boolean', default: false },
} });
if (values.engine) {
  await engine(JSON.parse(values.engine));
} else {
  const tokenCounts = (values.tokens ?? (values.quick ? '64,256' : '64,256,1024')).split(',').map(Number);
  const threadCounts = (values.threads ?? [...new Set([1, 2, availableParallelism()])].join(',')).split(',').map(Number);
  const runs = Number(values.runs ?? (values.quick ? 3 : 5));
  const dir = mkdtempSync(join(tmpdir(), 'gpt2-ort-'));
  try {
    const check = { layers: 2, heads: 4, dModel: 64, context: 64, vocab: 300 };
    writeModel(dir, check, 5);
    for (const { name, diff } of await agreement(dir, check)) {
      console.log(`agreement on a 2-layer model, 32 tokens: ${name} and ORT Web's logits differ by at most ${diff.toExponential(2)}`);
      if (!(diff < 1e-4)) throw new Error(`${name} and ONNX Runtime disagree`);
    }
    const config = values.small ? { ...GPT2_SMALL, layers: 2, vocab: 5000 } : GPT2_SMALL;
    writeModel(dir, config, 7);
    console.log(`${JSON.stringify(config)}: one forward (the blocks and the logits of every position), median of ${runs}, the peers taking turns`);
    const table = ['| tokens | threads | core | core, fused | ONNX Runtime Web | ORT ÷ core | ORT ÷ fused |', '|---|---|---|---|---|---|---|'];
    const targets = [];
    const samples = [];
    for (const tokens of tokenCounts) {
      const peers = await startPeers(dir, tokens, threadCounts, config.vocab);
      try {
        for (let round = 0; round < runs; round++) {
          for (let i = 0; i < peers.length; i++) {
            const peer = peers[(i + round) % peers.length];
            peer.ms.push((await peer.ask('time')).ms);
          }
        }
      } finally {
        for (const peer of peers) peer.close();
      }
      samples.push(...peers.map(({ name, threads, running, ms }) => ({ tokens, name, threads, running, ms })));
      const time = (name, threads) => {
        const peer = peers.find((p) => p.name === name && p.threads === threads);
        return peer && median(peer.ms);
      };
      for (const threads of threadCounts) {
        const [core, fused, ort] = ['core', 'core, fused', 'ORT Web'].map((name) => time(name, threads));
        const ms = (t) => (t === undefined ? '—' : `${t.toFixed(0)} ms`);
        const ratio = (t) => (t === undefined ? '—' : `${(ort / t).toFixed(2)}×`);
        table.push(`| ${tokens} | ${threads} | ${ms(core)} | ${ms(fused)} | ${ms(ort)} | ${ratio(core)} | ${ratio(fused)} |`);
        const best = Math.min(core, fused ?? Infinity);
        targets.push({ met: ort / best >= 2, text: `${(ort / best).toFixed(2)}×  ${tokens} tokens, ${threads} thread${threads > 1 ? 's' : ''}: the core at least 2× as fast as ORT Web` });
      }
      // Scaling against one thread: a target at the page's 64 tokens, a figure at the other sizes.
      const one = time('core', 1);
      for (const threads of one === undefined ? [] : threadCounts.filter((t) => t > 1)) {
        for (const name of ['core', 'core, fused']) {
          const many = time(name, threads);
          if (many === undefined) continue;
          const speedup = one / many;
          targets.push({ met: tokens === 64 ? speedup >= 1.8 : null, text: `${speedup.toFixed(2)}×  ${tokens} tokens: ${name} on ${threads} threads against the core on 1${tokens === 64 ? ' (target 1.8×)' : ''}` });
        }
      }
    }
    console.log(table.join('\n'));
    console.log('targets (one run; the best of the core and its fused builds):');
    for (const { met, text } of targets) console.log(`  ${met === null ? '       ' : met ? 'met    ' : 'NOT MET'} ${text}`);
    const out = join(HERE, '..', 'artifacts', 'gpt2-ort-results.json');
    mkdirSync(join(HERE, '..', 'artifacts'), { recursive: true });
    writeFileSync(out, `${JSON.stringify({ config, runs, samples, targets }, null, 2)}\n`);
    console.log(`wrote ${out}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
