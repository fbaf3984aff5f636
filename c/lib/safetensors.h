/* safetensors.h — the .safetensors format: reads a file's header, widens its
   F16 data, writes a file (internal: gpt_file.c uses it; not part of the
   public API).

   A .safetensors file is
       8 bytes     N, the header's length, unsigned little-endian
       N bytes     a JSON object, UTF-8, maybe padded with spaces:
                     "name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}
                     "__metadata__": {"key": "value", ...}   (optional, strings only)
       the rest    the tensors' bytes; begin and end count from here.
   Every byte may be hostile: st_parse checks the JSON, the types, that each
   tensor's byte range matches its shape and dtype, lies inside the file and
   overlaps no other, and fails with MHA_ERR_BAD_MODEL and a sentence naming
   the problem. It reads only the header: the data stays where it is. */
#ifndef MHA_SAFETENSORS_H
#define MHA_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

#include "mha.h"

#define ST_MAX_RANK 8
#define ST_MAX_HEADER_BYTES (16u << 20) /* real headers are kilobytes; GPT-2 small's is 15 kB */

typedef struct st_tensor {
    const char *name;        /* decoded UTF-8, NUL-terminated */
    char dtype[8];           /* "F32", "F16", …; only known safetensors dtypes are accepted */
    int dtype_bytes;         /* bytes per element */
    int rank;                /* 0 .. ST_MAX_RANK */
    int64_t shape[ST_MAX_RANK];
    int64_t count;           /* elements: the product of shape */
    uint64_t begin, end;     /* bytes, from the start of the data section */
} st_tensor;

typedef struct st_entry {
    const char *key, *value; /* decoded UTF-8, NUL-terminated */
} st_entry;

typedef struct st_header {
    uint64_t data_start;     /* 8 + N: where the data section begins in the file */
    int tensor_count;
    st_tensor *tensors;
    int metadata_count;
    st_entry *metadata;
    char *strings;           /* the decoded names, keys and values */
} st_header;

/* The total bytes the header needs (8 + N) from the file's first 8 bytes, or 0
   when N is absurd (over ST_MAX_HEADER_BYTES). */
uint64_t st_header_bytes(const unsigned char first8[8]);

/* Parses the header from `bytes`, the file's first `size` bytes (at least
   8 + N of them unless the file is shorter), of a file of `file_size` bytes.
   On success *out owns its allocations (st_free); on failure it holds none. */
mha_status st_parse(const unsigned char *bytes, size_t size, uint64_t file_size, st_header *out);
void st_free(st_header *header);

/* The tensor called `name`, or NULL. */
const st_tensor *st_find(const st_header *header, const char *name);

/* Widens n little-endian IEEE halves, the first 2n bytes at p, into n floats, in
   place and exactly (every half is a float). */
void st_widen_f16(float *p, size_t n);

/* The IEEE half nearest to x, ties to even; past the largest half ±infinity,
   NaN a quiet NaN of x's sign. */
uint16_t st_narrow_f16(float x);

/* A tensor to write: float32 values, row-major, shape[0] × … × shape[rank-1]. */
typedef struct st_source {
    const char *name;
    int rank;                /* 1 .. ST_MAX_RANK */
    int64_t shape[ST_MAX_RANK];
    const float *values;
} st_source;

/* Writes a .safetensors file of `count` tensors stored as `dtype`, "F32" or
   "F16" (st_narrow_f16), their bytes back to back in this order, with the
   metadata entries in this order as __metadata__ (first in the header). The
   JSON is written as JavaScript's JSON.stringify writes it, and padded with
   spaces so the data starts 8-byte aligned, as Hugging Face's writer does.
   *size gets the file's length; with out NULL (or capacity too small:
   MHA_ERR_TOO_LARGE) nothing is written. */
mha_status st_write(const st_source *tensors, int count, const char *dtype, const st_entry *metadata, int metadata_count,
                    unsigned char *out, size_t capacity, size_t *size);

#endif /* MHA_SAFETENSORS_H */
