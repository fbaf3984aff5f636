/* kernels.c — the fast path of the forward pass: the same maths as plain.c,
   arranged for speed:
   - matrix products run through an MR×NR register tile of SIMD vectors, over
     cache blocks of A read in place and B packed into NR-column panels (or read
     in place when that is cheaper: few rows, whole panels); a product with a
     big matrix's transpose (the logits: a text's rows times the vocabulary's
     embeddings) runs as its own transpose, so the big one is read in place;
   - each head is done a block of MC query rows at a time: that block's scores,
     softmax and A·V, so the scores are reused while still in cache, and under
     the causal mask tiles wholly above the diagonal are never computed;
   - softmax uses a vectorised exp (Cephes' expf polynomial, about 1 ulp).
   GNU vector types become wasm SIMD128 with -msimd128, and natively whatever
   the target has (256-bit with AVX). */
#include "mha_internal.h"
#include "pool.h"

#include <math.h>
#include <string.h>

#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif
#if defined(__AVX__)
#define VW 8 /* floats per vector */
#else
#define VW 4
#endif
typedef float vf __attribute__((vector_size(VW * sizeof(float))));
typedef int vi __attribute__((vector_size(VW * sizeof(float))));

#ifndef MR
#define MR 4         /* rows of the register tile */
#endif
#ifndef NV
#define NV 2         /* vectors across the register tile */
#endif
#define NR (NV * VW) /* columns of the register tile */
#ifndef MC
#define MC 64        /* rows per cache block, and query rows per attention block */
#endif
#ifndef KC
#define KC 256       /* depth per cache block */
#endif
#ifndef PACK_ROWS
#define PACK_ROWS 64 /* products with fewer rows of a read B in place when they can */
#endif

static int imin(int a, int b) { return a < b ? a : b; }
static size_t round_up(int n, int to) { return ((size_t)n + (size_t)to - 1) / (size_t)to * (size_t)to; }

