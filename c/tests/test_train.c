/* test_train.c — native tests of the trainer (train.h), run under ASan + UBSan by `npm test`:
   gradient check of every parameter block against central differences of an independent
   float64 forward, agreement with mha_forward, a short training run, determinism, ablation
   and errors. Prints one "train gradient check" summary line, for people. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/train.h"
#include "test_check.h"

static int failures;

static const char *const block_names[MHA_TP_COUNT] = {"E", "P", "Wq", "Wk", "Wv", "Wo", "U", "b"};

/* ---- an independent float64 forward of the same model (plain loops, no shared code) ---- */

typedef struct ref_model {
    int V, L, d, h, h_kv; /* h_kv: K/V heads (h when not shared) */
    unsigned flags;
    double *p[MHA_TP_COUNT];
    int size[MHA_TP_COUNT];
} ref_model;

static ref_model ref_from(mha_trainer *tr) {
    const mha_train_desc *desc = mha_trainer_desc(tr);
    ref_model m = {desc->vocab, desc->seq_len, desc->d_model, desc->heads, desc->kv_heads ? desc->kv_heads : desc->heads,
                   desc->flags, {0}, {0}};
    for (int id = 0; id < MHA_TP_COUNT; id++) {
        float *values;
        int rows, cols;
        mha_trainer_param(tr, id, &values, NULL, &rows, &cols);
        m.size[id] = rows * cols;
        m.p[id] = malloc((size_t)m.size[id] * sizeof(double));
        for (int i = 0; i < m.size[id]; i++) m.p[id][i] = values[i];
    }
    return m;
}

static void ref_free(ref_model *m) {
    for (int id = 0; id < MHA_TP_COUNT; id++) free(m->p[id]);
}

/* Mean cross-entropy over count sequences; att (h·L·L) gets the last sequence's weights.
   K and V are L×kvd (kvd = h_kv·d_k), query head hd reading group hd·h_kv/h. */
static double ref_loss(const ref_model *m, const int *tokens, int count, const unsigned char *enabled, double *att) {
    const int V = m->V, L = m->L, d = m->d, h = m->h, dk = d / h, kvd = m->h_kv * dk;
    const double scale = (m->flags & MHA_SCALE) ? 1.0 / sqrt((double)dk) : 1.0;
    double *x = malloc(sizeof(double) * (size_t)L * d * 5), *q = x + L * d, *k = q + L * d, *v = k + L * d, *c = v + L * d;
    double *y = malloc(sizeof(double) * (size_t)d), *z = malloc(sizeof(double) * (size_t)2 * V), *w = malloc(sizeof(double) * (size_t)L);
    double total = 0.0;
    for (int s = 0; s < count; s++) {
        const int *t = tokens + s * L;
        for (int r = 0; r < L; r++)
            for (int j = 0; j < d; j++) x[r * d + j] = m->p[MHA_TP_TOKEN][t[r] * d + j] + m->p[MHA_TP_POSITION][r * d + j];
        for (int r = 0; r < L; r++)
            for (int j = 0; j < d; j++) {
                double a = 0;
                for (int i = 0; i < d; i++) a += x[r * d + i] * m->p[MHA_TP_WQ][i * d + j];
                q[r * d + j] = a;
            }
        for (int r = 0; r < L; r++)
            for (int j = 0; j < kvd; j++) {
                double b = 0, e = 0;
                for (int i = 0; i < d; i++) {
                    b += x[r * d + i] * m->p[MHA_TP_WK][i * kvd + j];
                    e += x[r * d + i] * m->p[MHA_TP_WV][i * kvd + j];
                }
                k[r * kvd + j] = b, v[r * kvd + j] = e;
            }
        for (int hd = 0; hd < h; hd++)
            for (int r = 0; r < L; r++) {
                const int g = hd * m->h_kv / h; /* the K/V group this query head reads */
                const int visible = (m->flags & MHA_CAUSAL) ? r + 1 : L;
                double max = -INFINITY, sum = 0;
                for (int col = 0; col < visible; col++) {
                    double dot = 0;
                    for (int j = 0; j < dk; j++) dot += q[r * d + hd * dk + j] * k[col * kvd + g * dk + j];
                    w[col] = dot * scale;
                    if (w[col] > max) max = w[col];
                }
                for (int col = 0; col < visible; col++) sum += w[col] = exp(w[col] - max);
                for (int col = 0; col < L; col++) {
                    w[col] = col < visible ? w[col] / sum : 0.0;
                    if (att && s == count - 1) att[(hd * L + r) * L + col] = w[col];
                }
                const int on = !enabled || enabled[hd];
                for (int j = 0; j < dk; j++) {
                    double o = 0;
                    for (int col = 0; col < visible; col++) o += w[col] * v[col * kvd + g * dk + j];
                    c[r * d + hd * dk + j] = on ? o : 0.0;
                }
            }
        for (int r = 0; r < L; r++) {
            for (int j = 0; j < d; j++) {
                double o = 0;
                for (int i = 0; i < d; i++) o += c[r * d + i] * m->p[MHA_TP_WO][i * d + j];
                y[j] = o;
            }
            for (int o = 0; o < 2 * V; o++) {
                double a = m->p[MHA_TP_BIAS][o];
                for (int i = 0; i < d; i++) a += y[i] * m->p[MHA_TP_READOUT][i * 2 * V + o];
                z[o] = a;
            }
            for (int target = 0; target < 2; target++) {
                const int want = target == 0 ? t[r > 0 ? r - 1 : 0] : t[0];
                const double *zt = z + target * V;
                double max = zt[0], sum = 0;
                for (int o = 1; o < V; o++) max = zt[o] > max ? zt[o] : max;
                for (int o = 0; o < V; o++) sum += exp(zt[o] - max);
                total += log(sum) + max - zt[want];
            }
        }
    }
    free(x), free(y), free(z), free(w);
    return total / ((double)count * L * 2);
}

