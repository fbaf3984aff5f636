/* mha.h — multi-head attention, the core of the interactive lesson.

   OVERVIEW
   One layer of multi-head attention as "Attention Is All You Need" defines it
   (the lesson's section 五):

       MultiHead(Q,K,V) = Concat(head_1 .. head_h) · W^O
       head_i           = softmax(mask(Q_i · K_iᵀ / sqrt(d_k))) · V_i

   Two ways in:
     projection mode: X (L×d) is given with W_q, W_k, W_v (d×d each, numpy's
                      `X @ W` convention); Q = X·W_q, K = X·W_k, V = X·W_v.
     QKV mode:        Q, K, V (L×d each) are given directly, as in the lesson's
                      hand-worked 猫吃鱼 table.
   Either way the columns of Q, K, V are split into h heads of d_k = d/h
   columns (head i owns columns i·d_k .. i·d_k+d_k-1), each head runs its own
   scaled dot-product attention, the h outputs are concatenated back to L×d and
   multiplied by W^O (d×d; NULL means the identity).
   Every intermediate stays in the layer so a page can draw it.

   SHARED K AND V (multi-query and grouped-query attention)
   With kv_heads = h_kv below h, K and V have h_kv heads of d_k columns
   (L×(h_kv·d_k); W_k and W_v are d×(h_kv·d_k)) and query head i reads K/V
   group ⌊i·h_kv/h⌋ (mha_layer_kv_group): h_kv = 1 is multi-query attention,
   1 < h_kv < h grouped-query, h_kv = h (or 0) the multi-head attention above,
   computed by the very same steps. h_kv must divide h (KV_HEADS_NOT_DIVISOR).

   EXAMPLE
       mha_desc desc = { .d_model = 4, .heads = 2, .max_len = 3 };
       mha_layer *layer;
       if (mha_layer_create(&desc, &layer) != MHA_OK) puts(mha_last_error());
       mha_input in = { .len = 3, .q = q, .k = k, .v = v,
                        .flags = MHA_SCALE };          // no causal mask
       if (mha_forward(layer, &in) != MHA_OK) puts(mha_last_error());
       const float *a0;                                // head 0's 3×3 weights
       mha_tensor(layer, MHA_T_ATTENTION, 0, &a0);
       mha_layer_destroy(layer);

   MEMORY
   mha_layer_create allocates every buffer the layer will ever need, sized for
   max_len; mha_forward and mha_tensor allocate nothing. Pointers handed out by
   mha_tensor belong to the layer and hold the result of the last forward; the
   MHA_T_SCORES buffer is shared by all heads and is overwritten by the next
   mha_tensor(MHA_T_SCORES) call. The inputs (mha_input) stay the caller's and
   are only read during mha_forward.

   ERRORS
   Functions that can fail return an mha_status; nothing aborts or exits on
   bad input. MHA_OK is 0; mha_last_status() is the last failing call's status.
   mha_status_name() gives a stable code such as
   "HEADS_NOT_DIVISOR"; mha_last_error() gives a sentence naming the values
   involved ("heads 7 does not divide d_model 768"), valid until the next
   failing call. For NOT_FINITE, mha_last_error_place() also says where, as
   numbers a page can translate: which input or stage, and the (0-based) head,
   row and column. A forward that fails leaves no result (NO_FORWARD until the
   next good one). Besides it the library keeps only its thread pool (THREADS).

   NUMBERS
   float32 storage and arithmetic; softmax subtracts the row maximum. Finite
   inputs give finite results or fail with NOT_FINITE: the projections, each
   head's scores, its output and the output are checked for float32 overflow
   (beyond ±3.4e38); a head's scores asked for after a causal forward
   (MHA_T_SCORES) are checked again, since the masked half was not computed
   before. Masked
   weights are exactly 0; each row of weights sums to 1 within 1e-5. Sizes:
   anything whose buffers fit MHA_MAX_LAYER_BYTES (GPT-2's layer, d 768, h 12,
   L 1024, needs about 95 MB; d 1024, h 64, L 2048 about 1.2 GB).

   SPEED
   mha_forward runs cache-blocked SIMD kernels (wasm SIMD128, or the native
   target's vectors) and, under MHA_CAUSAL, never computes the masked half; its
   softmax uses a polynomial exp within about 1 ulp of expf. MHA_PLAIN runs the
   plain loops instead, the readable reference the kernels are tested against;
   the two agree to float rounding. (Toy sizes such as the lesson's 3 tokens ×
   4 dims take the plain loops anyway: faster there.)

   THREADS
   mha_set_threads(n) starts n-1 threads that share the big steps of every
   forward (layers, models and their training) with the calling thread: the
   matrix products by columns, the heads by head. Steps under about a million
   multiply-adds stay on the calling thread, so small shapes pay nothing. The
   results do not depend on n (each output is computed by one thread, in the
   same order). Each thread owns a scratch buffer sized for the largest layer or
   model created so far: creating one may grow them, a forward never does. Calls
   into the library must still come from one thread at a time. A build without
   threads (the single-threaded wasm core) accepts only n = 1. */
