/* tool_train_poems.c — trains the lesson's poetry model (c/lib/gpt.h) on a token stream and writes it as
   a .safetensors file (gpt_save). Not part of the library (c/lib); web/poems/build/train.js
   builds it with gcc -O3 -std=c11 -pthread -DMHA_THREADS and runs it:

     tool_train_poems STREAM.bin OUT.safetensors [--layers 3] [--d-model 128] [--heads 4] [--context 64]
                      [--batch 16] [--steps 3000] [--seed 1] [--lr 0.002] [--warmup 100] [--dropout 0] [--vocab N]
                      [--save-every 500] [--threads 1] [--keep-every N --keep-dir DIR]
                      [--dtype F32] [--metadata KEY=VALUE]...
                      [--checkpoint-dir DIR [--checkpoint-every N]] [--resume CHECKPOINT] [--stop-after N]
                      [--average-from S] [--init MODEL.safetensors]

   STREAM.bin is the corpus's training stream (Uint16 little-endian token ids, poems opened by token 0).
   Each step reads `batch` windows of context + 1 tokens drawn with numpy's RandomState(seed): the even
   rows start at a poem's opening token (as every evaluated poem starts), the odd rows anywhere (as the
   later windows of a long poem do). The step size rises linearly over `warmup` steps, then falls along a
   cosine to a tenth of --lr. --dropout zeroes that share of the embeddings' sum and of every block's
   attention and MLP output in each step (gpt_train_desc's dropout, its masks seeded by --seed). stdout
   gets one line per step, "step loss", and nothing that depends on time, so two runs on one machine print
   the same; stderr gets progress and the time; OUT is rewritten every --save-every steps and at the end. Exit status 0, or 1 with the reason on stderr. --threads shares
   each step's big products among that many threads (mha_set_threads); every output is computed whole by
   one thread, so the model is the same bytes on any number of them. --keep-every N also writes the model
   at every N-th step to DIR/step-N.safetensors, for the learning curve. OUT is written as --dtype (F32 or
   F16, which ships) with each --metadata entry in its __metadata__, after n_head; the kept steps are F32
   and hold n_head alone. --average-from S makes the final OUT the mean of the parameters after each step from
   S + 1 to the last (a running mean in float32, the same on resume); the interim OUT and the kept steps are
   the steps' own parameters. --init MODEL starts from a trained model's parameters instead of GPT-2's
   initialisation: a model file of the same layers, heads, d_model and vocabulary whose context may be shorter
   than --context, its position rows then repeated (position p starts as its row p mod its context), so that a
   run can lengthen a trained model's context; the file's FNV-1a is part of "run" below.

   Checkpoints: with --checkpoint-dir, DIR/checkpoint-STEP.safetensors is written every --checkpoint-every
   steps (default 1000), when SIGINT or SIGTERM arrives (after the step under way; a second one stops at
   once), at --stop-after N, and at the end; each replaces the one this process wrote before it. A
   checkpoint is a .safetensors file (the project's writer, c/lib/safetensors.c) holding everything that
   decides the rest of the run: the model's tensors in F32 under their GPT-2 names, AdamW's moments
   ("adamw.m", "adamw.v", laid out as gpt_model_params), and in __metadata__ the steps done ("step"), the
   batch generator's whole state ("rng": MT19937's 624 words, its position and numpy's cached normal), the
   run's shape, schedule and stream ("run", which must match on resume) and the training seconds so far;
   past --average-from, the running mean ("average") and how many steps it holds ("averaged", "average_from").
   --resume CHECKPOINT goes on from it: the model, the stdout lines and every file written afterwards are
   the bytes an unbroken run writes (the batches are drawn from the restored generator; AdamW's bias
   corrections are multiplied up again in the same order, gpt_trainer_set_steps). A checkpoint of a finished
   run resumes to writing OUT alone. Stopped by a signal or --stop-after, the exit status is 3. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../lib/gpt.h"
#include "../lib/mha.h"
#include "../lib/np_random.h"
#include "../lib/safetensors.h"

#define MAX_METADATA 16

typedef struct options {
    int layers, d_model, heads, context, batch, steps, warmup, vocab, save_every, threads, keep_every;
    int checkpoint_every, stop_after, average_from;
    const char *keep_dir, *dtype, *checkpoint_dir, *resume, *init;
    int metadata_count;
    gpt_metadata metadata[MAX_METADATA]; /* keys cut from their --metadata values in place */
    unsigned seed;
    double lr;
    double dropout;
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
        else if (!strcmp(name, "--checkpoint-every")) ok = parse_int(value, 1, 1 << 30, &o->checkpoint_every);
        else if (!strcmp(name, "--stop-after")) ok = parse_int(value, 1, 1 << 30, &o->stop_after);
        else if (!strcmp(name, "--average-from")) ok = parse_int(value, 0, 1 << 30, &o->average_from);
        else if (!strcmp(name, "--checkpoint-dir") || !strcmp(name, "--resume") || !strcmp(name, "--init")) {
            *(!strcmp(name, "--resume") ? &o->resume : !strcmp(name, "--init") ? &o->init : &o->checkpoint_dir) = value;
            ok = strlen(value) < 4000;
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
        } else if (!strcmp(name, "--lr") || !strcmp(name, "--dropout")) {
            char *end;
            double *real = !strcmp(name, "--lr") ? &o->lr : &o->dropout;
            *real = strtod(value, &end);
            ok = end != value && !*end && (real == &o->lr ? *real > 0 : *real >= 0) && *real < 1;
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

/* ---- checkpoints ---- */

static volatile sig_atomic_t interrupted;

static void on_signal(int signal) {
    (void)signal;
    interrupted = 1;
}

/* FNV-1a: the hash of no bytes, and one more byte into a hash. */
#define FNV1A_START 14695981039346656037u
static uint64_t fnv1a(uint64_t h, unsigned byte) { return (h ^ byte) * 1099511628211u; }

/* FNV-1a over the stream's tokens (each its two bytes, low first): a resumed run must read the same stream. */
static uint64_t stream_hash(const int *stream, size_t count) {
    uint64_t h = FNV1A_START;
    for (size_t i = 0; i < count; i++) h = fnv1a(fnv1a(h, (unsigned)stream[i] & 0xff), (unsigned)stream[i] >> 8);
    return h;
}

/* Everything but the step that decides the run's future, as one line: a checkpoint of another run is refused.
   init_hash: the --init file's FNV-1a, 0 without one. */
static void describe_run(const options *o, size_t tokens, uint64_t hash, uint64_t init_hash, char *out, size_t size) {
    const int used = snprintf(out, size, "layers=%d d_model=%d heads=%d context=%d vocab=%d batch=%d steps=%d warmup=%d seed=%u "
                              "lr=%.17g dropout=%.17g stream_tokens=%zu stream_fnv1a=%016" PRIx64, o->layers, o->d_model,
                              o->heads, o->context, o->vocab, o->batch, o->steps, o->warmup, o->seed, o->lr, o->dropout, tokens, hash);
    if (o->init && used > 0 && (size_t)used < size) snprintf(out + used, size - (size_t)used, " init_fnv1a=%016" PRIx64, init_hash);
}

/* A whole file in memory (free it), or NULL, said on stderr. */
static unsigned char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    unsigned char *bytes = NULL;
    *size = 0;
    if (f && !fseek(f, 0, SEEK_END)) {
        const long end = ftell(f);
        *size = end > 0 ? (size_t)end : 0;
        bytes = *size ? malloc(*size) : NULL;
        rewind(f);
        if (bytes && fread(bytes, 1, *size, f) != *size) free(bytes), bytes = NULL;
    }
    if (f) fclose(f);
    if (!bytes) fail(path, "cannot read the file");
    return bytes;
}

