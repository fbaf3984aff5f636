/* gpt_train.c — training the GPT-2 model of gpt.h: next-token cross-entropy,
   the backward pass of every block and AdamW. The forward pass is gpt_forward.c's
   (gpt_run, keeping every block's activations); the matrix products of both
   directions run the core's SIMD kernels (mha_matmul_fast). The pieces it
   shares with train.c (embeddings, attention backward, cross-entropy, the
   AdamW update) are backprop.c's. */
#include "backprop.h"
#include "gpt_internal.h"
#include "mha_internal.h"
#include "pool.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct gpt_trainer {
    gpt_model *model;
    gpt_train_desc desc;
    gpt_work work;            /* batch × (seq_len-1) positions, every block kept */
    float *grads, *adam_m, *adam_v; /* param_count each */
    float *dx;                /* N×d: d loss / d the residual stream, walking back */
    float *dbranch;           /* N×d: dx through a dropout mask: d loss / d a block's attention or MLP output */
    float *dnorm;             /* N×d: d loss / d a LayerNorm's output, or / d concat */
    float *dqkv;              /* N×3d */
    float *dwide;             /* N×4d: d loss / d the MLP's activation, then its pre-activation */
    float *transposed;        /* 4d×N: an activation transposed, for a weight's gradient */
    float *dwte_t;            /* d×vocab: the read-out's part of wte's gradient, transposed */
    double *row_loss;         /* N: each position's cross-entropy, summed in order after */
    long steps;
    double grad_norm;
    double beta1_t, beta2_t;  /* beta^t for AdamW's bias correction */
    void *block;
};

gpt_train_desc gpt_train_default_desc(int batch, int seq_len) {
    return (gpt_train_desc){.batch = batch, .seq_len = seq_len, .beta1 = 0.9f, .beta2 = 0.95f, .eps = 1e-8f,
                            .weight_decay = 0.1f, .clip = 1.0f};
}

static mha_status check_desc(const gpt_model *m, const gpt_train_desc *desc) {
    if (desc->batch < 1 || desc->batch > 1 << 16)
        return mha_fail(MHA_ERR_BAD_SIZE, "batch must be a whole number from 1 to 65536, got %d", desc->batch);
    if (desc->seq_len < 2 || desc->seq_len > m->config.context + 1)
        return mha_fail(desc->seq_len < 2 ? MHA_ERR_BAD_SIZE : MHA_ERR_SEQ_TOO_LONG,
                        "seq_len must be from 2 to context + 1 = %d, got %d", m->config.context + 1, desc->seq_len);
    const mha_real_range reals[] = {
        {"beta1", desc->beta1, 0, 1, 0, 1}, {"beta2", desc->beta2, 0, 1, 0, 1}, {"eps", desc->eps, 0, 1, 1, 0},
        {"weight_decay", desc->weight_decay, 0, 1, 0, 0}, {"clip", desc->clip, 0, 1e30f, 0, 0},
        {"dropout", desc->dropout, 0, 1, 0, 1},
    };
    return mha_check_reals(reals, sizeof reals / sizeof *reals);
}

