/* bench_gpt.c — times the GPT model of c/lib/gpt.h natively: one forward of a sequence and one AdamW
   training step of a batch. Build and run (from the repository's root):
     gcc -std=c11 -O3 -march=native tests/bench/bench_gpt.c c/lib/[a-z]*.c -lm -o bench_gpt
     ./bench_gpt [layers d_model heads vocab batch seq_len steps]   (default 2 128 4 5000 16 65 20)
   seq_len counts the tokens of a training sequence: seq_len - 1 positions are predicted. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../../c/lib/gpt.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); /* CPU time: steady on a busy machine */
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    const int arg[7] = {2, 128, 4, 5000, 16, 65, 20};
    int v[7];
    for (int i = 0; i < 7; i++) v[i] = argc > i + 1 ? atoi(argv[i + 1]) : arg[i];
    const gpt_config c = {.layers = v[0], .d_model = v[1], .heads = v[2], .vocab = v[3], .context = v[5] - 1};
    const int batch = v[4], len = v[5], steps = v[6];
    gpt_model *m;
    gpt_trainer *tr;
    gpt_train_desc desc = gpt_train_default_desc(batch, len);
    if (gpt_model_create(&c, 1, &m) || gpt_trainer_create(m, &desc, &tr)) {
        fprintf(stderr, "bench_gpt: %s\n", mha_last_error());
        return 1;
    }
    int *tokens = malloc(sizeof(int) * (size_t)batch * len);
    for (int i = 0; i < batch * len; i++) tokens[i] = (int)((i * 2654435761u) % (unsigned)c.vocab);
    double *times = malloc(sizeof(double) * (size_t)(steps > 50 ? steps : 50)), loss = 0;
    for (int i = 0; i < 50; i++) {
        const double t0 = now();
        gpt_forward(m, tokens, c.context, NULL);
        times[i] = now() - t0;
    }
    qsort(times, 50, sizeof *times, by_value);
    printf("forward of %d tokens (layers %d, d %d, heads %d, vocab %d): median %.3f ms\n", c.context, c.layers, c.d_model,
           c.heads, c.vocab, times[25] * 1e3);
    for (int i = 0; i < steps; i++) {
        const double t0 = now();
        if (gpt_train_step(tr, tokens, batch, len, 1e-3f, &loss)) fprintf(stderr, "bench_gpt: %s\n", mha_last_error());
        times[i] = now() - t0;
    }
    qsort(times, (size_t)steps, sizeof *times, by_value);
    printf("training step of %d x %d tokens: median %.1f ms (loss %.3f)\n", batch, len, times[steps / 2] * 1e3, loss);
    gpt_trainer_destroy(tr);
    gpt_model_destroy(m);
    free(tokens), free(times);
    return 0;
}
