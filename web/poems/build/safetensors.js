// The one .safetensors writer: the poetry model's shipped file (the F32 file c/lib/gpt.h's gpt_save writes,
// rewritten with F16 tensors, since the shipped model must stay small) and the GPT-2-layout files the tests
// write. Rounding to F16 is IEEE round-to-nearest-even, so the same numbers always give the same bytes.

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
    if (dtype === 'F16') bytes = new Uint8Array(Uint16Array.from(values, floatToHalf).buffer);
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

/**
 * F32 file bytes → F16 file bytes with `metadata` (string values) added to the file's __metadata__ (which
 * keeps n_head). Tensors keep their names, shapes and order.
 */
export function toF16Safetensors(f32File, metadata = {}) {
  const view = new DataView(f32File.buffer, f32File.byteOffset, f32File.byteLength);
  const headerLength = Number(view.getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(f32File.subarray(8, 8 + headerLength)));
  const dataStart = 8 + headerLength;
  const tensors = Object.entries(header).filter(([name]) => name !== '__metadata__').map(([name, { dtype, shape, data_offsets: [begin, end] }]) => {
    if (dtype !== 'F32') throw new Error(`${name} is ${dtype}, expected F32`);
    const values = Float32Array.from({ length: (end - begin) / 4 }, (_, i) => view.getFloat32(dataStart + begin + 4 * i, true));
    return [name, shape, values, 'F16'];
  });
  return writeSafetensors(tensors, { ...header.__metadata__, ...metadata });
}