static inline vf vload(const float *p) {
    vf v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline void vstore(float *p, vf v) { memcpy(p, &v, sizeof v); }
static inline vf vsplat(float x) { /* not (vf){0} + x: adding 0 is no no-op for -0, so it stays */
#if VW == 8
    return (vf){x, x, x, x, x, x, x, x};
#else
    return (vf){x, x, x, x};
#endif
}
static inline vf vmax(vf a, vf b) {
#ifdef __wasm_simd128__
    return (vf)wasm_f32x4_pmax((v128_t)a, (v128_t)b); /* b < a ? a : b, one instruction (maxps) */
#else
    const vi a_bigger = a > b;
    return (vf)((a_bigger & (vi)a) | (~a_bigger & (vi)b));
#endif
}
/* acc + a·b. With relaxed SIMD (the -fma builds, see build.sh) one fused multiply-add, rounded once;
   clang 14 emits it as the proposal's early f32x4.fma, which build.sh turns into the standard
   f32x4.relaxed_madd (a·b + acc). Natively gcc fuses acc + a * b itself where the target has FMA. */
static inline vf vmadd(vf a, vf b, vf acc) {
#ifdef __wasm_relaxed_simd__
    return (vf)__builtin_wasm_fma_f32x4(a, b, acc);
#else
    return acc + a * b;
#endif
}
static inline float hsum(vf v) {
    float s = 0.0f;
    for (int i = 0; i < VW; i++) s += v[i];
    return s;
}
static inline float hmax(vf v) {
    float m = v[0];
    for (int i = 1; i < VW; i++) m = v[i] > m ? v[i] : m;
    return m;
}

/* 1 when a[0..n) has no NaN or infinity, i.e. no float with all exponent bits set.
   Two vectors a step, each into its own flags, so the ORs do not wait on each other:
   every forward checks its weights, and this loop was a sixth of a small layer's time. */
static int all_finite(const float *a, size_t n) {
    const vi exponent = (vi){0} + 0x7f800000;
    vi bad0 = (vi){0}, bad1 = bad0;
    size_t i = 0;
    for (; i + 2 * VW <= n; i += 2 * VW) {
        bad0 |= ((vi)vload(a + i) & exponent) == exponent;
        bad1 |= ((vi)vload(a + i + VW) & exponent) == exponent;
    }
    const vi bad = bad0 | bad1;
    int any = 0;
    for (int j = 0; j < VW; j++) any |= bad[j];
    for (; i < n; i++) any |= !isfinite(a[i]);
    return !any;
}

/* e^x for x <= 0, lane by lane: x = n·ln2 + r with |r| <= ln2/2, e^r by Cephes'
   degree-6 polynomial, 2^n put straight into the exponent bits. Below -87.5
   (where e^x is under float's smallest normal) it returns exactly 0: whatever
   the arithmetic gives there (even NaN) is masked off. */
static inline vf vexp(vf x) {
    const vi live = x >= vsplat(-87.5f);
    const vf magic = vsplat(12582912.0f); /* 1.5·2^23: adding it rounds to a whole number */
    const vf t = x * 1.44269504088896341f + magic;
    const vf n = t - magic;
    const vf r = x - n * 0.693359375f - n * -2.12194440e-4f;
    vf p = vsplat(1.9875691500e-4f);
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    const vf y = p * (r * r) + r + 1.0f;
    const vi two_n = ((vi)t - (vi)magic + 127) << 23; /* t's low bits hold n */
    return (vf)((vi)(y * (vf)two_n) & live);
}

ptrdiff_t mha_first_non_finite(const float *a, size_t n) {
    if (all_finite(a, n)) return -1; /* the usual case, in SIMD; else find the first */
    for (size_t i = 0; i < n; i++)
        if (!isfinite(a[i])) return (ptrdiff_t)i;
    return -1;
}

float mha_fast_exp(float x) { return vexp(vsplat(x))[0]; }

/* The same exp on up to VW floats, through one vector: the tail of a row. */
static inline float exp_tail(float *x, int n, float shift, float scale) {
    float lanes[VW];
    for (int i = 0; i < VW; i++) lanes[i] = i < n ? x[i] : shift;
    const vf e = vexp((vload(lanes) - shift) * scale);
    float sum = 0.0f;
    for (int i = 0; i < n; i++) sum += x[i] = e[i];
    return sum;
}

/* row[0..visible) ← softmax(scale · row), row[visible..L) ← 0. */
static void softmax_row(float *row, int visible, int L, float scale) {
    int c = 0;
    float max = row[0];
    if (visible >= VW) {
        vf m = vload(row);
        for (c = VW; c + VW <= visible; c += VW) m = vmax(m, vload(row + c));
        max = hmax(m);
    }
    for (; c < visible; c++) max = row[c] > max ? row[c] : max;
    const vf vmx = vsplat(max);
    vf vsum = vsplat(0.0f);
    for (c = 0; c + VW <= visible; c += VW) {
        const vf e = vexp((vload(row + c) - vmx) * scale);
        vstore(row + c, e);
        vsum += e;
    }
    float sum = hsum(vsum);
    if (c < visible) sum += exp_tail(row + c, visible - c, max, scale);
    const float inv = 1.0f / sum;
    const vf vinv = vsplat(inv);
    for (c = 0; c + VW <= visible; c += VW) vstore(row + c, vload(row + c) * vinv);
    for (; c < visible; c++) row[c] *= inv;
    if (visible < L) memset(row + visible, 0, (size_t)(L - visible) * sizeof *row);
}

/* c (an MR×NR tile, row stride ldc) ← (first ? 0 : c) + a · bp, where a is m <= MR
   rows of kc floats (row stride lda) and bp kc rows of NR floats (row stride ldb:
   NR in a pack_b panel), both read in place. Only rows < m and columns < n of c
   are touched. c_transposed: c holds the tile's transpose, its row j the tile's
   column j (a product written as its transpose, see matmul_part). */
static void kernel(int kc, const float *a, int lda, const float *restrict bp, size_t ldb, float *c, int ldc,
                   int first, int m, int n, int c_transposed) {
    const float *row[MR];
    for (int i = 0; i < MR; i++) row[i] = a + (size_t)(i < m ? i : 0) * lda; /* missing rows repeat row 0 */
    vf acc[MR][NV];
    for (int i = 0; i < MR; i++)
        for (int v = 0; v < NV; v++) acc[i][v] = vsplat(0.0f);
    for (int k = 0; k < kc; k++, bp += ldb) {
        vf b[NV];
        for (int v = 0; v < NV; v++) b[v] = vload(bp + v * VW);
        for (int i = 0; i < MR; i++) {
            const vf ai = vsplat(row[i][k]);
            for (int v = 0; v < NV; v++) acc[i][v] = vmadd(ai, b[v], acc[i][v]);
        }
    }
    if (m == MR && n == NR && !c_transposed) {
        for (int i = 0; i < MR; i++)
            for (int v = 0; v < NV; v++) {
                float *p = c + (size_t)i * ldc + v * VW;
                vstore(p, first ? acc[i][v] : vload(p) + acc[i][v]);
            }
        return;
    }
    float tile[MR * NR];
    for (int i = 0; i < MR; i++)
        for (int v = 0; v < NV; v++) vstore(tile + i * NR + v * VW, acc[i][v]);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            float *p = c_transposed ? c + (size_t)j * ldc + i : c + (size_t)i * ldc + j;
            *p = first ? tile[i * NR + j] : *p + tile[i * NR + j];
        }
}

