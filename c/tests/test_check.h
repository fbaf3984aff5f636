/* test_check.h — the CHECK macro of the native C tests. Each test file keeps
   `static int failures;` and returns it from its suite. */
#ifndef TEST_CHECK_H
#define TEST_CHECK_H

#include <stdio.h>

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            failures++;                                                    \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                    \
            printf(__VA_ARGS__);                                           \
            printf("\n");                                                  \
        }                                                                  \
    } while (0)

#endif /* TEST_CHECK_H */
