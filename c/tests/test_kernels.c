/* test_kernels.c — the fast SIMD kernels against the plain reference loops
   (MHA_PLAIN), on many shapes, under ASan + UBSan; and the fast exp's error. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/mha.h"
#include "../lib/mha_internal.h"
#include "../lib/pool.h"
#include "test_check.h"

float mha_fast_exp(float x); /* kernels.c's softmax exp, exposed for tests only */

static int failures;

static unsigned rng_state;

static float uniform(float spread) { /* in [-spread, spread) */
    rng_state = rng_state * 1664525u + 1013904223u;
    return ((float)(rng_state >> 8) / 16777216.0f * 2.0f - 1.0f) * spread;
}

static float *random_matrix(int n, float spread) {
    float *a = malloc((size_t)n * sizeof *a);
    for (int i = 0; i < n; i++) a[i] = uniform(spread);
    return a;
}

static double max_diff(const float *a, const float *b, size_t n) {
    double worst = 0;
    for (size_t i = 0; i < n; i++) worst = fmax(worst, fabs((double)a[i] - (double)b[i]));
    return worst;
}

/* One shape: the fast and the plain path on the same inputs give the same tensors. */
static void compare(int L, int d, int h, unsigned flags, int projection, int with_wo, int max_len) {
    mha_desc desc = {.d_model = d, .heads = h, .max_len = max_len};
    mha_layer *fast = NULL, *plain = NULL;
    CHECK(mha_layer_create(&desc, &fast) == MHA_OK && mha_layer_create(&desc, &plain) == MHA_OK, "create %d %d %d",
          L, d, h);
    if (!fast || !plain) {
        mha_layer_destroy(fast);
        mha_layer_destroy(plain);
        return;
    }
    const float spread = 1.0f / sqrtf((float)d);
    float *x = random_matrix(L * d, 1), *q = random_matrix(L * d, 2), *k = random_matrix(L * d, 2);
    float *v = random_matrix(L * d, 1), *wq = random_matrix(d * d, 2 * spread), *wk = random_matrix(d * d, 2 * spread);
    float *wv = random_matrix(d * d, spread), *wo = random_matrix(d * d, spread);
    unsigned char *enabled = malloc((size_t)h);
    for (int i = 0; i < h; i++) enabled[i] = (unsigned char)(i % 3 != 1);
    mha_input in = {.len = L, .flags = flags, .wo = with_wo ? wo : NULL, .enabled = h > 1 ? enabled : NULL};
    if (projection) {
        in.x = x, in.wq = wq, in.wk = wk, in.wv = wv;
    } else {
        in.q = q, in.k = k, in.v = v;
    }
    CHECK(mha_forward(fast, &in) == MHA_OK, "fast forward: %s", mha_last_error());
    in.flags = flags | MHA_PLAIN;
    CHECK(mha_forward(plain, &in) == MHA_OK, "plain forward: %s", mha_last_error());

    const double tol = 2e-5 * sqrt((double)d);
    const int dk = d / h;
    const char *names[] = {"Q", "K", "V", "scores", "attention", "head", "concat", "output"};
    for (int id = MHA_T_Q; id <= MHA_T_OUTPUT; id++) {
        const int per_head = id == MHA_T_SCORES || id == MHA_T_ATTENTION || id == MHA_T_HEAD;
        const size_t n = id == MHA_T_SCORES || id == MHA_T_ATTENTION ? (size_t)L * L
                         : id == MHA_T_HEAD                            ? (size_t)L * dk
                                                                       : (size_t)L * d;
        for (int head = 0; head < (per_head ? h : 1); head++) {
            const float *a = NULL, *b = NULL;
            CHECK(mha_tensor(fast, (mha_tensor_id)id, head, &a) == MHA_OK, "tensor");
            CHECK(mha_tensor(plain, (mha_tensor_id)id, head, &b) == MHA_OK, "tensor");
            if (!a || !b) continue;
            const double diff = max_diff(a, b, n);
            CHECK(diff <= tol, "L %d, d %d, h %d, flags %u, projection %d, wo %d: %s of head %d differs by %.3g",
                  L, d, h, flags, projection, with_wo, names[id], head, diff);
        }
    }
    /* rows of the fast weights sum to 1; masked entries are exactly 0 */
    for (int head = 0; head < h; head++) {
        const float *a = NULL;
        mha_tensor(fast, MHA_T_ATTENTION, head, &a);
        for (int r = 0; r < L; r++) {
            double sum = 0;
            int masked_nonzero = 0;
            for (int c = 0; c < L; c++) {
                sum += a[(size_t)r * L + c];
                if ((flags & MHA_CAUSAL) && c > r && a[(size_t)r * L + c] != 0.0f) masked_nonzero++;
            }
            CHECK(fabs(sum - 1) <= 1e-5, "L %d, d %d, h %d: head %d row %d sums to %.8f", L, d, h, head, r, sum);
            CHECK(masked_nonzero == 0, "L %d, d %d, h %d: head %d row %d has masked weights", L, d, h, head, r);
        }
    }
    free(x), free(q), free(k), free(v), free(wq), free(wk), free(wv), free(wo), free(enabled);
    mha_layer_destroy(fast);
    mha_layer_destroy(plain);
}

