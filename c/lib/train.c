/* train.c — forward, backward and Adam for one multi-head attention layer on
   the "previous token + first token" task; see train.h for the manual. The
   pieces it shares with gpt_train.c (embeddings, attention backward,
   cross-entropy, the Adam update) are backprop.c's. */
#include "train.h"
#include "backprop.h"
#include "mha_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "np_random.h"

struct mha_trainer {
    mha_train_desc desc;
    int V, L, d, h, dk, B, n_eval, n_out; /* n_out = 2·V logits per position */
    int h_kv, kvd;     /* K/V heads and K's and V's width h_kv·d_k (h and d when not shared) */
    float scale;
    int causal;
    np_random rng;
    long steps;
    float last_loss;
    double beta1_t, beta2_t; /* beta^t for Adam's bias correction */
    int custom_example;

    size_t offset[MHA_TP_COUNT], size[MHA_TP_COUNT], n_params;
    float *params, *grads, *adam_m, *adam_v, *backup; /* n_params each */

    int *batch_tokens; /* B·L */
    int *eval_tokens;  /* n_eval·L */
    int *example;      /* L */
    float *example_x;  /* L·d */
    mha_layer *layer;  /* the example, through mha_forward */

    /* activations of up to B sequences, N = B·L rows */
    float *x, *q, *concat, *y;         /* N×d */
    float *k, *v;                      /* N×kvd */
    float *att;                        /* B·h·L·L */
    float *logits;                     /* N×2V; after the forward: dloss/dlogits */
    float *dy, *dconcat, *dq, *dx;     /* N×d */
    float *dkey, *dv;                  /* N×kvd */
    float *scratch;                    /* L·d_k: a head's output (forward), a row of L (backward) */
    void *block;                       /* the one allocation */
};



mha_train_desc mha_train_default_desc(int heads) {
    mha_train_desc desc = {
        .vocab = 16, .seq_len = 8, .d_model = 8, .heads = heads, .batch = 32, .eval_count = 256,
        .flags = MHA_CAUSAL | MHA_SCALE, .seed = 0, .lr = 0.01f,
        .beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-8f, .init_scale = 1.0f,
    };
    return desc;
}

static mha_status check_range(const char *name, int value, int lo, int hi) {
    if (value < lo || value > hi) {
        mha_status status = value <= 0 ? MHA_ERR_BAD_SIZE : value > hi ? MHA_ERR_TOO_LARGE : MHA_ERR_BAD_SIZE;
        return mha_fail(status, "%s must be a whole number from %d to %d, got %d", name, lo, hi, value);
    }
    return MHA_OK;
}

/* K's and V's width h_kv·d_k, of a desc check_desc accepted (d_model when kv_heads is 0). */
static int kv_width(const mha_train_desc *desc) {
    return (desc->kv_heads ? desc->kv_heads : desc->heads) * (desc->d_model / desc->heads);
}

/* The costs of train.h, from the sizes alone, so create can check them first. W_k and
   W_v are d×kvd: their products cost 2·d·kvd each, where W_q's and W^O's cost 2·d². */
static double sequence_cost(const mha_train_desc *desc) {
    const double d = desc->d_model, L = desc->seq_len, V = desc->vocab, h = desc->heads, kvd = kv_width(desc);
    return L * (4 * d * d + 4 * d * kvd + 4 * L * d + 4 * V * d) + 32 * L * (L * h + 2 * V + d);
}

static double param_count(const mha_train_desc *desc) {
    const double V = desc->vocab, L = desc->seq_len, d = desc->d_model, kvd = kv_width(desc);
    return V * d + L * d + 2 * d * d + 2 * d * kvd + d * 2 * V + 2 * V;
}

enum { CALL_COST = 3000 };

static double step_cost(const mha_train_desc *desc) {
    return 3.0 * desc->batch * sequence_cost(desc) + 30 * param_count(desc) + CALL_COST;
}

static double evaluate_cost(const mha_train_desc *desc) {
    return desc->eval_count * sequence_cost(desc) + CALL_COST;
}

