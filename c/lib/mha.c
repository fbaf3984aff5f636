/* mha.c — the layer: create, check, forward and hand out tensors; see mha.h for
   the manual. The arithmetic is in plain.c (the readable loops) and kernels.c
   (the fast SIMD kernels); errors go through error.c. */
#include "mha.h"
#include "mha_internal.h"
#include "pool.h"

#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Below these sizes the plain loops are faster than the kernels' packing and tile edges. */
#ifndef TINY_PRODUCT
#define TINY_PRODUCT 128 /* L·d·d below this: projections by the plain loops */
#endif
#ifndef TINY_HEAD
#define TINY_HEAD 64     /* L·L·d_k below this: heads by the plain loops */
#endif

struct mha_layer {
    int d, h, dk, max_len;
    int h_kv, kvd;            /* K/V heads, and K's and V's width h_kv·d_k (d when not shared) */
    int len;                  /* L of the last forward, 0 before (and after one that failed) */
    unsigned flags;           /* flags of the last forward */
    /* results of the last forward, packed for its L */
    float *q, *k, *v;         /* L×d, L×kvd, L×kvd */
    float *attention;         /* h×L×L, head i at attention + i·L·L */
    float *heads;             /* h×L×d_k, head i at heads + i·L·d_k */
    float *concat;            /* L×d */
    float *output;            /* L×d */
    float *scores;            /* L×L scratch for mha_tensor(MHA_T_SCORES) */
    float *scratch;           /* the fast kernels' scratch: a whole B in panels */
    double scratch_floats;    /* its size, which each pool thread's scratch also holds */
    float *block;             /* the one allocation every buffer above lives in */
};

MHA_NOINLINE mha_status mha_check_heads(int d_model, int heads) {
    if (d_model <= 0) return mha_fail(MHA_ERR_BAD_SIZE, "d_model must be a positive whole number, got %d", d_model);
    if (heads <= 0) return mha_fail(MHA_ERR_BAD_SIZE, "heads must be a positive whole number, got %d", heads);
    if (d_model % heads != 0)
        return mha_fail(MHA_ERR_HEADS_NOT_DIVISOR,
                        "heads %d does not divide d_model %d (d_k = d_model / heads must be a whole number)",
                        heads, d_model);
    return MHA_OK;
}

MHA_NOINLINE mha_status mha_check_kv_heads(int heads, int kv_heads, int *out) {
    if (kv_heads < 0) return mha_fail(MHA_ERR_BAD_SIZE, "kvHeads must be 0 (as many as heads) or more, got %d", kv_heads);
    /* More K/V heads than heads divides heads no better: one sentence for both. */
    if (kv_heads > 0 && heads % kv_heads != 0)
        return mha_fail(MHA_ERR_KV_HEADS_NOT_DIVISOR, "kvHeads %d does not divide heads %d", kv_heads, heads);
    *out = kv_heads ? kv_heads : heads;
    return MHA_OK;
}

mha_status mha_param_bill_count(int d_model, int heads, int kv_heads, int bytes_per_value, mha_param_bill *bill) {
    if (!bill) return mha_fail(MHA_ERR_NULL_ARGUMENT, "the parameter count needs somewhere to write");
    int h_kv;
    mha_status status = mha_check_heads(d_model, heads);
    if (status == MHA_OK) status = mha_check_kv_heads(heads, kv_heads, &h_kv);
    if (status != MHA_OK) return status;
    if (bytes_per_value < 1 || bytes_per_value > 64)
        return mha_fail(MHA_ERR_BAD_SIZE, "bytesPerValue must be 1 to 64, got %d", bytes_per_value);
    const double d = d_model, kvd = (double)h_kv * (d_model / heads);
    *bill = (mha_param_bill){
        .naive = heads * 3.0 * d * d, .wq = d * d, .wk = d * kvd, .wv = d * kvd, .wo = d * d,
        .kv_cache_bytes = 2.0 * kvd * bytes_per_value,
    };
    bill->split = bill->wq + bill->wk + bill->wv + bill->wo;
    return MHA_OK;
}

