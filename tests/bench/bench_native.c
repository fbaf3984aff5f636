/* bench_native.c — the native side of `npm run bench` (tests/bench/core.js builds it
   with gcc -O3 -march=native together with the core's sources, once as is and once with
   -pthread -DMHA_THREADS). `bench_native [THREADS]` runs each forward on THREADS threads
   (mha_set_threads; 1 by default). Commands on stdin, one a line; each answers one line on stdout:
     load DIR L D H     read DIR/{x,wq,wk,wv,wo}.f32 and make a layer  → "ok"
     time MODE REPS     REPS forwards (MODE fast or plain), causal      → seconds per forward
     dump MODE FILE     one forward, the L×D output written to FILE     → "ok"
     quit */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../c/lib/mha.h"

static float *read_floats(const char *dir, const char *name, size_t n) {
    char path[8192];
    snprintf(path, sizeof path, "%s/%s.f32", dir, name);
    FILE *f = fopen(path, "rb");
    float *a = malloc(n * sizeof *a);
    if (!f || !a || fread(a, sizeof *a, n, f) != n) {
        fprintf(stderr, "bench_native: cannot read %s\n", path);
        exit(1);
    }
    fclose(f);
    return a;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc > 1 && mha_set_threads(atoi(argv[1])) != MHA_OK) {
        fprintf(stderr, "bench_native: %s\n", mha_last_error());
        return 1;
    }
    char line[8192], arg[4096], mode[16];
    mha_layer *layer = NULL;
    mha_input in = {0};
    float *buffers[5] = {0};
    int width = 0;
    while (fgets(line, sizeof line, stdin)) {
        int L, d, h, reps;
        if (sscanf(line, "load %4095s %d %d %d", arg, &L, &d, &h) == 4) {
            mha_layer_destroy(layer);
            for (int i = 0; i < 5; i++) free(buffers[i]);
            mha_desc desc = {.d_model = d, .heads = h, .max_len = L};
            if (mha_layer_create(&desc, &layer) != MHA_OK) {
                fprintf(stderr, "bench_native: %s\n", mha_last_error());
                return 1;
            }
            const char *names[5] = {"x", "wq", "wk", "wv", "wo"};
            for (int i = 0; i < 5; i++) buffers[i] = read_floats(arg, names[i], (size_t)(i ? d : L) * d);
            in = (mha_input){.len = L, .x = buffers[0], .wq = buffers[1], .wk = buffers[2], .wv = buffers[3],
                             .wo = buffers[4]};
            width = d;
            puts("ok");
        } else if (sscanf(line, "time %15s %d", mode, &reps) == 2) {
            in.flags = MHA_CAUSAL | MHA_SCALE | (strcmp(mode, "plain") == 0 ? MHA_PLAIN : 0);
            const double start = now();
            for (int i = 0; i < reps; i++) mha_forward(layer, &in);
            printf("%.9g\n", (now() - start) / reps);
        } else if (sscanf(line, "dump %15s %4095s", mode, arg) == 2) {
            in.flags = MHA_CAUSAL | MHA_SCALE | (strcmp(mode, "plain") == 0 ? MHA_PLAIN : 0);
            const float *out = NULL;
            if (mha_forward(layer, &in) != MHA_OK || mha_tensor(layer, MHA_T_OUTPUT, 0, &out) != MHA_OK) {
                fprintf(stderr, "bench_native: %s\n", mha_last_error());
                return 1;
            }
            FILE *f = fopen(arg, "wb");
            const size_t n = (size_t)in.len * (size_t)width;
            if (!f || fwrite(out, sizeof *out, n, f) != n) {
                fprintf(stderr, "bench_native: cannot write %s\n", arg);
                return 1;
            }
            fclose(f);
            puts("ok");
        } else if (strncmp(line, "quit", 4) == 0) {
            break;
        } else {
            fprintf(stderr, "bench_native: unknown command %s", line);
            return 1;
        }
        fflush(stdout);
    }
    mha_layer_destroy(layer);
    for (int i = 0; i < 5; i++) free(buffers[i]);
    return 0;
}
