/* tool_train_poems.c — trains the lesson's poetry model (c/lib/gpt.h) on a token stream and writes it as
   a .safetensors file (gpt_save). Not part of the library (c/lib); web/poems/build/train.js
   builds it with gcc -O3 -std=c11 -pthread -DMHA_THREADS and runs it:

     tool_train_poems STREAM.bin OUT.safetensors [--layers 3] [--d-model 128] [--heads 4] [--context 64]
                      [--batch 16] [--steps 3000] [--seed 1] [--lr 0.002] [--warmup 100] [--vocab N]
                      [--save-every 500] [--threads 1] [--keep-every N --keep-dir DIR]
                      [--dtype F32] [--metadata KEY=VALUE]...

   STREAM.bin is the corpus's training stream (Uint16 little-endian token ids, poems opened by token 0).
   Each step reads `batch` windows of context + 1 tokens drawn with numpy's RandomState(seed): the even
   rows start at a poem's opening token (as every evaluated poem starts), the odd rows anywhere (as the
   later windows of a long poem do). The step size rises linearly over `warmup` steps, then falls along a
   cosine to a tenth of --lr. stdout gets one line per step, "step loss", and nothing that depends on
   time, so two runs on one machine print the same; stderr gets progress and the time; OUT is rewritten
   every --save-every steps and at the end. Exit status 0, or 1 with the reason on stderr. --threads shares
   each step's big products among that many threads (mha_set_threads); every output is computed whole by
   one thread, so the model is the same bytes on any number of them. --keep-every N also writes the model
   at every N-th step to DIR/step-N.safetensors, for the learning curve. OUT is written as --dtype (F32 or
   F16, which ships) with each --metadata entry in its __metadata__, after n_head; the kept steps are F32
   and hold n_head alone. */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../lib/gpt.h"
#include "../lib/mha.h"
#include "../lib/np_random.h"

#define MAX_METADATA 16

typedef struct options {
    int layers, d_model, heads, context, batch, steps, warmup, vocab, save_every, threads, keep_every;
    const char *keep_dir, *dtype;
    int metadata_count;
    gpt_metadata metadata[MAX_METADATA]; /* keys cut from their --metadata values in place */
    unsigned seed;
    double lr;
} options;

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int fail(const char *what, const char *why) {
    fprintf(stderr, "tool_train_poems: %s: %s\n", what, why);
    return 1;
}

/* Whole numbers only, in range: a typo must stop the run, not train a different model. */
static int parse_int(const char *text, long lo, long hi, int *out) {
    char *end;
    const long value = strtol(text, &end, 10);
    if (end == text || *end || value < lo || value > hi) return 0;
    *out = (int)value;
    return 1;
}

static int parse_options(int argc, char **argv, options *o) {
    for (int i = 3; i < argc; i += 2) {
        const char *name = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        int seed;
        if (!value) return fail(name, "needs a value");
        int ok = 1;
        if (!strcmp(name, "--layers")) ok = parse_int(value, 1, GPT_MAX_LAYERS, &o->layers);
        else if (!strcmp(name, "--d-model")) ok = parse_int(value, 1, GPT_MAX_D, &o->d_model);
        else if (!strcmp(name, "--heads")) ok = parse_int(value, 1, GPT_MAX_D, &o->heads);
        else if (!strcmp(name, "--context")) ok = parse_int(value, 1, GPT_MAX_CONTEXT, &o->context);
        else if (!strcmp(name, "--batch")) ok = parse_int(value, 1, 1 << 16, &o->batch);
        else if (!strcmp(name, "--steps")) ok = parse_int(value, 1, 1 << 30, &o->steps);
        else if (!strcmp(name, "--warmup")) ok = parse_int(value, 0, 1 << 30, &o->warmup);
        else if (!strcmp(name, "--vocab")) ok = parse_int(value, 2, GPT_MAX_VOCAB, &o->vocab);
        else if (!strcmp(name, "--save-every")) ok = parse_int(value, 1, 1 << 30, &o->save_every);
        else if (!strcmp(name, "--threads")) ok = parse_int(value, 1, 256, &o->threads);
        else if (!strcmp(name, "--keep-every")) ok = parse_int(value, 1, 1 << 30, &o->keep_every);
        else if (!strcmp(name, "--keep-dir")) {
            o->keep_dir = value;
            ok = value && strlen(value) < 4000;
        }
        else if (!strcmp(name, "--dtype")) {
            o->dtype = value;
            ok = !strcmp(value, "F32") || !strcmp(value, "F16");
        } else if (!strcmp(name, "--metadata")) {
            char *equals = strchr(argv[i + 1], '=');
            ok = equals && equals != argv[i + 1] && o->metadata_count < MAX_METADATA;
            if (ok) *equals = '\0', o->metadata[o->metadata_count++] = (gpt_metadata){argv[i + 1], equals + 1};
        }
        else if (!strcmp(name, "--seed")) {
            ok = parse_int(value, 0, 2147483647L, &seed);
            o->seed = (unsigned)seed;
        } else if (!strcmp(name, "--lr")) {
            char *end;
            o->lr = strtod(value, &end);
            ok = end != value && !*end && o->lr > 0 && o->lr < 1;
        } else return fail(name, "unknown option");
        if (!ok) return fail(name, "value out of range");
    }
    return 0;
}

