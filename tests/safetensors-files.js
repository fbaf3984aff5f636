// The .safetensors files the tests load: Hugging Face GPT-2's layouts (F32, F16, the hub's order) and hostile ones
// (any dtype, any order), which the project's writer (c/lib/safetensors.c, through gpt_save: the shipped model's) is
// not for. Rounding to F16 is IEEE round-to-nearest-even, as that writer rounds, so the same numbers always give
// the same bytes.

const single = new Float32Array(1);
const singleBits = new Uint32Array(single.buffer);

/** value / 2^shift rounded to the nearest whole number, ties to even. */
function roundShift(value, shift) {
  const kept = Math.floor(value / 2 ** shift), rest = value - kept * 2 ** shift, half = 2 ** (shift - 1);
  return rest > half || (rest === half && kept % 2 === 1) ? kept + 1 : kept;
}

/** The IEEE half-precision bits nearest to x (ties to even); overflow gives ±infinity. */
export function floatToHalf(x) {
  single[0] = x;
  const bits = singleBits[0];
  const sign = (bits >>> 16) & 0x8000, exponent = (bits >>> 23) & 0xff, mantissa = bits & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0);
  const e = exponent - 112; // the half's biased exponent
  if (e >= 31) return sign | 0x7c00;
  if (e <= 0) return e < -10 ? sign : sign | roundShift(mantissa | 0x800000, 14 - e);
  return sign | roundShift((e << 23) | mantissa, 13); // a carry into the exponent is the right rounding
}

/** The number half-precision bits h stand for. */
export function halfToFloat(h) {
  const sign = h & 0x8000 ? -1 : 1, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  if (exponent === 31) return mantissa ? NaN : sign * Infinity;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

/** Each value's half-precision bits. A loop: Uint16Array.from(values, floatToHalf) is 20 times slower in V8. */
function halves(values) {
  const bits = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) bits[i] = floatToHalf(values[i]);
  return bits;
}

/**
 * The bytes of a .safetensors file: tensors is [[name, shape, values, dtype?]] (F32 by default; F16 rounds; any
 * other dtype gets zero bytes of its size), metadata an object of strings or null. The header is padded with
 * spaces so the data starts 8-byte aligned, as Hugging Face's writer does.
 */
export function writeSafetensors(tensors, metadata) {
  const header = {};
  if (metadata) header.__metadata__ = metadata;
  let offset = 0;
  const parts = [];
  for (const [name, shape, values, dtype = 'F32'] of tensors) {
    let bytes;
    if (dtype === 'F16') bytes = new Uint8Array(halves(values).buffer);
    else if (dtype === 'F32') bytes = new Uint8Array(Float32Array.from(values).buffer);
    else bytes = new Uint8Array(values.length * ({ BF16: 2, F64: 8, I32: 4 }[dtype] ?? 4));
    header[name] = { dtype, shape, data_offsets: [offset, offset + bytes.length] };
    parts.push(bytes);
    offset += bytes.length;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (new TextEncoder().encode(json).length % 8)) % 8);
  const text = new TextEncoder().encode(json);
  const file = new Uint8Array(8 + text.length + offset);
  new DataView(file.buffer).setBigUint64(0, BigInt(text.length), true);
  file.set(text, 8);
  let at = 8 + text.length;
  for (const bytes of parts) {
    file.set(bytes, at);
    at += bytes.length;
  }
  return file;
}