mha_status gpt_trainer_create(gpt_model *m, const gpt_train_desc *desc, gpt_trainer **out) {
    if (!m || !desc || !out) return mha_fail(MHA_ERR_NULL_ARGUMENT, "gpt_trainer_create needs a model, a desc and an output pointer");
    *out = NULL;
    gpt_model_unpack(m); /* its steps read and write the parameters row-major; nothing packs them again */
    mha_status status = check_desc(m, desc);
    if (status) return status;
    const gpt_config *c = &m->config;
    const int S = desc->batch, T = desc->seq_len - 1;
    const double N = (double)S * T, d = c->d_model;
    const double floats = 3.0 * m->param_count + N * (d + d + d + 3 * d + 4 * d) + 4 * d * N + d * c->vocab + 2 * N + 16 * 8;
    const double bytes = (floats + gpt_work_floats(c, S, T, 1)) * sizeof(float);
    if (bytes > GPT_MAX_MODEL_BYTES)
        return mha_fail(MHA_ERR_TOO_LARGE, "training this model on batch %d × %d tokens would need %.0f MB, more than the %.0f MB "
                        "allowed", S, desc->seq_len, bytes / 1e6, GPT_MAX_MODEL_BYTES / 1e6);
    gpt_trainer *tr = calloc(1, sizeof *tr);
    float *p = tr ? calloc((size_t)floats, sizeof(float)) : NULL; /* zeros: AdamW's moments start at 0 */
    if (!p) {
        free(tr);
        return mha_fail(MHA_ERR_OUT_OF_MEMORY, "not enough memory for a trainer (%.0f MB)", bytes / 1e6);
    }
    tr->block = p;
    if ((status = gpt_work_create(&tr->work, c, S, T, 1))) {
        gpt_trainer_destroy(tr);
        return status;
    }
    tr->model = m;
    tr->desc = *desc;
    tr->beta1_t = tr->beta2_t = 1.0;
    const size_t n = (size_t)N, dd = (size_t)d, np = m->param_count;
    float **bufs[] = {&tr->grads, &tr->adam_m, &tr->adam_v, &tr->dx, &tr->dbranch, &tr->dnorm, &tr->dqkv, &tr->dwide,
                      &tr->transposed, &tr->dwte_t};
    const size_t sizes[] = {np, np, np, n * dd, n * dd, n * dd, n * 3 * dd, n * 4 * dd, 4 * dd * n, dd * (size_t)c->vocab};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) {
        *bufs[i] = p;
        p += (sizes[i] + 7) & ~(size_t)7;
    }
    tr->row_loss = (double *)p; /* 32-byte aligned, like every buffer above */
    *out = tr;
    return MHA_OK;
}

void gpt_trainer_destroy(gpt_trainer *tr) {
    if (!tr) return;
    gpt_work_free(&tr->work);
    free(tr->block);
    free(tr);
}

const float *gpt_trainer_grads(const gpt_trainer *tr) { return tr ? tr->grads : NULL; }
long gpt_trainer_steps(const gpt_trainer *tr) { return tr ? tr->steps : 0; }
double gpt_trainer_grad_norm(const gpt_trainer *tr) { return tr ? tr->grad_norm : 0; }

mha_status gpt_trainer_moments(gpt_trainer *tr, float **m, float **v) {
    if (!tr || !m || !v) return mha_fail(MHA_ERR_NULL_ARGUMENT, "gpt_trainer_moments needs a trainer and two output pointers");
    *m = tr->adam_m;
    *v = tr->adam_v;
    return MHA_OK;
}

mha_status gpt_trainer_set_steps(gpt_trainer *tr, long steps) {
    if (!tr) return mha_fail(MHA_ERR_NULL_ARGUMENT, "gpt_trainer_set_steps needs a trainer");
    if (steps < 0) return mha_fail(MHA_ERR_BAD_INPUT, "steps must be >= 0, got %ld", steps);
    tr->steps = steps;
    tr->beta1_t = tr->beta2_t = 1.0;
    for (long i = 0; i < steps; i++) { /* the products gpt_train_step forms, in its order: the same doubles */
        tr->beta1_t *= tr->desc.beta1;
        tr->beta2_t *= tr->desc.beta2;
    }
    tr->model->reusable = 0;
    return MHA_OK;
}

/* ---- dropout ---- */

/* dst = base + src masked (base NULL: src masked) over the last run's rows, for the site's mask at this step:
   a value kept is scaled by 1/(1 - dropout), so that its expectation is the value. dst may be src. */
static void drop_into(const gpt_trainer *tr, float *dst, const float *src, const float *base, int site) {
    const size_t n = (size_t)tr->work.S * tr->work.T * tr->model->config.d_model;
    const uint64_t key = gpt_dropout_key(tr->desc.dropout_seed, tr->steps, site);
    const uint32_t dropped = gpt_dropout_threshold(tr->desc.dropout);
    const float scale = 1.0f / (1.0f - tr->desc.dropout);
    for (size_t i = 0; i < n; i++) {
        const float value = gpt_dropout_kept(key, i, dropped) ? src[i] * scale : 0.0f;
        dst[i] = base ? base[i] + value : value;
    }
}

