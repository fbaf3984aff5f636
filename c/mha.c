/* mha.c — the forward pass of multi-head attention; see mha.h for the manual. */
#include "mha.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mha_layer {
    int d, h, dk, max_len;
    int len;                  /* L of the last forward, 0 before */
    unsigned flags;           /* flags of the last forward */
    /* staging, owned by the layer, free for the caller to fill */
    float *staging[MHA_SLOT_ENABLED]; /* X_OR_Q, K, V: max_len×d; WQ..WO: d×d */
    unsigned char *enabled_staging;   /* h */
    /* results of the last forward, packed for its L */
    float *q, *k, *v;         /* L×d */
    float *attention;         /* h×L×L, head i at attention + i·L·L */
    float *heads;             /* h×L×d_k, head i at heads + i·L·d_k */
    float *concat;            /* L×d */
    float *output;            /* L×d */
    float *scores;            /* L×L scratch for mha_tensor(MHA_T_SCORES) */
    float *block;             /* the one allocation every buffer above lives in */
};

static _Thread_local char last_error[256];

static mha_status fail(mha_status status, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, args);
    va_end(args);
    return status;
}

const char *mha_last_error(void) { return last_error; }

const char *mha_status_name(mha_status status) {
    static const char *const names[MHA_STATUS_COUNT] = {
        "OK",          "NULL_ARGUMENT", "BAD_SIZE",     "HEADS_NOT_DIVISOR",
        "TOO_LARGE",   "OUT_OF_MEMORY", "SEQ_TOO_LONG", "NOT_FINITE",
        "BAD_INPUT",   "HEAD_INDEX",    "NO_FORWARD",
    };
    return (unsigned)status < MHA_STATUS_COUNT ? names[status] : "UNKNOWN";
}

static mha_status check_shape(int d_model, int heads) {
    if (d_model <= 0) return fail(MHA_ERR_BAD_SIZE, "d_model must be a positive whole number, got %d", d_model);
    if (heads <= 0) return fail(MHA_ERR_BAD_SIZE, "heads must be a positive whole number, got %d", heads);
    if (d_model % heads != 0)
        return fail(MHA_ERR_HEADS_NOT_DIVISOR,
                    "heads %d does not divide d_model %d (d_k = d_model / heads must be a whole number)",
                    heads, d_model);
    return MHA_OK;
}

mha_status mha_param_count(int d_model, int heads, double *naive, double *split) {
    if (!naive || !split) return fail(MHA_ERR_NULL_ARGUMENT, "mha_param_count needs two output pointers");
    mha_status status = check_shape(d_model, heads);
    if (status != MHA_OK) return status;
    double d = d_model;
    *naive = heads * 3.0 * d * d;
    *split = 3.0 * d * d + d * d;
    return MHA_OK;
}

mha_status mha_layer_create(const mha_desc *desc, mha_layer **out) {
    if (!desc || !out) return fail(MHA_ERR_NULL_ARGUMENT, "mha_layer_create needs a desc and an output pointer");
    *out = NULL;
    mha_status status = check_shape(desc->d_model, desc->heads);
    if (status != MHA_OK) return status;
    if (desc->max_len <= 0)
        return fail(MHA_ERR_BAD_SIZE, "maxLen must be a positive whole number, got %d", desc->max_len);

    /* Count in double: size_t is 32 bits in wasm and these products overflow it. */
    double d = desc->d_model, h = desc->heads, n = desc->max_len;
    double floats = 3 * n * d      /* staging X_OR_Q, K, V */
                  + 4 * d * d      /* staging WQ, WK, WV, WO */
                  + 3 * n * d      /* Q, K, V */
                  + h * n * n      /* attention */
                  + n * d          /* heads (h × L × d_k) */
                  + 2 * n * d      /* concat, output */
                  + n * n;         /* scores scratch */
    double bytes = floats * sizeof(float) + h + sizeof(mha_layer);
    if (bytes > MHA_MAX_LAYER_BYTES)
        return fail(MHA_ERR_TOO_LARGE,
                    "d_model %d, heads %d, maxLen %d would need %.0f MB, more than the %.0f MB one layer may use",
                    desc->d_model, desc->heads, desc->max_len, bytes / 1e6, MHA_MAX_LAYER_BYTES / 1e6);

    mha_layer *layer = calloc(1, sizeof *layer);
    float *block = layer ? malloc((size_t)floats * sizeof(float) + (size_t)desc->heads) : NULL;
    if (!block) {
        free(layer);
        return fail(MHA_ERR_OUT_OF_MEMORY, "not enough memory for d_model %d, heads %d, maxLen %d (%.0f MB)",
                    desc->d_model, desc->heads, desc->max_len, bytes / 1e6);
    }
    size_t nd = (size_t)desc->max_len * desc->d_model, dd = (size_t)desc->d_model * desc->d_model;
    size_t nn = (size_t)desc->max_len * desc->max_len;
    float *p = block;
    for (int s = MHA_SLOT_X_OR_Q; s <= MHA_SLOT_V; s++, p += nd) layer->staging[s] = p;
    for (int s = MHA_SLOT_WQ; s <= MHA_SLOT_WO; s++, p += dd) layer->staging[s] = p;
    layer->q = p;          p += nd;
    layer->k = p;          p += nd;
    layer->v = p;          p += nd;
    layer->attention = p;  p += (size_t)desc->heads * nn;
    layer->heads = p;      p += nd;
    layer->concat = p;     p += nd;
    layer->output = p;     p += nd;
    layer->scores = p;     p += nn;
    layer->enabled_staging = (unsigned char *)p;
    memset(layer->enabled_staging, 1, (size_t)desc->heads);
    layer->block = block;
    layer->d = desc->d_model;
    layer->h = desc->heads;
    layer->dk = desc->d_model / desc->heads;
    layer->max_len = desc->max_len;
    *out = layer;
    return MHA_OK;
}

