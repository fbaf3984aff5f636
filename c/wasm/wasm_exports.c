/* wasm_exports.c — the only file that knows about Emscripten: flat, integer-only
   entry points for the JS API in web/src/. Failures return 0 (or a status) and
   leave the reason in the library's error channel (mha_last_status,
   mha_last_error, mha_last_error_place). */
#include <emscripten.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/mha.h"
#include "../lib/mha_internal.h"
#include "../lib/np_random.h"

/* What the exports hand back by pointer. JS allocates one of these (its size
   from wasm_results_bytes) and reads the member the call it made filled, so no
   call can write past what JS allocated. */
typedef union wasm_results {
    int error_place[3];      /* head, row, column */
    mha_param_bill param_bill; /* naive, split, wq, wk, wv, wo, kv_cache_bytes: 7 doubles */
    double loader_copy[2];   /* the copy's offset in the file, its length */
    int gpt_config[6];       /* layers, heads, d_model, context, vocab, max_tokens */
    double evaluation[6];    /* loss, accuracy, then loss and accuracy of targets 0 and 1 */
    int param_shape[2];      /* rows, cols */
} wasm_results;

EMSCRIPTEN_KEEPALIVE int wasm_results_bytes(void) { return (int)sizeof(wasm_results); }

EMSCRIPTEN_KEEPALIVE int wasm_last_status(void) { return mha_last_status(); }
EMSCRIPTEN_KEEPALIVE const char *wasm_last_error(void) { return mha_last_error(); }
EMSCRIPTEN_KEEPALIVE const char *wasm_status_name(int status) { return mha_status_name((mha_status)status); }

/* Where the last failure was: head, row, column (-1 where they do not apply);
   returns the name of the input or stage, or NULL. */
EMSCRIPTEN_KEEPALIVE const char *wasm_last_error_place(wasm_results *out) {
    const mha_error_place *place = mha_last_error_place();
    int *at = out->error_place;
    at[0] = place->head, at[1] = place->row, at[2] = place->column;
    return place->name;
}

/* A layer as JavaScript holds it: the core's layer, plus staging buffers for
   the inputs, so JS copies its arrays in without allocating per call. */
enum slot { SLOT_X_OR_Q, SLOT_K, SLOT_V, SLOT_WQ, SLOT_WK, SLOT_WV, SLOT_WO, SLOT_ENABLED, SLOT_COUNT };
typedef struct js_layer {
    mha_layer *layer;
    void *staging[SLOT_COUNT]; /* X_OR_Q, K, V: max_len×d floats; WQ..WO: d×d floats; ENABLED: h bytes
                                  (K, V, WK and WV use their first L×h_kv·d_k or d×h_kv·d_k) */
} js_layer;

EMSCRIPTEN_KEEPALIVE js_layer *wasm_layer_create(int d_model, int heads, int max_len, int kv_heads) {
    mha_desc desc = {d_model, heads, max_len, kv_heads};
    mha_layer *layer = NULL;
    if (mha_layer_create(&desc, &layer) != MHA_OK) return NULL;
    const size_t nd = (size_t)max_len * d_model, dd = (size_t)d_model * d_model;
    js_layer *js = calloc(1, sizeof *js);
    float *block = js ? malloc((3 * nd + 4 * dd) * sizeof(float) + (size_t)heads) : NULL;
    if (!block) {
        free(js);
        mha_layer_destroy(layer);
        mha_fail(MHA_ERR_OUT_OF_MEMORY, "not enough memory for the inputs of d_model %d, maxLen %d", d_model, max_len);
        return NULL;
    }
    js->layer = layer;
    for (int s = SLOT_X_OR_Q; s <= SLOT_V; s++, block += nd) js->staging[s] = block;
    for (int s = SLOT_WQ; s <= SLOT_WO; s++, block += dd) js->staging[s] = block;
    js->staging[SLOT_ENABLED] = block;
    memset(block, 1, (size_t)heads); /* all heads on */
    return js;
}

EMSCRIPTEN_KEEPALIVE void wasm_layer_destroy(js_layer *js) {
    if (!js) return;
    mha_layer_destroy(js->layer);
    free(js->staging[0]);
    free(js);
}