/* ---- gradient check ---- */

static double worst_error; /* over every shape and block */
static int shapes_checked;

static void gradient_check(mha_train_desc desc, int count, int train_steps, const unsigned char *enabled) {
    mha_trainer *tr;
    if (mha_trainer_create(&desc, &tr) != MHA_OK) {
        CHECK(0, "create: %s", mha_last_error());
        return;
    }
    if (train_steps) CHECK(mha_trainer_step(tr, train_steps, NULL) == MHA_OK, "step: %s", mha_last_error());
    int *tokens = malloc(sizeof(int) * (size_t)count * desc.seq_len);
    for (int i = 0; i < count * desc.seq_len; i++) tokens[i] = (i * 7 + i / 3 + 1) % desc.vocab;
    double loss;
    CHECK(mha_trainer_loss_grad(tr, tokens, count, enabled, &loss) == MHA_OK, "loss_grad: %s", mha_last_error());

    ref_model m = ref_from(tr);
    const double ref = ref_loss(&m, tokens, count, enabled, NULL);
    CHECK(fabs(ref - loss) <= 1e-5 * (1 + fabs(ref)), "float32 loss %.9f vs float64 loss %.9f", loss, ref);

    char line[512];
    int used = snprintf(line, sizeof line, "train gradcheck V%d L%d d%d h%d kv%d n%d %s%s%s%s:", desc.vocab, desc.seq_len,
                        desc.d_model, desc.heads, desc.kv_heads ? desc.kv_heads : desc.heads, count, (desc.flags & MHA_CAUSAL) ? "causal" : "no-mask",
                        (desc.flags & MHA_SCALE) ? "+scale" : "", enabled ? " ablated" : "", train_steps ? " trained" : "");
    double shape_worst = 0;
    for (int id = 0; id < MHA_TP_COUNT; id++) {
        const float *g;
        mha_trainer_param(tr, id, NULL, &g, NULL, NULL);
        double max_diff = 0, max_grad = 0;
        for (int i = 0; i < m.size[id]; i++) {
            const double keep = m.p[id][i], eps = 1e-5;
            m.p[id][i] = keep + eps;
            const double plus = ref_loss(&m, tokens, count, enabled, NULL);
            m.p[id][i] = keep - eps;
            const double minus = ref_loss(&m, tokens, count, enabled, NULL);
            m.p[id][i] = keep;
            const double numeric = (plus - minus) / (2 * eps);
            max_diff = fmax(max_diff, fabs(numeric - g[i]));
            max_grad = fmax(max_grad, fabs(numeric));
        }
        /* relative to the block's largest gradient; a block with no gradient must get exactly ~0 */
        const double rel = max_grad > 1e-9 ? max_diff / max_grad : max_diff;
        CHECK(rel < 1e-4, "%s: block %s max |analytic - numeric| = %.3g, largest gradient %.3g", line, block_names[id], max_diff, max_grad);
        shape_worst = fmax(shape_worst, rel);
        if (used < (int)sizeof line) used += snprintf(line + used, sizeof line - (size_t)used, " %s %.1e", block_names[id], rel);
    }
    printf("%s\n", line);
    worst_error = fmax(worst_error, shape_worst);
    shapes_checked++;
    ref_free(&m);
    free(tokens);
    mha_trainer_destroy(tr);
}

