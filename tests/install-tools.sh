#!/usr/bin/env bash
# Installs the Debian packages the tests drive, when one is missing: Emscripten (builds the wasm from
# c/), gcc (the native tests under sanitizers), clang with its libFuzzer runtime (the documented
# coverage-guided fuzzers), Chromium (the browser tests), Noto CJK (readable screenshots), fortunes-zh
# (唐诗三百首, the poetry model's held-out poems), opencc (its corpus in simplified characters), MkDocs and
# Jupyter Notebook (the course-recipe tests).
# `npm test` runs it first, so a fresh Debian machine needs nothing by hand; it asks for nothing when
# everything is there.
set -euo pipefail

missing=()
command -v emcc >/dev/null 2>&1 || missing+=(emscripten)
command -v gcc >/dev/null 2>&1 || missing+=(gcc)
[[ -x ${CHROMIUM_PATH:-/usr/bin/chromium} ]] || missing+=(chromium)
dpkg -s fonts-noto-cjk >/dev/null 2>&1 || missing+=(fonts-noto-cjk)
dpkg -s fortunes-zh >/dev/null 2>&1 || missing+=(fortunes-zh)
command -v opencc >/dev/null 2>&1 || missing+=(opencc) # the poetry corpus's conversion (npm run corpus)
# Without their recommended packages: the notebook server's (scipy, matplotlib, pandoc…) are not needed.
lean=()
# Debian 12's clang is 14, the one Emscripten brings; its libFuzzer runtime is a package of its own (3 MB).
command -v clang >/dev/null 2>&1 || lean+=(clang)
dpkg -s libclang-rt-14-dev >/dev/null 2>&1 || lean+=(libclang-rt-14-dev)
command -v mkdocs >/dev/null 2>&1 || lean+=(mkdocs)
command -v jupyter-notebook >/dev/null 2>&1 || lean+=(jupyter-notebook python3-ipykernel)
((${#missing[@]} + ${#lean[@]})) || exit 0

if [[ $(id -u) -eq 0 ]]; then
  sudo=()
elif sudo -n true 2>/dev/null; then
  sudo=(sudo)
else
  echo "tests/install-tools.sh: the tests need these Debian packages: ${missing[*]} ${lean[*]}" >&2
  echo "    sudo apt-get update && sudo apt-get install -y ${missing[*]} ${lean[*]}" >&2
  exit 1
fi
echo "tests/install-tools.sh: installing ${missing[*]} ${lean[*]}" >&2
"${sudo[@]}" apt-get update -qq
if ((${#missing[@]})); then
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi
if ((${#lean[@]})); then
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${lean[@]}"
fi