/* The core's layer, for wasm_tensor and wasm_layer_len. */
EMSCRIPTEN_KEEPALIVE mha_layer *wasm_layer_core(js_layer *js) { return js->layer; }
EMSCRIPTEN_KEEPALIVE int wasm_layer_len(mha_layer *layer) { return mha_layer_len(layer); }
EMSCRIPTEN_KEEPALIVE void wasm_layer_forget(mha_layer *layer) { mha_layer_forget(layer); }
/* Where JS writes input `slot` (0 for a slot that does not exist). */
EMSCRIPTEN_KEEPALIVE void *wasm_layer_staging(js_layer *js, int slot) {
    return slot >= 0 && slot < SLOT_COUNT ? js->staging[slot] : NULL;
}

/* Runs a forward on what the caller put in the layer's staging buffers. */
EMSCRIPTEN_KEEPALIVE int wasm_forward(js_layer *js, int len, int projection, int has_wo, int flags) {
    float *const *s = (float *const *)js->staging;
    mha_input in = {
        .len = len,
        .x = projection ? s[SLOT_X_OR_Q] : NULL,
        .wq = projection ? s[SLOT_WQ] : NULL,
        .wk = projection ? s[SLOT_WK] : NULL,
        .wv = projection ? s[SLOT_WV] : NULL,
        .q = projection ? NULL : s[SLOT_X_OR_Q],
        .k = projection ? NULL : s[SLOT_K],
        .v = projection ? NULL : s[SLOT_V],
        .wo = has_wo ? s[SLOT_WO] : NULL,
        .flags = (unsigned)flags,
        .enabled = js->staging[SLOT_ENABLED],
    };
    return mha_forward(js->layer, &in);
}

EMSCRIPTEN_KEEPALIVE const float *wasm_tensor(mha_layer *layer, int id, int head) {
    const float *out = NULL;
    mha_tensor(layer, (mha_tensor_id)id, head, &out);
    return out;
}

EMSCRIPTEN_KEEPALIVE int wasm_param_bill(int d_model, int heads, int kv_heads, int bytes_per_value, wasm_results *out) {
    return mha_param_bill_count(d_model, heads, kv_heads, bytes_per_value, &out->param_bill);
}

EMSCRIPTEN_KEEPALIVE np_random *wasm_random_create(unsigned seed) {
    np_random *rs = malloc(sizeof *rs);
    if (rs) np_random_seed(rs, seed);
    return rs;
}

EMSCRIPTEN_KEEPALIVE void wasm_random_randn(np_random *rs, double *out, int n) { np_random_randn(rs, out, (size_t)n); }

EMSCRIPTEN_KEEPALIVE void wasm_random_sample(np_random *rs, double *out, int n) {
    for (int i = 0; i < n; i++) out[i] = np_random_double(rs);
}

EMSCRIPTEN_KEEPALIVE void *wasm_malloc(int bytes) { return malloc((size_t)bytes); }
EMSCRIPTEN_KEEPALIVE void wasm_free(void *p) { free(p); }

/* ==========================================================================
   Training (c/lib/train.h): exports for the Trainer of web/src/trainer.js.
   Same conventions as above: a failing call returns 0 or a status, and
   wasm_last_status() and wasm_last_error() say why. Buffers passed in
   (enabled, tokens, out) belong to the caller and are only read or written
   during the call.
   ========================================================================== */
#include "../lib/train.h"

/* Every field not given here keeps mha_train_default_desc's value. */
EMSCRIPTEN_KEEPALIVE mha_trainer *wasm_trainer_create(int heads, int d_model, int seq_len, int vocab, int batch,
                                                      int eval_count, int flags, unsigned seed, float lr, int kv_heads) {
    mha_train_desc desc = mha_train_default_desc(heads);
    desc.kv_heads = kv_heads;
    desc.d_model = d_model;
    desc.seq_len = seq_len;
    desc.vocab = vocab;
    desc.batch = batch;
    desc.eval_count = eval_count;
    desc.flags = (unsigned)flags;
    desc.seed = seed;
    desc.lr = lr;
    mha_trainer *tr = NULL;
    mha_trainer_create(&desc, &tr);
    return tr;
}