static mha_train_desc shape(int V, int L, int d, int h, int batch, unsigned flags) {
    mha_train_desc desc = mha_train_default_desc(h);
    desc.kv_heads = 0;
    desc.vocab = V, desc.seq_len = L, desc.d_model = d, desc.batch = batch, desc.flags = flags, desc.eval_count = 4;
    desc.init_scale = 1.5f; /* sharper softmax rows than the default */
    return desc;
}

static mha_train_desc kv(mha_train_desc desc, int kv_heads) {
    desc.kv_heads = kv_heads;
    return desc;
}

static void test_gradients(void) {
    const unsigned CS = MHA_CAUSAL | MHA_SCALE;
    gradient_check(shape(5, 4, 4, 1, 2, CS), 2, 0, NULL);
    gradient_check(shape(5, 4, 4, 2, 3, CS), 3, 0, NULL);
    gradient_check(shape(6, 5, 6, 3, 2, MHA_SCALE), 2, 0, NULL);
    gradient_check(shape(7, 6, 8, 4, 2, MHA_CAUSAL), 2, 0, NULL);
    gradient_check(shape(4, 3, 6, 2, 2, 0), 1, 0, NULL);
    gradient_check(shape(6, 5, 8, 2, 2, CS), 2, 0, (const unsigned char[]){1, 0});
    gradient_check(shape(16, 8, 8, 2, 4, CS), 4, 40, NULL); /* the default task's shape, after training */
    gradient_check(shape(16, 8, 8, 4, 4, MHA_SCALE), 3, 40, NULL);
    /* K/V heads shared: multi-query (1) and grouped-query (a divisor between), so a group's gradient
       is checked as the sum over the query heads that read it */
    gradient_check(kv(shape(7, 6, 8, 4, 2, CS), 1), 2, 0, NULL);
    gradient_check(kv(shape(7, 6, 8, 4, 2, CS), 2), 2, 0, NULL);
    gradient_check(kv(shape(6, 5, 12, 6, 2, MHA_SCALE), 3), 2, 0, NULL);
    gradient_check(kv(shape(6, 5, 12, 6, 2, MHA_CAUSAL), 2), 2, 0, NULL);
    gradient_check(kv(shape(6, 5, 8, 4, 2, CS), 2), 2, 0, (const unsigned char[]){1, 0, 1, 1});
    gradient_check(kv(shape(6, 5, 8, 4, 2, CS), 1), 2, 0, (const unsigned char[]){0, 1, 0, 1});
    gradient_check(kv(shape(16, 8, 8, 4, 4, CS), 2), 4, 40, NULL); /* the default task's shape, GQA, trained */
    gradient_check(kv(shape(16, 8, 8, 2, 4, CS), 1), 3, 40, NULL); /* and MQA */
    CHECK(shapes_checked == 16, "the gradient check ran on %d of 16 shapes", shapes_checked);
    printf("train gradient check: max relative error %.2e over %d shapes x %d blocks (tolerance 1e-04)\n", worst_error,
           shapes_checked, MHA_TP_COUNT);
}

/* ---- the example through mha_forward agrees with the float64 forward ---- */

