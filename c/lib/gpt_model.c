/* gpt_model.c — the GPT-2 model of gpt.h as data: its tensor table, the checks
   of its shape, its memory and GPT-2's random initialisation. Loading and
   saving are gpt_file.c's, the forward pass gpt_forward.c's, training
   gpt_train.c's. */
#include "gpt_internal.h"
#include "mha_internal.h"
#include "np_random.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Code run once a model (or on an error), not once a token: compiled for size, as every widget downloads it.
   (-O3 elsewhere; minsize here keeps the wasm about 1 KB smaller gzipped.) */
#if defined(__clang__)
#pragma clang attribute push (__attribute__((minsize)), apply_to = function)
#endif

const char *const gpt_block_names[GPT_B_COUNT] = {
    "ln_1.weight",        "ln_1.bias",        "attn.c_attn.weight", "attn.c_attn.bias",
    "attn.c_proj.weight", "attn.c_proj.bias", "ln_2.weight",        "ln_2.bias",
    "mlp.c_fc.weight",    "mlp.c_fc.bias",    "mlp.c_proj.weight",  "mlp.c_proj.bias",
};

/* ---- the tensor table ---- */

void gpt_describe_tensors(gpt_model *m) {
    const gpt_config *c = &m->config;
    const int d = c->d_model;
    gpt_tensor_info *t = m->tensors;
    t[GPT_T_WTE] = (gpt_tensor_info){"wte.weight", 2, c->vocab, d, 0, 1};
    t[GPT_T_WPE] = (gpt_tensor_info){"wpe.weight", 2, c->context, d, 0, 1};
    /* rank, rows × cols of each block tensor (a vector is 1 × cols); the rank is
       the tensor's kind, not its rows: at d_model 1 a matrix has one row too */
    const int ranks[GPT_B_COUNT] = {1, 1, 2, 1, 2, 1, 1, 1, 2, 1, 2, 1};
    const int rows[GPT_B_COUNT] = {1, 1, d, 1, d, 1, 1, 1, d, 1, 4 * d, 1};
    const int cols[GPT_B_COUNT] = {d, d, 3 * d, 3 * d, d, d, d, d, 4 * d, 4 * d, d, d};
    for (int l = 0; l < c->layers; l++)
        for (int b = 0; b < GPT_B_COUNT; b++) {
            gpt_tensor_info *ti = &t[gpt_block_tensor(l, b)];
            snprintf(ti->name, sizeof ti->name, "h.%d.%s", l, gpt_block_names[b]);
            ti->rank = ranks[b];
            ti->rows = rows[b], ti->cols = cols[b];
            ti->decays = ti->rank == 2;
        }
    const int lnf = gpt_block_tensor(c->layers, 0);
    t[lnf] = (gpt_tensor_info){"ln_f.weight", 1, 1, d, 0, 0};
    t[lnf + 1] = (gpt_tensor_info){"ln_f.bias", 1, 1, d, 0, 0};
    size_t offset = 0;
    for (int i = 0; i < m->tensor_count; i++) {
        t[i].offset = offset;
        offset += (size_t)t[i].rows * t[i].cols;
    }
    m->param_count = offset;
}

static double param_floats(const gpt_config *c) {
    const double d = c->d_model;
    return (double)c->vocab * d + (double)c->context * d + c->layers * (12 * d * d + 13 * d) + 2 * d;
}