static void test_shapes(void) {
    /* L, d, h: L = 1, h = 1, h = d, d_k not a multiple of 4, sizes around the tile
       edges (4, 8, 16 columns; 64-row blocks; 256-deep blocks). The smallest few
       take the plain loops in both layers (mha_forward does so below its toy-size
       thresholds); the rest exercise the kernels. */
    static const int shapes[][3] = {
        {1, 1, 1},   {1, 4, 1},   {1, 8, 8},    {2, 3, 1},   {3, 4, 2},    {3, 4, 4},    {5, 6, 3},
        {7, 5, 5},   {9, 12, 1},  {13, 15, 5},  {16, 64, 4}, {16, 64, 8},  {17, 30, 6},  {31, 7, 7},
        {33, 16, 16}, {63, 20, 4}, {64, 64, 4}, {65, 36, 3}, {70, 9, 1},  {100, 24, 8}, {129, 48, 12},
        {8, 260, 4}, {5, 300, 3}, {20, 257, 1}, {300, 12, 2}, {130, 256, 8}, {1, 64, 8}, {1, 100, 4},
        {2, 16, 16}, {4, 6, 3},
    };
    const int count = (int)(sizeof shapes / sizeof *shapes);
    for (int s = 0; s < count; s++) {
        const int L = shapes[s][0], d = shapes[s][1], h = shapes[s][2];
        rng_state = (unsigned)(s * 7919 + 1);
        for (int causal = 0; causal < 2; causal++) {
            const unsigned flags = (causal ? MHA_CAUSAL : 0) | (s % 4 == 3 ? 0 : MHA_SCALE);
            compare(L, d, h, flags, 1, 1, L + s % 3);
            compare(L, d, h, flags, 0, s % 2, L);
        }
    }
}

/* The softmax exp: relative error against double exp on [-87, 0], and its edges. */
static void test_fast_exp(void) {
    double worst = 0;
    float worst_x = 0;
    const int steps = 2000000;
    for (int i = 0; i <= steps; i++) {
        const float x = -87.0f * (float)i / (float)steps;
        const double want = exp((double)x);
        const double err = fabs(mha_fast_exp(x) - want) / want;
        if (err > worst) worst = err, worst_x = x;
    }
    printf("fast exp: max relative error %.3g (%.2f ulp of 1) at x = %.7g over [-87, 0]\n", worst,
           worst / 1.1920929e-7, worst_x);
    CHECK(worst < 2.5e-7, "fast exp relative error %.3g at %.7g", worst, worst_x);
    CHECK(mha_fast_exp(0.0f) == 1.0f, "exp(0) = %.9g", mha_fast_exp(0.0f));
    CHECK(mha_fast_exp(-100.0f) == 0.0f && mha_fast_exp(-1e30f) == 0.0f, "exp of very negative is 0");
}

/* out = (accumulate ? out : 0) + a·B in double, B = b or bᵀ as mha_matmul_fast reads it. */
static void matmul_double(double *out, const float *a, int lda, const float *b, int ldb, int b_transposed, int rows,
                          int k, int n) {
    for (int r = 0; r < rows; r++)
        for (int j = 0; j < n; j++) {
            double sum = 0;
            for (int i = 0; i < k; i++)
                sum += (double)a[(size_t)r * lda + i] * (b_transposed ? b[(size_t)j * ldb + i] : b[(size_t)i * ldb + j]);
            out[(size_t)r * n + j] += sum;
        }
}

