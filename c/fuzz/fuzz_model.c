/* fuzz_model.c — a fuzz harness for the GPT model loader (gpt.h, safetensors.c)
   with hostile bytes.

   Each input is a program. Its first byte picks the file: the input's
   remaining bytes as they are; a header at the edge of the format with no
   model in it ({}, {"__metadata__":{}}, tensors of no bytes); or a valid
   small GPT-2 .safetensors file (of a shape the next bytes pick, its
   vocabulary odd or even up to GPT-2's 50257, written by gpt_save) damaged by
   the rest: bytes overwritten (mostly in the header), digits of the JSON
   changed (shapes, offsets, the header's numbers), the header's length
   replaced, the file cut short. Then it loads the file one to four times, as a
   page loads, runs and disposes model after model: each time whole (gpt_load)
   or in the three steps a page uses (gpt_load_begin with just the header, each
   copy, gpt_load_finish), the two in turn, and checks the loader's promises,
   aborting on a broken one:
     - a failure has a known status and a sentence, and gives no model;
     - a file without a model never loads;
     - a file that loads has the shape its tensors say, a forward on tokens
       from the input gives finite logits, causal attention rows that sum to 1
       with exact zeros above the diagonal, and TOKEN_RANGE for a bad token;
     - a step of one token more after a forward gives what a forward of them all
       gives, and past the model's buffers SEQ_TOO_LONG;
     - saving a loaded model and loading that gives the same weights;
     - loading the same file again, either way, gives the same status and the
       same weights;
   and nothing the sanitizers can see goes wrong.

   Two drivers, as for fuzz_api.c:
     - libFuzzer (tests/fuzzers.slow.test.js runs this command, for a few seconds):
         clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -DMHA_LIBFUZZER \
           c/fuzz/fuzz_model.c c/lib/[a-z]*.c -lm -o fuzz_model && mkdir -p corpus_model && \
           ./fuzz_model -max_total_time=600 corpus_model
     - the seeded driver of fuzz_driver.h (build.sh builds it under ASan and UBSan as
       c/build/fuzz_model; tests/native.slow.test.js runs it), which also replays files
       (tests/fuzzers.slow.test.js replays headers with no tensors):
         c/build/fuzz_model [seed] [runs] [seconds]
         c/build/fuzz_model FILE... */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/gpt.h"
#include "../lib/np_random.h"
#include "fuzz_driver.h"

typedef struct program {
    const uint8_t *data;
    size_t size, at;
} program;

static unsigned next_byte(program *p) { return p->at < p->size ? p->data[p->at++] : 0; }

static long seen[MHA_STATUS_COUNT];

static void fail(const char *what) {
    fprintf(stderr, "fuzz_model: broken promise: %s (last error: %s)\n", what, mha_last_error());
    abort();
}

static void check_failure(mha_status status) {
    if ((unsigned)status < MHA_STATUS_COUNT) seen[status]++;
    if (status == MHA_OK) return;
    if (mha_last_status() != status) fail("mha_last_status is not the failing call's status");
    if (!strcmp(mha_status_name(status), "UNKNOWN")) fail("a failure with an unknown status");
    if (mha_last_error()[0] == '\0') fail("a failure without a sentence");
}

/* Odd and even vocabularies: an odd one puts every other row of the logits, and the tensors after
   wte.weight when d_model is odd too, at an odd multiple of 4 bytes. GPT-2's own 50257 once in 256
   files: under the sanitizers its model takes some 40 ms to make, save, load and run, a hundred times
   a small one's. */
static int pick_vocab(program *p) {
    static const int vocabs[] = {1, 2, 3, 4, 5, 7, 8, 9, 17, 51, 1001};
    const unsigned pick = next_byte(p);
    return pick == 255 ? 50257 : vocabs[pick % (sizeof vocabs / sizeof *vocabs)];
}

/* A valid file of a small shape picked by the program; *size gets its length. */
static unsigned char *valid_file(program *p, size_t *size) {
    const int heads = 1 + (int)(next_byte(p) % 3);
    const gpt_config c = {.layers = 1 + (int)(next_byte(p) % 2), .heads = heads, .d_model = heads * (1 + (int)(next_byte(p) % 4)),
                          .context = 1 + (int)(next_byte(p) % 6), .vocab = pick_vocab(p)};
    gpt_model *m;
    if (gpt_model_create(&c, next_byte(p), &m) != MHA_OK) fail("a small model could not be created");
    const gpt_metadata extra[] = {{"vocab", "[\"春\",\"\\\"\",\"\\u0001\"]"}};
    gpt_save(m, "F32", extra, 1, NULL, 0, size);
    unsigned char *bytes = malloc(*size);
    if (gpt_save(m, "F32", extra, 1, bytes, *size, size) != MHA_OK) fail("a small model could not be saved");
    gpt_model_destroy(m);
    return bytes;
}

