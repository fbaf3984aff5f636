/* test_threads.c — mha_set_threads: a layer, a model and a training step give
   the same bits on 1, 2 and 3 threads (each output is computed whole by one
   thread), failures name the same place, and bad counts are refused. Shapes are
   big enough that every step is spread over the threads. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/gpt.h"
#include "../lib/mha.h"
#include "test_check.h"

static int failures;

static unsigned rng_state = 12345;

static float uniform(float spread) { /* in [-spread, spread) */
    rng_state = rng_state * 1664525u + 1013904223u;
    return ((float)(rng_state >> 8) / 16777216.0f * 2.0f - 1.0f) * spread;
}

static float *random_matrix(size_t n, float spread) {
    float *a = malloc(n * sizeof *a);
    for (size_t i = 0; i < n; i++) a[i] = uniform(spread);
    return a;
}

enum { L = 256, D = 128, H = 4 };

/* Every tensor of one forward, concatenated. */
static float *layer_result(mha_layer *layer, const mha_input *in, size_t *count) {
    if (mha_forward(layer, in) != MHA_OK) return NULL;
    const size_t nd = (size_t)L * D, nn = (size_t)L * L;
    *count = 5 * nd + H * nn;
    float *all = malloc(*count * sizeof *all), *p = all;
    const mha_tensor_id whole[] = {MHA_T_Q, MHA_T_K, MHA_T_V, MHA_T_CONCAT, MHA_T_OUTPUT};
    for (int t = 0; t < 5; t++, p += nd) {
        const float *a;
        mha_tensor(layer, whole[t], 0, &a);
        memcpy(p, a, nd * sizeof *p);
    }
    for (int i = 0; i < H; i++, p += nn) {
        const float *a;
        mha_tensor(layer, MHA_T_ATTENTION, i, &a);
        memcpy(p, a, nn * sizeof *p);
    }
    return all;
}

static void layer_same_bits(unsigned flags) {
    float *x = random_matrix((size_t)L * D, 1), *w[4];
    for (int i = 0; i < 4; i++) w[i] = random_matrix((size_t)D * D, 0.2f);
    const unsigned char enabled[H] = {1, 0, 1, 1};
    const mha_input in = {.len = L, .x = x, .wq = w[0], .wk = w[1], .wv = w[2], .wo = w[3], .flags = flags, .enabled = enabled};
    mha_layer *before = NULL; /* created on one thread, used on three */
    CHECK(mha_layer_create(&(mha_desc){D, H, L, 0}, &before) == MHA_OK, "create: %s", mha_last_error());
    size_t n = 0, m = 0;
    float *one = layer_result(before, &in, &n);
    for (int threads = 2; threads <= 3; threads++) {
        CHECK(mha_set_threads(threads) == MHA_OK && mha_threads() == threads, "set %d threads: %s", threads, mha_last_error());
        mha_layer *after = NULL;
        CHECK(mha_layer_create(&(mha_desc){D, H, L, 0}, &after) == MHA_OK, "create: %s", mha_last_error());
        float *many = layer_result(after, &in, &m), *again = layer_result(before, &in, &m);
        CHECK(one && many && again && m == n && !memcmp(one, many, n * sizeof *one) && !memcmp(one, again, n * sizeof *one),
              "flags %u: %d threads give other bits than 1", flags, threads);
        free(many), free(again);
        mha_layer_destroy(after);
    }
    CHECK(mha_set_threads(1) == MHA_OK && mha_threads() == 1, "back to 1 thread");
    free(one), free(x);
    for (int i = 0; i < 4; i++) free(w[i]);
    mha_layer_destroy(before);
}

