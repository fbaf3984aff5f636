/* mha_internal.h — shared by the modules of c/, not part of the public API. */
#ifndef MHA_INTERNAL_H
#define MHA_INTERNAL_H

#include "mha.h"

/* Records the sentence mha_last_error() returns, and returns `status`: the one
   place every module says why a call failed. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
mha_status mha_fail(mha_status status, const char *fmt, ...);

/* mha_fail that also records where (mha_last_error_place). */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
mha_status mha_fail_at(mha_status status, mha_error_place place, const char *fmt, ...);

/* out (rows×n) = a (rows×m) · b (m×n), row-major, with plain loops: the
   readable reference product (mha.c's fast kernels are checked against it). */
void mha_matmul_plain(float *out, const float *a, const float *b, int rows, int m, int n);

#endif /* MHA_INTERNAL_H */