static mha_status check_desc(const mha_train_desc *desc) {
    mha_status status;
    if ((status = check_range("vocab", desc->vocab, 2, MHA_TRAIN_MAX_VOCAB)) ||
        (status = check_range("seqLen", desc->seq_len, 2, MHA_TRAIN_MAX_LEN)) ||
        (status = check_range("dModel", desc->d_model, 1, MHA_TRAIN_MAX_D)) ||
        (status = check_range("heads", desc->heads, 1, MHA_TRAIN_MAX_D)) ||
        (status = check_range("batch", desc->batch, 1, MHA_TRAIN_MAX_BATCH)) ||
        (status = check_range("evalCount", desc->eval_count, 1, 1 << 16)) ||
        (status = mha_check_heads(desc->d_model, desc->heads)))
        return status;
    int h_kv;
    if ((status = mha_check_kv_heads(desc->heads, desc->kv_heads, &h_kv))) return status;
    if (desc->flags & ~(unsigned)(MHA_CAUSAL | MHA_SCALE))
        return mha_fail(MHA_ERR_BAD_INPUT, "flags may only combine MHA_CAUSAL (1) and MHA_SCALE (2), got %u", desc->flags);
    const mha_real_range reals[] = {
        {"lr", desc->lr, 0, 10, 1, 0},        {"beta1", desc->beta1, 0, 1, 0, 1},
        {"beta2", desc->beta2, 0, 1, 0, 1},   {"eps", desc->eps, 0, 1, 1, 0},
        {"initScale", desc->init_scale, 0, 100, 1, 0},
    };
    return mha_check_reals(reals, sizeof reals / sizeof *reals);
}

/* ---- small dense kernels, row-major ----
   Out of line: inlined at their ten call sites they cost the wasm about 700 bytes gzipped,
   every widget's download, and each runs once a step. */

/* out (m×n) = aᵀ · b, with a rows×m and b rows×n (a weight's gradient). */
static MHA_NOINLINE void mm_tn(float *restrict out, const float *restrict a, const float *restrict b, int rows, int m, int n) {
    memset(out, 0, (size_t)m * n * sizeof *out);
    for (int r = 0; r < rows; r++) {
        const float *arow = a + (size_t)r * m, *brow = b + (size_t)r * n;
        for (int i = 0; i < m; i++) {
            const float ai = arow[i];
            float *o = out + (size_t)i * n;
            for (int j = 0; j < n; j++) o[j] += ai * brow[j];
        }
    }
}

/* out (rows×n) (+)= a (rows×m) · bᵀ, with b n×m (back through a weight). */
static MHA_NOINLINE void mm_nt(float *restrict out, const float *restrict a, const float *restrict b, int rows, int m, int n, int accumulate) {
    for (int i = 0; i < rows; i++) {
        const float *arow = a + (size_t)i * m;
        float *o = out + (size_t)i * n;
        for (int j = 0; j < n; j++) {
            const float *brow = b + (size_t)j * m;
            float dot = 0.0f;
            for (int kk = 0; kk < m; kk++) dot += arow[kk] * brow[kk];
            o[j] = accumulate ? o[j] + dot : dot;
        }
    }
}

static float *param(mha_trainer *tr, mha_train_param id) { return tr->params + tr->offset[id]; }
static float *grad(mha_trainer *tr, mha_train_param id) { return tr->grads + tr->offset[id]; }

/* ---- forward ---- */

typedef struct stats {
    double loss[MHA_TRAIN_TARGETS];
    long correct[MHA_TRAIN_TARGETS];
    long count; /* predictions per target */
} stats;

/* Head i of sequence s as the core's attention reads it: its columns of q (at
   s·L·d + i·d_k) and its K/V group's columns of k and v (at s·L·kvd + group·d_k,
   rows kvd apart). */
static mha_head_view head_at(const mha_trainer *tr, int s, int i) {
    const size_t column = (size_t)s * tr->L * tr->d + (size_t)i * tr->dk;
    const size_t kv_column = (size_t)s * tr->L * tr->kvd + (size_t)(i * tr->h_kv / tr->h) * tr->dk;
    return (mha_head_view){.q = tr->q + column, .k = tr->k + kv_column, .v = tr->v + kv_column, .stride = tr->d,
                           .kv_stride = tr->kvd, .len = tr->L, .dk = tr->dk, .scale = tr->scale, .causal = tr->causal};
}

