/* train.h — training one multi-head attention layer on a small synthetic task,
   so a learner can watch the heads pick their views.

   OVERVIEW
   The lesson says random heads mean nothing: training decides what each head
   looks at, and splitting d_model into h heads costs no extra parameters. This
   module makes that visible. A trainer owns a tiny model

       x_r     = E[t_r] + P[r]                      token + position embedding (d)
       y       = MultiHead(x)                       the layer of mha.h: W_q, W_k, W_v,
                                                    h heads, scale, causal mask, W^O
                                                    (K/V heads shared when kv_heads < h)
       z_r     = y_r · U + b                        read-out: 2·vocab logits per position
       loss    = mean cross-entropy of both targets at every position

   and the task "two views at once": at every position r the model predicts
       target 0, PREVIOUS: the token one step back, t[r-1] (t[0] at r = 0);
       target 1, FIRST:    the first token of the sequence, t[0].
   One view is "look one step back", the other "look at the start". A single
   head has one softmax per row, so it must split its weight between the two
   positions and the read-out gets a blend it cannot take apart; two heads of
   half the width each take one view. Every h has the same parameters:
       vocab·d + seq_len·d + 4·d² + d·2·vocab + 2·vocab.

   Sequences are uniformly random tokens drawn from np_random (numpy's legacy
   RandomState), so a seed fixes everything: the initial weights, the held-out
   evaluation set, the example sentence and every training batch.

   One step = one fresh batch of `batch` sequences, forward, backward (the
   analytic gradient of every parameter block: E, P, W_q, W_k, W_v, W^O, U, b,
   through softmax, mask and scale), and one Adam update.

   SHARED K AND V
   kv_heads = h_kv below h shares K and V as mha.h does: W_k and W_v are
   d×(h_kv·d_k), query head i reads K/V group ⌊i·h_kv/h⌋ (mha_layer_kv_group of
   the example layer), and the parameters are vocab·d + seq_len·d + 2·d² +
   2·d·h_kv·d_k + d·2·vocab + 2·vocab. The backward gives a shared group the
   sum of the gradients of the query heads that read it. kv_heads 0 (or h) is
   the multi-head model above, bit for bit. A seed draws the same numbers for
   every kv_heads: W_k and W_v are drawn d×d and group g keeps the columns of
   its first query head, g·h/h_kv, so MHA, GQA and MQA of one seed start from
   the same other weights and see the same evaluation set, example and batches.

   EXAMPLE
       mha_train_desc desc = mha_train_default_desc(2);   // h = 2, the defaults
       desc.seed = 7;
       mha_trainer *tr;
       if (mha_trainer_create(&desc, &tr) != MHA_OK) puts(mha_last_error());
       float loss;
       mha_trainer_step(tr, 500, &loss);                   // 500 Adam steps
       mha_train_eval ev;
       mha_trainer_evaluate(tr, NULL, &ev);                // all heads on
       printf("loss %.3f accuracy %.3f\n", ev.loss, ev.accuracy);
       unsigned char off0[2] = {0, 1};                     // ablation: head 0 off
       mha_trainer_evaluate(tr, off0, &ev);
       mha_layer *layer;                                   // the example sentence,
       mha_trainer_example_layer(tr, NULL, &layer);        // through mha_forward
       const float *a0;
       mha_tensor(layer, MHA_T_ATTENTION, 0, &a0);         // head 0's L×L weights
       mha_trainer_destroy(tr);

   MEMORY
   mha_trainer_create allocates everything the trainer will ever use: the
   parameters, their gradients, Adam's two moments, the activations of one
   batch, the evaluation set and an mha_layer for the example sentence. Steps,
   evaluations and the example forward allocate nothing. Pointers handed out
   (parameters, gradients, the example layer and its tensors) belong to the
   trainer and stay valid until mha_trainer_destroy; their contents change with
   every step.

   ERRORS
   Every function that can fail returns an mha_status (mha.h) and never aborts.
   The sentence describing the failure ("heads 3 does not divide d_model 16") is
   in mha_last_error() (mha.h), as for every failure of the library, valid until
   the next failing call. A step whose loss is not finite (diverged, e.g. lr too large)
   returns MHA_ERR_NOT_FINITE and leaves the parameters as they were before it.

   NUMBERS
   float32 parameters and activations; losses are summed in double. Softmax
   subtracts the row maximum; masked weights are exactly 0. Results are
   bit-identical for a given seed and build. */
#ifndef MHA_TRAIN_H
#define MHA_TRAIN_H

#include "mha.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Limits that keep every buffer small enough for a page (checked at create). */
#define MHA_TRAIN_MAX_VOCAB 4096
#define MHA_TRAIN_MAX_LEN 256
#define MHA_TRAIN_MAX_D 1024
#define MHA_TRAIN_MAX_BATCH 4096
#define MHA_TRAIN_MAX_BYTES ((double)(256u << 20))

typedef struct mha_train_desc {
    int vocab;      /* tokens 0 .. vocab-1, at least 2 */
    int seq_len;    /* L, at least 2 */
    int d_model;    /* d */
    int heads;      /* h; must divide d_model */
    int kv_heads;   /* h_kv, K/V heads: divides heads; 0 = heads, 1 = multi-query */
    int batch;      /* sequences per step */
    int eval_count; /* sequences in the held-out evaluation set */
    unsigned flags; /* MHA_CAUSAL | MHA_SCALE (mha.h) */
    unsigned seed;  /* np.random.RandomState(seed) */
    float lr;       /* Adam step size, > 0 */
    float beta1, beta2, eps; /* Adam; 0 <= beta < 1, eps > 0 */
    float init_scale; /* embeddings ~ N(0, init_scale²); matrices ~ N(0, 1/d) */
} mha_train_desc;

