// Stands in for import.meta.url in widget.classic.js (web/tools/bundle.js injects it): a classic script has no
// import.meta, so the address mha-core.wasm and train-worker.js are found beside is the script's own,
// read while it runs (deferred and async scripts included).
export const classicScriptUrl = document.currentScript?.src || document.baseURI;