static int target_of(const int *seq, int r, int target) { return target == 0 ? seq[r > 0 ? r - 1 : 0] : seq[0]; }

/* Embeddings → attention → read-out → cross-entropy for `count` sequences.
   Leaves every activation the backward needs, and dloss/dlogits in tr->logits
   for the loss averaged over count·L·2 predictions. */
static void forward(mha_trainer *tr, const int *tokens, int count, const unsigned char *enabled, stats *st, int *pred) {
    const int L = tr->L, d = tr->d, h = tr->h, dk = tr->dk, V = tr->V, n_out = tr->n_out, kvd = tr->kvd;
    const int N = count * L;
    mha_embed(tr->x, param(tr, MHA_TP_TOKEN), param(tr, MHA_TP_POSITION), tokens, L, count, L, 0, d);
    mha_matmul_plain(tr->q, tr->x, param(tr, MHA_TP_WQ), N, d, d);
    mha_matmul_plain(tr->k, tr->x, param(tr, MHA_TP_WK), N, d, kvd);
    mha_matmul_plain(tr->v, tr->x, param(tr, MHA_TP_WV), N, d, kvd);

    /* Every sequence's heads, with the plain loops, into their columns of the concat: one sequence a
       call, since q's rows and k's and v's (kvd wide) start at other places of their sequences. */
    for (int s = 0; s < count; s++) {
        const mha_heads heads = {
            .q = tr->q + (size_t)s * L * d, .k = tr->k + (size_t)s * L * kvd, .v = tr->v + (size_t)s * L * kvd,
            .stride = d, .kv_heads = tr->h_kv, .kv_stride = kvd, .heads = h, .dk = dk, .len = L, .scale = tr->scale,
            .causal = tr->causal, .att = tr->att + (size_t)s * h * L * L, .concat = tr->concat + (size_t)s * L * d,
            .enabled = enabled, .plain = 1,
        };
        if (mha_attend_heads(&heads, 1, 0, tr->scratch, 0) >= 0)
            st->loss[0] = NAN; /* scores overflowed: the step reports NOT_FINITE */
    }
    mha_matmul_plain(tr->y, tr->concat, param(tr, MHA_TP_WO), N, d, d);
    mha_matmul_plain(tr->logits, tr->y, param(tr, MHA_TP_READOUT), N, d, n_out);

    const float *b = param(tr, MHA_TP_BIAS);
    const float norm = 1.0f / (float)((double)N * MHA_TRAIN_TARGETS);
    for (int s = 0; s < count; s++) {
        const int *seq = tokens + (size_t)s * L;
        for (int r = 0; r < L; r++) {
            float *z = tr->logits + ((size_t)s * L + r) * n_out;
            for (int t = 0; t < MHA_TRAIN_TARGETS; t++) {
                float *zt = z + (size_t)t * V;
                const float *bt = b + (size_t)t * V;
                const int want = target_of(seq, r, t);
                for (int c = 0; c < V; c++) zt[c] += bt[c];
                int best;
                st->loss[t] += mha_softmax_cross_entropy(zt, V, want, norm, &best);
                st->correct[t] += best == want;
                if (pred) pred[((size_t)s * L + r) * MHA_TRAIN_TARGETS + t] = best;
            }
        }
    }
    st->count += N;
}

/* ---- backward: gradients of the mean loss into tr->grads ---- */