EMSCRIPTEN_KEEPALIVE void wasm_trainer_destroy(mha_trainer *tr) { mha_trainer_destroy(tr); }
EMSCRIPTEN_KEEPALIVE void wasm_trainer_reset(mha_trainer *tr) { mha_trainer_reset(tr); }
EMSCRIPTEN_KEEPALIVE int wasm_trainer_step(mha_trainer *tr, int n) { return mha_trainer_step(tr, n, NULL); }
EMSCRIPTEN_KEEPALIVE float wasm_trainer_loss(mha_trainer *tr) { return mha_trainer_loss(tr); }
EMSCRIPTEN_KEEPALIVE double wasm_trainer_steps(mha_trainer *tr) { return (double)mha_trainer_steps(tr); }
EMSCRIPTEN_KEEPALIVE int wasm_trainer_param_count(mha_trainer *tr) { return mha_trainer_param_count(tr); }

/* Target 0 is the previous token, target 1 the first. */
EMSCRIPTEN_KEEPALIVE int wasm_trainer_evaluate(mha_trainer *tr, const unsigned char *enabled, wasm_results *out) {
    mha_train_eval ev;
    const int status = mha_trainer_evaluate(tr, enabled, &ev);
    if (status == MHA_OK) {
        double *at = out->evaluation;
        at[0] = ev.loss, at[1] = ev.accuracy;
        at[2] = ev.target_loss[0], at[3] = ev.target_accuracy[0];
        at[4] = ev.target_loss[1], at[5] = ev.target_accuracy[1];
    }
    return status;
}

/* A parameter block (values, or its gradient when gradient != 0), and its shape. */
EMSCRIPTEN_KEEPALIVE float *wasm_trainer_param(mha_trainer *tr, int id, int gradient, wasm_results *shape) {
    float *values = NULL;
    const float *grad = NULL;
    if (mha_trainer_param(tr, (mha_train_param)id, &values, &grad, &shape->param_shape[0], &shape->param_shape[1])) return NULL;
    return gradient ? (float *)grad : values;
}

EMSCRIPTEN_KEEPALIVE int wasm_trainer_set_example(mha_trainer *tr, const int *tokens) {
    return mha_trainer_set_example(tr, tokens);
}

EMSCRIPTEN_KEEPALIVE const int *wasm_trainer_example(mha_trainer *tr) { return mha_trainer_example(tr); }

/* The example through mha_forward; read it with wasm_tensor. */
EMSCRIPTEN_KEEPALIVE mha_layer *wasm_trainer_example_layer(mha_trainer *tr, const unsigned char *enabled) {
    mha_layer *layer = NULL;
    mha_trainer_example_layer(tr, enabled, &layer);
    return layer;
}

EMSCRIPTEN_KEEPALIVE int wasm_trainer_example_predict(mha_trainer *tr, const unsigned char *enabled, int *out) {
    return mha_trainer_example_predict(tr, enabled, out);
}

/* ==========================================================================
   The GPT-2 model (c/lib/gpt.h): exports for the Model of web/src/gpt-model.js.
   Loading is split so the file's bytes stay in JavaScript: JS copies the
   header in, then each tensor's bytes straight to where the model wants them.
   ========================================================================== */
#include "../lib/gpt.h"

/* head: the file's first head_size bytes (its header); file_size: the whole file's length. */
EMSCRIPTEN_KEEPALIVE gpt_loader *wasm_gpt_load_begin(const unsigned char *head, int head_size, double file_size, int heads,
                                                      int max_tokens) {
    gpt_loader *loader = NULL;
    if (head_size < 0 || !(file_size >= 0 && file_size <= 9007199254740992.0)) { /* 2^53: what JS can count */
        mha_fail(MHA_ERR_BAD_MODEL, "a file of %g bytes cannot be read", file_size);
        return NULL;
    }
    gpt_load_begin(head, (size_t)head_size, (uint64_t)file_size, heads, max_tokens, &loader);
    return loader;
}

EMSCRIPTEN_KEEPALIVE int wasm_gpt_loader_copies(gpt_loader *loader) { return gpt_loader_copies(loader); }

