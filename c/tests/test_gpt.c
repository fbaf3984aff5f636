/* test_gpt.c — native tests of the GPT-2 model (gpt.h), run under ASan + UBSan:
   the forward pass against an independent float64 forward written here from
   GPT-2's definition, the gradient of every tensor against central differences
   of that forward, the loss-only evaluation, one AdamW step by hand, a short
   training run, saving and loading, and hostile files. Prints one
   "gpt gradient check" summary line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/gpt.h"
#include "../lib/gpt_internal.h" /* whether a model holds its matrices as panels */
#include "../lib/safetensors.h"
#include "test_check.h"

static int failures;

/* ---- an independent float64 forward (plain loops, no shared code) ---- */

typedef struct ref_model {
    gpt_config c;
    double *p;          /* every parameter, in gpt_model_params' layout */
    size_t count;
    size_t *offset;     /* of each tensor, by index */
} ref_model;

static ref_model ref_from(gpt_model *model) {
    ref_model r = {*gpt_model_config(model), NULL, 0, NULL};
    const float *params = gpt_model_params(model, &r.count);
    r.p = malloc(r.count * sizeof *r.p);
    for (size_t i = 0; i < r.count; i++) r.p[i] = params[i];
    const int n = gpt_tensor_count(model);
    r.offset = malloc((size_t)n * sizeof *r.offset);
    for (int i = 0; i < n; i++) gpt_tensor(model, i, NULL, NULL, NULL, NULL, &r.offset[i]);
    return r;
}

static void ref_free(ref_model *r) { free(r->p), free(r->offset); }

static const double *T_(const ref_model *r, int i) { return r->p + r->offset[i]; }
static const double *B_(const ref_model *r, int layer, int which) { return T_(r, 2 + layer * 12 + which); }

static void ref_layer_norm(double *out, const double *x, const double *g, const double *b, int d) {
    double mean = 0, var = 0;
    for (int j = 0; j < d; j++) mean += x[j];
    mean /= d;
    for (int j = 0; j < d; j++) var += (x[j] - mean) * (x[j] - mean);
    var /= d;
    for (int j = 0; j < d; j++) out[j] = (x[j] - mean) / sqrt(var + 1e-5) * g[j] + b[j];
}

/* out (n) = x (k) · W (k×n) + b */
static void ref_affine(double *out, const double *x, const double *w, const double *b, int k, int n) {
    for (int j = 0; j < n; j++) {
        double s = b[j];
        for (int i = 0; i < k; i++) s += x[i] * w[(size_t)i * n + j];
        out[j] = s;
    }
}

/* A training step's dropout: the masks of gpt_internal.h's gpt_dropout_kept, for the values of S·T rows of d
   from row `row0` on (sequence s of T tokens starts at row s·T). */
typedef struct ref_dropout {
    float rate;
    unsigned seed;
    long step;
    size_t row0;
} ref_dropout;

/* x (T rows of d) = base + x masked at `site` (base NULL: x masked), or x untouched without dropout. */
static void ref_drop(const ref_dropout *drop, double *x, const double *base, int site, int T, int d) {
    if (!drop) return;
    const uint64_t key = gpt_dropout_key(drop->seed, drop->step, site);
    const uint32_t dropped = gpt_dropout_threshold(drop->rate);
    for (size_t i = 0; i < (size_t)T * d; i++) {
        const double value = gpt_dropout_kept(key, drop->row0 * d + i, dropped) ? x[i] / (1.0 - drop->rate) : 0.0;
        x[i] = (base ? base[i] : 0.0) + value;
    }
}

/* One sequence of T tokens: logits (T×V) and, when att is given, every head's weights (layers·h·T·T); with
   `drop`, through a training step's dropout. */
static void ref_forward_dropped(const ref_model *r, const int *tokens, int T, const unsigned char *enabled, double *logits,
                                double *att, const ref_dropout *drop) {
    const int d = r->c.d_model, h = r->c.heads, dk = d / h, V = r->c.vocab;
    double *x = calloc((size_t)T * d, sizeof *x), *a = calloc((size_t)T * d, sizeof *a);
    double *qkv = calloc((size_t)T * 3 * d, sizeof *qkv), *cat = calloc((size_t)T * d, sizeof *cat);
    double *hid = calloc((size_t)4 * d, sizeof *hid), *w = calloc((size_t)T, sizeof *w);
    for (int t = 0; t < T; t++)
        for (int j = 0; j < d; j++) x[t * d + j] = T_(r, 0)[tokens[t] * d + j] + T_(r, 1)[t * d + j];
    ref_drop(drop, x, NULL, 0, T, d);
    double *branch = calloc((size_t)T * d, sizeof *branch);
    for (int l = 0; l < r->c.layers; l++) {
        for (int t = 0; t < T; t++) {
            ref_layer_norm(a + t * d, x + t * d, B_(r, l, 0), B_(r, l, 1), d);
            ref_affine(qkv + t * 3 * d, a + t * d, B_(r, l, 2), B_(r, l, 3), d, 3 * d);
        }
        for (int hd = 0; hd < h; hd++)
            for (int t = 0; t < T; t++) {
                double max = -INFINITY, sum = 0;
                for (int u = 0; u <= t; u++) {
                    double dot = 0;
                    for (int j = 0; j < dk; j++) dot += qkv[t * 3 * d + hd * dk + j] * qkv[u * 3 * d + d + hd * dk + j];
                    w[u] = dot / sqrt((double)dk);
                    max = fmax(max, w[u]);
                }
                for (int u = 0; u <= t; u++) sum += w[u] = exp(w[u] - max);
                for (int u = 0; u < T; u++) {
                    w[u] = u <= t ? w[u] / sum : 0;
                    if (att) att[(((size_t)l * h + hd) * T + t) * T + u] = w[u];
                }
                const int on = !enabled || enabled[l * h + hd];
                for (int j = 0; j < dk; j++) {
                    double o = 0;
                    for (int u = 0; u <= t; u++) o += w[u] * qkv[u * 3 * d + 2 * d + hd * dk + j];
                    cat[t * d + hd * dk + j] = on ? o : 0;
                }
            }
        for (int t = 0; t < T; t++) ref_affine(branch + t * d, cat + t * d, B_(r, l, 4), B_(r, l, 5), d, d);
        ref_drop(drop, branch, NULL, 1 + 2 * l, T, d);
        for (int i = 0; i < T * d; i++) x[i] += branch[i];
        for (int t = 0; t < T; t++) {
            ref_layer_norm(a + t * d, x + t * d, B_(r, l, 6), B_(r, l, 7), d);
            ref_affine(hid, a + t * d, B_(r, l, 8), B_(r, l, 9), d, 4 * d);
            for (int j = 0; j < 4 * d; j++)
                hid[j] = 0.5 * hid[j] * (1 + tanh(sqrt(2 / 3.14159265358979323846) * (hid[j] + 0.044715 * hid[j] * hid[j] * hid[j])));
            ref_affine(branch + t * d, hid, B_(r, l, 10), B_(r, l, 11), 4 * d, d);
        }
        ref_drop(drop, branch, NULL, 2 + 2 * l, T, d);
        for (int i = 0; i < T * d; i++) x[i] += branch[i];
    }
    free(branch);
    const int lnf = 2 + r->c.layers * 12;
    for (int t = 0; t < T; t++) {
        ref_layer_norm(a + t * d, x + t * d, T_(r, lnf), T_(r, lnf + 1), d);
        for (int v = 0; v < V; v++) {
            double s = 0;
            for (int j = 0; j < d; j++) s += a[t * d + j] * T_(r, 0)[v * d + j];
            logits[(size_t)t * V + v] = s;
        }
    }
    free(x), free(a), free(qkv), free(cat), free(hid), free(w);
}

static void ref_forward(const ref_model *r, const int *tokens, int T, const unsigned char *enabled, double *logits, double *att) {
    ref_forward_dropped(r, tokens, T, enabled, logits, att, NULL);
}

