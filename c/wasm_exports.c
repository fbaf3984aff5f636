/* wasm_exports.c — the only file that knows about Emscripten: flat, integer-only
   entry points for web/src/attention.js. Failures return 0 (or a status) and
   leave the reason in mha_last_error(); wasm_last_status() gives its code. */
#include <emscripten.h>
#include <stdlib.h>

#include "mha.h"
#include "np_random.h"

static mha_status last_status;

static int keep(mha_status status) { return last_status = status; }

EMSCRIPTEN_KEEPALIVE int wasm_last_status(void) { return last_status; }
EMSCRIPTEN_KEEPALIVE const char *wasm_last_error(void) { return mha_last_error(); }
EMSCRIPTEN_KEEPALIVE const char *wasm_status_name(int status) { return mha_status_name((mha_status)status); }

/* Where the last failure was: out[0..2] = head, row, column (-1 where they do not
   apply); returns the name of the input or stage, or NULL. */
EMSCRIPTEN_KEEPALIVE const char *wasm_last_error_place(int *out) {
    const mha_error_place *place = mha_last_error_place();
    out[0] = place->head, out[1] = place->row, out[2] = place->column;
    return place->name;
}

EMSCRIPTEN_KEEPALIVE mha_layer *wasm_layer_create(int d_model, int heads, int max_len) {
    mha_desc desc = {d_model, heads, max_len};
    mha_layer *layer = NULL;
    keep(mha_layer_create(&desc, &layer));
    return layer;
}

EMSCRIPTEN_KEEPALIVE void wasm_layer_destroy(mha_layer *layer) { mha_layer_destroy(layer); }
EMSCRIPTEN_KEEPALIVE int wasm_layer_len(mha_layer *layer) { return mha_layer_len(layer); }

EMSCRIPTEN_KEEPALIVE void *wasm_layer_staging(mha_layer *layer, int slot) {
    return mha_layer_staging(layer, (mha_slot)slot);
}

/* Runs a forward on what the caller put in the layer's staging buffers. */
EMSCRIPTEN_KEEPALIVE int wasm_forward(mha_layer *layer, int len, int projection, int has_wo, int flags) {
    const float *a = mha_layer_staging(layer, MHA_SLOT_X_OR_Q);
    const float *k = mha_layer_staging(layer, MHA_SLOT_K), *v = mha_layer_staging(layer, MHA_SLOT_V);
    mha_input in = {
        .len = len,
        .x = projection ? a : NULL,
        .wq = projection ? mha_layer_staging(layer, MHA_SLOT_WQ) : NULL,
        .wk = projection ? mha_layer_staging(layer, MHA_SLOT_WK) : NULL,
        .wv = projection ? mha_layer_staging(layer, MHA_SLOT_WV) : NULL,
        .q = projection ? NULL : a,
        .k = projection ? NULL : k,
        .v = projection ? NULL : v,
        .wo = has_wo ? mha_layer_staging(layer, MHA_SLOT_WO) : NULL,
        .flags = (unsigned)flags,
        .enabled = mha_layer_staging(layer, MHA_SLOT_ENABLED),
    };
    return keep(mha_forward(layer, &in));
}

EMSCRIPTEN_KEEPALIVE const float *wasm_tensor(mha_layer *layer, int id, int head) {
    const float *out = NULL;
    keep(mha_tensor(layer, (mha_tensor_id)id, head, &out));
    return out;
}

/* Writes naive and split to out[0], out[1]. */
EMSCRIPTEN_KEEPALIVE int wasm_param_count(int d_model, int heads, double *out) {
    return keep(mha_param_count(d_model, heads, &out[0], &out[1]));
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
   Training (c/train.h): exports for the Trainer of web/src/attention.js.
   Same conventions as above: a failing call returns 0 or a status, and
   wasm_last_status() and wasm_last_error() say why. Buffers passed in
   (enabled, tokens, out) belong to the caller and are only read or written
   during the call.
   ========================================================================== */
#include "train.h"

/* Every field not given here keeps mha_train_default_desc's value. */
EMSCRIPTEN_KEEPALIVE mha_trainer *wasm_trainer_create(int heads, int d_model, int seq_len, int vocab, int batch,
                                                      int eval_count, int flags, unsigned seed, float lr) {
    mha_train_desc desc = mha_train_default_desc(heads);
    desc.d_model = d_model;
    desc.seq_len = seq_len;
    desc.vocab = vocab;
    desc.batch = batch;
    desc.eval_count = eval_count;
    desc.flags = (unsigned)flags;
    desc.seed = seed;
    desc.lr = lr;
    mha_trainer *tr = NULL;
    keep(mha_trainer_create(&desc, &tr));
    return tr;
}

EMSCRIPTEN_KEEPALIVE void wasm_trainer_destroy(mha_trainer *tr) { mha_trainer_destroy(tr); }
EMSCRIPTEN_KEEPALIVE void wasm_trainer_reset(mha_trainer *tr) { mha_trainer_reset(tr); }
EMSCRIPTEN_KEEPALIVE int wasm_trainer_step(mha_trainer *tr, int n) { return keep(mha_trainer_step(tr, n, NULL)); }
EMSCRIPTEN_KEEPALIVE float wasm_trainer_loss(mha_trainer *tr) { return mha_trainer_loss(tr); }
EMSCRIPTEN_KEEPALIVE double wasm_trainer_steps(mha_trainer *tr) { return (double)mha_trainer_steps(tr); }
EMSCRIPTEN_KEEPALIVE int wasm_trainer_param_count(mha_trainer *tr) { return mha_trainer_param_count(tr); }

/* out[0..5] = loss, accuracy, loss and accuracy of target 0 (previous), of target 1 (first). */
EMSCRIPTEN_KEEPALIVE int wasm_trainer_evaluate(mha_trainer *tr, const unsigned char *enabled, double *out) {
    mha_train_eval ev;
    const int status = keep(mha_trainer_evaluate(tr, enabled, &ev));
    if (status == MHA_OK) {
        out[0] = ev.loss, out[1] = ev.accuracy;
        out[2] = ev.target_loss[0], out[3] = ev.target_accuracy[0];
        out[4] = ev.target_loss[1], out[5] = ev.target_accuracy[1];
    }
    return status;
}

/* A parameter block (values, or its gradient when gradient != 0); shape[0..1] = rows, cols. */
EMSCRIPTEN_KEEPALIVE float *wasm_trainer_param(mha_trainer *tr, int id, int gradient, int *shape) {
    float *values = NULL;
    const float *grad = NULL;
    if (keep(mha_trainer_param(tr, (mha_train_param)id, &values, &grad, &shape[0], &shape[1]))) return NULL;
    return gradient ? (float *)grad : values;
}

EMSCRIPTEN_KEEPALIVE int wasm_trainer_set_example(mha_trainer *tr, const int *tokens) {
    return keep(mha_trainer_set_example(tr, tokens));
}

EMSCRIPTEN_KEEPALIVE const int *wasm_trainer_example(mha_trainer *tr) { return mha_trainer_example(tr); }

/* The example through mha_forward; read it with wasm_tensor. */
EMSCRIPTEN_KEEPALIVE mha_layer *wasm_trainer_example_layer(mha_trainer *tr, const unsigned char *enabled) {
    mha_layer *layer = NULL;
    keep(mha_trainer_example_layer(tr, enabled, &layer));
    return layer;
}

EMSCRIPTEN_KEEPALIVE int wasm_trainer_example_predict(mha_trainer *tr, const unsigned char *enabled, int *out) {
    return keep(mha_trainer_example_predict(tr, enabled, out));
}
