// The coda's poetry model made grouped-query, measured off the main thread (poem-groups.js's measureGroups): a
// module Web Worker with its own core (handed the page's compiled module) and its own copy of the model, so
// rewriting and loading each grouped model, and its held-out measure, never hold up the page.
// Bundled as web/dist/poem-groups-worker.js; the page's side is section.js.
//
// Messages in:  { type: 'measure', file (the model's bytes as a Blob), wasm (a WebAssembly.Module) }
// Messages out: { type: 'measuring', kvHeads }  { type: 'result', heads, results }  { type: 'error', code, message }
import { loadAttention } from '../src/attention.js';
import { openPoems } from '../poems/runs.js';
import { measureGroups } from './poem-groups.js';

addEventListener('message', async ({ data }) => {
  try {
    const mha = await loadAttention({ wasm: data.wasm });
    const poems = await openPoems(mha, data.file);
    const bytes = new Uint8Array(await data.file.arrayBuffer());
    const results = await measureGroups(mha, poems, bytes, {
      onMeasuring: (kvHeads) => postMessage({ type: 'measuring', kvHeads }),
      pause: () => new Promise((resolve) => setTimeout(resolve)),
    });
    postMessage({ type: 'result', heads: poems.model.config.heads, results });
    poems.model.dispose();
  } catch (error) {
    postMessage({ type: 'error', code: error?.code ?? 'UNEXPECTED', message: error?.message ?? String(error) });
  }
});
