/* test_np_random.c -- native checks of np_random against numpy.
 *
 * No main() here: the native test driver calls test_np_random(), which
 * prints one line per failed check and returns the number of failures.
 *
 * Every expected value was printed by numpy 1.24.2 (float.hex()) from
 * np.random.RandomState(seed); doubles are compared with ==, bit for bit.
 * tests/fixtures/numpy.json holds the longer streams for the JS tests. */
#include <stdio.h>
#include <string.h>

#include "../lib/np_random.h"

int test_np_random(void);

static int npt_failures;

static void npt_check_u32(const char *what, uint32_t got, uint32_t want)
{
    if (got != want) {
        printf("FAIL np_random: %s: got %lu, want %lu\n", what,
               (unsigned long)got, (unsigned long)want);
        npt_failures++;
    }
}

static void npt_check_f64(const char *what, double got, double want)
{
    /* bit-exact: == plus a byte compare (tells -0.0 from 0.0) */
    if (!(got == want) || memcmp(&got, &want, sizeof got) != 0) {
        printf("FAIL np_random: %s: got %a (%.17g), want %a (%.17g)\n", what,
               got, got, want, want);
        npt_failures++;
    }
}

static void npt_check_int(const char *what, long got, long want)
{
    if (got != want) {
        printf("FAIL np_random: %s: got %ld, want %ld\n", what, got, want);
        npt_failures++;
    }
}

/* RandomState(0).randn(5) and RandomState(10).randn(5) */
static const double npt_randn0[5] = {
    0x1.c398ef3e5cfa5p+0,  /* 1.764052345967664 */
    0x1.99c2cfacc8953p-2,  /* 0.4001572083672233 */
    0x1.f51d25222c9abp-1,  /* 0.9787379841057392 */
    0x1.1ed5969e3314ep+1,  /* 2.240893199201458 */
    0x1.de1847cb13ddap+0,  /* 1.8675579901499675 */
};
static const double npt_randn10[5] = {
    0x1.54e2da6707fffp+0,  /* 1.331586504129518 */
    0x1.6e390bb51d7a3p-1,  /* 0.7152789743984055 */
    -0x1.8b9f5a81d8c43p+0, /* -1.5454002921112682 */
    -0x1.12b8d4a0f837fp-7, /* -0.008383849928522256 */
    0x1.3e1fbfaf60378p-1,  /* 0.6213359738904805 */
};
/* RandomState(0).random_sample(3) */
static const double npt_sample0[3] = {
    0x1.18fe1565f12a8p-1,  /* 0.5488135039273248 */
    0x1.6e2d4cf608733p-1,  /* 0.7151893663724195 */
    0x1.349d66b6e894bp-1,  /* 0.6027633760716439 */
};

static void npt_seeding(void)
{
    np_random rs;
    np_random_seed(&rs, 0);
    npt_check_u32("seed 0 key[0]", rs.key[0], 0u);
    npt_check_u32("seed 0 key[1]", rs.key[1], 1u);
    npt_check_u32("seed 0 key[2]", rs.key[2], 1812433255u);
    npt_check_int("seed 0 pos", rs.pos, 624);
    npt_check_int("seed 0 has_gauss", rs.has_gauss, 0);

    /* the MT19937 reference seed; numpy:
     * RandomState(5489).randint(0, 2**32, dtype=np.uint32, size=3) */
    np_random_seed(&rs, 5489);
    npt_check_u32("seed 5489 u32 #0", np_random_u32(&rs), 3499211612u);
    npt_check_u32("seed 5489 u32 #1", np_random_u32(&rs), 581869302u);
    npt_check_u32("seed 5489 u32 #2", np_random_u32(&rs), 3890346734u);
    np_random_seed(&rs, 0);
    npt_check_u32("seed 0 u32 #0", np_random_u32(&rs), 2357136044u);
}