/* Mean next-token cross-entropy of count sequences of len tokens, through `drop` when given. */
static double ref_loss(const ref_model *r, const int *tokens, int count, int len, const ref_dropout *drop) {
    const int V = r->c.vocab, T = len - 1;
    double *logits = malloc(sizeof *logits * (size_t)T * V), total = 0;
    for (int s = 0; s < count; s++) {
        ref_dropout at = drop ? *drop : (ref_dropout){0};
        at.row0 = (size_t)s * T;
        ref_forward_dropped(r, tokens + s * len, T, NULL, logits, NULL, drop ? &at : NULL);
        for (int t = 0; t < T; t++) {
            const double *z = logits + (size_t)t * V;
            double max = z[0], sum = 0;
            for (int v = 1; v < V; v++) max = fmax(max, z[v]);
            for (int v = 0; v < V; v++) sum += exp(z[v] - max);
            total += log(sum) + max - z[tokens[s * len + t + 1]];
        }
    }
    free(logits);
    return total / ((double)count * T);
}

/* ---- helpers ---- */

/* A model of this shape whose every parameter is random (not GPT-2's zeros and
   ones), so every term of the backward pass matters. */
static gpt_model *random_model(gpt_config c, unsigned seed, double spread) {
    gpt_model *m;
    if (gpt_model_create(&c, seed, &m) != MHA_OK) {
        CHECK(0, "create: %s", mha_last_error());
        return NULL;
    }
    size_t n;
    float *p = gpt_model_params(m, &n);
    unsigned state = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        state = state * 1664525u + 1013904223u;
        p[i] = (float)(((double)(state >> 8) / (1 << 24) * 2 - 1) * spread);
    }
    for (int i = 0; i < gpt_tensor_count(m); i++) { /* LayerNorm scales around 1 */
        const char *name;
        float *values;
        int rows, cols;
        gpt_tensor(m, i, &name, &values, &rows, &cols, NULL);
        if (strstr(name, "ln_") && strstr(name, "weight"))
            for (int j = 0; j < cols; j++) values[j] += 1.0f;
    }
    return m;
}

static void some_tokens(int *tokens, int n, int vocab, unsigned seed) {
    for (int i = 0; i < n; i++) tokens[i] = (int)((i * 7u + seed * 13u + (unsigned)i * i) % (unsigned)vocab);
}

/* ---- the forward pass against the float64 one ---- */

/* The queries and keys gpt_qkv lends give every head's weights: softmax over j ≤ r of q_r·k_j / √d_k. */
static void check_qkv_gives_attention(gpt_model *m, int L) {
    const gpt_config *c = gpt_model_config(m);
    const int d = c->d_model, dk = d / c->heads;
    double worst = 0;
    for (int l = 0; l < c->layers; l++) {
        const float *qkv, *att;
        CHECK(gpt_qkv(m, l, &qkv) == MHA_OK, "qkv: %s", mha_last_error());
        for (int hd = 0; hd < c->heads; hd++) {
            gpt_attention(m, l, hd, &att);
            for (int r = 0; r < L; r++) {
                double scores[64], top = -INFINITY, sum = 0;
                for (int j = 0; j <= r; j++) {
                    double dot = 0;
                    for (int e = 0; e < dk; e++) dot += (double)qkv[r * 3 * d + hd * dk + e] * qkv[j * 3 * d + d + hd * dk + e];
                    scores[j] = dot / sqrt(dk);
                    top = fmax(top, scores[j]);
                }
                for (int j = 0; j <= r; j++) sum += exp(scores[j] - top);
                for (int j = 0; j <= r; j++) worst = fmax(worst, fabs(exp(scores[j] - top) / sum - att[r * L + j]));
            }
        }
    }
    CHECK(worst < 1e-5, "softmax(q·k/√d_k) differs from the attention by %.3g", worst);
}

static void test_forward(void) {
    gpt_model *m = random_model((gpt_config){.layers = 2, .heads = 2, .d_model = 16, .context = 12, .vocab = 23}, 3, 0.4);
    if (!m) return;
    ref_model r = ref_from(m);
    const int L = 9;
    int tokens[9];
    some_tokens(tokens, L, 23, 1);
    double *logits = malloc(sizeof(double) * L * 23), *att = malloc(sizeof(double) * 2 * 2 * L * L);
    const unsigned char off[4] = {1, 0, 1, 1}; /* block 0, head 1 switched off */
    for (int ablate = 0; ablate < 2; ablate++) {
        const unsigned char *enabled = ablate ? off : NULL;
        CHECK(gpt_forward(m, tokens, L, enabled) == MHA_OK, "forward: %s", mha_last_error());
        CHECK(gpt_model_len(m) == L, "length kept");
        ref_forward(&r, tokens, L, enabled, logits, att);
        const float *got;
        double worst = 0;
        gpt_logits(m, &got);
        for (int i = 0; i < L * 23; i++) worst = fmax(worst, fabs(got[i] - logits[i]));
        CHECK(worst < 1e-4, "logits differ from float64 by %.3g (ablate %d)", worst, ablate);
        worst = 0;
        for (int l = 0; l < 2; l++)
            for (int hd = 0; hd < 2; hd++) {
                CHECK(gpt_attention(m, l, hd, &got) == MHA_OK, "attention");
                for (int i = 0; i < L * L; i++) worst = fmax(worst, fabs(got[i] - att[(l * 2 + hd) * L * L + i]));
            }
        CHECK(worst < 1e-5, "attention differs from float64 by %.3g (ablate %d)", worst, ablate);
        check_qkv_gives_attention(m, L);
    }
    const float *t;
    CHECK(gpt_qkv(m, 2, &t) == MHA_ERR_HEAD_INDEX && t == NULL, "block 2 has no queries");
    CHECK(gpt_attention(m, 2, 0, &t) == MHA_ERR_HEAD_INDEX, "block 2 does not exist");
    CHECK(gpt_attention(m, 0, -1, &t) == MHA_ERR_HEAD_INDEX, "head -1 does not exist");
    tokens[4] = 23;
    CHECK(gpt_forward(m, tokens, L, NULL) == MHA_ERR_TOKEN_RANGE, "token 23 of 23");
    CHECK(strstr(mha_last_error(), "token 23 at position 4") != NULL, "message: %s", mha_last_error());
    CHECK(gpt_logits(m, &t) == MHA_ERR_NO_FORWARD, "a failed forward leaves no result");
    CHECK(gpt_forward(m, tokens, 13, NULL) == MHA_ERR_SEQ_TOO_LONG, "13 tokens, context 12");
    CHECK(gpt_forward(m, tokens, 0, NULL) == MHA_ERR_BAD_SIZE, "no tokens");
    tokens[4] = 0;
    CHECK(gpt_forward_reusing(m, tokens, L, NULL) == MHA_OK, "a good forward: %s", mha_last_error());
    gpt_model_forget(m);
    CHECK(gpt_model_len(m) == 0 && gpt_logits(m, &t) == MHA_ERR_NO_FORWARD, "a forgotten forward leaves no result");
    CHECK(gpt_forward_reusing(m, tokens, L, NULL) == MHA_OK && gpt_model_reused(m) == 0, "and the next computes every row");
    gpt_model_forget(NULL);
    free(logits), free(att);
    ref_free(&r);
    gpt_model_destroy(m);
}

/* ---- a forward that reuses the last one's rows ---- */

/* Whether model a's last forward gave the same bits as b's: every head's attention and the logits. */
static int same_bits(gpt_model *a, gpt_model *b, int L) {
    const gpt_config *c = gpt_model_config(a);
    const float *x, *y;
    if (gpt_logits(a, &x) || gpt_logits(b, &y) || memcmp(x, y, sizeof *x * (size_t)L * c->vocab)) return 0;
    for (int l = 0; l < c->layers; l++)
        for (int hd = 0; hd < c->heads; hd++)
            if (gpt_attention(a, l, hd, &x) || gpt_attention(b, l, hd, &y) || memcmp(x, y, sizeof *x * (size_t)L * L)) return 0;
    return 1;
}