/* bp ← the k×n matrix whose (r, c) entry is b[r·rs + c·cs], in NR-column panels
   of k×NR, k-major; columns past n are zeros. rs, cs let it pack K_iᵀ from K. */
static void pack_b(float *restrict bp, const float *b, size_t rs, size_t cs, int k, int n) {
    const size_t panel = (size_t)k * NR;
    if (rs == 1) { /* B's columns are contiguous (B = Kᵀ): read them in order, scatter into the panel */
        for (int c = 0; c < n; c++) {
            const float *src = b + (size_t)c * cs;
            float *dst = bp + (size_t)(c / NR) * panel + c % NR;
            for (int r = 0; r < k; r++) dst[(size_t)r * NR] = src[r];
        }
        for (int c = n; c % NR; c++) /* zero the last panel's missing columns */
            for (int r = 0; r < k; r++) bp[(size_t)(c / NR) * panel + (size_t)r * NR + c % NR] = 0.0f;
        return;
    }
    /* Row by row, so b is read in order (a weight's rows are far apart: going down a
       panel's column of them would miss the TLB at every row); the panels are written
       side by side, and stay in cache. */
    const int whole = cs == 1 ? n / NR : 0;
    for (int r = 0; r < k; r++) {
        const float *src = b + (size_t)r * rs;
        float *dst = bp + (size_t)r * NR;
        for (int p = 0; p < whole; p++)
            for (int v = 0; v < NV; v++) vstore(dst + (size_t)p * panel + v * VW, vload(src + (size_t)p * NR + v * VW));
        for (int j0 = whole * NR; j0 < n; j0 += NR) {
            float *to = dst + (size_t)(j0 / NR) * panel;
            const int w = imin(NR, n - j0);
            int j = 0;
            for (; j < w; j++) to[j] = src[(size_t)(j0 + j) * cs];
            for (; j < NR; j++) to[j] = 0.0f;
        }
    }
}

enum { TRI_NONE, TRI_N, TRI_K };

/* c (m×n, row stride ldc) ← a (m×k, row stride lda) · B, B given as panels of NR
   columns, panel p at bp + p·panel, its rows ldb apart: a pack_b of kb rows has
   ldb = NR, panel = kb·NR; a row-major B with n a multiple of NR can be used in
   place with ldb = its row stride, panel = NR. Row i of c is row row0 + i of the
   whole product, and
     TRI_N: only its columns <= row0 + i are wanted (whole tiles beyond are skipped),
     TRI_K: a's row has zeros past column row0 + i (the depth is cut there).
   accumulate: c += the product instead of c ← it.
   c_transposed: c (n×m, row stride ldc) ← the product's transpose.
   Blocks: KC deep × MC rows of a stay in cache while every B panel (KC×NR, in L1)
   passes over them. */
