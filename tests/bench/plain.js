// Multi-head attention in plain JavaScript, the straightforward way (Float32Array,
// i-k-j loops, the masked half skipped): the benchmark's "plain JS" column.

/** Returns forward(x, wq, wk, wv, wo) → Float32Array L×d, its buffers made once. */
export function createPlainAttention(L, d, h, { causal = true } = {}) {
  const dk = d / h;
  const q = new Float32Array(L * d), k = new Float32Array(L * d), v = new Float32Array(L * d);
  const concat = new Float32Array(L * d), out = new Float32Array(L * d), row = new Float32Array(L);
  const scale = 1 / Math.sqrt(dk);

  function matmul(o, a, b, rows, m, n) {
    o.fill(0);
    for (let i = 0; i < rows; i++) {
      for (let t = 0; t < m; t++) {
        const ait = a[i * m + t];
        const bo = t * n, oo = i * n;
        for (let j = 0; j < n; j++) o[oo + j] += ait * b[bo + j];
      }
    }
  }

  return function forward(x, wq, wk, wv, wo) {
    matmul(q, x, wq, L, d, d);
    matmul(k, x, wk, L, d, d);
    matmul(v, x, wv, L, d, d);
    concat.fill(0);
    for (let head = 0; head < h; head++) {
      const off = head * dk;
      for (let r = 0; r < L; r++) {
        const visible = causal ? r + 1 : L;
        let max = -Infinity;
        for (let c = 0; c < visible; c++) {
          let dot = 0;
          for (let j = 0; j < dk; j++) dot += q[r * d + off + j] * k[c * d + off + j];
          row[c] = dot * scale;
          if (row[c] > max) max = row[c];
        }
        let sum = 0;
        for (let c = 0; c < visible; c++) sum += row[c] = Math.exp(row[c] - max);
        for (let c = 0; c < visible; c++) {
          const w = row[c] / sum;
          for (let j = 0; j < dk; j++) concat[r * d + off + j] += w * v[c * d + off + j];
        }
      }
    }
    matmul(out, concat, wo, L, d, d);
    return out;
  };
}