static void test_agrees_with_mha_forward(void) {
    for (int run = 0; run < 4; run++) { /* masked or not, each with its own K/V heads and shared (MQA) */
        const int masked = run % 2;
        mha_train_desc desc = kv(shape(9, 6, 8, 2, 2, masked ? MHA_CAUSAL | MHA_SCALE : MHA_SCALE), run < 2 ? 0 : 1);
        mha_trainer *tr;
        if (mha_trainer_create(&desc, &tr) != MHA_OK) {
            CHECK(0, "create: %s", mha_last_error());
            return;
        }
        CHECK(mha_trainer_step(tr, 10, NULL) == MHA_OK, "step");
        const int example[6] = {3, 1, 4, 1, 5, 8};
        CHECK(mha_trainer_set_example(tr, example) == MHA_OK, "set_example: %s", mha_last_error());
        CHECK(memcmp(mha_trainer_example(tr), example, sizeof example) == 0, "example kept");
        double loss;
        CHECK(mha_trainer_loss_grad(tr, example, 1, NULL, &loss) == MHA_OK, "loss_grad");
        ref_model m = ref_from(tr);
        double att[2 * 6 * 6];
        const double ref = ref_loss(&m, example, 1, NULL, att);
        CHECK(fabs(ref - loss) <= 1e-5 * (1 + ref), "trainer loss %.7f vs float64 %.7f", loss, ref);
        mha_layer *layer;
        CHECK(mha_trainer_example_layer(tr, NULL, &layer) == MHA_OK, "example_layer: %s", mha_last_error());
        double worst = 0;
        for (int hd = 0; hd < 2 && layer; hd++) {
            const float *a;
            CHECK(mha_tensor(layer, MHA_T_ATTENTION, hd, &a) == MHA_OK, "tensor");
            for (int i = 0; i < 36; i++) worst = fmax(worst, fabs(a[i] - att[hd * 36 + i]));
        }
        CHECK(worst < 1e-5, "mha_forward attention differs from the trainer's model by %.3g (kv_heads %d)", worst, desc.kv_heads);
        CHECK(!layer || mha_layer_kv_heads(layer) == (desc.kv_heads ? desc.kv_heads : 2), "the example layer shares K/V as the trainer does");
        ref_free(&m);
        mha_trainer_destroy(tr);
    }
}

/* ---- training: the loss falls, two heads take two views ---- */

static void test_training(void) {
    mha_train_desc desc = mha_train_default_desc(2);
    mha_trainer *tr;
    if (mha_trainer_create(&desc, &tr) != MHA_OK) {
        CHECK(0, "create: %s", mha_last_error());
        return;
    }
    mha_train_eval before, after, off[2];
    CHECK(mha_trainer_evaluate(tr, NULL, &before) == MHA_OK, "evaluate");
    CHECK(isnan(mha_trainer_loss(tr)), "no loss before the first step");
    float loss;
    CHECK(mha_trainer_step(tr, 400, &loss) == MHA_OK, "step: %s", mha_last_error());
    CHECK(mha_trainer_steps(tr) == 400, "400 steps counted");
    CHECK(loss == mha_trainer_loss(tr), "last loss reported");
    CHECK(mha_trainer_evaluate(tr, NULL, &after) == MHA_OK, "evaluate");
    CHECK(after.loss < 0.1 * before.loss, "held-out loss %.3f -> %.3f should fall tenfold", before.loss, after.loss);
    CHECK(after.accuracy >= 0.95, "h = 2 accuracy %.3f after 400 steps", after.accuracy);
    for (int hd = 0; hd < 2; hd++) {
        unsigned char enabled[2] = {1, 1};
        enabled[hd] = 0;
        CHECK(mha_trainer_evaluate(tr, enabled, &off[hd]) == MHA_OK, "evaluate ablated");
    }
    /* each target has a head without which it collapses: the heads took different views */
    for (int t = 0; t < 2; t++) {
        const double drop = fmax(after.target_accuracy[t] - off[0].target_accuracy[t], after.target_accuracy[t] - off[1].target_accuracy[t]);
        CHECK(drop > 0.3, "target %d: switching a head off drops accuracy by only %.3f", t, drop);
    }
    int pred[16];
    CHECK(mha_trainer_example_predict(tr, NULL, pred) == MHA_OK, "predict");
    const int *ex = mha_trainer_example(tr);
    int right = 0;
    for (int r = 0; r < 8; r++) right += (pred[2 * r] == ex[r > 0 ? r - 1 : 0]) + (pred[2 * r + 1] == ex[0]);
    CHECK(right >= 15, "example predictions right: %d of 16", right);
    mha_trainer_destroy(tr);

    /* h = 1, same d_model, same parameter count: one head cannot hold both views */
    desc = mha_train_default_desc(1);
    mha_trainer *one;
    CHECK(mha_trainer_create(&desc, &one) == MHA_OK, "create h=1");
    if (!one) return;
    mha_trainer *two_probe;
    mha_train_desc d2 = mha_train_default_desc(2);
    CHECK(mha_trainer_create(&d2, &two_probe) == MHA_OK, "create h=2");
    CHECK(mha_trainer_param_count(one) == mha_trainer_param_count(two_probe), "same parameter count for h = 1 and 2");
    mha_trainer_destroy(two_probe);
    mha_train_eval single;
    CHECK(mha_trainer_step(one, 400, NULL) == MHA_OK, "step h=1");
    CHECK(mha_trainer_evaluate(one, NULL, &single) == MHA_OK, "evaluate h=1");
    CHECK(single.accuracy < after.accuracy - 0.05, "h=1 accuracy %.3f should trail h=2's %.3f", single.accuracy, after.accuracy);
    mha_trainer_destroy(one);
}

