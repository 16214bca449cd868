/*
 * prelude_cache.h: the precompiled CUDA prelude. What clang's CUDA mode includes before every
 * file (the base prelude, which option sets share where their macros and -I directories
 * change nothing in it), and the system headers the .cu includes first (the C++ library, CUB:
 * seconds) with the macro lines between them, is precompiled once per libclang, toolkit,
 * option set and list of those lines into <cache_dir>/prelude-<key>.pch and reused; a cached
 * part of a list serves the whole list meanwhile. Each prelude records the
 * files it holds in <name>.files, with their sizes and modification times, checked before each
 * use (the headers the base prelude holds, <cuda_runtime.h> and the like, are left out of every
 * key). A run never builds a prelude itself: a detached low-priority builder makes the missing
 * one for the next run (only the texts after a slow main parse wait for it, a bounded time:
 * prelude_cache_wait).
 * Installed preludes: cubind's build precompiles the base prelude and those of the headers
 * that are dear to parse (CUB, Thrust, cooperative groups, <curand_kernel.h>, <iostream> ...:
 * CUBIND_PRELUDE_HEADERS) into <prefix>/share/cubind/preludes, the same
 * way, with the shim directory there. A run looks up each key in its cache, then there (read
 * only; a prelude of the cache may be chained onto an installed one), so the first run of an
 * empty cache need not parse clang's CUDA headers. A group of them (the `groups` file there
 * lists them) also serves a .cu whose headers include it first: <cub/config.cuh> and
 * <cub/util_type.cuh> begin each public CUB header (prelude_cache.c: add_group_candidates).
 * A checked group serves where no lead shows it read: tried first, kept only where the parse
 * names its headers itself (prelude_attempt below).
 * A cache may make a run slower, never make it fail, nor fill a file system (no prelude is
 * built with less than 256 MiB free: LLVM ends a save that meets a full disk half-way):
 * <name>.sum holds the checksums of the .pch and its .files, written after both; a prelude
 * that does not match them (truncated, overwritten in place, half-written by a killed run) is
 * not used and is rebuilt, and temporary files never stay behind a run that finishes.
 */
#ifndef CUBIND_GEN_PRELUDE_CACHE_H
#define CUBIND_GEN_PRELUDE_CACHE_H

#include "util.h"

/*
 * prelude_leading_lines: the lines a .cu begins with that its prelude can hold, appended to
 * `lines`: `#include <header>` of system headers (found in the toolkit's include/ or
 * include/cccl/ or another system directory of clang's arguments `args`, and in none of their
 * user directories: a user's header changes as the program does, and its kernels must be parsed
 * from the .cu's side), and one-line #define and #undef lines between them. Only comments and
 * blank lines may come between those lines; `#include <cubind/annotations.h>` (CUBIND_ macros
 * only, which no system header uses) is stepped over; a local header (`#include "k.cuh"`, next
 * to the file that includes it) is followed into its own leading lines (past its include guard
 * or #pragma once), and ends the list. Anything else ends it too. Precompiling those lines
 * first is then the same parse: the .cu's own #includes of the headers are no-ops (their
 * include guards), its macro lines repeat the same definitions, and a CUB-heavy .cu parses in a
 * fraction of the time. Trailing macro lines are left out (they change no header).
 */
void prelude_leading_lines(const char *path, const cubind_strlist *args, const char *cuda_path,
                           cubind_strlist *lines);

/*
 * What a parse's prelude depends on: clang's arguments and, of them, how many are the
 * generator's own (clang_session.c: build_arguments). Past those, the -D, -U and -I arguments
 * (the user's, the binary's __CUDA_ARCH_LIST__, the host compiler's _OPENMP) are left out of the
 * key of the base prelude, which option sets share (see prelude_cache_get).
 */
typedef struct prelude_options {
  const cubind_strlist *args;
  size_t own_args;
  size_t user_args; /* where the user's -D, -U, -I and -isystem arguments begin (the macros
                       of nvcc's options that no installed variant has first) */
  const char *cache_dir;
  const char *installed_dir; /* preludes cubind's build made, read-only (NULL: none) */
  const char *cuda_path;
} prelude_options;

/*
 * A prelude to try before the one prelude_cache_get returns: an installed checked group (the
 * `groups` file's `checked <libraries> <headers>` lines: Thrust's <thrust/transform.h>, which
 * most Thrust headers read only through macro-named #includes that no lead shows). It holds
 * what the .cu's parse reads only if that parse reads each of `headers`: it counts when the parse
 * names each in an #include of its own (a file the prelude holds is never read again, so a
 * header the parse reaches only through one of those is not shown; the parse is then redone
 * with the next prelude).
 */
typedef struct prelude_attempt {
  char *path;
  cubind_strlist headers;
} prelude_attempt;

typedef struct prelude_attempts {
  prelude_attempt items[4];
  size_t count;
} prelude_attempts;

/* prelude_attempts_free: frees the attempts' paths and headers and empties the list. */
void prelude_attempts_free(prelude_attempts *attempts);

/*
 * prelude_cache_get: the path of the best valid prelude there is now for the options and the
 * .cu's leading lines `lines` (prelude_leading_lines), or NULL (new string). The base prelude
 * (what clang includes before every CUDA file, ~0.4 s of a light file's parse) is the option
 * set's own, or the shared one built without its -D, -U and -I arguments where those change
 * nothing in it: no file it holds names one of the macros, and no file of one of the
 * directories could be found in place of one it holds or asks __has_include about. The
 * #include lines of headers the base prelude already holds, as its <name>.files records, are
 * left out of the key. Without the whole list's prelude it is the one of the heaviest cached
 * part of the list (a prefix, a subsequence of its #include lines, or an installed group its
 * headers include first; the rest is parsed normally), else the base's; and a detached
 * low-priority builder is started (one per option set at a time; a busy one is left the list)
 * that builds what is missing, so that the next .cu finds it (never chained onto a checked
 * group). `attempts` gets the checked groups heavier than the prelude returned, heaviest first,
 * when the whole list's is not there (prelude_attempt). Never builds in the foreground
 * and never reports an error: the cache is an optimisation. *whole: 1 when the prelude holds
 * the whole list. The builder is a fork of this process: call it before libclang has parsed
 * anything here (no thread of its may hold a lock across the fork).
 */
char *prelude_cache_get(const prelude_options *options, const cubind_strlist *lines, int *whole,
                        prelude_attempts *attempts);

/*
 * prelude_cache_wait: waits up to `seconds` for the option set's builder to finish, then returns
 * the whole list's prelude (new string) if it is there and valid, else NULL.
 */
char *prelude_cache_wait(const prelude_options *options, const cubind_strlist *lines,
                         double seconds);

/*
 * prelude_cache_drop: removes a prelude of the cache found stale (and its checksums and list of
 * files); an installed one is left as it is.
 */
void prelude_cache_drop(const prelude_options *options, const char *path);

#endif /* CUBIND_GEN_PRELUDE_CACHE_H */
