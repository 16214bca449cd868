/*
 * prelude_cache.h: the precompiled CUDA prelude. What clang's CUDA mode includes before every
 * file (~0.35 s of parsing), and the toolkit headers the .cu includes first (CUB: seconds), is
 * precompiled once per libclang, toolkit, option set and list of those headers into
 * <cache_dir>/prelude-<key>.pch and reused. A cache may make a run slower, never make it fail:
 * each .pch has a checksum of its whole content in <name>.sum, written after it; a .pch whose
 * checksum does not match (truncated, overwritten in place, half-written by a killed run) is
 * rebuilt, and temporary files never stay behind a run that finishes.
 */
#ifndef CUBIND_GEN_PRELUDE_CACHE_H
#define CUBIND_GEN_PRELUDE_CACHE_H

#include <clang-c/Index.h>

#include "util.h"

/*
 * prelude_toolkit_includes: the toolkit headers a .cu includes before anything else
 * (`#include <cub/cub.cuh>`, `#include <cooperative_groups.h>`: found in the toolkit's include/
 * or include/cccl/), in order, appended to `includes`. Only comments and blank lines may come
 * between them, so that precompiling them first is the same parse: the .cu's own #includes of
 * them are then no-ops (their include guards), and a CUB-heavy .cu parses in a fraction of the
 * time. The first line that is anything else ends the list.
 */
void prelude_toolkit_includes(const char *path, const char *cuda_path,
                              cubind_strlist *includes);

/*
 * prelude_cache_get: the path of a valid prelude for clang arguments `args` and the toolkit
 * headers `includes` (new string), building it when missing or invalid; NULL when none could be
 * made (the parse then goes without). Never reports an error: the cache is an optimisation.
 */
char *prelude_cache_get(CXIndex index, const cubind_strlist *args, const char *cache_dir,
                        const char *cuda_path, const cubind_strlist *includes);

/* prelude_cache_drop: removes a prelude found stale (and its checksum). */
void prelude_cache_drop(const char *path);

#endif /* CUBIND_GEN_PRELUDE_CACHE_H */
