/* fuzz_driver.h — the seeded driver shared by the fuzz harnesses (c/fuzz/fuzz_*.c),
   for machines without libFuzzer: random inputs of 1 to max_bytes bytes from
   numpy's generator (np_random.h), the same runs from the same seed, for a
   number of runs or of CPU seconds, whichever ends first:
       c/build/fuzz_NAME [seed] [runs] [seconds]
   or, when the first argument is not a number, each file's bytes as one
   input (a seed, or a crash that libFuzzer saved, under gcc's sanitizers):
       c/build/fuzz_NAME FILE...
   It prints the number of inputs and how often each status came back (`seen`,
   counted by the harness), which the tests read. Built with -DMHA_LIBFUZZER,
   a harness leaves main to libFuzzer instead. */
#ifndef FUZZ_DRIVER_H
#define FUZZ_DRIVER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../lib/mha.h"
#include "../lib/np_random.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_print_seen(const long seen[MHA_STATUS_COUNT]) {
    for (int status = 0; status < MHA_STATUS_COUNT; status++)
        if (seen[status]) printf(" %s %ld", mha_status_name((mha_status)status), seen[status]);
    printf("\n");
}

/* A whole file, *size bytes (never NULL for an empty one); NULL when it cannot be read. */
static uint8_t *fuzz_read_file(const char *path, size_t *size) {
    FILE *file = fopen(path, "rb");
    if (!file) return NULL;
    size_t capacity = 4096;
    uint8_t *bytes = malloc(capacity);
    *size = 0;
    while (bytes) {
        *size += fread(bytes + *size, 1, capacity - *size, file);
        if (*size < capacity) break; /* the end, or an error */
        uint8_t *grown = realloc(bytes, capacity *= 2);
        if (!grown) free(bytes);
        bytes = grown;
    }
    if (bytes && ferror(file)) free(bytes), bytes = NULL;
    fclose(file);
    return bytes;
}

/* Runs each file as one input; 2 when one cannot be read. */
static int fuzz_replay(int count, char **paths, const char *name, const long seen[MHA_STATUS_COUNT]) {
    for (int i = 0; i < count; i++) {
        size_t size;
        uint8_t *bytes = fuzz_read_file(paths[i], &size);
        if (!bytes) {
            fprintf(stderr, "%s: cannot read the input %s\n", name, paths[i]);
            return 2;
        }
        LLVMFuzzerTestOneInput(bytes, size);
        free(bytes);
    }
    printf("%s: %d inputs replayed, no broken promise; calls by status:", name, count);
    fuzz_print_seen(seen);
    return 0;
}

static int fuzz_seeded_main(int argc, char **argv, const char *name, uint8_t *bytes, size_t max_bytes,
                            const long seen[MHA_STATUS_COUNT]) {
    if (argc > 1 && strspn(argv[1], "0123456789") != strlen(argv[1])) return fuzz_replay(argc - 1, argv + 1, name, seen);
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
    fuzz_print_seen(seen);
    return 0;
}

#endif /* FUZZ_DRIVER_H */