static void gemm(float *c, int ldc, const float *a, int lda, const float *bp, size_t ldb, size_t panel, int m, int k,
                 int n, int tri, int row0, int accumulate, int c_transposed) {
    const int panels = (n + NR - 1) / NR;
    for (int pc = 0; pc < k; pc += KC) {
        const int kc = imin(KC, k - pc);
        for (int ic = 0; ic < m; ic += MC) {
            const int mc = imin(MC, m - ic);
            const int last = row0 + ic + mc - 1; /* the block's last row in the whole product */
            if (tri == TRI_K && pc > last) continue;
            for (int p = 0; p < panels; p++) {
                const int j0 = p * NR;
                if (tri == TRI_N && j0 > last) break;
                const float *bpp = bp + (size_t)p * panel + (size_t)pc * ldb;
                for (int ir = 0; ir < mc; ir += MR) {
                    const int rows = imin(MR, mc - ir), tile_last = row0 + ic + ir + rows - 1;
                    if (tri == TRI_N && j0 > tile_last) continue;
                    const int kk = tri == TRI_K ? imin(kc, tile_last + 1 - pc) : kc;
                    if (kk <= 0) continue; /* only when pc > 0: nothing to add */
                    const size_t i0 = (size_t)(ic + ir);
                    kernel(kk, a + i0 * lda + pc, lda, bpp, ldb, c_transposed ? c + (size_t)j0 * ldc + i0 : c + i0 * ldc + j0,
                           ldc, pc == 0 && !accumulate, rows, imin(NR, n - j0), c_transposed);
                }
            }
        }
    }
}

double mha_fast_scratch_floats(int d, int heads, int max_len) {
    const int dk = d / heads;
    const double w = (double)d * round_up(d, NR);
    const double kv = (double)dk * round_up(max_len, NR) + (double)max_len * round_up(dk, NR);
    return w > kv ? w : kv;
}

/* Columns [j0, j1) of a product, and how a task is cut into such ranges: whole
   NR-column panels, one range per part. */
static void part_columns(int n, int part, int parts, int *j0, int *j1) {
    const int panels = (n + NR - 1) / NR;
    *j0 = (int)((long long)panels * part / parts) * NR;
    *j1 = imin(n, (int)((long long)panels * (part + 1) / parts) * NR);
}

/* Parts for a product of rows×k×n multiply-adds and n columns: one per thread's
   share of the panels when it is worth spreading, else 1. */
static int column_parts(int rows, int k, int n) {
    if (!mha_pool_worth((double)rows * k * n)) return 1;
    const int panels = (n + NR - 1) / NR, parts = 2 * mha_threads(); /* 2 per thread: a busy core holds up less */
    return panels < parts ? panels : parts;
}

typedef struct project_task {
    float *out;
    const float *x, *w;
    int L, d, n;
} project_task;

static void project_part(void *task, int part, int parts, float *scratch) {
    const project_task *t = task;
    int j0, j1;
    part_columns(t->n, part, parts, &j0, &j1);
    if (j0 >= j1) return;
    if (t->n % NR == 0 && t->L < PACK_ROWS) { /* few rows: packing W would cost more than it saves */
        gemm(t->out + j0, t->n, t->x, t->d, t->w + j0, (size_t)t->n, NR, t->L, t->d, j1 - j0, TRI_NONE, 0, 0, 0);
        return;
    }
    pack_b(scratch, t->w + j0, (size_t)t->n, 1, t->d, j1 - j0);
    gemm(t->out + j0, t->n, t->x, t->d, scratch, NR, (size_t)t->d * NR, t->L, t->d, j1 - j0, TRI_NONE, 0, 0, 0);
}

void mha_project_fast(float *out, const float *x, const float *w, int L, int d, int n, float *scratch) {
    project_task task = {out, x, w, L, d, n};
    const int parts = column_parts(L, d, n);
    mha_pool_run(project_part, &task, parts, parts > 1, scratch, (double)d * round_up(n, NR));
}