/* Seeded edits of a text (tokens appended, cut, changed in the middle, heads switched off): a model
   forwarding each with gpt_forward_reusing gives the bits of a twin computing every row, across the
   kernels' 64-row blocks and tiles, on one thread and on two. */
static void test_forward_reusing(void) {
    const gpt_config shapes[] = {
        {.layers = 2, .heads = 4, .d_model = 32, .context = 80, .vocab = 37},
        {.layers = 1, .heads = 2, .d_model = 20, .context = 70, .vocab = 29},
    };
    for (int threads = 1; threads <= 2; threads++) {
        mha_set_threads(threads);
        for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
            const gpt_config c = shapes[k];
            gpt_model *reusing = random_model(c, 11 + (unsigned)k, 0.3), *fresh = random_model(c, 11 + (unsigned)k, 0.3);
            if (!reusing || !fresh) return;
            int tokens[80] = {0}, last[80], len = 0, last_len = 0, longest = 0, reused_rows = 0;
            unsigned char enabled[8] = {1, 1, 1, 1, 1, 1, 1, 1}, last_enabled[8];
            unsigned state = 5 + (unsigned)k;
            for (int step = 0; step < 120; step++) {
                state = state * 1664525u + 1013904223u;
                const unsigned pick = state >> 24;
                memcpy(last, tokens, sizeof tokens), memcpy(last_enabled, enabled, sizeof enabled);
                if (pick < 150 && len < c.context) tokens[len++] = (int)((state >> 8) % (unsigned)c.vocab);           /* type one */
                else if (pick < 180) for (int n = 1 + (int)(state >> 4) % 20; n-- && len < c.context;) tokens[len++] = (int)((state >> (n % 8)) % (unsigned)c.vocab); /* paste */
                else if (pick < 210 && len > 1) len -= 1 + (int)(state >> 4) % (len - 1);                 /* delete */
                else if (pick < 235 && len > 0) tokens[(state >> 4) % (unsigned)len] = (int)((state >> 12) % (unsigned)c.vocab); /* change one */
                else enabled[(state >> 4) % (unsigned)(c.layers * c.heads)] ^= 1;                         /* a head on or off */
                if (!len) tokens[len++] = 0;
                int shared = 0;
                if (!memcmp(enabled, last_enabled, sizeof enabled))
                    while (shared < len && shared < last_len && tokens[shared] == last[shared]) shared++;
                CHECK(gpt_forward_reusing(reusing, tokens, len, enabled) == MHA_OK, "forward: %s", mha_last_error());
                CHECK(gpt_forward(fresh, tokens, len, enabled) == MHA_OK, "forward: %s", mha_last_error());
                CHECK(gpt_model_reused(reusing) == (step ? shared : 0), "step %d: reused %d rows, shared %d", step,
                      gpt_model_reused(reusing), shared);
                CHECK(gpt_model_reused(fresh) == 0, "gpt_forward reuses nothing");
                CHECK(same_bits(reusing, fresh, len), "threads %d, shape %zu, step %d (L %d, from %d): not the same bits",
                      threads, k, step, len, shared);
                reused_rows += shared, longest = len > longest ? len : longest;
                last_len = len;
            }
            CHECK(reused_rows > 1000 && longest > 64, "the edits reused rows (%d) and crossed a block (longest %d)", reused_rows, longest);

            /* What ends the reuse: parameters handed out, a trainer's step, a failed forward. */
            const int one = 1;
            float *params = gpt_model_params(reusing, NULL);
            params[0] += 0.5f; /* wte[0][0]: the token 0 of tokens[0] */
            gpt_model_params(fresh, NULL)[0] += 0.5f;
            CHECK(gpt_forward_reusing(reusing, tokens, len, enabled) == MHA_OK && gpt_model_reused(reusing) == 0,
                  "after gpt_model_params: every row computed (reused %d)", gpt_model_reused(reusing));
            CHECK(gpt_forward(fresh, tokens, len, enabled) == MHA_OK && same_bits(reusing, fresh, len), "the new parameters");
            gpt_forward_reusing(reusing, tokens, len, enabled);
            CHECK(gpt_model_reused(reusing) == len, "the same text again: every row reused");
            CHECK(gpt_forward_reusing(reusing, &one, 1, NULL) == MHA_OK, "one token");
            int bad[2] = {0, c.vocab};
            CHECK(gpt_forward_reusing(reusing, bad, 2, NULL) == MHA_ERR_TOKEN_RANGE, "a bad token");
            CHECK(gpt_forward_reusing(reusing, &one, 1, NULL) == MHA_OK && gpt_model_reused(reusing) == 0, "after a failed forward");
            gpt_trainer *trainer;
            const gpt_train_desc desc = gpt_train_default_desc(1, 4);
            int batch[4] = {1, 2, 3, 4};
            CHECK(gpt_trainer_create(reusing, &desc, &trainer) == MHA_OK, "trainer: %s", mha_last_error());
            gpt_forward_reusing(reusing, batch, 4, NULL);
            CHECK(gpt_train_step(trainer, batch, 1, 4, 1e-2f, NULL) == MHA_OK, "step: %s", mha_last_error());
            CHECK(gpt_forward_reusing(reusing, batch, 4, NULL) == MHA_OK && gpt_model_reused(reusing) == 0, "after a training step");
            gpt_trainer_destroy(trainer);
            gpt_model_destroy(reusing), gpt_model_destroy(fresh);
        }
    }
    mha_set_threads(1);
}

/* ---- decoding: a step at a time with the key-value cache ---- */

/* Whether a's last steps match b's forward of the same L tokens: every block's queries, keys and values and
   every head's attention the same bits, the logits (a step's summed another way, mha_dot_rows) within
   2e-6 of the largest. */
static int steps_match(gpt_model *a, gpt_model *b, int L) {
    const gpt_config *c = gpt_model_config(a);
    const float *x, *y;
    for (int l = 0; l < c->layers; l++) {
        if (gpt_qkv(a, l, &x) || gpt_qkv(b, l, &y) || memcmp(x, y, sizeof *x * (size_t)L * 3 * c->d_model)) return 0;
        for (int hd = 0; hd < c->heads; hd++)
            if (gpt_attention(a, l, hd, &x) || gpt_attention(b, l, hd, &y) || memcmp(x, y, sizeof *x * (size_t)L * L)) return 0;
    }
    if (gpt_logits(a, &x) || gpt_logits(b, &y)) return 0;
    float scale = 1.0f;
    for (size_t i = 0; i < (size_t)L * c->vocab; i++) scale = fmaxf(scale, fabsf(y[i]));
    for (size_t i = 0; i < (size_t)L * c->vocab; i++)
        if (fabsf(x[i] - y[i]) > 2e-6f * scale) return 0;
    return 1;
}

/* A text decoded a token at a time with gpt_step, rewound now and then, gives at every step what a
   twin's gpt_forward of the whole text gives (steps_match), past the kernels' 64-row blocks to the cache's edge, on one
   thread and two; a full cache refuses the next step and keeps its rows; freed, it refuses every forward
   until it is reserved again. */
