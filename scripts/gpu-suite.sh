#!/usr/bin/env bash
# Runs the GPU half of the test suite from an existing build, on a machine with a GPU:
#   1. every GPU test and every example, through ctest (label "gpu"), each checking its results
#      against a CPU reference;
#   2. compute-sanitizer (memcheck with leak check, racecheck, initcheck, synccheck) over each of
#      those programs, except the three that provoke CUDA errors on purpose (gpu_fault: an illegal
#      address; gpu_noarch: a fatbin without code for the GPU; gpu_arch_guard: a kernel absent
#      from the code for this GPU).
#
#   scripts/gpu-suite.sh [BUILD_DIR] [LOG_DIR] [PROGRAM...]
#                                       (scripts/test.sh --gpu builds, then runs this)
# PROGRAMs (e.g. gpu_implicit) limit the sanitizer runs to those; CUBIND_GPU_SUITE_CTEST=0 skips
# step 1. The soak (label gpu_soak) is not part of it: ctest -L gpu_soak runs it.
#
# Builds nothing: the build directory can come from another machine. Exit status 0 when every
# test passed and every sanitizer run was clean, 1 otherwise.
set -u
build=${1:-build}
logs=${2:-$build/gpu-suite-logs}
shift $(($# < 2 ? $# : 2))
only=("$@")
mkdir -p "$logs"
failed=0

if [ "${CUBIND_GPU_SUITE_CTEST:-1}" != 0 ]; then
  echo "== ctest -L '^gpu\$'"
  ctest --test-dir "$build" -L '^gpu$' --output-on-failure -j 1 2>&1 | tee "$logs/ctest.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || failed=1
  if grep -q "tests passed, 0 tests failed" "$logs/ctest.log" && grep -q "(Skipped)" "$logs/ctest.log"; then
    echo "note: some GPU tests were skipped (see above)"
  fi
fi

sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ ! -x "$sanitizer" ]; then
  echo "compute-sanitizer not found: sanitizer runs skipped"
  exit 1
fi

programs=()
for p in "$build"/examples/* "$build"/tests/gpu/gpu_*; do
  [ -f "$p" ] && [ -x "$p" ] || continue
  case $(basename "$p") in gpu_fault | gpu_noarch | gpu_arch_guard) continue ;; esac
  if [ ${#only[@]} -gt 0 ] && [[ " ${only[*]} " != *" $(basename "$p") "* ]]; then
    continue
  fi
  programs+=("$p")
done

echo "== compute-sanitizer over ${#programs[@]} programs"
printf '%-22s %-10s %s\n' program tool result | tee "$logs/sanitizer.txt"
for p in "${programs[@]}"; do
  name=$(basename "$p")
  for tool in memcheck racecheck initcheck synccheck; do
    extra=()
    [ $tool = memcheck ] && extra=(--leak-check full)
    # racecheck looks for shared-memory hazards inside kernels; gpu_threads' kernels are
    # gpu_types' (racechecked there), and racecheck serialising 16 host threads' launches takes
    # minutes.
    if [ $tool = racecheck ] && [ "$name" = gpu_threads ]; then
      printf '%-22s %-10s %s\n' "$name" $tool "not run (kernels racechecked in gpu_types)" |
        tee -a "$logs/sanitizer.txt"
      continue
    fi
    log=$logs/$name.$tool.log
    # CUBIND_UNDER_SANITIZER: programs leave out what takes minutes there (gpu_check.h).
    CUBIND_UNDER_SANITIZER=1 timeout 120 "$sanitizer" --tool $tool "${extra[@]}" \
      --error-exitcode 99 "$p" >"$log" 2>&1
    rc=$?
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY" "$log" | tr '\n' ' ')
    case $rc in
      0) result="clean ${summary}" ;;
      77) result="skipped (${summary:-program skipped})" ;;
      *) result="FAILED rc=$rc ${summary}"; failed=1 ;;
    esac
    printf '%-22s %-10s %s\n' "$name" $tool "$result" | tee -a "$logs/sanitizer.txt"
  done
done
[ $failed -eq 0 ] && echo "gpu-suite: all passed" || echo "gpu-suite: FAILURES (logs in $logs)"
exit $failed
