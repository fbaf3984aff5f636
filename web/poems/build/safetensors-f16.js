// The F32 .safetensors file c/gpt.h's gpt_save writes, rewritten with F16 tensors (half the bytes: the
// shipped model must stay small) and more __metadata__. Rounding is IEEE round-to-nearest-even, so the
// same F32 file always gives the same F16 bytes.

const word = new Float32Array(1);
const bits = new Uint32Array(word.buffer);

/** The IEEE half-precision bits nearest to x (ties to even); overflow gives ±infinity. */
export function toHalfBits(x) {
  word[0] = x;
  const b = bits[0];
  const sign = (b >>> 16) & 0x8000;
  const exponent = (b >>> 23) & 0xff;
  let mantissa = b & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0);
  const e = exponent - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  let half;
  let dropped;
  let shift;
  if (e <= 0) { // a subnormal half: the implicit 1 becomes explicit and shifts right with the rest
    if (e < -10) return sign;
    mantissa |= 0x800000;
    shift = 14 - e;
    half = mantissa >>> shift;
  } else {
    shift = 13;
    half = (e << 10) | (mantissa >>> 13);
  }
  dropped = mantissa & ((1 << shift) - 1);
  const middle = 1 << (shift - 1);
  if (dropped > middle || (dropped === middle && half & 1)) half++; // a carry into the exponent is right
  return sign | half;
}

/**
 * F32 file bytes → F16 file bytes with `metadata` (string values) added to the file's __metadata__ (which
 * keeps n_head). Tensors keep their names, shapes and order.
 */
export function toF16Safetensors(f32File, metadata = {}) {
  const view = new DataView(f32File.buffer, f32File.byteOffset, f32File.byteLength);
  const headerLength = Number(view.getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(f32File.subarray(8, 8 + headerLength)));
  const dataStart = 8 + headerLength;
  const out = { __metadata__: { ...header.__metadata__, ...metadata } };
  const tensors = Object.entries(header).filter(([name]) => name !== '__metadata__');
  let offset = 0;
  for (const [name, { dtype, shape, data_offsets: [begin, end] }] of tensors) {
    if (dtype !== 'F32') throw new Error(`${name} is ${dtype}, expected F32`);
    out[name] = { dtype: 'F16', shape, data_offsets: [offset, offset + (end - begin) / 2] };
    offset += (end - begin) / 2;
  }
  let json = JSON.stringify(out);
  json += ' '.repeat((8 - (new TextEncoder().encode(json).length % 8)) % 8); // the data starts 8-byte aligned
  const jsonBytes = new TextEncoder().encode(json);
  const file = new Uint8Array(8 + jsonBytes.length + offset);
  const fileView = new DataView(file.buffer);
  fileView.setBigUint64(0, BigInt(jsonBytes.length), true);
  file.set(jsonBytes, 8);
  for (const [name, { data_offsets: [begin, end] }] of tensors) {
    const target = 8 + jsonBytes.length + out[name].data_offsets[0];
    for (let i = 0; i < (end - begin) / 4; i++) {
      fileView.setUint16(target + 2 * i, toHalfBits(view.getFloat32(dataStart + begin + 4 * i, true)), true);
    }
  }
  return file;
}
