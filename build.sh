#!/usr/bin/env bash
# Builds everything the tests and the page need:
#   web/dist/mha-core.mjs + mha-core.wasm   the C core as an ES module (Emscripten)
#   c/build/test_native                     the C unit tests, native, under ASan + UBSan
#   c/build/fuzz_api                        the C API's fuzz harness (seeded driver), under ASan + UBSan
#   web/dist/page.js, widget.js, …          the page and widget bundles (esbuild; see web/bundle.js)
# Usage: bash build.sh [--if-needed | --wasm-to DIR]
#   --if-needed: skip when no input changed since the last build
set -euo pipefail
cd "$(dirname "$0")"
export LC_ALL=C # the same file order, and so the same bytes, everywhere

# The library is every c/*.c but the tests, benchmarks, fuzz harness and the Emscripten export file.
core_sources=()
for source in c/*.c; do
  case "$(basename "$source")" in test_* | bench_* | fuzz_* | wasm_exports.c) ;; *) core_sources+=("$source") ;; esac
done
stamp=web/dist/.build-stamp
inputs_hash() {
  # Everything a build reads; sorted so the hash does not depend on the file system's order.
  find c web/src web/draw web/page web/widget web/bundle.js build.sh package-lock.json \
       -type f \( -name '*.c' -o -name '*.h' -o -name '*.js' -o -name '*.css' -o -name '*.sh' -o -name '*.json' \) \
       -not -path 'c/build/*' 2>/dev/null | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -d' ' -f1
}

if [[ ! -d node_modules/esbuild ]]; then
  echo "build.sh: node_modules is missing; installing the locked packages (npm ci)" >&2
  npm ci --no-audit --no-fund
fi

if [[ "${1:-}" == "--if-needed" && -f "$stamp" && "$(cat "$stamp")" == "$(inputs_hash)" ]]; then
  exit 0
fi

if ! command -v emcc >/dev/null 2>&1; then
  install=(apt-get install -y emscripten)
  if [[ $(id -u) -eq 0 ]]; then
    echo "build.sh: emcc not found; installing Debian's emscripten" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive "${install[@]}"
  elif sudo -n true 2>/dev/null; then
    echo "build.sh: emcc not found; installing Debian's emscripten with sudo" >&2
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive "${install[@]}"
  else
    echo "build.sh: emcc (Emscripten) is missing. Install it with:" >&2
    echo "    sudo apt-get update && sudo ${install[*]}" >&2
    exit 1
  fi
fi

warnings=(-std=c11 -Wall -Wextra -Werror -pedantic)

# Debian's emcc runs its optimiser with the system's node modules (acorn).
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
# -sENVIRONMENT=web: the same file runs in browsers and Node: web/src/attention.js compiles the wasm
# itself (found through the wasmUrl that c/wasm_url.js appends) and hands the glue the module.
# -sDYNAMIC_EXECUTION=0: no eval/new Function, so pages with a strict CSP can use it.
build_wasm() {
  emcc "${warnings[@]}" -O3 -msimd128 "${core_sources[@]}" c/wasm_exports.c \
    -sMODULARIZE=1 -sEXPORT_ES6=1 -sEXPORT_NAME=createMhaCore -sENVIRONMENT=web \
    -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=2GB -sDYNAMIC_EXECUTION=0 -sFILESYSTEM=0 \
    -sASSERTIONS=0 -sEXPORTED_RUNTIME_METHODS=HEAPU8,HEAPF32,HEAPF64 --extern-post-js c/wasm_url.js \
    -o "$1/mha-core.mjs"
}

# --wasm-to DIR: only the wasm module, into DIR (the tests use it to check the build is reproducible).
if [[ "${1:-}" == "--wasm-to" ]]; then
  mkdir -p "$2"
  build_wasm "$2"
  exit 0
fi

mkdir -p web/dist c/build
build_wasm web/dist

gcc "${warnings[@]}" -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
  "${core_sources[@]}" c/test_*.c -lm -o c/build/test_native
gcc "${warnings[@]}" -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
  "${core_sources[@]}" c/fuzz_api.c -lm -o c/build/fuzz_api

node web/bundle.js

inputs_hash > "$stamp"