/* gpt_work's drop, as a training step's forward calls it. */
static void drop_forward(const void *trainer, float *x, const float *base, int site) {
    drop_into(trainer, x, x, base, site);
}

/* ---- small pieces of the backward pass ---- */

/* dst (cols×rows) = srcᵀ for src rows×cols. */
static void transpose(float *restrict dst, const float *restrict src, int rows, int cols) {
    for (int r0 = 0; r0 < rows; r0 += 32) /* 32×32 tiles keep both sides in cache */
        for (int c0 = 0; c0 < cols; c0 += 32)
            for (int r = r0; r < r0 + 32 && r < rows; r++)
                for (int c = c0; c < c0 + 32 && c < cols; c++) dst[(size_t)c * rows + r] = src[(size_t)r * cols + c];
}

/* dw (k×n) += inᵀ · dout and db (n) += the column sums of dout, for in N×k, dout N×n. */
static void weight_grad(gpt_trainer *tr, float *dw, float *db, const float *in, const float *dout, int N, int k, int n) {
    transpose(tr->transposed, in, N, k);
    mha_matmul_fast(dw, n, tr->transposed, N, dout, n, 0, k, N, n, 1, tr->work.scratch);
    for (int r = 0; r < N; r++) {
        const float *row = dout + (size_t)r * n;
        for (int j = 0; j < n; j++) db[j] += row[j];
    }
}

/* dx (+)= the gradient through y = LN(x)·g + b given dy (N×d); dg and db accumulate. */
static void layer_norm_backward(float *dx, float *dg, float *db, const float *dy, const float *x, const float *stat,
                                const float *g, int N, int d, int accumulate) {
    for (int r = 0; r < N; r++) {
        const float *dyr = dy + (size_t)r * d, *xr = x + (size_t)r * d;
        float *dxr = dx + (size_t)r * d;
        const float mean = stat[2 * r], rstd = stat[2 * r + 1];
        float sum = 0.0f, sum_xhat = 0.0f; /* Σ dŷ and Σ dŷ·x̂, dŷ = dy·g */
        for (int j = 0; j < d; j++) {
            const float xhat = (xr[j] - mean) * rstd, dxhat = dyr[j] * g[j];
            sum += dxhat;
            sum_xhat += dxhat * xhat;
            dg[j] += dyr[j] * xhat;
            db[j] += dyr[j];
        }
        const float mean_dxhat = sum / (float)d, mean_dxhat_xhat = sum_xhat / (float)d;
        for (int j = 0; j < d; j++) {
            const float xhat = (xr[j] - mean) * rstd;
            const float v = rstd * (dyr[j] * g[j] - mean_dxhat - xhat * mean_dxhat_xhat);
            dxr[j] = accumulate ? dxr[j] + v : v;
        }
    }
}

/* Block l's attention, backward: from d concat (tr->dnorm) to d q|k|v (tr->dqkv), one sequence and head a
   part: they write disjoint columns of dqkv. */
typedef struct attention_task {
    gpt_trainer *tr;
    int l;
} attention_task;

static void attention_backward_part(void *task, int part, int parts, float *ds) { /* ds: the scratch, T floats */
    (void)parts;
    const attention_task *t = task;
    gpt_trainer *tr = t->tr;
    const gpt_work *w = &tr->work;
    const gpt_config *c = &tr->model->config;
    const int d = c->d_model, h = c->heads, dk = d / h, S = w->S, T = w->T, s = part / h, i = part % h;
    const size_t base = (size_t)s * T * 3 * d + (size_t)i * dk; /* the head's first column of q|k|v */
    const float *qkv = w->qkv + (size_t)t->l * w->rows * 3 * d + base;
    float *dqkv = tr->dqkv + base;
    const mha_head_view head = {.q = qkv, .k = qkv + d, .v = qkv + 2 * d, .stride = 3 * d, .len = T, .dk = dk,
                                .scale = (float)(1.0 / sqrt((double)dk)), .causal = 1};
    const float *att = w->att + (((size_t)t->l * S + s) * h + i) * T * T, *dout = tr->dnorm + (size_t)s * T * d + (size_t)i * dk;
    mha_attend_backward(&head, att, dout, d, dqkv, dqkv + d, dqkv + 2 * d, 3 * d, 0, ds);
}