mha_status mha_param_count(int d_model, int heads, double *naive, double *split) {
    if (!naive || !split) return mha_fail(MHA_ERR_NULL_ARGUMENT, "the parameter count needs somewhere to write");
    mha_param_bill bill;
    mha_status status = mha_param_bill_count(d_model, heads, 0, 4, &bill);
    if (status != MHA_OK) return status;
    *naive = bill.naive;
    *split = bill.split;
    return MHA_OK;
}

mha_status mha_layer_create(const mha_desc *desc, mha_layer **out) {
    if (!desc || !out) return mha_fail(MHA_ERR_NULL_ARGUMENT, "mha_layer_create needs a desc and an output pointer");
    *out = NULL;
    int h_kv;
    mha_status status = mha_check_heads(desc->d_model, desc->heads);
    if (status == MHA_OK) status = mha_check_kv_heads(desc->heads, desc->kv_heads, &h_kv);
    if (status != MHA_OK) return status;
    if (desc->max_len <= 0)
        return mha_fail(MHA_ERR_BAD_SIZE, "maxLen must be a positive whole number, got %d", desc->max_len);

    /* Count in double: size_t is 32 bits in wasm and these products overflow it. */
    const double d = desc->d_model, h = desc->heads, n = desc->max_len;
    const int kvd = h_kv * (desc->d_model / desc->heads);
    const double scratch = mha_fast_scratch_floats(desc->d_model, desc->heads, desc->max_len);
    const double floats = n * d + 2 * n * kvd /* Q, K, V */
                        + h * n * n      /* attention */
                        + n * d          /* heads (h × L × d_k) */
                        + 2 * n * d      /* concat, output */
                        + n * n          /* scores scratch */
                        + scratch;
    const double bytes = floats * sizeof(float) + sizeof(mha_layer);
    if (bytes > MHA_MAX_LAYER_BYTES)
        return mha_fail(MHA_ERR_TOO_LARGE,
                        "d_model %d, heads %d, maxLen %d would need %.0f MB, more than the %.0f MB one layer may use",
                        desc->d_model, desc->heads, desc->max_len, bytes / 1e6, MHA_MAX_LAYER_BYTES / 1e6);

    status = mha_pool_reserve(scratch);
    if (status != MHA_OK) return status;
    mha_layer *layer = calloc(1, sizeof *layer);
    float *block = layer ? malloc((size_t)floats * sizeof(float)) : NULL;
    if (!block) {
        free(layer);
        return mha_fail(MHA_ERR_OUT_OF_MEMORY, "not enough memory for d_model %d, heads %d, maxLen %d (%.0f MB)",
                        desc->d_model, desc->heads, desc->max_len, bytes / 1e6);
    }
    const size_t nd = (size_t)desc->max_len * desc->d_model, nn = (size_t)desc->max_len * desc->max_len;
    const size_t nkv = (size_t)desc->max_len * kvd;
    float *p = block;
    layer->q = p;          p += nd;
    layer->k = p;          p += nkv;
    layer->v = p;          p += nkv;
    layer->attention = p;  p += (size_t)desc->heads * nn;
    layer->heads = p;      p += nd;
    layer->concat = p;     p += nd;
    layer->output = p;     p += nd;
    layer->scores = p;     p += nn;
    layer->scratch = p;
    layer->scratch_floats = scratch;
    layer->block = block;
    layer->d = desc->d_model;
    layer->h = desc->heads;
    layer->dk = desc->d_model / desc->heads;
    layer->h_kv = h_kv;
    layer->kvd = kvd;
    layer->max_len = desc->max_len;
    *out = layer;
    return MHA_OK;
}

void mha_layer_destroy(mha_layer *layer) {
    if (!layer) return;
    free(layer->block);
    free(layer);
}

