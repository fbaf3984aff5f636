/* pool.h — the core's worker threads, shared by every layer and model (internal).

   mha_set_threads (mha.h) starts them once. A big step of a forward (a matrix
   product, the heads of a layer) is then cut into parts that the threads and
   the caller take one at a time until none is left; the caller returns when
   every part is done. Each part gets a scratch buffer private to the thread
   running it: the caller's own, or one the pool owns, grown by
   mha_pool_reserve when a layer or model is created, never during a forward.
   Without MHA_THREADS (the single-threaded wasm build) every part runs on the
   caller. */
#ifndef MHA_POOL_H
#define MHA_POOL_H

#include <stdatomic.h>

#include "mha.h"

/* One part of a task: part is 0..parts-1; scratch holds the `need` floats
   given to mha_pool_run. */
typedef void (*mha_part_fn)(void *task, int part, int parts, float *scratch);

/* Whether a step of about `macs` multiply-adds is worth waking the threads for:
   false with one thread, and for the lesson's small shapes. */
int mha_pool_worth(double macs);

/* Whether a step of about `macs` multiply-adds is big enough to share, whatever
   the thread count. */
int mha_pool_big(double macs);

/* Runs fn for every part, spread over the threads when `spread` and the pool's
   scratch holds `need` floats, else all on the caller with `scratch`. */
void mha_pool_run(mha_part_fn fn, void *task, int parts, int spread, float *scratch, double need);

/* first ← min(first, key), atomically: parts that may fail record the first
   failure in the caller's order (a head and row, say), whichever thread found it. */
void mha_pool_keep_first(atomic_llong *first, long long key);

/* Makes each pool thread's scratch hold at least `floats` (and remembers the
   size for threads started later): called by whatever creates a layer or model,
   with the most its parts will need. OUT_OF_MEMORY when it cannot grow. */
mha_status mha_pool_reserve(double floats);

#endif
