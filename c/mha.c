/* mha.c — the forward pass of multi-head attention; see mha.h for the manual. */
#include "mha.h"
#include "mha_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mha_layer {
    int d, h, dk, max_len;
    int len;                  /* L of the last forward, 0 before */
    unsigned flags;           /* flags of the last forward */
    /* staging, owned by the layer, free for the caller to fill */
    float *staging[MHA_SLOT_ENABLED]; /* X_OR_Q, K, V: max_len×d; WQ..WO: d×d */
    unsigned char *enabled_staging;   /* h */
    /* results of the last forward, packed for its L */
    float *q, *k, *v;         /* L×d */
    float *attention;         /* h×L×L, head i at attention + i·L·L */
    float *heads;             /* h×L×d_k, head i at heads + i·L·d_k */
    float *concat;            /* L×d */
    float *output;            /* L×d */
    float *scores;            /* L×L scratch for mha_tensor(MHA_T_SCORES) */
    float *pack_b;            /* kernel scratch: a whole B in NR-column panels */
    float *block;             /* the one allocation every buffer above lives in */
};

static _Thread_local char last_error[256];
static _Thread_local mha_error_place last_place = {NULL, -1, -1, -1};

mha_status mha_fail(mha_status status, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, args);
    va_end(args);
    last_place = (mha_error_place){NULL, -1, -1, -1};
    return status;
}

mha_status mha_fail_at(mha_status status, mha_error_place place, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, args);
    va_end(args);
    last_place = place;
    return status;
}

const char *mha_last_error(void) { return last_error; }
const mha_error_place *mha_last_error_place(void) { return &last_place; }

const char *mha_status_name(mha_status status) {
    static const char *const names[MHA_STATUS_COUNT] = {
        "OK",          "NULL_ARGUMENT", "BAD_SIZE",     "HEADS_NOT_DIVISOR",
        "TOO_LARGE",   "OUT_OF_MEMORY", "SEQ_TOO_LONG", "NOT_FINITE",
        "BAD_INPUT",   "HEAD_INDEX",    "NO_FORWARD",
    };
    return (unsigned)status < MHA_STATUS_COUNT ? names[status] : "UNKNOWN";
}

static mha_status check_shape(int d_model, int heads) {
    if (d_model <= 0) return mha_fail(MHA_ERR_BAD_SIZE, "d_model must be a positive whole number, got %d", d_model);
    if (heads <= 0) return mha_fail(MHA_ERR_BAD_SIZE, "heads must be a positive whole number, got %d", heads);
    if (d_model % heads != 0)
        return mha_fail(MHA_ERR_HEADS_NOT_DIVISOR,
                    "heads %d does not divide d_model %d (d_k = d_model / heads must be a whole number)",
                    heads, d_model);
    return MHA_OK;
}

mha_status mha_param_count(int d_model, int heads, double *naive, double *split) {
    if (!naive || !split) return mha_fail(MHA_ERR_NULL_ARGUMENT, "mha_param_count needs two output pointers");
    mha_status status = check_shape(d_model, heads);
    if (status != MHA_OK) return status;
    double d = d_model;
    *naive = heads * 3.0 * d * d;
    *split = 3.0 * d * d + d * d;
    return MHA_OK;
}

static double pack_b_floats(int d, int heads, int max_len);

