/* plain.c — the readable loops of the forward pass: the reference the fast
   kernels (kernels.c) are tested against, the path for toy sizes, and the
   attention the trainer (train.c) runs. */
#include "mha_internal.h"

#include <math.h>
#include <string.h>

/* i-k-j order: the inner loop runs along rows of b and out, which the compiler vectorises. */
void mha_matmul_plain(float *out, const float *a, const float *b, int rows, int m, int n) {
    for (int i = 0; i < rows; i++) {
        float *o = out + (size_t)i * n;
        memset(o, 0, (size_t)n * sizeof *o);
        for (int kk = 0; kk < m; kk++) {
            const float aik = a[(size_t)i * m + kk];
            const float *brow = b + (size_t)kk * n;
            for (int j = 0; j < n; j++) o[j] += aik * brow[j];
        }
    }
}

/* row[c] = scale · q_r · k_c for c < cols: one row of the head's scores.
   Returns 0 when one of them is not finite (float32 overflowed). */
static int score_row(const mha_head_view *head, int r, int cols, float *row) {
    const float *qr = head->q + (size_t)r * head->stride;
    const size_t kv_stride = (size_t)(head->kv_stride ? head->kv_stride : head->stride);
    int finite = 1;
    for (int c = 0; c < cols; c++) {
        const float *kc = head->k + (size_t)c * kv_stride;
        float dot = 0.0f;
        for (int j = 0; j < head->dk; j++) dot += qr[j] * kc[j];
        row[c] = dot * head->scale;
        finite &= isfinite(row[c]) != 0;
    }
    return finite;
}

int mha_attend_plain(const mha_head_view *head, float *a, float *out, int out_stride) {
    const int L = head->len, dk = head->dk;
    const size_t kv_stride = (size_t)(head->kv_stride ? head->kv_stride : head->stride);
    const size_t ld = (size_t)(head->att_stride ? head->att_stride : L);
    for (int r = head->from; r < L; r++) {
        float *row = a + (size_t)r * ld;
        const int visible = head->causal ? r + 1 : L; /* the masked half is never computed */
        if (!score_row(head, r, visible, row)) return r;
        float max = row[0];
        for (int c = 1; c < visible; c++) max = row[c] > max ? row[c] : max;
        float sum = 0.0f;
        for (int c = 0; c < visible; c++) sum += row[c] = expf(row[c] - max);
        const float inv = 1.0f / sum;
        for (int c = 0; c < visible; c++) row[c] *= inv;
        for (int c = visible; c < L; c++) row[c] = 0.0f;

        float *o = out + (size_t)r * out_stride;
        memset(o, 0, (size_t)dk * sizeof *o);
        for (int c = 0; c < visible; c++) {
            const float w = row[c];
            const float *vc = head->v + (size_t)c * kv_stride;
            for (int j = 0; j < dk; j++) o[j] += w * vc[j];
        }
    }
    return -1;
}

void mha_scores_plain(const mha_head_view *head, float *scores) {
    for (int r = 0; r < head->len; r++) score_row(head, r, head->len, scores + (size_t)r * head->len);
}
