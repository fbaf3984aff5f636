/* fuzz_driver.h — the seeded driver shared by the fuzz harnesses (c/fuzz_*.c),
   for machines without libFuzzer: random inputs of 1 to max_bytes bytes from
   numpy's generator (np_random.h), the same runs from the same seed, for a
   number of runs or of CPU seconds, whichever ends first:
       c/build/fuzz_NAME [seed] [runs] [seconds]
   It prints the number of runs and how often each status came back (`seen`,
   counted by the harness), which the tests read. Built with -DMHA_LIBFUZZER,
   a harness leaves main to libFuzzer instead. */
#ifndef FUZZ_DRIVER_H
#define FUZZ_DRIVER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mha.h"
#include "np_random.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fuzz_seeded_main(int argc, char **argv, const char *name, uint8_t *bytes, size_t max_bytes,
                            const long seen[MHA_STATUS_COUNT]) {
    const unsigned seed = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 0;
    const long runs = argc > 2 ? strtol(argv[2], NULL, 10) : 2000;
    const double seconds = argc > 3 ? strtod(argv[3], NULL) : 1e9;
    np_random rs;
    np_random_seed(&rs, seed);
    const clock_t start = clock();
    long run = 0;
    for (; run < runs && (double)(clock() - start) / CLOCKS_PER_SEC < seconds; run++) {
        const size_t size = 1 + (size_t)(np_random_double(&rs) * (double)max_bytes);
        for (size_t i = 0; i < size; i++) bytes[i] = (uint8_t)(np_random_double(&rs) * 256);
        LLVMFuzzerTestOneInput(bytes, size);
    }
    printf("%s: %ld runs from seed %u, no broken promise; calls by status:", name, run, seed);
    for (int status = 0; status < MHA_STATUS_COUNT; status++)
        if (seen[status]) printf(" %s %ld", mha_status_name((mha_status)status), seen[status]);
    printf("\n");
    return 0;
}

#endif /* FUZZ_DRIVER_H */
