/* gpt_forward.c — the forward pass of the GPT-2 model of gpt.h, its buffers,
   and what a forward hands out (attention weights, q|k|v, logits). gpt_run is
   gpt.h's OVERVIEW written out, a step a line; its heads are the layer's
   (mha_attend_heads, mha.c), its matrix products the core's kernels. */
#include "backprop.h"
#include "gpt_internal.h"
#include "mha_internal.h"
#include "pool.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the buffers ---- */

static size_t rup(size_t n) { return (n + 15) & ~(size_t)15; } /* keeps every buffer 64-byte aligned */
static size_t kt_stride(int T) { return ((size_t)T + MHA_KT_ALIGN - 1) / MHA_KT_ALIGN * MHA_KT_ALIGN; }

/* The scratch of one thread: the matrix products' widest depth (d and 4d
   forward; the batch and vocab backward), or one head's attention scratch and
   output. */
static double work_scratch_floats(const gpt_config *c, int S, int T, int keep) {
    const double N = (double)S * T, dk = c->d_model / c->heads;
    double depth = 4.0 * c->d_model;
    if (keep) depth = fmax(depth, fmax(N, c->vocab));
    return fmax(mha_matmul_scratch_floats((int)depth), mha_fast_scratch_floats((int)dk, 1, T) + T * dk);
}

double gpt_work_floats(const gpt_config *c, int S, int T, int keep) {
    const double N = (double)S * T, d = c->d_model, L = c->layers;
    const double kept = keep ? L : 1;
    return (keep ? 2 * L + 1 : 1) * N * d   /* res */
         + kept * N * (2 * d + 4 + d + 8 * d) /* ln1 ln2, stats, concat, fc act */
         + L * N * 3 * d                     /* qkv */
         + L * S * c->heads * (double)T * T  /* att */
         + N * (d + 2 + c->vocab)            /* lnf, its stats, logits */
         + (double)T * T                     /* map */
         + (keep ? 0 : L * d * (double)kt_stride(T)) /* kt */
         + work_scratch_floats(c, S, T, keep) + 16 * 22; /* scratch, alignment */
}

mha_status gpt_work_create(gpt_work *w, const gpt_config *c, int S, int T, int keep) {
    memset(w, 0, sizeof *w);
    const double scratch = work_scratch_floats(c, S, T, keep);
    mha_status status = mha_pool_reserve(scratch);
    if (status) return status;
    const double floats = gpt_work_floats(c, S, T, keep);
    float *p = malloc((size_t)floats * sizeof(float));
    if (!p) return mha_fail(MHA_ERR_OUT_OF_MEMORY, "not enough memory for the activations (%.0f MB)", floats * 4 / 1e6);
    w->block = p;
    w->keep = keep;
    w->rows = (size_t)S * T;
    w->scratch_floats = scratch;
    w->kt_stride = keep ? 0 : kt_stride(T);
    const size_t N = w->rows, d = (size_t)c->d_model, L = (size_t)c->layers, kept = keep ? L : 1;
    float **bufs[] = {&w->res, &w->ln1, &w->ln2, &w->ln1_stat, &w->ln2_stat, &w->qkv, &w->concat, &w->fc, &w->act,
                      &w->att, &w->map, &w->kt, &w->lnf, &w->lnf_stat, &w->logits, &w->scratch};
    const size_t sizes[] = {(keep ? 2 * L + 1 : 1) * N * d, kept * N * d, kept * N * d, kept * N * 2, kept * N * 2,
                            L * N * 3 * d, kept * N * d, kept * N * 4 * d, kept * N * 4 * d,
                            L * (size_t)S * (size_t)c->heads * (size_t)T * (size_t)T, (size_t)T * T,
                            keep ? 0 : L * d * kt_stride(T), N * d, N * 2, N * (size_t)c->vocab, 0};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) {
        *bufs[i] = p;
        p += rup(sizes[i]);
    }
    if (keep) w->kt = NULL;
    return MHA_OK;
}

void gpt_work_free(gpt_work *w) {
    free(w->block);
    w->block = NULL;
}

/* ---- the steps ---- */

/* out = LN(x)·g + b per row of d; stat gets each row's mean and 1/std. Out of line, as linear: inlined at
   each of their calls in gpt_run they were 1 KB more of the gzipped wasm, every widget's download. */
