// The JS face of the C attention core: the package's entry (package.json "exports" "."), typed by attention.d.ts.
//
//   const mha = await loadAttention();
//   const layer = mha.createLayer({ dModel: 4, heads: 2, maxLen: 8 });
//   layer.forward({ q, k, v, causal: false });
//   layer.attention(0);  // Float32Array L×L
//   const model = await mha.loadModel(bytes);  // a GPT-2-style .safetensors file
//   model.forward([464, 3797]).attention(0, 1);
//   const poems = await mha.loadPoemModel();   // the lesson's Tang poetry model: { model, encode, decode, card }
//
// Arrays returned by a layer are views into the wasm heap, not copies: they hold the result of the last
// forward and are valid until the next call on that layer, or until any createLayer (which may grow the
// heap). Copy what you keep (`.slice()`).
//
// Each job has its module: load.js starts the core (fetch-file.js reads it), shared-core.js holds the page's one
// loadAttention, instance.js is what it resolves to, layer.js, gpt-model.js (and poem-model.js), trainer.js and random.js are what it makes, lifetime.js
// is how long they live, checks.js checks every argument and makes the MHAError.
import { modelLoaders } from './instance.js';
import { loadModel } from './gpt-model.js';
import { loadPoemModel } from './poem-model.js';

export { threadsAvailable, fmaAvailable } from './load.js';
export { MHAError } from './checks.js';
/** loadAttention (see load.js): one instance for the page, shared with the widget (shared-core.js). */
export { loadAttention } from './shared-core.js';

Object.assign(modelLoaders, { loadModel, loadPoemModel });