/* tanh through the vectorised exp: tanh|u| = (1 - e)/(1 + e) with e = e^(-2|u|) <= 1, then u's sign. */
static inline vf vtanh(vf u) {
    const vi sign = (vi){0} + (int)0x80000000u;
    const vf e = vexp((vf)((vi)u & ~sign) * -2.0f);
    return (vf)((vi)((1.0f - e) / (1.0f + e)) | ((vi)u & sign));
}

#define GELU_C 0.7978845608f /* √(2/π) */

static inline vf vgelu(vf x) { return 0.5f * x * (1.0f + vtanh(GELU_C * (x + 0.044715f * x * x * x))); }

static inline vf vgelu_grad(vf x) {
    const vf t = vtanh(GELU_C * (x + 0.044715f * x * x * x));
    return 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * GELU_C * (1.0f + 3 * 0.044715f * x * x);
}

/* The last n < VW floats of x through f, via one zero-padded vector. */
#define TAIL(f, x, n, out_expr)                                             \
    do {                                                                    \
        float lanes[VW] = {0};                                              \
        memcpy(lanes, x, (n) * sizeof(float));                              \
        const vf r = f(vload(lanes));                                       \
        for (size_t t = 0; t < (n); t++) out_expr;                          \
    } while (0)

void mha_gelu_fast(float *out, const float *x, size_t n) {
    size_t i = 0;
    for (; i + VW <= n; i += VW) vstore(out + i, vgelu(vload(x + i)));
    if (i < n) TAIL(vgelu, x + i, n - i, out[i + t] = r[t]);
}

void mha_gelu_backward_fast(float *dy, const float *x, size_t n) {
    size_t i = 0;
    for (; i + VW <= n; i += VW) vstore(dy + i, vload(dy + i) * vgelu_grad(vload(x + i)));
    if (i < n) TAIL(vgelu_grad, x + i, n - i, dy[i + t] *= r[t]);
}

/* Columns of B packed at a time by mha_matmul_fast: bounds its scratch for any n. */
#define NB (16 * NR)

double mha_matmul_scratch_floats(int k) { return (double)k * NB; }

typedef struct matmul_task {
    float *out;
    const float *a, *b;
    int ldo, lda, ldb, b_transposed, rows, k, n, accumulate;
} matmul_task;

static void matmul_part(void *task, int part, int parts, float *scratch) {
    const matmul_task *t = task;
    int j0, j1;
    part_columns(t->n, part, parts, &j0, &j1);
    if (!t->b_transposed && t->n % NR == 0 && t->rows < PACK_ROWS) { /* few rows: B's whole panels read in place */
        if (j0 < j1)
            gemm(t->out + j0, t->ldo, t->a, t->lda, t->b + j0, (size_t)t->ldb, NR, t->rows, t->k, j1 - j0, TRI_NONE, 0,
                 t->accumulate, 0);
        return;
    }
    if (t->b_transposed) {
        /* a · bᵀ as its transpose, b · aᵀ: b's rows read in place, and a's packed, NB rows at a time.
           Packing bᵀ instead would copy all of b at every call (for the logits, the whole vocabulary's
           embeddings, while a text has some tens of rows). The same products summed in the same order,
           so the same bits. */
        if (j0 >= j1) return;
        for (int r0 = 0; r0 < t->rows; r0 += NB) {
            const int rows = imin(NB, t->rows - r0);
            pack_b(scratch, t->a + (size_t)r0 * t->lda, 1, (size_t)t->lda, t->k, rows); /* aᵀ, k×rows */
            gemm(t->out + (size_t)r0 * t->ldo + j0, t->ldo, t->b + (size_t)j0 * t->ldb, t->ldb, scratch, NR,
                 (size_t)t->k * NR, j1 - j0, t->k, rows, TRI_NONE, 0, t->accumulate, 1);
        }
        return;
    }
    for (; j0 < j1; j0 += NB) {
        const int w = imin(NB, j1 - j0);
        pack_b(scratch, t->b + j0, (size_t)t->ldb, 1, t->k, w);
        gemm(t->out + j0, t->ldo, t->a, t->lda, scratch, NR, (size_t)t->k * NR, t->rows, t->k, w, TRI_NONE, 0, t->accumulate,
             0);
    }
}

