/* test_mha.c — native unit tests of the core, run under ASan + UBSan by `npm test`. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../lib/mha.h"
#include "test_check.h"

static int failures;

static void check_row(const float *got, const double *want, int n, double tol, const char *what) {
    for (int i = 0; i < n; i++)
        CHECK(fabs(got[i] - want[i]) <= tol, "%s[%d] = %.4f, want %.2f", what, i, got[i], want[i]);
}

/* The lesson's 猫吃鱼 q/k/v (3 tokens × 4 dims), h = 2. */
static const float lesson_q[12] = {1, 1, 0, 0, 0, 2, 0, 2, 0, 0, 1, 1};
static const float lesson_k[12] = {1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0};
static const float lesson_v[12] = {1, 0, 1, 0, 0, 1, 0, 1, 2, 0, 0, 2};

static mha_layer *lesson_layer(void) {
    mha_desc desc = {.d_model = 4, .heads = 2, .max_len = 8};
    mha_layer *layer = NULL;
    CHECK(mha_layer_create(&desc, &layer) == MHA_OK, "create: %s", mha_last_error());
    return layer;
}

static void test_lesson_table(void) {
    mha_layer *layer = lesson_layer();
    mha_input in = {.len = 3, .q = lesson_q, .k = lesson_k, .v = lesson_v, .flags = MHA_SCALE};
    CHECK(mha_forward(layer, &in) == MHA_OK, "forward: %s", mha_last_error());
    const float *a0, *a1, *h0, *h1, *concat;
    CHECK(mha_tensor(layer, MHA_T_ATTENTION, 0, &a0) == MHA_OK, "attention 0");
    CHECK(mha_tensor(layer, MHA_T_ATTENTION, 1, &a1) == MHA_OK, "attention 1");
    CHECK(mha_tensor(layer, MHA_T_HEAD, 0, &h0) == MHA_OK, "head 0");
    CHECK(mha_tensor(layer, MHA_T_HEAD, 1, &h1) == MHA_OK, "head 1");
    CHECK(mha_tensor(layer, MHA_T_CONCAT, 0, &concat) == MHA_OK, "concat");
    const double head1[9] = {0.25, 0.25, 0.50, 0.11, 0.45, 0.45, 0.33, 0.33, 0.33};
    const double head2[9] = {0.33, 0.33, 0.33, 0.16, 0.67, 0.16, 0.40, 0.40, 0.20};
    check_row(a0, head1, 9, 0.005, "head 1 weights");
    check_row(a1, head2, 9, 0.005, "head 2 weights");
    check_row(h0, (const double[]){1.26, 0.25}, 2, 0.005, "head 1 output for 猫");
    check_row(h1, (const double[]){0.33, 1.00}, 2, 0.005, "head 2 output for 猫");
    check_row(concat, (const double[]){1.26, 0.25, 0.33, 1.00}, 4, 0.005, "concat for 猫");

    const float *scores;
    CHECK(mha_tensor(layer, MHA_T_SCORES, 0, &scores) == MHA_OK, "scores");
    check_row(scores, (const double[]){0.71, 0.71, 1.41}, 3, 0.005, "head 1 scaled scores for 猫");

    in.flags = MHA_SCALE | MHA_CAUSAL;
    CHECK(mha_forward(layer, &in) == MHA_OK, "causal forward: %s", mha_last_error());
    CHECK(mha_tensor(layer, MHA_T_ATTENTION, 0, &a0) == MHA_OK, "attention 0");
    CHECK(a0[0] == 1.0f && a0[1] == 0.0f && a0[2] == 0.0f, "causal 猫 row = %g %g %g", a0[0], a0[1], a0[2]);
    CHECK(a0[5] == 0.0f, "causal 吃 sees no 鱼: %g", a0[5]);
    mha_layer_destroy(layer);
}