#ifndef MHA_H
#define MHA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mha_status {
    MHA_OK = 0,
    MHA_ERR_NULL_ARGUMENT,     /* a required pointer was NULL */
    MHA_ERR_BAD_SIZE,          /* d_model, heads, max_len or len not positive */
    MHA_ERR_HEADS_NOT_DIVISOR, /* heads does not divide d_model */
    MHA_ERR_TOO_LARGE,         /* the buffers would exceed MHA_MAX_LAYER_BYTES */
    MHA_ERR_OUT_OF_MEMORY,     /* malloc failed */
    MHA_ERR_SEQ_TOO_LONG,      /* len > max_len */
    MHA_ERR_NOT_FINITE,        /* NaN or ±Infinity in an input, or a stage
                                  that overflows float32 (q·k too large) */
    MHA_ERR_BAD_INPUT,         /* both or neither of x and q given, or a missing weight */
    MHA_ERR_HEAD_INDEX,        /* head outside 0 .. heads-1 */
    MHA_ERR_NO_FORWARD,        /* a result was asked for before any forward */
    MHA_ERR_BAD_MODEL,         /* a model file (gpt.h) that is broken, misshaped or not finite */
    MHA_ERR_TOKEN_RANGE,       /* a token id < 0 or >= the model's vocabulary */
    MHA_ERR_KV_HEADS_NOT_DIVISOR, /* kv_heads does not divide heads (or exceeds it) */
    MHA_STATUS_COUNT
} mha_status;

/* Upper bound on what one layer may allocate (1.75 GiB): keeps a 32-bit wasm
   heap usable and makes the limit the same natively. */
#define MHA_MAX_LAYER_BYTES ((double)(7u << 28))

typedef struct mha_desc {
    int d_model; /* width of one token vector, d */
    int heads;   /* h; must divide d_model */
    int max_len; /* longest sequence a forward will take, L_max */
    int kv_heads;/* h_kv, the heads of K and V: divides heads; 0 = heads (plain
                    multi-head), 1 = multi-query, between = grouped-query */
} mha_desc;

enum mha_flags {
    MHA_CAUSAL = 1, /* position r attends only to positions c <= r */
    MHA_SCALE = 2,  /* divide scores by sqrt(d_k) */
    MHA_PLAIN = 4   /* run the plain reference loops instead of the fast SIMD
                       kernels: same results to float rounding, much slower;
                       for tests that compare the two */
};

typedef struct mha_input {
    int len;                     /* L, 1 .. max_len */
    const float *x;              /* projection mode: L×d ... */
    const float *wq, *wk, *wv;   /* ... with weights wq d×d, wk and wv d×(h_kv·d_k) */
    const float *q, *k, *v;      /* QKV mode: q L×d, k and v L×(h_kv·d_k) (x must be NULL) */
    const float *wo;             /* d×d, NULL = identity */
    unsigned flags;              /* MHA_CAUSAL | MHA_SCALE | MHA_PLAIN */
    const unsigned char *enabled;/* h entries, 0 = head switched off; NULL = all on */
} mha_input;

