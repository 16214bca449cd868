/*
 * fuzz_binary.c: libFuzzer harness for binary.c, which reads nvcc's output (--kernels-from):
 * arbitrary bytes as a fatbin or cubin, then the demangler on every symbol found. Invariants
 * beyond the sanitizers: every kernel has a non-empty symbol and at least one architecture,
 * kernels are sorted and unique, and cubind_binary_find finds each of them.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "binary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  cubind_binary binary = {0};
  size_t i;
  (void)cubind_binary_add(&binary, "fuzz.fatbin", data, size);
  for (i = 0; i < binary.num_kernels; i++) {
    const cubind_binary_kernel *kernel = &binary.kernels[i];
    char *demangled;
    if (!kernel->symbol[0] || !kernel->num_archs || cubind_binary_find(&binary, kernel->symbol) != kernel)
      abort();
    if (i > 0 && strcmp(binary.kernels[i - 1].symbol, kernel->symbol) >= 0)
      abort();
    demangled = cubind_demangle(kernel->symbol);
    free(demangled);
  }
  cubind_binary_free(&binary);
  return 0;
}