static void backward(mha_trainer *tr, const int *tokens, int count, const unsigned char *enabled) {
    const int L = tr->L, d = tr->d, h = tr->h, n_out = tr->n_out, kvd = tr->kvd;
    const int N = count * L;
    const float *dz = tr->logits;

    mm_tn(grad(tr, MHA_TP_READOUT), tr->y, dz, N, d, n_out);
    float *db = grad(tr, MHA_TP_BIAS);
    memset(db, 0, (size_t)n_out * sizeof *db);
    for (int r = 0; r < N; r++)
        for (int c = 0; c < n_out; c++) db[c] += dz[(size_t)r * n_out + c];
    mm_nt(tr->dy, dz, param(tr, MHA_TP_READOUT), N, n_out, d, 0);

    mm_tn(grad(tr, MHA_TP_WO), tr->concat, tr->dy, N, d, d);
    mm_nt(tr->dconcat, tr->dy, param(tr, MHA_TP_WO), N, d, d, 0);

    memset(tr->dq, 0, (size_t)N * d * sizeof(float));
    memset(tr->dkey, 0, (size_t)N * kvd * sizeof(float));
    memset(tr->dv, 0, (size_t)N * kvd * sizeof(float));
    /* A shared K/V group's gradient is the sum over the query heads that read it: each adds its part in turn. */
    for (int s = 0; s < count; s++)
        for (int i = 0; i < h; i++) {
            if (enabled && !enabled[i]) continue; /* a head switched off passes no gradient */
            const mha_head_view head = head_at(tr, s, i);
            const size_t q_at = (size_t)(head.q - tr->q), kv_at = (size_t)(head.k - tr->k);
            mha_attend_backward(&head, tr->att + ((size_t)s * h + i) * L * L, tr->dconcat + q_at, d, tr->dq + q_at,
                                tr->dkey + kv_at, tr->dv + kv_at, d, kvd, tr->scratch);
        }
    mm_tn(grad(tr, MHA_TP_WQ), tr->x, tr->dq, N, d, d);
    mm_tn(grad(tr, MHA_TP_WK), tr->x, tr->dkey, N, d, kvd);
    mm_tn(grad(tr, MHA_TP_WV), tr->x, tr->dv, N, d, kvd);
    mm_nt(tr->dx, tr->dq, param(tr, MHA_TP_WQ), N, d, d, 0);
    mm_nt(tr->dx, tr->dkey, param(tr, MHA_TP_WK), N, kvd, d, 1);
    mm_nt(tr->dx, tr->dv, param(tr, MHA_TP_WV), N, kvd, d, 1);

    float *dE = grad(tr, MHA_TP_TOKEN), *dP = grad(tr, MHA_TP_POSITION);
    memset(dE, 0, tr->size[MHA_TP_TOKEN] * sizeof *dE);
    memset(dP, 0, tr->size[MHA_TP_POSITION] * sizeof *dP);
    mha_embed_backward(dE, dP, tr->dx, tokens, L, count, L, d);
}

static double mean_loss(const stats *st) {
    return (st->loss[0] + st->loss[1]) / ((double)st->count * MHA_TRAIN_TARGETS);
}

/* ---- create, reset ---- */

static void fill_randn(np_random *rng, float *out, size_t n, double scale) {
    for (size_t i = 0; i < n; i++) out[i] = (float)(np_random_gauss(rng) * scale);
}

static void draw_tokens(np_random *rng, int *out, size_t n, int vocab) {
    for (size_t i = 0; i < n; i++) {
        int t = (int)(np_random_double(rng) * vocab);
        out[i] = t < vocab ? t : vocab - 1;
    }
}

/* W_k or W_v of shared K/V heads: the d×d draws the multi-head model makes, of
   which group g keeps the columns of its first query head, g·h/h_kv. `full`
   holds d×d floats (the gradients, zeroed after). */
static void fill_shared(mha_trainer *tr, float *w, float *full, double scale) {
    const int d = tr->d, dk = tr->dk, kvd = tr->kvd;
    fill_randn(&tr->rng, full, (size_t)d * d, scale);
    for (int r = 0; r < d; r++)
        for (int g = 0; g < tr->h_kv; g++)
            memcpy(w + (size_t)r * kvd + (size_t)g * dk, full + (size_t)r * d + (size_t)(g * tr->h / tr->h_kv) * dk,
                   (size_t)dk * sizeof *w);
}

/* Everything a seed decides, in a fixed order: E, P, W_q, W_k, W_v, W^O, U
   (b = 0), the evaluation set, the example, then the training batches. Shared
   K/V heads draw what the multi-head model draws (fill_shared), so one seed
   gives MHA, GQA and MQA the same data and the same other weights. */