static void test_wo_and_ablation(void) {
    mha_layer *layer = lesson_layer();
    float wo[16] = {0};
    for (int i = 0; i < 4; i++) wo[i * 4 + (3 - i)] = 2.0f; /* reverse the columns and double */
    unsigned char enabled[2] = {1, 0};
    mha_input in = {.len = 3, .q = lesson_q, .k = lesson_k, .v = lesson_v, .wo = wo, .flags = MHA_SCALE,
                    .enabled = enabled};
    CHECK(mha_forward(layer, &in) == MHA_OK, "forward: %s", mha_last_error());
    const float *concat, *out, *h1;
    mha_tensor(layer, MHA_T_CONCAT, 0, &concat);
    mha_tensor(layer, MHA_T_OUTPUT, 0, &out);
    mha_tensor(layer, MHA_T_HEAD, 1, &h1);
    for (int r = 0; r < 3; r++) {
        CHECK(concat[r * 4 + 2] == 0.0f && concat[r * 4 + 3] == 0.0f, "switched-off head 2 gives zeros, row %d", r);
        CHECK(concat[r * 4 + 0] != 0.0f, "head 1 still on, row %d", r);
        for (int c = 0; c < 4; c++)
            CHECK(out[r * 4 + c] == 2.0f * concat[r * 4 + 3 - c], "output = concat · W^O at %d,%d", r, c);
    }
    CHECK(fabsf(h1[1] - 1.0f) < 0.005f, "a switched-off head's own output is still computed: %g", h1[1]);
    mha_layer_destroy(layer);
}

static void test_projection_shapes(void) {
    /* X (3×8), h = 2, W = identity: Q = K = V = X. */
    mha_desc desc = {.d_model = 8, .heads = 2, .max_len = 3};
    mha_layer *layer = NULL;
    CHECK(mha_layer_create(&desc, &layer) == MHA_OK, "create");
    float x[24], eye[64] = {0};
    for (int i = 0; i < 24; i++) x[i] = (float)((i * 7) % 5) - 2.0f;
    for (int i = 0; i < 8; i++) eye[i * 9] = 1.0f;
    mha_input in = {.len = 3, .x = x, .wq = eye, .wk = eye, .wv = eye, .wo = eye, .flags = MHA_SCALE | MHA_CAUSAL};
    CHECK(mha_forward(layer, &in) == MHA_OK, "forward: %s", mha_last_error());
    const float *q;
    mha_tensor(layer, MHA_T_Q, 0, &q);
    CHECK(memcmp(q, x, sizeof x) == 0, "Q = X · I");
    CHECK(mha_layer_len(layer) == 3, "len");
    mha_layer_destroy(layer);
}

static void test_param_count(void) {
    double naive = 0, split = 0;
    CHECK(mha_param_count(768, 12, &naive, &split) == MHA_OK, "GPT-2 bill");
    CHECK(naive == 21233664.0 && split == 2359296.0, "GPT-2 bill: %.0f %.0f", naive, split);
    CHECK(mha_param_count(768, 7, &naive, &split) == MHA_ERR_HEADS_NOT_DIVISOR, "7 heads");
    CHECK(strstr(mha_last_error(), "heads 7 does not divide d_model 768") != NULL, "message: %s", mha_last_error());
}

