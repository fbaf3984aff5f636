/* fuzz_api.c — a fuzz harness for the whole C API (mha.h, train.h, np_random.h).

   The input bytes are a program: each byte or group of bytes picks the next
   call and its arguments, sizes included, valid and invalid, with floats drawn
   from a menu of hostile values (NaN, ±Infinity, 1e20, 3e38, subnormals, -0).
   Buffers are always the size the API documents (the C API cannot check the
   size of a pointer), so what is fuzzed is every value the API reads.
   After every call it checks the library's promises and aborts on a broken one:
   a failure has a known status name and a sentence; a forward that succeeds
   gives finite numbers, rows of weights that sum to 1 and exact zeros under the
   mask; nothing the sanitizers can see goes wrong.

   Two drivers:
     - libFuzzer, coverage-guided (tests/fuzzers.slow.test.js runs this command, for a few seconds):
         clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -DMHA_LIBFUZZER \
           c/fuzz/fuzz_api.c c/lib/[a-z]*.c -lm -o fuzz_api && mkdir -p corpus_api && ./fuzz_api -max_total_time=600 corpus_api
     - the seeded driver of fuzz_driver.h (build.sh builds it with gcc under ASan and UBSan
       as c/build/fuzz_api; tests/native.slow.test.js runs it): random programs from a
       seed, for a number of runs or seconds, the same on every machine:
         c/build/fuzz_api [seed] [runs] [seconds] */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/mha.h"
#include "../lib/np_random.h"
#include "../lib/train.h"
#include "fuzz_driver.h"

typedef struct program {
    const uint8_t *data;
    size_t size, at;
} program;

static unsigned next_byte(program *p) { return p->at < p->size ? p->data[p->at++] : 0; }
static int done(const program *p) { return p->at >= p->size; }

/* A small whole number, sometimes a hostile one. */
static int next_size(program *p, int usual_max) {
    const unsigned b = next_byte(p);
    switch (b & 15) {
    case 0: return 0;
    case 1: return -1 - (int)(b >> 4);
    case 2: return 0x7fffffff;
    case 3: return (int)0x80000000u;
    default: return 1 + (int)(next_byte(p) % (unsigned)usual_max);
    }
}

static float next_float(program *p) {
    static const float menu[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 2.0f, 1e20f, -1e20f, 3e38f, -3e38f, 1e-45f, 1e-38f};
    const unsigned b = next_byte(p);
    if (b < 200) return ((float)b - 100.0f) / 50.0f; /* the usual: small numbers */
    if (b < 200 + sizeof menu / sizeof *menu) return menu[b - 200];
    switch (b & 3) {
    case 0: return NAN;
    case 1: return INFINITY;
    case 2: return -INFINITY;
    default: return ldexpf((float)(next_byte(p) % 16), (int)(next_byte(p) % 60) - 30);
    }
}

static float *fill(program *p, float *a, size_t n) {
    for (size_t i = 0; i < n; i++) a[i] = next_float(p);
    return a;
}

static void fail(const char *what) {
    fprintf(stderr, "fuzz_api: broken promise: %s (last error: %s)\n", what, mha_last_error());
    abort();
}

static long seen[MHA_STATUS_COUNT]; /* how often each status came back, for the driver's summary */

/* A failure must carry a known code and a sentence. */
static void check_failure(mha_status status) {
    if ((unsigned)status < MHA_STATUS_COUNT) seen[status]++;
    if (status == MHA_OK) return;
    if (mha_last_status() != status) fail("mha_last_status is not the failing call's status");
    if (strcmp(mha_status_name(status), "UNKNOWN") == 0) fail("a failure with an unknown status");
    if (mha_last_error()[0] == '\0') fail("a failure without a sentence");
    const mha_error_place *place = mha_last_error_place();
    if (place->name && status != MHA_ERR_NOT_FINITE) fail("a place for a failure other than NOT_FINITE");
}