/* The columns [j0, j1) of one row's product, out (+)= a · b, b read a row at a time, in order, each float
   once: a decoding step's products, which memory's speed bounds. Each column sums its KC-deep blocks as
   kernel() does (from 0, k in order, then added to out), so its bits are gemm's. Whole vectors: b's rows
   are read up to j0 + round_up(j1 - j0, VW), acc holds that many sums (of the block under way). */
static MHA_NOINLINE void gemv(float *out, const float *a, const float *b, size_t ldb, int k, int j0, int j1,
                              int accumulate, float *acc) {
    const int w = j1 - j0, wv = (int)round_up(w, VW);
    for (int pc = 0; pc < k; pc += KC) {
        const int kc = imin(KC, k - pc);
        memset(acc, 0, (size_t)wv * sizeof *acc);
        for (int kk = 0; kk < kc;) {
            const float *r = b + (size_t)(pc + kk) * ldb + j0;
            const vf x0 = vsplat(a[pc + kk]);
            if (kc - kk >= 4) { /* four rows of b at a time, each column's sum still in order */
                const vf x1 = vsplat(a[pc + kk + 1]), x2 = vsplat(a[pc + kk + 2]), x3 = vsplat(a[pc + kk + 3]);
                const float *r1 = r + ldb, *r2 = r1 + ldb, *r3 = r2 + ldb;
#ifdef __clang__ /* not unrolled further: memory bounds it, and each copy is wasm to download */
#pragma clang loop unroll(disable)
#endif
                for (int j = 0; j < wv; j += VW)
                    vstore(acc + j, vmadd(x3, vload(r3 + j), vmadd(x2, vload(r2 + j),
                                          vmadd(x1, vload(r1 + j), vmadd(x0, vload(r + j), vload(acc + j))))));
                kk += 4;
            } else {
#ifdef __clang__
#pragma clang loop unroll(disable)
#endif
                for (int j = 0; j < wv; j += VW) vstore(acc + j, vmadd(x0, vload(r + j), vload(acc + j)));
                kk++;
            }
        }
        float *o = out + j0;
        const int first = pc == 0 && !accumulate;
#ifdef __clang__ /* a few hundred floats: left as they are, the loop is half the wasm of gemv */
#pragma clang loop vectorize(disable) unroll(disable)
#endif
        for (int j = 0; j < w; j++) o[j] = first ? acc[j] : o[j] + acc[j];
    }
}

static void gemv_part(void *task, int part, int parts, float *scratch) {
    const matmul_task *t = task;
    int j0, j1;
    part_columns(t->n, part, parts, &j0, &j1);
    if (j0 < j1) gemv(t->out, t->a, t->b, (size_t)t->ldb, t->k, j0, j1, t->accumulate, scratch);
}

void mha_matmul_fast(float *out, int ldo, const float *a, int lda, const float *b, int ldb, int b_transposed, int rows,
                     int k, int n, int accumulate, float *scratch) {
    if (rows < 1) return; /* nothing to pack B for (a forward that reuses every row) */
    matmul_task task = {out, a, b, ldo, lda, ldb, b_transposed, rows, k, n, accumulate};
    if (rows == 1 && !b_transposed && n % VW == 0 && n <= mha_matmul_scratch_floats(k)) {
        const int parts = column_parts(4, k, n); /* bound by reading its weights: worth sharing from a quarter of the size */
        mha_pool_run(gemv_part, &task, parts, parts > 1, scratch, mha_matmul_scratch_floats(k));
        return;
    }
    const int parts = column_parts(rows, k, n);
    mha_pool_run(matmul_part, &task, parts, parts > 1, scratch, mha_matmul_scratch_floats(k));
}

