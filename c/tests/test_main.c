/* test_main.c — runs every native C test; exit status 0 when all pass. */
#include <stdio.h>

int test_mha(void);
int test_np_random(void);
int test_kernels(void); /* the fast kernels against the plain loops */
int test_train(void);   /* backward pass, gradient check, training */
int test_gpt(void);     /* the GPT-2 model: forward, gradient check, AdamW, files */
int test_threads(void); /* the same bits on any number of threads */

int main(void) {
    int failures = test_mha() + test_np_random() + test_kernels() + test_train() + test_gpt() + test_threads();
    printf("native C tests: %s (%d failed checks)\n", failures ? "FAILED" : "passed", failures);
    return failures != 0;
}