static void test_determinism(void) {
    mha_train_desc desc = mha_train_default_desc(4);
    desc.seed = 1234;
    mha_trainer *a, *b;
    CHECK(mha_trainer_create(&desc, &a) == MHA_OK, "create a");
    CHECK(mha_trainer_create(&desc, &b) == MHA_OK, "create b");
    if (!a || !b) return;
    float la, lb;
    mha_trainer_step(a, 30, &la);
    mha_trainer_step(b, 30, &lb);
    float *pa, *pb;
    CHECK(la == lb, "same seed, same loss");
    for (int id = 0; id < MHA_TP_COUNT; id++) {
        int rows, cols;
        mha_trainer_param(a, id, &pa, NULL, &rows, &cols);
        mha_trainer_param(b, id, &pb, NULL, NULL, NULL);
        CHECK(memcmp(pa, pb, sizeof(float) * (size_t)rows * cols) == 0, "block %s identical", block_names[id]);
    }
    mha_trainer_reset(b);
    CHECK(mha_trainer_steps(b) == 0, "reset clears the step count");
    mha_trainer_step(b, 30, &lb);
    CHECK(la == lb, "reset replays the same batches");
    mha_trainer_param(a, MHA_TP_WQ, &pa, NULL, NULL, NULL);
    mha_trainer_param(b, MHA_TP_WQ, &pb, NULL, NULL, NULL);
    CHECK(memcmp(pa, pb, sizeof(float) * 64) == 0, "reset replays the same weights");
    desc.seed = 1235;
    mha_trainer *c;
    CHECK(mha_trainer_create(&desc, &c) == MHA_OK, "create c");
    if (c) {
        float *pc;
        mha_trainer_param(c, MHA_TP_WQ, &pc, NULL, NULL, NULL);
        mha_trainer_reset(a);
        CHECK(memcmp(pa, pc, sizeof(float) * 64) != 0, "another seed, other weights");
    }
    /* kv_heads = heads is the multi-head trainer, bit for bit */
    desc.seed = 1234, desc.kv_heads = 4;
    mha_trainer *e;
    CHECK(mha_trainer_create(&desc, &e) == MHA_OK, "create kv_heads = heads");
    if (e) {
        float le;
        mha_trainer_reset(a);
        mha_trainer_step(a, 30, &la);
        mha_trainer_step(e, 30, &le);
        CHECK(memcmp(&la, &le, sizeof la) == 0, "kv_heads = heads: loss %.9g, MHA's %.9g", le, la);
        for (int id = 0; id < MHA_TP_COUNT; id++) {
            int rows, cols;
            float *pe;
            mha_trainer_param(a, id, &pa, NULL, &rows, &cols);
            mha_trainer_param(e, id, &pe, NULL, NULL, NULL);
            CHECK(memcmp(pa, pe, sizeof(float) * (size_t)rows * cols) == 0, "kv_heads = heads: block %s identical", block_names[id]);
        }
    }
    mha_trainer_destroy(a);
    mha_trainer_destroy(b);
    mha_trainer_destroy(c);
    mha_trainer_destroy(e);

    /* One seed, any kv_heads: the same example and other weights, and each K/V group starts as
       the multi-head model's K/V head of the group's first query head */
    desc = mha_train_default_desc(4);
    desc.seed = 77;
    mha_trainer *full;
    CHECK(mha_trainer_create(&desc, &full) == MHA_OK, "create MHA");
    for (int kv_heads = 1; kv_heads <= 2 && full; kv_heads++) {
        desc.kv_heads = kv_heads;
        mha_trainer *shared;
        CHECK(mha_trainer_create(&desc, &shared) == MHA_OK, "create kv_heads %d", kv_heads);
        if (!shared) break;
        CHECK(memcmp(mha_trainer_example(full), mha_trainer_example(shared), 8 * sizeof(int)) == 0, "kv_heads %d: same example", kv_heads);
        for (int id = 0; id < MHA_TP_COUNT; id++) {
            int rows, cols, kv_cols;
            float *pf, *ps;
            mha_trainer_param(full, id, &pf, NULL, &rows, &cols);
            mha_trainer_param(shared, id, &ps, NULL, NULL, &kv_cols);
            int same = 1;
            for (int r = 0; r < rows; r++)
                for (int col = 0; col < kv_cols; col++) {
                    const int group = col / 2, from = kv_cols == cols ? col : group * 4 / kv_heads * 2 + col % 2;
                    same &= memcmp(&ps[r * kv_cols + col], &pf[r * cols + from], sizeof(float)) == 0;
                }
            CHECK(same, "kv_heads %d: block %s drawn as MHA's", kv_heads, block_names[id]);
        }
        mha_trainer_destroy(shared);
    }
    mha_trainer_destroy(full);
}