int mha_layer_len(const mha_layer *layer) { return layer ? layer->len : 0; }

int mha_layer_kv_heads(const mha_layer *layer) { return layer ? layer->h_kv : 0; }

/* Query head i of h reads K/V group ⌊i·h_kv/h⌋: h/h_kv neighbouring query heads a group. */
static int kv_group(int head, int heads, int kv_heads) {
    return (int)((long long)head * kv_heads / heads);
}

mha_status mha_layer_kv_group(const mha_layer *layer, int head, int *group) {
    if (!layer || !group) return mha_fail(MHA_ERR_NULL_ARGUMENT, "mha_layer_kv_group needs a layer and an output pointer");
    if (head < 0 || head >= layer->h)
        return mha_fail(MHA_ERR_HEAD_INDEX, "head %d does not exist: this layer has heads 0 to %d", head, layer->h - 1);
    *group = kv_group(head, layer->h, layer->h_kv);
    return MHA_OK;
}

void mha_layer_forget(mha_layer *layer) {
    if (layer) layer->len = 0;
}

/* The steps attend_heads and the products share: L·d·d for a projection, 2·L·L·d for the heads. */
int mha_layer_may_thread(int d_model, int max_len) {
    const double d = d_model, L = max_len;
    return d > 0 && L > 0 && (mha_pool_big(L * d * d) || mha_pool_big(2.0 * L * L * d));
}

/* Names the first NaN or infinity of a rows×cols input, for a learner to find it. */
static mha_status check_finite(const char *name, const float *a, int rows, int cols) {
    const ptrdiff_t i = mha_first_non_finite(a, (size_t)rows * cols);
    if (i < 0) return MHA_OK;
    const int row = (int)(i / cols), column = (int)(i % cols);
    return mha_fail_at(MHA_ERR_NOT_FINITE, (mha_error_place){name, -1, row, column},
                       "%s has %s at row %d, column %d; every entry must be a finite number "
                       "(numbers beyond float32's ±3.4e38 become Infinity)",
                       name, isnan(a[i]) ? "NaN" : a[i] > 0 ? "Infinity" : "-Infinity", row, column);
}

/* A computed rows×cols result that must be finite (its inputs were): names the
   first entry that overflowed float32, or returns MHA_OK. */
static mha_status check_overflow(const char *name, const char *what, const float *a, int rows, int cols, int head,
                                 const char *hint) {
    const ptrdiff_t i = mha_first_non_finite(a, (size_t)rows * cols);
    if (i < 0) return MHA_OK;
    const int row = (int)(i / cols), column = (int)(i % cols);
    return mha_fail_at(MHA_ERR_NOT_FINITE, (mha_error_place){name, head, row, column},
                       "%s overflows float32 (beyond ±3.4e38) at row %d, column %d; %s", what, row, column, hint);
}

/* Head i's scores overflowed at query row `row` (a score became ±Infinity or NaN). */
static mha_status scores_overflow(int head, int row) {
    return mha_fail_at(MHA_ERR_NOT_FINITE, (mha_error_place){"scores", head, row, -1},
                       "scores of head %d overflow float32 (beyond ±3.4e38) at row %d: q·k is too large; "
                       "use smaller numbers in q and k", head, row);
}

/* The last forward's heads, for attend_heads and mha_tensor's scores. */
static mha_heads heads_of(const mha_layer *layer, const unsigned char *enabled, int plain) {
    return (mha_heads){
        .q = layer->q, .k = layer->k, .v = layer->v, .stride = layer->d,
        .kv_heads = layer->h_kv, .kv_stride = layer->kvd,
        .heads = layer->h, .dk = layer->dk, .len = layer->len,
        .scale = (layer->flags & MHA_SCALE) ? (float)(1.0 / sqrt((double)layer->dk)) : 1.0f,
        .causal = (layer->flags & MHA_CAUSAL) != 0,
        .att = layer->attention, .out = layer->heads, .concat = layer->concat, .enabled = enabled, .plain = plain,
    };
}

