// Appended to web/dist/mha-core.mjs by build.sh (--extern-post-js): where the wasm is, written in the
// form bundlers follow (Vite, webpack and Parcel copy mha-core.wasm and rewrite this URL). Without a
// bundler it is the file beside this module, or beside the bundle that inlined it.
export const wasmUrl = new URL('./mha-core.wasm', import.meta.url).href;