static MHA_NOINLINE void layer_norm(float *out, float *stat, const float *x, const float *g, const float *b, int N, int d) {
    for (int r = 0; r < N; r++) {
        const float *xr = x + (size_t)r * d;
        float *o = out + (size_t)r * d;
        double sum = 0, squares = 0;
        for (int j = 0; j < d; j++) sum += xr[j];
        const float mean = (float)(sum / d);
        for (int j = 0; j < d; j++) squares += (double)(xr[j] - mean) * (xr[j] - mean);
        const float rstd = (float)(1.0 / sqrt(squares / d + GPT_LN_EPS));
        for (int j = 0; j < d; j++) o[j] = (xr[j] - mean) * rstd * g[j] + b[j];
        stat[2 * r] = mean, stat[2 * r + 1] = rstd;
    }
}

/* out (N×n) (+)= in (N×k) · w (k×n, as panels when packed) + b. */
static MHA_NOINLINE void linear(float *out, const float *in, const float *w, const float *b, int N, int k, int n,
                                int accumulate, int packed, float *scratch) {
    for (int r = 0; r < N; r++) {
        float *o = out + (size_t)r * n;
        if (accumulate)
            for (int j = 0; j < n; j++) o[j] += b[j];
        else
            memcpy(o, b, (size_t)n * sizeof *o);
    }
    if (packed) mha_matmul_panels(out, n, in, k, w, N, k, n, 1);
    else mha_matmul_fast(out, n, in, k, w, n, 0, N, k, n, 1, scratch);
}

/* out (N×n) = base + in (N×k) · w + b, a block's residual branch added to the stream; in a training step with
   dropout, the branch through the site's mask. Without it, out may be base (a forward that keeps one block's
   buffers adds in place); with it, training keeps every block's, so they differ. */
static void add_branch(const gpt_work *w, float *out, const float *base, const float *in, const float *weight, const float *b,
                       int N, int k, int n, int packed, int site) {
    if (w->drop) {
        linear(out, in, weight, b, N, k, n, 0, packed, w->scratch);
        w->drop(w->drop_trainer, out, base, site);
        return;
    }
    if (out != base) memcpy(out, base, (size_t)N * n * sizeof *out);
    linear(out, in, weight, b, N, k, n, 1, packed, w->scratch);
}

