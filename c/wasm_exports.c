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

EMSCRIPTEN_KEEPALIVE mha_layer *wasm_layer_create(int d_model, int heads, int max_len) {
    mha_desc desc = {d_model, heads, max_len};
    mha_layer *layer = NULL;
    keep(mha_layer_create(&desc, &layer));
    return layer;
}

EMSCRIPTEN_KEEPALIVE void wasm_layer_destroy(mha_layer *layer) { mha_layer_destroy(layer); }

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
