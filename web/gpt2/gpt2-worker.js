// GPT-2 off the main thread: a module Web Worker with its own core instance (handed the page's compiled
// module, as the training worker is) that loads the file a teacher picked and runs GPT-2 on typed text, so
// the page stays responsive through a forward of up to a second. Bundled as web/dist/gpt2-worker.js; it alone
// imports GPT-2's tokenizer.
//
// Messages in:  { type: 'load', file (a File or Blob), wasm (a WebAssembly.Module) }
//               { type: 'run', key, text, off: [[layer, head]], limit }
// Messages out: { type: 'progress', read, size }  { type: 'ready', config, metadata }
//               { type: 'result', key, ids, labels, punctuation, attention: Float32Array[] (index layer·heads + head),
//                 top: { all, now }: per row the 5 likeliest next tokens [{ id, p, label }] (now: null with no head off), ms }
//               { type: 'error', code, message, during: 'load' | 'run' }
import { loadAttention } from '../src/attention.js';
import { topNext } from '../poems/model.js';
import { gpt2Input, gpt2TokenLabel, isPunctuationToken } from './tokens.js';

let model = null;
let lastTop = []; // topOfEveryRow() of the model's last forward

const fail = (during, error) => postMessage({ type: 'error', during, code: error?.code ?? 'UNEXPECTED', message: error?.message ?? String(error) });

/**
 * The 5 likeliest next tokens after every row of the last forward: the rows it kept from the forward before
 * (the same tokens up to there, the same heads) have that forward's, the rest are read from the logits.
 */
function topOfEveryRow() {
  const { vocabSize } = model.config;
  const logits = model.logits();
  lastTop = Array.from({ length: model.length }, (_, row) => (row < model.reused ? lastTop[row]
    : topNext(logits, row, vocabSize).map(({ id, p }) => ({ id, p, label: gpt2TokenLabel(id) }))));
  return lastTop;
}

async function load({ file, wasm }) {
  model?.dispose();
  model = null;
  lastTop = [];
  const mha = await loadAttention({ wasm });
  model = await mha.loadModel(file, { onProgress: (read, size) => postMessage({ type: 'progress', read, size }) });
  postMessage({ type: 'ready', config: { ...model.config }, metadata: { ...model.metadata } });
}

function run({ key, text, off, limit }) {
  const start = performance.now();
  const { layers, heads, context } = model.config;
  const ids = gpt2Input(text, Math.min(limit, context));
  model.forward(ids, { disabled: off });
  const attention = Array.from({ length: layers * heads }, (_, i) => model.attention(Math.floor(i / heads), i % heads).slice());
  const now = off.length ? topOfEveryRow() : null;
  if (off.length) model.forward(ids); // every head on, for the comparison
  const all = topOfEveryRow();
  postMessage({
    type: 'result', key, ids, labels: ids.map(gpt2TokenLabel), punctuation: ids.map(isPunctuationToken), attention, top: { all, now }, ms: performance.now() - start,
  }, attention.map((weights) => weights.buffer));
}

// One message at a time, in order: a run waits for the load before it.
let queue = Promise.resolve();
addEventListener('message', ({ data }) => {
  queue = queue.then(async () => {
    if (data.type === 'load') await load(data).catch((error) => fail('load', error));
    else if (data.type === 'run' && model) {
      try {
        run(data);
      } catch (error) {
        fail('run', error);
      }
    }
  });
});