static void initialise(mha_trainer *tr) {
    np_random_seed(&tr->rng, tr->desc.seed);
    const double init = tr->desc.init_scale, mat = 1.0 / sqrt((double)tr->d);
    for (int id = 0; id < MHA_TP_COUNT; id++) {
        const double scale = id <= MHA_TP_POSITION ? init : mat;
        if (id == MHA_TP_BIAS) memset(param(tr, id), 0, tr->size[id] * sizeof(float));
        else if ((id == MHA_TP_WK || id == MHA_TP_WV) && tr->kvd < tr->d) fill_shared(tr, param(tr, id), tr->grads, scale);
        else fill_randn(&tr->rng, param(tr, id), tr->size[id], scale);
    }
    memset(tr->grads, 0, tr->n_params * sizeof(float));
    memset(tr->adam_m, 0, tr->n_params * sizeof(float));
    memset(tr->adam_v, 0, tr->n_params * sizeof(float));
    draw_tokens(&tr->rng, tr->eval_tokens, (size_t)tr->n_eval * tr->L, tr->V);
    int drawn[MHA_TRAIN_MAX_LEN];
    draw_tokens(&tr->rng, drawn, (size_t)tr->L, tr->V);
    if (!tr->custom_example) memcpy(tr->example, drawn, (size_t)tr->L * sizeof(int));
    tr->steps = 0;
    tr->last_loss = NAN;
    tr->beta1_t = tr->beta2_t = 1.0;
}

