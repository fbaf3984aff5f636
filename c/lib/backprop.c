/* backprop.c — the pieces of training both trainers share (train.c,
   gpt_train.c); see backprop.h for the manual. */
#include "backprop.h"

#include <math.h>

mha_status mha_check_reals(const mha_real_range *reals, size_t count) {
    for (size_t i = 0; i < count; i++) {
        const mha_real_range *range = &reals[i];
        const float x = range->value;
        if (!isfinite(x))
            return mha_fail(MHA_ERR_NOT_FINITE, "%s must be a finite number, got %s", range->name,
                            isnan(x) ? "NaN" : x > 0 ? "Infinity" : "-Infinity");
        if ((range->open_lo ? x <= range->lo : x < range->lo) || (range->open_hi ? x >= range->hi : x > range->hi))
            return mha_fail(MHA_ERR_BAD_INPUT, "%s must be in %s%g, %g%s, got %g", range->name, range->open_lo ? "(" : "[",
                            range->lo, range->hi, range->open_hi ? ")" : "]", x);
    }
    return MHA_OK;
}

void mha_embed(float *x, const float *E, const float *P, const int *tokens, int stride, int S, int T, int from, int d) {
    for (int s = 0; s < S; s++)
        for (int t = from; t < T; t++) {
            const float *e = E + (size_t)tokens[(size_t)s * stride + t] * d, *p = P + (size_t)t * d;
            float *row = x + ((size_t)s * T + t) * d;
            for (int j = 0; j < d; j++) row[j] = e[j] + p[j];
        }
}

void mha_embed_backward(float *dE, float *dP, const float *dx, const int *tokens, int stride, int S, int T, int d) {
    for (int s = 0; s < S; s++)
        for (int t = 0; t < T; t++) {
            const float *g = dx + ((size_t)s * T + t) * d;
            float *e = dE + (size_t)tokens[(size_t)s * stride + t] * d, *p = dP + (size_t)t * d;
            for (int j = 0; j < d; j++) {
                e[j] += g[j];
                p[j] += g[j];
            }
        }
}

void mha_attend_backward(const mha_head_view *head, const float *restrict att, const float *restrict dout, int dout_stride,
                         float *restrict dq, float *restrict dkey, float *restrict dv, int grad_stride, int kv_grad_stride,
                         float *restrict scratch) {
    const int L = head->len, dk = head->dk;
    const size_t in = (size_t)head->stride, out = (size_t)grad_stride;
    const size_t kv_in = head->kv_stride ? (size_t)head->kv_stride : in, kv_out = kv_grad_stride ? (size_t)kv_grad_stride : out;
    const float *restrict q = head->q, *restrict k = head->k, *restrict v = head->v;
    float *restrict ds = scratch;
    for (int r = 0; r < L; r++) {
        const float *arow = att + (size_t)r * L, *dh = dout + (size_t)r * dout_stride;
        const int visible = head->causal ? r + 1 : L;
        /* dA[r][c] = dH[r]·V[c]; dS = A ⊙ (dA - Σ A dA), times the scale */
        float dot_sum = 0.0f;
        for (int c = 0; c < visible; c++) {
            const float *vc = v + c * kv_in;
            float dot = 0.0f;
            for (int j = 0; j < dk; j++) dot += dh[j] * vc[j];
            ds[c] = dot;
            dot_sum += arow[c] * dot;
        }
        const float *qr = q + r * in;
        float *dqr = dq + r * out;
        for (int c = 0; c < visible; c++) {
            const float weight = arow[c], g = weight * (ds[c] - dot_sum) * head->scale;
            const float *kc = k + c * kv_in;
            float *dkc = dkey + c * kv_out, *dvc = dv + c * kv_out;
            for (int j = 0; j < dk; j++) { /* restrict: no overlap to check for, so this vectorises */
                dqr[j] += g * kc[j];
                dkc[j] += g * qr[j];
                dvc[j] += weight * dh[j];
            }
        }
    }
}

double mha_softmax_cross_entropy(float *z, int n, int want, float grad_scale, int *best) {
    int top = 0;
    for (int c = 1; c < n; c++)
        if (z[c] > z[top]) top = c;
    if (best) *best = top;
    const float max = z[top];
    const float margin = z[want] - max; /* <= 0; kept before exp can underflow */
    double sum = 0.0;
    for (int c = 0; c < n; c++) sum += z[c] = expf(z[c] - max);
    const float norm = (float)(1.0 / sum) * grad_scale;
    for (int c = 0; c < n; c++) z[c] *= norm; /* (p - onehot) · grad_scale */
    z[want] -= grad_scale;
    return log(sum) - margin; /* -log softmax[want] = log(sum) - (z_want - max) */
}

void mha_adamw_step(const mha_adamw *step, float *restrict w, float *restrict m, float *restrict v,
                    const float *restrict g, size_t n) {
    const float lr = step->lr, b1 = step->beta1, b2 = step->beta2, eps = step->eps;
    const float correct1 = step->correct1, correct2 = step->correct2, grad_scale = step->grad_scale, shrink = step->shrink;
    for (size_t i = 0; i < n; i++) {
        const float gi = g[i] * grad_scale;
        m[i] = b1 * m[i] + (1.0f - b1) * gi;
        v[i] = b2 * v[i] + (1.0f - b2) * gi * gi;
        w[i] = w[i] * shrink - lr * (m[i] * correct1) / (sqrtf(v[i] * correct2) + eps);
    }
}
