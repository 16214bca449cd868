# deps.sh: sourced by the set-up scripts. Installs, from Debian's packages, what the build and
# the tests need and the machine lacks; finds the CUDA toolkit. Never downloads anything else.

cubind_need_packages() {
  local missing=() pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
      missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "cubind: installing from Debian: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
      "${missing[@]}" >/dev/null ||
    { echo "cubind: apt-get could not install: ${missing[*]}" >&2; return 1; }
}

# The toolkit: nvcc on PATH, $CUDA_PATH, or /usr/local/cuda. Puts its bin/ on PATH (the
# toolkit's installer does not) and sets CUDACXX for CMake.
cubind_find_cuda() {
  local nvcc
  nvcc=$(command -v nvcc || true)
  [ -z "$nvcc" ] && [ -n "${CUDA_PATH:-}" ] && [ -x "$CUDA_PATH/bin/nvcc" ] && nvcc=$CUDA_PATH/bin/nvcc
  [ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
  if [ -z "$nvcc" ]; then
    echo "cubind: no CUDA toolkit found (nvcc not on PATH, nor in \$CUDA_PATH or /usr/local/cuda)" >&2
    return 1
  fi
  export CUDACXX="$nvcc"
  export PATH="$(dirname "$nvcc"):$PATH"
}

# What building everything (examples and tests included) needs: compilers, CMake and both of
# its usual generators (Ninja, make), libclang for cubind-gen, cmocka and valgrind for the
# runtime tests, pkg-config and binutils (readelf) for the build-system tests.
cubind_base_deps() {
  cubind_need_packages cmake ninja-build make pkg-config binutils gcc g++ libc6-dev \
    libclang-19-dev libcmocka-dev valgrind libzstd-dev liblz4-dev
}