/* --init: starts the model from a model file of the run's shape and a context no longer than the run's (a run that
   lengthens the context of a trained model). Position p takes the file's position row p mod its context: the rows
   past the file's begin as copies, for training to tell apart. *hash gets the file's FNV-1a. */
static int init_from(const char *path, gpt_model *model, uint64_t *hash) {
    size_t size;
    unsigned char *bytes = read_file(path, &size);
    if (!bytes) return 1;
    *hash = FNV1A_START;
    for (size_t i = 0; i < size; i++) *hash = fnv1a(*hash, bytes[i]);
    gpt_model *from = NULL;
    int status = gpt_load(bytes, size, 0, &from) != MHA_OK ? fail(path, mha_last_error()) : 0;
    free(bytes);
    const gpt_config *a = status ? NULL : gpt_model_config(from), *b = gpt_model_config(model);
    if (a && (a->layers != b->layers || a->heads != b->heads || a->d_model != b->d_model || a->vocab != b->vocab || a->context > b->context))
        status = fail(path, "not a model of the run's shape (layers, heads, d_model, vocabulary; a context no longer than --context)");
    for (int i = 0; i < gpt_tensor_count(model) && !status; i++) {
        float *source, *dest;
        int rows, cols, dest_rows;
        gpt_tensor(from, i, NULL, &source, &rows, &cols, NULL);
        gpt_tensor(model, i, NULL, &dest, &dest_rows, NULL, NULL);
        for (int r = 0; r < dest_rows; r++) memcpy(dest + (size_t)r * cols, source + (size_t)(r % rows) * cols, sizeof(float) * (size_t)cols);
    }
    gpt_model_destroy(from);
    return status;
}

