/* mha_internal.h — what the modules of c/lib share, not part of the public API
   (c/README.md maps the modules). */
#ifndef MHA_INTERNAL_H
#define MHA_INTERNAL_H

#include "mha.h"

/* A function kept out of line: one copy of code that runs once a call, not one
   in each caller (every byte of the wasm is downloaded with each widget). */
#if defined(__GNUC__)
#define MHA_NOINLINE __attribute__((noinline))
#else
#define MHA_NOINLINE
#endif

/* Records the status, the sentence mha_last_error() returns and no place, and
   returns `status`: the one place every module says why a call failed. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
mha_status mha_fail(mha_status status, const char *fmt, ...);

/* mha_fail that also records where (mha_last_error_place). */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
mha_status mha_fail_at(mha_status status, mha_error_place place, const char *fmt, ...);

/* d_model and heads positive, and heads divides d_model; else BAD_SIZE or HEADS_NOT_DIVISOR. */
mha_status mha_check_heads(int d_model, int heads);

/* kv_heads from 0 (= heads) to heads, dividing heads; else BAD_SIZE or
   KV_HEADS_NOT_DIVISOR. Returns the status; *out gets h_kv (heads for 0). */
mha_status mha_check_kv_heads(int heads, int kv_heads, int *out);

/* The index of the first NaN or infinity in a[0..n), or -1 (SIMD). */
ptrdiff_t mha_first_non_finite(const float *a, size_t n);

/* out (rows×n) = a (rows×m) · b (m×n), row-major, with plain loops: the
   readable reference product (the fast kernels are checked against it). */
void mha_matmul_plain(float *out, const float *a, const float *b, int rows, int m, int n);

/* One head of attention over L×d matrices Q, K, V, row-major: q, k and v point
   at the head's first column (column head·d_k), rows `stride` (d) floats apart. */
typedef struct mha_head_view {
    const float *q, *k, *v;
    int stride, len, dk; /* d, L, d_k */
    int kv_stride;       /* floats between rows of k and v; 0: stride (K/V heads not shared) */
    float scale;         /* 1/√d_k, or 1 */
    int causal;          /* row r sees columns c <= r only */
    int from;            /* the first query row computed (0: all); att's and out's rows before it are left as they are */
    int att_stride;      /* floats between rows of att; 0: len (a decoding model keeps its maps at its longest
                            length, so a new row never moves the old ones) */
    const float *kt;     /* K_iᵀ already laid out, d_k rows kt_stride floats apart (a multiple of MHA_KT_ALIGN,
                            at least len), as a decoding model keeps it; NULL: packed from k */
    size_t kt_stride;
} mha_head_view;

/* What a kept K_iᵀ's rows are rounded up to: the widest register tile's columns (kernels.c's NR). */
#define MHA_KT_ALIGN 16

/* The heads of `sequences` sequences of L rows each: head i of sequence s is
   part s·heads + i, its q, k and v at column i·d_k of the sequence's rows. */
typedef struct mha_heads {
    const float *q, *k, *v;       /* sequence 0's first row */
    int stride;                   /* floats from one row of q, k, v to the next */
    size_t seq_stride;            /* and from one sequence to the next */
    int kv_heads, kv_stride;      /* K/V heads shared by groups of query heads (head i reads group
                                     i·kv_heads/heads, at column group·d_k of k and v, rows kv_stride
                                     apart); 0 and 0: heads and stride, one K/V head a query head */
    int heads, dk, len, from;     /* query rows from .. L-1 are computed, as in mha_head_view */
    float scale;
    int causal;
    float *att;                   /* a part's weights at att + part·A·A, rows A apart: A = att_stride, or L when 0 */
    int att_stride;
    const float *kt;              /* one sequence's K_iᵀ kept, head i's at kt + i·d_k·kt_stride, or NULL (mha_head_view) */
    size_t kt_stride;
    float *out;                   /* a part's output (L×d_k) at out + part·L·d_k, or NULL: in its scratch */
    float *concat;                /* sequence s's row r at concat + (s·L + r)·heads·d_k; a head's columns
                                     hold its output, or zeros when it is switched off */
    const unsigned char *enabled; /* heads flags (1 on, 0 off), or NULL: all on */
    int plain;                    /* the plain loops, not the kernels */
} mha_heads;