/* Headers the format allows that hold no model: no tensors at all, tensors of no elements, a scalar. */
static const char *const modelless_headers[] = {
    "{}",
    "{\"__metadata__\":{}}",
    "  {\"__metadata__\":{\"n_head\":\"2\"}}  ",
    "{\"wte.weight\":{\"dtype\":\"F32\",\"shape\":[0,4],\"data_offsets\":[0,0]}}",
    "{\"wte.weight\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4]},\"wpe.weight\":{\"dtype\":\"F16\",\"shape\":[1,0],"
    "\"data_offsets\":[4,4]}}",
};

/* A file of one of those headers and the data bytes the program picks; *size gets its length. */
static unsigned char *modelless_file(program *p, size_t *size) {
    const char *header = modelless_headers[next_byte(p) % (sizeof modelless_headers / sizeof *modelless_headers)];
    const size_t header_size = strlen(header), data_size = next_byte(p) % 9;
    *size = 8 + header_size + data_size;
    unsigned char *bytes = malloc(*size);
    for (int i = 0; i < 8; i++) bytes[i] = (unsigned char)(header_size >> 8 * i);
    memcpy(bytes + 8, header, header_size);
    for (size_t i = 0; i < data_size; i++) bytes[8 + header_size + i] = (unsigned char)next_byte(p);
    return bytes;
}

/* Damages file[0 .. *size) as the program says. */
static void damage(program *p, unsigned char *file, size_t *size) {
    size_t header = 0;
    for (int i = 7; i >= 0; i--) header = header << 8 | file[i];
    const int edits = (int)(next_byte(p) % 6);
    for (int e = 0; e < edits; e++) {
        const unsigned op = next_byte(p) % 8, where = next_byte(p) << 8 | next_byte(p);
        if (op < 3) { /* a byte of the header */
            file[8 + where % header] = (unsigned char)next_byte(p);
        } else if (op < 5) { /* a digit of the header becomes another digit, or a sign */
            for (size_t k = 0; k < header; k++) {
                unsigned char *c = &file[8 + (where + k) % header];
                if (*c >= '0' && *c <= '9') {
                    *c = "0123456789-.e9"[next_byte(p) % 14];
                    break;
                }
            }
        } else if (op == 5) { /* a byte anywhere, weights included */
            if (*size) file[where % *size] = (unsigned char)next_byte(p);
        } else if (op == 6) { /* the header's length */
            file[next_byte(p) % 8] = (unsigned char)next_byte(p);
        } else { /* the file cut short */
            *size = *size * (next_byte(p) + 1) / 257;
        }
    }
}

static mha_status load_in_steps(const unsigned char *file, size_t size, int heads, gpt_model **out) {
    const uint64_t need = size >= 8 ? gpt_header_bytes(file) : 8;
    const size_t head = need && need < size ? (size_t)need : size;
    gpt_loader *loader;
    *out = NULL;
    mha_status status = gpt_load_begin(file, head, size, heads, 0, &loader);
    if (status) {
        if (loader) fail("a failed gpt_load_begin gave a loader");
        return status;
    }
    for (int i = 0; i < gpt_loader_copies(loader); i++) {
        uint64_t offset;
        size_t bytes;
        void *dest;
        if (gpt_loader_copy(loader, i, &offset, &bytes, &dest) != MHA_OK) fail("a copy the loader listed");
        if (offset + bytes > size) fail("a copy past the end of the file");
        memcpy(dest, file + offset, bytes);
    }
    return gpt_load_finish(loader, out);
}

/* After a good forward of tokens: an edit of them (some kept, some changed, a length of its own)
   forwarded reusing that forward gives the bits of a forward of every row. */