mha_status mha_trainer_create(const mha_train_desc *desc, mha_trainer **out) {
    if (!desc || !out) return mha_fail(MHA_ERR_NULL_ARGUMENT, "mha_trainer_create needs a desc and an output pointer");
    *out = NULL;
    mha_status status = check_desc(desc);
    if (status != MHA_OK) return status;

    const double V = desc->vocab, L = desc->seq_len, d = desc->d_model, h = desc->heads, B = desc->batch;
    const double n_params = param_count(desc), kvd = kv_width(desc);
    const double N = B * L;
    const double floats = 5 * n_params      /* params, grads, Adam m and v, backup */
                        + L * d             /* example_x */
                        + 8 * N * d         /* x q concat y dy dconcat dq dx */
                        + 4 * N * kvd       /* k v dk dv */
                        + B * h * L * L     /* attention */
                        + N * 2 * V         /* logits */
                        + L * d / h;        /* scratch */
    const double ints = B * L + (double)desc->eval_count * L + L;
    const double bytes = floats * sizeof(float) + ints * sizeof(int) + sizeof(mha_trainer);
    if (bytes > MHA_TRAIN_MAX_BYTES)
        return mha_fail(MHA_ERR_TOO_LARGE, "this trainer would need %.0f MB, more than the %.0f MB a trainer may use",
                    bytes / 1e6, MHA_TRAIN_MAX_BYTES / 1e6);
    /* Every call must fit MHA_TRAIN_MAX_CALL_COST: one step, and evaluate, which cannot be split. */
    const double cap = MHA_TRAIN_MAX_CALL_COST, per_sequence = sequence_cost(desc);
    const double max_batch = floor((cap - 30 * n_params - CALL_COST) / (3 * per_sequence));
    const double max_eval = floor((cap - CALL_COST) / per_sequence);
    if (max_batch < 1 || max_eval < 1)
        return mha_fail(MHA_ERR_TOO_LARGE,
                        "one sequence of seqLen %d, dModel %d and vocab %d is about %.1f G operations to train on, more than "
                        "the %.1f G one call may do; make them smaller",
                        desc->seq_len, desc->d_model, desc->vocab, (step_cost(desc) - 3 * (B - 1) * per_sequence) / 1e9, cap / 1e9);
    if (B > max_batch)
        return mha_fail(MHA_ERR_TOO_LARGE,
                        "one step of batch %d is about %.1f G operations at this size, more than the %.1f G one call may do "
                        "(batch at most %.0f)", desc->batch, step_cost(desc) / 1e9, cap / 1e9, max_batch);
    if (desc->eval_count > max_eval)
        return mha_fail(MHA_ERR_TOO_LARGE,
                        "evaluating evalCount %d sequences is about %.1f G operations at this size, more than the %.1f G one "
                        "call may do (evalCount at most %.0f)", desc->eval_count, evaluate_cost(desc) / 1e9, cap / 1e9, max_eval);

    mha_trainer *tr = calloc(1, sizeof *tr);
    void *block = tr ? malloc((size_t)floats * sizeof(float) + (size_t)ints * sizeof(int)) : NULL;
    if (!block) {
        free(tr);
        return mha_fail(MHA_ERR_OUT_OF_MEMORY, "not enough memory for a trainer (%.0f MB)", bytes / 1e6);
    }
    tr->desc = *desc;
    tr->V = desc->vocab;
    tr->L = desc->seq_len;
    tr->d = desc->d_model;
    tr->h = desc->heads;
    tr->dk = desc->d_model / desc->heads;
    tr->h_kv = desc->kv_heads ? desc->kv_heads : desc->heads;
    tr->kvd = kv_width(desc);
    tr->B = desc->batch;
    tr->n_eval = desc->eval_count;
    tr->n_out = 2 * desc->vocab;
    tr->causal = (desc->flags & MHA_CAUSAL) != 0;
    tr->scale = (desc->flags & MHA_SCALE) ? (float)(1.0 / sqrt((double)tr->dk)) : 1.0f;
    tr->block = block;

    const size_t sizes[MHA_TP_COUNT] = {
        (size_t)tr->V * tr->d, (size_t)tr->L * tr->d, (size_t)tr->d * tr->d, (size_t)tr->d * tr->kvd,
        (size_t)tr->d * tr->kvd, (size_t)tr->d * tr->d, (size_t)tr->d * tr->n_out, (size_t)tr->n_out,
    };
    for (int id = 0; id < MHA_TP_COUNT; id++) {
        tr->offset[id] = tr->n_params;
        tr->size[id] = sizes[id];
        tr->n_params += sizes[id];
    }
    const size_t np = tr->n_params, rows = (size_t)tr->B * tr->L;
    float *p = block;
    tr->params = p;  p += np;
    tr->grads = p;   p += np;
    tr->adam_m = p;  p += np;
    tr->adam_v = p;  p += np;
    tr->backup = p;  p += np;
    tr->example_x = p; p += (size_t)tr->L * tr->d;
    float **acts[] = {&tr->x, &tr->q, &tr->k, &tr->v, &tr->concat, &tr->y,
                      &tr->dy, &tr->dconcat, &tr->dq, &tr->dkey, &tr->dv, &tr->dx};
    for (size_t i = 0; i < sizeof acts / sizeof *acts; i++) {
        *acts[i] = p;
        p += rows * (acts[i] == &tr->k || acts[i] == &tr->v || acts[i] == &tr->dkey || acts[i] == &tr->dv ? tr->kvd : tr->d);
    }
    tr->att = p;     p += (size_t)tr->B * tr->h * tr->L * tr->L;
    tr->logits = p;  p += (size_t)tr->B * tr->L * tr->n_out;
    tr->scratch = p; p += (size_t)tr->L * tr->dk;
    int *ip = (int *)p;
    tr->batch_tokens = ip; ip += (size_t)tr->B * tr->L;
    tr->eval_tokens = ip;  ip += (size_t)tr->n_eval * tr->L;
    tr->example = ip;

    mha_desc layer_desc = {.d_model = tr->d, .heads = tr->h, .max_len = tr->L, .kv_heads = tr->h_kv};
    status = mha_layer_create(&layer_desc, &tr->layer);
    if (status != MHA_OK) {
        mha_trainer_destroy(tr);
        return status;
    }
    initialise(tr);
    *out = tr;
    return MHA_OK;
}

void mha_trainer_destroy(mha_trainer *tr) {
    if (!tr) return;
    mha_layer_destroy(tr->layer);
    free(tr->block);
    free(tr);
}

void mha_trainer_reset(mha_trainer *tr) {
    if (tr) initialise(tr);
}

/* ---- training ---- */

static void adam(mha_trainer *tr) {
    const float b1 = tr->desc.beta1, b2 = tr->desc.beta2, eps = tr->desc.eps;
    tr->beta1_t *= b1;
    tr->beta2_t *= b2;
    /* lr_t = lr · sqrt(1 - beta2^t) / (1 - beta1^t), the usual folded bias correction */
    const float lr_t = (float)(tr->desc.lr * sqrt(1.0 - tr->beta2_t) / (1.0 - tr->beta1_t));
    const float eps_t = (float)(eps * sqrt(1.0 - tr->beta2_t));
    const mha_adamw step = {.lr = lr_t, .beta1 = b1, .beta2 = b2, .eps = eps_t,
                            .correct1 = 1.0f, .correct2 = 1.0f, .grad_scale = 1.0f, .shrink = 1.0f};
    mha_adamw_step(&step, tr->params, tr->adam_m, tr->adam_v, tr->grads, tr->n_params);
}

