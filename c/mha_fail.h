/* mha_fail.h — internal to c/: the one place every module records why a call failed,
   so callers read every failure through mha_last_error() and mha_status_name(). */
#ifndef MHA_FAIL_H
#define MHA_FAIL_H

#include "mha.h"

/* Formats the sentence mha_last_error() returns, and returns `status`. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
mha_status mha_fail(mha_status status, const char *fmt, ...);

#endif /* MHA_FAIL_H */
