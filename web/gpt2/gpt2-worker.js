// GPT-2 off the main thread: a module Web Worker with its own core instance (handed the page's compiled
// module, as the training worker is) that loads the file a teacher picked and runs GPT-2 on typed text, so
// the page stays responsive through a forward of up to a second. Bundled as web/dist/gpt2-worker.js; it alone
// imports GPT-2's tokenizer. The file's SHA-256 is another worker's (gpt2-hash-worker.js), beside this one.
//
// Messages in:  { type: 'load', file (a File or Blob), wasm (a WebAssembly.Module), maxTokens (the longest run) }
//               { type: 'run', key, text, off: [[layer, head]], limit }
//               { type: 'generate', key, text, count, temperature, seed, off }: writes on from the text (generate.js)
//               { type: 'stop' }: the generation under way stops after its step
// Messages out: { type: 'progress', read, size }  { type: 'ready', config }
//               { type: 'result', key, ids (the first `limit`), total (how many the whole text makes), labels, byteTokens
//                 (which are pieces of a character), characters (tokens.js's characterRuns), punctuation,
//                 attention: Float32Array[] (index layer·heads + head),
//                 top: { all, now }: per row the 5 likeliest next tokens [{ id, p, label }] (now: null with no head off),
//                 reused: { all, now }: the rows each forward kept from the one before (runs.js), ms }
//               { type: 'step', key, ids (the prompt's and every token written), prompt (how many are the prompt's),
//                 tokens (tokens.js's mergedTokens of ids), id, rows: Float32Array[] (each head's attention row of the
//                 step's query, index layer·heads + head), ms (the step's), forwardMs (the prompt's forward), reused (the
//                 prompt's positions that forward kept from the one before) }
//               { type: 'generated', key, count, ms (every step's, summed), stopped, total (the whole text's tokens) }
//               { type: 'error', code, message (the core's, in English), details, during: 'load' | 'run' | 'generate' }
import { loadAttention } from '../src/attention.js';
import { characterRuns, gpt2Input, gpt2TokenLabel, isByteToken, isPunctuationToken, mergedTokens } from './tokens.js';
import { gpt2Runs } from './runs.js';
import { generation } from './generate.js';
import { lastRows } from '../heads/heads.js';

let model = null;
let runs = null;
let mha = null;
let latest = null; // the generate request asked for last, null once stopped: a step goes on only for it

// The details (where a forward overflowed) let the page say it in its own language.
const fail = (during, error) => postMessage({ type: 'error', during, code: error?.code ?? 'UNEXPECTED', message: error?.message ?? String(error), details: error?.details });

async function load({ file, wasm, maxTokens }) {
  model?.dispose();
  model = null;
  runs = null;
  mha = await loadAttention({ wasm });
  // Buffers for the page's longest text, not GPT-2's 1,024 tokens: the heap holds little more than the weights.
  model = await mha.loadModel(file, { maxTokens, onProgress: (read, size) => postMessage({ type: 'progress', read, size }) });
  runs = gpt2Runs(model);
  // Only what the page shows: a file's __metadata__ may hold a million entries.
  postMessage({ type: 'ready', config: { ...model.config } });
}

function run({ key, text, off, limit }) {
  const start = performance.now();
  const whole = gpt2Input(text, Infinity); // its length said too: the page reads the first few
  const ids = whole.slice(0, Math.min(limit, model.maxTokens));
  const { attention, top, reused } = runs.run(ids, off);
  postMessage({
    type: 'result', key, ids, total: whole.length, labels: ids.map(gpt2TokenLabel), byteTokens: ids.map(isByteToken), characters: characterRuns(ids),
    punctuation: ids.map(isPunctuationToken), attention, top, reused, ms: performance.now() - start,
  }, attention.map((weights) => weights.buffer));
}

/** Writes on from the text a step a task, so that a 'stop' comes in between two steps. */
async function generate(request) {
  const { key, text, count, temperature, seed, off } = request;
  const whole = gpt2Input(text, Infinity);
  const total = whole.length; // a prompt of maxTokens leaves no room: the page says so
  if (latest !== request) return postMessage({ type: 'generated', key, count: 0, ms: 0, stopped: true, total }); // stopped before it began
  const prompt = whole.slice(0, model.maxTokens);
  if (prompt.length >= model.maxTokens) return postMessage({ type: 'generated', key, count: 0, ms: 0, stopped: false, total }); // no room: no forward
  const ids = [...prompt];
  const random = temperature > 0 ? mha.randomState(seed) : null;
  const start = performance.now();
  const steps = generation(model, prompt, { count, temperature, random, disabled: off });
  let forwardMs = null;
  let ms = 0;
  for (const { id, ms: stepMs, reused } of steps) {
    forwardMs ??= performance.now() - start - stepMs;
    ids.push(id);
    ms += stepMs;
    const rows = lastRows(model);
    postMessage({ type: 'step', key, ids, prompt: prompt.length, tokens: mergedTokens(ids), id, rows, ms: stepMs, forwardMs, reused }, rows.map((row) => row.buffer));
    await new Promise((resolve) => setTimeout(resolve));
    if (latest !== request) break;
  }
  postMessage({ type: 'generated', key, count: ids.length - prompt.length, ms, stopped: latest !== request, total });
}

// One message at a time, in order: a run waits for the load before it.
let queue = Promise.resolve();
addEventListener('message', ({ data }) => {
  // Read as it comes, not in turn: it ends the generation under way at its next step.
  if (data.type === 'generate') latest = data;
  if (data.type === 'stop') return void (latest = null);
  queue = queue.then(async () => {
    if (data.type === 'load') await load(data).catch((error) => fail('load', error));
    else if (data.type === 'generate' && model) await generate(data).catch((error) => fail('generate', error));
    else if (data.type === 'run' && runs) {
      try {
        run(data);
      } catch (error) {
        fail('run', error);
      }
    }
  });
});
