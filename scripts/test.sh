#!/usr/bin/env bash
# Runs the whole test suite: builds with libclang 19 and Ninja and runs every test (GPU tests
# and examples report "skipped: no GPU" where there is none); configures and builds the tree
# again with CMake's default generator, Unix Makefiles (architecture 90 only, for time); then
# rebuilds cubind-gen against libclang 14 and runs its tests again; last, the CPU suite under
# ASan+UBSan and the threading tests under TSan (scripts/sanitize.sh). Installs what is missing
# from Debian's packages (every tool a test needs: a test that cannot run fails).
#   scripts/test.sh          the whole suite
#   scripts/test.sh --gpu    only the GPU tests and examples, plus compute-sanitizer over them,
#                            on a GPU machine (scripts/gpu-suite.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
cubind_base_deps
cubind_need_packages libclang-14-dev gcc-aarch64-linux-gnu g++-aarch64-linux-gnu \
  clang-14 libclang-rt-14-dev
cubind_find_cuda
jobs=$(nproc)

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUBIND_LLVM_VERSION=19 >/dev/null
cmake --build build -j "$jobs"

if [ "${1:-}" = "--gpu" ]; then
  exec scripts/gpu-suite.sh build
fi

ctest --test-dir build --output-on-failure -j "$jobs"

echo "== the same tree with Unix Makefiles (CMake's default generator), CUDA architecture 90"
cmake -S . -B build-make -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCUBIND_LLVM_VERSION=19 -DCMAKE_CUDA_ARCHITECTURES=90 -DCUBIND_BENCH_MODULE_KERNELS=100 \
  >/dev/null
cmake --build build-make -j "$jobs" >build-make/build.log 2>&1 ||
  { tail -60 build-make/build.log; echo "cubind: the Unix Makefiles build failed" >&2; exit 1; }
ctest --test-dir build-make -R '^(gpu\.[a-z_]+\.no_driver|cmake\.no_gpu\.)' --no-tests=error \
  --output-on-failure -j "$jobs"

echo "== cubind-gen against libclang 14"
cmake -S . -B build-llvm14 -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUBIND_LLVM_VERSION=14 \
  -DCUBIND_BUILD_EXAMPLES=OFF -DCUBIND_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build-llvm14 -j "$jobs"
ctest --test-dir build-llvm14 -R "^generator\." --no-tests=error --output-on-failure -j "$jobs"

echo "== the CPU suite under AddressSanitizer + UndefinedBehaviorSanitizer, threads under TSan"
scripts/sanitize.sh
