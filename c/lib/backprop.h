/* backprop.h — the pieces of training that both trainers share: train.c (the
   lesson's one-layer model, train.h) and gpt_train.c (the GPT-2 model, gpt.h).
   Not part of the public API.

   OVERVIEW
   Each trainer keeps its own model, buffers and loop; what their models have
   in common is computed here, once:
       settings     a trainer's real-valued settings checked against their
                    ranges (mha_check_reals)
       embeddings   x_r = E[t_r] + P[r], and its gradient into E and P
                    (mha_embed, mha_embed_backward; gpt_forward.c's forward embeds too)
       attention    one head's backward, from d loss / d its output to
                    d loss / d Q_i, K_i, V_i (mha_attend_backward; the forward
                    is mha_attend_plain or mha_attend_fast, mha_internal.h)
       read-out     softmax cross-entropy of a row of logits, and its gradient
                    in place (mha_softmax_cross_entropy)
       update       one AdamW step of a run of parameters (mha_adamw_step)

   MEMORY
   Nothing here allocates: every buffer is the caller's, sized as each
   function says. Matrices are row-major, rows `stride` floats apart where a
   function takes a stride (so a head's columns can be addressed in place).

   ERRORS
   Only mha_check_reals can fail: it returns an mha_status and records the
   sentence (mha_last_error, mha.h). The others trust their arguments: the
   trainers check sizes and tokens before they call them.

   NUMBERS
   float32 arithmetic, losses in double; each function computes its results
   in a fixed order, so a seed gives the same bits on every run. */
#ifndef MHA_BACKPROP_H
#define MHA_BACKPROP_H

#include "mha_internal.h"

/* ---- settings ---- */

/* A real-valued setting and the interval it must lie in. */
typedef struct mha_real_range {
    const char *name;     /* as the caller's API spells it: "lr", "beta1" */
    float value, lo, hi;
    int open_lo, open_hi; /* 1: that end itself is outside, as in (0, 1] */
} mha_real_range;

/* MHA_OK when every value is finite and in its interval; else NOT_FINITE or
   BAD_INPUT for the first that is not ("beta2 must be in [0, 1), got 1"). */
mha_status mha_check_reals(const mha_real_range *reals, size_t count);

/* ---- embeddings ---- */

/* x (S·T rows of d) = E[token] + P[position] for positions from .. T-1 of S
   sequences; row s·T + t of x is position t of sequence s, whose token is
   tokens[s·stride + t] (already checked: 0 .. rows of E - 1). E is vocab×d,
   P at least T×d. Rows of x before `from` are left as they are. */
void mha_embed(float *x, const float *E, const float *P, const int *tokens, int stride, int S, int T, int from, int d);

/* The gradient of mha_embed (from 0): dE[token] += dx's row and dP[position]
   += dx's row, for every row of dx (S·T×d), in row order. dE and dP (shaped as
   E and P) accumulate: zero them first for the embedding's gradient alone. */
void mha_embed_backward(float *dE, float *dP, const float *dx, const int *tokens, int stride, int S, int T, int d);

/* ---- attention ---- */

/* One head's attention backward: A = softmax(mask(Q_i·K_iᵀ·scale)) as the
   forward left it in att (L×L, masked entries 0), and dout = d loss / d A·V_i
   (L×d_k, rows dout_stride apart). Adds d loss / d Q_i, K_i, V_i into dq, dk
   and dv (each L×d_k at the head's first column; dq's rows grad_stride apart,
   dk's and dv's kv_grad_stride apart, 0 meaning grad_stride).
   head gives Q_i, K_i, V_i, L, d_k, the scale and the mask, as for the forward
   (its `from` must be 0; K_i's and V_i's rows kv_stride apart when it is set).
   With K/V heads shared, call it for each query head of a group on the
   group's dk and dv: they add up to the group's gradient, the sum over the
   query heads that read it. scratch holds L floats. No buffer may overlap
   another (restrict), but dq, dk and dv may be columns of one matrix: q|k|v's
   gradient, as gpt_train.c keeps it. */
void mha_attend_backward(const mha_head_view *head, const float *restrict att, const float *restrict dout, int dout_stride,
                         float *restrict dq, float *restrict dk, float *restrict dv, int grad_stride, int kv_grad_stride,
                         float *restrict scratch);

/* ---- read-out ---- */

/* The cross-entropy -log softmax(z)[want] of one row of n logits z: the row
   maximum subtracted first, the exponentials summed in double. *best (may be NULL) gets the index of
   the largest logit, the first on ties. z becomes grad_scale·(softmax(z) -
   onehot(want)): the row's gradient for a loss that weighs it by grad_scale
   (1/rows for a mean). */
double mha_softmax_cross_entropy(float *z, int n, int want, float grad_scale, int *best);

/* ---- update ---- */

/* The constants of one AdamW step. */
typedef struct mha_adamw {
    float lr, beta1, beta2, eps;
    float correct1, correct2; /* bias corrections 1/(1 - beta1^t), 1/(1 - beta2^t); 1 where the
                                 caller has folded them into lr and eps */
    float grad_scale;         /* the gradient's factor: global-norm clipping's, or 1 */
    float shrink;             /* decoupled weight decay, 1 - lr·decay, or 1 */
} mha_adamw;

/* One step of n parameters w, with gradient g and moments m, v (n floats each;
   w, m, v updated in place): g' = g·grad_scale, m = beta1·m + (1-beta1)·g',
   v = beta2·v + (1-beta2)·g'², w = w·shrink - lr·m·correct1 / (√(v·correct2) + eps). */
void mha_adamw_step(const mha_adamw *step, float *restrict w, float *restrict m, float *restrict v,
                    const float *restrict g, size_t n);

#endif /* MHA_BACKPROP_H */
