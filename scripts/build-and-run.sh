#!/usr/bin/env bash
# Builds everything (cubind-gen, libcubind, every example) and runs the main job: the doublify
# example, from .cu through cubind-gen and nvcc to a running, self-checking program.
# Installs what is missing from Debian's packages. Without a GPU it says so and exits 77.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
cubind_base_deps
cubind_find_cuda

build=${CUBIND_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j "$(nproc)"

echo
echo "== generated from examples/doublify/doublify.cu by cubind-gen:"
echo "   $build/examples/doublify_kernels/doublify.cubind.h (the C API), .cubind.c, .fatbin.c"
grep -E "^cubind_status" "$build/examples/doublify_kernels/doublify.cubind.h" | sed 's/^/   /'
echo "== running $build/examples/doublify"
set +e
"$build/examples/doublify"
rc=$?
set -e
if [ $rc -eq 77 ]; then
  echo "cubind: built everything, but there is no usable GPU here, so the example could not run."
fi
exit $rc