mha_status mha_layer_create(const mha_desc *desc, mha_layer **out) {
    if (!desc || !out) return mha_fail(MHA_ERR_NULL_ARGUMENT, "mha_layer_create needs a desc and an output pointer");
    *out = NULL;
    mha_status status = check_shape(desc->d_model, desc->heads);
    if (status != MHA_OK) return status;
    if (desc->max_len <= 0)
        return mha_fail(MHA_ERR_BAD_SIZE, "maxLen must be a positive whole number, got %d", desc->max_len);

    /* Count in double: size_t is 32 bits in wasm and these products overflow it. */
    double d = desc->d_model, h = desc->heads, n = desc->max_len;
    double floats = 3 * n * d      /* staging X_OR_Q, K, V */
                  + 4 * d * d      /* staging WQ, WK, WV, WO */
                  + 3 * n * d      /* Q, K, V */
                  + h * n * n      /* attention */
                  + n * d          /* heads (h × L × d_k) */
                  + 2 * n * d      /* concat, output */
                  + n * n          /* scores scratch */
                  + pack_b_floats(desc->d_model, desc->heads, desc->max_len);
    double bytes = floats * sizeof(float) + h + sizeof(mha_layer);
    if (bytes > MHA_MAX_LAYER_BYTES)
        return mha_fail(MHA_ERR_TOO_LARGE,
                    "d_model %d, heads %d, maxLen %d would need %.0f MB, more than the %.0f MB one layer may use",
                    desc->d_model, desc->heads, desc->max_len, bytes / 1e6, MHA_MAX_LAYER_BYTES / 1e6);

    mha_layer *layer = calloc(1, sizeof *layer);
    float *block = layer ? malloc((size_t)floats * sizeof(float) + (size_t)desc->heads) : NULL;
    if (!block) {
        free(layer);
        return mha_fail(MHA_ERR_OUT_OF_MEMORY, "not enough memory for d_model %d, heads %d, maxLen %d (%.0f MB)",
                    desc->d_model, desc->heads, desc->max_len, bytes / 1e6);
    }
    size_t nd = (size_t)desc->max_len * desc->d_model, dd = (size_t)desc->d_model * desc->d_model;
    size_t nn = (size_t)desc->max_len * desc->max_len;
    float *p = block;
    for (int s = MHA_SLOT_X_OR_Q; s <= MHA_SLOT_V; s++, p += nd) layer->staging[s] = p;
    for (int s = MHA_SLOT_WQ; s <= MHA_SLOT_WO; s++, p += dd) layer->staging[s] = p;
    layer->q = p;          p += nd;
    layer->k = p;          p += nd;
    layer->v = p;          p += nd;
    layer->attention = p;  p += (size_t)desc->heads * nn;
    layer->heads = p;      p += nd;
    layer->concat = p;     p += nd;
    layer->output = p;     p += nd;
    layer->scores = p;     p += nn;
    layer->pack_b = p;     p += (size_t)pack_b_floats(desc->d_model, desc->heads, desc->max_len);
    layer->enabled_staging = (unsigned char *)p;
    memset(layer->enabled_staging, 1, (size_t)desc->heads);
    layer->block = block;
    layer->d = desc->d_model;
    layer->h = desc->heads;
    layer->dk = desc->d_model / desc->heads;
    layer->max_len = desc->max_len;
    *out = layer;
    return MHA_OK;
}

void mha_layer_destroy(mha_layer *layer) {
    if (!layer) return;
    free(layer->block);
    free(layer);
}

void *mha_layer_staging(mha_layer *layer, mha_slot slot) {
    if (!layer || (unsigned)slot >= MHA_SLOT_COUNT) return NULL;
    return slot == MHA_SLOT_ENABLED ? (void *)layer->enabled_staging : (void *)layer->staging[slot];
}

int mha_layer_len(const mha_layer *layer) { return layer ? layer->len : 0; }

static int all_finite(const float *a, size_t n);

/* The index of the first NaN or infinity in a[0..n), or -1. */
static ptrdiff_t first_non_finite(const float *a, size_t n) {
    if (all_finite(a, n)) return -1; /* the usual case, in SIMD; else find the first */
    for (size_t i = 0; i < n; i++)
        if (!isfinite(a[i])) return (ptrdiff_t)i;
    return -1;
}

/* Names the first NaN or infinity of a rows×cols input, for a learner to find it. */
static mha_status check_finite(const char *name, const float *a, int rows, int cols) {
    const ptrdiff_t i = first_non_finite(a, (size_t)rows * cols);
    if (i < 0) return MHA_OK;
    const int row = (int)(i / cols), column = (int)(i % cols);
    return mha_fail_at(MHA_ERR_NOT_FINITE, (mha_error_place){name, -1, row, column},
                       "%s has %s at row %d, column %d; every entry must be a finite number "
                       "(numbers beyond float32's ±3.4e38 become Infinity)",
                       name, isnan(a[i]) ? "NaN" : a[i] > 0 ? "Infinity" : "-Infinity", row, column);
}

/* A computed rows×cols result that must be finite (its inputs were): names the
   first entry that overflowed float32, or returns MHA_OK. */
static mha_status check_overflow(const char *name, const char *what, const float *a, int rows, int cols, int head,
                                 const char *hint) {
    const ptrdiff_t i = first_non_finite(a, (size_t)rows * cols);
    if (i < 0) return MHA_OK;
    const int row = (int)(i / cols), column = (int)(i % cols);
    return mha_fail_at(MHA_ERR_NOT_FINITE, (mha_error_place){name, head, row, column},
                       "%s overflows float32 (beyond ±3.4e38) at row %d, column %d; %s", what, row, column, hint);
}