/* Copy i: its range in the file; returns where its bytes go. */
EMSCRIPTEN_KEEPALIVE void *wasm_gpt_loader_copy(gpt_loader *loader, int i, wasm_results *range) {
    uint64_t offset;
    size_t bytes;
    void *dest = NULL;
    if (gpt_loader_copy(loader, i, &offset, &bytes, &dest)) return NULL;
    range->loader_copy[0] = (double)offset, range->loader_copy[1] = (double)bytes;
    return dest;
}

/* The model, or 0; the loader is freed either way. */
EMSCRIPTEN_KEEPALIVE gpt_model *wasm_gpt_load_finish(gpt_loader *loader) {
    gpt_model *model = NULL;
    gpt_load_finish(loader, &model);
    return model;
}

EMSCRIPTEN_KEEPALIVE void wasm_gpt_loader_destroy(gpt_loader *loader) { gpt_loader_destroy(loader); }
EMSCRIPTEN_KEEPALIVE void wasm_gpt_destroy(gpt_model *model) { gpt_model_destroy(model); }

EMSCRIPTEN_KEEPALIVE void wasm_gpt_config(gpt_model *model, wasm_results *out) {
    const gpt_config *c = gpt_model_config(model);
    int *at = out->gpt_config;
    at[0] = c->layers, at[1] = c->heads, at[2] = c->d_model, at[3] = c->context, at[4] = c->vocab;
    at[5] = gpt_model_max_tokens(model);
}

EMSCRIPTEN_KEEPALIVE int wasm_gpt_metadata_count(gpt_model *model) { return gpt_model_metadata_count(model); }

/* Entry i's key (value 0) or value (value 1). */
EMSCRIPTEN_KEEPALIVE const char *wasm_gpt_metadata(gpt_model *model, int i, int value) {
    const gpt_metadata *entry = gpt_model_metadata(model, i);
    return !entry ? NULL : value ? entry->value : entry->key;
}

/* Model.forward: JS cannot write the parameters, so what a forward kept always still holds. */
EMSCRIPTEN_KEEPALIVE int wasm_gpt_forward_reusing(gpt_model *model, const int *tokens, int len, const unsigned char *enabled) {
    return gpt_forward_reusing(model, tokens, len, enabled);
}

/* Model.step, Model.rewind, Model.freeCache (max_tokens 0) and its reserving again. */
EMSCRIPTEN_KEEPALIVE int wasm_gpt_step(gpt_model *model, int token, const unsigned char *enabled) {
    return gpt_step(model, token, enabled);
}
EMSCRIPTEN_KEEPALIVE int wasm_gpt_rewind(gpt_model *model, int len) { return gpt_rewind(model, len); }
EMSCRIPTEN_KEEPALIVE int wasm_gpt_reserve(gpt_model *model, int max_tokens) { return gpt_model_reserve(model, max_tokens); }

EMSCRIPTEN_KEEPALIVE int wasm_gpt_len(gpt_model *model) { return gpt_model_len(model); }
EMSCRIPTEN_KEEPALIVE int wasm_gpt_reused(gpt_model *model) { return gpt_model_reused(model); }
EMSCRIPTEN_KEEPALIVE void wasm_gpt_forget(gpt_model *model) { gpt_model_forget(model); }

EMSCRIPTEN_KEEPALIVE const float *wasm_gpt_attention(gpt_model *model, int layer, int head) {
    const float *out = NULL;
    gpt_attention(model, layer, head, &out);
    return out;
}

EMSCRIPTEN_KEEPALIVE const float *wasm_gpt_qkv(gpt_model *model, int layer) {
    const float *out = NULL;
    gpt_qkv(model, layer, &out);
    return out;
}

EMSCRIPTEN_KEEPALIVE const float *wasm_gpt_logits(gpt_model *model) {
    const float *out = NULL;
    gpt_logits(model, &out);
    return out;
}

EMSCRIPTEN_KEEPALIVE int wasm_set_threads(int threads) { return mha_set_threads(threads); }
#ifdef MHA_THREADS /* asked of the threaded core only: the single-threaded one's bytes count in the widget's download */
EMSCRIPTEN_KEEPALIVE int wasm_layer_may_thread(int d_model, int max_len) { return mha_layer_may_thread(d_model, max_len); }
#endif