static void attention_backward(gpt_trainer *tr, int l) {
    const gpt_work *w = &tr->work;
    const int d = tr->model->config.d_model, h = tr->model->config.heads, S = w->S, T = w->T;
    memset(tr->dqkv, 0, (size_t)S * T * 3 * d * sizeof(float));
    attention_task task = {tr, l};
    mha_pool_run(attention_backward_part, &task, S * h, mha_pool_worth(2.0 * S * T * T * d), w->scratch, T);
}

/* ---- loss, backward, AdamW ---- */

/* The cross-entropy of positions [from, to) of the last run, into row_loss. */
typedef struct entropy_task {
    gpt_trainer *tr;
    const int *tokens;
    int len;
} entropy_task;

static void entropy_part(void *task, int part, int parts, float *scratch) {
    (void)scratch;
    const entropy_task *t = task;
    const gpt_work *w = &t->tr->work;
    const int V = t->tr->model->config.vocab, T = w->T, N = w->S * T;
    const float inv_n = 1.0f / (float)N;
    for (int row = (int)((long long)N * part / parts), end = (int)((long long)N * (part + 1) / parts); row < end; row++) {
        const int want = t->tokens[(size_t)(row / T) * t->len + row % T + 1];
        t->tr->row_loss[row] = mha_softmax_cross_entropy(w->logits + (size_t)row * V, V, want, inv_n, NULL);
    }
}

/* Mean cross-entropy of the next token at every position of the last run;
   the logits become d loss / d logits. Positions are shared by the threads;
   their losses are summed in order, so any thread count gives the same total. */
static double cross_entropy(gpt_trainer *tr, const int *tokens, int len) {
    const gpt_work *w = &tr->work;
    const int N = w->S * w->T, V = tr->model->config.vocab;
    entropy_task task = {tr, tokens, len};
    const int spread = mha_pool_worth(4.0 * N * V), parts = spread ? 2 * mha_threads() : 1; /* an exp: about 4 multiply-adds */
    mha_pool_run(entropy_part, &task, parts < N ? parts : N, spread, w->scratch, 0);
    double total = 0.0;
    for (int row = 0; row < N; row++) total += tr->row_loss[row];
    return total / N;
}