mha_status gpt_run(const gpt_model *m, gpt_work *w, const int *tokens, int stride, int S, int T, int from,
                   const unsigned char *enabled, int decoding) {
    const gpt_config *c = &m->config;
    const int d = c->d_model, h = c->heads, dk = d / h, N = S * T, F = from, n = N - F; /* rows F .. N-1 are computed */
    const size_t rows = w->rows, fd = (size_t)F * d;
    const int A = w->keep ? T : (int)rows; /* the maps' side (gpt_work's att) */
    w->S = S, w->T = T;
    const float *wte = gpt_param(m, GPT_T_WTE);
    const int packed = m->panel_scratch != NULL;
    const float scale = (float)(1.0 / sqrt((double)dk));

    /* x_0 = wte[t_r] + wpe[r] */
    mha_embed(w->res, wte, gpt_param(m, GPT_T_WPE), tokens, stride, S, T, F, d);
    if (w->drop) w->drop(w->drop_trainer, w->res, NULL, 0);
    for (int l = 0; l < c->layers && n > 0; l++) {
        /* block l's weights, and its slices of the buffers: x on the way in, after the attention, after the MLP */
        const float *p[GPT_B_COUNT];
        for (int b = 0; b < GPT_B_COUNT; b++) p[b] = gpt_param(m, gpt_block_tensor(l, b));
        const float *in = gpt_slice(w, w->res, 2 * l, rows * d) + fd;
        float *mid = gpt_slice(w, w->res, 2 * l + 1, rows * d) + fd, *out = gpt_slice(w, w->res, 2 * l + 2, rows * d) + fd;
        float *ln1 = gpt_slice(w, w->ln1, l, rows * d) + fd, *ln2 = gpt_slice(w, w->ln2, l, rows * d) + fd;
        float *qkv = w->qkv + (size_t)l * rows * 3 * d, *concat = gpt_slice(w, w->concat, l, rows * d);
        float *fc = gpt_slice(w, w->fc, l, rows * 4 * d) + 4 * fd, *act = gpt_slice(w, w->act, l, rows * 4 * d) + 4 * fd;

        /* a = LN_1(x) */
        layer_norm(ln1, gpt_slice(w, w->ln1_stat, l, rows * 2) + 2 * F, in, p[GPT_B_LN1_W], p[GPT_B_LN1_B], n, d);
        /* q|k|v = a · c_attn.W + c_attn.b */
        linear(qkv + 3 * fd, ln1, p[GPT_B_ATTN_W], p[GPT_B_ATTN_B], n, d, 3 * d, 0, packed, w->scratch);
        /* (the new rows' keys into every head's K_iᵀ, a column each) */
        float *kt = w->kt ? w->kt + (size_t)l * d * w->kt_stride : NULL;
        for (int r = F; kt && r < N; r++)
#ifdef __clang__ /* d floats a row, scattered: unrolled, the loop was 0.4 KB of wasm */
#pragma clang loop vectorize(disable) unroll(disable)
#endif
            for (int j = 0; j < d; j++) kt[j * w->kt_stride + (size_t)r] = qkv[(size_t)r * 3 * d + d + j];
        /* heads = causal multi-head attention of q, k, v, side by side in concat (a head switched off gives zeros) */
        const mha_heads heads = {
            .q = qkv, .k = qkv + d, .v = qkv + 2 * d, .stride = 3 * d, .seq_stride = (size_t)T * 3 * d,
            .heads = h, .dk = dk, .len = T, .from = F, .scale = scale, .causal = 1,
            .att = w->att + (size_t)l * S * h * A * A, .att_stride = A, .kt = kt, .kt_stride = w->kt_stride, .concat = concat,
            .enabled = enabled ? enabled + l * h : NULL,
        };
        /* one new row reads every kept key and value once: bound by memory, worth sharing from a quarter the size */
        const double work = 2.0 * S * (T - F) * T * d * (n == 1 ? 4 : 1);
        const long long failure = mha_attend_heads(&heads, S, mha_pool_worth(work), w->scratch, w->scratch_floats);
        if (failure >= 0) {
            const int i = (int)(failure / T % h), bad_row = (int)(failure % T);
            return mha_fail_at(MHA_ERR_NOT_FINITE, (mha_error_place){"scores", i, bad_row, -1},
                               "the scores of layer %d, head %d overflow float32 at row %d: the model's weights are "
                               "too large", l, i, bad_row);
        }
        /* x = x + heads · attn.c_proj.W + attn.c_proj.b */
        add_branch(w, mid, in, concat + fd, p[GPT_B_PROJ_W], p[GPT_B_PROJ_B], n, d, d, packed, 1 + 2 * l);
        /* m = LN_2(x) */
        layer_norm(ln2, gpt_slice(w, w->ln2_stat, l, rows * 2) + 2 * F, mid, p[GPT_B_LN2_W], p[GPT_B_LN2_B], n, d);
        /* x = x + GELU(m · c_fc.W + c_fc.b) · mlp.c_proj.W + mlp.c_proj.b */
        linear(fc, ln2, p[GPT_B_FC_W], p[GPT_B_FC_B], n, d, 4 * d, 0, packed, w->scratch);
        mha_gelu_fast(act, fc, (size_t)n * 4 * d);
        add_branch(w, out, mid, act, p[GPT_B_OUT_W], p[GPT_B_OUT_B], n, 4 * d, d, packed, 2 + 2 * l);
    }
    /* logits = LN_f(x) · wteᵀ */
    const int lnf = gpt_block_tensor(c->layers, 0);
    float *logits = w->logits + (size_t)F * c->vocab;
    layer_norm(w->lnf + fd, w->lnf_stat + 2 * F, gpt_slice(w, w->res, 2 * c->layers, rows * d) + fd, gpt_param(m, lnf),
               gpt_param(m, lnf + 1), n, d);
    if (decoding && n == 1 && d % 32 == 0) mha_dot_rows(logits, w->lnf + fd, wte, d, d, c->vocab);
    else mha_matmul_fast(logits, c->vocab, w->lnf + fd, d, wte, d, 1, n, d, c->vocab, 0, w->scratch);
    const ptrdiff_t at = mha_first_non_finite(logits, (size_t)n * c->vocab);
    if (at < 0) return MHA_OK;
    const int row = F + (int)(at / c->vocab), column = (int)(at % c->vocab);
    return mha_fail_at(MHA_ERR_NOT_FINITE, (mha_error_place){"logits", -1, row, column},
                       "the logits overflow float32 at row %d, column %d: the model's weights are too large", row, column);
}