/* Head i's scores overflowed at query row `row` (a score became ±Infinity or NaN). */
static mha_status scores_overflow(int head, int row) {
    return mha_fail_at(MHA_ERR_NOT_FINITE, (mha_error_place){"scores", head, row, -1},
                       "scores of head %d overflow float32 (beyond ±3.4e38) at row %d: q·k is too large; "
                       "use smaller numbers in q and k", head, row);
}

/* i-k-j order: the inner loop runs along rows of b and out, which the compiler vectorises. */
void mha_matmul_plain(float *out, const float *a, const float *b, int rows, int m, int n) {
    for (int i = 0; i < rows; i++) {
        float *o = out + (size_t)i * n;
        memset(o, 0, (size_t)n * sizeof *o);
        for (int kk = 0; kk < m; kk++) {
            const float aik = a[(size_t)i * m + kk];
            const float *brow = b + (size_t)kk * n;
            for (int j = 0; j < n; j++) o[j] += aik * brow[j];
        }
    }
}

static float score_scale(const mha_layer *layer, unsigned flags) {
    return (flags & MHA_SCALE) ? (float)(1.0 / sqrt((double)layer->dk)) : 1.0f;
}

/* row[c] = scale · Q_i[r] · K_i[c] for c < cols: one row of head i's scores. */
static void score_row(const mha_layer *layer, int head, int r, int cols, float scale, float *row) {
    const int d = layer->d, dk = layer->dk;
    const float *qr = layer->q + (size_t)r * d + (size_t)head * dk;
    for (int c = 0; c < cols; c++) {
        const float *kc = layer->k + (size_t)c * d + (size_t)head * dk;
        float dot = 0.0f;
        for (int j = 0; j < dk; j++) dot += qr[j] * kc[j];
        row[c] = dot * scale;
    }
}

/* Head i: attention weights (L×L) and output A_i · V_i (L×d_k). Returns the
   first query row whose scores overflowed float32 (then stops), or -1. */
static int attend_head(mha_layer *layer, int head, float scale, int causal) {
    const int L = layer->len, d = layer->d, dk = layer->dk;
    float *a = layer->attention + (size_t)head * L * L;
    float *out = layer->heads + (size_t)head * L * dk;
    for (int r = 0; r < L; r++) {
        float *row = a + (size_t)r * L;
        const int visible = causal ? r + 1 : L; /* the masked half is never computed */
        score_row(layer, head, r, visible, scale, row);
        if (first_non_finite(row, (size_t)visible) >= 0) return r;
        float max = row[0];
        for (int c = 1; c < visible; c++) max = row[c] > max ? row[c] : max;
        float sum = 0.0f;
        for (int c = 0; c < visible; c++) sum += row[c] = expf(row[c] - max);
        const float inv = 1.0f / sum;
        for (int c = 0; c < visible; c++) row[c] *= inv;
        for (int c = visible; c < L; c++) row[c] = 0.0f;

        float *o = out + (size_t)r * dk;
        memset(o, 0, (size_t)dk * sizeof *o);
        for (int c = 0; c < visible; c++) {
            const float w = row[c];
            const float *vc = layer->v + (size_t)c * d + (size_t)head * dk;
            for (int j = 0; j < dk; j++) o[j] += w * vc[j];
        }
    }
    return -1;
}

/* ---- The fast path --------------------------------------------------------
   The same maths as the plain loops above, arranged for speed:
   - matrix products run through an MR×NR register tile of SIMD vectors, over
     cache blocks of A read in place and B packed into NR-column panels (or read
     in place when that is cheaper: few rows, whole panels);
   - each head is done a block of MC query rows at a time: that block's scores,
     softmax and A·V, so the scores are reused while still in cache, and under
     the causal mask tiles wholly above the diagonal are never computed;
   - softmax uses a vectorised exp (Cephes' expf polynomial, about 1 ulp).
   GNU vector types become wasm SIMD128 with -msimd128, and natively whatever
   the target has (256-bit with AVX). */
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
#ifndef TINY_PRODUCT
#define TINY_PRODUCT 128 /* L·d·d below this: projections by the plain loops */
#endif
#ifndef TINY_HEAD
#define TINY_HEAD 64     /* L·L·d_k below this: heads by the plain loops */
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