double mha_trainer_step_cost(const mha_trainer *tr) {
    return tr ? step_cost(&tr->desc) : 0;
}

double mha_trainer_evaluate_cost(const mha_trainer *tr) {
    return tr ? evaluate_cost(&tr->desc) : 0;
}

mha_status mha_trainer_step(mha_trainer *tr, int n, float *last_loss) {
    if (!tr) return mha_fail(MHA_ERR_NULL_ARGUMENT, "mha_trainer_step needs a trainer");
    if (n < 0) return mha_fail(MHA_ERR_BAD_SIZE, "the number of steps must be 0 or more, got %d", n);
    const double per_step = step_cost(&tr->desc);
    if (n * per_step > MHA_TRAIN_MAX_CALL_COST)
        return mha_fail(MHA_ERR_TOO_LARGE,
                        "%d steps of this trainer are about %.1f G operations, more than the %.1f G one call may do "
                        "(at most %.0f steps); call step again for more",
                        n, n * per_step / 1e9, MHA_TRAIN_MAX_CALL_COST / 1e9, floor(MHA_TRAIN_MAX_CALL_COST / per_step));
    for (int i = 0; i < n; i++) {
        draw_tokens(&tr->rng, tr->batch_tokens, (size_t)tr->B * tr->L, tr->V);
        stats st = {0};
        forward(tr, tr->batch_tokens, tr->B, NULL, &st, NULL);
        const double loss = mean_loss(&st);
        if (!isfinite(loss))
            return mha_fail(MHA_ERR_NOT_FINITE, "training diverged at step %ld (the loss is %s); try a smaller lr than %g",
                        tr->steps + 1, isnan(loss) ? "NaN" : "infinite", tr->desc.lr);
        backward(tr, tr->batch_tokens, tr->B, NULL);
        memcpy(tr->backup, tr->params, tr->n_params * sizeof(float));
        adam(tr);
        for (size_t j = 0; j < tr->n_params; j++) {
            if (!isfinite(tr->params[j])) { /* undo the step that broke the weights */
                memcpy(tr->params, tr->backup, tr->n_params * sizeof(float));
                return mha_fail(MHA_ERR_NOT_FINITE, "training diverged at step %ld (a weight became infinite); try a smaller lr than %g",
                            tr->steps + 1, tr->desc.lr);
            }
        }
        tr->steps++;
        tr->last_loss = (float)loss;
    }
    if (last_loss) *last_loss = tr->last_loss;
    return MHA_OK;
}

long mha_trainer_steps(const mha_trainer *tr) { return tr ? tr->steps : 0; }
float mha_trainer_loss(const mha_trainer *tr) { return tr ? tr->last_loss : NAN; }

mha_status mha_trainer_evaluate(mha_trainer *tr, const unsigned char *enabled, mha_train_eval *out) {
    if (!tr || !out) return mha_fail(MHA_ERR_NULL_ARGUMENT, "mha_trainer_evaluate needs a trainer and an output");
    stats st = {0};
    for (int s = 0; s < tr->n_eval; s += tr->B) {
        const int count = tr->n_eval - s < tr->B ? tr->n_eval - s : tr->B;
        forward(tr, tr->eval_tokens + (size_t)s * tr->L, count, enabled, &st, NULL);
    }
    out->loss = mean_loss(&st);
    out->accuracy = (double)(st.correct[0] + st.correct[1]) / ((double)st.count * MHA_TRAIN_TARGETS);
    for (int t = 0; t < MHA_TRAIN_TARGETS; t++) {
        out->target_loss[t] = st.loss[t] / (double)st.count;
        out->target_accuracy[t] = (double)st.correct[t] / (double)st.count;
    }
    return MHA_OK;
}

