// Compiled (never run) by tests/types.test.js: the shipped declarations must describe the real API.
import { fmaAvailable, loadAttention, MHAError } from 'multihead-attention-lesson';
import type { Model, ModelConfig, ParamBill, PoemModel } from 'multihead-attention-lesson';
import { MultiHeadAttentionElement, defineMultiHeadAttention } from 'multihead-attention-lesson/widget';

async function lesson(): Promise<number> {
  const mha = await loadAttention();
  const layer = mha.createLayer({ dModel: 4, heads: 2, maxLen: 8 });
  layer.forward({ q: [[1, 1, 0, 0]], k: [[1, 0, 1, 0]], v: [[1, 0, 1, 0]], causal: false, enabled: [true, false] });
  layer.forward({ x: new Float32Array(4), wq: [], wk: [], wv: [], wo: new Float64Array(16), plain: true });
  const weights: Float32Array = layer.attention(0);
  const { naive, split }: { naive: number; split: number } = mha.paramCount({ dModel: 768, heads: 12 });
  // Grouped-query attention: 4 K/V heads shared by 12 query heads; its bill and a token's cache in float16.
  const gqa = mha.createLayer({ dModel: 768, heads: 12, maxLen: 8, kvHeads: 4 });
  const group: number = gqa.kvGroup(11) + gqa.kvHeads + gqa.kvWidth;
  const { wk, kvCacheBytes }: ParamBill = mha.paramCount({ dModel: 768, heads: 12, kvHeads: 4, bytesPerValue: 2 });
  try {
    mha.createLayer({ dModel: 768, heads: 12, maxLen: 8, kvHeads: 5 });
  } catch (error) {
    if (error instanceof MHAError && error.code === 'KV_HEADS_NOT_DIVISOR') return group + wk + kvCacheBytes;
  }
  const normals: Float64Array = mha.randomState(10).randn(3, 8);
  const trainer = mha.createTrainer({ heads: 2 });
  trainer.step(10);
  const headOne: Float32Array = trainer.attention(0);
  // Multi-query training: one K/V head for both query heads.
  const mqa = mha.createTrainer({ heads: 2, kvHeads: 1 });
  const shared: number = mqa.kvGroup(1) + mqa.kvHeads + mqa.kvWidth + mqa.weights().wk.length;
  try {
    mha.createLayer({ dModel: 768, heads: 7, maxLen: 4 });
  } catch (error) {
    if (error instanceof MHAError && error.code === 'HEADS_NOT_DIVISOR') return shared;
  }
  layer.dispose();
  // A worker is handed the page's compiled core instead of fetching the wasm again.
  const inWorker = await loadAttention({ wasm: mha.wasmModule });
  const fromUrl = loadAttention({ wasm: new URL('https://example.org/mha-core.wasm') });
  if (inWorker !== (await fromUrl)) return -1;
  // The fused multiply-add builds, or not.
  const fused: boolean = (await loadAttention({ threads: 2, fma: false })).fma === fmaAvailable();
  // A GPT-2-style model from a .safetensors file's bytes.
  const model: Model = await mha.loadModel(new Uint8Array(8), { heads: 2 });
  const { layers, vocabSize }: ModelConfig = model.config;
  model.forward(Int32Array.of(1, 2), { disabled: [[0, 1]] });
  const firstHead: Float32Array = model.attention(layers - 1, 0);
  const scores: Float32Array = model.logits();
  const vocabulary: string | undefined = model.metadata.vocab;
  model.dispose();
  // The lesson's poetry model, its tokenizer and its card.
  const poems: PoemModel = await mha.loadPoemModel({ model: new URL('https://example.org/poems.safetensors') });
  const ids: Int32Array = poems.encode('白日依山尽');
  const text: string = poems.decode(poems.model.forward(ids).length ? ids : []);
  const { score, chance } = poems.card.headRoles.best.previous;
  if (text !== '白日依山尽' || poems.card.heldOutLoss > poems.card.baselines.bigram) return score - chance;
  if (vocabulary === undefined && scores.length !== model.length * vocabSize) return firstHead[0];
  return weights[0] + naive + split + normals[0] + headOne[0] + mha.memoryBytes();
}

defineMultiHeadAttention('attention-heads');
const element: MultiHeadAttentionElement | null = document.querySelector('multi-head-attention');
export { lesson, element };
