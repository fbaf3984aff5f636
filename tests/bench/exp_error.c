/* exp_error.c — the softmax's fast exp against double-precision exp on every float
   in [-87.5, 0]. `npm run bench` builds it without FMA contraction, which is the
   arithmetic wasm SIMD128 does, and prints: max relative error, in ulp, and where. */
#include <math.h>
#include <stdio.h>
#include <string.h>

float mha_fast_exp(float x); /* in c/lib/kernels.c, for tests and this */

int main(void) {
    double worst = 0;
    float worst_x = 0;
    unsigned long long count = 0;
    for (float x = -0.0f; x >= -87.5f; x = nextafterf(x, -INFINITY), count++) {
        const double want = exp((double)x);
        const double err = fabs((double)mha_fast_exp(x) - want) / want;
        if (err > worst) worst = err, worst_x = x;
    }
    printf("%.6g %.4f %.9g %llu\n", worst, worst / ldexp(1.0, -23), worst_x, count);
    return 0;
}