static void expect_create_error(mha_train_desc desc, mha_status want, const char *fragment) {
    mha_trainer *tr = (mha_trainer *)&tr; /* must be reset to NULL */
    const mha_status got = mha_trainer_create(&desc, &tr);
    CHECK(got == want, "create: got %s, want %s (%s)", mha_status_name(got), mha_status_name(want), mha_last_error());
    CHECK(tr == NULL, "no trainer on failure");
    CHECK(strstr(mha_last_error(), fragment) != NULL, "message \"%s\" should mention \"%s\"", mha_last_error(), fragment);
    if (got == MHA_OK) mha_trainer_destroy(tr);
}

static void test_errors(void) {
    mha_train_desc desc = mha_train_default_desc(3);
    expect_create_error(desc, MHA_ERR_HEADS_NOT_DIVISOR, "heads 3 does not divide d_model 8");
    desc = mha_train_default_desc(0);
    expect_create_error(desc, MHA_ERR_BAD_SIZE, "heads");
    desc = mha_train_default_desc(2), desc.vocab = 1;
    expect_create_error(desc, MHA_ERR_BAD_SIZE, "vocab");
    desc = mha_train_default_desc(2), desc.seq_len = 100000;
    expect_create_error(desc, MHA_ERR_TOO_LARGE, "seqLen");
    desc = mha_train_default_desc(2), desc.lr = NAN;
    expect_create_error(desc, MHA_ERR_NOT_FINITE, "lr");
    desc = mha_train_default_desc(2), desc.lr = -0.1f;
    expect_create_error(desc, MHA_ERR_BAD_INPUT, "lr");
    desc = mha_train_default_desc(2), desc.beta1 = 1.0f;
    expect_create_error(desc, MHA_ERR_BAD_INPUT, "beta1");
    desc = mha_train_default_desc(2), desc.flags = 8;
    expect_create_error(desc, MHA_ERR_BAD_INPUT, "flags");
    desc = mha_train_default_desc(64), desc.d_model = 1024, desc.vocab = 4096, desc.batch = 4096, desc.seq_len = 256;
    expect_create_error(desc, MHA_ERR_TOO_LARGE, "MB");
    desc = mha_train_default_desc(4), desc.kv_heads = 3;
    expect_create_error(desc, MHA_ERR_KV_HEADS_NOT_DIVISOR, "kvHeads 3 does not divide heads 4");
    desc.kv_heads = 8;
    expect_create_error(desc, MHA_ERR_KV_HEADS_NOT_DIVISOR, "kvHeads 8 does not divide heads 4");
    desc.kv_heads = -1;
    expect_create_error(desc, MHA_ERR_BAD_SIZE, "kvHeads");
    CHECK(mha_trainer_create(NULL, NULL) == MHA_ERR_NULL_ARGUMENT, "NULL desc");

    desc = mha_train_default_desc(2);
    mha_trainer *tr;
    CHECK(mha_trainer_create(&desc, &tr) == MHA_OK, "create");
    if (!tr) return;
    CHECK(mha_trainer_step(tr, -1, NULL) == MHA_ERR_BAD_SIZE, "negative steps");
    CHECK(mha_trainer_step(tr, 0, NULL) == MHA_OK, "zero steps");
    CHECK(mha_trainer_step(NULL, 1, NULL) == MHA_ERR_NULL_ARGUMENT, "NULL trainer");
    int bad[8] = {0, 1, 2, 16, 0, 0, 0, 0};
    CHECK(mha_trainer_set_example(tr, bad) == MHA_ERR_BAD_INPUT, "token outside the vocabulary");
    CHECK(strstr(mha_last_error(), "token 16 at position 3") != NULL, "message: %s", mha_last_error());
    double loss;
    CHECK(mha_trainer_loss_grad(tr, bad, 1, NULL, &loss) == MHA_ERR_BAD_INPUT, "loss_grad checks tokens");
    CHECK(mha_trainer_loss_grad(tr, bad, 33, NULL, &loss) == MHA_ERR_BAD_SIZE, "more than a batch");
    CHECK(mha_trainer_param(tr, MHA_TP_COUNT, NULL, NULL, NULL, NULL) == MHA_ERR_BAD_INPUT, "bad block");
    mha_train_eval ev;
    CHECK(mha_trainer_evaluate(tr, NULL, NULL) == MHA_ERR_NULL_ARGUMENT, "evaluate without output");
    CHECK(mha_trainer_evaluate(tr, NULL, &ev) == MHA_OK, "evaluate before training");
    mha_trainer_destroy(tr);
    mha_trainer_destroy(NULL);
}