static void npt_streams(void)
{
    np_random rs;
    double buf[1001];
    char what[64];
    int i;

    np_random_seed(&rs, 0);
    for (i = 0; i < 5; i++) {
        sprintf(what, "seed 0 randn[%d]", i);
        npt_check_f64(what, np_random_gauss(&rs), npt_randn0[i]);
    }
    np_random_seed(&rs, 10);
    np_random_randn(&rs, buf, 5);
    for (i = 0; i < 5; i++) {
        sprintf(what, "seed 10 randn[%d]", i);
        npt_check_f64(what, buf[i], npt_randn10[i]);
    }
    /* RandomState(42).randn(1001)[1000]: crosses an MT19937 refill */
    np_random_seed(&rs, 42);
    np_random_randn(&rs, buf, 1001);
    npt_check_f64("seed 42 randn[1000]", buf[1000], 0x1.663c286b9ddedp+0 /* 1.3993554365860021 */);

    /* highest seed */
    np_random_seed(&rs, 4294967295u);
    npt_check_f64("seed 4294967295 randn[0]", np_random_gauss(&rs), 0x1.4bfc38c486d8ap-1 /* 0.6484086742306527 */);

    /* RandomState(123456789).randn(474)[472:474]: here log(r2) is a
     * near-halfway case where glibc's FMA log (numpy on a typical Linux
     * box) and a correctly rounded log differ in the last bit */
    np_random_seed(&rs, 123456789u);
    np_random_randn(&rs, buf, 474);
    npt_check_f64("seed 123456789 randn[472]", buf[472], 0x1.b08c6a13984abp-2 /* 0.42241063828084674 */);
    npt_check_f64("seed 123456789 randn[473]", buf[473], 0x1.69cb10a7f5706p-1 /* 0.7066273884799734 */);

    np_random_seed(&rs, 0);
    for (i = 0; i < 3; i++) {
        sprintf(what, "seed 0 random_sample[%d]", i);
        npt_check_f64(what, np_random_double(&rs), npt_sample0[i]);
    }
}

static void npt_gauss_cache(void)
{
    np_random rs;
    double buf[5];
    int pos;

    /* one draw: a pair is made, the second half is cached */
    np_random_seed(&rs, 0);
    npt_check_f64("cache: first value", np_random_gauss(&rs), npt_randn0[0]);
    npt_check_int("cache: has_gauss after 1 draw", rs.has_gauss, 1);
    pos = rs.pos;
    npt_check_f64("cache: second value", np_random_gauss(&rs), npt_randn0[1]);
    npt_check_int("cache: MT not advanced by cached draw", rs.pos, pos);
    npt_check_int("cache: has_gauss after 2 draws", rs.has_gauss, 0);

    /* odd-sized randn leaves a cached value that the next call returns */
    np_random_seed(&rs, 10);
    np_random_randn(&rs, buf, 3);
    npt_check_int("cache: has_gauss after randn(3)", rs.has_gauss, 1);
    pos = rs.pos;
    np_random_randn(&rs, buf + 3, 2);
    npt_check_f64("cache: randn(3) then randn(2) [3]", buf[3], npt_randn10[3]);
    npt_check_f64("cache: randn(3) then randn(2) [4]", buf[4], npt_randn10[4]);
    npt_check_int("cache: randn(2) after odd drew a new pair", rs.pos > pos, 1);
    npt_check_int("cache: has_gauss after randn(3), randn(2)", rs.has_gauss, 1);

    /* re-seeding clears the cache, like numpy's seed() */
    np_random_seed(&rs, 0);
    (void)np_random_gauss(&rs);
    np_random_seed(&rs, 0);
    npt_check_int("cache: seed clears has_gauss", rs.has_gauss, 0);
    npt_check_f64("cache: seed restarts stream", np_random_gauss(&rs), npt_randn0[0]);

    /* n == 0 writes nothing and draws nothing */
    np_random_seed(&rs, 0);
    np_random_randn(&rs, buf, 0);
    npt_check_int("randn(0): no draw", rs.pos, 624);
}

static void npt_independent(void)
{
    np_random a, b;
    np_random_seed(&a, 10);
    np_random_seed(&b, 10);
    (void)np_random_gauss(&a);
    (void)np_random_gauss(&a);
    (void)np_random_gauss(&a);
    npt_check_f64("two states: b starts fresh", np_random_gauss(&b), npt_randn10[0]);
    npt_check_f64("two states: a continues", np_random_gauss(&a), npt_randn10[3]);
    npt_check_f64("two states: b continues", np_random_gauss(&b), npt_randn10[1]);
}

int test_np_random(void)
{
    npt_failures = 0;
    npt_seeding();
    npt_streams();
    npt_gauss_cache();
    npt_independent();
    return npt_failures;
}