void mha_layer_destroy(mha_layer *layer) {
    if (!layer) return;
    free(layer->block);
    free(layer);
}

void *mha_layer_staging(mha_layer *layer, mha_slot slot) {
    if (!layer || (unsigned)slot >= MHA_SLOT_COUNT) return NULL;
    return slot == MHA_SLOT_ENABLED ? (void *)layer->enabled_staging : (void *)layer->staging[slot];
}

int mha_layer_len(const mha_layer *layer) { return layer ? layer->len : 0; }

/* Names the first NaN or infinity of a rows×cols input, for a learner to find it. */
static mha_status check_finite(const char *name, const float *a, int rows, int cols) {
    size_t n = (size_t)rows * cols;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(a[i]))
            return fail(MHA_ERR_NOT_FINITE, "%s has %s at row %d, column %d; every entry must be a finite number",
                        name, isnan(a[i]) ? "NaN" : a[i] > 0 ? "Infinity" : "-Infinity",
                        (int)(i / (size_t)cols), (int)(i % (size_t)cols));
    }
    return MHA_OK;
}

/* out (rows×n) = a (rows×m) · b (m×n), all row-major. i-k-j order: the inner loop
   runs along rows of b and out, which the compiler vectorises. */
static void matmul(float *out, const float *a, const float *b, int rows, int m, int n) {
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

static float score_scale(const mha_layer *layer, unsigned flags) {
    return (flags & MHA_SCALE) ? (float)(1.0 / sqrt((double)layer->dk)) : 1.0f;
}

/* row[c] = scale · Q_i[r] · K_i[c] for c < cols: one row of head i's scores. */
static void score_row(const mha_layer *layer, int head, int r, int cols, float scale, float *row) {
    const int d = layer->d, dk = layer->dk;
    const float *qr = layer->q + (size_t)r * d + (size_t)head * dk;
    for (int c = 0; c < cols; c++) {
        const float *kc = layer->k + (size_t)c * d + (size_t)head * dk;
        float dot = 0.0f;
        for (int j = 0; j < dk; j++) dot += qr[j] * kc[j];
        row[c] = dot * scale;
    }
}

/* Head i: attention weights (L×L) and output A_i · V_i (L×d_k). */
static void attend_head(mha_layer *layer, int head, float scale, int causal) {
    const int L = layer->len, d = layer->d, dk = layer->dk;
    float *a = layer->attention + (size_t)head * L * L;
    float *out = layer->heads + (size_t)head * L * dk;
    for (int r = 0; r < L; r++) {
        float *row = a + (size_t)r * L;
        const int visible = causal ? r + 1 : L; /* the masked half is never computed */
        score_row(layer, head, r, visible, scale, row);
        float max = row[0];
        for (int c = 1; c < visible; c++) max = row[c] > max ? row[c] : max;
        float sum = 0.0f;
        for (int c = 0; c < visible; c++) sum += row[c] = expf(row[c] - max);
        const float inv = 1.0f / sum;
        for (int c = 0; c < visible; c++) row[c] *= inv;
        for (int c = visible; c < L; c++) row[c] = 0.0f;

        float *o = out + (size_t)r * dk;
        memset(o, 0, (size_t)dk * sizeof *o);
        for (int c = 0; c < visible; c++) {
            const float w = row[c];
            const float *vc = layer->v + (size_t)c * d + (size_t)head * dk;
            for (int j = 0; j < dk; j++) o[j] += w * vc[j];
        }
    }
}

static mha_status check_input(const mha_layer *layer, const mha_input *in) {
    if (in->len <= 0) return fail(MHA_ERR_BAD_SIZE, "the sequence is empty (length %d); give at least one token", in->len);
    if (in->len > layer->max_len)
        return fail(MHA_ERR_SEQ_TOO_LONG, "the sequence has %d tokens but this layer was created with maxLen %d",
                    in->len, layer->max_len);
    const int L = in->len, d = layer->d;
    const int projection = in->x != NULL;
    if (projection && (in->q || in->k || in->v))
        return fail(MHA_ERR_BAD_INPUT, "give either x with wq, wk, wv (projection mode) or q, k, v, not both");
    if (projection && !(in->wq && in->wk && in->wv))
        return fail(MHA_ERR_BAD_INPUT, "projection mode needs all of wq, wk and wv");
    if (!projection && !(in->q && in->k && in->v))
        return fail(MHA_ERR_BAD_INPUT, "give x with wq, wk, wv (projection mode) or all of q, k and v");
    struct { const char *name; const float *a; int rows; } inputs[] = {
        {"x", in->x, L},   {"wq", in->wq, d}, {"wk", in->wk, d}, {"wv", in->wv, d},
        {"q", in->q, L},   {"k", in->k, L},   {"v", in->v, L},   {"wo", in->wo, d},
    };
    for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
        if (!inputs[i].a) continue;
        mha_status status = check_finite(inputs[i].name, inputs[i].a, inputs[i].rows, d);
        if (status != MHA_OK) return status;
    }
    return MHA_OK;
}

