// The coda's poetry model made grouped-query without retraining, as Ainslie et al. (2023) begin: in every layer
// each group's K and V weights (and biases) become the mean of its query heads', and each query head reads its
// group's. Repeating the mean for every head of the group is the same model as a GQA layer with kvHeads K/V heads,
// so the model's own forward measures it: only the file's c_attn tensors change (written as F32, so the means are
// not rounded again to F16). Then the card's held-out measure (poems/evaluate.js) gives its loss and its heads'
// roles, a slice at a time. poem-groups-worker.js runs it off the page; the page itself where no worker starts.
import { HeldOutPass } from '../poems/evaluate.js';
import { labelRole } from '../heads/roles.js';
import { SLICE_MS } from '../ui/slices.js';

/** The K/V head counts measured for a model of `heads` heads: every divisor, from the model's own down to one. */
export const groupSizes = (heads) => Array.from({ length: heads }, (_, i) => heads - i).filter((kv) => heads % kv === 0);

/** An IEEE half-precision number's value. */
function fromF16(bits) {
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  const sign = bits & 0x8000 ? -1 : 1;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 31) return fraction ? NaN : sign * Infinity;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

/** A tensor of the file as float32 numbers, F16 or F32. */
function readTensor(bytes, start, { dtype, data_offsets: [from, to] }) {
  const view = new DataView(bytes.buffer, bytes.byteOffset + start + from, to - from);
  if (dtype === 'F32') return Float32Array.from({ length: (to - from) / 4 }, (_, i) => view.getFloat32(4 * i, true));
  return Float32Array.from({ length: (to - from) / 2 }, (_, i) => fromF16(view.getUint16(2 * i, true)));
}

/**
 * c_attn's columns (Q, then K, then V, each heads·dK wide; `width` 3·d_model) with each K and V head's columns
 * replaced by the mean of its group's: the group of head i is ⌊i·kvHeads/heads⌋, as the core's kvGroup.
 */
export function poolKV(values, { width, heads, kvHeads }) {
  const d = width / 3;
  const dK = d / heads;
  const size = heads / kvHeads;
  const out = Float32Array.from(values);
  for (let row = 0; row < values.length / width; row++) {
    for (const part of [d, 2 * d]) {
      for (let group = 0; group < kvHeads; group++) {
        for (let c = 0; c < dK; c++) {
          let sum = 0;
          for (let m = 0; m < size; m++) sum += values[row * width + part + (group * size + m) * dK + c];
          for (let m = 0; m < size; m++) out[row * width + part + (group * size + m) * dK + c] = sum / size;
        }
      }
    }
  }
  return out;
}

/** The .safetensors file `bytes` with every layer's K/V pooled into kvHeads groups (poolKV); `heads` the model's. */
export function groupedModelBytes(bytes, { heads, kvHeads }) {
  const headerLength = Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength)));
  const start = 8 + headerLength;
  const names = Object.keys(header).filter((name) => name !== '__metadata__')
    .sort((a, b) => header[a].data_offsets[0] - header[b].data_offsets[0]);
  const parts = names.map((name) => {
    const tensor = header[name];
    if (!/\.attn\.c_attn\.(weight|bias)$/.test(name)) return [name, tensor, bytes.subarray(start + tensor.data_offsets[0], start + tensor.data_offsets[1])];
    const pooled = poolKV(readTensor(bytes, start, tensor), { width: tensor.shape.at(-1), heads, kvHeads });
    return [name, { ...tensor, dtype: 'F32' }, new Uint8Array(pooled.buffer)];
  });
  const out = { __metadata__: header.__metadata__ };
  let at = 0;
  for (const [name, tensor, data] of parts) {
    out[name] = { dtype: tensor.dtype, shape: tensor.shape, data_offsets: [at, at + data.length] };
    at += data.length;
  }
  let json = JSON.stringify(out);
  json += ' '.repeat((8 - ((8 + new TextEncoder().encode(json).length) % 8)) % 8); // the data starts 8-aligned
  const jsonBytes = new TextEncoder().encode(json);
  const file = new Uint8Array(8 + jsonBytes.length + at);
  new DataView(file.buffer).setBigUint64(0, BigInt(jsonBytes.length), true);
  file.set(jsonBytes, 8);
  let offset = 8 + jsonBytes.length;
  for (const [, , data] of parts) {
    file.set(data, offset);
    offset += data.length;
  }
  return file;
}

/**
 * One measure of the grouped model: `poems` is poems/runs.js's (its model, card, encode, kinds), `bytes` its
 * file. Loads the grouped model, then `advance(ms)` works for about that long and says whether it has finished;
 * `result()` is { kvHeads, loss, targets, roles: each head's role on the held-out poems (labelRole), or null };
 * `dispose()` frees the model (once finished it frees it itself).
 */
export async function groupedMeasure(mha, poems, bytes, kvHeads) {
  const { heads } = poems.model.config;
  const model = kvHeads === heads ? poems.model : await mha.loadModel(groupedModelBytes(bytes, { heads, kvHeads }));
  const pass = new HeldOutPass({ ...poems, model }, []);
  const dispose = () => model !== poems.model && model.dispose(); // a second call does nothing
  return {
    advance(ms) {
      const done = pass.advance(ms);
      if (done) dispose();
      return done;
    },
    result() {
      const { loss, targets, roles } = pass.result();
      return { kvHeads, loss, targets, roles: roles.heads.map((scores) => labelRole(scores, roles.chance)) };
    },
    dispose,
  };
}

/**
 * Every h_kv of the model measured in turn (groupSizes): onMeasuring(kvHeads) as each begins, `pause()` awaited
 * between slices of SLICE_MS. Resolves to groupedMeasure's results, the model's own first.
 */
export async function measureGroups(mha, poems, bytes, { onMeasuring, pause }) {
  const results = [];
  for (const kvHeads of groupSizes(poems.model.config.heads)) {
    onMeasuring(kvHeads);
    const measure = await groupedMeasure(mha, poems, bytes, kvHeads);
    while (!measure.advance(SLICE_MS)) await pause();
    results.push(measure.result());
  }
  return results;
}