/* Every call a trainer accepts fits MHA_TRAIN_MAX_CALL_COST: shapes whose one evaluation
   or one step would take minutes are refused at create, naming the limit; too many steps
   in one call are refused before any is taken. */
static void test_call_cost(void) {
    mha_train_desc desc = mha_train_default_desc(4);
    desc.d_model = 64, desc.seq_len = 256, desc.vocab = 4096, desc.batch = 1, desc.eval_count = 64;
    expect_create_error(desc, MHA_ERR_TOO_LARGE, "(evalCount at most 6)");
    desc.eval_count = 6;
    mha_trainer *tr;
    CHECK(mha_trainer_create(&desc, &tr) == MHA_OK, "evalCount at its limit: %s", mha_last_error());
    if (tr) {
        CHECK(mha_trainer_evaluate_cost(tr) <= MHA_TRAIN_MAX_CALL_COST, "evaluate fits");
        CHECK(mha_trainer_step_cost(tr) <= MHA_TRAIN_MAX_CALL_COST, "a step fits");
        CHECK(mha_trainer_step(tr, 3, NULL) == MHA_ERR_TOO_LARGE, "3 steps do not");
        CHECK(strstr(mha_last_error(), "(at most 2 steps)") != NULL, "message: %s", mha_last_error());
        mha_trainer_destroy(tr);
    }
    desc.batch = 8, desc.eval_count = 1;
    expect_create_error(desc, MHA_ERR_TOO_LARGE, "(batch at most 2)");
    desc = mha_train_default_desc(8), desc.d_model = 1024, desc.seq_len = 256, desc.vocab = 16, desc.batch = 1, desc.eval_count = 1;
    expect_create_error(desc, MHA_ERR_TOO_LARGE, "make them smaller");

    desc = mha_train_default_desc(2);
    CHECK(mha_trainer_create(&desc, &tr) == MHA_OK, "the default trainer");
    if (!tr) return;
    const double per_step = mha_trainer_step_cost(tr);
    CHECK(per_step > 2e6 && per_step < 3e6, "a default step costs %.0f", per_step);
    CHECK(mha_trainer_step(tr, 20000, NULL) == MHA_ERR_TOO_LARGE, "20000 steps in one call");
    CHECK(mha_trainer_steps(tr) == 0, "none taken");
    CHECK(mha_trainer_step(tr, (int)(MHA_TRAIN_MAX_CALL_COST / per_step), NULL) == MHA_OK, "as many as fit: %s", mha_last_error());
    mha_trainer_destroy(tr);

    /* Shared K/V heads: W_k and W_v are d×kvd, so their products and parameters shrink by the same
       d·(d - kvd) each, and nothing else changes; kv_heads = heads costs what 0 does, to the bit. */
    for (int kv_heads = 1; kv_heads <= 4; kv_heads *= 2) {
        mha_trainer *mha_tr, *gqa;
        desc = mha_train_default_desc(4);
        CHECK(mha_trainer_create(&desc, &mha_tr) == MHA_OK, "MHA");
        desc.kv_heads = kv_heads;
        CHECK(mha_trainer_create(&desc, &gqa) == MHA_OK, "kv_heads %d: %s", kv_heads, mha_last_error());
        if (!mha_tr || !gqa) return;
        const double d = 8, kvd = kv_heads * 2, saved = d * (d - kvd), L = 8, B = 32, E = 256;
        CHECK(mha_trainer_param_count(mha_tr) - mha_trainer_param_count(gqa) == 2 * saved, "kv_heads %d: %d parameters",
              kv_heads, mha_trainer_param_count(gqa));
        CHECK(mha_trainer_step_cost(mha_tr) - mha_trainer_step_cost(gqa) == 3 * B * L * 4 * saved + 30 * 2 * saved,
              "kv_heads %d: a step costs %.0f, MHA's %.0f", kv_heads, mha_trainer_step_cost(gqa), mha_trainer_step_cost(mha_tr));
        CHECK(mha_trainer_evaluate_cost(mha_tr) - mha_trainer_evaluate_cost(gqa) == E * L * 4 * saved,
              "kv_heads %d: an evaluation costs %.0f", kv_heads, mha_trainer_evaluate_cost(gqa));
        int rows, cols;
        mha_trainer_param(gqa, MHA_TP_WK, NULL, NULL, &rows, &cols);
        CHECK(rows == 8 && cols == kvd, "W_k is %dx%d", rows, cols);
        mha_trainer_destroy(mha_tr);
        mha_trainer_destroy(gqa);
    }
}

/* A confidently wrong model has a large but finite loss (no exp underflow to log 0). */
static void test_confidently_wrong(void) {
    mha_train_desc desc = mha_train_default_desc(2);
    mha_trainer *tr;
    if (mha_trainer_create(&desc, &tr) != MHA_OK) return;
    float *b;
    mha_trainer_param(tr, MHA_TP_BIAS, &b, NULL, NULL, NULL);
    b[0] = -500.0f; /* target PREVIOUS: token 0 is all but impossible */
    const int tokens[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    double loss;
    CHECK(mha_trainer_loss_grad(tr, tokens, 1, NULL, &loss) == MHA_OK, "loss_grad");
    CHECK(isfinite(loss) && loss > 500.0 / 2 - 50, "loss %.1f should be about 250 and finite", loss);
    CHECK(mha_trainer_step(tr, 3, NULL) == MHA_OK, "training goes on: %s", mha_last_error());
    mha_trainer_destroy(tr);
}

int test_train(void) {
    failures = 0;
    test_gradients();
    test_agrees_with_mha_forward();
    test_training();
    test_determinism();
    test_confidently_wrong();
    test_errors();
    test_call_cost();
    return failures;
}
