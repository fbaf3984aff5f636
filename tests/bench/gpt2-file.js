// A file shaped as GPT-2 small (Hugging Face's tensor names, order and F32 layout, its causal masks too) with random
// weights, for the benches that time GPT-2 (gpt2.js, decode.js): the repository cannot ship GPT-2's own.
import { closeSync, openSync, writeSync } from 'node:fs';
import { gpt2Shapes } from '../gpt-reference.js';

export const GPT2_SMALL = { layers: 12, heads: 12, dModel: 768, context: 1024, vocab: 50257 };

/**
 * Writes GPT-2 small's tensors in Hugging Face's order and layout, a tensor at a time: weights uniform with
 * GPT-2's initial spread (standard deviation 0.02), LayerNorm scales 1, biases 0.
 */
export function writeGpt2Small(path) {
  // Hugging Face's file also holds each block's causal mask, h.i.attn.bias (1×1×1024×1024, read but not used).
  const shapes = gpt2Shapes(GPT2_SMALL).flatMap((entry) => {
    const block = entry[0].match(/^h\.(\d+)\.ln_1\.weight$/);
    return block ? [[`h.${block[1]}.attn.bias`, [1, 1, GPT2_SMALL.context, GPT2_SMALL.context]], entry] : [entry];
  });
  const header = { __metadata__: { format: 'pt' } };
  let offset = 0;
  for (const [name, shape] of shapes) {
    const bytes = 4 * shape.reduce((a, b) => a * b, 1);
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const fd = openSync(path, 'w');
  const length = new Uint8Array(8);
  new DataView(length.buffer).setBigUint64(0, BigInt(json.length), true);
  writeSync(fd, length);
  writeSync(fd, Buffer.from(json));
  let state = 2463534242; // xorshift32: fast enough for 124 M numbers
  const spread = 0.02 * Math.sqrt(3);
  for (const [name, shape] of shapes) {
    const values = new Float32Array(shape.reduce((a, b) => a * b, 1));
    if (/ln_.*weight/.test(name)) values.fill(1);
    else if (name.endsWith('attn.bias')) values.forEach((_, i, mask) => (mask[i] = i % GPT2_SMALL.context <= Math.floor(i / GPT2_SMALL.context) ? 1 : 0));
    else if (!name.endsWith('.bias')) {
      for (let i = 0; i < values.length; i++) {
        state ^= state << 13; state ^= state >>> 17; state ^= state << 5;
        values[i] = ((state >>> 0) / 2 ** 32 * 2 - 1) * spread;
      }
    }
    writeSync(fd, new Uint8Array(values.buffer));
  }
  closeSync(fd);
}

/** GPT-2 small's weights as float32 in the heap (the file's bytes, less its causal masks). */
export const gpt2WeightBytes = () => 4 * gpt2Shapes(GPT2_SMALL).reduce((sum, [, shape]) => sum + shape.reduce((a, b) => a * b, 1), 0);