static void check_reuse(program *p, gpt_model *m, const int *tokens, int len, const unsigned char *enabled) {
    const gpt_config *c = gpt_model_config(m);
    int again[8];
    const int len2 = 1 + (int)(next_byte(p) % 8);
    if (len2 > c->context) return;
    for (int i = 0; i < len2; i++) again[i] = i < len && (next_byte(p) & 3) ? tokens[i] : (int)(next_byte(p) % (unsigned)c->vocab);
    const size_t heads = (size_t)c->layers * c->heads, logit_floats = (size_t)len2 * c->vocab, att_floats = (size_t)len2 * len2;
    float *kept = malloc(sizeof *kept * (logit_floats + heads * att_floats));
    if (!kept) fail("out of memory");
    const mha_status status = gpt_forward_reusing(m, again, len2, enabled);
    check_failure(status);
    const float *logits, *a;
    if (status == MHA_OK) {
        gpt_logits(m, &logits);
        memcpy(kept, logits, sizeof *kept * logit_floats);
        for (size_t i = 0; i < heads; i++) {
            gpt_attention(m, (int)(i / c->heads), (int)(i % c->heads), &a);
            memcpy(kept + logit_floats + i * att_floats, a, sizeof *kept * att_floats);
        }
    }
    if (gpt_forward(m, again, len2, enabled) != status) fail("reusing a forward changed its status");
    if (status == MHA_OK) {
        gpt_logits(m, &logits);
        if (memcmp(kept, logits, sizeof *kept * logit_floats)) fail("reusing a forward changed the logits");
        for (size_t i = 0; i < heads; i++) {
            gpt_attention(m, (int)(i / c->heads), (int)(i % c->heads), &a);
            if (memcmp(kept + logit_floats + i * att_floats, a, sizeof *kept * att_floats)) fail("reusing a forward changed the attention");
        }
    }
    free(kept);
}

/* After a good forward of tokens: one token more by gpt_step gives what a forward of them all gives (the
   attention to the bit, the logits within 2e-6 of the largest); past the model's buffers it is refused and
   the cache kept. */
static void check_step(program *p, gpt_model *m, const int *tokens, int len, const unsigned char *enabled) {
    const gpt_config *c = gpt_model_config(m);
    int more[9];
    memcpy(more, tokens, sizeof *more * (size_t)len);
    more[len] = (int)(next_byte(p) % (unsigned)c->vocab);
    if (gpt_forward(m, tokens, len, enabled) != MHA_OK) return;
    const mha_status status = gpt_step(m, more[len], enabled);
    check_failure(status);
    if (len >= gpt_model_max_tokens(m)) {
        if (status != MHA_ERR_SEQ_TOO_LONG || gpt_model_len(m) != len) fail("a step past the cache was not refused, or lost it");
        return;
    }
    if (status != MHA_OK) {
        if (status != MHA_ERR_NOT_FINITE) fail("a step failed oddly");
        return;
    }
    const int L = len + 1;
    const size_t heads = (size_t)c->layers * c->heads, logit_floats = (size_t)L * c->vocab, att_floats = (size_t)L * L;
    float *kept = malloc(sizeof *kept * (logit_floats + heads * att_floats));
    if (!kept) fail("out of memory");
    const float *logits, *a;
    gpt_logits(m, &logits);
    memcpy(kept, logits, sizeof *kept * logit_floats);
    for (size_t i = 0; i < heads; i++) {
        gpt_attention(m, (int)(i / c->heads), (int)(i % c->heads), &a);
        memcpy(kept + logit_floats + i * att_floats, a, sizeof *kept * att_floats);
    }
    if (gpt_forward(m, more, L, enabled) != MHA_OK) fail("a step gave a result where a forward fails");
    gpt_logits(m, &logits);
    float scale = 1.0f;
    for (size_t i = 0; i < logit_floats; i++) scale = fmaxf(scale, fabsf(logits[i]));
    for (size_t i = 0; i < logit_floats; i++)
        if (fabsf(kept[i] - logits[i]) > 2e-6f * scale) fail("a step's logits differ from a forward's");
    for (size_t i = 0; i < heads; i++) {
        gpt_attention(m, (int)(i / c->heads), (int)(i % c->heads), &a);
        if (memcmp(kept + logit_floats + i * att_floats, a, sizeof *kept * att_floats)) fail("a step's attention differs from a forward's");
    }
    free(kept);
}

