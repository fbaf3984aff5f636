/* gpt.c — the GPT-2 model of gpt.h: its tensors, loading from .safetensors,
   random initialisation, the forward pass and saving. The backward pass and
   AdamW are in gpt_train.c; attention and the matrix products are the core's
   (kernels.c). */
#include "backprop.h"
#include "gpt_internal.h"
#include "mha_internal.h"
#include "np_random.h"
#include "pool.h"
#include "safetensors.h"

#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const block_names[GPT_B_COUNT] = {
    "ln_1.weight",        "ln_1.bias",        "attn.c_attn.weight", "attn.c_attn.bias",
    "attn.c_proj.weight", "attn.c_proj.bias", "ln_2.weight",        "ln_2.bias",
    "mlp.c_fc.weight",    "mlp.c_fc.bias",    "mlp.c_proj.weight",  "mlp.c_proj.bias",
};

/* ---- the tensor table ---- */

static void describe_tensors(gpt_model *m) {
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
            snprintf(ti->name, sizeof ti->name, "h.%d.%s", l, block_names[b]);
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

/* A model of this (checked) shape with zeroed parameters and its forward's buffers, for up to max_tokens. */
static mha_status model_alloc(const gpt_config *c, int max_tokens, gpt_model **out) {
    *out = NULL;
    mha_status status = check_config(c, max_tokens);
    if (status) return status;
    gpt_model *m = calloc(1, sizeof *m);
    if (!m) return mha_fail(MHA_ERR_OUT_OF_MEMORY, "not enough memory for a model");
    m->config = *c;
    m->max_tokens = max_tokens;
    m->tensor_count = GPT_T_BLOCKS + c->layers * GPT_B_COUNT + 2;
    m->tensors = calloc((size_t)m->tensor_count, sizeof *m->tensors);
    m->params = calloc((size_t)param_floats(c), sizeof(float)); /* zeros: a tensor never copied in is no garbage */
    m->tokens = calloc((size_t)max_tokens, sizeof *m->tokens);
    m->enabled = calloc((size_t)c->layers * c->heads, 1);
    status = m->tensors && m->params && m->tokens && m->enabled ? gpt_work_create(&m->work, c, 1, max_tokens, 0)
                                     : mha_fail(MHA_ERR_OUT_OF_MEMORY, "not enough memory for the weights (%.0f MB)",
                                                param_floats(c) * sizeof(float) / 1e6);
    if (status) {
        gpt_model_destroy(m);
        return status;
    }
    describe_tensors(m);
    *out = m;
    return MHA_OK;
}

void gpt_model_destroy(gpt_model *m) {
    if (!m) return;
    gpt_work_free(&m->work);
    free(m->tensors);
    free(m->params);
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
    if (values) *values = gpt_param(m, i), m->reusable = 0; /* they may be written to */
    if (rows) *rows = t->rows;
    if (cols) *cols = t->cols;
    if (offset) *offset = t->offset;
    return MHA_OK;
}

float *gpt_model_params(gpt_model *m, size_t *count) {
    if (count) *count = m ? m->param_count : 0;
    if (!m) return NULL;
    m->reusable = 0; /* they may be written to */
    return m->params;
}

/* ---- random initialisation (GPT-2's) ---- */

mha_status gpt_model_create(const gpt_config *config, unsigned seed, gpt_model **out) {
    if (!config || !out) return mha_fail(MHA_ERR_NULL_ARGUMENT, "gpt_model_create needs a config and an output pointer");
    gpt_model *m;
    mha_status status = model_alloc(config, config->context, &m);
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

/* ---- loading ---- */

struct gpt_loader {
    st_header header;
    gpt_model *model;
    const st_tensor **source; /* the file's tensor for each of the model's */
};

uint64_t gpt_header_bytes(const unsigned char first8[8]) { return first8 ? st_header_bytes(first8) : 0; }

/* The file's tensor `name`, with or without "transformer."; NULL when it has neither. */
static mha_status find_tensor(const st_header *h, const char *name, const st_tensor **out) {
    char prefixed[64];
    *out = NULL;
    snprintf(prefixed, sizeof prefixed, "transformer.%s", name);
    const st_tensor *plain = st_find(h, name), *with_prefix = st_find(h, prefixed);
    if (plain && with_prefix)
        return mha_fail(MHA_ERR_BAD_MODEL, "the file has both %s and %s: which one is meant?", name, prefixed);
    *out = plain ? plain : with_prefix;
    return MHA_OK;
}

/* Blocks in the file: one more than the largest i of a tensor h.{i}.<a block tensor>. */
static mha_status count_layers(const st_header *h, int *layers) {
    long most = -1;
    for (int t = 0; t < h->tensor_count; t++) {
        const char *name = h->tensors[t].name;
        if (!strncmp(name, "transformer.", 12)) name += 12;
        if (strncmp(name, "h.", 2) || name[2] < '0' || name[2] > '9') continue;
        char *rest;
        const long i = strtol(name + 2, &rest, 10);
        if (*rest != '.' || (name[2] == '0' && rest != name + 3)) continue;
        int known = 0;
        for (int b = 0; b < GPT_B_COUNT && !known; b++) known = !strcmp(rest + 1, block_names[b]);
        if (!known) continue;
        if (i >= GPT_MAX_LAYERS)
            return mha_fail(MHA_ERR_BAD_MODEL, "tensor %s: block %ld is more than a model may have (%d)", h->tensors[t].name, i,
                            GPT_MAX_LAYERS);
        if (i > most) most = i;
    }
    if (most < 0) return mha_fail(MHA_ERR_BAD_MODEL, "the file has no blocks: h.0.ln_1.weight is missing");
    *layers = (int)most + 1;
    return MHA_OK;
}

/* d_model → heads of the GPT-2 sizes OpenAI released. */
static int gpt2_heads(int d) {
    static const int known[][2] = {{768, 12}, {1024, 16}, {1280, 20}, {1600, 25}};
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
        if (known[i][0] == d) return known[i][1];
    return 0;
}

static mha_status choose_heads(const st_header *h, int d, int given, int *heads) {
    int from_file = 0;
    for (int i = 0; i < h->metadata_count; i++) {
        if (strcmp(h->metadata[i].key, "n_head")) continue;
        const char *v = h->metadata[i].value;
        char *end;
        const long n = strtol(v, &end, 10);
        if (v[0] < '1' || v[0] > '9' || *end || n > GPT_MAX_D)
            return mha_fail(MHA_ERR_BAD_MODEL, "__metadata__ n_head \"%.20s\" is not a whole number of heads", v);
        from_file = (int)n;
    }
    if (given > 0 && from_file && given != from_file)
        return mha_fail(MHA_ERR_BAD_MODEL, "heads %d was asked for, but the file's metadata says n_head %d", given, from_file);
    if (given <= 0 && from_file && d % from_file)
        return mha_fail(MHA_ERR_BAD_MODEL, "the file's n_head %d does not divide its d_model %d", from_file, d);
    *heads = given > 0 ? given : from_file ? from_file : gpt2_heads(d);
    if (!*heads)
        return mha_fail(MHA_ERR_BAD_MODEL, "the file does not say how many heads it has (no n_head in __metadata__) and "
                        "d_model %d is no GPT-2 size; pass heads", d);
    return MHA_OK;
}

/* Checks the file's tensor for model tensor i: present, F32 or F16, the right shape. */
static mha_status check_source(const gpt_model *m, int i, const st_tensor *s) {
    const gpt_tensor_info *t = &m->tensors[i];
    if (!s) return mha_fail(MHA_ERR_BAD_MODEL, "tensor %s is missing", t->name);
    if (strcmp(s->dtype, "F32") && strcmp(s->dtype, "F16"))
        return mha_fail(MHA_ERR_BAD_MODEL, "tensor %s has dtype %s; only F32 and F16 are supported", s->name, s->dtype);
    const int ok = t->rank == 1 ? s->rank == 1 && s->shape[0] == t->cols
                                : s->rank == 2 && s->shape[0] == t->rows && s->shape[1] == t->cols;
    if (ok) return MHA_OK;
    char got[96] = "[";
    for (int k = 0; k < s->rank; k++)
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%lld", k ? ", " : "", (long long)s->shape[k]);
    snprintf(got + strlen(got), sizeof got - strlen(got), "]");
    if (t->rank == 1) return mha_fail(MHA_ERR_BAD_MODEL, "tensor %s has shape %s, expected [%d]", s->name, got, t->cols);
    return mha_fail(MHA_ERR_BAD_MODEL, "tensor %s has shape %s, expected [%d, %d]", s->name, got, t->rows, t->cols);
}

static mha_status plan(gpt_loader *ld, int heads, int max_tokens) {
    const st_header *h = &ld->header;
    const st_tensor *wte, *wpe;
    gpt_config c = {0};
    mha_status status;
    if ((status = find_tensor(h, "wte.weight", &wte)) || (status = find_tensor(h, "wpe.weight", &wpe))) return status;
    if (!wte) return mha_fail(MHA_ERR_BAD_MODEL, "tensor wte.weight is missing");
    if (wte->rank != 2) return mha_fail(MHA_ERR_BAD_MODEL, "tensor %s must be [vocab, d_model]", wte->name);
    if (!wpe) return mha_fail(MHA_ERR_BAD_MODEL, "tensor wpe.weight is missing");
    if (wpe->rank != 2 || wpe->shape[1] != wte->shape[1])
        return mha_fail(MHA_ERR_BAD_MODEL, "tensor %s must be [context, d_model] with wte.weight's d_model %lld", wpe->name,
                        (long long)wte->shape[1]);
    const int64_t limits[3] = {GPT_MAX_VOCAB, GPT_MAX_D, GPT_MAX_CONTEXT};
    const int64_t sizes[3] = {wte->shape[0], wte->shape[1], wpe->shape[0]};
    const char *names[3] = {"vocab", "d_model", "context"};
    for (int k = 0; k < 3; k++)
        if (sizes[k] < 1 || sizes[k] > limits[k])
            return mha_fail(sizes[k] < 1 ? MHA_ERR_BAD_MODEL : MHA_ERR_TOO_LARGE, "the file's %s is %lld; a model may have 1 to %lld",
                            names[k], (long long)sizes[k], (long long)limits[k]);
    c.vocab = (int)sizes[0], c.d_model = (int)sizes[1], c.context = (int)sizes[2];
    if ((status = count_layers(h, &c.layers)) || (status = choose_heads(h, c.d_model, heads, &c.heads))) return status;
    /* the shapes first, so a broken file is BAD_MODEL before anything is allocated */
    gpt_model probe = {.config = c};
    probe.tensor_count = GPT_T_BLOCKS + c.layers * GPT_B_COUNT + 2;
    gpt_tensor_info *infos = calloc((size_t)probe.tensor_count, sizeof *infos);
    if (!infos) return mha_fail(MHA_ERR_OUT_OF_MEMORY, "not enough memory for the tensor list");
    probe.tensors = infos;
    describe_tensors(&probe);
    for (int i = 0; i < probe.tensor_count && !status; i++) {
        const st_tensor *s;
        status = find_tensor(h, infos[i].name, &s);
        if (!status) status = check_source(&probe, i, s);
    }
    free(infos);
    if (status) return status;
    if ((status = model_alloc(&c, max_tokens && max_tokens < c.context ? max_tokens : c.context, &ld->model))) return status;
    ld->source = calloc((size_t)ld->model->tensor_count, sizeof *ld->source);
    if (!ld->source) return mha_fail(MHA_ERR_OUT_OF_MEMORY, "not enough memory for the tensor list");
    for (int i = 0; i < ld->model->tensor_count; i++) find_tensor(h, ld->model->tensors[i].name, &ld->source[i]);
    return MHA_OK;
}

mha_status gpt_load_begin(const void *head, size_t head_size, uint64_t file_size, int heads, int max_tokens,
                          gpt_loader **out) {
    if (!head || !out) return mha_fail(MHA_ERR_NULL_ARGUMENT, "gpt_load_begin needs the file's first bytes and an output pointer");
    *out = NULL;
    if (heads < 0) return mha_fail(MHA_ERR_BAD_SIZE, "heads must be a positive whole number, got %d", heads);
    if (max_tokens < 0) return mha_fail(MHA_ERR_BAD_SIZE, "max_tokens must be a positive whole number, got %d", max_tokens);
    gpt_loader *ld = calloc(1, sizeof *ld);
    if (!ld) return mha_fail(MHA_ERR_OUT_OF_MEMORY, "not enough memory to load a model");
    mha_status status = st_parse(head, head_size, file_size, &ld->header);
    if (!status) status = plan(ld, heads, max_tokens);
    if (status) {
        gpt_loader_destroy(ld);
        return status;
    }
    *out = ld;
    return MHA_OK;
}

int gpt_loader_copies(const gpt_loader *ld) { return ld ? ld->model->tensor_count : 0; }

mha_status gpt_loader_copy(gpt_loader *ld, int i, uint64_t *file_offset, size_t *bytes, void **dest) {
    if (!ld || !file_offset || !bytes || !dest) return mha_fail(MHA_ERR_NULL_ARGUMENT, "gpt_loader_copy needs a loader and outputs");
    if (i < 0 || i >= ld->model->tensor_count)
        return mha_fail(MHA_ERR_BAD_INPUT, "copy %d does not exist (0 to %d)", i, ld->model->tensor_count - 1);
    const st_tensor *s = ld->source[i];
    *file_offset = ld->header.data_start + s->begin;
    *bytes = (size_t)(s->end - s->begin); /* within the checked model size, so it fits */
    *dest = gpt_param(ld->model, i);
    return MHA_OK;
}

/* IEEE half to float, exactly (every half is a float). */
static float half_to_float(unsigned h) {
    const uint32_t sign = (uint32_t)(h & 0x8000) << 16, exponent = h >> 10 & 0x1f;
    uint32_t mantissa = h & 0x3ff, bits;
    if (exponent == 31) bits = sign | 0x7f800000 | mantissa << 13;   /* infinity, NaN */
    else if (exponent) bits = sign | (exponent + 112) << 23 | mantissa << 13;
    else if (!mantissa) bits = sign;                                  /* ±0 */
    else {                                                            /* subnormal: normalise */
        uint32_t e = 113;
        while (!(mantissa & 0x400)) mantissa <<= 1, e--;
        bits = sign | e << 23 | (mantissa & 0x3ff) << 13;
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* Widens n little-endian halves at the start of p into n floats, in place:
   from the last, so no half is overwritten before it is read. */
static void widen_halves(float *p, size_t n) {
    const unsigned char *bytes = (const unsigned char *)p;
    for (size_t i = n; i-- > 0;) {
        const float f = half_to_float((unsigned)bytes[2 * i] | (unsigned)bytes[2 * i + 1] << 8);
        memcpy(p + i, &f, sizeof f);
    }
}

static mha_status keep_metadata(gpt_model *m, const st_header *h) {
    size_t chars = 0;
    for (int i = 0; i < h->metadata_count; i++) chars += strlen(h->metadata[i].key) + strlen(h->metadata[i].value) + 2;
    m->metadata = calloc((size_t)h->metadata_count + 1, sizeof *m->metadata);
    m->metadata_strings = malloc(chars + 1);
    if (!m->metadata || !m->metadata_strings) return mha_fail(MHA_ERR_OUT_OF_MEMORY, "not enough memory for the metadata");
    char *p = m->metadata_strings;
    for (int i = 0; i < h->metadata_count; i++) {
        const char *kv[2] = {h->metadata[i].key, h->metadata[i].value};
        const char **slots[2] = {&m->metadata[i].key, &m->metadata[i].value};
        for (int k = 0; k < 2; k++) {
            const size_t n = strlen(kv[k]) + 1;
            memcpy(p, kv[k], n);
            *slots[k] = p;
            p += n;
        }
    }
    m->metadata_count = h->metadata_count;
    return MHA_OK;
}

mha_status gpt_load_finish(gpt_loader *ld, gpt_model **out) {
    if (!ld || !out) {
        gpt_loader_destroy(ld);
        return mha_fail(MHA_ERR_NULL_ARGUMENT, "gpt_load_finish needs a loader and an output pointer");
    }
    *out = NULL;
    gpt_model *m = ld->model;
    mha_status status = MHA_OK;
    for (int i = 0; i < m->tensor_count && !status; i++) {
        const gpt_tensor_info *t = &m->tensors[i];
        const size_t n = (size_t)t->rows * t->cols;
        float *p = gpt_param(m, i);
        if (!strcmp(ld->source[i]->dtype, "F16")) widen_halves(p, n);
        const ptrdiff_t at = mha_first_non_finite(p, n);
        if (at >= 0)
            status = mha_fail(MHA_ERR_BAD_MODEL, "tensor %s has %s at index %ld; every weight must be a finite number",
                              ld->source[i]->name, isnan(p[at]) ? "NaN" : p[at] > 0 ? "Infinity" : "-Infinity", (long)at);
    }
    if (!status) status = keep_metadata(m, &ld->header);
    if (!status) {
        ld->model = NULL; /* handed out */
        *out = m;
    }
    gpt_loader_destroy(ld);
    return status;
}

void gpt_loader_destroy(gpt_loader *ld) {
    if (!ld) return;
    st_free(&ld->header);
    gpt_model_destroy(ld->model);
    free(ld->source);
    free(ld);
}

mha_status gpt_load(const void *bytes, size_t size, int heads, gpt_model **out) {
    if (!bytes || !out) return mha_fail(MHA_ERR_NULL_ARGUMENT, "gpt_load needs the file's bytes and an output pointer");
    *out = NULL;
    gpt_loader *ld;
    mha_status status = gpt_load_begin(bytes, size, size, heads, 0, &ld);
    if (status) return status;
    for (int i = 0; i < gpt_loader_copies(ld); i++) {
        uint64_t offset;
        size_t n;
        void *dest;
        gpt_loader_copy(ld, i, &offset, &n, &dest);
        memcpy(dest, (const unsigned char *)bytes + offset, n); /* st_parse checked the range is in the file */
    }
    return gpt_load_finish(ld, out);
}

/* ---- the forward pass ---- */

static size_t rup(size_t n) { return (n + 15) & ~(size_t)15; } /* keeps every buffer 64-byte aligned */

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
         + work_scratch_floats(c, S, T, keep) + 16 * 20; /* scratch, alignment */
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
    const size_t N = w->rows, d = (size_t)c->d_model, L = (size_t)c->layers, kept = keep ? L : 1;
    float **bufs[] = {&w->res, &w->ln1, &w->ln2, &w->ln1_stat, &w->ln2_stat, &w->qkv, &w->concat, &w->fc, &w->act,
                      &w->att, &w->lnf, &w->lnf_stat, &w->logits, &w->scratch};
    const size_t sizes[] = {(keep ? 2 * L + 1 : 1) * N * d, kept * N * d, kept * N * d, kept * N * 2, kept * N * 2,
                            L * N * 3 * d, kept * N * d, kept * N * 4 * d, kept * N * 4 * d,
                            L * (size_t)S * (size_t)c->heads * (size_t)T * (size_t)T, N * d, N * 2, N * (size_t)c->vocab, 0};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) {
        *bufs[i] = p;
        p += rup(sizes[i]);
    }
    return MHA_OK;
}

void gpt_work_free(gpt_work *w) {
    free(w->block);
    w->block = NULL;
}

/* out = LN(x)·g + b per row of d; stat gets each row's mean and 1/std. */
static void layer_norm(float *out, float *stat, const float *x, const float *g, const float *b, int N, int d) {
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

/* out (N×n) (+)= in (N×k) · w (k×n) + b. */
static void linear(float *out, const float *in, const float *w, const float *b, int N, int k, int n, int accumulate,
                   float *scratch) {
    for (int r = 0; r < N; r++) {
        float *o = out + (size_t)r * n;
        if (accumulate)
            for (int j = 0; j < n; j++) o[j] += b[j];
        else
            memcpy(o, b, (size_t)n * sizeof *o);
    }
    mha_matmul_fast(out, n, in, k, w, n, 0, N, k, n, 1, scratch);
}

/* The heads of one layer over S sequences, a part per sequence and head. */
typedef struct heads_task {
    const float *qkv;
    float *concat, *att;           /* att: this layer's S×h×T×T weights */
    const unsigned char *enabled;  /* this layer's h, or NULL */
    int h, dk, T, from;            /* query rows from .. T-1 */
    float scale;
    atomic_llong failure;          /* (s·h + head)·T + row of the first scores not finite, or LLONG_MAX */
} heads_task;

static void attend_head(void *task, int part, int parts, float *scratch) {
    (void)parts;
    heads_task *t = task;
    const int h = t->h, dk = t->dk, T = t->T, d = h * dk, s = part / h, i = part % h;
    const size_t at = (size_t)s * T * 3 * d + (size_t)i * dk;
    const mha_head_view view = {.q = t->qkv + at, .k = t->qkv + at + d, .v = t->qkv + at + 2 * d,
                                .stride = 3 * d, .len = T, .dk = dk, .scale = t->scale, .causal = 1, .from = t->from};
    float *head = scratch, *kernel_scratch = scratch + (size_t)T * dk; /* T×d_k, then the kernel's */
    const int bad_row = mha_attend_fast(&view, t->att + (size_t)part * T * T, head, kernel_scratch);
    if (bad_row >= 0) {
        mha_pool_keep_first(&t->failure, (long long)part * T + bad_row);
        return;
    }
    const int on = !t->enabled || t->enabled[i];
    for (int r = t->from; r < T; r++) {
        float *dst = t->concat + ((size_t)s * T + r) * d + (size_t)i * dk;
        if (on) memcpy(dst, head + (size_t)r * dk, (size_t)dk * sizeof *dst);
        else memset(dst, 0, (size_t)dk * sizeof *dst);
    }
}

mha_status gpt_run(const gpt_model *m, gpt_work *w, const int *tokens, int stride, int S, int T, int from,
                   const unsigned char *enabled) {
    const gpt_config *c = &m->config;
    const int d = c->d_model, h = c->heads, dk = d / h, N = S * T, F = from, n = N - F; /* rows F .. N-1 are computed */
    const size_t rows = w->rows, fd = (size_t)F * d;
    w->S = S, w->T = T;
    const float *wte = gpt_param(m, GPT_T_WTE);
    mha_embed(w->res, wte, gpt_param(m, GPT_T_WPE), tokens, stride, S, T, F, d);
    const float scale = (float)(1.0 / sqrt((double)dk));
    for (int l = 0; l < c->layers && n > 0; l++) {
        const float *p[GPT_B_COUNT];
        for (int b = 0; b < GPT_B_COUNT; b++) p[b] = gpt_param(m, gpt_block_tensor(l, b));
        const float *in = gpt_slice(w, w->res, 2 * l, rows * d) + fd;
        float *mid = gpt_slice(w, w->res, 2 * l + 1, rows * d) + fd, *out = gpt_slice(w, w->res, 2 * l + 2, rows * d) + fd;
        float *ln1 = gpt_slice(w, w->ln1, l, rows * d) + fd, *ln2 = gpt_slice(w, w->ln2, l, rows * d) + fd;
        float *qkv = w->qkv + (size_t)l * rows * 3 * d, *concat = gpt_slice(w, w->concat, l, rows * d);
        float *fc = gpt_slice(w, w->fc, l, rows * 4 * d) + 4 * fd, *act = gpt_slice(w, w->act, l, rows * 4 * d) + 4 * fd;

        layer_norm(ln1, gpt_slice(w, w->ln1_stat, l, rows * 2) + 2 * F, in, p[GPT_B_LN1_W], p[GPT_B_LN1_B], n, d);
        linear(qkv + 3 * fd, ln1, p[GPT_B_ATTN_W], p[GPT_B_ATTN_B], n, d, 3 * d, 0, w->scratch);
        heads_task task = {qkv, concat, w->att + (size_t)l * S * h * T * T, enabled ? enabled + l * h : NULL,
                           h, dk, T, F, scale, LLONG_MAX};
        mha_pool_run(attend_head, &task, S * h, mha_pool_worth(2.0 * S * (T - F) * T * d), w->scratch, w->scratch_floats);
        const long long failure = atomic_load(&task.failure);
        if (failure != LLONG_MAX) {
            const int i = (int)(failure / T % h), bad_row = (int)(failure % T);
            return mha_fail_at(MHA_ERR_NOT_FINITE, (mha_error_place){"scores", i, bad_row, -1},
                               "the scores of layer %d, head %d overflow float32 at row %d: the model's weights are "
                               "too large", l, i, bad_row);
        }
        if (mid != in) memcpy(mid, in, (size_t)n * d * sizeof *mid);
        linear(mid, concat + fd, p[GPT_B_PROJ_W], p[GPT_B_PROJ_B], n, d, d, 1, w->scratch);
        layer_norm(ln2, gpt_slice(w, w->ln2_stat, l, rows * 2) + 2 * F, mid, p[GPT_B_LN2_W], p[GPT_B_LN2_B], n, d);
        linear(fc, ln2, p[GPT_B_FC_W], p[GPT_B_FC_B], n, d, 4 * d, 0, w->scratch);
        mha_gelu_fast(act, fc, (size_t)n * 4 * d);
        if (out != mid) memcpy(out, mid, (size_t)n * d * sizeof *out);
        linear(out, act, p[GPT_B_OUT_W], p[GPT_B_OUT_B], n, 4 * d, d, 1, w->scratch);
    }
    const int lnf = gpt_block_tensor(c->layers, 0);
    float *logits = w->logits + (size_t)F * c->vocab;
    layer_norm(w->lnf + fd, w->lnf_stat + 2 * F, gpt_slice(w, w->res, 2 * c->layers, rows * d) + fd, gpt_param(m, lnf),
               gpt_param(m, lnf + 1), n, d);
    mha_matmul_fast(logits, c->vocab, w->lnf + fd, d, wte, d, 1, n, d, c->vocab, 0, w->scratch); /* · wteᵀ */
    const ptrdiff_t at = mha_first_non_finite(logits, (size_t)n * c->vocab);
    if (at < 0) return MHA_OK;
    const int row = F + (int)(at / c->vocab), column = (int)(at % c->vocab);
    return mha_fail_at(MHA_ERR_NOT_FINITE, (mha_error_place){"logits", -1, row, column},
                       "the logits overflow float32 at row %d, column %d: the model's weights are too large", row, column);
}

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

/* Moves the first `kept` rows of each of the `blocks` T×T attention maps to
   their places in maps of T2×T2, in place; their columns past both Ts are the
   causal mask's zeros. Growing moves the last rows first, shrinking the first:
   no row lands on one not yet moved. */
static void relayout(float *att, int blocks, int kept, int T, int T2) {
    const size_t old_size = (size_t)T * T, new_size = (size_t)T2 * T2;
    const int width = T < T2 ? T : T2;
    if (T2 > T) {
        for (int b = blocks - 1; b >= 0; b--)
            for (int r = kept - 1; r >= 0; r--) {
                float *dst = att + b * new_size + (size_t)r * T2;
                memmove(dst, att + b * old_size + (size_t)r * T, (size_t)width * sizeof *dst);
                memset(dst + width, 0, (size_t)(T2 - width) * sizeof *dst);
            }
    } else if (T2 < T) {
        for (int b = 0; b < blocks; b++)
            for (int r = 0; r < kept; r++)
                memmove(att + b * new_size + (size_t)r * T2, att + b * old_size + (size_t)r * T, (size_t)width * sizeof *att);
    }
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

mha_status gpt_forward_reusing(gpt_model *m, const int *tokens, int len, const unsigned char *enabled) {
    if (!m || !tokens) return mha_fail(MHA_ERR_NULL_ARGUMENT, "gpt_forward needs a model and tokens");
    const int shared = shared_rows(m, tokens, len, enabled), last_len = m->len;
    m->len = 0, m->reused = 0, m->reusable = 0;
    if (len < 1) return mha_fail(MHA_ERR_BAD_SIZE, "the sequence is empty (length %d); give at least one token", len);
    if (len > m->max_tokens)
        return len > m->config.context
            ? mha_fail(MHA_ERR_SEQ_TOO_LONG, "the sequence has %d tokens but this model's context is %d", len, m->config.context)
            : mha_fail(MHA_ERR_SEQ_TOO_LONG, "the sequence has %d tokens but this model was loaded for at most %d", len,
                       m->max_tokens);
    mha_status status = gpt_check_tokens(m, tokens, 1, len);
    if (status) return status;
    if (shared) relayout(m->work.att, m->config.layers * m->config.heads, shared, last_len, len);
    if ((status = gpt_run(m, &m->work, tokens, len, 1, len, shared, enabled))) return status;
    const int heads = m->config.layers * m->config.heads;
    for (int i = 0; i < heads; i++) m->enabled[i] = enabled ? enabled[i] != 0 : 1;
    memcpy(m->tokens, tokens, (size_t)len * sizeof *tokens);
    m->len = len, m->reused = shared, m->reusable = 1;
    return MHA_OK;
}

mha_status gpt_forward(gpt_model *m, const int *tokens, int len, const unsigned char *enabled) {
    if (m) m->reusable = 0; /* nothing shared: every row computed */
    return gpt_forward_reusing(m, tokens, len, enabled);
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
    *out = m->work.att + ((size_t)layer * c->heads + head) * m->len * m->len;
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

/* ---- saving ---- */

/* Appends to a buffer that only counts once it is full. */
typedef struct writer {
    unsigned char *out;
    size_t capacity, size;
} writer;

static void put(writer *w, const void *bytes, size_t n) {
    if (w->out && w->size + n <= w->capacity) memcpy(w->out + w->size, bytes, n);
    w->size += n;
}

static void put_text(writer *w, const char *s) { put(w, s, strlen(s)); }

static void put_json_string(writer *w, const char *s) {
    put_text(w, "\"");
    for (; *s; s++) {
        const unsigned char c = (unsigned char)*s;
        char escaped[8];
        if (c == '"' || c == '\\') snprintf(escaped, sizeof escaped, "\\%c", c);
        else if (c < 0x20) snprintf(escaped, sizeof escaped, "\\u%04x", c);
        else escaped[0] = (char)c, escaped[1] = '\0';
        put_text(w, escaped);
    }
    put_text(w, "\"");
}

/* The JSON header, without its length or padding. */
static void put_header(writer *w, const gpt_model *m, const gpt_metadata *extra, int extra_count) {
    char number[64];
    snprintf(number, sizeof number, "%d", m->config.heads);
    put_text(w, "{\"__metadata__\":{\"n_head\":");
    put_json_string(w, number);
    for (int pass = 0; pass < 2; pass++) { /* the model's own, then extra; extra wins a key */
        const int n = pass ? extra_count : m->metadata_count;
        for (int i = 0; i < n; i++) {
            const gpt_metadata *e = pass ? &extra[i] : &m->metadata[i];
            int shadowed = !strcmp(e->key, "n_head");
            for (int j = 0; j < extra_count && !pass && !shadowed; j++) shadowed = !strcmp(extra[j].key, e->key);
            for (int j = 0; j < i && pass && !shadowed; j++) shadowed = !strcmp(extra[j].key, e->key);
            if (shadowed) continue;
            put_text(w, ",");
            put_json_string(w, e->key);
            put_text(w, ":");
            put_json_string(w, e->value);
        }
    }
    put_text(w, "}");
    for (int i = 0; i < m->tensor_count; i++) {
        const gpt_tensor_info *t = &m->tensors[i];
        const size_t begin = t->offset * sizeof(float), end = begin + (size_t)t->rows * t->cols * sizeof(float);
        char line[256];
        if (t->rank == 1)
            snprintf(line, sizeof line, ",\"%s\":{\"dtype\":\"F32\",\"shape\":[%d],\"data_offsets\":[%zu,%zu]}", t->name, t->cols,
                     begin, end);
        else
            snprintf(line, sizeof line, ",\"%s\":{\"dtype\":\"F32\",\"shape\":[%d,%d],\"data_offsets\":[%zu,%zu]}", t->name,
                     t->rows, t->cols, begin, end);
        put_text(w, line);
    }
    put_text(w, "}");
}

mha_status gpt_save(const gpt_model *m, const gpt_metadata *extra, int extra_count, unsigned char *out, size_t capacity,
                    size_t *size) {
    if (!m || !size || (extra_count > 0 && !extra)) return mha_fail(MHA_ERR_NULL_ARGUMENT, "gpt_save needs a model and a size pointer");
    for (int i = 0; i < extra_count; i++)
        if (!extra[i].key || !extra[i].value) return mha_fail(MHA_ERR_NULL_ARGUMENT, "metadata entry %d has no key or value", i);
    writer probe = {NULL, 0, 0};
    put_header(&probe, m, extra, extra_count);
    const size_t header = (probe.size + 7) / 8 * 8; /* padded with spaces: the data starts 8-byte aligned */
    *size = 8 + header + m->param_count * sizeof(float);
    if (!out) return MHA_OK;
    if (capacity < *size)
        return mha_fail(MHA_ERR_TOO_LARGE, "the model needs %zu bytes, more than the %zu given", *size, capacity);
    unsigned char length[8];
    for (int i = 0; i < 8; i++) length[i] = (unsigned char)((uint64_t)header >> (8 * i));
    writer w = {out, capacity, 0};
    put(&w, length, 8);
    put_header(&w, m, extra, extra_count);
    while (w.size < 8 + header) put_text(&w, " ");
    put(&w, m->params, m->param_count * sizeof(float)); /* little-endian, as the file wants, on every target we build */
    return MHA_OK;
}