/* 1 when a[0..n) has no NaN or infinity, i.e. no float with all exponent bits set. */
static int all_finite(const float *a, size_t n) {
    const vi exponent = (vi){0} + 0x7f800000;
    vi bad = (vi){0};
    size_t i = 0;
    for (; i + VW <= n; i += VW) bad |= ((vi)vload(a + i) & exponent) == exponent;
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

/* One lane of vexp, for test_kernels.c to measure its error (not in mha.h). */
float mha_fast_exp(float x);
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
   are touched. */
static void kernel(int kc, const float *a, int lda, const float *restrict bp, size_t ldb, float *c, int ldc,
                   int first, int m, int n) {
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
            for (int v = 0; v < NV; v++) acc[i][v] += ai * b[v];
        }
    }
    if (m == MR && n == NR) {
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
            float *p = c + (size_t)i * ldc + j;
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
    for (int j0 = 0; j0 < n; j0 += NR) {
        const int w = imin(NR, n - j0);
        for (int r = 0; r < k; r++, bp += NR) {
            const float *src = b + (size_t)r * rs + (size_t)j0 * cs;
            int j = 0;
            for (; j < w; j++) bp[j] = src[(size_t)j * cs];
            for (; j < NR; j++) bp[j] = 0.0f;
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
   Blocks: KC deep × MC rows of a stay in cache while every B panel (KC×NR, in L1)
   passes over them. */
static void gemm(float *c, int ldc, const float *a, int lda, const float *bp, size_t ldb, size_t panel, int m, int k,
                 int n, int tri, int row0) {
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
                    kernel(kk, a + (size_t)(ic + ir) * lda + pc, lda, bpp, ldb, c + (size_t)(ic + ir) * ldc + j0,
                           ldc, pc == 0, rows, imin(NR, n - j0));
                }
            }
        }
    }
}

/* Scratch the fast path needs, in floats, sized at create: a packed W (d×d), or a
   head's K_iᵀ and V_i together. */
static double pack_b_floats(int d, int heads, int max_len) {
    const int dk = d / heads;
    const double w = (double)d * round_up(d, NR);
    const double kv = (double)dk * round_up(max_len, NR) + (double)max_len * round_up(dk, NR);
    return w > kv ? w : kv;
}

/* out (L×d) ← x (L×d) · w (d×d). */
static void project(mha_layer *layer, float *out, const float *x, const float *w, int L) {
    const int d = layer->d;
    if (d % NR == 0 && L < PACK_ROWS) { /* few rows: packing W would cost more than it saves */
        gemm(out, d, x, d, w, (size_t)d, NR, L, d, d, TRI_NONE, 0);
        return;
    }
    pack_b(layer->pack_b, w, (size_t)d, 1, d, d);
    gemm(out, d, x, d, layer->pack_b, NR, (size_t)d * NR, L, d, d, TRI_NONE, 0);
}

/* Head i, a block of MC query rows at a time: scores into the head's attention
   rows, softmax in place, then those rows times V_i. Returns the first query row
   whose scores overflowed float32 (then stops), or -1. */
static int attend_head_fast(mha_layer *layer, int head, float scale, int causal) {
    const int L = layer->len, d = layer->d, dk = layer->dk;
    float *a = layer->attention + (size_t)head * L * L;
    float *out = layer->heads + (size_t)head * L * dk;
    float *kt = layer->pack_b, *vp = kt + (size_t)dk * round_up(L, NR);
    pack_b(kt, layer->k + (size_t)head * dk, 1, (size_t)d, dk, L); /* K_iᵀ, dk×L */
    const int v_in_place = dk % NR == 0 && L < PACK_ROWS; /* short V_i of whole panels: read in place */
    if (!v_in_place) pack_b(vp, layer->v + (size_t)head * dk, (size_t)d, 1, L, dk); /* V_i, L×dk */
    const float *vb = v_in_place ? layer->v + (size_t)head * dk : vp;
    const size_t v_ldb = v_in_place ? (size_t)d : NR, v_panel = v_in_place ? NR : (size_t)L * NR;
    const int tri_n = causal ? TRI_N : TRI_NONE, tri_k = causal ? TRI_K : TRI_NONE;
    for (int r0 = 0; r0 < L; r0 += MC) {
        const int rows = imin(MC, L - r0), seen = causal ? r0 + rows : L;
        float *block = a + (size_t)r0 * L;
        gemm(block, L, layer->q + (size_t)r0 * d + (size_t)head * dk, d, kt, NR, (size_t)dk * NR, rows, dk, seen,
             tri_n, r0);
        for (int r = 0; r < rows; r++) {
            const int visible = causal ? r0 + r + 1 : L;
            if (first_non_finite(block + (size_t)r * L, (size_t)visible) >= 0) return r0 + r;
            softmax_row(block + (size_t)r * L, visible, L, scale);
        }
        gemm(out + (size_t)r0 * dk, dk, block, L, vb, v_ldb, v_panel, rows, seen, dk, tri_k, r0);
    }
    return -1;
}