/* The default task for h heads (kv_heads 0: as many): vocab 16, L 8, d 8, batch 32, eval 256,
   causal + scale, seed 0, lr 0.01, betas 0.9 / 0.999, eps 1e-8, init 1. */
mha_train_desc mha_train_default_desc(int heads);

typedef enum mha_train_param { /* parameter blocks, row-major */
    MHA_TP_TOKEN,    /* E   vocab × d */
    MHA_TP_POSITION, /* P   L × d */
    MHA_TP_WQ,       /* d × d */
    MHA_TP_WK,       /* d × h_kv·d_k (d × d unless K/V heads are shared) */
    MHA_TP_WV,       /* d × h_kv·d_k */
    MHA_TP_WO,       /* d × d (W^O) */
    MHA_TP_READOUT,  /* U   d × 2·vocab: columns 0..vocab-1 target PREVIOUS, then FIRST */
    MHA_TP_BIAS,     /* b   2·vocab */
    MHA_TP_COUNT
} mha_train_param;

enum { MHA_TRAIN_TARGETS = 2 }; /* target 0: previous token, target 1: first token */

typedef struct mha_train_eval {
    double loss;                         /* mean over positions and both targets */
    double accuracy;                     /* fraction of all predictions right */
    double target_loss[MHA_TRAIN_TARGETS];
    double target_accuracy[MHA_TRAIN_TARGETS];
} mha_train_eval;

typedef struct mha_trainer mha_trainer;

mha_status mha_trainer_create(const mha_train_desc *desc, mha_trainer **out);
void       mha_trainer_destroy(mha_trainer *tr); /* NULL is fine */

/* Back to the state right after create (same seed: same weights, same batches). */
void       mha_trainer_reset(mha_trainer *tr);

/* Bounds one call's work, so a page that asks for too much gets an error, not
   a frozen tab: 2.5 G operations as the two functions below count them, at most
   about 2 s in wasm on one core of a 2-core VM (0.5 s for most shapes). A trainer
   one step or one evaluation of which costs more is refused at create. */
#define MHA_TRAIN_MAX_CALL_COST 2.5e9

/* The work of one training step (forward and backward over a batch) and of one
   evaluation (a forward of every held-out sequence), estimated in operations:
   a sequence's forward is L · (4·d² + 4·d·h_kv·d_k + 4·L·d + 4·vocab·d) flops of matrix products
   (8·d² in the first two terms unless K/V heads are shared)
   plus 32 for every softmax weight, logit and embedding entry, L · (L·h + 2·vocab + d)
   (an exp and its bookkeeping: measured in wasm, shapes made of those ran up to 30
   times slower a flop); a step is 3 such forwards a sequence, plus 30 a parameter
   for Adam, plus 3000 for the call. */
double     mha_trainer_step_cost(const mha_trainer *tr);
double     mha_trainer_evaluate_cost(const mha_trainer *tr);

/* n >= 0 training steps; *last_loss (may be NULL) gets the last step's batch
   loss. MHA_ERR_TOO_LARGE when n · mha_trainer_step_cost exceeds
   MHA_TRAIN_MAX_CALL_COST: call again for more steps. */
mha_status mha_trainer_step(mha_trainer *tr, int n, float *last_loss);
long       mha_trainer_steps(const mha_trainer *tr);  /* steps taken since create/reset */
float      mha_trainer_loss(const mha_trainer *tr);   /* last step's batch loss; NaN before */

/* Loss and accuracy on the held-out set; enabled = h bytes, 0 switches a head
   off (its columns of the concat become zeros), NULL = all on. */
mha_status mha_trainer_evaluate(mha_trainer *tr, const unsigned char *enabled, mha_train_eval *out);

/* Loss and gradient (into the gradient buffers) on `count` <= batch given
   sequences of L tokens each, without updating anything: for gradient checks. */
mha_status mha_trainer_loss_grad(mha_trainer *tr, const int *tokens, int count,
                                 const unsigned char *enabled, double *loss);

/* A parameter block and its gradient (of the last step or loss_grad). values
   may be written, e.g. to set weights by hand. Any output pointer may be NULL. */
mha_status mha_trainer_param(mha_trainer *tr, mha_train_param id, float **values,
                             const float **grad, int *rows, int *cols);

/* The example sentence (L tokens) whose attention a page draws; by default
   drawn from the seed. set_example copies `tokens`. */
mha_status mha_trainer_set_example(mha_trainer *tr, const int *tokens);
const int *mha_trainer_example(const mha_trainer *tr);

/* Runs mha_forward (mha.h) on the example with the current weights, so every
   mha_tensor of the returned layer (owned by the trainer) shows the trained
   model: x = E[t] + P, W_q, W_k, W_v, W^O, the trainer's flags, `enabled`. */
mha_status mha_trainer_example_layer(mha_trainer *tr, const unsigned char *enabled, mha_layer **layer);

/* Predictions of the trained model on the example: out[r·2 + target] is the
   most likely token, for r in 0 .. L-1 (2·L ints). */
mha_status mha_trainer_example_predict(mha_trainer *tr, const unsigned char *enabled, int *out);

int        mha_trainer_param_count(const mha_trainer *tr); /* all blocks together */
const mha_train_desc *mha_trainer_desc(const mha_trainer *tr);


#ifdef __cplusplus
}
#endif
#endif /* MHA_TRAIN_H */
