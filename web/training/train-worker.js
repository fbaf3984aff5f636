// The training loop of the 训练 section, off the main thread: a module Web Worker that owns one
// Trainer (mha.createTrainer, c/lib/train.c) and posts what the section draws. Bundled as its own entry
// (web/dist/train-worker.js); train-host.js starts it, or runs the same host in its own thread when
// workers are unavailable.
//
// Messages in:  { type: 'init', heads, kvHeads?, seed?, example?, stepsPerTick?, maxSteps?, wasm? }
//                 (kvHeads: K/V heads shared by groups of query heads, a divisor of heads; default heads.
//                 wasm: the page's compiled core, a WebAssembly.Module; the worker then fetches nothing)
//               { type: 'start' } { type: 'pause' } { type: 'reset' }
//               { type: 'speed', stepsPerTick } { type: 'dispose' }
// Messages out: { type: 'ready', heads, kvHeads, kvGroups, dK, seqLen, vocab, paramCount, example, maxSteps }
//                 (kvGroups[i]: the K/V group query head i reads)
//               { type: 'progress', steps, loss, eval, attention: Float32Array[] (one L×L per head),
//                 predict, running, done }
//               { type: 'ablation', steps, done, all, off: [evaluation with head i switched off] } (done: at the last step)
//               { type: 'error', code, message, details? } (details: KV_HEADS_NOT_DIVISOR's { kvHeads, heads })
import { loadAttention } from '../src/shared-core.js';

/** Evaluate and redraw about this often (ms) while running. */
const TICK_MS = 40;

/**
 * The worker's logic, independent of where it runs: `post(message, transfer)` sends a message out;
 * the returned function takes a message in (messages are handled one at a time, in order).
 */
export function createTrainingHost(post) {
  let mha = null;
  let trainer = null;
  let running = false;
  let timer = 0;
  let stepsPerTick = 4;
  let maxSteps = 1500;
  let queue = Promise.resolve();

  const fail = (error) => post({ type: 'error', code: error?.code ?? 'UNEXPECTED', message: error?.message ?? String(error), details: error?.details });

  function progress(done = false) {
    const evaluation = trainer.evaluate();
    const attention = Array.from({ length: trainer.heads }, (_, i) => trainer.attention(i).slice());
    post({
      type: 'progress',
      steps: trainer.steps,
      loss: trainer.loss(),
      eval: evaluation,
      attention,
      predict: trainer.predict(),
      running,
      done,
    }, attention.map((a) => a.buffer));
  }

  function ablate() {
    const all = trainer.evaluate();
    const off = Array.from({ length: trainer.heads }, (_, i) =>
      trainer.evaluate({ enabled: Array.from({ length: trainer.heads }, (_, j) => j !== i) }));
    post({ type: 'ablation', steps: trainer.steps, done: trainer.steps >= maxSteps, all, off });
  }

  function stop() {
    running = false;
    if (timer) clearTimeout(timer);
    timer = 0;
  }

  function tick() {
    timer = 0;
    if (!running || !trainer) return;
    try {
      trainer.step(Math.min(stepsPerTick, maxSteps - trainer.steps));
    } catch (error) {
      running = false;
      fail(error);
      return;
    }
    const done = trainer.steps >= maxSteps;
    if (done) running = false;
    progress(done);
    if (done) ablate();
    else timer = setTimeout(tick, TICK_MS);
  }

  async function handle(message) {
    switch (message?.type) {
      case 'init': {
        stop();
        mha ??= await loadAttention({ wasm: message.wasm });
        trainer?.dispose();
        trainer = null;
        if (message.stepsPerTick) stepsPerTick = message.stepsPerTick;
        if (message.maxSteps) maxSteps = message.maxSteps;
        trainer = mha.createTrainer({ heads: message.heads, kvHeads: message.kvHeads, seed: message.seed ?? 0 });
        if (message.example) trainer.setExample(message.example);
        const kvGroups = Array.from({ length: trainer.heads }, (_, i) => trainer.kvGroup(i));
        post({ type: 'ready', heads: trainer.heads, kvHeads: trainer.kvHeads, kvGroups, dK: trainer.dK, seqLen: trainer.seqLen, vocab: trainer.vocab, paramCount: trainer.paramCount, example: trainer.example, maxSteps });
        progress();
        break;
      }
      case 'start':
        if (!trainer || running) break;
        if (trainer.steps >= maxSteps) trainer.reset();
        running = true;
        tick();
        break;
      case 'pause':
        if (!trainer) break;
        stop();
        progress();
        if (trainer.steps > 0) ablate();
        break;
      case 'reset':
        if (!trainer) break;
        stop();
        trainer.reset();
        progress();
        break;
      case 'speed':
        stepsPerTick = Math.max(1, Math.min(1000, Math.floor(message.stepsPerTick) || 1));
        break;
      case 'dispose':
        stop();
        trainer?.dispose();
        trainer = null;
        break;
      default:
        throw new Error(`unknown message ${String(message?.type)}`);
    }
  }

  return (message) => {
    queue = queue.then(() => handle(message)).catch(fail);
    return queue;
  };
}

// In a worker: wire the host to postMessage.
const inWorker = typeof self === 'object' && typeof WorkerGlobalScope === 'function' && self instanceof WorkerGlobalScope;
if (inWorker) {
  const receive = createTrainingHost((message, transfer = []) => self.postMessage(message, transfer));
  self.addEventListener('message', (event) => receive(event.data));
}