static void check_model(program *p, gpt_model *m) {
    const gpt_config *c = gpt_model_config(m);
    int tokens[8];
    const int len = 1 + (int)(next_byte(p) % 8);
    int bad = 0;
    for (int i = 0; i < len; i++) {
        tokens[i] = (int)(next_byte(p) % (unsigned)(c->vocab + 2)) - (next_byte(p) & 1);
        bad |= tokens[i] < 0 || tokens[i] >= c->vocab;
    }
    unsigned char enabled[3 * 2] = {1, 1, 1, 1, 1, 1};
    for (int i = 0; i < c->layers * c->heads && i < 6; i++) enabled[i] = (unsigned char)(next_byte(p) & 1);
    const mha_status status = gpt_forward(m, tokens, len, c->layers * c->heads <= 6 ? enabled : NULL);
    check_failure(status);
    if (len > c->context) {
        if (status != MHA_ERR_SEQ_TOO_LONG) fail("more tokens than the context");
        return;
    }
    if (bad != (status == MHA_ERR_TOKEN_RANGE)) fail("TOKEN_RANGE exactly for a token outside the vocabulary");
    if (status != MHA_OK) {
        if (status != MHA_ERR_TOKEN_RANGE && status != MHA_ERR_NOT_FINITE) fail("a forward failed oddly");
        return;
    }
    const float *logits, *a;
    if (gpt_logits(m, &logits) != MHA_OK) fail("logits after a good forward");
    for (int i = 0; i < len * c->vocab; i++)
        if (!isfinite(logits[i])) fail("a non-finite logit after a good forward");
    for (int l = 0; l < c->layers; l++)
        for (int h = 0; h < c->heads; h++) {
            if (gpt_attention(m, l, h, &a) != MHA_OK) fail("attention after a good forward");
            for (int r = 0; r < len; r++) {
                double sum = 0;
                for (int col = 0; col < len; col++) {
                    sum += a[r * len + col];
                    if (col > r && a[r * len + col] != 0.0f) fail("a masked weight is not 0");
                }
                if (fabs(sum - 1) > 1e-4) fail("a row of attention does not sum to 1");
            }
        }
    check_reuse(p, m, tokens, len, c->layers * c->heads <= 6 ? enabled : NULL);
    check_step(p, m, tokens, len, c->layers * c->heads <= 6 ? enabled : NULL);
}

/* Saving a loaded model and loading that gives the same weights. */
static void check_round_trip(gpt_model *m) {
    size_t size, count, count_back;
    gpt_save(m, "F32", NULL, 0, NULL, 0, &size);
    unsigned char *bytes = malloc(size);
    if (gpt_save(m, "F32", NULL, 0, bytes, size, &size) != MHA_OK) fail("saving a loaded model");
    gpt_model *back;
    if (gpt_load(bytes, size, 0, &back) != MHA_OK) fail("loading a saved model");
    const float *a = gpt_model_params(m, &count), *b = gpt_model_params(back, &count_back);
    if (count != count_back || memcmp(a, b, count * sizeof *a)) fail("a saved model loads with other weights");
    gpt_model_destroy(back);
    free(bytes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    program p = {data, size, 0};
    const unsigned mode = next_byte(&p);
    const int modelless = mode % 8 == 4;
    unsigned char *file;
    size_t file_size;
    if (mode % 8 == 0) { /* the bytes as they are */
        file_size = size - p.at;
        file = malloc(file_size + 1);
        memcpy(file, data + p.at, file_size);
        p.at = size;
    } else if (modelless) {
        file = modelless_file(&p, &file_size);
    } else {
        file = valid_file(&p, &file_size);
        damage(&p, file, &file_size);
    }
    const int heads = (mode & 16) ? (int)(next_byte(&p) % 5) - 1 : 0;
    const int loads = 1 + (int)(mode >> 6);
    mha_status first = MHA_OK;
    float *weights = NULL; /* the first load's, which every later load must give */
    size_t weight_count = 0;
    for (int i = 0; i < loads; i++) {
        gpt_model *m = (gpt_model *)&m; /* must become NULL on failure */
        const int whole = ((mode >> 5) + (unsigned)i) % 2; /* the two ways in turn */
        const mha_status status = whole ? gpt_load(file, file_size, heads, &m) : load_in_steps(file, file_size, heads, &m);
        check_failure(status);
        if (i == 0) first = status;
        else if (status != first) fail("loading the same file again gave another status");
        if (status != MHA_OK) {
            if (m) fail("a failed load gave a model");
            continue;
        }
        if (modelless) fail("a file without a model loaded");
        size_t count;
        const float *params = gpt_model_params(m, &count);
        if (i == 0) {
            weights = malloc(count * sizeof *weights);
            if (!weights) fail("out of memory");
            memcpy(weights, params, count * sizeof *weights);
            weight_count = count;
            check_round_trip(m);
        } else if (count != weight_count || memcmp(weights, params, count * sizeof *params)) {
            fail("loading the same file again gave other weights");
        }
        check_model(&p, m);
        gpt_model_destroy(m);
    }
    free(weights);
    free(file);
    return 0;
}

#ifndef MHA_LIBFUZZER
int main(int argc, char **argv) {
    static uint8_t bytes[1024];
    return fuzz_seeded_main(argc, argv, "fuzz_model", bytes, sizeof bytes, seen);
}
#endif