/* numpy's RandomState as text: position, cached-normal flag, the cached normal's bits, the 624 words. */
enum { RNG_TEXT = 64 + 624 * 9 };
static void rng_text(const np_random *rs, char *out) {
    uint64_t bits;
    memcpy(&bits, &rs->gauss, sizeof bits);
    int used = sprintf(out, "%d %d %016" PRIx64, rs->pos, rs->has_gauss, bits);
    for (int i = 0; i < 624; i++) used += sprintf(out + used, " %08" PRIx32, rs->key[i]);
}

static int rng_parse(const char *text, np_random *rs) {
    uint64_t bits;
    int used;
    if (sscanf(text, "%d %d %" SCNx64 "%n", &rs->pos, &rs->has_gauss, &bits, &used) != 3) return 0;
    memcpy(&rs->gauss, &bits, sizeof bits);
    for (int i = 0; i < 624; i++) {
        int more;
        if (sscanf(text + used, " %" SCNx32 "%n", &rs->key[i], &more) != 1) return 0;
        used += more;
    }
    return !text[used] && rs->pos >= 0 && rs->pos <= 624;
}

static void checkpoint_path(const options *o, int step, char *out, size_t size) {
    snprintf(out, size, "%s/checkpoint-%d.safetensors", o->checkpoint_dir, step);
}

static int write_file(const char *path, const unsigned char *bytes, size_t size) {
    FILE *f = fopen(path, "wb");
    int status = !f || fwrite(bytes, 1, size, f) != size;
    if (f && fclose(f)) status = 1;
    return status ? fail(path, "cannot write") : 0;
}