static mha_status check_input(const mha_layer *layer, const mha_input *in) {
    if (in->len <= 0) return mha_fail(MHA_ERR_BAD_SIZE, "the sequence is empty (length %d); give at least one token", in->len);
    if (in->len > layer->max_len)
        return mha_fail(MHA_ERR_SEQ_TOO_LONG, "the sequence has %d tokens but this layer was created with maxLen %d",
                    in->len, layer->max_len);
    const int L = in->len, d = layer->d, kvd = layer->kvd;
    const int projection = in->x != NULL;
    if (projection && (in->q || in->k || in->v))
        return mha_fail(MHA_ERR_BAD_INPUT, "give either x with wq, wk, wv (projection mode) or q, k, v, not both");
    if (projection && !(in->wq && in->wk && in->wv))
        return mha_fail(MHA_ERR_BAD_INPUT, "projection mode needs all of wq, wk and wv");
    if (!projection && !(in->q && in->k && in->v))
        return mha_fail(MHA_ERR_BAD_INPUT, "give x with wq, wk, wv (projection mode) or all of q, k and v");
    struct { const char *name; const float *a; int rows, cols; } inputs[] = {
        {"x", in->x, L, d},   {"wq", in->wq, d, d}, {"wk", in->wk, d, kvd}, {"wv", in->wv, d, kvd},
        {"q", in->q, L, d},   {"k", in->k, L, kvd}, {"v", in->v, L, kvd},   {"wo", in->wo, d, d},
    };
    for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
        if (!inputs[i].a) continue;
        mha_status status = check_finite(inputs[i].name, inputs[i].a, inputs[i].rows, inputs[i].cols);
        if (status != MHA_OK) return status;
    }
    return MHA_OK;
}

/* Projection mode: Q, K, V = X·W_q, X·W_k, X·W_v, each checked for overflow. */
static mha_status project_qkv(mha_layer *layer, const mha_input *in, int plain) {
    const int L = in->len, d = layer->d;
    const struct { const char *name, *what, *hint; float *out; const float *w; int n; } qkv[] = {
        {"q", "q = x·wq", "use smaller numbers in x or wq", layer->q, in->wq, d},
        {"k", "k = x·wk", "use smaller numbers in x or wk", layer->k, in->wk, layer->kvd},
        {"v", "v = x·wv", "use smaller numbers in x or wv", layer->v, in->wv, layer->kvd},
    };
    for (int i = 0; i < 3; i++) {
        if (plain) mha_matmul_plain(qkv[i].out, in->x, qkv[i].w, L, d, qkv[i].n);
        else mha_project_fast(qkv[i].out, in->x, qkv[i].w, L, d, qkv[i].n, layer->scratch);
        mha_status status = check_overflow(qkv[i].name, qkv[i].what, qkv[i].out, L, qkv[i].n, -1, qkv[i].hint);
        if (status != MHA_OK) return status;
    }
    return MHA_OK;
}

/* Part `part` (s·heads + i) of `heads`: head i of sequence s, reading K/V group kv_group(i). Out of
   line: inlined in each caller it cost the wasm 230 bytes gzipped, and it runs once a head. */
static MHA_NOINLINE mha_head_view head_view(const mha_heads *a, int part) {
    const size_t seq = (size_t)(part / a->heads) * a->seq_stride;
    const int i = part % a->heads, group = a->kv_heads ? kv_group(i, a->heads, a->kv_heads) : i;
    const size_t at = seq + (size_t)i * a->dk, kv_at = seq + (size_t)group * a->dk;
    return (mha_head_view){.q = a->q + at, .k = a->k + kv_at, .v = a->v + kv_at, .stride = a->stride,
                           .kv_stride = a->kv_stride, .len = a->len, .dk = a->dk, .scale = a->scale,
                           .causal = a->causal, .from = a->from, .att_stride = a->att_stride,
                           .kt = a->kt ? a->kt + (size_t)i * a->dk * a->kt_stride : NULL, .kt_stride = a->kt_stride};
}