/* mha_matmul_fast on one shape, both ways B is given: against double sums; and with the same bits
   whether its rows come in one call, one at a time or on two threads (a model's forward that reuses
   rows, or runs on more threads, must give what a whole forward gives). */
static void matmul_shape(int rows, int k, int n, int b_transposed, int accumulate) {
    const int lda = k + 3, ldb = (b_transposed ? k : n) + 5, ldo = n + 2; /* strides wider than the rows */
    float *a = random_matrix(rows * lda, 1), *b = random_matrix((b_transposed ? n : k) * ldb, 1);
    float *start = random_matrix(rows * ldo, 1), *whole = malloc((size_t)rows * ldo * sizeof *whole);
    float *by_row = malloc((size_t)rows * ldo * sizeof *by_row), *threaded = malloc((size_t)rows * ldo * sizeof *threaded);
    float *scratch = malloc((size_t)mha_matmul_scratch_floats(k) * sizeof *scratch);
    double *want = calloc((size_t)rows * n, sizeof *want);
    for (int r = 0; r < rows; r++)
        for (int j = 0; j < n; j++) want[(size_t)r * n + j] = accumulate ? start[(size_t)r * ldo + j] : 0;
    matmul_double(want, a, lda, b, ldb, b_transposed, rows, k, n);
    memcpy(whole, start, (size_t)rows * ldo * sizeof *whole);
    memcpy(by_row, start, (size_t)rows * ldo * sizeof *by_row);
    memcpy(threaded, start, (size_t)rows * ldo * sizeof *threaded);
    mha_matmul_fast(whole, ldo, a, lda, b, ldb, b_transposed, rows, k, n, accumulate, scratch);
    for (int r = 0; r < rows; r++)
        mha_matmul_fast(by_row + (size_t)r * ldo, ldo, a + (size_t)r * lda, lda, b, ldb, b_transposed, 1, k, n, accumulate,
                        scratch);
    CHECK(mha_set_threads(2) == MHA_OK && mha_pool_reserve(mha_matmul_scratch_floats(k)) == MHA_OK, "two threads");
    mha_matmul_fast(threaded, ldo, a, lda, b, ldb, b_transposed, rows, k, n, accumulate, scratch);
    CHECK(mha_set_threads(1) == MHA_OK, "one thread");
    double worst = 0;
    int same_bits = 1, padding_kept = 1;
    for (int r = 0; r < rows; r++) {
        for (int j = 0; j < n; j++) {
            const size_t at = (size_t)r * ldo + j;
            worst = fmax(worst, fabs(whole[at] - want[(size_t)r * n + j]));
            same_bits &= memcmp(&whole[at], &by_row[at], sizeof *whole) == 0 && memcmp(&whole[at], &threaded[at], sizeof *whole) == 0;
        }
        for (int j = n; j < ldo; j++) padding_kept &= whole[(size_t)r * ldo + j] == start[(size_t)r * ldo + j];
    }
    CHECK(worst <= 1e-5 * sqrt((double)k), "matmul %d x %d x %d, b_transposed %d, accumulate %d: off by %.3g", rows, k, n,
          b_transposed, accumulate, worst);
    CHECK(same_bits, "matmul %d x %d x %d, b_transposed %d: other bits row by row or on two threads", rows, k, n, b_transposed);
    CHECK(padding_kept, "matmul %d x %d x %d, b_transposed %d: wrote past column n", rows, k, n, b_transposed);
    free(a), free(b), free(start), free(whole), free(by_row), free(threaded), free(scratch), free(want);
}

static void test_matmul(void) {
    /* rows either side of the register tile, the in-place threshold (64) and a packed chunk of a (128),
       depths either side of a cache block (256), widths off and on whole panels */
    static const int shapes[][3] = {{1, 1, 1},    {3, 7, 9},     {4, 256, 64}, {5, 300, 130},  {63, 64, 40},
                                    {64, 33, 136}, {65, 257, 24}, {127, 16, 8}, {128, 100, 33}, {129, 65, 200},
                                    {300, 40, 70}, {257, 520, 17}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (int transposed = 0; transposed < 2; transposed++) {
            rng_state = (unsigned)(s * 31 + 7 + transposed);
            matmul_shape(shapes[s][0], shapes[s][1], shapes[s][2], transposed, (int)(s + transposed) % 2);
        }
}

int test_kernels(void) {
    test_shapes();
    test_matmul();
    test_fast_exp();
    return failures;
}
