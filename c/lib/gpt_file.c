/* gpt_file.c — the GPT-2 model of gpt.h and its .safetensors file: which of
   the file's tensors is which of the model's (GPT-2's names and shapes, the
   head count), loading them in steps, and saving. The format itself (the
   header's JSON, the dtypes, the bytes' layout) is safetensors.c's. */
#include "gpt_internal.h"
#include "mha_internal.h"
#include "safetensors.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Code run once a model (or on an error), not once a token: compiled for size, as every widget downloads it.
   (-O3 elsewhere; minsize here keeps the wasm about 1 KB smaller gzipped.) */
#if defined(__clang__)
#pragma clang attribute push (__attribute__((minsize)), apply_to = function)
#endif

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
        for (int b = 0; b < GPT_B_COUNT && !known; b++) known = !strcmp(rest + 1, gpt_block_names[b]);
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
    gpt_describe_tensors(&probe);
    for (int i = 0; i < probe.tensor_count && !status; i++) {
        const st_tensor *s;
        status = find_tensor(h, infos[i].name, &s);
        if (!status) status = check_source(&probe, i, s);
    }
    free(infos);
    if (status) return status;
    if ((status = gpt_model_alloc(&c, max_tokens && max_tokens < c.context ? max_tokens : c.context, &ld->model))) return status;
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
        if (!strcmp(ld->source[i]->dtype, "F16")) st_widen_f16(p, n);
        const ptrdiff_t at = mha_first_non_finite(p, n);
        if (at >= 0)
            status = mha_fail(MHA_ERR_BAD_MODEL, "tensor %s has %s at index %ld; every weight must be a finite number",
                              ld->source[i]->name, isnan(p[at]) ? "NaN" : p[at] > 0 ? "Infinity" : "-Infinity", (long)at);
    }
    if (!status) status = keep_metadata(m, &ld->header);
    if (!status) {
        gpt_model_pack(m);
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

/* ---- saving ---- */

mha_status gpt_save(const gpt_model *m, const char *dtype, const gpt_metadata *extra, int extra_count, unsigned char *out,
                    size_t capacity, size_t *size) {
    if (!m || !size || (extra_count > 0 && !extra)) return mha_fail(MHA_ERR_NULL_ARGUMENT, "gpt_save needs a model and a size pointer");
    for (int i = 0; i < extra_count; i++)
        if (!extra[i].key || !extra[i].value) return mha_fail(MHA_ERR_NULL_ARGUMENT, "metadata entry %d has no key or value", i);
    gpt_model_unpack((gpt_model *)m); /* the file holds them row-major: the same values, laid out again */
    char heads[16];
    snprintf(heads, sizeof heads, "%d", m->config.heads);
    st_source *tensors = malloc((size_t)m->tensor_count * sizeof *tensors);
    st_entry *metadata = malloc((size_t)(1 + m->metadata_count + (extra_count > 0 ? extra_count : 0)) * sizeof *metadata);
    if (!tensors || !metadata) {
        free(tensors), free(metadata);
        return mha_fail(MHA_ERR_OUT_OF_MEMORY, "not enough memory to save the model");
    }
    int count = 0;
    metadata[count++] = (st_entry){"n_head", heads};
    for (int pass = 0; pass < 2; pass++) { /* the model's own, then extra; extra wins a key */
        const int n = pass ? extra_count : m->metadata_count;
        for (int i = 0; i < n; i++) {
            const gpt_metadata *e = pass ? &extra[i] : &m->metadata[i];
            int shadowed = !strcmp(e->key, "n_head");
            for (int j = 0; j < extra_count && !pass && !shadowed; j++) shadowed = !strcmp(extra[j].key, e->key);
            for (int j = 0; j < i && pass && !shadowed; j++) shadowed = !strcmp(extra[j].key, e->key);
            if (!shadowed) metadata[count++] = (st_entry){e->key, e->value};
        }
    }
    for (int i = 0; i < m->tensor_count; i++) {
        const gpt_tensor_info *t = &m->tensors[i];
        tensors[i] = t->rank == 1 ? (st_source){t->name, 1, {t->cols}, gpt_param(m, i)}
                                  : (st_source){t->name, 2, {t->rows, t->cols}, gpt_param(m, i)};
    }
    const mha_status status = st_write(tensors, m->tensor_count, dtype, metadata, count, out, capacity, size);
    free(tensors), free(metadata);
    return status;
}

#if defined(__clang__)
#pragma clang attribute pop
#endif