typedef enum mha_tensor_id {
    MHA_T_Q,          /* L×d   projected (or given) queries */
    MHA_T_K,          /* L×(h_kv·d_k): L×d unless K/V heads are shared */
    MHA_T_V,          /* L×(h_kv·d_k) */
    MHA_T_SCORES,     /* L×L   head's scaled scores before the mask (recomputed on request) */
    MHA_T_ATTENTION,  /* L×L   head's softmax weights; masked entries exactly 0 */
    MHA_T_HEAD,       /* L×d_k head's output A_i·V_i (computed even when switched off) */
    MHA_T_CONCAT,     /* L×d   heads side by side; switched-off heads give zeros */
    MHA_T_OUTPUT      /* L×d   concat · W^O */
} mha_tensor_id;

typedef struct mha_layer mha_layer;

mha_status mha_layer_create(const mha_desc *desc, mha_layer **out);
void       mha_layer_destroy(mha_layer *layer); /* NULL is fine */
int        mha_layer_len(const mha_layer *layer); /* L of the last forward, 0 before */
int        mha_layer_kv_heads(const mha_layer *layer); /* h_kv (h when not shared), 0 for NULL */
/* The K/V group query head `head` reads, ⌊head·h_kv/h⌋ (head itself when h_kv = h). */
mha_status mha_layer_kv_group(const mha_layer *layer, int head, int *group);

mha_status mha_forward(mha_layer *layer, const mha_input *in);
/* Drops the last forward's results, as a failed forward does (NO_FORWARD until
   the next one): for a caller whose own checks refused a forward. */
void       mha_layer_forget(mha_layer *layer); /* NULL is fine */
mha_status mha_tensor(mha_layer *layer, mha_tensor_id id, int head, const float **out);

/* The lesson's parameter bill (section 一), as doubles so wasm returns them whole:
   naive = h · 3 · d²  (h full sets of W_q, W_k, W_v)
   split = 3 · d² + d² (split W_q, W_k, W_v, plus W^O) */
mha_status mha_param_count(int d_model, int heads, double *naive, double *split);

/* The bill of a layer whose K and V have kv_heads heads (0 = heads), each
   weight counted apart, and the key-value cache a token costs: what a page
   shows for multi-query and grouped-query attention. */
typedef struct mha_param_bill {
    double naive, split;   /* as mha_param_count (split = wq + wk + wv + wo) */
    double wq, wk, wv, wo; /* d², d·h_kv·d_k, d·h_kv·d_k, d² */
    double kv_cache_bytes; /* per token and layer: 2 · h_kv · d_k · bytes_per_value */
} mha_param_bill;
/* bytes_per_value: 4 for float32 (this core's storage), 2 for float16; 1 to 64. */
mha_status mha_param_bill_count(int d_model, int heads, int kv_heads, int bytes_per_value, mha_param_bill *bill);

/* Threads sharing each forward, the caller included: 1 to MHA_MAX_THREADS
   (BAD_SIZE otherwise, or above 1 in a build without threads; OUT_OF_MEMORY
   when the system gives fewer, and then 1 thread). */
#define MHA_MAX_THREADS 64
mha_status mha_set_threads(int threads);
int        mha_threads(void); /* 1 until mha_set_threads */
/* 1 when a layer of these sizes has a step big enough to share (with more than
   one thread), else 0: a host with a single-threaded build at hand can run the
   others there (web/src/layer.js does: the threaded wasm's shared memory makes
   small forwards slower). */
int        mha_layer_may_thread(int d_model, int max_len);

const char *mha_status_name(mha_status status);
mha_status  mha_last_status(void);
const char *mha_last_error(void);

/* Where the last failure was found, for NOT_FINITE: `name` is an input ("x",
   "q", "wk", …) or a computed stage that overflowed ("q", "k", "v" as
   projected, "scores", "head output", "output"); head,
   row and column are 0-based, -1 where they do not apply. After any other
   failure name is NULL and the numbers are -1. */
typedef struct mha_error_place {
    const char *name;
    int head, row, column;
} mha_error_place;
const mha_error_place *mha_last_error_place(void);

#ifdef __cplusplus
}
#endif
#endif /* MHA_H */