/* Every head of every sequence, spread over the pool when `spread`. scratch
   (and each pool thread's) holds what the kernels need,
   mha_fast_scratch_floats(d_k, 1, L) (the plain loops need none), and L·d_k
   floats more when out is NULL. Returns -1, or part·L + row of the first query
   row whose scores are not finite (that part stops there). The layer's
   forward, the GPT model's and the trainer's all run their heads here. */
long long mha_attend_heads(const mha_heads *heads, int sequences, int spread, float *scratch, double scratch_floats);

/* The head's weights att (L×L; masked entries exactly 0) and output out =
   att·V_i (L×d_k, rows out_stride apart), for query rows from .. L-1. Returns
   the first query row whose scores are not finite (then stops), or -1. Plain
   loops. A row's numbers do not depend on which other rows are computed with
   it, in either version: computing rows from a later `from` gives the same
   bits as computing them all. */
int mha_attend_plain(const mha_head_view *head, float *att, float *out, int out_stride);

/* The same with the fast kernels; out rows are d_k apart; scratch holds
   mha_fast_scratch_floats floats. */
int mha_attend_fast(const mha_head_view *head, float *att, float *out, float *scratch);

/* The head's whole L×L scores (scaled, no mask) into scores. */
void mha_scores_plain(const mha_head_view *head, float *scores);
void mha_scores_fast(const mha_head_view *head, float *scores, float *scratch);

/* out (L×n) = x (L×d) · w (d×n), n <= d, with the fast kernels (n = d: the
   square projections; n = h_kv·d_k: K and V when their heads are shared). */
void mha_project_fast(float *out, const float *x, const float *w, int L, int d, int n, float *scratch);

/* out (rows×n, rows ldo apart) = (accumulate ? out : 0) + a (rows×k, rows lda
   apart) · B, with the fast kernels. B (k×n) is b row-major with rows ldb
   apart, or, when b_transposed, bᵀ for b n×k with rows ldb apart (a product
   with a weight's transpose: the logits, and a backward pass). scratch holds
   mha_matmul_scratch_floats(k) floats, whatever n is. A row's bits do not
   depend on the other rows of the call, nor on the threads. */
void mha_matmul_fast(float *out, int ldo, const float *a, int lda, const float *b, int ldb, int b_transposed, int rows,
                     int k, int n, int accumulate, float *scratch);
double mha_matmul_scratch_floats(int k);

/* A weight kept as panels (a model's matrices, see gpt_model_pack): B (k×n, n a multiple of
   mha_panel_columns()) as n/NR panels of k×NR, each panel's rows in order, panel p at p·k·NR.
   mha_matmul_panels is mha_matmul_fast with B so: the same bits, its panels read in place. */
int  mha_panel_columns(void);
void mha_to_panels(float *bp, const float *b, int k, int n);
void mha_from_panels(float *b, const float *bp, int k, int n);
void mha_matmul_panels(float *out, int ldo, const float *a, int lda, const float *bp, int rows, int k, int n, int accumulate);

/* out[j] = a · row j of b (n rows of k floats, ldb apart; k a multiple of 32): a product with a big matrix's
   transpose for one row (a decoding step's logits), each row of b read once, in order. Its sums run in another
   order than mha_matmul_fast's (four vector sums, then across them), so the bits may differ from its by an ulp
   or so. */
void mha_dot_rows(float *out, const float *a, const float *b, int ldb, int k, int n);

/* GPT-2's GELU, 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), of n floats
   (out may be x), and its backward dy ← dy·GELU'(x), with the vectorised exp. */
void mha_gelu_fast(float *out, const float *x, size_t n);
void mha_gelu_backward_fast(float *dy, const float *x, size_t n);

/* Floats of scratch the fast kernels need for a layer of this shape: a packed
   W (d×d), or a head's K_iᵀ and V_i together. */
double mha_fast_scratch_floats(int d, int heads, int max_len);

/* One lane of the softmax's vectorised exp, for test_kernels.c to measure. */
float mha_fast_exp(float x);

#endif /* MHA_INTERNAL_H */