static void backward(gpt_trainer *tr, const int *tokens, int len) {
    const gpt_model *m = tr->model;
    const gpt_work *w = &tr->work;
    const gpt_config *c = &m->config;
    const int d = c->d_model, V = c->vocab, S = w->S, T = w->T, N = S * T;
    const size_t rows = w->rows;
    float *scratch = w->scratch, *grads = tr->grads;
    const int drop = w->drop != NULL;
#define GRAD(tensor) (grads + m->tensors[tensor].offset)
    memset(grads, 0, m->param_count * sizeof *grads);

    /* read-out: logits = lnf · wteᵀ */
    const float *wte = gpt_param(m, GPT_T_WTE);
    mha_matmul_fast(tr->dnorm, d, w->logits, V, wte, d, 0, N, V, d, 0, scratch); /* d lnf = d logits · wte */
    transpose(tr->transposed, w->lnf, N, d);
    mha_matmul_fast(tr->dwte_t, V, tr->transposed, N, w->logits, V, 0, d, N, V, 0, scratch); /* lnfᵀ · d logits */
    float *dwte = GRAD(GPT_T_WTE);
    for (int v = 0; v < V; v++)
        for (int j = 0; j < d; j++) dwte[(size_t)v * d + j] = tr->dwte_t[(size_t)j * V + v];
    const int lnf = gpt_block_tensor(c->layers, 0);
    layer_norm_backward(tr->dx, GRAD(lnf), GRAD(lnf + 1), tr->dnorm, gpt_slice(w, w->res, 2 * c->layers, rows * d),
                        w->lnf_stat, gpt_param(m, lnf), N, d, 0);

    for (int l = c->layers - 1; l >= 0; l--) {
        const float *p[GPT_B_COUNT];
        float *g[GPT_B_COUNT];
        for (int b = 0; b < GPT_B_COUNT; b++) p[b] = gpt_param(m, gpt_block_tensor(l, b)), g[b] = GRAD(gpt_block_tensor(l, b));
        const float *in = gpt_slice(w, w->res, 2 * l, rows * d), *mid = gpt_slice(w, w->res, 2 * l + 1, rows * d);
        const float *ln1 = gpt_slice(w, w->ln1, l, rows * d), *ln2 = gpt_slice(w, w->ln2, l, rows * d);
        const float *concat = gpt_slice(w, w->concat, l, rows * d);
        const float *fc = gpt_slice(w, w->fc, l, rows * 4 * d), *act = gpt_slice(w, w->act, l, rows * 4 * d);

        /* MLP: out = mid + act · W_out + b_out, act = GELU(ln2 · W_fc + b_fc) (that branch dropped out, in training) */
        const float *dmlp = drop ? tr->dbranch : tr->dx;
        if (drop) drop_into(tr, tr->dbranch, tr->dx, NULL, 2 + 2 * l);
        mha_matmul_fast(tr->dwide, 4 * d, dmlp, d, p[GPT_B_OUT_W], d, 1, N, d, 4 * d, 0, scratch);
        weight_grad(tr, g[GPT_B_OUT_W], g[GPT_B_OUT_B], act, dmlp, N, 4 * d, d);
        mha_gelu_backward_fast(tr->dwide, fc, (size_t)N * 4 * d);
        weight_grad(tr, g[GPT_B_FC_W], g[GPT_B_FC_B], ln2, tr->dwide, N, d, 4 * d);
        mha_matmul_fast(tr->dnorm, d, tr->dwide, 4 * d, p[GPT_B_FC_W], 4 * d, 1, N, 4 * d, d, 0, scratch);
        layer_norm_backward(tr->dx, g[GPT_B_LN2_W], g[GPT_B_LN2_B], tr->dnorm, mid, gpt_slice(w, w->ln2_stat, l, rows * 2),
                            p[GPT_B_LN2_W], N, d, 1);

        /* attention: mid = in + concat · W_proj + b_proj, q|k|v = ln1 · W_attn + b_attn */
        const float *dattention = drop ? tr->dbranch : tr->dx;
        if (drop) drop_into(tr, tr->dbranch, tr->dx, NULL, 1 + 2 * l);
        mha_matmul_fast(tr->dnorm, d, dattention, d, p[GPT_B_PROJ_W], d, 1, N, d, d, 0, scratch);
        weight_grad(tr, g[GPT_B_PROJ_W], g[GPT_B_PROJ_B], concat, dattention, N, d, d);
        attention_backward(tr, l);
        weight_grad(tr, g[GPT_B_ATTN_W], g[GPT_B_ATTN_B], ln1, tr->dqkv, N, d, 3 * d);
        mha_matmul_fast(tr->dnorm, d, tr->dqkv, 3 * d, p[GPT_B_ATTN_W], 3 * d, 1, N, 3 * d, d, 0, scratch);
        layer_norm_backward(tr->dx, g[GPT_B_LN1_W], g[GPT_B_LN1_B], tr->dnorm, in, gpt_slice(w, w->ln1_stat, l, rows * 2),
                            p[GPT_B_LN1_W], N, d, 1);
    }

    /* embeddings: x_0 = wte[token] + wpe[position] (dropped out, in training) */
    if (drop) drop_into(tr, tr->dx, tr->dx, NULL, 0);
    mha_embed_backward(dwte, GRAD(GPT_T_WPE), tr->dx, tokens, len, S, T, d);
#undef GRAD
}

