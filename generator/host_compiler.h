/* host_compiler.h: what nvcc's host compiler adds to the device parse (see host_compiler.c). */
#ifndef CUBIND_GEN_HOST_COMPILER_H
#define CUBIND_GEN_HOST_COMPILER_H

#include "util.h"

/*
 * host_compiler_arguments: appends to `args` what the host compiler `compiler` adds to nvcc's
 * device compile: its #include <...> directories, each as -idirafter DIR, and with `openmp` its
 * _OPENMP (-D_OPENMP=VALUE), as `compiler -E -v -dM` reports them. The report is remembered in
 * `cache_dir` (NULL: not remembered) and reused while the compiler's executable, the environment
 * variables it reads and the directories it listed or skipped as missing are as they were. A
 * compiler that cannot be run adds nothing.
 */
void host_compiler_arguments(const char *compiler, int openmp, const char *cache_dir,
                             cubind_strlist *args);

#endif