static void test_step(void) {
    const gpt_config c = {.layers = 2, .heads = 4, .d_model = 32, .context = 80, .vocab = 37};
    for (int threads = 1; threads <= 2; threads++) {
        mha_set_threads(threads);
        gpt_model *cached = random_model(c, 21, 0.3), *fresh = random_model(c, 21, 0.3);
        if (!cached || !fresh) return;
        int tokens[80], len = 0, rewinds = 0;
        unsigned state = 9;
        for (int step = 0; step < 400 && len < c.context; step++) {
            state = state * 1664525u + 1013904223u;
            if ((state >> 24) < 12 && len > 2) { /* an edit back to an earlier token */
                len -= 1 + (int)(state >> 4) % (len < 12 ? len - 1 : 10);
                CHECK(gpt_rewind(cached, len) == MHA_OK && gpt_model_len(cached) == len, "rewind to %d", len);
                rewinds++;
                continue;
            }
            tokens[len++] = (int)((state >> 8) % (unsigned)c.vocab);
            CHECK(gpt_step(cached, tokens[len - 1], NULL) == MHA_OK, "step: %s", mha_last_error());
            CHECK(gpt_model_len(cached) == len && gpt_model_reused(cached) == len - 1, "step %d: one new row", step);
            CHECK(gpt_forward(fresh, tokens, len, NULL) == MHA_OK, "forward: %s", mha_last_error());
            CHECK(steps_match(cached, fresh, len), "threads %d, step %d (L %d): not the same bits", threads, step, len);
        }
        CHECK(len == c.context && rewinds > 3, "the text reached the context (%d) after %d rewinds", len, rewinds);
        const float *t;
        CHECK(gpt_step(cached, 1, NULL) == MHA_ERR_SEQ_TOO_LONG && strstr(mha_last_error(), "full"), "a full cache: %s",
              mha_last_error());
        CHECK(gpt_step(cached, c.vocab, NULL) == MHA_ERR_SEQ_TOO_LONG, "full before a bad token");
        CHECK(gpt_model_len(cached) == len && steps_match(cached, fresh, len), "a refused step keeps the cache");
        CHECK(gpt_rewind(cached, len + 1) == MHA_ERR_BAD_SIZE && gpt_rewind(cached, -1) == MHA_ERR_BAD_SIZE, "rewind past it");
        CHECK(gpt_rewind(cached, 5) == MHA_OK && gpt_step(cached, c.vocab, NULL) == MHA_ERR_TOKEN_RANGE &&
              gpt_model_len(cached) == 5, "a bad token refused, the cache kept");
        const unsigned char off[8] = {1, 1, 0, 1, 1, 1, 1, 1};
        CHECK(gpt_step(cached, 3, off) == MHA_OK && gpt_model_reused(cached) == 0, "another head off: every row again");
        tokens[5] = 3;
        CHECK(gpt_forward(fresh, tokens, 6, off) == MHA_OK && steps_match(cached, fresh, 6), "with a head off");

        CHECK(gpt_model_reserve(cached, 0) == MHA_OK && gpt_model_max_tokens(cached) == 0, "freed");
        CHECK(gpt_logits(cached, &t) == MHA_ERR_NO_FORWARD, "no result once freed");
        CHECK(gpt_step(cached, 1, NULL) == MHA_ERR_SEQ_TOO_LONG && strstr(mha_last_error(), "freed"), "a step once freed: %s",
              mha_last_error());
        CHECK(gpt_forward(cached, tokens, 2, NULL) == MHA_ERR_SEQ_TOO_LONG, "a forward once freed");
        CHECK(gpt_model_reserve(cached, 500) == MHA_OK && gpt_model_max_tokens(cached) == c.context, "at most the context");
        CHECK(gpt_model_reserve(cached, 3) == MHA_OK && gpt_model_max_tokens(cached) == 3, "reserved for 3");
        for (int i = 0; i < 3; i++) CHECK(gpt_step(cached, tokens[i], NULL) == MHA_OK, "step %d: %s", i, mha_last_error());
        CHECK(gpt_step(cached, 1, NULL) == MHA_ERR_SEQ_TOO_LONG && strstr(mha_last_error(), "reserve more"), "%s", mha_last_error());
        CHECK(gpt_forward(fresh, tokens, 3, NULL) == MHA_OK && steps_match(cached, fresh, 3), "a reserved cache");
        CHECK(gpt_model_reserve(cached, -1) == MHA_ERR_BAD_SIZE && gpt_step(NULL, 0, NULL) == MHA_ERR_NULL_ARGUMENT &&
              gpt_rewind(NULL, 0) == MHA_ERR_NULL_ARGUMENT, "bad arguments");
        gpt_model_destroy(cached), gpt_model_destroy(fresh);
    }
    mha_set_threads(1);
}

/* ---- gradient check ---- */

static const char *const kinds[] = {"wte", "wpe", "ln_1.w", "ln_1.b", "c_attn.w", "c_attn.b", "attn.c_proj.w", "attn.c_proj.b",
                                    "ln_2.w", "ln_2.b", "c_fc.w", "c_fc.b", "mlp.c_proj.w", "mlp.c_proj.b", "ln_f.w", "ln_f.b"};
static double worst_by_kind[16];
static int shapes_checked;

static int kind_of(int tensor, int layers) {
    if (tensor < 2) return tensor;
    if (tensor >= 2 + layers * 12) return 14 + tensor - (2 + layers * 12);
    return 2 + (tensor - 2) % 12;
}

/* With `dropout`, through the masks of the trainer's first step, against the float64 forward given them. */
static void gradient_check(gpt_config c, int count, int len, double spread, unsigned seed, float dropout) {
    gpt_model *m = random_model(c, seed, spread);
    if (!m) return;
    gpt_train_desc desc = gpt_train_default_desc(count, len);
    desc.dropout = dropout, desc.dropout_seed = seed;
    const ref_dropout drop = {dropout, seed, 0, 0};
    const ref_dropout *dropped = dropout > 0 ? &drop : NULL;
    gpt_trainer *tr;
    if (gpt_trainer_create(m, &desc, &tr) != MHA_OK) {
        CHECK(0, "trainer: %s", mha_last_error());
        gpt_model_destroy(m);
        return;
    }
    int *tokens = malloc(sizeof(int) * (size_t)count * len);
    some_tokens(tokens, count * len, c.vocab, seed);
    double loss, eval;
    CHECK(gpt_train_loss_grad(tr, tokens, count, len, &loss) == MHA_OK, "loss_grad: %s", mha_last_error());
    CHECK(gpt_train_loss(tr, tokens, count, len, &eval) == MHA_OK, "loss: %s", mha_last_error());
    ref_model r = ref_from(m);
    const double ref = ref_loss(&r, tokens, count, len, dropped), ref_eval = ref_loss(&r, tokens, count, len, NULL);
    CHECK(fabs(ref - loss) <= 1e-5 * (1 + fabs(ref)), "float32 loss %.9f vs float64 loss %.9f", loss, ref);
    CHECK(fabs(ref_eval - eval) <= 1e-5 * (1 + fabs(ref_eval)), "float32 evaluation %.9f vs float64 %.9f", eval, ref_eval);
    CHECK(dropped ? fabs(eval - loss) > 1e-4 : eval == loss, "evaluation %.9f and loss_grad %.9f: the same loss unless dropped out",
          eval, loss);

    const float *g = gpt_trainer_grads(tr);
    double shape_worst = 0;
    for (int i = 0; i < gpt_tensor_count(m); i++) {
        size_t offset;
        int rows, cols;
        const char *name;
        gpt_tensor(m, i, &name, NULL, &rows, &cols, &offset);
        double max_diff = 0, max_grad = 0;
        for (size_t j = offset; j < offset + (size_t)rows * cols; j++) {
            const double keep = r.p[j], eps = 1e-5;
            r.p[j] = keep + eps;
            const double plus = ref_loss(&r, tokens, count, len, dropped);
            r.p[j] = keep - eps;
            const double minus = ref_loss(&r, tokens, count, len, dropped);
            r.p[j] = keep;
            const double numeric = (plus - minus) / (2 * eps);
            max_diff = fmax(max_diff, fabs(numeric - g[j]));
            max_grad = fmax(max_grad, fabs(numeric));
        }
        const double rel = max_grad > 1e-9 ? max_diff / max_grad : max_diff;
        CHECK(rel < 1e-4, "L%d d%d h%d: %s: max |analytic - numeric| = %.3g, largest gradient %.3g", c.layers, c.d_model, c.heads,
              name, max_diff, max_grad);
        const int kind = kind_of(i, c.layers);
        worst_by_kind[kind] = fmax(worst_by_kind[kind], rel);
        shape_worst = fmax(shape_worst, rel);
    }
    printf("gpt gradcheck layers %d d %d heads %d vocab %d context %d, %d x %d tokens, dropout %g: max relative error %.1e\n",
           c.layers, c.d_model, c.heads, c.vocab, c.context, count, len, dropout, shape_worst);
    shapes_checked++;
    ref_free(&r);
    free(tokens);
    gpt_trainer_destroy(tr);
    gpt_model_destroy(m);
}

