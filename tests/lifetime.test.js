// How long what the API hands out lives (web/src/lifetime.js), alike for a Layer, a Model and a Trainer:
// dispose() frees it once (a second call does nothing), every later call throws DISPOSED with a message that
// says how to get a new one, and one dropped without dispose() is freed when the garbage collector takes it.
import test from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { loadAttention } from '../web/src/attention.js';
import { gpt2File, randomWeights } from './gpt-reference.js';
import { seededRandom } from './seeded.js';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc');

const mha = await loadAttention();
const modelConfig = { layers: 2, heads: 4, dModel: 128, context: 256, vocab: 2000 };
const modelBytes = gpt2File(modelConfig, randomWeights(modelConfig, seededRandom(5)));
const token = new Float32Array(256).fill(0.5);

// Each kind: how to make one that takes megabytes of the heap, a call on it, and what it says once disposed.
const KINDS = {
  layer: {
    make: async () => mha.createLayer({ dModel: 256, heads: 8, maxLen: 512 }),
    use: (layer) => layer.forward({ q: token, k: token, v: token }),
    disposed: 'this layer was disposed; create a new one with createLayer',
  },
  model: {
    make: () => mha.loadModel(modelBytes),
    use: (model) => model.forward([1, 2, 3]),
    disposed: 'this model was disposed; load it again with loadModel',
  },
  trainer: {
    make: async () => mha.createTrainer({ heads: 4, dModel: 64, seqLen: 64, vocab: 64, batch: 64, evalCount: 256 }),
    use: (trainer) => trainer.step(),
    disposed: 'this trainer was disposed; create a new one with createTrainer',
  },
};

/** Lets the registry's callbacks run: they come as a task after the collection that found the object gone. */
async function collect() {
  for (let i = 0; i < 3; i++) {
    collectGarbage();
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

for (const [kind, { make, use, disposed }] of Object.entries(KINDS)) {
  test(`a ${kind}: dispose() twice does no harm, then every call throws DISPOSED saying what to do`, async () => {
    const object = await make();
    use(object);
    object.dispose();
    object.dispose();
    assert.throws(() => use(object), { name: 'MHAError', code: 'DISPOSED', message: disposed });
  });

  test(`a ${kind} dropped without dispose() is freed when it is collected: the heap stays flat`, async () => {
    const makeAndDrop = async () => {
      use(await make());
      await collect();
    };
    await makeAndDrop();
    const warm = mha.memoryBytes();
    for (let i = 0; i < 8; i++) await makeAndDrop();
    assert.equal(mha.memoryBytes(), warm);
  });
}