/* Writes the checkpoint of `step` done steps to a .partial file, then renames it, so a checkpoint on disk is whole. */
static int write_checkpoint(const options *o, gpt_model *model, gpt_trainer *trainer, const np_random *rs, int step,
                            const char *run, double seconds_so_far, const float *average, int averaged, const char *path) {
    const int n = gpt_tensor_count(model);
    st_source *tensors = malloc(sizeof *tensors * (size_t)(n + 3));
    char *rng = malloc(RNG_TEXT);
    if (!tensors || !rng) {
        free(tensors), free(rng);
        return fail("checkpoint", "out of memory");
    }
    for (int i = 0; i < n; i++) {
        const char *name;
        float *values;
        int rows, cols;
        gpt_tensor(model, i, &name, &values, &rows, &cols, NULL);
        tensors[i] = rows == 1 ? (st_source){name, 1, {cols}, values} : (st_source){name, 2, {rows, cols}, values};
    }
    size_t count;
    gpt_model_params(model, &count);
    float *m, *v;
    gpt_trainer_moments(trainer, &m, &v);
    tensors[n] = (st_source){"adamw.m", 1, {(int64_t)count}, m};
    tensors[n + 1] = (st_source){"adamw.v", 1, {(int64_t)count}, v};
    tensors[n + 2] = (st_source){"average", 1, {(int64_t)count}, average};
    const int written = n + 2 + (averaged > 0);
    char heads[16], steps[16], seconds[32], average_from[16], averaged_text[16];
    snprintf(heads, sizeof heads, "%d", o->heads);
    snprintf(steps, sizeof steps, "%d", step);
    snprintf(seconds, sizeof seconds, "%.1f", seconds_so_far);
    snprintf(average_from, sizeof average_from, "%d", o->average_from);
    snprintf(averaged_text, sizeof averaged_text, "%d", averaged);
    rng_text(rs, rng);
    const st_entry metadata[] = {{"n_head", heads}, {"checkpoint", "tool_train_poems"}, {"step", steps}, {"run", run},
                                 {"rng", rng}, {"seconds", seconds}, {"average_from", average_from}, {"averaged", averaged_text}};
    const int entries = sizeof metadata / sizeof *metadata - (averaged > 0 ? 0 : 2);
    size_t size;
    unsigned char *bytes = NULL;
    int status = st_write(tensors, written, "F32", metadata, entries, NULL, 0, &size) != MHA_OK ? fail("checkpoint", mha_last_error()) : 0;
    if (!status && !(bytes = malloc(size))) status = fail("checkpoint", "out of memory");
    if (!status && st_write(tensors, written, "F32", metadata, entries, bytes, size, &size) != MHA_OK) status = fail("checkpoint", mha_last_error());
    char partial[4216];
    snprintf(partial, sizeof partial, "%s.partial", path);
    if (!status) status = write_file(partial, bytes, size);
    if (!status && rename(partial, path)) status = fail(path, "cannot rename the .partial file to it");
    free(bytes), free(tensors), free(rng);
    return status;
}

static const char *metadata_value(const st_header *h, const char *key) {
    for (int i = 0; i < h->metadata_count; i++)
        if (!strcmp(h->metadata[i].key, key)) return h->metadata[i].value;
    return NULL;
}

/* Reads a checkpoint into the model (created with the run's shape), the trainer, the generator and, past
   --average-from, the running mean (average, param_count floats, when the run averages); *step, *seconds, *averaged. */
