/* np_random.c -- numpy legacy RandomState (MT19937 + random_sample + randn).
 * See np_random.h for the manual.
 *
 * Why this file carries its own log()
 * -----------------------------------
 * randn's polar method computes sqrt(-2*log(r2)/r2). sqrt is correctly
 * rounded on every IEEE platform, but log is whatever the C library ships,
 * and numpy simply calls the platform log. On Linux that is glibc's log,
 * which on x86-64 picks an FMA-compiled variant at load time when the CPU
 * has FMA (nearly all since 2013). That variant is accurate to ~0.52 ULP, not
 * correctly rounded, and in rare near-halfway cases it differs in the last
 * bit from musl's log (used by the WebAssembly build) and from glibc's own
 * non-FMA variant. One such case sits at index 472 of RandomState(123456789)
 * .randn(): numpy on an FMA machine returns 0x1.b08c6a13984abp-2, musl-based
 * code returns ...4acp-2 (so numpy itself is CPU-dependent there).
 *
 * To make native and wasm builds agree with each other and with numpy as it
 * runs on a typical Linux box, np_log() below reproduces glibc's FMA log
 * (glibc >= 2.28: Arm's optimized-routines algorithm and tables) step by
 * step, with explicit C99 fma() calls placed exactly where the compiled
 * glibc code fuses. fma() is exactly rounded everywhere (in hardware, or in
 * software as in wasm), so the result is identical on every platform.
 * Checked against glibc 2.36's FMA log on 2*10^8 inputs: no difference.
 *
 * Everything else uses only exact operations (integer arithmetic, scaling by
 * powers of two) or single correctly rounded IEEE operations, written so
 * that no compiler may contract them into an FMA (see np_random_gauss).
 *
 * The table and polynomial coefficients below are from Arm's
 * optimized-routines (Copyright (c) 2018, Arm Limited, SPDX-License-Identifier:
 * MIT), as shipped in glibc and musl. */
#include "np_random.h"

#include <math.h>

#define NP_N 624
#define NP_M 397
#define NP_MATRIX_A 0x9908b0dfu
#define NP_UPPER_MASK 0x80000000u
#define NP_LOWER_MASK 0x7fffffffu

/* ---------------------------------------------------------------- MT19937 */

void np_random_seed(np_random *rs, uint32_t seed)
{
    /* numpy mt19937_seed == Matsumoto & Nishimura init_genrand */
    int pos;
    for (pos = 0; pos < NP_N; pos++) {
        rs->key[pos] = seed;
        seed = (uint32_t)(1812433253u * (seed ^ (seed >> 30)) + (uint32_t)pos + 1u);
    }
    rs->pos = NP_N;
    rs->has_gauss = 0;
    rs->gauss = 0.0;
}

static void np_random_gen(np_random *rs)
{
    uint32_t y;
    int i;
    for (i = 0; i < NP_N - NP_M; i++) {
        y = (rs->key[i] & NP_UPPER_MASK) | (rs->key[i + 1] & NP_LOWER_MASK);
        rs->key[i] = rs->key[i + NP_M] ^ (y >> 1) ^ ((0u - (y & 1u)) & NP_MATRIX_A);
    }
    for (; i < NP_N - 1; i++) {
        y = (rs->key[i] & NP_UPPER_MASK) | (rs->key[i + 1] & NP_LOWER_MASK);
        rs->key[i] = rs->key[i + (NP_M - NP_N)] ^ (y >> 1) ^ ((0u - (y & 1u)) & NP_MATRIX_A);
    }
    y = (rs->key[NP_N - 1] & NP_UPPER_MASK) | (rs->key[0] & NP_LOWER_MASK);
    rs->key[NP_N - 1] = rs->key[NP_M - 1] ^ (y >> 1) ^ ((0u - (y & 1u)) & NP_MATRIX_A);
    rs->pos = 0;
}

