/*
 * parse_context.h: the state one parse of a .cu shares between the parse files (see
 * clang_util.h for their order), and where a declaration lies relative to the .cu.
 */
#ifndef CUBIND_GEN_PARSE_CONTEXT_H
#define CUBIND_GEN_PARSE_CONTEXT_H

#include <clang-c/Index.h>

#include "model.h"
#include "parse.h"

/*
 * parse_main_arch: the SM version whose __CUDA_ARCH__ the .cu's main parse sees (libclang's own
 * arch varies with its version): 90 without a binary or where the binary holds sm_90 code,
 * else the binary's highest below 90, else its lowest. A binary of one architecture (nvcc's
 * default sm_75, a Jetson's sm_87) is parsed as it was compiled: an extern "C" kernel is found
 * in it by name alone, so a parameter type chosen by __CUDA_ARCH__ must be that code's. The
 * binary's kernels the main parse does not resolve are tried again with each other
 * architecture's (parse_wrapper.c).
 */
unsigned parse_main_arch(const cubind_binary *binary);

typedef struct parse_context {
  const cubind_parse_options *options;
  const char *input;        /* the .cu as the user named it */
  char *input_real;         /* its real path (NULL when it has none) */
  char *input_dir_real;     /* the real path of its directory */
  cubind_model *model;      /* where the facts go */
  /* the main parse's reference lines (parse_wrapper.c): the binary's kernels', then the
     explicit instantiations' */
  size_t num_binary_lines;
  size_t num_instantiation_lines;
  size_t *instantiation_offsets;        /* [i]: where line i's `template` is in the .cu */
  cubind_strlist instantiation_lines;   /* [i]: line i */
  /* the headers parse_c_check.c found C can include, and those it cannot (real paths); the
     user headers its checks read */
  cubind_strlist c_headers, cxx_headers, c_check_files;
} parse_context;

/* parse_place: where the cursor's declaration lies: the .cu, a user header or a system header. */
cubind_place parse_place(const parse_context *ctx, CXCursor cursor);

/*
 * parse_location: the cursor's location; the .cu is named as the user named it, whatever path
 * clang took to it (a wrapper translation unit includes it by an absolute path).
 */
void parse_location(const parse_context *ctx, CXCursor cursor, cubind_location *location);

/*
 * parse_include_spelling: how the generated header (written next to nothing in particular)
 * can #include the header that declares `cursor`: its path relative to the .cu's directory,
 * else to the first -I directory holding it; NULL when neither does (new string).
 */
char *parse_include_spelling(const parse_context *ctx, CXCursor cursor);

#endif /* CUBIND_GEN_PARSE_CONTEXT_H */