static mha_status check_tokens(const mha_trainer *tr, const int *tokens, int count) {
    for (int s = 0; s < count; s++)
        for (int r = 0; r < tr->L; r++) {
            const int t = tokens[s * tr->L + r];
            if (t < 0 || t >= tr->V)
                return mha_fail(MHA_ERR_BAD_INPUT, "token %d at position %d%s is outside the vocabulary 0 to %d", t, r,
                            count > 1 ? " of a sequence" : "", tr->V - 1);
        }
    return MHA_OK;
}

mha_status mha_trainer_loss_grad(mha_trainer *tr, const int *tokens, int count, const unsigned char *enabled, double *loss) {
    if (!tr || !tokens) return mha_fail(MHA_ERR_NULL_ARGUMENT, "mha_trainer_loss_grad needs a trainer and tokens");
    if (count < 1 || count > tr->B)
        return mha_fail(MHA_ERR_BAD_SIZE, "count must be from 1 to the batch size %d, got %d", tr->B, count);
    mha_status status = check_tokens(tr, tokens, count);
    if (status != MHA_OK) return status;
    stats st = {0};
    forward(tr, tokens, count, enabled, &st, NULL);
    backward(tr, tokens, count, enabled);
    if (loss) *loss = mean_loss(&st);
    return MHA_OK;
}

mha_status mha_trainer_param(mha_trainer *tr, mha_train_param id, float **values, const float **grad_out, int *rows, int *cols) {
    if (!tr) return mha_fail(MHA_ERR_NULL_ARGUMENT, "mha_trainer_param needs a trainer");
    if ((unsigned)id >= MHA_TP_COUNT)
        return mha_fail(MHA_ERR_BAD_INPUT, "parameter block %d does not exist (0 to %d)", (int)id, MHA_TP_COUNT - 1);
    const int r[MHA_TP_COUNT] = {tr->V, tr->L, tr->d, tr->d, tr->d, tr->d, tr->d, 1};
    if (values) *values = param(tr, id);
    if (grad_out) *grad_out = grad(tr, id);
    if (rows) *rows = r[id];
    if (cols) *cols = (int)(tr->size[id] / (size_t)r[id]);
    return MHA_OK;
}

mha_status mha_trainer_set_example(mha_trainer *tr, const int *tokens) {
    if (!tr || !tokens) return mha_fail(MHA_ERR_NULL_ARGUMENT, "mha_trainer_set_example needs a trainer and tokens");
    mha_status status = check_tokens(tr, tokens, 1);
    if (status != MHA_OK) return status;
    memcpy(tr->example, tokens, (size_t)tr->L * sizeof(int));
    tr->custom_example = 1;
    return MHA_OK;
}

const int *mha_trainer_example(const mha_trainer *tr) { return tr ? tr->example : NULL; }

mha_status mha_trainer_example_layer(mha_trainer *tr, const unsigned char *enabled, mha_layer **layer) {
    if (!tr || !layer) return mha_fail(MHA_ERR_NULL_ARGUMENT, "mha_trainer_example_layer needs a trainer and an output pointer");
    *layer = NULL;
    const int L = tr->L;
    mha_embed(tr->example_x, param(tr, MHA_TP_TOKEN), param(tr, MHA_TP_POSITION), tr->example, L, 1, L, 0, tr->d);
    mha_input in = {
        .len = L, .x = tr->example_x,
        .wq = param(tr, MHA_TP_WQ), .wk = param(tr, MHA_TP_WK), .wv = param(tr, MHA_TP_WV), .wo = param(tr, MHA_TP_WO),
        .flags = tr->desc.flags, .enabled = enabled,
    };
    mha_status status = mha_forward(tr->layer, &in);
    if (status != MHA_OK) return status;
    *layer = tr->layer;
    return MHA_OK;
}

mha_status mha_trainer_example_predict(mha_trainer *tr, const unsigned char *enabled, int *out) {
    if (!tr || !out) return mha_fail(MHA_ERR_NULL_ARGUMENT, "mha_trainer_example_predict needs a trainer and an output");
    stats st = {0};
    forward(tr, tr->example, 1, enabled, &st, out);
    return MHA_OK;
}

int mha_trainer_param_count(const mha_trainer *tr) { return tr ? (int)tr->n_params : 0; }
const mha_train_desc *mha_trainer_desc(const mha_trainer *tr) { return tr ? &tr->desc : NULL; }
