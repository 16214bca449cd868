/*
 * parse.h: the libclang layer's interface. The parse records facts about a .cu file (and
 * nvcc's binary of it) in the model; check.c decides what they mean. Only the parse files
 * (parse*.c, clang_*.c, prelude_cache.c) include clang-c/Index.h; clang_util.h lists them.
 */
#ifndef CUBIND_GEN_PARSE_H
#define CUBIND_GEN_PARSE_H

#include "binary.h"
#include "model.h"
#include "util.h"

/* A binary of an earlier source of the same library (--earlier-binary), with its file name. */
typedef struct cubind_earlier_binary {
  const char *name;
  cubind_binary binary;
} cubind_earlier_binary;

typedef struct cubind_parse_options {
  const char *input;           /* the .cu file */
  const char *cuda_path;       /* the CUDA toolkit root */
  const char *std;             /* "-std=c++17" */
  const cubind_strlist *user_args; /* -I/-isystem/-D/-U arguments, each option and value joined */
  /* -D arguments of the macros nvcc's own options define (--extended-lambda:
     -D__CUDACC_EXTENDED_LAMBDA__), before the user's as nvcc has them: those the installed
     preludes have a variant for key every prelude (a run with --extended-lambda takes the ones
     built with it); the others vary like the user's -D (a prelude built without one is taken
     where no header it holds names the macro: prelude_cache.h) */
  const cubind_strlist *variant_defines, *implied_defines;
  const char *cache_dir;       /* where the precompiled CUDA prelude is kept; NULL: none */
  const char *installed_preludes; /* the preludes cubind's build made, looked up after the
                                  cache's (read-only; NULL: none) */
  const cubind_binary *binary; /* nvcc's kernels (--kernels-from); NULL: only the kernels the
                                  source names (plain kernels, explicit instantiations) */
  const cubind_earlier_binary *earlier; /* --earlier-binary: a header's kernels that one of
                                  these holds are bound by that source's stubs */
  size_t num_earlier;
  const char *host_compiler;   /* the compiler nvcc uses for host code (its include directories
                                  are searched after clang's); NULL: none */
  int host_openmp;             /* nvcc passes -fopenmp to it: define _OPENMP as it does */
} cubind_parse_options;

/*
 * cubind_parse: parses options->input as CUDA device code and records in model every
 * __global__ function declared in it, every template kernel and explicit instantiation of one,
 * every __constant__/__device__ variable, the records they take by value, and with
 * options->binary every other kernel of that binary that clang resolves in the .cu (or, for
 * those it does not, why). Clang's errors in the user's files are printed as
 * "file:line:col: error: ...". When deps is not NULL, every non-system file the parse read
 * (the input first) is added to it.
 * With a cache_dir and libclang 16 or newer, the headers clang's CUDA mode includes before
 * every file are precompiled once per toolkit, libclang and option set and reused
 * (prelude_cache.h): that takes ~0.35 s off every run.
 * Returns 0 on success, 1 when an error was reported.
 */
int cubind_parse(const cubind_parse_options *options, cubind_model *model, cubind_strlist *deps);

/*
 * cubind_prepare: builds, in the foreground, the precompiled prelude that cubind_parse with the
 * same options will take (options->binary needs only its architectures: they define
 * __CUDA_ARCH_LIST__), so that a build can run it beside nvcc and the parse after nvcc finds it
 * warm. Never fails: the cache is an optimisation (nothing to do without one, or before
 * libclang 16).
 */
void cubind_prepare(const cubind_parse_options *options);

/* cubind_libclang_version: libclang's version string (for --version); a new string. */
char *cubind_libclang_version(void);

#endif /* CUBIND_GEN_PARSE_H */
