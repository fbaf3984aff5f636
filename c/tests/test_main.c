/* test_main.c — runs every native C test; exit status 0 when all pass.
     test_native [FILE.safetensors]   FILE: a file the writer wrote, which must come back the same bytes */
#include <stdio.h>

int test_mha(void);
int test_np_random(void);
int test_kernels(void); /* the fast kernels against the plain loops */
int test_train(void);   /* backward pass, gradient check, training */
int test_gpt(void);     /* the GPT-2 model: forward, gradient check, AdamW, files */
int test_threads(void); /* the same bits on any number of threads */
int test_gpt_file(const char *path); /* a file loaded and saved again */

int main(int argc, char **argv) {
    int failures = test_mha() + test_np_random() + test_kernels() + test_train() + test_gpt() + test_threads();
    if (argc > 1) failures += test_gpt_file(argv[1]);
    printf("native C tests: %s (%d failed checks)\n", failures ? "FAILED" : "passed", failures);
    return failures != 0;
}