mha_status mha_forward(mha_layer *layer, const mha_input *in) {
    if (!layer || !in) return fail(MHA_ERR_NULL_ARGUMENT, "mha_forward needs a layer and an input");
    mha_status status = check_input(layer, in);
    if (status != MHA_OK) return status;

    const int L = in->len, d = layer->d, h = layer->h, dk = layer->dk;
    const size_t nd = (size_t)L * d;
    layer->len = L;
    layer->flags = in->flags;
    if (in->x) {
        matmul(layer->q, in->x, in->wq, L, d, d);
        matmul(layer->k, in->x, in->wk, L, d, d);
        matmul(layer->v, in->x, in->wv, L, d, d);
    } else { /* memmove: a caller may hand back one of the layer's own buffers */
        memmove(layer->q, in->q, nd * sizeof(float));
        memmove(layer->k, in->k, nd * sizeof(float));
        memmove(layer->v, in->v, nd * sizeof(float));
    }

    const float scale = score_scale(layer, in->flags);
    for (int i = 0; i < h; i++) {
        attend_head(layer, i, scale, (in->flags & MHA_CAUSAL) != 0);
        const int on = !in->enabled || in->enabled[i];
        const float *head = layer->heads + (size_t)i * L * dk;
        for (int r = 0; r < L; r++) {
            float *dst = layer->concat + (size_t)r * d + (size_t)i * dk;
            if (on) memcpy(dst, head + (size_t)r * dk, (size_t)dk * sizeof(float));
            else memset(dst, 0, (size_t)dk * sizeof(float));
        }
    }

    if (in->wo) matmul(layer->output, layer->concat, in->wo, L, d, d);
    else memcpy(layer->output, layer->concat, nd * sizeof(float));
    return MHA_OK;
}

mha_status mha_tensor(mha_layer *layer, mha_tensor_id id, int head, const float **out) {
    if (!layer || !out) return fail(MHA_ERR_NULL_ARGUMENT, "mha_tensor needs a layer and an output pointer");
    *out = NULL;
    if (layer->len == 0) return fail(MHA_ERR_NO_FORWARD, "no result yet: call forward first");
    const int L = layer->len;
    const int per_head = id == MHA_T_SCORES || id == MHA_T_ATTENTION || id == MHA_T_HEAD;
    if (per_head && (head < 0 || head >= layer->h))
        return fail(MHA_ERR_HEAD_INDEX, "head %d does not exist: this layer has heads 0 to %d", head, layer->h - 1);
    switch (id) {
    case MHA_T_Q: *out = layer->q; break;
    case MHA_T_K: *out = layer->k; break;
    case MHA_T_V: *out = layer->v; break;
    case MHA_T_SCORES: {
        const float scale = score_scale(layer, layer->flags);
        for (int r = 0; r < L; r++) score_row(layer, head, r, L, scale, layer->scores + (size_t)r * L);
        *out = layer->scores;
        break;
    }
    case MHA_T_ATTENTION: *out = layer->attention + (size_t)head * L * L; break;
    case MHA_T_HEAD: *out = layer->heads + (size_t)head * L * layer->dk; break;
    case MHA_T_CONCAT: *out = layer->concat; break;
    case MHA_T_OUTPUT: *out = layer->output; break;
    default: return fail(MHA_ERR_BAD_INPUT, "unknown tensor id %d", (int)id);
    }
    return MHA_OK;
}
