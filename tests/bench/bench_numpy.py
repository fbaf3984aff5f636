"""bench_numpy.py [THREADS]: the numpy side of `npm run bench` (float32, THREADS BLAS
threads, 1 by default). Speaks bench_native.c's protocol on stdin/stdout: load DIR L D H,
time fast REPS, dump fast FILE, quit."""
import os
import sys

# The BLAS reads its thread count when numpy loads it.
for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = sys.argv[1] if len(sys.argv) > 1 else "1"

import time  # noqa: E402

import numpy as np  # noqa: E402


def attention(x, wq, wk, wv, wo, h, mask):
    """The lesson's numpy, batched over heads: causal, scaled, with W^O."""
    L, d = x.shape
    dk = d // h
    q = (x @ wq).reshape(L, h, dk).transpose(1, 0, 2)
    k = (x @ wk).reshape(L, h, dk).transpose(1, 0, 2)
    v = (x @ wv).reshape(L, h, dk).transpose(1, 0, 2)
    scores = (q @ k.transpose(0, 2, 1)) * np.float32(1 / np.sqrt(dk))
    scores = np.where(mask, np.float32(-np.inf), scores)
    scores -= scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    heads = weights @ v
    return heads.transpose(1, 0, 2).reshape(L, d) @ wo


def main():
    args = None
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "load":
            folder, L, d, h = words[1], int(words[2]), int(words[3]), int(words[4])
            read = lambda name, rows: np.fromfile(os.path.join(folder, name + ".f32"), dtype=np.float32).reshape(rows, d)  # noqa: E731
            mask = np.triu(np.ones((L, L), dtype=bool), 1)
            args = (read("x", L), read("wq", d), read("wk", d), read("wv", d), read("wo", d), h, mask)
            print("ok", flush=True)
        elif words[0] == "time":
            reps = int(words[2])
            start = time.perf_counter()
            for _ in range(reps):
                attention(*args)
            print((time.perf_counter() - start) / reps, flush=True)
        elif words[0] == "dump":
            attention(*args).astype(np.float32).tofile(words[2])
            print("ok", flush=True)
        elif words[0] == "quit":
            break


if __name__ == "__main__":
    main()
