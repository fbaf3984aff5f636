// An independent float64 reference of multi-head attention, written straight from the
// lesson's numpy code (slice the head's columns, Q_i·K_iᵀ/√d_k, mask with -1e9, softmax,
// A_i·V_i, concatenate, ·W^O). It shares no code with the C core; tests compare the two.
// With kvHeads below h, K and V have kvHeads heads of d_k columns and head i reads K/V group
// ⌊i·kvHeads/h⌋ (grouped-query attention; kvHeads = 1 is multi-query).

/** a (n×m) · b (m×p) for row-major Float64Arrays. */
export function matmul(a, b, n, m, p) {
  const out = new Float64Array(n * p);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < p; j++) {
      let sum = 0;
      for (let t = 0; t < m; t++) sum += a[i * m + t] * b[t * p + j];
      out[i * p + j] = sum;
    }
  }
  return out;
}

function columns(a, rows, width, from, count) {
  const out = new Float64Array(rows * count);
  for (let r = 0; r < rows; r++) for (let c = 0; c < count; c++) out[r * count + c] = a[r * width + from + c];
  return out;
}

/**
 * { q, k, v } (q L×d, k and v L×kvHeads·d_k, flat) or { x, wq, wk, wv } (wk and wv d×kvHeads·d_k);
 * returns per-head scores (scaled, before the mask), attention, head outputs and the keys each head
 * read, plus concat and output, all Float64Array.
 */
export function referenceAttention({ x, wq, wk, wv, q, k, v, wo, d, h, kvHeads = h, causal = true, scale = true, enabled }) {
  const L = (x ?? q).length / d;
  const dk = d / h, kvd = kvHeads * dk;
  if (x) {
    q = matmul(x, wq, L, d, d);
    k = matmul(x, wk, L, d, kvd);
    v = matmul(x, wv, L, d, kvd);
  }
  const factor = scale ? 1 / Math.sqrt(dk) : 1;
  const scores = [], attention = [], heads = [], keys = [];
  const concat = new Float64Array(L * d);
  for (let i = 0; i < h; i++) {
    const group = Math.floor((i * kvHeads) / h);
    const qi = columns(q, L, d, i * dk, dk), ki = columns(k, L, kvd, group * dk, dk), vi = columns(v, L, kvd, group * dk, dk);
    const kt = new Float64Array(dk * L);
    for (let r = 0; r < L; r++) for (let c = 0; c < dk; c++) kt[c * L + r] = ki[r * dk + c];
    const s = matmul(qi, kt, L, dk, L).map((value) => value * factor);
    const masked = s.map((value, idx) => (causal && idx % L > Math.floor(idx / L) ? -1e9 : value));
    const a = new Float64Array(L * L);
    for (let r = 0; r < L; r++) {
      const row = masked.subarray(r * L, r * L + L);
      const max = Math.max(...row);
      const e = row.map((value) => Math.exp(value - max));
      const sum = e.reduce((acc, value) => acc + value, 0);
      for (let c = 0; c < L; c++) a[r * L + c] = e[c] / sum;
    }
    const head = matmul(a, vi, L, L, dk);
    if (!enabled || enabled[i]) {
      for (let r = 0; r < L; r++) for (let c = 0; c < dk; c++) concat[r * d + i * dk + c] = head[r * dk + c];
    }
    scores.push(s);
    attention.push(a);
    heads.push(head);
    keys.push(ki);
  }
  const output = wo ? matmul(concat, wo, L, d, d) : concat.slice();
  return { L, q, k, v, scores, attention, heads, keys, concat, output };
}