/* A weight B (k×n) kept as its NR-column panels, each k×NR with its rows in order: the layout pack_b
   writes, so a product reads it in place, and a decoding step's one-row product reads it front to back.
   Row-major, a step's product read a few of B's rows at a time, far apart: half of memory's speed here. */
int mha_panel_columns(void) { return NR; }

void mha_to_panels(float *bp, const float *b, int k, int n) { pack_b(bp, b, (size_t)n, 1, k, n); }

void mha_from_panels(float *b, const float *bp, int k, int n) {
    for (int r = 0; r < k; r++)
        for (int j = 0; j < n; j += NR) memcpy(b + (size_t)r * n + j, bp + (size_t)j * k + (size_t)r * NR, NR * sizeof *b);
}

/* out[0..w) (+)= a · w/NR panels of k×NR at bp: one row's product, every weight read once, in memory's order,
   the sums in registers. Each column sums its KC-deep blocks as kernel() does, so its bits are gemm's. */
static MHA_NOINLINE void gemv_panels(float *out, const float *a, const float *bp, int k, int w, int accumulate) {
    for (int j = 0; j < w; j += NR) {
        for (int pc = 0; pc < k; pc += KC) {
            const int kc = imin(KC, k - pc);
            vf s[NV];
            for (int v = 0; v < NV; v++) s[v] = vsplat(0.0f);
            for (int kk = 0; kk < kc; kk++, bp += NR) {
                const vf x = vsplat(a[pc + kk]);
                for (int v = 0; v < NV; v++) s[v] = vmadd(x, vload(bp + v * VW), s[v]);
            }
            const int first = pc == 0 && !accumulate;
            for (int v = 0; v < NV; v++) vstore(out + j + v * VW, first ? s[v] : vload(out + j + v * VW) + s[v]);
        }
    }
}

static void panels_part(void *task, int part, int parts, float *scratch) {
    (void)scratch;
    const matmul_task *t = task;
    int j0, j1;
    part_columns(t->n, part, parts, &j0, &j1);
    if (j0 >= j1) return;
    const float *bp = t->b + (size_t)j0 * t->k;
    if (t->rows == 1) gemv_panels(t->out + j0, t->a, bp, t->k, j1 - j0, t->accumulate);
    else gemm(t->out + j0, t->ldo, t->a, t->lda, bp, NR, (size_t)t->k * NR, t->rows, t->k, j1 - j0, TRI_NONE, 0, t->accumulate, 0);
}

void mha_matmul_panels(float *out, int ldo, const float *a, int lda, const float *bp, int rows, int k, int n, int accumulate) {
    if (rows < 1) return;
    matmul_task task = {out, a, bp, ldo, lda, NR, 0, rows, k, n, accumulate};
    const int parts = column_parts(rows == 1 ? 4 : rows, k, n); /* one row: bound by reading its weights (see mha_matmul_fast) */
    mha_pool_run(panels_part, &task, parts, parts > 1, NULL, 0);
}

typedef struct dot_task {
    float *out;
    const float *a, *b;
    int ldb, k, n;
} dot_task;

/* Rows [i0, i1) of b, each a dot product with a over four vector sums (k a multiple of 4·VW). */
static void dot_part(void *task, int part, int parts, float *scratch) {
    (void)scratch;
    const dot_task *t = task;
    const int i0 = (int)((long long)t->n * part / parts), i1 = (int)((long long)t->n * (part + 1) / parts);
    for (int i = i0; i < i1; i++) {
        const float *r = t->b + (size_t)i * t->ldb;
        vf s[4];
        for (int q = 0; q < 4; q++) s[q] = vsplat(0.0f);
        for (int c = 0; c < t->k; c += 4 * VW)
            for (int q = 0; q < 4; q++) s[q] = vmadd(vload(t->a + c + q * VW), vload(r + c + q * VW), s[q]);
        t->out[i] = hsum((s[0] + s[1]) + (s[2] + s[3]));
    }
}