static mha_status check_batch(gpt_trainer *tr, const int *tokens, int count, int len) {
    if (!tr || !tokens) return mha_fail(MHA_ERR_NULL_ARGUMENT, "training needs a trainer and tokens");
    if (count < 1 || count > tr->desc.batch)
        return mha_fail(MHA_ERR_BAD_SIZE, "count must be from 1 to the batch size %d, got %d", tr->desc.batch, count);
    if (len < 2 || len > tr->desc.seq_len)
        return mha_fail(len < 2 ? MHA_ERR_BAD_SIZE : MHA_ERR_SEQ_TOO_LONG, "len must be from 2 to seq_len %d, got %d",
                        tr->desc.seq_len, len);
    return gpt_check_tokens(tr->model, tokens, count, len);
}

static mha_status diverged(const char *what, double value) {
    return mha_fail(MHA_ERR_NOT_FINITE, "the %s is %s: training diverged; try a smaller lr", what,
                    isnan(value) ? "NaN" : "infinite");
}

/* The batch's forward, mean loss (*loss, when given) and dloss/dlogits; a training step's (`training`) with
   its dropout, if any. */
static mha_status batch_loss(gpt_trainer *tr, const int *tokens, int count, int len, int training, double *loss) {
    mha_status status = check_batch(tr, tokens, count, len);
    tr->work.drop = training && tr->desc.dropout > 0 ? drop_forward : NULL;
    tr->work.drop_trainer = tr;
    if (!status) status = gpt_run(tr->model, &tr->work, tokens, len, count, len - 1, 0, NULL, 0);
    if (status) return status;
    const double value = cross_entropy(tr, tokens, len);
    if (loss) *loss = value;
    return isfinite(value) ? MHA_OK : diverged("loss", value);
}

mha_status gpt_train_loss(gpt_trainer *tr, const int *tokens, int count, int len, double *loss) {
    return batch_loss(tr, tokens, count, len, 0, loss);
}

mha_status gpt_train_loss_grad(gpt_trainer *tr, const int *tokens, int count, int len, double *loss) {
    const mha_status status = batch_loss(tr, tokens, count, len, 1, loss);
    if (status) return status;
    backward(tr, tokens, len);
    double squares = 0.0;
    for (size_t i = 0; i < tr->model->param_count; i++) squares += (double)tr->grads[i] * tr->grads[i];
    tr->grad_norm = sqrt(squares);
    return isfinite(tr->grad_norm) ? MHA_OK : diverged("gradient", tr->grad_norm);
}

mha_status gpt_train_step(gpt_trainer *tr, const int *tokens, int count, int len, float lr, double *loss) {
    if (tr && !(isfinite(lr) && lr >= 0))
        return mha_fail(MHA_ERR_BAD_INPUT, "lr must be a finite number >= 0, got %g", lr);
    mha_status status = gpt_train_loss_grad(tr, tokens, count, len, loss);
    if (status) return status;
    const gpt_train_desc *desc = &tr->desc;
    const float clip = desc->clip > 0 && tr->grad_norm > desc->clip ? (float)(desc->clip / tr->grad_norm) : 1.0f;
    tr->steps++;
    tr->beta1_t *= desc->beta1;
    tr->beta2_t *= desc->beta2;
    mha_adamw step = {.lr = lr, .beta1 = desc->beta1, .beta2 = desc->beta2, .eps = desc->eps,
                      .correct1 = (float)(1.0 / (1.0 - tr->beta1_t)), .correct2 = (float)(1.0 / (1.0 - tr->beta2_t)),
                      .grad_scale = clip};
    gpt_model *m = tr->model;
    m->reusable = 0; /* the model's last forward was of the old parameters */
    for (int i = 0; i < m->tensor_count; i++) {
        const gpt_tensor_info *t = &m->tensors[i];
        step.shrink = 1.0f - (t->decays ? lr * desc->weight_decay : 0.0f); /* decoupled weight decay */
        mha_adamw_step(&step, m->params + t->offset, tr->adam_m + t->offset, tr->adam_v + t->offset, tr->grads + t->offset,
                       (size_t)t->rows * t->cols);
    }
    return MHA_OK;
}
