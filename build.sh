#!/usr/bin/env bash
# Builds what the page and the tests need, by target:
#   wasm    web/dist/mha-core.mjs + mha-core.wasm: the C core as an ES module (Emscripten), with the
#           threaded core mha-core-mt.* and both cores' fused multiply-add wasm (mha-core-fma.wasm,
#           mha-core-mt-fma.wasm). Committed, so serving the page needs no compiler;
#           web/dist/mha-core.inputs holds the hash of what they were built from, and tests/build.slow.test.js
#           checks a rebuild gives the same bytes.
#   native  c/build/test_native (the C unit tests), c/build/fuzz_api and c/build/fuzz_model (the fuzz
#           harnesses' seeded drivers), all with gcc under ASan + UBSan.
#   web     web/dist/page.js and its chunks, widget.js, widget.classic.js, the workers (train-, poems-,
#           poem-groups-, gpt2- and gpt2-hash-worker.js), katex/ and widget/, the folder a course copies to embed the
#           widget (esbuild, web/tools/bundle.js),
#           then a brotli and a gzip copy beside each file of web/dist but widget/ and the shipped model
#           (web/tools/precompress.js), which web/tools/serve.js sends to browsers that accept them.
# Usage: bash build.sh [wasm] [native] [web] [--if-needed]      (no target: all three)
#        bash build.sh --wasm-to DIR                             (the wasm alone, into DIR)
#   --if-needed: build a target only when its inputs changed since it was last built.
set -euo pipefail
cd "$(dirname "$0")"
export LC_ALL=C # the same file order, and so the same bytes, everywhere

fail() {
  echo "build.sh: $*" >&2
  exit 2
}

