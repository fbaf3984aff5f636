// The few messages of onnx.proto the benchmarks' graphs use, with a hand-written protobuf encoder, so that
// no Python is needed to write them: tests/bench/attention-onnx.js (one layer) and tests/bench/gpt2-onnx.js
// (a whole GPT-2).

// ---- protobuf wire format ----------------------------------------------------------------
const VARINT = 0, BYTES = 2, FIXED32 = 5;

function varint(value) {
  let n = BigInt.asUintN(64, BigInt(value)); // negative int64s take ten bytes, as protobuf encodes them
  const bytes = [];
  do {
    const low = Number(n & 0x7fn);
    n >>= 7n;
    bytes.push(n ? low | 0x80 : low);
  } while (n);
  return Buffer.from(bytes);
}

const key = (field, wire) => varint((field << 3) | wire);
export const int = (field, value) => Buffer.concat([key(field, VARINT), varint(value)]);
export const bytes = (field, payload) => Buffer.concat([key(field, BYTES), varint(payload.length), payload]);
export const text = (field, value) => bytes(field, Buffer.from(value, 'utf8'));
export const message = (field, ...parts) => bytes(field, Buffer.concat(parts));
const float = (field, value) => {
  const payload = Buffer.alloc(4);
  payload.writeFloatLE(value);
  return Buffer.concat([key(field, FIXED32), payload]);
};

// ---- onnx.proto ---------------------------------------------------------------------------
export const FLOAT = 1, INT64 = 7; // TensorProto.DataType
const ATTRIBUTE = { float: 1, int: 2, tensor: 4, ints: 7 }; // AttributeProto.AttributeType

/** TensorProto: int64 values of the given dims, or one float. */
export const int64Tensor = (field, name, dims, values) =>
  message(field, ...dims.map((d) => int(1, d)), int(2, INT64), text(8, name), bytes(7, Buffer.concat(values.map(varint))));
export const floatScalar = (field, value) => message(field, int(1, 1), int(2, FLOAT), float(4, value));

function attribute(name, type, value) {
  const payload = {
    float: () => float(2, value),
    int: () => int(3, value),
    tensor: () => floatScalar(5, value),
    ints: () => Buffer.concat(value.map((v) => int(8, v))),
  }[type]();
  return message(5, text(1, name), payload, int(20, ATTRIBUTE[type]));
}

/** NodeProto: op(inputs) → outputs, attributes as { name: [type, value] }. */
export function node(op, inputs, outputs, attributes = {}) {
  return message(1,
    ...inputs.map((name) => text(1, name)),
    ...outputs.map((name) => text(2, name)),
    text(3, outputs[0]),
    text(4, op),
    ...Object.entries(attributes).map(([name, [type, value]]) => attribute(name, type, value)));
}

/** ValueInfoProto of a float tensor whose dims are named (dim_param). */
export const floatValue = (field, name, dims) => typedValue(field, name, FLOAT, dims);

/** TensorProto: float32 values of the given dims, as raw little-endian bytes (an initializer). */
export const floatTensor = (field, name, dims, values) =>
  message(field, ...dims.map((d) => int(1, d)), int(2, FLOAT), text(8, name),
    bytes(9, Buffer.from(values.buffer, values.byteOffset, values.byteLength)));

/** ValueInfoProto of a tensor of `type` (FLOAT, INT64) whose dims are named (dim_param). */
export const typedValue = (field, name, type, dims) =>
  message(field, text(1, name), message(2, message(1, int(1, type), message(2, ...dims.map((d) => message(1, text(2, d)))))));