/* ---- the forward of the API, and its results ---- */

mha_status gpt_check_tokens(const gpt_model *m, const int *tokens, int count, int len) {
    for (int s = 0; s < count; s++)
        for (int t = 0; t < len; t++) {
            const int token = tokens[(size_t)s * len + t];
            if (token < 0 || token >= m->config.vocab) {
                if (count > 1)
                    return mha_fail(MHA_ERR_TOKEN_RANGE, "token %d at position %d of sequence %d is outside the vocabulary 0 to %d",
                                    token, t, s, m->config.vocab - 1);
                return mha_fail(MHA_ERR_TOKEN_RANGE, "token %d at position %d is outside the vocabulary 0 to %d", token, t,
                                m->config.vocab - 1);
            }
        }
    return MHA_OK;
}

/* The first position where tokens (or the heads on) part from the last good forward's, at most len. */
static int shared_rows(const gpt_model *m, const int *tokens, int len, const unsigned char *enabled) {
    if (!m->reusable || !m->len) return 0;
    const int heads = m->config.layers * m->config.heads;
    for (int i = 0; i < heads; i++)
        if ((enabled ? enabled[i] != 0 : 1) != m->enabled[i]) return 0;
    const int most = len < m->len ? len : m->len;
    int shared = 0;
    while (shared < most && tokens[shared] == m->tokens[shared]) shared++;
    return shared;
}

static mha_status forward(gpt_model *m, const int *tokens, int len, const unsigned char *enabled, int decoding) {
    if (!m || !tokens) return mha_fail(MHA_ERR_NULL_ARGUMENT, "gpt_forward needs a model and tokens");
    const int shared = shared_rows(m, tokens, len, enabled);
    m->len = 0, m->reused = 0, m->reusable = 0;
    if (len < 1) return mha_fail(MHA_ERR_BAD_SIZE, "the sequence is empty (length %d); give at least one token", len);
    if (!m->max_tokens)
        return mha_fail(MHA_ERR_SEQ_TOO_LONG, "the key-value cache was freed: reserve it again");
    if (len > m->max_tokens)
        return len > m->config.context
            ? mha_fail(MHA_ERR_SEQ_TOO_LONG, "the sequence has %d tokens but this model's context is %d", len, m->config.context)
            : mha_fail(MHA_ERR_SEQ_TOO_LONG, "the sequence has %d tokens but this model was loaded for at most %d", len,
                       m->max_tokens);
    mha_status status = gpt_check_tokens(m, tokens, 1, len);
    if (status) return status;
    if ((status = gpt_run(m, &m->work, tokens, len, 1, len, shared, enabled, decoding))) return status;
    const int heads = m->config.layers * m->config.heads;
    for (int i = 0; i < heads; i++) m->enabled[i] = enabled ? enabled[i] != 0 : 1;
    if (tokens != m->tokens) memcpy(m->tokens, tokens, (size_t)len * sizeof *tokens); /* gpt_step passes its own */
    m->len = len, m->reused = shared, m->reusable = 1;
    return MHA_OK;
}

mha_status gpt_forward_reusing(gpt_model *m, const int *tokens, int len, const unsigned char *enabled) {
    return forward(m, tokens, len, enabled, 0);
}

mha_status gpt_forward(gpt_model *m, const int *tokens, int len, const unsigned char *enabled) {
    if (m) m->reusable = 0; /* nothing shared: every row computed */
    return gpt_forward_reusing(m, tokens, len, enabled);
}