/* max_tokens: the longest forward the model's buffers are sized for (1 .. context). */
static mha_status check_config(const gpt_config *c, int max_tokens) {
    const struct { const char *name; int value, max; } sizes[] = {
        {"layers", c->layers, GPT_MAX_LAYERS}, {"d_model", c->d_model, GPT_MAX_D},
        {"context", c->context, GPT_MAX_CONTEXT}, {"vocab", c->vocab, GPT_MAX_VOCAB},
    };
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        if (sizes[i].value < 1)
            return mha_fail(MHA_ERR_BAD_SIZE, "%s must be a positive whole number, got %d", sizes[i].name, sizes[i].value);
        if (sizes[i].value > sizes[i].max)
            return mha_fail(MHA_ERR_TOO_LARGE, "%s %d is more than the %d a model may have", sizes[i].name, sizes[i].value,
                            sizes[i].max);
    }
    mha_status status = mha_check_heads(c->d_model, c->heads);
    if (status) return status;
    const double bytes = (param_floats(c) + gpt_work_floats(c, 1, max_tokens, 0)) * sizeof(float);
    if (bytes > GPT_MAX_MODEL_BYTES)
        return mha_fail(MHA_ERR_TOO_LARGE, "this model (%d layers, d_model %d, vocab %d) with forwards of up to %d tokens would "
                        "need %.0f MB, more than the %.0f MB a model may use%s", c->layers, c->d_model, c->vocab, max_tokens,
                        bytes / 1e6, GPT_MAX_MODEL_BYTES / 1e6,
                        max_tokens > 64 ? "; load it for fewer tokens" : "");
    return MHA_OK;
}

mha_status gpt_model_reserve(gpt_model *m, int max_tokens) {
    if (!m) return mha_fail(MHA_ERR_NULL_ARGUMENT, "gpt_model_reserve needs a model");
    if (max_tokens < 0) return mha_fail(MHA_ERR_BAD_SIZE, "max_tokens must be 0 or more, got %d", max_tokens);
    const int T = max_tokens < m->config.context ? max_tokens : m->config.context;
    mha_status status = check_config(&m->config, T);
    if (status) return status;
    gpt_work_free(&m->work);
    free(m->tokens);
    m->tokens = NULL, m->max_tokens = 0, m->len = 0, m->reused = 0, m->reusable = 0;
    if (!T) return MHA_OK;
    if (!(m->tokens = calloc((size_t)T, sizeof *m->tokens)) || (status = gpt_work_create(&m->work, &m->config, 1, T, 0))) {
        free(m->tokens);
        m->tokens = NULL;
        return status ? status : mha_fail(MHA_ERR_OUT_OF_MEMORY, "not enough memory for a model");
    }
    m->max_tokens = T;
    return MHA_OK;
}

mha_status gpt_model_alloc(const gpt_config *c, int max_tokens, gpt_model **out) {
    *out = NULL;
    gpt_model *m = calloc(1, sizeof *m);
    if (!m) return mha_fail(MHA_ERR_OUT_OF_MEMORY, "not enough memory for a model");
    m->config = *c;
    mha_status status = gpt_model_reserve(m, max_tokens); /* checks the config first (one call: a smaller wasm) */
    if (!status) {
        m->tensor_count = GPT_T_BLOCKS + c->layers * GPT_B_COUNT + 2;
        m->tensors = calloc((size_t)m->tensor_count, sizeof *m->tensors);
        m->params = calloc((size_t)param_floats(c), sizeof(float)); /* zeros: a tensor never copied in is no garbage */
        m->enabled = calloc((size_t)c->layers * c->heads, 1);
        if (!m->tensors || !m->params || !m->enabled)
            status = mha_fail(MHA_ERR_OUT_OF_MEMORY, "not enough memory for the weights (%.0f MB)",
                              param_floats(c) * sizeof(float) / 1e6);
    }
    if (status) {
        gpt_model_destroy(m);
        return status;
    }
    gpt_describe_tensors(m);
    *out = m;
    return MHA_OK;
}

void gpt_model_destroy(gpt_model *m) {
    if (!m) return;
    gpt_work_free(&m->work);
    free(m->tensors);
    free(m->params);
    free(m->panel_scratch);
    free(m->tokens);
    free(m->enabled);
    free(m->metadata);
    free(m->metadata_strings);
    free(m);
}

const gpt_config *gpt_model_config(const gpt_model *m) { return m ? &m->config : NULL; }
int gpt_model_metadata_count(const gpt_model *m) { return m ? m->metadata_count : 0; }
const gpt_metadata *gpt_model_metadata(const gpt_model *m, int i) {
    return m && i >= 0 && i < m->metadata_count ? &m->metadata[i] : NULL;
}

