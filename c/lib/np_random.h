/*
 * np_random.h -- numpy's legacy RandomState, reproduced bit-exactly in C.
 *
 * Overview
 * --------
 * The lesson's Python demos draw their toy matrices from
 *
 *     rng = np.random.RandomState(seed)
 *     X   = rng.randn(3, 8)
 *
 * This module produces the very same doubles, bit for bit, so the C core
 * (and the WebAssembly build of it) can rebuild every number the lesson
 * prints. It implements exactly three pieces of numpy's legacy generator:
 *
 *   1. MT19937 seeded with init_genrand (numpy's `mt19937_seed`) for an
 *      integer seed 0 .. 2^32-1, i.e. `RandomState(seed)` with a Python int.
 *   2. `random_sample`: 53-bit doubles built from two 32-bit draws,
 *          ((a >> 5) * 67108864.0 + (b >> 6)) / 9007199254740992.0
 *   3. `randn`: the legacy polar (Marsaglia) method (numpy's `legacy_gauss`).
 *      Every accepted pair yields two normals: f*x2 is returned first and
 *      f*x1 is cached and returned by the next call.
 *
 * So the stream of np_random_gauss / np_random_randn equals numpy's
 * `RandomState(seed).randn(...)` in C order, however it is split across
 * calls: randn(3, 8) is 24 values, the next randn(8, 8) continues the stream
 * (including a cached half of a pair). Scaling is the caller's job: numpy's
 * `rng.randn(a, b) * 0.5` is np_random_randn(rs, out, a*b) followed by the
 * caller multiplying every element by 0.5 (one IEEE multiply, same as numpy).
 *
 * The seed must already be a valid 32-bit value; range checking of user
 * input (negative, >= 2^32, non-integer) belongs to the caller.
 *
 * Exactness
 * ---------
 * The generator is integer arithmetic and random_sample is exact by
 * construction. randn also needs sqrt (correctly rounded everywhere) and
 * log, and numpy uses the platform's log. On Linux that is glibc's, which on
 * x86-64 CPUs with FMA (nearly all since 2013) is accurate to ~0.52 ULP but
 * not correctly rounded, so about 1 randn value in 20,000 differs in the
 * last bit between numpy on such a machine and numpy on a CPU without FMA,
 * or code using musl's log (the WebAssembly build). np_random.c
 * therefore carries its own log that reproduces glibc's FMA log bit for bit
 * with C99 fma(): the stream equals numpy on Linux with FMA, identically in
 * native and wasm builds. Compile it as IEEE double code (SSE2, aarch64 or
 * wasm; not x87) and without -ffast-math. No state is global: one np_random
 * struct is one independent RandomState.
 *
 * Usage
 * -----
 *     #include "np_random.h"
 *
 *     np_random rs;
 *     double x[3 * 8], wq[8 * 8];
 *     np_random_seed(&rs, 10);           // rng = np.random.RandomState(10)
 *     np_random_randn(&rs, x, 3 * 8);    // X  = rng.randn(3, 8)
 *     np_random_randn(&rs, wq, 8 * 8);   // Wq = rng.randn(8, 8) * 0.5
 *     for (int i = 0; i < 8 * 8; i++) wq[i] *= 0.5;
 *
 * Plain C11, libc + libm only, no allocation, no global state.
 */
#ifndef NP_RANDOM_H
#define NP_RANDOM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One RandomState. Fields mirror numpy's mt19937 state plus the legacy
 * gauss cache; treat them as private. */
typedef struct np_random { uint32_t key[624]; int pos; int has_gauss; double gauss; } np_random;

/* rng = np.random.RandomState(seed): init_genrand + empty gauss cache. */
void     np_random_seed(np_random *rs, uint32_t seed);

/* Next tempered 32-bit MT19937 output. */
uint32_t np_random_u32(np_random *rs);

/* numpy random_sample: one double in [0, 1), consuming two u32 draws. */
double   np_random_double(np_random *rs);

/* numpy randn, one value (polar method with the cached second value). */
double   np_random_gauss(np_random *rs);

/* n values in numpy's order: the C (row-major) order of randn(*shape),
 * so for randn(a, b) pass n = a*b. Same as n calls of np_random_gauss. */
void     np_random_randn(np_random *rs, double *out, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* NP_RANDOM_H */