typedef struct heads_task {
    const mha_heads *heads;
    atomic_llong failure; /* part·len + row of the first scores that are not finite, or LLONG_MAX */
} heads_task;

/* One head's weights and output, and its columns of the concat. */
static void attend_head(void *task, int part, int parts, float *scratch) {
    (void)parts;
    heads_task *t = task;
    const mha_heads *a = t->heads;
    const int L = a->len, dk = a->dk, d = a->heads * dk, s = part / a->heads, i = part % a->heads;
    const mha_head_view view = head_view(a, part);
    const size_t A = (size_t)(a->att_stride ? a->att_stride : L);
    float *att = a->att + (size_t)part * A * A;
    float *head = a->out ? a->out + (size_t)part * L * dk : scratch;  /* without out: the scratch's first L×d_k, */
    float *kernel_scratch = a->out ? scratch : scratch + (size_t)L * dk; /* then the kernel's */
    const int bad_row = a->plain ? mha_attend_plain(&view, att, head, dk) : mha_attend_fast(&view, att, head, kernel_scratch);
    if (bad_row >= 0) {
        mha_pool_keep_first(&t->failure, (long long)part * L + bad_row);
        return;
    }
    const int on = !a->enabled || a->enabled[i];
    for (int r = a->from; r < L; r++) {
        float *dst = a->concat + ((size_t)s * L + r) * d + (size_t)i * dk;
        if (on) memcpy(dst, head + (size_t)r * dk, (size_t)dk * sizeof *dst);
        else memset(dst, 0, (size_t)dk * sizeof *dst);
    }
}

long long mha_attend_heads(const mha_heads *heads, int sequences, int spread, float *scratch, double scratch_floats) {
    heads_task task = {heads, LLONG_MAX};
    mha_pool_run(attend_head, &task, sequences * heads->heads, spread, scratch, scratch_floats);
    const long long failure = atomic_load(&task.failure);
    return failure == LLONG_MAX ? -1 : failure;
}

/* Every head's attention and output, and the concat: the heads spread over the pool. */
static mha_status attend_heads(mha_layer *layer, const mha_input *in, int plain) {
    const int L = layer->len, d = layer->d, dk = layer->dk;
    const mha_heads heads = heads_of(layer, in->enabled, plain);
    const long long failure = mha_attend_heads(&heads, 1, !plain && mha_pool_worth(2.0 * L * L * d), layer->scratch,
                                               layer->scratch_floats);
    if (failure >= 0) return scores_overflow((int)(failure / L), (int)(failure % L));
    /* A weighted mean of V's rows stays within V's range, but may round past float32's. */
    const ptrdiff_t at = mha_first_non_finite(layer->heads, (size_t)L * d);
    if (at < 0) return MHA_OK;
    const int head = (int)(at / ((ptrdiff_t)L * dk)), row = (int)(at / dk % L), column = (int)(at % dk);
    return mha_fail_at(MHA_ERR_NOT_FINITE, (mha_error_place){"head output", head, row, column},
                       "the output of head %d overflows float32 (beyond ±3.4e38) at row %d, column %d; "
                       "use smaller numbers in v", head, row, column);
}