static void test_bad_input(void) {
    mha_layer *layer = NULL;
    mha_desc bad[] = {{768, 7, 4, 0}, {0, 1, 4, 0}, {4, -2, 4, 0}, {4, 2, 0, 0}, {4096, 64, 65536, 0}};
    mha_status want[] = {MHA_ERR_HEADS_NOT_DIVISOR, MHA_ERR_BAD_SIZE, MHA_ERR_BAD_SIZE, MHA_ERR_BAD_SIZE,
                         MHA_ERR_TOO_LARGE};
    for (int i = 0; i < 5; i++) {
        mha_status got = mha_layer_create(&bad[i], &layer);
        CHECK(got == want[i] && layer == NULL, "create case %d: %s (%s)", i, mha_status_name(got), mha_last_error());
    }
    CHECK(mha_layer_create(NULL, &layer) == MHA_ERR_NULL_ARGUMENT, "NULL desc");

    layer = lesson_layer();
    const float *t;
    CHECK(mha_tensor(layer, MHA_T_OUTPUT, 0, &t) == MHA_ERR_NO_FORWARD, "result before forward");
    float q[12];
    memcpy(q, lesson_q, sizeof q);
    q[6] = NAN;
    mha_input in = {.len = 3, .q = q, .k = lesson_k, .v = lesson_v, .flags = MHA_SCALE};
    CHECK(mha_forward(layer, &in) == MHA_ERR_NOT_FINITE, "NaN");
    CHECK(strncmp(mha_last_error(), "q has NaN at row 1, column 2; every entry must be a finite number", 64) == 0,
          "message: %s", mha_last_error());
    const mha_error_place *place = mha_last_error_place();
    CHECK(place->name && strcmp(place->name, "q") == 0 && place->head == -1 && place->row == 1 && place->column == 2,
          "place of the NaN: %s %d %d %d", place->name, place->head, place->row, place->column);
    q[6] = -INFINITY;
    CHECK(mha_forward(layer, &in) == MHA_ERR_NOT_FINITE, "-Infinity");
    in.q = lesson_q;
    in.len = 9;
    CHECK(mha_forward(layer, &in) == MHA_ERR_SEQ_TOO_LONG, "too long");
    in.len = 0;
    CHECK(mha_forward(layer, &in) == MHA_ERR_BAD_SIZE, "empty");
    in.len = 3;
    in.k = NULL;
    CHECK(mha_forward(layer, &in) == MHA_ERR_BAD_INPUT, "missing k");
    in.k = lesson_k;
    in.x = lesson_q;
    CHECK(mha_forward(layer, &in) == MHA_ERR_BAD_INPUT, "both modes");
    in.x = NULL;
    CHECK(mha_forward(layer, &in) == MHA_OK, "a good forward after the bad ones: %s", mha_last_error());
    CHECK(mha_tensor(layer, MHA_T_ATTENTION, 2, &t) == MHA_ERR_HEAD_INDEX, "head 2 of 2");
    CHECK(mha_tensor(layer, MHA_T_HEAD, -1, &t) == MHA_ERR_HEAD_INDEX, "head -1");
    CHECK(mha_last_status() == MHA_ERR_HEAD_INDEX, "the last status: %d", mha_last_status());
    CHECK(strcmp(mha_status_name(MHA_ERR_HEAD_INDEX), "HEAD_INDEX") == 0, "status name");
    CHECK(strcmp(mha_status_name((mha_status)99), "UNKNOWN") == 0, "unknown status");
    mha_layer_forget(layer);
    CHECK(mha_layer_len(layer) == 0 && mha_tensor(layer, MHA_T_OUTPUT, 0, &t) == MHA_ERR_NO_FORWARD, "a forgotten forward leaves no result");
    CHECK(mha_forward(layer, &in) == MHA_OK && mha_layer_len(layer) == 3, "a forward after forgetting: %s", mha_last_error());
    mha_layer_forget(NULL);
    mha_layer_destroy(layer);
    mha_layer_destroy(NULL);
}

/* Finite inputs that overflow float32 on the way: NOT_FINITE naming the stage
   and place, in the plain loops and the kernels alike, and no result left. */
static void test_overflow(void) {
    enum { D = 64, L = 40, H = 4 };
    mha_desc desc = {.d_model = D, .heads = H, .max_len = L};
    mha_layer *layer = NULL;
    CHECK(mha_layer_create(&desc, &layer) == MHA_OK, "create: %s", mha_last_error());
    static float q[L * D], eye[D * D], big_eye[D * D];
    for (int i = 0; i < L * D; i++) q[i] = 0.5f;
    for (int j = 16; j < 32; j++) q[30 * D + j] = 1e20f; /* row 30, head 1's columns */
    for (int i = 0; i < D; i++) eye[i * D + i] = 1.0f, big_eye[i * D + i] = 3e38f;
    const unsigned modes[] = {MHA_SCALE, MHA_SCALE | MHA_CAUSAL, MHA_SCALE | MHA_PLAIN, MHA_CAUSAL | MHA_PLAIN};
    for (int m = 0; m < 4; m++) {
        mha_input in = {.len = L, .q = q, .k = q, .v = q, .flags = modes[m]};
        CHECK(mha_forward(layer, &in) == MHA_ERR_NOT_FINITE, "scores overflow, flags %u", modes[m]);
        const mha_error_place *place = mha_last_error_place();
        CHECK(place->name && strcmp(place->name, "scores") == 0 && place->head == 1 && place->row == 30,
              "scores place, flags %u: %s head %d row %d", modes[m], place->name, place->head, place->row);
        CHECK(strstr(mha_last_error(), "scores of head 1 overflow float32") != NULL, "message: %s", mha_last_error());
        const float *t;
        CHECK(mha_tensor(layer, MHA_T_ATTENTION, 0, &t) == MHA_ERR_NO_FORWARD, "no half-computed result");
    }
    for (int i = 0; i < L * D; i++) q[i] = 2.0f;
    mha_input in = {.len = L, .x = q, .wq = eye, .wk = eye, .wv = big_eye, .flags = MHA_SCALE};
    CHECK(mha_forward(layer, &in) == MHA_ERR_NOT_FINITE, "v = x·wv overflows");
    const mha_error_place *place = mha_last_error_place();
    CHECK(place->name && strcmp(place->name, "v") == 0 && place->row == 0 && place->column == 0, "v place: %s %d %d",
          place->name, place->row, place->column);
    in = (mha_input){.len = L, .q = q, .k = q, .v = q, .wo = big_eye, .flags = MHA_SCALE};
    CHECK(mha_forward(layer, &in) == MHA_ERR_NOT_FINITE, "output overflows");
    CHECK(strcmp(mha_last_error_place()->name, "output") == 0, "output place");
    in.wo = eye;
    CHECK(mha_forward(layer, &in) == MHA_OK, "a good forward after: %s", mha_last_error());
    CHECK(mha_last_error_place()->name && strcmp(mha_last_error_place()->name, "output") == 0,
          "the place stays until the next failure");
    in.len = 0;
    CHECK(mha_forward(layer, &in) == MHA_ERR_BAD_SIZE && mha_last_error_place()->name == NULL,
          "another failure clears the place");

    /* Causal: q_0 · k_1 overflows, but row 0 never looks at key 1, so the forward is fine; the
       scores asked for afterwards, which include the masked half, say so. */
    static float k[L * D];
    memset(q, 0, sizeof q);
    q[0] = 1e20f, q[D + 1] = 1.0f;  /* q_0 = 1e20·e_0, q_1 = e_1 */
    k[0] = 1.0f, k[D] = 1e20f;      /* k_0 = e_0,      k_1 = 1e20·e_0 */
    in = (mha_input){.len = 2, .q = q, .k = k, .v = q, .flags = MHA_CAUSAL};
    CHECK(mha_forward(layer, &in) == MHA_OK, "causal forward: %s", mha_last_error());
    const float *scores = NULL;
    CHECK(mha_tensor(layer, MHA_T_SCORES, 0, &scores) == MHA_ERR_NOT_FINITE && scores == NULL, "masked scores overflow");
    place = mha_last_error_place();
    CHECK(place->name && strcmp(place->name, "scores") == 0 && place->head == 0 && place->row == 0 && place->column == 1,
          "masked scores place: %s head %d row %d column %d", place->name, place->head, place->row, place->column);
    CHECK(mha_tensor(layer, MHA_T_SCORES, 1, &scores) == MHA_OK, "head 1's scores are fine: %s", mha_last_error());
    in.flags = 0;
    CHECK(mha_forward(layer, &in) == MHA_ERR_NOT_FINITE, "without the mask the forward overflows");
    mha_layer_destroy(layer);
}