static void test_gradients(void) {
    gradient_check((gpt_config){.layers = 2, .heads = 2, .d_model = 8, .context = 6, .vocab = 11}, 3, 5, 0.5, 1, 0);
    gradient_check((gpt_config){.layers = 1, .heads = 3, .d_model = 12, .context = 7, .vocab = 9}, 2, 8, 0.4, 2, 0);
    gradient_check((gpt_config){.layers = 3, .heads = 1, .d_model = 4, .context = 4, .vocab = 7}, 2, 3, 0.8, 3, 0);
    gradient_check((gpt_config){.layers = 2, .heads = 2, .d_model = 8, .context = 6, .vocab = 11}, 3, 5, 0.5, 4, 0.3f);
    double worst = 0;
    char line[1024];
    int used = snprintf(line, sizeof line, "gpt gradient check: max relative error %%s over %d shapes;", shapes_checked);
    for (int k = 0; k < 16; k++) {
        worst = fmax(worst, worst_by_kind[k]);
        used += snprintf(line + used, sizeof line - (size_t)used, " %s %.1e", kinds[k], worst_by_kind[k]);
    }
    char head[64];
    snprintf(head, sizeof head, "%.2e", worst);
    printf(line, head);
    printf(" (tolerance 1e-04)\n");
}

/* ---- one AdamW step by hand, then training that learns ---- */

static void test_adamw_step(void) {
    gpt_model *m = random_model((gpt_config){.layers = 1, .heads = 2, .d_model = 8, .context = 8, .vocab = 10}, 5, 0.3);
    if (!m) return;
    gpt_train_desc desc = gpt_train_default_desc(2, 6);
    desc.clip = 0.5f;
    gpt_trainer *tr;
    CHECK(gpt_trainer_create(m, &desc, &tr) == MHA_OK, "trainer: %s", mha_last_error());
    int tokens[12];
    some_tokens(tokens, 12, 10, 4);
    size_t n;
    float *p = gpt_model_params(m, &n);
    float *before = malloc(n * sizeof *before), *grads = malloc(n * sizeof *grads);
    memcpy(before, p, n * sizeof *p);
    double loss_grad, loss_step;
    CHECK(gpt_train_loss_grad(tr, tokens, 2, 6, &loss_grad) == MHA_OK, "loss_grad");
    memcpy(grads, gpt_trainer_grads(tr), n * sizeof *grads);
    const double norm = gpt_trainer_grad_norm(tr);
    const float lr = 0.01f;
    CHECK(gpt_train_step(tr, tokens, 2, 6, lr, &loss_step) == MHA_OK, "step: %s", mha_last_error());
    CHECK(loss_step == loss_grad, "the step reports the loss before its update");
    CHECK(gpt_trainer_steps(tr) == 1, "one step counted");
    /* first step: m̂ = g, v̂ = g², so w ← w·(1 - lr·wd) - lr·g/(|g| + eps), with g clipped */
    double worst = 0;
    const double clip = norm > desc.clip ? desc.clip / norm : 1;
    for (int i = 0; i < gpt_tensor_count(m); i++) {
        size_t offset;
        int rows, cols;
        gpt_tensor(m, i, NULL, NULL, &rows, &cols, &offset);
        const double decay = rows > 1 ? lr * desc.weight_decay : 0;
        for (size_t j = offset; j < offset + (size_t)rows * cols; j++) {
            const double gj = grads[j] * clip;
            const double want = before[j] * (1 - decay) - lr * gj / (fabs(gj) + desc.eps);
            worst = fmax(worst, fabs(p[j] - want));
        }
    }
    CHECK(worst < 1e-6, "AdamW's first step differs from the formula by %.3g", worst);
    tokens[3] = -1;
    CHECK(gpt_train_step(tr, tokens, 2, 6, lr, NULL) == MHA_ERR_TOKEN_RANGE, "a bad token");
    CHECK(strstr(mha_last_error(), "position 3 of sequence 0") != NULL, "message: %s", mha_last_error());
    CHECK(gpt_train_step(tr, tokens, 3, 6, lr, NULL) == MHA_ERR_BAD_SIZE, "more sequences than the batch");
    CHECK(gpt_train_step(tr, tokens, 1, 7, lr, NULL) == MHA_ERR_SEQ_TOO_LONG, "longer than seq_len");
    CHECK(gpt_train_step(tr, tokens, 1, 6, NAN, NULL) == MHA_ERR_BAD_INPUT, "lr NaN");
    CHECK(gpt_trainer_steps(tr) == 1, "failed steps are not counted");
    desc.seq_len = 10;
    gpt_trainer *too_long = NULL;
    CHECK(gpt_trainer_create(m, &desc, &too_long) == MHA_ERR_SEQ_TOO_LONG && !too_long, "seq_len beyond context + 1");
    desc = gpt_train_default_desc(2, 6);
    desc.clip = INFINITY;
    CHECK(gpt_trainer_create(m, &desc, &too_long) == MHA_ERR_NOT_FINITE && !too_long, "an infinite clip");
    CHECK(strcmp(mha_last_error(), "clip must be a finite number, got Infinity") == 0, "message: %s", mha_last_error());
    free(before), free(grads);
    gpt_trainer_destroy(tr);
    gpt_model_destroy(m);
}

/* A model learns sequences that count up modulo the vocabulary: the loss falls from log V towards 0. */
static void test_training(void) {
    gpt_model *m;
    const gpt_config c = {.layers = 2, .heads = 2, .d_model = 16, .context = 8, .vocab = 12};
    CHECK(gpt_model_create(&c, 0, &m) == MHA_OK, "create: %s", mha_last_error());
    if (!m) return;
    gpt_train_desc desc = gpt_train_default_desc(8, 9);
    gpt_trainer *tr;
    CHECK(gpt_trainer_create(m, &desc, &tr) == MHA_OK, "trainer: %s", mha_last_error());
    int tokens[8 * 9];
    double first = 0, last = 0;
    for (int step = 0; step < 150; step++) {
        for (int s = 0; s < 8; s++)
            for (int t = 0; t < 9; t++) tokens[s * 9 + t] = (step * 5 + s * 3 + t) % 12;
        CHECK(gpt_train_step(tr, tokens, 8, 9, 3e-3f, &last) == MHA_OK, "step: %s", mha_last_error());
        if (step == 0) first = last;
    }
    CHECK(fabs(first - log(12.0)) < 0.1, "the first loss %.3f is about log 12 = %.3f", first, log(12.0));
    CHECK(last < 0.2, "after 150 steps the loss is %.3f (from %.3f)", last, first);
    gpt_trainer_destroy(tr);
    gpt_model_destroy(m);
}

/* A run stopped after 7 of 20 steps and carried on by a new model and trainer, given the parameters, the
   moments and the step count, ends with the same bytes as the unbroken run (a checkpoint's promise), with
   dropout too: its masks follow the step count. */