/* Head i's whole L×L scores (no mask) into the scores scratch, for mha_tensor. */
static void scores_fast(mha_layer *layer, int head, float scale) {
    const int L = layer->len, d = layer->d, dk = layer->dk;
    pack_b(layer->pack_b, layer->k + (size_t)head * dk, 1, (size_t)d, dk, L); /* K_iᵀ, dk×L */
    gemm(layer->scores, L, layer->q + (size_t)head * dk, d, layer->pack_b, NR, (size_t)dk * NR, L, dk, L, TRI_NONE, 0);
    if (scale != 1.0f) {
        const size_t n = (size_t)L * L;
        const vf vscale = vsplat(scale);
        size_t i = 0;
        for (; i + VW <= n; i += VW) vstore(layer->scores + i, vload(layer->scores + i) * vscale);
        for (; i < n; i++) layer->scores[i] *= scale;
    }
}

static mha_status check_input(const mha_layer *layer, const mha_input *in) {
    if (in->len <= 0) return mha_fail(MHA_ERR_BAD_SIZE, "the sequence is empty (length %d); give at least one token", in->len);
    if (in->len > layer->max_len)
        return mha_fail(MHA_ERR_SEQ_TOO_LONG, "the sequence has %d tokens but this layer was created with maxLen %d",
                    in->len, layer->max_len);
    const int L = in->len, d = layer->d;
    const int projection = in->x != NULL;
    if (projection && (in->q || in->k || in->v))
        return mha_fail(MHA_ERR_BAD_INPUT, "give either x with wq, wk, wv (projection mode) or q, k, v, not both");
    if (projection && !(in->wq && in->wk && in->wv))
        return mha_fail(MHA_ERR_BAD_INPUT, "projection mode needs all of wq, wk and wv");
    if (!projection && !(in->q && in->k && in->v))
        return mha_fail(MHA_ERR_BAD_INPUT, "give x with wq, wk, wv (projection mode) or all of q, k and v");
    struct { const char *name; const float *a; int rows; } inputs[] = {
        {"x", in->x, L},   {"wq", in->wq, d}, {"wk", in->wk, d}, {"wv", in->wv, d},
        {"q", in->q, L},   {"k", in->k, L},   {"v", in->v, L},   {"wo", in->wo, d},
    };
    for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
        if (!inputs[i].a) continue;
        mha_status status = check_finite(inputs[i].name, inputs[i].a, inputs[i].rows, d);
        if (status != MHA_OK) return status;
    }
    return MHA_OK;
}

/* Projection mode: Q, K, V = X·W_q, X·W_k, X·W_v, each checked for overflow. */
static mha_status project_qkv(mha_layer *layer, const mha_input *in, int plain) {
    const int L = in->len, d = layer->d;
    const struct { const char *name, *what, *hint; float *out; const float *w; } qkv[] = {
        {"q", "q = x·wq", "use smaller numbers in x or wq", layer->q, in->wq},
        {"k", "k = x·wk", "use smaller numbers in x or wk", layer->k, in->wk},
        {"v", "v = x·wv", "use smaller numbers in x or wv", layer->v, in->wv},
    };
    for (int i = 0; i < 3; i++) {
        if (plain) mha_matmul_plain(qkv[i].out, in->x, qkv[i].w, L, d, d);
        else project(layer, qkv[i].out, in->x, qkv[i].w, L);
        mha_status status = check_overflow(qkv[i].name, qkv[i].what, qkv[i].out, L, d, -1, qkv[i].hint);
        if (status != MHA_OK) return status;
    }
    return MHA_OK;
}

