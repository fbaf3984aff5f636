// Appended to web/dist/mha-core.mjs by build.sh (--extern-post-js): where the wasm is, written in the
// form bundlers follow (Vite, webpack and Parcel copy mha-core.wasm and rewrite this URL). Without a
// bundler it is the file beside this module, or beside the bundle that inlined it.
export const wasmUrl = new URL('./mha-core.wasm', import.meta.url).href;
// The threaded core's files, found the same way. Its glue is imported from its URL, not bundled: its
// pthread workers import that same file again.
export const threadedUrls = {
  glue: new URL('./mha-core-mt.mjs', import.meta.url).href,
  wasm: new URL('./mha-core-mt.wasm', import.meta.url).href,
  worker: new URL('./mha-core-mt.worker.js', import.meta.url).href,
};
// Both cores' wasm with fused multiply-add (relaxed SIMD), loaded beside the threaded core's glue.
export const fusedUrls = {
  single: new URL('./mha-core-fma.wasm', import.meta.url).href,
  threaded: new URL('./mha-core-mt-fma.wasm', import.meta.url).href,
};
