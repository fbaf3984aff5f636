/* pool.c — the worker threads of pool.h and mha_set_threads (mha.h).

   A task is published under the lock as a new generation; its parts are claimed
   from one atomic ticket (generation in the high half, next part in the low),
   so a thread still holding an older generation can never claim a newer task's
   part. The caller claims parts too and then spins until all are done: it never
   blocks, because a browser's main thread may not (and it may have to do every
   part itself if the threads are slow to wake). Between tasks the threads spin
   a moment, then sleep on a condition variable. */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include "pool.h"

#include <stdint.h>
#include <stdlib.h>

#include "mha_internal.h"

/* About 1 M multiply-adds, some tens of µs on one core: above the cost of handing
   parts to threads that are spinning between a forward's steps (SPIN_NS), and low
   enough that the poetry model's small products are shared too; the lesson's
   shapes stay far below. */
#define WORTH_MACS ((double)(1 << 20))

#ifdef MHA_THREADS
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

static double reserved; /* floats a pool thread's scratch must hold */

static struct {
    int threads; /* the caller included */
    pthread_t ids[MHA_MAX_THREADS];
    float *scratch[MHA_MAX_THREADS]; /* thread i's (i >= 1) */
    double scratch_floats;
    pthread_mutex_t lock; /* guards generation, fn, task, parts, stop */
    pthread_cond_t wake;
    unsigned generation;
    mha_part_fn fn;
    void *task;
    int parts, stop;
    _Atomic uint64_t ticket; /* generation << 32 | next part to claim */
    atomic_int done;         /* parts finished in this generation */
} pool = {.threads = 1, .lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

/* Claims and runs parts of generation `generation` until none is left. */
static void run_parts(unsigned generation, mha_part_fn fn, void *task, int parts, float *scratch) {
    uint64_t ticket = atomic_load(&pool.ticket);
    while ((unsigned)(ticket >> 32) == generation && (int)(uint32_t)ticket < parts) {
        if (!atomic_compare_exchange_weak(&pool.ticket, &ticket, ticket + 1)) continue; /* ticket reloaded */
        fn(task, (int)(uint32_t)ticket, parts, scratch);
        atomic_fetch_add(&pool.done, 1);
        ticket = atomic_load(&pool.ticket);
    }
}

/* How long a thread watches for the next task before it sleeps: a small model's steps come tens of
   microseconds apart, and waking a sleeping thread costs about as much as one. */
#define SPIN_NS 300000

/* Returns once the generation is past `seen`, or after SPIN_NS. */
static void spin_for_next(unsigned seen) {
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    do {
        for (int i = 0; i < 256; i++)
            if ((unsigned)(atomic_load(&pool.ticket) >> 32) != seen) return;
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while ((now.tv_sec - start.tv_sec) * 1e9 + (now.tv_nsec - start.tv_nsec) < SPIN_NS);
}

static void *thread_main(void *arg) {
    const intptr_t self = (intptr_t)arg;
    unsigned seen = 0;
    pthread_mutex_lock(&pool.lock);
    for (;;) {
        pthread_mutex_unlock(&pool.lock);
        spin_for_next(seen);
        pthread_mutex_lock(&pool.lock);
        while (pool.generation == seen && !pool.stop) pthread_cond_wait(&pool.wake, &pool.lock);
        if (pool.stop) break;
        seen = pool.generation;
        mha_part_fn fn = pool.fn;
        void *task = pool.task;
        const int parts = pool.parts;
        float *scratch = pool.scratch[self]; /* read per task: mha_pool_reserve may have grown it */
        pthread_mutex_unlock(&pool.lock);
        run_parts(seen, fn, task, parts, scratch);
        pthread_mutex_lock(&pool.lock);
    }
    pthread_mutex_unlock(&pool.lock);
    return NULL;
}

/* The caller's lock: spins instead of blocking (held for nanoseconds). */
static void lock_spinning(void) {
    while (pthread_mutex_trylock(&pool.lock) != 0) {
    }
}

static void stop_threads(void) {
    lock_spinning();
    pool.stop = 1;
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
    for (int i = 1; i < pool.threads; i++) pthread_join(pool.ids[i], NULL);
    for (int i = 1; i < pool.threads; i++) free(pool.scratch[i]), pool.scratch[i] = NULL;
    pool.threads = 1, pool.stop = 0, pool.scratch_floats = 0;
}

/* Every thread's scratch grown to `floats` (between tasks, so no thread is using
   one); 0 when one cannot be. */
static int grow_scratch(double floats) {
    if (floats <= pool.scratch_floats) return 1;
    if (floats * sizeof(float) > (double)SIZE_MAX) return 0;
    int grown = 1;
    lock_spinning();
    for (int i = 1; i < pool.threads && grown; i++) {
        float *bigger = malloc((size_t)floats * sizeof(float)); /* not realloc: the old contents are not needed */
        if (bigger) free(pool.scratch[i]), pool.scratch[i] = bigger;
        grown = bigger != NULL;
    }
    if (grown) pool.scratch_floats = floats;
    pthread_mutex_unlock(&pool.lock);
    return grown;
}

mha_status mha_set_threads(int threads) {
    if (threads < 1 || threads > MHA_MAX_THREADS)
        return mha_fail(MHA_ERR_BAD_SIZE, "threads must be 1 to %d, not %d", MHA_MAX_THREADS, threads);
    if (threads == pool.threads) return MHA_OK;
    stop_threads();
    for (int i = 1; i < threads; i++) {
        pool.scratch[i] = malloc(reserved > 0 ? (size_t)reserved * sizeof(float) : 1);
        if (!pool.scratch[i] || pthread_create(&pool.ids[i], NULL, thread_main, (void *)(intptr_t)i) != 0) {
            free(pool.scratch[i]), pool.scratch[i] = NULL;
            const int started = pool.threads;
            stop_threads();
            return mha_fail(MHA_ERR_OUT_OF_MEMORY, "could start only %d of %d threads", started, threads);
        }
        pool.threads = i + 1;
    }
    pool.scratch_floats = reserved;
    return MHA_OK;
}

int mha_threads(void) { return pool.threads; }

mha_status mha_pool_reserve(double floats) {
    if (floats > reserved) reserved = floats;
    if (!grow_scratch(floats))
        return mha_fail(MHA_ERR_OUT_OF_MEMORY, "not enough memory for %d threads' scratch of %.0f floats each",
                        pool.threads - 1, floats);
    return MHA_OK;
}

void mha_pool_run(mha_part_fn fn, void *task, int parts, int spread, float *scratch, double need) {
    if (!spread || pool.threads < 2 || parts < 2 || need > pool.scratch_floats) {
        for (int part = 0; part < parts; part++) fn(task, part, parts, scratch);
        return;
    }
    lock_spinning();
    const unsigned generation = ++pool.generation;
    pool.fn = fn, pool.task = task, pool.parts = parts;
    atomic_store(&pool.done, 0);
    atomic_store(&pool.ticket, (uint64_t)generation << 32);
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
    run_parts(generation, fn, task, parts, scratch);
    while (atomic_load(&pool.done) < parts) {
    }
}

#else /* one thread: every part runs on the caller */

mha_status mha_set_threads(int threads) {
    if (threads != 1)
        return mha_fail(MHA_ERR_BAD_SIZE, "this build of the core has no threads: threads must be 1, not %d", threads);
    return MHA_OK;
}

int mha_threads(void) { return 1; }

mha_status mha_pool_reserve(double floats) {
    (void)floats;
    return MHA_OK;
}

void mha_pool_run(mha_part_fn fn, void *task, int parts, int spread, float *scratch, double need) {
    (void)spread, (void)need;
    for (int part = 0; part < parts; part++) fn(task, part, parts, scratch);
}

#endif

void mha_pool_keep_first(atomic_llong *first, long long key) {
    long long seen = atomic_load(first);
    while (key < seen && !atomic_compare_exchange_weak(first, &seen, key)) {
    }
}

int mha_pool_big(double macs) { return macs >= WORTH_MACS; }
int mha_pool_worth(double macs) { return mha_threads() > 1 && mha_pool_big(macs); }