/* Every head's attention and output, and the concat. */
static mha_status attend_heads(mha_layer *layer, const mha_input *in, int plain) {
    const int L = layer->len, d = layer->d, dk = layer->dk;
    const int causal = (in->flags & MHA_CAUSAL) != 0;
    const float scale = score_scale(layer, in->flags);
    for (int i = 0; i < layer->h; i++) {
        const int bad_row = plain ? attend_head(layer, i, scale, causal) : attend_head_fast(layer, i, scale, causal);
        if (bad_row >= 0) return scores_overflow(i, bad_row);
        const float *head = layer->heads + (size_t)i * L * dk;
        char what[48];
        snprintf(what, sizeof what, "the output of head %d", i);
        mha_status status = check_overflow("head output", what, head, L, dk, i, "use smaller numbers in v");
        if (status != MHA_OK) return status;
        const int on = !in->enabled || in->enabled[i];
        for (int r = 0; r < L; r++) {
            float *dst = layer->concat + (size_t)r * d + (size_t)i * dk;
            if (on) memcpy(dst, head + (size_t)r * dk, (size_t)dk * sizeof(float));
            else memset(dst, 0, (size_t)dk * sizeof(float));
        }
    }
    return MHA_OK;
}

mha_status mha_forward(mha_layer *layer, const mha_input *in) {
    if (!layer || !in) return mha_fail(MHA_ERR_NULL_ARGUMENT, "mha_forward needs a layer and an input");
    mha_status status = check_input(layer, in);
    if (status != MHA_OK) return status;

    const int L = in->len, d = layer->d, dk = layer->dk;
    const size_t nd = (size_t)L * d;
    /* Toy sizes (the lesson's 3 tokens × 4 dims) take the plain loops: there the
       kernels' packing and tile edges cost more than the arithmetic. */
    const int plain_products = (in->flags & MHA_PLAIN) || (double)L * d * d < TINY_PRODUCT;
    const int plain_heads = (in->flags & MHA_PLAIN) || (double)L * L * dk < TINY_HEAD;
    layer->len = L;
    layer->flags = in->flags;
    if (in->x) {
        status = project_qkv(layer, in, plain_products);
    } else { /* memmove: a caller may hand back one of the layer's own buffers */
        memmove(layer->q, in->q, nd * sizeof(float));
        memmove(layer->k, in->k, nd * sizeof(float));
        memmove(layer->v, in->v, nd * sizeof(float));
    }
    if (status == MHA_OK) status = attend_heads(layer, in, plain_heads);
    if (status == MHA_OK && in->wo) {
        if (plain_products) mha_matmul_plain(layer->output, layer->concat, in->wo, L, d, d);
        else project(layer, layer->output, layer->concat, in->wo, L);
        status = check_overflow("output", "output = concat·wo", layer->output, L, d, -1, "use smaller numbers in wo");
    } else if (status == MHA_OK) {
        memcpy(layer->output, layer->concat, nd * sizeof(float));
    }
    if (status != MHA_OK) layer->len = 0; /* half-computed buffers are no result */
    return status;
}

mha_status mha_tensor(mha_layer *layer, mha_tensor_id id, int head, const float **out) {
    if (!layer || !out) return mha_fail(MHA_ERR_NULL_ARGUMENT, "mha_tensor needs a layer and an output pointer");
    *out = NULL;
    if (layer->len == 0)
        return mha_fail(MHA_ERR_NO_FORWARD, "no result yet: call forward first (a forward that failed leaves none)");
    const int L = layer->len;
    const int per_head = id == MHA_T_SCORES || id == MHA_T_ATTENTION || id == MHA_T_HEAD;
    if (per_head && (head < 0 || head >= layer->h))
        return mha_fail(MHA_ERR_HEAD_INDEX, "head %d does not exist: this layer has heads 0 to %d", head, layer->h - 1);
    switch (id) {
    case MHA_T_Q: *out = layer->q; break;
    case MHA_T_K: *out = layer->k; break;
    case MHA_T_V: *out = layer->v; break;
    case MHA_T_SCORES: {
        const float scale = score_scale(layer, layer->flags);
        if ((layer->flags & MHA_PLAIN) || (double)L * L * layer->dk < TINY_HEAD)
            for (int r = 0; r < L; r++) score_row(layer, head, r, L, scale, layer->scores + (size_t)r * L);
        else
            scores_fast(layer, head, scale);
        *out = layer->scores;
        break;
    }
    case MHA_T_ATTENTION: *out = layer->attention + (size_t)head * L * L; break;
    case MHA_T_HEAD: *out = layer->heads + (size_t)head * L * layer->dk; break;
    case MHA_T_CONCAT: *out = layer->concat; break;
    case MHA_T_OUTPUT: *out = layer->output; break;
    default: return mha_fail(MHA_ERR_BAD_INPUT, "unknown tensor id %d", (int)id);
    }
    return MHA_OK;
}
