// Writes tests/bench/attention.onnx: the bench's layer (projection mode, W^O, causal, scaled) as an ONNX
// graph for ONNX Runtime Web. The weights are graph inputs, so the file is small and one graph serves
// every shape, encoded by onnx-proto.js (so no Python is needed); the file is committed and the bench
// only reads it.
//
// Inputs: x [L, d]; wq, wk, wv [d, h, d_k] (the d × d matrices' bytes, columns grouped by head: the
// graph reads h and d_k from these shapes); wo [d, d]. Output: out [L, d].
//
//   node tests/bench/attention-onnx.js
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FLOAT, int, int64Tensor, message, node, text, floatValue } from './onnx-proto.js';

export const onnxFile = path.join(path.dirname(fileURLToPath(import.meta.url)), 'attention.onnx');

// ---- the layer ----------------------------------------------------------------------------
const nodes = [
  // [-1, h, d_k] from wq's shape: how Q, K and V split into heads.
  node('Shape', ['wq'], ['heads_dk'], { start: ['int', 1] }),
  node('Concat', ['minus_one', 'heads_dk'], ['split_shape'], { axis: ['int', 0] }),
  // 1/√d_k scales Q (L × d numbers) rather than the scores (h × L × L).
  node('Shape', ['wq'], ['dk'], { start: ['int', 2] }),
  node('Cast', ['dk'], ['dk_float'], { to: ['int', FLOAT] }),
  node('Sqrt', ['dk_float'], ['sqrt_dk']),
  // The causal mask: −∞ above the diagonal, 0 on and below it.
  node('Shape', ['x'], ['tokens'], { end: ['int', 1] }),
  node('Concat', ['tokens', 'tokens'], ['square'], { axis: ['int', 0] }),
  node('ConstantOfShape', ['square'], ['all_minus_inf'], { value: ['tensor', -Infinity] }),
  node('Trilu', ['all_minus_inf', 'one'], ['mask'], { upper: ['int', 1] }),
  ...['q', 'k', 'v'].flatMap((name) => [
    node('Flatten', [`w${name}`], [`w${name}_2d`], { axis: ['int', 1] }),
    node('MatMul', ['x', `w${name}_2d`], [`${name}_all`]),
    node('Reshape', [`${name}_all`, 'split_shape'], [`${name}_split`]),
  ]),
  node('Div', ['q_split', 'sqrt_dk'], ['q_scaled']),
  node('Transpose', ['q_scaled'], ['q_heads'], { perm: ['ints', [1, 0, 2]] }), // [h, L, d_k]
  node('Transpose', ['k_split'], ['k_heads_t'], { perm: ['ints', [1, 2, 0]] }), // [h, d_k, L]
  node('Transpose', ['v_split'], ['v_heads'], { perm: ['ints', [1, 0, 2]] }), // [h, L, d_k]
  node('MatMul', ['q_heads', 'k_heads_t'], ['scores']),
  node('Add', ['scores', 'mask'], ['masked']),
  node('Softmax', ['masked'], ['weights'], { axis: ['int', -1] }),
  node('MatMul', ['weights', 'v_heads'], ['heads']),
  node('Transpose', ['heads'], ['heads_by_token'], { perm: ['ints', [1, 0, 2]] }), // [L, h, d_k]
  node('Reshape', ['heads_by_token', 'rows_shape'], ['concat']), // [L, d]
  node('MatMul', ['concat', 'wo'], ['out']),
];

const graph = message(7,
  ...nodes,
  text(2, 'attention'),
  int64Tensor(5, 'minus_one', [1], [-1]),
  int64Tensor(5, 'one', [], [1]),
  int64Tensor(5, 'rows_shape', [2], [0, -1]),
  floatValue(11, 'x', ['L', 'd']),
  ...['wq', 'wk', 'wv'].map((name) => floatValue(11, name, ['d', 'h', 'd_k'])),
  floatValue(11, 'wo', ['d', 'd']),
  floatValue(12, 'out', ['L', 'd']));

const model = Buffer.concat([
  int(1, 8), // ir_version
  text(2, 'multihead-attention-lesson tests/bench'),
  graph,
  message(8, text(1, ''), int(2, 17)), // opset 17
]);

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(onnxFile, model);
  console.log(`wrote ${path.relative(process.cwd(), onnxFile)} (${model.length} bytes)`);
}