int gpt_tensor_count(const gpt_model *m) { return m ? m->tensor_count : 0; }

mha_status gpt_tensor(gpt_model *m, int i, const char **name, float **values, int *rows, int *cols, size_t *offset) {
    if (!m) return mha_fail(MHA_ERR_NULL_ARGUMENT, "gpt_tensor needs a model");
    if (i < 0 || i >= m->tensor_count)
        return mha_fail(MHA_ERR_BAD_INPUT, "tensor %d does not exist (0 to %d)", i, m->tensor_count - 1);
    const gpt_tensor_info *t = &m->tensors[i];
    if (name) *name = t->name;
    if (values) gpt_model_unpack(m), *values = gpt_param(m, i), m->reusable = 0; /* they may be written to */
    if (rows) *rows = t->rows;
    if (cols) *cols = t->cols;
    if (offset) *offset = t->offset;
    return MHA_OK;
}

float *gpt_model_params(gpt_model *m, size_t *count) {
    if (count) *count = m ? m->param_count : 0;
    if (!m) return NULL;
    gpt_model_unpack(m);
    m->reusable = 0; /* they may be written to */
    return m->params;
}

/* ---- the matrices as panels ---- */

static void repack(gpt_model *m, int to_panels) {
    static const int matrices[] = {GPT_B_ATTN_W, GPT_B_PROJ_W, GPT_B_FC_W, GPT_B_OUT_W};
    for (int l = 0; l < m->config.layers; l++)
        for (int i = 0; i < 4; i++) {
            const gpt_tensor_info *t = &m->tensors[gpt_block_tensor(l, matrices[i])];
            float *p = gpt_param(m, gpt_block_tensor(l, matrices[i]));
            memcpy(m->panel_scratch, p, (size_t)t->rows * t->cols * sizeof *p);
            if (to_panels) mha_to_panels(p, m->panel_scratch, t->rows, t->cols);
            else mha_from_panels(p, m->panel_scratch, t->rows, t->cols);
        }
}

void gpt_model_pack(gpt_model *m) {
    const size_t d = (size_t)m->config.d_model;
    if (m->panel_scratch || d % (size_t)mha_panel_columns() || !(m->panel_scratch = malloc(4 * d * d * sizeof(float))))
        return;
    repack(m, 1);
}

void gpt_model_unpack(gpt_model *m) {
    if (!m->panel_scratch) return;
    repack(m, 0);
    free(m->panel_scratch);
    m->panel_scratch = NULL;
}

/* ---- random initialisation (GPT-2's) ---- */

mha_status gpt_model_create(const gpt_config *config, unsigned seed, gpt_model **out) {
    if (!config || !out) return mha_fail(MHA_ERR_NULL_ARGUMENT, "gpt_model_create needs a config and an output pointer");
    gpt_model *m;
    mha_status status = gpt_model_alloc(config, config->context, &m);
    *out = NULL;
    if (status) return status;
    np_random rng;
    np_random_seed(&rng, seed);
    const double proj_std = 0.02 / sqrt(2.0 * config->layers); /* residual branches summed over 2·layers */
    for (int i = 0; i < m->tensor_count; i++) {
        const gpt_tensor_info *t = &m->tensors[i];
        float *p = gpt_param(m, i);
        const size_t n = (size_t)t->rows * t->cols;
        const int which = i >= GPT_T_BLOCKS ? (i - GPT_T_BLOCKS) % GPT_B_COUNT : -1;
        const int is_scale = (which == GPT_B_LN1_W || which == GPT_B_LN2_W || i == m->tensor_count - 2);
        if (t->rank == 2) {
            const double std = which == GPT_B_PROJ_W || which == GPT_B_OUT_W ? proj_std : 0.02;
            for (size_t j = 0; j < n; j++) p[j] = (float)(np_random_gauss(&rng) * std);
        } else {
            for (size_t j = 0; j < n; j++) p[j] = is_scale ? 1.0f : 0.0f;
        }
    }
    *out = m;
    return MHA_OK;
}

#if defined(__clang__)
#pragma clang attribute pop
#endif
