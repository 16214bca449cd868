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

/*
 * host_compiler_program: the compiler nvcc runs for -ccbin `named`: `named` itself, or, for a
 * directory, as nvcc reads one, the gcc in it (-ccbin /usr/bin runs /usr/bin/gcc). A new
 * string; NULL when `named` is a directory that holds no gcc that can be run.
 */
char *host_compiler_program(const char *named);

#endif