static void test_resume(float dropout) {
    const gpt_config c = {.layers = 2, .heads = 2, .d_model = 16, .context = 8, .vocab = 12};
    gpt_train_desc desc = gpt_train_default_desc(4, 9);
    desc.dropout = dropout, desc.dropout_seed = 5;
    gpt_model *whole = NULL, *first = NULL, *second = NULL;
    gpt_trainer *tw = NULL, *t1 = NULL, *t2 = NULL;
    CHECK(gpt_model_create(&c, 3, &whole) == MHA_OK && gpt_model_create(&c, 3, &first) == MHA_OK &&
          gpt_model_create(&c, 99, &second) == MHA_OK, "create: %s", mha_last_error());
    CHECK(gpt_trainer_create(whole, &desc, &tw) == MHA_OK && gpt_trainer_create(first, &desc, &t1) == MHA_OK &&
          gpt_trainer_create(second, &desc, &t2) == MHA_OK, "trainer: %s", mha_last_error());
    if (!tw || !t1 || !t2) goto done;
    int tokens[4 * 9];
    for (int step = 0; step < 20; step++) {
        some_tokens(tokens, 4 * 9, 12, (unsigned)step + 1);
        const float lr = 3e-3f * (float)(20 - step) / 20;
        CHECK(gpt_train_step(tw, tokens, 4, 9, lr, NULL) == MHA_OK, "whole: %s", mha_last_error());
        if (step < 7) {
            CHECK(gpt_train_step(t1, tokens, 4, 9, lr, NULL) == MHA_OK, "first: %s", mha_last_error());
            continue;
        }
        if (step == 7) { /* the checkpoint: parameters, moments, steps */
            size_t n;
            float *from = gpt_model_params(first, &n), *to = gpt_model_params(second, &n), *m1, *v1, *m2, *v2;
            CHECK(gpt_trainer_moments(t1, &m1, &v1) == MHA_OK && gpt_trainer_moments(t2, &m2, &v2) == MHA_OK, "moments");
            memcpy(to, from, n * sizeof *to), memcpy(m2, m1, n * sizeof *m2), memcpy(v2, v1, n * sizeof *v2);
            CHECK(gpt_trainer_set_steps(t2, gpt_trainer_steps(t1)) == MHA_OK, "set_steps: %s", mha_last_error());
        }
        CHECK(gpt_train_step(t2, tokens, 4, 9, lr, NULL) == MHA_OK, "second: %s", mha_last_error());
    }
    size_t n;
    const float *a = gpt_model_params(whole, &n), *b = gpt_model_params(second, &n);
    CHECK(!memcmp(a, b, n * sizeof *a), "the resumed run's parameters differ from the unbroken run's");
    CHECK(gpt_trainer_steps(t2) == 20, "20 steps counted, got %ld", gpt_trainer_steps(t2));
    float *m, *v;
    CHECK(gpt_trainer_moments(NULL, &m, &v) == MHA_ERR_NULL_ARGUMENT, "no trainer");
    CHECK(gpt_trainer_set_steps(t2, -1) == MHA_ERR_BAD_INPUT, "negative steps");
done:
    gpt_trainer_destroy(tw), gpt_trainer_destroy(t1), gpt_trainer_destroy(t2);
    gpt_model_destroy(whole), gpt_model_destroy(first), gpt_model_destroy(second);
}

/* Dropout's masks drop their share, independently from step to step and place to place; a rate of 1 or
   more, or not a number, is refused. */
static void test_dropout_masks(void) {
    const uint32_t dropped = gpt_dropout_threshold(0.3f);
    const uint64_t key = gpt_dropout_key(1, 7, 3), keys[] = {gpt_dropout_key(1, 8, 3), gpt_dropout_key(1, 7, 4),
                                                             gpt_dropout_key(2, 7, 3)};
    const size_t n = 1000000;
    size_t kept = 0, agree[3] = {0};
    for (size_t i = 0; i < n; i++) {
        const int here = gpt_dropout_kept(key, i, dropped);
        kept += (size_t)here;
        for (int k = 0; k < 3; k++) agree[k] += (size_t)(here == gpt_dropout_kept(keys[k], i, dropped));
    }
    CHECK(fabs((double)kept / n - 0.7) < 0.003, "kept %.4f of the values at dropout 0.3", (double)kept / n);
    for (int k = 0; k < 3; k++) /* independent masks agree on 0.7² + 0.3² of the values */
        CHECK(fabs((double)agree[k] / n - 0.58) < 0.003, "mask %d agrees with the first on %.4f", k, (double)agree[k] / n);
    gpt_model *m = random_model((gpt_config){.layers = 1, .heads = 1, .d_model = 4, .context = 4, .vocab = 5}, 1, 0.5);
    if (!m) return;
    gpt_train_desc desc = gpt_train_default_desc(1, 4);
    gpt_trainer *tr = NULL;
    desc.dropout = 1.0f;
    CHECK(gpt_trainer_create(m, &desc, &tr) == MHA_ERR_BAD_INPUT && !tr, "dropout 1: %s", mha_last_error());
    desc.dropout = NAN;
    CHECK(gpt_trainer_create(m, &desc, &tr) == MHA_ERR_NOT_FINITE && !tr, "dropout NaN");
    desc.dropout = -0.1f;
    CHECK(gpt_trainer_create(m, &desc, &tr) == MHA_ERR_BAD_INPUT && !tr, "dropout below 0");
    gpt_model_destroy(m);
}

/* ---- saving and loading ---- */

static unsigned char *save(const gpt_model *m, const gpt_metadata *extra, int n, size_t *size) {
    CHECK(gpt_save(m, "F32", extra, n, NULL, 0, size) == MHA_OK, "size: %s", mha_last_error());
    unsigned char *bytes = malloc(*size);
    CHECK(gpt_save(m, "F32", extra, n, bytes, *size - 1, size) == MHA_ERR_TOO_LARGE, "a buffer one byte short");
    CHECK(gpt_save(m, "F32", extra, n, bytes, *size, size) == MHA_OK, "save: %s", mha_last_error());
    return bytes;
}

static void test_save_load(void) {
    gpt_model *m = random_model((gpt_config){.layers = 2, .heads = 4, .d_model = 8, .context = 5, .vocab = 6}, 9, 0.5);
    if (!m) return;
    const gpt_metadata extra[] = {{"vocab", "[\"春\",\"眠\",\"\\\"q\\\"\",\"\\n\"]"}, {"note", "tab\there"}};
    size_t size;
    unsigned char *bytes = save(m, extra, 2, &size);
    gpt_model *back;
    CHECK(gpt_load(bytes, size, 0, &back) == MHA_OK, "load: %s", mha_last_error());
    if (back) {
        const gpt_config *c = gpt_model_config(back);
        CHECK(c->layers == 2 && c->heads == 4 && c->d_model == 8 && c->context == 5 && c->vocab == 6, "config from the shapes and n_head");
        size_t n, nb;
        const float *p = gpt_model_params(m, &n), *q = gpt_model_params(back, &nb);
        CHECK(n == nb && !memcmp(p, q, n * sizeof *p), "the same weights");
        CHECK(gpt_model_metadata_count(back) == 3, "n_head, vocab and note: %d", gpt_model_metadata_count(back));
        for (int i = 0; i < gpt_model_metadata_count(back); i++) {
            const gpt_metadata *e = gpt_model_metadata(back, i);
            if (!strcmp(e->key, "vocab")) CHECK(!strcmp(e->value, extra[0].value), "vocab round trip: %s", e->value);
            if (!strcmp(e->key, "note")) CHECK(!strcmp(e->value, extra[1].value), "note round trip");
        }
        /* heads: the caller's must agree with the file's */
        gpt_model *other;
        CHECK(gpt_load(bytes, size, 2, &other) == MHA_ERR_BAD_MODEL && !other, "heads 2 against n_head 4");
        CHECK(strstr(mha_last_error(), "n_head 4") != NULL, "message: %s", mha_last_error());
        /* a resaved model keeps its metadata */
        size_t size2;
        unsigned char *again = save(back, NULL, 0, &size2);
        CHECK(size2 == size && !memcmp(again, bytes, size), "saving a loaded model gives the same bytes");
        free(again);
        gpt_model_destroy(back);
    }
    free(bytes);
    gpt_model_destroy(m);
}

/* A model loaded from a file keeps its blocks' matrices as panels (gpt_model_pack): its forwards and its
   steps give the bits of the row-major model it was saved from (past a 64-row block, on one thread and two),
   and handing its parameters out lays them out row-major again, exactly. A width the panels do not divide
   stays row-major. */