mha_status mha_forward(mha_layer *layer, const mha_input *in) {
    if (!layer || !in) return mha_fail(MHA_ERR_NULL_ARGUMENT, "mha_forward needs a layer and an input");
    mha_status status = check_input(layer, in);
    if (status != MHA_OK) return status;

    const int L = in->len, d = layer->d, dk = layer->dk;
    const size_t nd = (size_t)L * d, nkv = (size_t)L * layer->kvd;
    /* Toy sizes (the lesson's 3 tokens × 4 dims) take the plain loops: there the
       kernels' packing and tile edges cost more than the arithmetic. */
    const int plain_products = (in->flags & MHA_PLAIN) || (double)L * d * d < TINY_PRODUCT;
    const int plain_heads = (in->flags & MHA_PLAIN) || (double)L * L * dk < TINY_HEAD;
    layer->len = L;
    layer->flags = in->flags;
    if (in->x) {
        status = project_qkv(layer, in, plain_products);
    } else { /* memmove: a caller may hand back one of the layer's own buffers */
        memmove(layer->q, in->q, nd * sizeof(float));
        memmove(layer->k, in->k, nkv * sizeof(float));
        memmove(layer->v, in->v, nkv * sizeof(float));
    }
    if (status == MHA_OK) status = attend_heads(layer, in, plain_heads);
    if (status == MHA_OK && in->wo) {
        if (plain_products) mha_matmul_plain(layer->output, layer->concat, in->wo, L, d, d);
        else mha_project_fast(layer->output, layer->concat, in->wo, L, d, d, layer->scratch);
        status = check_overflow("output", "output = concat·wo", layer->output, L, d, -1, "use smaller numbers in wo");
    } else if (status == MHA_OK) {
        memcpy(layer->output, layer->concat, nd * sizeof(float));
    }
    if (status != MHA_OK) layer->len = 0; /* half-computed buffers are no result */
    return status;
}

mha_status mha_tensor(mha_layer *layer, mha_tensor_id id, int head, const float **out) {
    if (!layer || !out) return mha_fail(MHA_ERR_NULL_ARGUMENT, "mha_tensor needs a layer and an output pointer");
    *out = NULL;
    if (layer->len == 0)
        return mha_fail(MHA_ERR_NO_FORWARD, "no result yet: call forward first (a forward that failed leaves none)");
    const int L = layer->len;
    const int per_head = id == MHA_T_SCORES || id == MHA_T_ATTENTION || id == MHA_T_HEAD;
    if (per_head && (head < 0 || head >= layer->h))
        return mha_fail(MHA_ERR_HEAD_INDEX, "head %d does not exist: this layer has heads 0 to %d", head, layer->h - 1);
    switch (id) {
    case MHA_T_Q: *out = layer->q; break;
    case MHA_T_K: *out = layer->k; break;
    case MHA_T_V: *out = layer->v; break;
    case MHA_T_SCORES: {
        const mha_heads heads = heads_of(layer, NULL, 0);
        const mha_head_view view = head_view(&heads, head);
        if ((layer->flags & MHA_PLAIN) || (double)L * L * layer->dk < TINY_HEAD) mha_scores_plain(&view, layer->scores);
        else mha_scores_fast(&view, layer->scores, layer->scratch);
        /* The forward checked the scores it used; under the mask the rest were never computed. */
        const ptrdiff_t at = mha_first_non_finite(layer->scores, (size_t)L * L);
        if (at >= 0) {
            const int row = (int)(at / L), column = (int)(at % L);
            return mha_fail_at(MHA_ERR_NOT_FINITE, (mha_error_place){"scores", head, row, column},
                               "scores of head %d overflow float32 (beyond ±3.4e38) at row %d, column %d, under the "
                               "causal mask, where the forward did not need them; use smaller numbers in q and k",
                               head, row, column);
        }
        *out = layer->scores;
        break;
    }
    case MHA_T_ATTENTION: *out = layer->attention + (size_t)head * L * L; break;
    case MHA_T_HEAD: *out = layer->heads + (size_t)head * L * layer->dk; break;
    case MHA_T_CONCAT: *out = layer->concat; break;
    case MHA_T_OUTPUT: *out = layer->output; break;
    default: return mha_fail(MHA_ERR_BAD_INPUT, "unknown tensor id %d", (int)id);
    }
    return MHA_OK;
}