/* After a good forward: finite results, weights that are distributions, zeros under the mask. */
static void check_result(mha_layer *layer, int len, int d, int heads, unsigned flags) {
    const float *t;
    for (int id = MHA_T_Q; id <= MHA_T_OUTPUT; id++) {
        const int per_head = id == MHA_T_SCORES || id == MHA_T_ATTENTION || id == MHA_T_HEAD;
        for (int head = 0; head < (per_head ? heads : 1); head++) {
            const mha_status status = mha_tensor(layer, (mha_tensor_id)id, head, &t);
            check_failure(status);
            /* The masked half of the scores is first computed when asked for, and may overflow then. */
            if (status == MHA_ERR_NOT_FINITE && id == MHA_T_SCORES && (flags & MHA_CAUSAL)) continue;
            if (status != MHA_OK) fail("a tensor after a good forward");
            const size_t n = id == MHA_T_SCORES || id == MHA_T_ATTENTION ? (size_t)len * len
                           : id == MHA_T_HEAD ? (size_t)len * (d / heads)
                           : id == MHA_T_K || id == MHA_T_V ? (size_t)len * (d / heads) * mha_layer_kv_heads(layer)
                           : (size_t)len * d;
            for (size_t i = 0; i < n; i++)
                if (!isfinite(t[i])) fail("a non-finite result after a good forward");
            if (id != MHA_T_ATTENTION) continue;
            for (int r = 0; r < len; r++) {
                double sum = 0;
                for (int c = 0; c < len; c++) {
                    sum += t[(size_t)r * len + c];
                    if ((flags & MHA_CAUSAL) && c > r && t[(size_t)r * len + c] != 0.0f) fail("a masked weight is not 0");
                }
                if (fabs(sum - 1.0) > 1e-4) fail("a row of weights does not sum to 1");
            }
        }
    }
}

static void fuzz_layer(program *p) {
    const int d = next_size(p, 24), heads = next_size(p, 8), max_len = next_size(p, 12);
    const int kv_heads = (int)(next_byte(p) % 10) - 1; /* -1 .. 8: 0 is as many as heads */
    mha_desc desc = {d, heads, max_len, kv_heads};
    mha_layer *layer = NULL;
    mha_status status = mha_layer_create(&desc, &layer);
    check_failure(status);
    if (status != MHA_OK) {
        if (layer) fail("a failed create gave a layer");
        return;
    }
    for (int call = 0; call < 8 && !done(p); call++) {
        const unsigned op = next_byte(p) % 4;
        if (op == 0 || op == 1) { /* a forward, in one of the modes, valid or not */
            int len = next_size(p, max_len + 2);
            const int rows = len >= 1 && len <= max_len ? len : 1;
            const size_t kvd = (size_t)(d / heads) * mha_layer_kv_heads(layer);
            const size_t nd = (size_t)rows * d, dd = (size_t)d * d, nkv = (size_t)rows * kvd, dkv = (size_t)d * kvd;
            float *x = fill(p, malloc(nd * sizeof(float)), nd), *q = fill(p, malloc(nd * sizeof(float)), nd);
            float *k = fill(p, malloc(nkv * sizeof(float)), nkv), *v = fill(p, malloc(nkv * sizeof(float)), nkv);
            float *w[4];
            for (int i = 0; i < 4; i++) {
                const size_t n = i == 1 || i == 2 ? dkv : dd; /* wk and wv: d×(h_kv·d_k) */
                w[i] = fill(p, malloc(n * sizeof(float)), n);
            }
            unsigned char *enabled = malloc((size_t)heads);
            for (int i = 0; i < heads; i++) enabled[i] = (unsigned char)(next_byte(p) & 1);
            const unsigned mode = next_byte(p), flags = next_byte(p) & 7;
            mha_input in = {.len = len, .flags = flags, .enabled = (mode & 16) ? enabled : NULL, .wo = (mode & 32) ? w[3] : NULL};
            if (mode & 1) in.x = x, in.wq = w[0], in.wk = (mode & 4) ? NULL : w[1], in.wv = w[2];
            if (mode & 2) in.q = q, in.k = k, in.v = (mode & 8) ? NULL : v;
            status = mha_forward(layer, &in);
            check_failure(status);
            if (status == MHA_OK) check_result(layer, len, d, heads, flags);
            else if (status == MHA_ERR_NOT_FINITE && !mha_last_error_place()->name) fail("NOT_FINITE without a place");
            free(x), free(q), free(k), free(v), free(enabled);
            for (int i = 0; i < 4; i++) free(w[i]);
        } else if (op == 2) { /* any tensor, any head */
            const float *t = NULL;
            const int id = (int)(next_byte(p) % 10) - 1, pick = next_size(p, heads + 1);
            status = mha_tensor(layer, (mha_tensor_id)id, pick > 0 ? pick - 1 : pick, &t);
            check_failure(status);
            if ((status == MHA_OK) != (t != NULL)) fail("mha_tensor's pointer disagrees with its status");
        } else { /* the length of the last forward, kept only by a good one */
            const int len = mha_layer_len(layer);
            if (len < 0 || len > max_len) fail("a length outside 0 .. max_len");
        }
    }
    mha_layer_destroy(layer);
}

