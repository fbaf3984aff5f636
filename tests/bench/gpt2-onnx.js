// A GPT-2-style model as an ONNX graph, for ONNX Runtime Web to run beside the core in tests/bench/gpt2.js: the
// same weights (initializers, encoded by onnx-proto.js) and the same forward as c/lib/gpt_forward.c: pre-LayerNorm blocks,
// causal attention, tanh GELU, the read-out tied to the token embedding. Standard opset-17 operators only.
//
// Inputs: ids, positions (int64 [L]). Output: logits [L, vocab].
import { FLOAT, INT64, floatTensor, int, int64Tensor, message, node, text, typedValue } from './onnx-proto.js';
import { gpt2Shapes } from '../gpt-reference.js';

/** The ModelProto's bytes for `config` ({ layers, heads, dModel, context, vocab }) and `weights` (name → Float32Array). */
export function gpt2Onnx(config, weights) {
  const { layers, heads, dModel: d } = config;
  const dk = d / heads;
  const scalar = (name, value) => floatTensor(5, name, [], Float32Array.of(value));
  const nodes = [
    node('Gather', ['wte.weight', 'ids'], ['token_embedding']),
    node('Gather', ['wpe.weight', 'positions'], ['position_embedding']),
    node('Add', ['token_embedding', 'position_embedding'], ['x0']),
    // The causal mask: −∞ above the diagonal, 0 on and below it.
    node('Shape', ['ids'], ['tokens']),
    node('Concat', ['tokens', 'tokens'], ['square'], { axis: ['int', 0] }),
    node('ConstantOfShape', ['square'], ['all_minus_inf'], { value: ['tensor', -Infinity] }),
    node('Trilu', ['all_minus_inf', 'one'], ['mask'], { upper: ['int', 1] }),
  ];
  const layerNorm = (input, weight, output) =>
    node('LayerNormalization', [input, `${weight}.weight`, `${weight}.bias`], [output], { axis: ['int', -1], epsilon: ['float', 1e-5] });
  const linear = (input, weight, output) => [node('MatMul', [input, `${weight}.weight`], [`${output}_w`]), node('Add', [`${output}_w`, `${weight}.bias`], [output])];
  for (let l = 0; l < layers; l++) {
    const p = (name) => `h.${l}.${name}`;
    const n = (name) => `b${l}_${name}`;
    const x = l ? `b${l - 1}_out` : 'x0';
    nodes.push(
      layerNorm(x, p('ln_1'), n('ln1')),
      ...linear(n('ln1'), p('attn.c_attn'), n('qkv')),
      node('Split', [n('qkv'), 'qkv_split'], [n('q'), n('k'), n('v')], { axis: ['int', 1] }),
      ...['q', 'k', 'v'].map((part) => node('Reshape', [n(part), 'heads_shape'], [n(`${part}_split`)])), // [L, h, d_k]
      node('Div', [n('q_split'), 'sqrt_dk'], [n('q_scaled')]),
      node('Transpose', [n('q_scaled')], [n('q_heads')], { perm: ['ints', [1, 0, 2]] }), // [h, L, d_k]
      node('Transpose', [n('k_split')], [n('k_heads_t')], { perm: ['ints', [1, 2, 0]] }), // [h, d_k, L]
      node('Transpose', [n('v_split')], [n('v_heads')], { perm: ['ints', [1, 0, 2]] }), // [h, L, d_k]
      node('MatMul', [n('q_heads'), n('k_heads_t')], [n('scores')]),
      node('Add', [n('scores'), 'mask'], [n('masked')]),
      node('Softmax', [n('masked')], [n('weights')], { axis: ['int', -1] }),
      node('MatMul', [n('weights'), n('v_heads')], [n('heads')]),
      node('Transpose', [n('heads')], [n('heads_by_token')], { perm: ['ints', [1, 0, 2]] }), // [L, h, d_k]
      node('Reshape', [n('heads_by_token'), 'rows_shape'], [n('concat')]), // [L, d]
      ...linear(n('concat'), p('attn.c_proj'), n('projected')),
      node('Add', [x, n('projected')], [n('mid')]),
      layerNorm(n('mid'), p('ln_2'), n('ln2')),
      ...linear(n('ln2'), p('mlp.c_fc'), n('fc')),
      // GELU's tanh form, as GPT-2's: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
      node('Mul', [n('fc'), n('fc')], [n('fc2')]),
      node('Mul', [n('fc2'), n('fc')], [n('fc3')]),
      node('Mul', [n('fc3'), 'gelu_cubic'], [n('fc3c')]),
      node('Add', [n('fc'), n('fc3c')], [n('inner')]),
      node('Mul', [n('inner'), 'gelu_scale'], [n('inner_scaled')]),
      node('Tanh', [n('inner_scaled')], [n('tanh')]),
      node('Add', [n('tanh'), 'one_float'], [n('tanh1')]),
      node('Mul', [n('fc'), n('tanh1')], [n('gelu_twice')]),
      node('Mul', [n('gelu_twice'), 'half'], [n('act')]),
      ...linear(n('act'), p('mlp.c_proj'), n('mlp')),
      node('Add', [n('mid'), n('mlp')], [n('out')]),
    );
  }
  nodes.push(
    layerNorm(`b${layers - 1}_out`, 'ln_f', 'final'),
    node('Gemm', ['final', 'wte.weight'], ['logits'], { transB: ['int', 1] }), // · wteᵀ, the tied read-out
  );
  const initializers = gpt2Shapes(config).map(([name, shape]) => floatTensor(5, name, shape, Float32Array.from(weights.get(name))));
  const graph = message(7,
    ...nodes,
    text(2, 'gpt2'),
    ...initializers,
    int64Tensor(5, 'one', [], [1]),
    int64Tensor(5, 'qkv_split', [3], [d, d, d]),
    int64Tensor(5, 'heads_shape', [3], [0, heads, dk]),
    int64Tensor(5, 'rows_shape', [2], [0, -1]),
    scalar('sqrt_dk', Math.sqrt(dk)),
    scalar('gelu_cubic', 0.044715),
    scalar('gelu_scale', Math.sqrt(2 / Math.PI)),
    scalar('one_float', 1),
    scalar('half', 0.5),
    typedValue(11, 'ids', INT64, ['L']),
    typedValue(11, 'positions', INT64, ['L']),
    typedValue(12, 'logits', FLOAT, ['L', 'vocab']));
  return Buffer.concat([
    int(1, 8), // ir_version
    text(2, 'multihead-attention-lesson tests/bench'),
    graph,
    message(8, text(1, ''), int(2, 17)), // opset 17
  ]);
}