static void test_panels(void) {
    const gpt_config c = {.layers = 2, .heads = 4, .d_model = 80, .context = 80, .vocab = 37}; /* c_fc: 320 deep, past a block */
    gpt_model *rows = random_model(c, 5, 0.3), *panels = NULL;
    if (!rows) return;
    size_t size, n;
    unsigned char *bytes = save(rows, NULL, 0, &size);
    CHECK(gpt_load(bytes, size, 0, &panels) == MHA_OK && panels->panel_scratch, "loaded as panels: %s", mha_last_error());
    const size_t fc = rows->tensors[gpt_block_tensor(1, GPT_B_FC_W)].offset;
    CHECK(panels && memcmp(rows->params + fc, panels->params + fc, 80 * 320 * sizeof(float)), "c_fc's weights laid out otherwise");
    int tokens[72];
    some_tokens(tokens, 72, c.vocab, 4);
    for (int threads = 1; threads <= 2 && panels; threads++) {
        mha_set_threads(threads);
        CHECK(gpt_forward(rows, tokens, 72, NULL) == MHA_OK && gpt_forward(panels, tokens, 72, NULL) == MHA_OK &&
                  same_bits(rows, panels, 72), "threads %d: a forward of 72 tokens, not the same bits", threads);
        CHECK(gpt_rewind(panels, 0) == MHA_OK, "rewound");
        for (int len = 1; len <= 72; len++) {
            CHECK(gpt_step(panels, tokens[len - 1], NULL) == MHA_OK && gpt_forward(rows, tokens, len, NULL) == MHA_OK,
                  "step %d: %s", len, mha_last_error());
            CHECK(steps_match(panels, rows, len), "threads %d, step %d: not the same bits", threads, len);
        }
    }
    mha_set_threads(1);
    const float *p = gpt_model_params(panels, &n);
    CHECK(panels && !panels->panel_scratch && !memcmp(p, gpt_model_params(rows, NULL), n * sizeof *p), "unpacked exactly");
    CHECK(gpt_forward(panels, tokens, 72, NULL) == MHA_OK && gpt_forward(rows, tokens, 72, NULL) == MHA_OK &&
              same_bits(rows, panels, 72), "unpacked, the same bits");
    free(bytes);
    gpt_model_destroy(rows), gpt_model_destroy(panels);

    rows = random_model((gpt_config){.layers = 1, .heads = 3, .d_model = 12, .context = 8, .vocab = 11}, 6, 0.3);
    bytes = save(rows, NULL, 0, &size);
    CHECK(gpt_load(bytes, size, 0, &panels) == MHA_OK && !panels->panel_scratch, "d 12: row-major");
    some_tokens(tokens, 8, 11, 4);
    CHECK(gpt_forward(rows, tokens, 8, NULL) == MHA_OK && gpt_forward(panels, tokens, 8, NULL) == MHA_OK &&
              same_bits(rows, panels, 8), "d 12: the same bits");
    free(bytes);
    gpt_model_destroy(rows), gpt_model_destroy(panels);
}

/* A model loaded for fewer tokens than its context: forwards up to that many give the bits of the model
   loaded whole and a longer one is refused; max_tokens past the context means the context. */
static void test_max_tokens(void) {
    gpt_model *m = random_model((gpt_config){.layers = 2, .heads = 2, .d_model = 8, .context = 12, .vocab = 9}, 4, 0.5);
    if (!m) return;
    size_t size;
    unsigned char *bytes = save(m, NULL, 0, &size);
    gpt_loader *ld;
    gpt_model *short_model = NULL;
    CHECK(gpt_load_begin(bytes, size, size, 0, 5, &ld) == MHA_OK, "begin: %s", mha_last_error());
    for (int i = 0; ld && i < gpt_loader_copies(ld); i++) {
        uint64_t offset;
        size_t n;
        void *dest;
        gpt_loader_copy(ld, i, &offset, &n, &dest);
        memcpy(dest, bytes + offset, n);
    }
    CHECK(ld && gpt_load_finish(ld, &short_model) == MHA_OK, "finish: %s", mha_last_error());
    if (short_model) {
        CHECK(gpt_model_max_tokens(short_model) == 5 && gpt_model_max_tokens(m) == 12, "loaded for 5 tokens, created for 12");
        CHECK(gpt_model_config(short_model)->context == 12, "the context is still the file's");
        int tokens[6];
        some_tokens(tokens, 6, 9, 2);
        for (int L = 1; L <= 5; L++) {
            CHECK(gpt_forward(short_model, tokens, L, NULL) == MHA_OK && gpt_forward(m, tokens, L, NULL) == MHA_OK, "forward %d", L);
            CHECK(same_bits(short_model, m, L), "%d tokens: the same bits as the model loaded whole", L);
        }
        CHECK(gpt_forward(short_model, tokens, 6, NULL) == MHA_ERR_SEQ_TOO_LONG, "6 tokens, loaded for 5");
        CHECK(strstr(mha_last_error(), "loaded for at most 5") != NULL, "message: %s", mha_last_error());
        gpt_model_destroy(short_model);
    }
    CHECK(gpt_load_begin(bytes, size, size, 0, 13, &ld) == MHA_OK, "max_tokens 13, context 12: %s", mha_last_error());
    CHECK(ld && gpt_load_finish(ld, &short_model) == MHA_OK && gpt_model_max_tokens(short_model) == 12, "at most the context");
    gpt_model_destroy(short_model);
    CHECK(gpt_load_begin(bytes, size, size, 0, -1, &ld) == MHA_ERR_BAD_SIZE && !ld, "max_tokens -1");
    free(bytes);
    gpt_model_destroy(m);
}

/* d_model 1: every matrix has one row, and is still a matrix in the file ([1, 3] for c_attn). */
static void test_one_dimension(void) {
    const gpt_config c = {.layers = 1, .heads = 1, .d_model = 1, .context = 3, .vocab = 5};
    gpt_model *m = random_model(c, 5, 0.5);
    if (!m) return;
    size_t size;
    unsigned char *bytes = save(m, NULL, 0, &size);
    CHECK(strstr((char *)bytes + 8, "\"h.0.attn.c_attn.weight\":{\"dtype\":\"F32\",\"shape\":[1,3]") != NULL, "saved as a [1, 3] matrix");
    gpt_model *back = NULL;
    CHECK(gpt_load(bytes, size, 0, &back) == MHA_OK, "a d_model 1 file loads: %s", mha_last_error());
    if (back) {
        size_t n, nb;
        const float *p = gpt_model_params(m, &n), *q = gpt_model_params(back, &nb);
        CHECK(n == nb && !memcmp(p, q, n * sizeof *p), "the same weights");
        const int tokens[3] = {4, 0, 2};
        double logits[3 * 5];
        ref_model r = ref_from(back);
        ref_forward(&r, tokens, 3, NULL, logits, NULL);
        const float *got;
        CHECK(gpt_forward(back, tokens, 3, NULL) == MHA_OK && gpt_logits(back, &got) == MHA_OK, "forward: %s", mha_last_error());
        double worst = 0;
        for (int i = 0; i < 3 * 5 && got; i++) worst = fmax(worst, fabs(got[i] - logits[i]));
        CHECK(worst < 1e-5, "d_model 1 logits differ from float64 by %.3g", worst);
        ref_free(&r);
        gpt_model_destroy(back);
    }
    free(bytes);
    gpt_model_destroy(m);
}

/* Replaces the first `from` in a saved file's header by `to` (same length), or truncates. */
static void expect_bad(const unsigned char *good, size_t size, const char *from, const char *to, size_t keep, const char *fragment) {
    unsigned char *bytes = malloc(size);
    memcpy(bytes, good, size);
    if (from) {
        char *at = strstr((char *)bytes + 8, from);
        CHECK(at && strlen(from) == strlen(to), "test setup: %s", from);
        if (at) memcpy(at, to, strlen(to));
    }
    gpt_model *m = (gpt_model *)&m;
    const mha_status status = gpt_load(bytes, keep ? keep : size, 0, &m);
    CHECK(status == MHA_ERR_BAD_MODEL, "%s: got %s (%s)", fragment, mha_status_name(status), mha_last_error());
    CHECK(m == NULL, "no model on failure");
    CHECK(strstr(mha_last_error(), fragment) != NULL, "message \"%s\" should mention \"%s\"", mha_last_error(), fragment);
    if (status == MHA_OK) gpt_model_destroy(m);
    free(bytes);
}

