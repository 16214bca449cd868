/*
 * macro_views.h: the macros that cubind-gen's parse (clang) and nvcc's preprocessor (its host
 * compiler's) define differently, and the kernels a user's file declares under a test of one.
 * The parse cannot take nvcc's values: clang's own headers need its __clang__ and __GNUC__,
 * CCCL reads clang's CUDA version from CUDA_VERSION, and the installed preludes hold one C++
 * mode. Such a kernel's C functions follow clang's branch, which need not be nvcc's: the
 * binary's check sees a difference only in sizes or in a C++ symbol, so it gets a warning.
 */
#ifndef CUBIND_GEN_MACRO_VIEWS_H
#define CUBIND_GEN_MACRO_VIEWS_H

#include "model.h"

/* What decides which macros differ: the run's own command line. */
typedef struct macro_views_options {
  int std_given;       /* a -std reached nvcc (and the parse): gcc's mode is strict then too */
  int clang_host;      /* nvcc's host compiler is clang: it defines __clang__ and __GNUC__ 4 */
} macro_views_options;

/*
 * cubind_warn_macro_views: warns, at each kernel the model binds, when a conditional group of
 * its file (#if ... #endif) that encloses it tests one of those macros. The files are the .cu
 * and its user headers, read again (their text, not clang's).
 */
void cubind_warn_macro_views(const cubind_model *model, const macro_views_options *options);

#endif /* CUBIND_GEN_MACRO_VIEWS_H */