/* K/V heads shared by groups of query heads: each query head's results are those of plain multi-head
   attention whose K and V repeat each group's columns for every head of the group, bit for bit. */
static void test_kv_heads(void) {
    mha_layer *layer = NULL;
    const mha_desc bad[] = {{8, 4, 4, 3}, {8, 4, 4, 8}, {8, 4, 4, -1}};
    const mha_status want[] = {MHA_ERR_KV_HEADS_NOT_DIVISOR, MHA_ERR_KV_HEADS_NOT_DIVISOR, MHA_ERR_BAD_SIZE};
    const char *says[] = {"kvHeads 3 does not divide heads 4", "kvHeads 8 does not divide heads 4", "kvHeads must be"};
    for (int i = 0; i < 3; i++) {
        CHECK(mha_layer_create(&bad[i], &layer) == want[i] && layer == NULL, "bad kv desc %d: %s", i, mha_last_error());
        CHECK(strstr(mha_last_error(), says[i]) != NULL, "message: %s", mha_last_error());
    }
    CHECK(strcmp(mha_status_name(MHA_ERR_KV_HEADS_NOT_DIVISOR), "KV_HEADS_NOT_DIVISOR") == 0, "status name");

    enum { L = 70, D = 64, H = 8 };
    static float q[L * D], k[L * D], v[L * D], k_rep[L * D], v_rep[L * D];
    unsigned seed = 12345;
    for (int i = 0; i < L * D; i++) {
        seed = seed * 1103515245u + 12345u, q[i] = (float)((seed >> 8) % 2001) / 1000.0f - 1.0f;
        seed = seed * 1103515245u + 12345u, k[i] = (float)((seed >> 8) % 2001) / 1000.0f - 1.0f;
        seed = seed * 1103515245u + 12345u, v[i] = (float)((seed >> 8) % 2001) / 1000.0f - 1.0f;
    }
    const int kv_choices[] = {1, 2, 4, 8};
    for (int c = 0; c < 4; c++) {
        const int kv = kv_choices[c], dk = D / H, kvd = kv * dk;
        for (int r = 0; r < L; r++)
            for (int i = 0; i < H; i++)
                for (int j = 0; j < dk; j++) {
                    const int g = i * kv / H;
                    k_rep[r * D + i * dk + j] = k[r * kvd + g * dk + j];
                    v_rep[r * D + i * dk + j] = v[r * kvd + g * dk + j];
                }
        for (int flags = 0; flags < 8; flags++) {
            mha_layer *shared = NULL, *full = NULL;
            CHECK(mha_layer_create(&(mha_desc){D, H, L, kv}, &shared) == MHA_OK, "create kv %d: %s", kv, mha_last_error());
            CHECK(mha_layer_create(&(mha_desc){D, H, L, 0}, &full) == MHA_OK, "create: %s", mha_last_error());
            CHECK(mha_layer_kv_heads(shared) == kv && mha_layer_kv_heads(full) == H, "kv heads");
            mha_input in = {.len = L, .q = q, .k = k, .v = v, .flags = (unsigned)flags};
            mha_input in_full = {.len = L, .q = q, .k = k_rep, .v = v_rep, .flags = (unsigned)flags};
            CHECK(mha_forward(shared, &in) == MHA_OK, "forward kv %d: %s", kv, mha_last_error());
            CHECK(mha_forward(full, &in_full) == MHA_OK, "forward: %s", mha_last_error());
            for (int i = 0; i < H; i++) {
                int group = -1;
                CHECK(mha_layer_kv_group(shared, i, &group) == MHA_OK && group == i * kv / H, "group of %d", i);
                const mha_tensor_id ids[] = {MHA_T_ATTENTION, MHA_T_HEAD, MHA_T_SCORES};
                const size_t n[] = {(size_t)L * L, (size_t)L * dk, (size_t)L * L};
                for (int t = 0; t < 3; t++) {
                    const float *a = NULL, *b = NULL;
                    CHECK(mha_tensor(shared, ids[t], i, &a) == MHA_OK, "tensor %d of head %d", t, i);
                    const float *a_copy = a; /* the scores buffer is shared: compare before asking the other */
                    static float keep[L * L];
                    memcpy(keep, a_copy, n[t] * sizeof *keep);
                    CHECK(mha_tensor(full, ids[t], i, &b) == MHA_OK, "tensor %d of head %d", t, i);
                    CHECK(memcmp(keep, b, n[t] * sizeof *b) == 0, "kv %d flags %d head %d tensor %d: same bits", kv, flags,
                          i, t);
                }
            }
            const float *a = NULL, *b = NULL;
            mha_tensor(shared, MHA_T_OUTPUT, 0, &a), mha_tensor(full, MHA_T_OUTPUT, 0, &b);
            CHECK(memcmp(a, b, sizeof q) == 0, "kv %d flags %d: same output", kv, flags);
            mha_tensor(shared, MHA_T_K, 0, &a);
            CHECK(memcmp(a, k, (size_t)L * kvd * sizeof *k) == 0, "K is L×(h_kv·d_k)");
            int group;
            CHECK(mha_layer_kv_group(shared, H, &group) == MHA_ERR_HEAD_INDEX, "group of a head past the last");
            mha_layer_destroy(shared);
            mha_layer_destroy(full);
        }
    }

    mha_param_bill bill;
    CHECK(mha_param_bill_count(4096, 32, 8, 2, &bill) == MHA_OK, "bill: %s", mha_last_error());
    CHECK(bill.wq == 4096.0 * 4096 && bill.wk == 4096.0 * 1024 && bill.wv == bill.wk && bill.wo == bill.wq &&
              bill.split == 2 * 4096.0 * 4096 + 2 * 4096.0 * 1024 && bill.kv_cache_bytes == 2.0 * 8 * 128 * 2,
          "GQA bill: %.0f %.0f %.0f", bill.split, bill.wk, bill.kv_cache_bytes);
    CHECK(mha_param_bill_count(768, 12, 0, 4, &bill) == MHA_OK && bill.split == 2359296.0 &&
              bill.kv_cache_bytes == 2.0 * 768 * 4, "MHA bill");
    CHECK(mha_param_bill_count(768, 12, 5, 4, &bill) == MHA_ERR_KV_HEADS_NOT_DIVISOR, "bill kv 5");
    CHECK(mha_param_bill_count(768, 12, 1, 0, &bill) == MHA_ERR_BAD_SIZE, "bill 0 bytes");
}

int test_mha(void) {
    test_lesson_table();
    test_wo_and_ablation();
    test_projection_shapes();
    test_param_count();
    test_bad_input();
    test_overflow();
    test_kv_heads();
    return failures;
}