static void test_bad_files(void) {
    gpt_model *m = random_model((gpt_config){.layers = 1, .heads = 2, .d_model = 4, .context = 3, .vocab = 5}, 4, 0.5);
    if (!m) return;
    size_t size;
    unsigned char *good = save(m, NULL, 0, &size);
    expect_bad(good, size, NULL, NULL, size - 1, "past the end");
    expect_bad(good, size, NULL, NULL, 20, "truncated");
    expect_bad(good, size, NULL, NULL, 5, "too few");
    expect_bad(good, size, "\"F32\"", "\"I32\"", 0, "only F32 and F16");
    expect_bad(good, size, "\"F32\"", "\"X32\"", 0, "does not define");
    expect_bad(good, size, "h.0.ln_1.bias", "h.0.ln_1.bi_s", 0, "h.0.ln_1.bias is missing");
    expect_bad(good, size, "[4,12]", "[4,13]", 0, "hold 192 bytes, but 52 F32 elements need 208");
    expect_bad(good, size, "[4,12]", "[6,8] ", 0, "expected [4, 12]");
    expect_bad(good, size, "\"data_offsets\":[0,80]", "\"data_offsets\":[4,84]", 0, "overlap");
    expect_bad(good, size, "{\"__metadata__\"", "[\"__metadata__\"", 0, "broken header");
    expect_bad(good, size, "\"n_head\":\"2\"", "\"n_head\":\"x\"", 0, "n_head");
    unsigned char *bad = malloc(size);
    memcpy(bad, good, size);
    bad[7] = 0x40; /* a header length of 2^62 */
    gpt_model *out;
    CHECK(gpt_load(bad, size, 0, &out) == MHA_ERR_BAD_MODEL && strstr(mha_last_error(), "absurd"), "absurd header length: %s",
          mha_last_error());
    memcpy(bad, good, size);
    const float nan = NAN;
    memcpy(bad + size - 4, &nan, 4); /* the last weight, ln_f.bias[3] */
    CHECK(gpt_load(bad, size, 0, &out) == MHA_ERR_BAD_MODEL && strstr(mha_last_error(), "ln_f.bias has NaN at index 3"),
          "a NaN weight: %s", mha_last_error());
    free(bad);
    free(good);
    gpt_model_destroy(m);
}

/* Whether the n bytes at b hold text. */
static int contains(const unsigned char *b, size_t n, const char *text) {
    const size_t k = strlen(text);
    for (size_t i = 0; i + k <= n; i++)
        if (!memcmp(b + i, text, k)) return 1;
    return 0;
}

/* F16 rounding, bit for bit at the edges: to the nearest half, ties to even; signs, infinities, NaN. */
static void test_half_rounding(void) {
    const struct { float x; unsigned bits; } cases[] = {
        {1, 0x3c00}, {-2, 0xc000}, {65504, 0x7bff}, {65519, 0x7bff}, {65520, 0x7c00}, {1e9f, 0x7c00},
        {-INFINITY, 0xfc00}, {0x1p-24f, 0x0001}, {0x1p-25f, 0x0000}, {0x3p-25f, 0x0002}, {0x1p-14f, 0x0400},
        {-0.0f, 0x8000}, {1 + 0x1p-11f, 0x3c00}, {1 + 0x3p-11f, 0x3c02}, {1 + 0x1p-11f + 0x1p-20f, 0x3c01},
        {2047.0f / 1024 + 0x1p-11f, 0x4000}, {0x1.8p-25f, 0x0001}, {1e-8f, 0x0000}, {70000, 0x7c00},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        CHECK(st_narrow_f16(cases[i].x) == cases[i].bits, "%.9g gives 0x%04x, not 0x%04x", cases[i].x,
              st_narrow_f16(cases[i].x), cases[i].bits);
    CHECK((st_narrow_f16(NAN) & 0x7e00) == 0x7e00, "NaN stays NaN");
    for (unsigned h = 0; h < 0x10000; h++) {
        if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) continue; /* NaNs keep no payload */
        float f;
        const unsigned char le[4] = {(unsigned char)(h & 0xff), (unsigned char)(h >> 8)};
        memcpy(&f, le, sizeof le);
        st_widen_f16(&f, 1);
        if (st_narrow_f16(f) != h) {
            CHECK(0, "half 0x%04x does not round-trip", h);
            break;
        }
    }
}

/* Saved as F16: the weights load rounded once, the JSON is JSON.stringify's, and saving the loaded model
   again gives the same bytes. */
static void test_save_f16(void) {
    gpt_model *m = random_model((gpt_config){.layers = 1, .heads = 2, .d_model = 4, .context = 3, .vocab = 5}, 6, 0.5);
    if (!m) return;
    const gpt_metadata extra[] = {{"note", "tab\there\nnew\x01 \"q\" \\"}};
    size_t size, size2, count, count_back;
    CHECK(gpt_save(m, "F16", extra, 1, NULL, 0, &size) == MHA_OK, "size: %s", mha_last_error());
    unsigned char *bytes = malloc(size);
    CHECK(gpt_save(m, "F16", extra, 1, bytes, size, &size) == MHA_OK, "save: %s", mha_last_error());
    CHECK(gpt_save(m, "F64", NULL, 0, NULL, 0, &size2) == MHA_ERR_BAD_INPUT, "F64 is refused");
    const char *escaped = "\"note\":\"tab\\there\\nnew\\u0001 \\\"q\\\" \\\\\"";
    CHECK(contains(bytes, size, escaped), "metadata escaped as JSON.stringify does");
    CHECK(contains(bytes, size, "\"dtype\":\"F16\""), "the tensors are F16");
    gpt_model *back;
    CHECK(gpt_load(bytes, size, 0, &back) == MHA_OK, "load: %s", mha_last_error());
    if (back) {
        const float *a = gpt_model_params(m, &count), *b = gpt_model_params(back, &count_back);
        int same = count == count_back;
        for (size_t i = 0; i < count && same; i++) {
            float rounded = 0;
            const uint16_t h = st_narrow_f16(a[i]);
            memcpy(&rounded, &h, sizeof h); /* little-endian, as the file */
            st_widen_f16(&rounded, 1);
            same = rounded == b[i];
        }
        CHECK(same, "every weight is its nearest half");
        unsigned char *again = malloc(size);
        CHECK(gpt_save(back, "F16", NULL, 0, again, size, &size2) == MHA_OK && size2 == size && !memcmp(again, bytes, size),
              "saving the loaded model as F16 gives the same bytes");
        free(again);
        gpt_model_destroy(back);
    }
    free(bytes);
    gpt_model_destroy(m);
}

/* A file this writer wrote (the shipped poetry model), loaded and saved again in its dtype: the same bytes. */
int test_gpt_file(const char *path) {
    failures = 0;
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL, "cannot open %s", path);
    if (!f) return failures;
    unsigned char *bytes = NULL;
    size_t size = 0;
    if (!fseek(f, 0, SEEK_END)) {
        const long end = ftell(f);
        size = end > 0 ? (size_t)end : 0;
        bytes = malloc(size);
        rewind(f);
        if (bytes && fread(bytes, 1, size, f) != size) size = 0;
    }
    fclose(f);
    gpt_model *m = NULL;
    CHECK(bytes && size && gpt_load(bytes, size, 0, &m) == MHA_OK, "load %s: %s", path, mha_last_error());
    if (m) {
        const char *dtype = contains(bytes, size, "\"dtype\":\"F16\"") ? "F16" : "F32";
        size_t size2;
        unsigned char *again = malloc(size);
        CHECK(again && gpt_save(m, dtype, NULL, 0, again, size, &size2) == MHA_OK && size2 == size && !memcmp(again, bytes, size),
              "%s saved again as %s is not the same bytes", path, dtype);
        free(again);
        gpt_model_destroy(m);
    }
    free(bytes);
    return failures;
}

int test_gpt(void) {
    failures = 0;
    test_forward();
    test_forward_reusing();
    test_step();
    test_panels();
    test_gradients();
    test_adamw_step();
    test_training();
    test_resume(0);
    test_resume(0.2f);
    test_dropout_masks();
    test_save_load();
    test_half_rounding();
    test_save_f16();
    test_max_tokens();
    test_one_dimension();
    test_bad_files();
    return failures;
}