static int read_checkpoint(const char *path, const char *run, const options *o, gpt_model *model, gpt_trainer *trainer,
                           np_random *rs, float *average, int *averaged, int *step, double *seconds_so_far) {
    size_t size;
    unsigned char *bytes = read_file(path, &size);
    if (!bytes) return 1;
    st_header h;
    if (st_parse(bytes, size, size, &h) != MHA_OK) {
        free(bytes);
        return fail(path, mha_last_error());
    }
    int status = 0;
    const char *kind = metadata_value(&h, "checkpoint"), *its_run = metadata_value(&h, "run"), *its_step = metadata_value(&h, "step");
    const char *rng = metadata_value(&h, "rng"), *seconds = metadata_value(&h, "seconds");
    if (!kind || strcmp(kind, "tool_train_poems") || !its_run || !its_step || !rng || !seconds) status = fail(path, "not a checkpoint of tool_train_poems");
    else if (strcmp(its_run, run)) {
        fprintf(stderr, "tool_train_poems: %s is a checkpoint of another run:\n  it:   %s\n  this: %s\n", path, its_run, run);
        status = 1;
    } else if (!parse_int(its_step, 0, 1 << 30, step) || !rng_parse(rng, rs)) status = fail(path, "a broken step or rng in its metadata");
    *seconds_so_far = status ? 0 : strtod(seconds, NULL);
    /* The mean is not part of "run" (it changes what is written, not the steps): a run may begin to average on
       resume, before its --average-from, but never change where the mean it holds began. */
    const char *its_from = metadata_value(&h, "average_from"), *its_averaged = metadata_value(&h, "averaged");
    int from = 0;
    *averaged = 0;
    if (!status && its_from && (!parse_int(its_from, 0, 1 << 30, &from) || !its_averaged ||
                                !parse_int(its_averaged, 1, 1 << 30, averaged) || !st_find(&h, "average")))
        status = fail(path, "a broken average in its metadata");
    else if (!status && its_from && from != o->average_from)
        status = fail(path, "its mean began at another --average-from");
    else if (!status && !its_from && o->average_from && *step > o->average_from)
        status = fail(path, "it is past --average-from and holds no mean");
    size_t count;
    float *params = gpt_model_params(model, &count), *m, *v;
    gpt_trainer_moments(trainer, &m, &v);
    const int n = gpt_tensor_count(model);
    for (int i = 0; i < n + 2 + (*averaged > 0) && !status; i++) {
        const char *name = i == n ? "adamw.m" : i == n + 1 ? "adamw.v" : i == n + 2 ? "average" : NULL;
        float *dest;
        int rows = 1, cols = (int)count;
        size_t offset = 0;
        if (!name) gpt_tensor(model, i, &name, NULL, &rows, &cols, &offset);
        dest = i == n ? m : i == n + 1 ? v : i == n + 2 ? average : params + offset;
        const st_tensor *t = st_find(&h, name);
        if (!t || strcmp(t->dtype, "F32") || t->count != (int64_t)rows * cols) {
            status = fail(path, "a tensor is missing or misshaped");
            fprintf(stderr, "tool_train_poems: (%s)\n", name);
        } else
            memcpy(dest, bytes + h.data_start + t->begin, sizeof(float) * (size_t)t->count); /* little-endian, as written */
    }
    if (!status && gpt_trainer_set_steps(trainer, *step) != MHA_OK) status = fail("resume", mha_last_error());
    st_free(&h);
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
                 .warmup = 100, .vocab = 0, .save_every = 500, .threads = 1, .seed = 1, .lr = 2e-3, .dtype = "F32",
                 .checkpoint_every = 1000};
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
    gpt_train_desc desc = gpt_train_default_desc(o.batch, len);
    desc.dropout = (float)o.dropout, desc.dropout_seed = o.seed;
    int status = !starts || !batch ? fail("memory", "out of memory") : 0;
    if (!status && max_id >= o.vocab) status = fail(argv[1], "a token id is past --vocab");
    if (!status && o.average_from >= o.steps) status = fail("--average-from", "must be below --steps");
    if (!status && (gpt_model_create(&config, o.seed, &model) || gpt_trainer_create(model, &desc, &trainer)))
        status = fail("model", mha_last_error());
    if (!status) {
        starts_count = 0;
        for (size_t i = 0; i + (size_t)len <= count; i++)
            if (stream[i] == 0) starts[starts_count++] = i;
    }
    np_random rs;
    np_random_seed(&rs, o.seed);
    char run[512], previous[4200] = "", path[4200];
    uint64_t init_hash = 0;
    if (!status && o.init) status = init_from(o.init, model, &init_hash);
    describe_run(&o, count, stream_hash(stream, count), init_hash, run, sizeof run);
    int first = 0;
    double before = 0; /* training seconds of the run's earlier parts */
    size_t param_count = 0;
    float *params = model ? gpt_model_params(model, &param_count) : NULL;
    /* With --average-from: the mean of the parameters after each step past it, and how many steps it holds. */
    float *average = !status && o.average_from ? calloc(param_count, sizeof(float)) : NULL;
    int averaged = 0;
    if (!status && o.average_from && !average) status = fail("memory", "out of memory");
    if (!status && o.resume) {
        status = read_checkpoint(o.resume, run, &o, model, trainer, &rs, average, &averaged, &first, &before);
        if (!status && first > o.steps) status = fail(o.resume, "it is past --steps");
        if (!status) fprintf(stderr, "resuming from %s at step %d\n", o.resume, first);
        if (!status && o.checkpoint_dir) { /* the checkpoint resumed from is replaced like the process's own */
            checkpoint_path(&o, first, path, sizeof path);
            if (!strcmp(path, o.resume)) strcpy(previous, path);
        }
    }
    if (!status && o.checkpoint_dir) {
        struct sigaction action = {.sa_handler = on_signal, .sa_flags = SA_RESETHAND};
        sigemptyset(&action.sa_mask);
        sigaction(SIGINT, &action, NULL);
        sigaction(SIGTERM, &action, NULL);
        fprintf(stderr, "tool_train_poems: pid %ld; checkpoints in %s (SIGINT or SIGTERM: one more, then stop)\n",
                (long)getpid(), o.checkpoint_dir);
    }
    const double begun = seconds();
    double recent = 0;
    int stopped = 0;
    for (int step = first; step < o.steps && !status; step++) {
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
        if (average && step + 1 > o.average_from) { /* a running mean, in the same float operations on resume */
            const float weight = 1.0f / (float)++averaged;
            for (size_t i = 0; i < param_count; i++) average[i] += (params[i] - average[i]) * weight;
        }
        recent += loss;
        if ((step + 1) % 50 == 0) {
            fflush(stdout);
            const double elapsed = seconds() - begun;
            const int since = step + 1 - first < 50 ? step + 1 - first : 50; /* fewer just after a resume */
            fprintf(stderr, "step %d: loss %.4f (mean of the last %d), %.2f steps/s, %.0f s\n", step + 1, recent / since,
                    since, (step + 1 - first) / elapsed, before + elapsed);
            recent = 0;
        }
        if ((step + 1) % o.save_every == 0 && step + 1 < o.steps) status = save(model, argv[2], o.dtype, o.metadata, o.metadata_count);
        if (!status && o.keep_every && o.keep_dir && (step + 1) % o.keep_every == 0) {
            snprintf(path, sizeof path, "%s/step-%d.safetensors", o.keep_dir, step + 1);
            status = save(model, path, "F32", NULL, 0);
        }
        stopped = interrupted || step + 1 == o.stop_after;
        if (!status && o.checkpoint_dir && (stopped || (step + 1) % o.checkpoint_every == 0 || step + 1 == o.steps)) {
            fflush(stdout); /* every step's line before the checkpoint that follows it */
            checkpoint_path(&o, step + 1, path, sizeof path);
            status = write_checkpoint(&o, model, trainer, &rs, step + 1, run, before + seconds() - begun, average, averaged, path);
            if (!status && previous[0] && strcmp(previous, path)) remove(previous);
            if (!status) strcpy(previous, path);
        }
        if (stopped) {
            fflush(stdout);
            if (!status) fprintf(stderr, "tool_train_poems: stopped after step %d; go on with --resume %s\n", step + 1,
                                 o.checkpoint_dir ? previous : "(no --checkpoint-dir: nothing kept)");
            break;
        }
    }
    if (!status && !stopped && averaged) memcpy(params, average, param_count * sizeof *params); /* the mean ships */
    if (!status && !stopped) status = save(model, argv[2], o.dtype, o.metadata, o.metadata_count);
    if (!status && !stopped) fprintf(stderr, "trained %d steps in %.1f s%s\n", o.steps, before + seconds() - begun,
                                     averaged ? ", written as the mean of its last steps" : "");
    if (!status && stopped) status = 3;
    gpt_trainer_destroy(trainer);
    gpt_model_destroy(model);
    free(stream), free(starts), free(batch), free(average);
    return status;
}
