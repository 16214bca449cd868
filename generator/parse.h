/*
 * parse.h: the libclang layer's interface. Only parse_clang.c includes clang-c/Index.h.
 */
#ifndef CUBIND_GEN_PARSE_H
#define CUBIND_GEN_PARSE_H

#include "model.h"
#include "util.h"

typedef struct cubind_parse_options {
  const char *input;           /* the .cu file */
  const char *cuda_path;       /* the CUDA toolkit root */
  const char *std;             /* "-std=c++17" */
  const cubind_strlist *user_args; /* -I/-isystem/-D/-U arguments, each option and value joined */
} cubind_parse_options;

/*
 * cubind_parse: parses options->input as CUDA device code and appends every __global__ function
 * defined or declared in it to model (templates are skipped with a warning). Clang's errors in
 * the user's files are printed as "file:line:col: error: ...". When deps is not NULL, every
 * non-system file the parse read (the input first) is added to it.
 * Returns 0 on success, 1 when an error was reported.
 */
int cubind_parse(const cubind_parse_options *options, cubind_model *model, cubind_strlist *deps);

/* cubind_libclang_version: libclang's version string (for --version); a new string. */
char *cubind_libclang_version(void);

#endif /* CUBIND_GEN_PARSE_H */
