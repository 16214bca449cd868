/*
 * fuzz_generate.c: libFuzzer harness over cubind-gen's whole path, in-process: the input is
 * written to a .cu file, then parse (libclang) -> check -> emit run as in cubind-gen. Slow
 * (a libclang parse per input, ~20-300 ms with the cached prelude): run it with the seed corpus
 * (tests/generator/fixtures) and a dictionary (cuda.dict). Invariant beyond the sanitizers:
 * after a successful check, emitting never fails.
 * Settings (environment): CUBIND_FUZZ_CUDA_PATH (default /usr/local/cuda),
 * CUBIND_FUZZ_INCLUDE (cubind's runtime/include; default from the build),
 * CUBIND_FUZZ_CACHE (prelude cache directory; default none).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "emit.h"
#include "model.h"
#include "parse.h"
#include "util.h"

#ifndef CUBIND_FUZZ_DEFAULT_INCLUDE
#define CUBIND_FUZZ_DEFAULT_INCLUDE "runtime/include"
#endif

static char input_path[4096];
static cubind_strlist user_args;
static const char *cuda_path, *cache_dir;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  char dir[] = "/tmp/cubind-fuzz-XXXXXX";
  const char *include = getenv("CUBIND_FUZZ_INCLUDE");
  char *arg;
  (void)argc;
  (void)argv;
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    exit(1);
  }
  snprintf(input_path, sizeof input_path, "%s/fuzz.cu", dir);
  cuda_path = getenv("CUBIND_FUZZ_CUDA_PATH") ? getenv("CUBIND_FUZZ_CUDA_PATH") : "/usr/local/cuda";
  cache_dir = getenv("CUBIND_FUZZ_CACHE");
  arg = cubind_xasprintf("-I%s", include ? include : CUBIND_FUZZ_DEFAULT_INCLUDE);
  cubind_strlist_add(&user_args, arg);
  free(arg);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const cubind_strlist no_defines;
  cubind_parse_options options = {0};
  cubind_model model = {0};
  cubind_buf header = {0}, source = {0};
  FILE *file = fopen(input_path, "wb");
  int status;
  if (!file || fwrite(data, 1, size, file) != size || fclose(file) != 0) {
    perror(input_path);
    abort();
  }
  model.source_name = cubind_xstrdup("fuzz.cu");
  model.file_stem = cubind_xstrdup("fuzz");
  model.module_name = cubind_xstrdup("fuzz");
  options.input = input_path;
  options.cuda_path = cuda_path;
  options.std = "-std=c++17";
  options.user_args = &user_args;
  options.variant_defines = options.implied_defines = &no_defines;
  options.cache_dir = cache_dir;
  status = cubind_parse(&options, &model, NULL);
  if (getenv("CUBIND_FUZZ_VERBOSE"))
    fprintf(stderr, "fuzz_generate: parse %d, %u kernels\n", status, (unsigned)model.num_kernels);
  if (status == 0 && cubind_check(&model) == 0) {
    if (cubind_emit_header(&model, &header) != 0 || cubind_emit_source(&model, &source) != 0)
      abort();
  }
  cubind_buf_free(&header);
  cubind_buf_free(&source);
  cubind_model_free(&model);
  return 0;
}