void mha_dot_rows(float *out, const float *a, const float *b, int ldb, int k, int n) {
    dot_task task = {out, a, b, ldb, k, n};
    const int parts = mha_pool_worth(4.0 * k * n) ? 2 * mha_threads() : 1;
    mha_pool_run(dot_part, &task, parts, parts > 1, NULL, 0);
}

/* A block of MC query rows at a time, from head->from: scores into the head's
   attention rows, softmax in place, then those rows times V_i. Each output is
   a sum in the same order whatever rows share its tile (a tile cut further
   down under the causal mask only adds exact zeros), so a row's bits do not
   depend on where the blocks start. */
int mha_attend_fast(const mha_head_view *head, float *a, float *out, float *scratch) {
    const int L = head->len, d = head->stride, dk = head->dk, causal = head->causal;
    const int kvd = head->kv_stride ? head->kv_stride : d, ld = head->att_stride ? head->att_stride : L;
    const float scale = head->scale;
    float *kt = scratch, *vp = kt + (size_t)dk * round_up(L, NR);
    /* one new row against kept keys (a decoding step): its scores and A·V are products of one row, read in place */
    const int one = head->kt && head->from == L - 1 && dk % VW == 0;
    const size_t kt_ldb = head->kt ? head->kt_stride : NR, kt_panel = head->kt ? NR : (size_t)dk * NR;
    const float *ktb = head->kt; /* read in place, or */
    if (!ktb) pack_b(kt, head->k, 1, (size_t)kvd, dk, L), ktb = kt; /* K_iᵀ, dk×L */
    const int v_in_place = dk % NR == 0 && L < PACK_ROWS; /* short V_i of whole panels: read in place */
    if (!v_in_place && !one) pack_b(vp, head->v, (size_t)kvd, 1, L, dk); /* V_i, L×dk */
    const float *vb = v_in_place ? head->v : vp;
    const size_t v_ldb = v_in_place ? (size_t)kvd : NR, v_panel = v_in_place ? NR : (size_t)L * NR;
    const int tri_n = causal ? TRI_N : TRI_NONE, tri_k = causal ? TRI_K : TRI_NONE;
    for (int r0 = head->from; r0 < L; r0 += MC) {
        const int rows = imin(MC, L - r0), seen = causal ? r0 + rows : L;
        float *block = a + (size_t)r0 * ld;
        if (one) gemv(block, head->q + (size_t)r0 * d, ktb, kt_ldb, dk, 0, seen, 0, vp); /* vp: its sums */
        else gemm(block, ld, head->q + (size_t)r0 * d, d, ktb, kt_ldb, kt_panel, rows, dk, seen, tri_n, r0, 0, 0);
        for (int r = 0; r < rows; r++) {
            const int visible = causal ? r0 + r + 1 : L;
            if (mha_first_non_finite(block + (size_t)r * ld, (size_t)visible) >= 0) return r0 + r;
            softmax_row(block + (size_t)r * ld, visible, L, scale);
        }
        if (one) gemv(out + (size_t)r0 * dk, block, head->v, (size_t)kvd, seen, 0, dk, 0, vp);
        else gemm(out + (size_t)r0 * dk, dk, block, ld, vb, v_ldb, v_panel, rows, seen, dk, tri_k, r0, 0, 0);
    }
    return -1;
}

void mha_scores_fast(const mha_head_view *head, float *scores, float *scratch) {
    const int L = head->len, d = head->stride, dk = head->dk;
    const float scale = head->scale;
    pack_b(scratch, head->k, 1, (size_t)(head->kv_stride ? head->kv_stride : d), dk, L); /* K_iᵀ, dk×L */
    gemm(scores, L, head->q, d, scratch, NR, (size_t)dk * NR, L, dk, L, TRI_NONE, 0, 0, 0);
    if (scale != 1.0f) {
        const size_t n = (size_t)L * L;
        const vf vscale = vsplat(scale);
        size_t i = 0;
        for (; i + VW <= n; i += VW) vstore(scores + i, vload(scores + i) * vscale);
        for (; i < n; i++) scores[i] *= scale;
    }
}