targets=() if_needed=0 wasm_to=
while (($#)); do
  case "$1" in
    wasm | native | web) targets+=("$1") ;;
    --if-needed) if_needed=1 ;;
    --wasm-to) [[ $# -ge 2 ]] || fail "--wasm-to needs a folder"; wasm_to=$2; shift ;;
    *) fail "unknown argument '$1' (targets: wasm, native, web; options: --if-needed, --wasm-to DIR)" ;;
  esac
  shift
done
((${#targets[@]})) || targets=(wasm native web)

# c/ by kind: the library (c/lib), its unit tests (c/tests), the fuzz harnesses (c/fuzz), the tools with
# mains of their own (c/tools), and what makes the wasm core (c/wasm: the Emscripten export file and the
# scripts that finish the build).
core_sources=(c/lib/*.c)
warnings=(-std=c11 -Wall -Wextra -Werror -pedantic)
# -sENVIRONMENT=web (the single-threaded core): the same file runs in browsers and Node:
# web/src/load.js compiles the wasm itself (found through the wasmUrl that c/wasm/wasm_url.js
# appends) and hands the glue the module.
# -sDYNAMIC_EXECUTION=0: no eval/new Function, so pages with a strict CSP can use it.
# -sMALLOC=emmalloc: 2 KB less of the wasm gzipped than dlmalloc, every widget's download; the core allocates
# a few large blocks when a layer or model is made and nothing while it runs, so the faster allocator buys nothing.
emcc_flags=(-O3 -msimd128 -sMODULARIZE=1 -sEXPORT_ES6=1 -sEXPORT_NAME=createMhaCore -sMALLOC=emmalloc
  -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=2GB -sDYNAMIC_EXECUTION=0 -sFILESYSTEM=0 -sASSERTIONS=0
  -sEXPORTED_RUNTIME_METHODS=HEAPU8,HEAPF32,HEAPF64)
# The threaded core (mha_set_threads): natively always; in wasm the -mt build, which needs
# cross-origin isolation in browsers. Its pool of Web Workers is sized by the Module's `threads`
# (web/src/load.js passes the number it will ask mha_set_threads for): the caller is one of them.
# -Wno-pthreads-mem-growth: growth with threads only slows the glue's own heap reads (it checks the
# buffer on each); web/src/ re-creates its views after every call that may allocate anyway.
threads=(-pthread -DMHA_THREADS)
emcc_threads=("${threads[@]}" -sENVIRONMENT=web,worker '-sPTHREAD_POOL_SIZE=Module["threads"]-1' -Wno-pthreads-mem-growth)
# The -fma builds (see build_wasm_into): clang 14 emits relaxed SIMD's fused multiply-add only with
# -mrelaxed-simd, where c/lib/kernels.c asks for it.
emcc_fma=(-mrelaxed-simd)
sanitizers=(-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)

# What each target is built from, as one hash: its files' names and contents, and its flags.
hash_of() { { printf '%s\n' "${@:2}"; printf '%s\n' $1 | sort | xargs sha256sum; } | sha256sum | cut -d' ' -f1; }
wasm_inputs() { hash_of "$(echo c/lib/* c/wasm/*)" "${emcc_flags[@]}" "${emcc_threads[@]}" "${emcc_fma[@]}"; }
native_inputs() { hash_of "$(echo c/lib/* c/tests/* c/fuzz/*)" "${sanitizers[@]}" "${threads[@]}"; }
# The web target's compressed copies follow the committed core and the model too.
web_inputs() { hash_of "$(find web -path web/dist -prune -o -path web/poems/build -prune -o \( -name '*.js' -o -name '*.css' \) -print | sort) web/widget/example.html web/tools/bundle.js web/tools/precompress.js $(echo web/dist/mha-core*.{mjs,js,wasm}) web/poems/poems.safetensors web/poems/poems.card.json package-lock.json"; }

# Builds target $1 unless --if-needed and its stamp file $2 already holds its inputs' hash $3.
build_target() {
  local name=$1 stamp=$2 inputs=$3
  if ((if_needed)) && [[ -f $stamp && "$(cat "$stamp")" == "$inputs" ]]; then return; fi
  "build_$name"
  echo "$inputs" > "$stamp"
}

need_emcc() {
  command -v emcc >/dev/null 2>&1 && return
  fail "emcc (Emscripten) is missing: it builds the wasm from c/. Install it with:
    sudo apt-get update && sudo apt-get install -y emscripten"
}

# Both cores into folder $1, each glue ending with the script $2 (for the single-threaded one, after
# c/wasm/wasm_url.js); extra flags after them.
build_cores() {
  local into=$1 post=$2
  shift 2
  mkdir -p "$into"
  # Debian's emcc runs its optimiser with the system's node modules (acorn).
  NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH} emcc "${warnings[@]}" "${emcc_flags[@]}" "$@" -sENVIRONMENT=web \
    --extern-post-js c/wasm/wasm_url.js --extern-post-js "$post" "${core_sources[@]}" c/wasm/wasm_exports.c -o "$into/mha-core.mjs"
  NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH} emcc "${warnings[@]}" "${emcc_flags[@]}" "$@" "${emcc_threads[@]}" \
    --extern-post-js "$post" "${core_sources[@]}" c/wasm/wasm_exports.c -o "$into/mha-core-mt.mjs"
}

build_wasm_into() {
  need_emcc
  # The build's id, from its inputs: written into both glues (coreBuild) and every wasm (c/wasm/mark_build.js),
  # so web/src/load.js can refuse a wasm of another build.
  local id post
  id=$(wasm_inputs | cut -c1-16)
  post=$(mktemp)
  echo "export const coreBuild = '$id'; // the build of the wasm this glue calls: web/src/load.js checks it" > "$post"
  build_cores "$1" "$post"
  # The -fma pair: the same C with relaxed SIMD's fused multiply-add in the matrix kernel, for the
  # engines that have it (web/src/load.js loads it beside the threaded core). Only the wasm differs:
  # the glue must be the same bytes, so one copy of it serves both.
  local fused
  fused=$(mktemp -d)
  build_cores "$fused" "$post" "${emcc_fma[@]}"
  for glue in mha-core.mjs mha-core-mt.mjs mha-core-mt.worker.js; do
    cmp -s "$1/$glue" "$fused/$glue" || fail "$glue of the -fma build differs from the other's: it cannot share it"
  done
  node c/wasm/relaxed_madd.js "$fused/mha-core.wasm" "$1/mha-core-fma.wasm"
  node c/wasm/relaxed_madd.js "$fused/mha-core-mt.wasm" "$1/mha-core-mt-fma.wasm"
  rm -rf "$fused" "$post"
  for wasm in mha-core mha-core-mt mha-core-fma mha-core-mt-fma; do node c/wasm/mark_build.js "$1/$wasm.wasm" "$id"; done
}
build_wasm() { build_wasm_into web/dist; }

build_native() {
  mkdir -p c/build
  gcc "${warnings[@]}" "${sanitizers[@]}" "${threads[@]}" "${core_sources[@]}" c/tests/*.c -lm -o c/build/test_native
  for harness in c/fuzz/*.c; do
    gcc "${warnings[@]}" "${sanitizers[@]}" "${threads[@]}" "${core_sources[@]}" "$harness" -lm -o "c/build/$(basename "$harness" .c)"
  done
}

build_web() {
  mkdir -p web/dist
  if [[ ! -d node_modules/esbuild ]]; then
    echo "build.sh: node_modules is missing; installing the locked packages (npm ci)" >&2
    npm ci --no-audit --no-fund
  fi
  node web/tools/bundle.js
  node web/tools/precompress.js
}

if [[ -n $wasm_to ]]; then
  build_wasm_into "$wasm_to"
  exit 0
fi

for target in "${targets[@]}"; do
  case $target in
    wasm) build_target wasm web/dist/mha-core.inputs "$(wasm_inputs)" ;;
    native) build_target native c/build/.inputs "$(native_inputs)" ;;
    web) build_target web web/dist/.web-inputs "$(web_inputs)" ;;
  esac
done