/* The stream as ints; *count tokens. NULL with the reason printed. */
static int *read_stream(const char *path, size_t *count) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fail(path, "cannot open");
        return NULL;
    }
    unsigned char *bytes = NULL;
    size_t size = 0, capacity = 0, got;
    do {
        if (size == capacity) {
            capacity = capacity ? 2 * capacity : 1 << 20;
            unsigned char *grown = realloc(bytes, capacity);
            if (!grown) break;
            bytes = grown;
        }
        got = fread(bytes + size, 1, capacity - size, f);
        size += got;
    } while (got);
    const int bad = ferror(f) || size % 2 || size == capacity;
    fclose(f);
    int *tokens = bad ? NULL : malloc(sizeof(int) * (size / 2 + 1));
    if (tokens)
        for (size_t i = 0; i < size / 2; i++) tokens[i] = bytes[2 * i] | bytes[2 * i + 1] << 8;
    free(bytes);
    if (!tokens) fail(path, "unreadable, or not Uint16 tokens");
    *count = size / 2;
    return tokens;
}

static int save(const gpt_model *model, const char *path, const char *dtype, const gpt_metadata *metadata, int count) {
    size_t size;
    if (gpt_save(model, dtype, metadata, count, NULL, 0, &size) != MHA_OK) return fail("save", mha_last_error());
    unsigned char *bytes = malloc(size);
    if (!bytes) return fail("save", "out of memory");
    int status = gpt_save(model, dtype, metadata, count, bytes, size, &size) != MHA_OK ? fail("save", mha_last_error()) : 0;
    FILE *f = status ? NULL : fopen(path, "wb");
    if (!status && (!f || fwrite(bytes, 1, size, f) != size)) status = fail(path, "cannot write");
    if (f && fclose(f)) status = fail(path, "cannot write");
    free(bytes);
    return status;
}

static double step_size(const options *o, int step) {
    if (step < o->warmup) return o->lr * (step + 1) / o->warmup;
    const double progress = o->steps > o->warmup ? (double)(step - o->warmup) / (o->steps - o->warmup) : 1;
    return o->lr * (0.1 + 0.45 * (1 + cos(3.14159265358979323846 * progress)));
}

int main(int argc, char **argv) {
    options o = {.layers = 3, .d_model = 128, .heads = 4, .context = 64, .batch = 16, .steps = 3000,
                 .warmup = 100, .vocab = 0, .save_every = 500, .threads = 1, .seed = 1, .lr = 2e-3, .dtype = "F32"};
    if (argc < 3) return fail("usage", "tool_train_poems STREAM.bin OUT.safetensors [--option value]…");
    if (parse_options(argc, argv, &o)) return 1;
    if (o.threads > 1 && mha_set_threads(o.threads) != MHA_OK) return fail("threads", mha_last_error());
    const int len = o.context + 1;
    size_t count;
    int *stream = read_stream(argv[1], &count);
    if (!stream) return 1;
    int max_id = 0;
    size_t starts_count = 0;
    for (size_t i = 0; i < count; i++) {
        max_id = stream[i] > max_id ? stream[i] : max_id;
        starts_count += stream[i] == 0 && i + (size_t)len <= count;
    }
    if (count < (size_t)len || !starts_count) {
        free(stream);
        return fail(argv[1], "too short for one window, or no poem opens in it");
    }
    if (!o.vocab) o.vocab = max_id + 1;
    size_t *starts = malloc(sizeof(size_t) * starts_count);
    int *batch = malloc(sizeof(int) * (size_t)o.batch * (size_t)len);
    gpt_model *model = NULL;
    gpt_trainer *trainer = NULL;
    const gpt_config config = {.layers = o.layers, .heads = o.heads, .d_model = o.d_model, .context = o.context, .vocab = o.vocab};
    const gpt_train_desc desc = gpt_train_default_desc(o.batch, len);
    int status = !starts || !batch ? fail("memory", "out of memory") : 0;
    if (!status && max_id >= o.vocab) status = fail(argv[1], "a token id is past --vocab");
    if (!status && (gpt_model_create(&config, o.seed, &model) || gpt_trainer_create(model, &desc, &trainer)))
        status = fail("model", mha_last_error());
    if (!status) {
        starts_count = 0;
        for (size_t i = 0; i + (size_t)len <= count; i++)
            if (stream[i] == 0) starts[starts_count++] = i;
    }
    np_random rs;
    np_random_seed(&rs, o.seed);
    const double begun = seconds();
    double recent = 0;
    for (int step = 0; step < o.steps && !status; step++) {
        for (int row = 0; row < o.batch; row++) {
            const size_t start = row % 2 ? (size_t)(np_random_double(&rs) * (double)(count - (size_t)len + 1))
                                         : starts[(size_t)(np_random_double(&rs) * (double)starts_count)];
            memcpy(batch + (size_t)row * len, stream + start, sizeof(int) * (size_t)len);
        }
        double loss;
        if (gpt_train_step(trainer, batch, o.batch, len, (float)step_size(&o, step), &loss) != MHA_OK) {
            status = fail("step", mha_last_error());
            break;
        }
        printf("%d %.9f\n", step + 1, loss);
        recent += loss;
        if ((step + 1) % 50 == 0) {
            fflush(stdout);
            const double elapsed = seconds() - begun;
            fprintf(stderr, "step %d: loss %.4f (mean of the last 50), %.2f steps/s, %.0f s\n", step + 1, recent / 50,
                    (step + 1) / elapsed, elapsed);
            recent = 0;
        }
        if ((step + 1) % o.save_every == 0 || step + 1 == o.steps) status = save(model, argv[2], o.dtype, o.metadata, o.metadata_count);
        if (!status && o.keep_every && o.keep_dir && (step + 1) % o.keep_every == 0) {
            char path[4096];
            snprintf(path, sizeof path, "%s/step-%d.safetensors", o.keep_dir, step + 1);
            status = save(model, path, "F32", NULL, 0);
        }
    }
    if (!status) fprintf(stderr, "trained %d steps in %.1f s\n", o.steps, seconds() - begun);
    gpt_trainer_destroy(trainer);
    gpt_model_destroy(model);
    free(stream), free(starts), free(batch);
    return status;
}