static void fuzz_trainer(program *p) {
    mha_train_desc desc = mha_train_default_desc(next_size(p, 4));
    desc.vocab = next_size(p, 20);
    desc.seq_len = next_size(p, 10);
    desc.d_model = next_size(p, 12);
    desc.batch = next_size(p, 4);
    desc.eval_count = next_size(p, 8);
    desc.flags = next_byte(p) & 7;
    desc.lr = next_float(p);
    desc.seed = next_byte(p);
    desc.kv_heads = (int)(next_byte(p) % 6) - 1; /* -1 .. 4: 0 is as many as heads */
    mha_trainer *tr = NULL;
    mha_status status = mha_trainer_create(&desc, &tr);
    check_failure(status);
    if (status != MHA_OK) return;
    const int L = desc.seq_len, h = desc.heads;
    int *tokens = malloc((size_t)L * 2 * sizeof(int));
    unsigned char *enabled = malloc((size_t)h);
    for (int call = 0; call < 6 && !done(p); call++) {
        for (int i = 0; i < h; i++) enabled[i] = (unsigned char)(next_byte(p) & 1);
        const unsigned char *on = (next_byte(p) & 1) ? enabled : NULL;
        mha_train_eval ev;
        mha_layer *layer;
        switch (next_byte(p) % 5) {
        case 0: check_failure(mha_trainer_step(tr, next_size(p, 3), NULL)); break;
        case 1:
            status = mha_trainer_evaluate(tr, on, &ev);
            check_failure(status);
            if (status == MHA_OK && !(ev.accuracy >= 0 && ev.accuracy <= 1)) fail("an accuracy outside [0, 1]");
            break;
        case 2:
            for (int i = 0; i < L; i++) tokens[i] = (int)(next_byte(p) % (unsigned)(desc.vocab + 4)) - 2;
            check_failure(mha_trainer_set_example(tr, tokens));
            break;
        case 3:
            status = mha_trainer_example_layer(tr, on, &layer);
            check_failure(status);
            if (status == MHA_OK && mha_layer_kv_heads(layer) != (desc.kv_heads ? desc.kv_heads : h))
                fail("the example layer's K/V heads are not the trainer's");
            break;
        default: check_failure(mha_trainer_example_predict(tr, on, tokens)); break;
        }
    }
    free(tokens), free(enabled);
    mha_trainer_destroy(tr);
}

static void fuzz_misc(program *p) {
    double naive, split;
    check_failure(mha_param_count(next_size(p, 2048), next_size(p, 64), &naive, &split));
    np_random rs;
    np_random_seed(&rs, (uint32_t)next_byte(p) << 8 | next_byte(p));
    double normals[8];
    np_random_randn(&rs, normals, next_byte(p) % 9);
    if (next_byte(p) % 8 == 0) check_failure(mha_set_threads(next_size(p, 4))); /* later layers run on these threads */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    program p = {data, size, 0};
    while (!done(&p)) {
        switch (next_byte(&p) % 4) {
        case 0: case 1: fuzz_layer(&p); break;
        case 2: fuzz_trainer(&p); break;
        default: fuzz_misc(&p); break;
        }
    }
    return 0;
}

#ifndef MHA_LIBFUZZER
int main(int argc, char **argv) {
    static uint8_t bytes[4096];
    return fuzz_seeded_main(argc, argv, "fuzz_api", bytes, sizeof bytes, seen);
}
#endif
