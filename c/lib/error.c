/* error.c — the library's one error channel: the status, sentence and place of
   the last failing call (mha.h, ERRORS). */
#include "mha_internal.h"

#include <stdarg.h>
#include <stdio.h>

/* Code run once a model (or on an error), not once a token: compiled for size, as every widget downloads it.
   (-O3 elsewhere; minsize here keeps the wasm about 1 KB smaller gzipped.) */
#if defined(__clang__)
#pragma clang attribute push (__attribute__((minsize)), apply_to = function)
#endif

static _Thread_local mha_status last_status;
static _Thread_local char last_error[256];
static _Thread_local mha_error_place last_place = {NULL, -1, -1, -1};

static mha_status record(mha_status status, mha_error_place place, const char *fmt, va_list args) {
    vsnprintf(last_error, sizeof last_error, fmt, args);
    last_status = status;
    last_place = place;
    return status;
}

mha_status mha_fail(mha_status status, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    record(status, (mha_error_place){NULL, -1, -1, -1}, fmt, args);
    va_end(args);
    return status;
}

mha_status mha_fail_at(mha_status status, mha_error_place place, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    record(status, place, fmt, args);
    va_end(args);
    return status;
}

mha_status mha_last_status(void) { return last_status; }
const char *mha_last_error(void) { return last_error; }
const mha_error_place *mha_last_error_place(void) { return &last_place; }

const char *mha_status_name(mha_status status) {
    static const char *const names[MHA_STATUS_COUNT] = {
        "OK",          "NULL_ARGUMENT", "BAD_SIZE",     "HEADS_NOT_DIVISOR",
        "TOO_LARGE",   "OUT_OF_MEMORY", "SEQ_TOO_LONG", "NOT_FINITE",
        "BAD_INPUT",   "HEAD_INDEX",    "NO_FORWARD",   "BAD_MODEL",
        "TOKEN_RANGE", "KV_HEADS_NOT_DIVISOR",
    };
    return (unsigned)status < MHA_STATUS_COUNT ? names[status] : "UNKNOWN";
}

#if defined(__clang__)
#pragma clang attribute pop
#endif