mha_status gpt_step(gpt_model *m, int token, const unsigned char *enabled) {
    if (!m) return mha_fail(MHA_ERR_NULL_ARGUMENT, "gpt_step needs a model");
    if (!m->max_tokens) return forward(m, &token, 1, enabled, 1); /* refused: the cache was freed */
    if (m->len >= m->max_tokens)
        return mha_fail(MHA_ERR_SEQ_TOO_LONG, "the key-value cache is full (%d tokens): rewind it%s", m->len,
                        m->len < m->config.context ? ", or reserve more" : "");
    m->tokens[m->len] = token; /* past the cache's tokens: checked before it is used */
    const mha_status status = gpt_check_tokens(m, m->tokens, 1, m->len + 1);
    return status ? status : forward(m, m->tokens, m->len + 1, enabled, 1);
}

mha_status gpt_rewind(gpt_model *m, int len) {
    if (!m) return mha_fail(MHA_ERR_NULL_ARGUMENT, "gpt_rewind needs a model");
    if (len < 0 || len > m->len)
        return mha_fail(MHA_ERR_BAD_SIZE, "cannot rewind to %d tokens: the cache holds %d", len, m->len);
    m->len = len; /* rows 0 .. len-1 depend on their tokens alone: they stand as they are */
    return MHA_OK;
}

int gpt_model_reused(const gpt_model *m) { return m ? m->reused : 0; }

int gpt_model_len(const gpt_model *m) { return m ? m->len : 0; }

int gpt_model_max_tokens(const gpt_model *m) { return m ? m->max_tokens : 0; }

void gpt_model_forget(gpt_model *m) {
    if (m) m->len = 0, m->reused = 0, m->reusable = 0;
}

mha_status gpt_attention(gpt_model *m, int layer, int head, const float **out) {
    if (!m || !out) return mha_fail(MHA_ERR_NULL_ARGUMENT, "gpt_attention needs a model and an output pointer");
    *out = NULL;
    const gpt_config *c = &m->config;
    if (layer < 0 || layer >= c->layers)
        return mha_fail(MHA_ERR_HEAD_INDEX, "layer %d does not exist: this model has layers 0 to %d", layer, c->layers - 1);
    if (head < 0 || head >= c->heads)
        return mha_fail(MHA_ERR_HEAD_INDEX, "head %d does not exist: this model has heads 0 to %d", head, c->heads - 1);
    if (!m->len) return mha_fail(MHA_ERR_NO_FORWARD, "no result yet: call forward first (a forward that failed leaves none)");
    /* Packed on request, O(L²), from the maps kept at the longest length (O(L) a step): row r's
       columns past r are the causal mask's zeros, whatever a longer forward left there. */
    const size_t A = m->work.rows, L = (size_t)m->len;
    const float *map = m->work.att + ((size_t)layer * c->heads + head) * A * A;
    for (size_t r = 0; r < L; r++) {
        memcpy(m->work.map + r * L, map + r * A, (r + 1) * sizeof *map);
        memset(m->work.map + r * L + r + 1, 0, (L - r - 1) * sizeof *map);
    }
    *out = m->work.map;
    return MHA_OK;
}

mha_status gpt_qkv(gpt_model *m, int layer, const float **out) {
    if (!m || !out) return mha_fail(MHA_ERR_NULL_ARGUMENT, "gpt_qkv needs a model and an output pointer");
    *out = NULL;
    const gpt_config *c = &m->config;
    if (layer < 0 || layer >= c->layers)
        return mha_fail(MHA_ERR_HEAD_INDEX, "layer %d does not exist: this model has layers 0 to %d", layer, c->layers - 1);
    if (!m->len) return mha_fail(MHA_ERR_NO_FORWARD, "no result yet: call forward first (a forward that failed leaves none)");
    *out = m->work.qkv + (size_t)layer * m->work.rows * 3 * c->d_model; /* one sequence: row r at r·3d */
    return MHA_OK;
}

mha_status gpt_logits(gpt_model *m, const float **out) {
    if (!m || !out) return mha_fail(MHA_ERR_NULL_ARGUMENT, "gpt_logits needs a model and an output pointer");
    *out = NULL;
    if (!m->len) return mha_fail(MHA_ERR_NO_FORWARD, "no result yet: call forward first (a forward that failed leaves none)");
    *out = m->work.logits;
    return MHA_OK;
}