uint32_t np_random_u32(np_random *rs)
{
    uint32_t y;
    if (rs->pos >= NP_N) np_random_gen(rs);
    y = rs->key[rs->pos++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= (y >> 18);
    return y;
}

double np_random_double(np_random *rs)
{
    uint32_t a = np_random_u32(rs) >> 5;
    uint32_t b = np_random_u32(rs) >> 6;
    /* a*2^26 is exact, so the sum is the only rounding (none: < 2^53) */
    return ((double)a * 67108864.0 + (double)b) / 9007199254740992.0;
}

/* -------------------------------------------------------------------- log */

static const double np_ln2hi = 0x1.62e42fefa3800p-1;
static const double np_ln2lo = 0x1.ef35793c76730p-45;
/* log1p(r) - r ~ r^2 * A(r), |r| < 0x1.fp-9 */
static const double np_log_a[5] = {
    -0x1.0000000000001p-1, 0x1.555555551305bp-2, -0x1.fffffffeb459p-3,
    0x1.999b324f10111p-3, -0x1.55575e506c89fp-3,
};
/* log(1+r) for x close to 1: -0x1p-4 <= r < 0x1.09p-4 */
static const double np_log_b[11] = {
    -0x1p-1, 0x1.5555555555577p-2, -0x1.ffffffffffdcbp-3,
    0x1.999999995dd0cp-3, -0x1.55555556745a7p-3, 0x1.24924a344de3p-3,
    -0x1.fffffa4423d65p-4, 0x1.c7184282ad6cap-4, -0x1.999eb43b068ffp-4,
    0x1.78182f7afd085p-4, -0x1.5521375d145cdp-4,
};
/* {1/c, log(c)} for 128 subintervals of [0x1.6p-1, 0x1.6p0) */
static const double np_log_tab[128][2] = {
    {0x1.734f0c3e0de9fp+0, -0x1.7cc7f79e69000p-2},
    {0x1.713786a2ce91fp+0, -0x1.76feec20d0000p-2},
    {0x1.6f26008fab5a0p+0, -0x1.713e31351e000p-2},
    {0x1.6d1a61f138c7dp+0, -0x1.6b85b38287800p-2},
    {0x1.6b1490bc5b4d1p+0, -0x1.65d5590807800p-2},
    {0x1.69147332f0cbap+0, -0x1.602d076180000p-2},
    {0x1.6719f18224223p+0, -0x1.5a8ca86909000p-2},
    {0x1.6524f99a51ed9p+0, -0x1.54f4356035000p-2},
    {0x1.63356aa8f24c4p+0, -0x1.4f637c36b4000p-2},
    {0x1.614b36b9ddc14p+0, -0x1.49da7fda85000p-2},
    {0x1.5f66452c65c4cp+0, -0x1.445923989a800p-2},
    {0x1.5d867b5912c4fp+0, -0x1.3edf439b0b800p-2},
    {0x1.5babccb5b90dep+0, -0x1.396ce448f7000p-2},
    {0x1.59d61f2d91a78p+0, -0x1.3401e17bda000p-2},
    {0x1.5805612465687p+0, -0x1.2e9e2ef468000p-2},
    {0x1.56397cee76bd3p+0, -0x1.2941b3830e000p-2},
    {0x1.54725e2a77f93p+0, -0x1.23ec58cda8800p-2},
    {0x1.52aff42064583p+0, -0x1.1e9e129279000p-2},
    {0x1.50f22dbb2bddfp+0, -0x1.1956d2b48f800p-2},
    {0x1.4f38f4734ded7p+0, -0x1.141679ab9f800p-2},
    {0x1.4d843cfde2840p+0, -0x1.0edd094ef9800p-2},
    {0x1.4bd3ec078a3c8p+0, -0x1.09aa518db1000p-2},
    {0x1.4a27fc3e0258ap+0, -0x1.047e65263b800p-2},
    {0x1.4880524d48434p+0, -0x1.feb224586f000p-3},
    {0x1.46dce1b192d0bp+0, -0x1.f474a7517b000p-3},
    {0x1.453d9d3391854p+0, -0x1.ea4443d103000p-3},
    {0x1.43a2744b4845ap+0, -0x1.e020d44e9b000p-3},
    {0x1.420b54115f8fbp+0, -0x1.d60a22977f000p-3},
    {0x1.40782da3ef4b1p+0, -0x1.cc00104959000p-3},
    {0x1.3ee8f5d57fe8fp+0, -0x1.c202956891000p-3},
    {0x1.3d5d9a00b4ce9p+0, -0x1.b81178d811000p-3},
    {0x1.3bd60c010c12bp+0, -0x1.ae2c9ccd3d000p-3},
    {0x1.3a5242b75dab8p+0, -0x1.a45402e129000p-3},
    {0x1.38d22cd9fd002p+0, -0x1.9a877681df000p-3},
    {0x1.3755bc5847a1cp+0, -0x1.90c6d69483000p-3},
    {0x1.35dce49ad36e2p+0, -0x1.87120a645c000p-3},
    {0x1.34679984dd440p+0, -0x1.7d68fb4143000p-3},
    {0x1.32f5cceffcb24p+0, -0x1.73cb83c627000p-3},
    {0x1.3187775a10d49p+0, -0x1.6a39a9b376000p-3},
    {0x1.301c8373e3990p+0, -0x1.60b3154b7a000p-3},
    {0x1.2eb4ebb95f841p+0, -0x1.5737d76243000p-3},
    {0x1.2d50a0219a9d1p+0, -0x1.4dc7b8fc23000p-3},
    {0x1.2bef9a8b7fd2ap+0, -0x1.4462c51d20000p-3},
    {0x1.2a91c7a0c1babp+0, -0x1.3b08abc830000p-3},
    {0x1.293726014b530p+0, -0x1.31b996b490000p-3},
    {0x1.27dfa5757a1f5p+0, -0x1.2875490a44000p-3},
    {0x1.268b39b1d3bbfp+0, -0x1.1f3b9f879a000p-3},
    {0x1.2539d838ff5bdp+0, -0x1.160c8252ca000p-3},
    {0x1.23eb7aac9083bp+0, -0x1.0ce7f57f72000p-3},
    {0x1.22a012ba940b6p+0, -0x1.03cdc49fea000p-3},
    {0x1.2157996cc4132p+0, -0x1.f57bdbc4b8000p-4},
    {0x1.201201dd2fc9bp+0, -0x1.e370896404000p-4},
    {0x1.1ecf4494d480bp+0, -0x1.d17983ef94000p-4},
    {0x1.1d8f5528f6569p+0, -0x1.bf9674ed8a000p-4},
    {0x1.1c52311577e7cp+0, -0x1.adc79202f6000p-4},
    {0x1.1b17c74cb26e9p+0, -0x1.9c0c3e7288000p-4},
    {0x1.19e010c2c1ab6p+0, -0x1.8a646b372c000p-4},
    {0x1.18ab07bb670bdp+0, -0x1.78d01b3ac0000p-4},
    {0x1.1778a25efbcb6p+0, -0x1.674f145380000p-4},
    {0x1.1648d354c31dap+0, -0x1.55e0e6d878000p-4},
    {0x1.151b990275fddp+0, -0x1.4485cdea1e000p-4},
    {0x1.13f0ea432d24cp+0, -0x1.333d94d6aa000p-4},
    {0x1.12c8b7210f9dap+0, -0x1.22079f8c56000p-4},
    {0x1.11a3028ecb531p+0, -0x1.10e4698622000p-4},
    {0x1.107fbda8434afp+0, -0x1.ffa6c6ad20000p-5},
    {0x1.0f5ee0f4e6bb3p+0, -0x1.dda8d4a774000p-5},
    {0x1.0e4065d2a9fcep+0, -0x1.bbcece4850000p-5},
    {0x1.0d244632ca521p+0, -0x1.9a1894012c000p-5},
    {0x1.0c0a77ce2981ap+0, -0x1.788583302c000p-5},
    {0x1.0af2f83c636d1p+0, -0x1.5715e67d68000p-5},
    {0x1.09ddb98a01339p+0, -0x1.35c8a49658000p-5},
    {0x1.08cabaf52e7dfp+0, -0x1.149e364154000p-5},
    {0x1.07b9f2f4e28fbp+0, -0x1.e72c082eb8000p-6},
    {0x1.06ab58c358f19p+0, -0x1.a55f152528000p-6},
    {0x1.059eea5ecf92cp+0, -0x1.63d62cf818000p-6},
    {0x1.04949cdd12c90p+0, -0x1.228fb8caa0000p-6},
    {0x1.038c6c6f0ada9p+0, -0x1.c317b20f90000p-7},
    {0x1.02865137932a9p+0, -0x1.419355daa0000p-7},
    {0x1.0182427ea7348p+0, -0x1.81203c2ec0000p-8},
    {0x1.008040614b195p+0, -0x1.0040979240000p-9},
    {0x1.fe01ff726fa1ap-1, 0x1.feff384900000p-9},
    {0x1.fa11cc261ea74p-1, 0x1.7dc41353d0000p-7},
    {0x1.f6310b081992ep-1, 0x1.3cea3c4c28000p-6},
    {0x1.f25f63ceeadcdp-1, 0x1.b9fc114890000p-6},
    {0x1.ee9c8039113e7p-1, 0x1.1b0d8ce110000p-5},
    {0x1.eae8078cbb1abp-1, 0x1.58a5bd001c000p-5},
    {0x1.e741aa29d0c9bp-1, 0x1.95c8340d88000p-5},
    {0x1.e3a91830a99b5p-1, 0x1.d276aef578000p-5},
    {0x1.e01e009609a56p-1, 0x1.07598e598c000p-4},
    {0x1.dca01e577bb98p-1, 0x1.253f5e30d2000p-4},
    {0x1.d92f20b7c9103p-1, 0x1.42edd8b380000p-4},
    {0x1.d5cac66fb5ccep-1, 0x1.606598757c000p-4},
    {0x1.d272caa5ede9dp-1, 0x1.7da76356a0000p-4},
    {0x1.cf26e3e6b2ccdp-1, 0x1.9ab434e1c6000p-4},
    {0x1.cbe6da2a77902p-1, 0x1.b78c7bb0d6000p-4},
    {0x1.c8b266d37086dp-1, 0x1.d431332e72000p-4},
    {0x1.c5894bd5d5804p-1, 0x1.f0a3171de6000p-4},
    {0x1.c26b533bb9f8cp-1, 0x1.067152b914000p-3},
    {0x1.bf583eeece73fp-1, 0x1.147858292b000p-3},
    {0x1.bc4fd75db96c1p-1, 0x1.2266ecdca3000p-3},
    {0x1.b951e0c864a28p-1, 0x1.303d7a6c55000p-3},
    {0x1.b65e2c5ef3e2cp-1, 0x1.3dfc33c331000p-3},
    {0x1.b374867c9888bp-1, 0x1.4ba366b7a8000p-3},
    {0x1.b094b211d304ap-1, 0x1.5933928d1f000p-3},
    {0x1.adbe885f2ef7ep-1, 0x1.66acd2418f000p-3},
    {0x1.aaf1d31603da2p-1, 0x1.740f8ec669000p-3},
    {0x1.a82e63fd358a7p-1, 0x1.815c0f51af000p-3},
    {0x1.a5740ef09738bp-1, 0x1.8e92954f68000p-3},
    {0x1.a2c2a90ab4b27p-1, 0x1.9bb3602f84000p-3},
    {0x1.a01a01393f2d1p-1, 0x1.a8bed1c2c0000p-3},
    {0x1.9d79f24db3c1bp-1, 0x1.b5b515c01d000p-3},
    {0x1.9ae2505c7b190p-1, 0x1.c2967ccbcc000p-3},
    {0x1.9852ef297ce2fp-1, 0x1.cf635d5486000p-3},
    {0x1.95cbaeea44b75p-1, 0x1.dc1bd3446c000p-3},
    {0x1.934c69de74838p-1, 0x1.e8c01b8cfe000p-3},
    {0x1.90d4f2f6752e6p-1, 0x1.f5509c0179000p-3},
    {0x1.8e6528effd79dp-1, 0x1.00e6c121fb800p-2},
    {0x1.8bfce9fcc007cp-1, 0x1.071b80e93d000p-2},
    {0x1.899c0dabec30ep-1, 0x1.0d46b9e867000p-2},
    {0x1.87427aa2317fbp-1, 0x1.13687334bd000p-2},
    {0x1.84f00acb39a08p-1, 0x1.1980d67234800p-2},
    {0x1.82a49e8653e55p-1, 0x1.1f8ffe0cc8000p-2},
    {0x1.8060195f40260p-1, 0x1.2595fd7636800p-2},
    {0x1.7e22563e0a329p-1, 0x1.2b9300914a800p-2},
    {0x1.7beb377dcb5adp-1, 0x1.3187210436000p-2},
    {0x1.79baa679725c2p-1, 0x1.377266dec1800p-2},
    {0x1.77907f2170657p-1, 0x1.3d54ffbaf3000p-2},
    {0x1.756cadbd6130cp-1, 0x1.432eee32fe000p-2},
};

static uint64_t np_asu64(double x)
{
    union { double f; uint64_t i; } u;
    u.f = x;
    return u.i;
}

static double np_asf64(uint64_t i)
{
    union { double f; uint64_t i; } u;
    u.i = i;
    return u.f;
}

/* Natural log, bit-identical to glibc's FMA variant (see top of file). */
static double np_log(double x)
{
    const double *A = np_log_a, *B = np_log_b;
    uint64_t ix = np_asu64(x), tmp, iz;
    uint32_t top = (uint32_t)(ix >> 48);
    double r, r2, r3, w, hi, lo, y, kd, z, invc, logc, p, q, q1, q2, q3;
    int i, k;

    if (ix - 0x3fee000000000000u < 0x3ff1090000000000u - 0x3fee000000000000u) {
        /* 1 - 0x1p-4 <= x < 1 + 0x1.09p-4 */
        double t, rhi, rlo, rr, s;
        if (ix == 0x3ff0000000000000u) return 0.0;
        r = x - 1.0;
        q1 = fma(r, B[2], B[1]);
        q2 = fma(r, B[5], B[4]);
        q3 = fma(r, B[8], B[7]);
        r2 = r * r;
        q1 = fma(r2, B[3], q1);
        q2 = fma(r2, B[6], q2);
        r3 = r * r2;
        q3 = fma(r2, B[9], q3);
        q3 = fma(r3, B[10], q3);
        q = fma(q3, r3, q2);
        p = fma(q, r3, q1);
        /* split r into rhi (26 bits) + rlo */
        t = fma(r, 0x1p27, r);
        rhi = fma(-0x1p27, r, t);
        rr = rhi * rhi;
        rlo = r - rhi;
        hi = fma(rr, B[0], r);
        lo = r - hi;
        lo = fma(rr, B[0], lo);
        s = r + rhi;
        w = B[0] * rlo;
        lo = fma(w, s, lo);
        y = fma(p, r3, lo);
        return hi + y;
    }
    if (top - 0x0010u >= 0x7ff0u - 0x0010u) {
        /* x < 0x1p-1022, inf or nan: never reached by randn (r2 is a
         * positive normal number), handled for completeness */
        if ((ix << 1) == 0) return -HUGE_VAL;
        if (ix == 0x7ff0000000000000u) return x;
        if ((top & 0x8000u) || (top & 0x7ff0u) == 0x7ff0u) return NAN;
        ix = np_asu64(x * 0x1p52);      /* subnormal: normalize */
        ix -= (uint64_t)52 << 52;
    }
    /* x = 2^k z, z in [0x1.6p-1, 0x1.6p0), c near the centre of z's
     * subinterval: log(x) = k ln2 + log(c) + log1p(z/c - 1) */
    tmp = ix - 0x3fe6000000000000u;
    i = (int)((tmp >> 45) & 127u);
    k = (int)((tmp >> 52) & 0xfffu);
    if (k >= 2048) k -= 4096;           /* arithmetic shift, portably */
    iz = ix - (tmp & ((uint64_t)0xfff << 52));
    invc = np_log_tab[i][0];
    logc = np_log_tab[i][1];
    z = np_asf64(iz);
    kd = (double)k;

    w = fma(kd, np_ln2hi, logc);
    r = fma(z, invc, -1.0);
    q1 = fma(r, A[2], A[1]);
    hi = w + r;
    r2 = r * r;
    lo = w - hi;
    lo = lo + r;
    lo = fma(kd, np_ln2lo, lo);
    r3 = r * r2;
    q2 = fma(r, A[4], A[3]);
    lo = fma(r2, A[0], lo);
    p = fma(q2, r2, q1);
    y = fma(r3, p, lo);
    return y + hi;
}

/* ------------------------------------------------------------------ gauss */

double np_random_gauss(np_random *rs)
{
    double f, x1, x2, r2, t;
    /* volatile keeps both squares rounded on their own: a compiler in GNU
     * mode (gcc -ffp-contract=fast, the default outside -std=c11) on an FMA
     * target would otherwise fuse x1*x1 + x2*x2 into fma(x1, x1, x2*x2) and
     * change r2, which numpy computes with two roundings and an add */
    volatile double s1, s2;
    if (rs->has_gauss) {
        double cached = rs->gauss;
        rs->has_gauss = 0;
        rs->gauss = 0.0;
        return cached;
    }
    do {
        x1 = 2.0 * np_random_double(rs) - 1.0;  /* 2*d is exact */
        x2 = 2.0 * np_random_double(rs) - 1.0;
        s1 = x1 * x1;
        s2 = x2 * x2;
        r2 = s1 + s2;
    } while (r2 >= 1.0 || r2 == 0.0);
    /* polar method: numpy's legacy_gauss */
    t = -2.0 * np_log(r2);
    t = t / r2;
    f = sqrt(t);
    rs->gauss = f * x1;
    rs->has_gauss = 1;
    return f * x2;
}

void np_random_randn(np_random *rs, double *out, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) out[i] = np_random_gauss(rs);
}
