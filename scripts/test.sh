#!/usr/bin/env bash
# Runs the whole test suite: builds with libclang 19 and runs every test (GPU tests and examples
# report "skipped: no GPU" where there is none), then rebuilds cubind-gen against libclang 14 and
# runs its tests again; last, the CPU suite under ASan+UBSan and the threading tests under TSan
# (scripts/sanitize.sh). Installs what is missing from Debian's packages.
#   scripts/test.sh          the whole suite
#   scripts/test.sh --gpu    only the GPU tests and examples, plus compute-sanitizer over them,
#                            on a GPU machine (scripts/gpu-suite.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
cubind_base_deps
cubind_need_packages libclang-14-dev valgrind gcc-aarch64-linux-gnu g++-aarch64-linux-gnu \
  clang-14 libclang-rt-14-dev
cubind_find_cuda
jobs=$(nproc)

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUBIND_LLVM_VERSION=19 >/dev/null
cmake --build build -j "$jobs"

if [ "${1:-}" = "--gpu" ]; then
  exec scripts/gpu-suite.sh build
fi

ctest --test-dir build --output-on-failure -j "$jobs"

echo "== cubind-gen against libclang 14"
cmake -S . -B build-llvm14 -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUBIND_LLVM_VERSION=14 \
  -DCUBIND_BUILD_EXAMPLES=OFF -DCUBIND_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build-llvm14 -j "$jobs"
ctest --test-dir build-llvm14 -R "^generator\." --no-tests=error --output-on-failure -j "$jobs"

echo "== the CPU suite under AddressSanitizer + UndefinedBehaviorSanitizer, threads under TSan"
scripts/sanitize.sh