/* Head 2's scores overflow first at row 5 (q row 5 huge in head 2's columns): the same place on any thread count. */
static void failure_same_place(void) {
    float *q = random_matrix((size_t)L * D, 1), *k = random_matrix((size_t)L * D, 1), *v = random_matrix((size_t)L * D, 1);
    for (int c = 2 * D / H; c < 3 * D / H; c++) q[5 * D + c] = 3e38f, k[c] = 1e20f;
    mha_layer *layer = NULL;
    CHECK(mha_layer_create(&(mha_desc){D, H, L, 0}, &layer) == MHA_OK, "create: %s", mha_last_error());
    for (int threads = 1; threads <= 3; threads++) {
        mha_set_threads(threads);
        const mha_input in = {.len = L, .q = q, .k = k, .v = v};
        CHECK(mha_forward(layer, &in) == MHA_ERR_NOT_FINITE, "%d threads: overflow is NOT_FINITE", threads);
        const mha_error_place *place = mha_last_error_place();
        CHECK(place->name && !strcmp(place->name, "scores") && place->head == 2 && place->row == 5,
              "%d threads: place %s head %d row %d", threads, place->name, place->head, place->row);
    }
    mha_set_threads(1);
    free(q), free(k), free(v);
    mha_layer_destroy(layer);
}

/* A model's forward and one training step. */
static void model_same_bits(void) {
    const gpt_config config = {.layers = 2, .heads = 4, .d_model = 128, .context = 128, .vocab = 1200};
    int tokens[2 * 128];
    for (int i = 0; i < 2 * 128; i++) tokens[i] = (int)(i * 37u % 1200u);
    float *reference = NULL;
    double reference_loss = 0;
    const size_t n = (size_t)128 * 1200;
    for (int threads = 1; threads <= 3; threads++) {
        CHECK(mha_set_threads(threads) == MHA_OK, "set %d threads", threads);
        gpt_model *model = NULL;
        gpt_trainer *trainer = NULL;
        const gpt_train_desc desc = gpt_train_default_desc(2, 128);
        CHECK(gpt_model_create(&config, 7, &model) == MHA_OK && gpt_trainer_create(model, &desc, &trainer) == MHA_OK,
              "model: %s", mha_last_error());
        double loss = 0;
        CHECK(gpt_train_step(trainer, tokens, 2, 128, 1e-3f, &loss) == MHA_OK, "step: %s", mha_last_error());
        const float *logits = NULL;
        CHECK(gpt_forward(model, tokens, 128, NULL) == MHA_OK && gpt_logits(model, &logits) == MHA_OK, "forward: %s",
              mha_last_error());
        if (!reference) {
            reference = malloc(n * sizeof *reference);
            memcpy(reference, logits, n * sizeof *reference);
            reference_loss = loss;
        } else {
            CHECK(loss == reference_loss && !memcmp(reference, logits, n * sizeof *reference),
                  "%d threads: a step and a forward give other bits than 1 (loss %.9g vs %.9g)", threads, loss, reference_loss);
        }
        gpt_trainer_destroy(trainer);
        gpt_model_destroy(model);
    }
    mha_set_threads(1);
    free(reference);
}

static void bad_counts(void) {
    CHECK(mha_set_threads(0) == MHA_ERR_BAD_SIZE, "0 threads refused");
    CHECK(mha_set_threads(MHA_MAX_THREADS + 1) == MHA_ERR_BAD_SIZE, "%d threads refused", MHA_MAX_THREADS + 1);
    CHECK(mha_threads() == 1, "a refused count leaves 1 thread");
}

/* The sizes whose steps reach the pool's million multiply-adds: 64 rows × 128² is the first. */
static void which_layers_thread(void) {
    CHECK(!mha_layer_may_thread(4, 3), "the lesson's layer stays on one thread");
    CHECK(!mha_layer_may_thread(64, 16), "d 64, 16 words stays on one thread");
    CHECK(!mha_layer_may_thread(128, 63), "63 × 128² is under a million");
    CHECK(mha_layer_may_thread(128, 64), "64 × 128² is 2^20");
    CHECK(mha_layer_may_thread(16, 2048), "2 · 2048² · 16: the heads alone");
    CHECK(mha_layer_may_thread(768, 1024), "GPT-2's layer");
    CHECK(!mha_layer_may_thread(0, 1024) && !mha_layer_may_thread(768, -1), "sizes no layer has");
    CHECK(mha_layer_may_thread(1 << 30, 1 << 30), "sizes past int's products");
}

int test_threads(void) {
    layer_same_bits(MHA_SCALE);
    layer_same_bits(MHA_SCALE | MHA_CAUSAL);
    failure_same_place();
    model_same_bits();
    bad_counts();
    which_layers_thread();
    return failures;
}
