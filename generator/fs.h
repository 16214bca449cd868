/*
 * fs.h: writing outputs all-or-nothing. Each output is first written to a temporary file in its
 * own directory (so the final rename stays on one file system and is atomic); only when every
 * output was staged are they renamed into place. An output whose content is unchanged is not
 * rewritten, so its timestamp stays and builds stay incremental.
 */
#ifndef CUBIND_GEN_FS_H
#define CUBIND_GEN_FS_H

#include <stddef.h>

typedef struct cubind_staged {
  char *path;      /* final name */
  char *temp;      /* staged temporary file; NULL when the content is unchanged */
  int special_fd;  /* an output that is no regular file (/dev/null, a pipe): open, else -1 */
  char *special;   /* what goes into it at commit (its own copy), and how much */
  size_t special_size;
} cubind_staged;

typedef struct cubind_outputs {
  cubind_staged items[8];
  size_t count;
} cubind_outputs;

/*
 * cubind_outputs_stage: compares `size` bytes of `data` with the file at `path`; when they
 * differ (or the file does not exist), writes them to a temporary file next to it. A `path` that
 * exists and is no regular file (`--depfile /dev/null`, a pipe, a terminal) is never replaced:
 * it is opened now without blocking (a FIFO without a reader is an error) and written at commit.
 * Returns 0, or 1 after reporting why (e.g. the directory is not writable).
 */
int cubind_outputs_stage(cubind_outputs *outputs, const char *path, const char *data,
                         size_t size);

/*
 * cubind_check_outputs: the one check that no output replaces an input or another output,
 * however the paths are spelled ("out/../out/k.cubind.h", a symlinked directory, a hard link).
 * Called before anything is written. Returns 0, or 1 after reporting which two paths meet.
 */
int cubind_check_outputs(const char *const *outputs, size_t num_outputs,
                         const char *const *inputs, size_t num_inputs);

/* cubind_outputs_commit: renames every staged file into place. Returns 0, or 1 on failure. */
int cubind_outputs_commit(cubind_outputs *outputs);

/* cubind_outputs_discard: removes the staged temporary files and frees the list. */
void cubind_outputs_discard(cubind_outputs *outputs);

/*
 * cubind_make_dirs: creates `dir` and its missing parents (like mkdir -p).
 * Returns 0, or 1 (after reporting why when `report` is 1).
 */
int cubind_make_dirs(const char *dir, int report);

/*
 * cubind_write_file: writes one file all-or-nothing (a temporary file next to it, renamed into
 * place), leaving it untouched when it already holds these bytes. Returns 0, or 1 (after
 * reporting why when `report` is 1).
 */
int cubind_write_file(const char *path, const char *data, size_t size, int report);

/*
 * cubind_temp_path: creates an empty temporary file next to `path` (".<name>.tmp-XXXXXX" in the
 * same directory, so that renaming it over `path` is atomic) and returns its name, or NULL.
 */
char *cubind_temp_path(const char *path);

/*
 * cubind_sweep_stale: removes the regular files in `dir` whose names `is_temp` accepts (given
 * `data`) once they are more than CUBIND_STALE_SECONDS old: temporary files that a killed run
 * left. A run still writing one is left alone (none takes an hour). cubind_outputs_commit and
 * cubind_write_file sweep the temporary files of the names they wrote.
 */
#define CUBIND_STALE_SECONDS 3600
void cubind_sweep_stale(const char *dir, int (*is_temp)(const char *name, const void *data),
                        const void *data);

/* The most bytes each kind of input may have (a larger one is an error, never read). */
#define CUBIND_MAX_SOURCE_BYTES (64ull << 20)   /* a .cu file, a .cubind.names file */
#define CUBIND_MAX_BINARY_BYTES (1ull << 30)    /* a fatbin or cubin nvcc wrote */
#define CUBIND_MAX_CACHE_BYTES (4ull << 30)     /* a precompiled prelude in the cache */

/*
 * cubind_read_file: reads a whole input file into *data (NUL-terminated, caller frees) and
 * *size. Only a regular file of at most `limit` bytes is read: a FIFO, device or directory, or
 * a larger file, is an error before anything is read. Returns 0, or 1 after reporting
 * "cannot read 'path': reason".
 */
int cubind_read_file(const char *path, unsigned long long limit, char **data, size_t *size);

/* cubind_read_file_quiet: cubind_read_file without a message (for caches). */
int cubind_read_file_quiet(const char *path, unsigned long long limit, char **data,
                           size_t *size);

/*
 * cubind_read_head_quiet: cubind_read_file_quiet, but of a file of `head` bytes or more only the
 * first `head` (*size is then `head`). The size limit and the other checks are the same.
 */
int cubind_read_head_quiet(const char *path, unsigned long long limit, size_t head, char **data,
                           size_t *size);

/*
 * cubind_map_file_quiet: maps a whole file read-only into *data and *size, with the checks of
 * cubind_read_file and no message (for caches: a file that clang maps again is not copied).
 * An empty file gives *data NULL. Returns 0, or 1; release with cubind_unmap_file.
 */
int cubind_map_file_quiet(const char *path, unsigned long long limit, const void **data,
                          size_t *size);

/* cubind_unmap_file: releases what cubind_map_file_quiet mapped. */
void cubind_unmap_file(const void *data, size_t size);

/*
 * cubind_check_input: the checks of cubind_read_file, without reading (for the .cu, which
 * libclang reads). Returns 0, or 1 after reporting why.
 */
int cubind_check_input(const char *path, unsigned long long limit);

/*
 * cubind_unspellable: where in a file's basename the generated `#include "<stem>.cubind.h"`
 * or `#line N "<name>"` could not spell it: a quote or control character (it would end the
 * string or the line), a backslash (an escape sequence in #line's string), or two question marks
 * (with the character after them, in the name or in the text the output puts after it, a C99
 * compiler may read a trigraph). NULL when there is no such place.
 */
const char *cubind_unspellable(const char *base);

/* cubind_basename: the part of path after its last '/' (a pointer into path). */
const char *cubind_basename(const char *path);

#endif /* CUBIND_GEN_FS_H */
