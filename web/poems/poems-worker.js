// The poetry model's held-out measure off the main thread: a module Web Worker with its own core (handed the
// page's compiled module, as the training worker is) and its own copy of the model, which scores the held-out
// poems with a set of heads switched off. Typing stays within a frame while it measures for a few seconds.
// Bundled as web/dist/poems-worker.js; the page's side is held-out.js.
//
// Messages in:  { type: 'load', file (the model's bytes as a Blob, or null: where loadPoemModel looks), wasm (a WebAssembly.Module) }
//               { type: 'measure', key, off: [[layer, head]] }: replaces the measure in progress
// Messages out: { type: 'progress', key, done, total }  { type: 'result', key, result (HeldOutPass's) }
//               { type: 'error', code, message }
import { loadAttention } from '../src/attention.js';
import { openPoems } from './runs.js';
import { HeldOutPass } from './evaluate.js';
import { SLICE_MS } from '../ui/slices.js';

let loaded;
const poems = new Promise((resolve) => (loaded = resolve));
let latest = null; // the measure asked for last

const fail = (error) => postMessage({ type: 'error', code: error?.code ?? 'UNEXPECTED', message: error?.message ?? String(error) });

async function measure(request) {
  const pass = new HeldOutPass(await poems, request.off);
  while (request === latest) {
    if (pass.advance(SLICE_MS)) return postMessage({ type: 'result', key: request.key, result: pass.result() });
    postMessage({ type: 'progress', key: request.key, done: pass.done, total: pass.windows.length });
    await new Promise((resolve) => setTimeout(resolve));
  }
}

addEventListener('message', ({ data }) => {
  if (data.type === 'load') {
    const opening = loadAttention({ wasm: data.wasm }).then((mha) => openPoems(mha, data.file));
    opening.catch(fail);
    loaded(opening);
  } else if (data.type === 'measure') {
    latest = data;
    measure(data).catch(fail);
  }
});
