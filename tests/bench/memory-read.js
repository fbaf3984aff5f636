// How fast wasm reads memory here: the floor under a decoding step, which reads every weight once. A wasm
// module of one function, written out below byte by byte (four SIMD128 sums, 64 bytes a turn), sums a buffer
// of its own memory, one buffer a thread, the threads reading at once.
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

const leb = (n) => {
  const out = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n) byte |= 0x80;
    out.push(byte);
  } while (n);
  return out;
};
const section = (id, bytes) => [id, ...leb(bytes.length), ...bytes];
const vec = (items) => [...leb(items.length), ...items.flat()];
const name = (text) => [...leb(text.length), ...Buffer.from(text)];

/** The module: read(address, bytes) → f32 sums 16-byte vectors into four v128 locals, 64 bytes a turn. */
function readerModule(pages) {
  const F32X4_ADD = [0xfd, 0xe4, 0x01];
  // acc_i = acc_i + v128.load(address + 16·i); locals: 0 address, 1 bytes, 2..5 the sums, 6 the end
  const add = (i) => [0x20, 2 + i, 0x20, 0, 0xfd, 0x00, 4, ...leb(16 * i), ...F32X4_ADD, 0x21, 2 + i];
  const body = [
    ...vec([[4, 0x7b], [1, 0x7f]]),
    0x20, 0, 0x20, 1, 0x6a, 0x21, 6, // end = address + bytes
    0x02, 0x40, 0x03, 0x40, // block, loop
    0x20, 0, 0x20, 6, 0x4f, 0x0d, 1, // address >= end: out
    ...add(0), ...add(1), ...add(2), ...add(3),
    0x20, 0, 0x41, 0xc0, 0x00, 0x6a, 0x21, 0, // address += 64
    0x0c, 0, 0x0b, 0x0b,
    0x20, 2, 0x20, 3, ...F32X4_ADD, 0x20, 4, ...F32X4_ADD, 0x20, 5, ...F32X4_ADD, 0xfd, 0x1f, 0, 0x0b, // lane 0 of the sum
  ];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0,
    ...section(1, vec([[0x60, 2, 0x7f, 0x7f, 1, 0x7d]])), // (i32, i32) → f32
    ...section(2, vec([[...name('env'), ...name('memory'), 0x02, 0x00, ...leb(pages)]])),
    ...section(3, vec([[0]])),
    ...section(7, vec([[...name('read'), 0x00, 0]])),
    ...section(10, vec([[...leb(body.length), ...body]])),
  ]);
}

/** A reader of `bytes` (a multiple of 64) in this thread: read() sums them once and returns the ms it took. */
async function reader(bytes) {
  const pages = Math.ceil(bytes / 65536);
  const memory = new WebAssembly.Memory({ initial: pages });
  new Float32Array(memory.buffer).fill(1); // every page touched before it is timed
  const { instance } = await WebAssembly.instantiate(readerModule(pages), { env: { memory } });
  const sum = instance.exports.read(0, 64 * 4);
  if (sum !== 16) throw new Error(`the memory reader summed 64 ones per lane to ${sum}, not 16`);
  instance.exports.read(0, bytes); // untimed: the first pass
  return () => {
    const start = performance.now();
    instance.exports.read(0, bytes);
    return performance.now() - start;
  };
}

if (!isMainThread && workerData?.memoryReadBytes) {
  const read = await reader(workerData.memoryReadBytes);
  parentPort.on('message', () => parentPort.postMessage(read()));
  parentPort.postMessage('ready');
}

/**
 * `threads` workers, each holding bytes ÷ threads of its own; sample() has them all read theirs at once and
 * resolves with the ms from the first start to the last finish. close() ends them.
 */
export async function memoryReaders(bytes, threads) {
  const share = Math.ceil(bytes / threads / 64) * 64;
  const workers = Array.from({ length: threads }, () => {
    const worker = new Worker(new URL(import.meta.url), { workerData: { memoryReadBytes: share } });
    worker.on('message', (message) => worker.pending?.resolve(message));
    worker.on('error', (error) => worker.pending?.reject(error));
    return worker;
  });
  const next = (worker) => new Promise((resolve, reject) => {
    worker.pending = { resolve, reject };
  });
  await Promise.all(workers.map(next));
  return {
    async sample() {
      const start = performance.now();
      const done = workers.map(next);
      for (const worker of workers) worker.postMessage('read');
      await Promise.all(done);
      return performance.now() - start;
    },
    close: () => Promise.all(workers.map((worker) => worker.terminate())),
  };
}
