/* prelude_cache.c: the precompiled prelude cache (see prelude_cache.h). */
#define _GNU_SOURCE /* memmem: the headers' texts are searched for whole names */
#include "prelude_cache.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clang_util.h"
#include "fs.h"
#include "parse.h"
#include "pp_text.h"

/* What a prelude is asked for: an option set and the .cu's leading lines it should hold. */
typedef struct prelude_request {
  const cubind_strlist *args; /* clang's arguments */
  const char *cache_dir;
  const char *installed_dir;  /* read-only preludes built with cubind (NULL: none) */
  const char *cuda_path;
  cubind_strlist *lines;      /* its leading lines, in order (the request's own copy) */
  unsigned long long option_set; /* option_set_hash of args and cuda_path */
  /* the shared base prelude's (split_varying): args less the -D, -U and -I arguments past the
     generator's own, the names of those macros and those directories */
  cubind_strlist shared_args, varying_macros, varying_dirs;
  unsigned long long shared_set; /* option_set_hash of shared_args and cuda_path */
  /* the installed preludes' (the generator's arguments and the binary's, no user's): the hash
     of those arguments, and the user's macros and directories (-I, -isystem) */
  unsigned long long installed_set;
  cubind_strlist user_macros, user_dirs;
  int user_unknown; /* a user argument of another kind: the installed lists are not used */
  cubind_strlist base_held; /* the files its base prelude holds (drop_held_headers) */
} prelude_request;

/*
 * A checksum of a whole file, 8 bytes at a time: any change of content or size changes it with
 * overwhelming likelihood. 0 when the file cannot be read. The file is mapped, not copied: a run
 * checks each prelude it loads (CUB's chain is 40 MB), and a copy cost 0.05 s of page faults
 * where the mapping reads the page cache that clang's load then reads again.
 */
static unsigned long long file_checksum(const char *path) {
  unsigned long long sum = 0x9E3779B97F4A7C15ull;
  const unsigned char *data;
  const void *map = NULL;
  size_t size = 0, i;
  if (cubind_map_file_quiet(path, CUBIND_MAX_CACHE_BYTES, &map, &size) != 0)
    return 0;
  data = map;
  sum ^= (unsigned long long)size;
  for (i = 0; i + 8 <= size; i += 8) {
    uint64_t word;
    memcpy(&word, data + i, 8);
    sum = (sum ^ word) * 0xFF51AFD7ED558CCDull;
    sum ^= sum >> 29;
  }
  if (size > i)
    sum = cubind_hash_bytes(sum, data + i, size - i);
  cubind_unmap_file(map, size);
  return sum ? sum : 1;
}

/*
 * What <name>.sum records, written after the .pch and its .files: their checksums and, for a
 * prelude chained onto a shorter one's (it holds only what that one lacks), that one's file
 * name in the same directory and identity (parent_identity): "<pch> <files>[ <parent> <name>]\n".
 */
typedef struct prelude_sums {
  unsigned long long pch, files, parent;
  char parent_name[64];
} prelude_sums;

/* Reads <name>.sum into *sums; returns 1 when it is well-formed. */
static int read_sums(const char *sum_path, prelude_sums *sums) {
  char *data = NULL;
  size_t size = 0;
  int fields, ok;
  memset(sums, 0, sizeof *sums);
  if (cubind_read_file_quiet(sum_path, 160, &data, &size) != 0)
    return 0;
  fields = sscanf(data, "%16llx %16llx %16llx %63s", &sums->pch, &sums->files, &sums->parent,
                  sums->parent_name);
  ok = (fields == 2 || (fields == 4 && sums->parent && !strchr(sums->parent_name, '/'))) &&
       sums->pch && sums->files && size > 0 && data[size - 1] == '\n';
  free(data);
  return ok;
}

/*
 * A prelude as one chained onto it knows it: its checksum with its size and modification time,
 * which clang checks when it loads the chain (a rebuild with the same bytes breaks the chain).
 */
static unsigned long long parent_identity(const char *path, unsigned long long checksum) {
  struct stat info;
  long long stamp[2];
  if (!checksum || stat(path, &info) != 0)
    return 0;
  stamp[0] = (long long)info.st_size;
  stamp[1] = (long long)info.st_mtime;
  checksum = cubind_hash_bytes(checksum, stamp, sizeof stamp);
  return checksum ? checksum : 1;
}

/*
 * How many preludes a chain may hold, the base among them: libclang 19 crashes loading a chain
 * of six, whatever their sizes (six preludes of the CUDA libraries' C headers did too), and
 * loads five; a prelude is chained onto another only where the chain stays within this, and a
 * longer one (an older cubind-gen's) is not valid.
 */
#define MAX_CHAIN 4

/*
 * A held file's line in <name>.files: "<size> <modification time in ns> <real path>\n". clang
 * checks a prelude's files when it loads it only where they are user files: a system header
 * updated in place (a new C++ library, a toolkit patched where it lies) would be parsed as it
 * was. The stamps let a run find out, at one stat per file (~1 ms for CUB's 1,200).
 */
static int held_stamp(const char *path, long long *size, long long *mtime_ns) {
  struct stat info;
  if (stat(path, &info) != 0)
    return 0;
  *size = (long long)info.st_size;
  *mtime_ns = (long long)info.st_mtim.tv_sec * 1000000000ll + (long long)info.st_mtim.tv_nsec;
  return 1;
}

/*
 * Calls `visit` with the real path of each file <name>.files lists (data: its text, which it
 * changes) and returns 1 when every line is well-formed and, with `check_stamps`, every file
 * still has the size and modification time recorded.
 */
static int each_held_file(char *data, int check_stamps,
                          void (*visit)(const char *path, void *context), void *context) {
  char *line, *next;
  for (line = data; (next = strchr(line, '\n')) != NULL; line = next + 1) {
    long long size, mtime_ns, now_size, now_mtime_ns;
    int offset = 0;
    *next = '\0';
    if (sscanf(line, "%lld %lld %n", &size, &mtime_ns, &offset) != 2 || offset == 0 ||
        line[offset] != '/')
      return 0;
    if (check_stamps && !(held_stamp(line + offset, &now_size, &now_mtime_ns) &&
                          now_size == size && now_mtime_ns == mtime_ns))
      return 0;
    if (visit)
      visit(line + offset, context);
  }
  return 1;
}

/* 1 when every file that <files_path> lists is as it was when the prelude was built. */
static int held_files_unchanged(const char *files_path) {
  char *data = NULL;
  size_t size = 0;
  int unchanged = cubind_read_file_quiet(files_path, CUBIND_MAX_CACHE_BYTES, &data, &size) == 0 &&
                  each_held_file(data, 1, NULL, NULL);
  free(data);
  return unchanged;
}

/* 1 when the prelude at `path` has its checksums (<name>.sum): it is there, finished. */
static int prelude_present(const char *path) {
  char *sum_path = cubind_xasprintf("%s.sum", path);
  int present = access(sum_path, F_OK) == 0;
  free(sum_path);
  return present;
}

/*
 * The prelude named `name` that one at `path` is chained onto (new string): in the same
 * directory, else in the installed one (a prelude of the cache may be chained onto an installed
 * one, never the other way); NULL when neither holds it.
 */
static char *parent_path(const prelude_request *request, const char *path, const char *name) {
  const char *slash = strrchr(path, '/');
  char *parent = cubind_xasprintf("%.*s%s", slash ? (int)(slash + 1 - path) : 0, path, name);
  if (!prelude_present(parent) && request->installed_dir) {
    free(parent);
    parent = cubind_xasprintf("%s/%s", request->installed_dir, name);
    if (!prelude_present(parent)) {
      free(parent);
      parent = NULL;
    }
  }
  return parent;
}

/*
 * The checksum of the prelude at `path` when it is whole and current, else 0: its .pch and
 * .files match the checksums written after them (a missing, truncated or overwritten one does
 * not), the files it holds are unchanged, and so is the prelude it is chained onto, if any (a
 * rebuilt one would not load under it), within `links` more links (a .sum that names itself or
 * a loop is damage too).
 */
static unsigned long long chain_checksum(const prelude_request *request, const char *path,
                                         int links) {
  char *sum_path = cubind_xasprintf("%s.sum", path);
  char *files_path = cubind_xasprintf("%s.files", path);
  prelude_sums sums;
  /* the .pch's checksum last: it reads the whole file (32 MB for CUB), a stale prelude's held
     files (an updated toolkit) are found out at a stat each */
  int valid = links > 0 && read_sums(sum_path, &sums) && sums.files == file_checksum(files_path) &&
              held_files_unchanged(files_path) && sums.pch == file_checksum(path);
  if (valid && sums.parent) {
    char *parent = parent_path(request, path, sums.parent_name);
    valid = parent &&
            parent_identity(parent, chain_checksum(request, parent, links - 1)) == sums.parent;
    free(parent);
  }
  free(sum_path);
  free(files_path);
  return valid ? sums.pch : 0;
}

static unsigned long long valid_checksum(const prelude_request *request, const char *path) {
  return chain_checksum(request, path, MAX_CHAIN);
}

static int prelude_valid(const prelude_request *request, const char *path) {
  return valid_checksum(request, path) != 0;
}

/*
 * What every key of an option set starts from: the libclang version, every argument and the
 * toolkit's cuda_runtime.h (its size and modification time).
 */
static unsigned long long option_set_hash(const cubind_strlist *args, const char *cuda_path) {
  unsigned long long hash = CUBIND_HASH_START;
  char *version = cubind_libclang_version(), *runtime_h;
  struct stat info;
  size_t i;
  hash = cubind_hash_bytes(hash, version, strlen(version) + 1);
  free(version);
  for (i = 0; i < args->count; i++)
    hash = cubind_hash_bytes(hash, args->items[i], strlen(args->items[i]) + 1);
  runtime_h = cubind_xasprintf("%s/include/cuda_runtime.h", cuda_path);
  if (stat(runtime_h, &info) == 0) {
    long long stamp[2];
    stamp[0] = (long long)info.st_size;
    stamp[1] = (long long)info.st_mtime;
    hash = cubind_hash_bytes(hash, stamp, sizeof stamp);
  }
  free(runtime_h);
  return hash;
}

/*
 * The one place a prelude's name is made: <dir>/prelude-<key>.pch, the key hashing an option
 * set's hash `set` and the `count` of `lines` that `picked` numbers (in order; NULL: the first
 * `count`).
 */
static char *key_path(const char *dir, unsigned long long set, const cubind_strlist *lines,
                      const size_t *picked, size_t count) {
  unsigned long long hash = cubind_hash_bytes(set, "\0lines", 7);
  size_t i;
  for (i = 0; i < count; i++) {
    const char *line = lines->items[picked ? picked[i] : i];
    hash = cubind_hash_bytes(hash, line, strlen(line) + 1);
  }
  return cubind_xasprintf("%s/prelude-%016llx.pch", dir, hash);
}

/* The cache's prelude of the `count` of `lines` that `picked` numbers (as key_path). */
static char *prelude_path_of(const prelude_request *request, const cubind_strlist *lines,
                             const size_t *picked, size_t count) {
  return key_path(request->cache_dir, request->option_set, lines, picked, count);
}

/* The prelude of the first `count` leading lines. */
static char *prelude_path(const prelude_request *request, size_t count) {
  return prelude_path_of(request, request->lines, NULL, count);
}

/* The list of the files a prelude holds, as build_prelude gathers it. */
typedef struct held_list {
  cubind_buf lines; /* <name>.files */
  int unusable;     /* a file changed while clang read it, or its path cannot be listed */
} held_list;

/* Adds a file a prelude read to the list of the files it holds (see held_stamp). */
static void visit_held_file(CXFile file, CXSourceLocation *stack, unsigned depth,
                            CXClientData data) {
  held_list *held = data;
  char *name = cx_string(clang_getFileName(file)), *real = realpath(name, NULL);
  long long size, mtime_ns;
  (void)stack;
  if (depth > 0) { /* not the prelude's own main file, which exists only in memory */
    if (real && !strchr(real, '\n') && held_stamp(real, &size, &mtime_ns) &&
        mtime_ns / 1000000000ll == (long long)clang_getFileTime(file))
      cubind_buf_printf(&held->lines, "%lld %lld %s\n", size, mtime_ns, real);
    else
      held->unusable = 1;
  }
  free(real);
  free(name);
}

/*
 * Builds the prelude of the first `count` lines into `path` (through a temporary file, renamed
 * into place), chained onto the valid prelude `parent` of a part of them when given
 * (measured on <cub/cub.cuh> over the base: 1.7 s instead of 1.8 s, and 31 MB instead of 37),
 * the list of the files it holds into <path>.files, and the checksums into <path>.sum after
 * them. Returns 1 on success.
 */
/*
 * The free space a prelude's build asks for: CUB's and Thrust's take about 30 MB, and on a full
 * file system LLVM ends the process in the middle of the save (a write error on its output
 * stream is fatal to it), leaving the half-written file behind.
 */
#define PRELUDE_MIN_FREE_BYTES (256ull << 20)

/* 1 when the file system that `path` goes to has room for a prelude, or cannot tell. */
static int room_for_prelude(const char *path) {
  const char *slash = strrchr(path, '/');
  char *dir = slash ? cubind_xstrndup(path, (size_t)(slash - path + 1)) : cubind_xstrdup(".");
  struct statvfs info;
  int room = statvfs(dir, &info) != 0 ||
             (unsigned long long)info.f_bavail * info.f_frsize >= PRELUDE_MIN_FREE_BYTES;
  free(dir);
  return room;
}

static int build_prelude(CXIndex index, const prelude_request *request, size_t count,
                         const char *path, const char *parent) {
  /* a .cu of only the leading lines: with what clang includes before every CUDA file */
  char *source = cubind_xasprintf("%.*s.cu", (int)(strlen(path) - 4), path);
  char *temp = cubind_temp_path(path), *files_path = cubind_xasprintf("%s.files", path);
  char *sum_path = cubind_xasprintf("%s.sum", path);
  unsigned long long parent_sum =
      parent ? parent_identity(parent, valid_checksum(request, parent)) : 0;
  char *parent_real = parent_sum ? realpath(parent, NULL) : NULL; /* clang records the path */
  cubind_strlist args = {0};
  struct CXUnsavedFile empty;
  CXTranslationUnit tu = NULL;
  cubind_buf lines = {0}, sums = {0};
  held_list held = {{0}, 0};
  size_t i;
  int ok;
  cubind_buf_puts(&lines, "");
  cubind_buf_puts(&held.lines, "");
  for (i = 0; i < count; i++)
    cubind_buf_printf(&lines, "%s\n", request->lines->items[i]);
  for (i = 0; i < request->args->count; i++)
    cubind_strlist_add(&args, request->args->items[i]);
  if (parent_real) {
    cubind_strlist_add(&args, "-include-pch");
    cubind_strlist_add(&args, parent_real);
  }
  empty.Filename = source;
  empty.Contents = lines.data;
  empty.Length = (unsigned long)lines.length;
  ok = room_for_prelude(path) &&
       clang_parseTranslationUnit2(index, source, (const char *const *)args.items,
                                   (int)args.count, &empty, 1,
                                   CX_PARSE_FLAGS | CXTranslationUnit_ForSerialization,
                                   &tu) == CXError_Success &&
       tu;
  ok = ok && temp && cx_count_errors(tu) == 0 && /* a broken prelude would cost a retry each run */
       clang_saveTranslationUnit(tu, temp, clang_defaultSaveOptions(tu)) == CXSaveError_None &&
       rename(temp, path) == 0;
  if (ok)
    clang_getInclusions(tu, visit_held_file, &held);
  if (tu)
    clang_disposeTranslationUnit(tu);
  if (temp)
    unlink(temp); /* after a successful rename there is nothing left to remove */
  ok = ok && !held.unusable &&
       cubind_write_file(files_path, held.lines.data, held.lines.length, 0) == 0;
  if (ok) {
    cubind_buf_printf(&sums, "%016llx %016llx", file_checksum(path), file_checksum(files_path));
    if (parent_real)
      cubind_buf_printf(&sums, " %016llx %s", parent_sum, cubind_basename(parent));
    cubind_buf_puts(&sums, "\n");
    ok = cubind_write_file(sum_path, sums.data, sums.length, 0) == 0;
  }
  free(temp);
  free(source);
  free(files_path);
  free(sum_path);
  free(parent_real);
  cubind_strlist_free(&args);
  cubind_buf_free(&lines);
  cubind_buf_free(&held.lines);
  cubind_buf_free(&sums);
  return ok;
}

/*
 * The temporary files that a killed run leaves in the cache: ours (".prelude-*.tmp-*", and
 * host_compiler.c's ".host-*.tmp-*") and clang's own, made while it saves ("prelude-*.pch-*");
 * swept by cubind_sweep_stale.
 */
static int is_cache_temp(const char *name, const void *data) {
  (void)data;
  return ((strncmp(name, ".prelude-", 9) == 0 || strncmp(name, ".host-", 6) == 0) &&
          strstr(name, ".tmp-")) ||
         (strncmp(name, "prelude-", 8) == 0 && strstr(name, ".pch-"));
}

/* Skips spaces, tabs, newlines and comments; returns where something else starts. */
static const char *skip_blank(const char *at, const char *end) {
  while (at < end) {
    if (*at == ' ' || *at == '\t' || *at == '\n' || *at == '\r' || *at == '\f' || *at == '\v')
      at++;
    else if (end - at >= 2 && at[0] == '/' && at[1] == '/')
      while (at < end && *at != '\n')
        at++;
    else if (end - at >= 2 && at[0] == '/' && at[1] == '*') {
      const char *close = at + 2;
      while (close + 1 < end && !(close[0] == '*' && close[1] == '/'))
        close++;
      if (close + 1 >= end)
        return end; /* an unterminated comment: nothing more to take */
      at = close + 2;
    } else
      break;
  }
  return at;
}

/* 1 when `dir`/`name` is a regular file. */
static int dir_has(const char *dir, const char *name) {
  char *path = cubind_xasprintf("%s/%s", dir, name);
  struct stat info;
  int found = stat(path, &info) == 0 && S_ISREG(info.st_mode);
  free(path);
  return found;
}

/* 1 when `name` is a header of the toolkit's (in its include/ or include/cccl/). */
static int toolkit_header(const char *cuda_path, const char *name) {
  char *toolkit = cubind_xasprintf("%s/include", cuda_path);
  char *cccl = cubind_xasprintf("%s/include/cccl", cuda_path);
  int found = dir_has(toolkit, name) || dir_has(cccl, name);
  free(toolkit);
  free(cccl);
  return found;
}

/*
 * 1 when `name` is a system header for these arguments: found in a system directory (the
 * toolkit's include/ or include/cccl/, an -isystem or -idirafter one: the host compiler's C and
 * C++ libraries are there) and in no user one (-I, -iquote), where it could be the program's own
 * header, which changes as the program does (a prelude holding it would go stale with each edit).
 */
static int system_header(const cubind_strlist *args, const char *cuda_path, const char *name) {
  int in_system = toolkit_header(cuda_path, name), in_user = 0;
  size_t i;
  for (i = 0; i < args->count && !in_user; i++) {
    const char *arg = args->items[i];
    if (strcmp(arg, "-isystem") == 0 || strcmp(arg, "-idirafter") == 0) {
      if (i + 1 < args->count && !in_system)
        in_system = dir_has(args->items[i + 1], name);
      i++;
    } else if (strncmp(arg, "-I", 2) == 0 || strncmp(arg, "-iquote", 7) == 0) {
      const char *dir = arg[1] == 'I' ? arg + 2 : arg + 7;
      if (!*dir)
        dir = ++i < args->count ? args->items[i] : "";
      in_user = *dir && dir_has(dir, name);
    }
  }
  return in_system && !in_user;
}

/* The header of cubind's annotations: only CUBIND_ macros, which no system header uses. */
#define ANNOTATIONS_HEADER "cubind/annotations.h"

/* How deep the scan follows local headers (`#include "kernels.cuh"` first) into each other. */
#define MAX_LOCAL_DEPTH 8

/* A scan of the lines a prelude may hold (prelude_leading_lines). */
typedef struct leading_scan {
  const cubind_strlist *args;
  const char *cuda_path;
  cubind_strlist *lines; /* what it found, in order */
} leading_scan;

/* Where the line holding `at` ends (its '\n', or `end`). */
static const char *line_end(const char *at, const char *end) {
  const char *newline = memchr(at, '\n', (size_t)(end - at));
  return newline ? newline : end;
}

/* Skips spaces and tabs (not newlines). */
static const char *skip_spaces(const char *at, const char *end) {
  while (at < end && (*at == ' ' || *at == '\t'))
    at++;
  return at;
}

/* Skips an identifier; returns where it ends (`at` when there is none). */
static const char *skip_word(const char *at, const char *end) {
  while (at < end && (*at == '_' || (*at >= 'a' && *at <= 'z') || (*at >= 'A' && *at <= 'Z') ||
                      (*at >= '0' && *at <= '9')))
    at++;
  return at;
}

/* 1 when nothing but spaces and a comment's start follows on the line from `at`. */
static int rest_is_blank(const char *at, const char *stop) {
  at = skip_spaces(at, stop);
  while (at < stop && *at == '\r')
    at++;
  return at >= stop || (stop - at >= 2 && at[0] == '/' && (at[1] == '/' || at[1] == '*'));
}

/*
 * A #define or #undef line a prelude can repeat as it is: one line (no continuation), no
 * comment left open at its end.
 */
static int plain_macro_line(const char *at, const char *stop) {
  const char *open = NULL, *p;
  if (stop > at && stop[-1] == '\\')
    return 0;
  for (p = at; p + 1 < stop; p++)
    if (p[0] == '/' && p[1] == '*')
      open = p;
    else if (open && p[0] == '*' && p[1] == '/')
      open = NULL;
  return !open;
}

/* 1 when [word, word_end) is `expected`. */
static int word_is(const char *word, const char *word_end, const char *expected) {
  size_t length = strlen(expected);
  return (size_t)(word_end - word) == length && strncmp(word, expected, length) == 0;
}

/* 1 when the line [at, stop) is the identifier `name` and nothing else (but a comment). */
static int line_is_name(const char *at, const char *stop, const char *name) {
  return word_is(at, skip_word(at, stop), name) && rest_is_blank(skip_word(at, stop), stop);
}

/* A preprocessor directive of a header's text (read_directive). */
typedef struct directive {
  const char *name, *name_end; /* its name: include, pragma, ifndef... */
  const char *rest;            /* what follows the name on its line, past spaces */
  const char *stop;            /* where its line ends */
} directive;

/* 1 when a directive begins at `at` (read into `d`); 0 when something else does. */
static int read_directive(const char *at, const char *end, directive *d) {
  if (at >= end || *at != '#')
    return 0;
  d->stop = line_end(at, end);
  d->name = skip_spaces(at + 1, d->stop);
  d->name_end = skip_word(d->name, d->stop);
  d->rest = skip_spaces(d->name_end, d->stop);
  return 1;
}

/* 1 when the directive is `name`. */
static int directive_is(const directive *d, const char *name) {
  return word_is(d->name, d->name_end, name);
}

/*
 * 1 when the directive `d` is `#ifndef G` and the next one, read into `define`, is `#define G`:
 * an include guard's opening.
 */
static int opens_guard(const directive *d, const char *end, directive *define) {
  const char *macro = d->rest, *macro_end = skip_word(macro, d->stop);
  return directive_is(d, "ifndef") && macro_end > macro && rest_is_blank(macro_end, d->stop) &&
         read_directive(skip_blank(d->stop, end), end, define) &&
         directive_is(define, "define") &&
         skip_word(define->rest, define->stop) - define->rest == macro_end - macro &&
         strncmp(define->rest, macro, (size_t)(macro_end - macro)) == 0;
}

static int scan_text(leading_scan *scan, const char *text, size_t size, const char *dir,
                     int depth);

/* Follows `#include "name"` of a file in `dir` (where clang looks first) into that header. */
static void scan_local_header(leading_scan *scan, const char *dir, const char *name,
                              int depth) {
  char *path = cubind_xasprintf("%s/%s", dir, name), *real = realpath(path, NULL), *text = NULL;
  size_t size = 0;
  if (real && depth < MAX_LOCAL_DEPTH &&
      cubind_read_file_quiet(real, CUBIND_MAX_SOURCE_BYTES, &text, &size) == 0) {
    char *slash = strrchr(real, '/');
    *slash = '\0';
    scan_text(scan, text, size, slash == real ? "/" : real, depth + 1);
  }
  free(text);
  free(real);
  free(path);
}

/*
 * The #include at `at` (after the word): appends a system header's line and returns 1 when
 * the scan goes on after it; follows a local header ("name", next to the file in `dir`) into
 * its own leading lines, after which the scan stops (what the header holds after them is not
 * in the prelude, and neither is what follows it).
 */
static int scan_include(leading_scan *scan, const char *at, const char *stop, const char *dir,
                        int depth) {
  const char close_char = *at == '<' ? '>' : '"';
  const char *name = at + 1, *close;
  char *header;
  int goes_on = 0;
  if (at >= stop || (*at != '<' && *at != '"'))
    return 0;
  close = memchr(name, close_char, (size_t)(stop - name));
  if (!close || close == name || !rest_is_blank(close + 1, stop))
    return 0;
  header = cubind_xstrndup(name, (size_t)(close - name));
  if (strstr(header, "..")) {
    goes_on = 0;
  } else if (close_char == '"') {
    scan_local_header(scan, dir, header, depth);
  } else if (system_header(scan->args, scan->cuda_path, header)) {
    char *line = cubind_xasprintf("#include <%s>", header);
    cubind_strlist_add(scan->lines, line);
    free(line);
    goes_on = 1;
  } else {
    goes_on = strcmp(header, ANNOTATIONS_HEADER) == 0; /* stepped over: see its definition */
  }
  free(header);
  return goes_on;
}

/*
 * The scan of prelude_leading_lines over text[0, size) of a file in `dir` (depth 0: the .cu;
 * more: a local header it includes first). Returns 1 when it stopped because the text ended (a
 * longer text may list more), 0 when something else ended it.
 */
static int scan_text(leading_scan *scan, const char *text, size_t size, const char *dir,
                     int depth) {
  const char *at = text, *end = text + size;
  int first = 1;
  directive d, define;
  if (size >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
    at += 3; /* a UTF-8 byte order mark (editors on Windows write one), which clang skips */
  while ((at = skip_blank(at, end)) < end && read_directive(at, end, &d)) {
    const char *hash = at;
    if (d.stop >= end && end[-1] != '\n')
      return 1; /* the line may go on past the text */
    if (depth > 0 && first && opens_guard(&d, end, &define)) {
      /* the guard's own #define stays out of the prelude, which would otherwise skip the
         header when the .cu includes it */
      if (define.stop >= end && end[-1] != '\n')
        return 1;
      d = define;
    } else if (directive_is(&d, "include")) {
      if (!scan_include(scan, d.rest, d.stop, dir, depth))
        return 0;
    } else if (depth > 0 && directive_is(&d, "pragma") && line_is_name(d.rest, d.stop, "once")) {
      /* nothing to repeat */
    } else if ((directive_is(&d, "define") || directive_is(&d, "undef")) &&
               plain_macro_line(hash, d.stop)) {
      const char *last = d.stop;
      char *line;
      while (last > hash && (last[-1] == '\r' || last[-1] == ' ' || last[-1] == '\t'))
        last--;
      line = cubind_xstrndup(hash, (size_t)(last - hash));
      cubind_strlist_add(scan->lines, line);
      free(line);
    } else {
      return 0;
    }
    first = 0;
    at = d.stop;
  }
  return at >= end;
}

/* How much of a .cu the scan reads first: far more than its leading lines take. */
#define HEAD_BYTES 65536

/* prelude_leading_lines: see prelude_cache.h. */
void prelude_leading_lines(const char *path, const cubind_strlist *args, const char *cuda_path,
                           cubind_strlist *lines) {
  char *real = realpath(path, NULL), *slash = real ? strrchr(real, '/') : NULL;
  size_t head = HEAD_BYTES, i;
  if (!slash) {
    free(real);
    return;
  }
  *slash = '\0';
  for (;;) {
    cubind_strlist found = {0};
    leading_scan scan;
    char *text = NULL;
    size_t size = 0, scanned, kept;
    int whole, ran_out;
    if (cubind_read_head_quiet(path, CUBIND_MAX_SOURCE_BYTES, head, &text, &size) != 0)
      break;
    /* A head ends after its last newline: every line the scan reads is then whole, so where it
       stops before that end it stops in the whole file too, with the same list. */
    whole = size < head;
    for (scanned = size; !whole && scanned > 0 && text[scanned - 1] != '\n'; scanned--)
      ;
    scan.args = args;
    scan.cuda_path = cuda_path;
    scan.lines = &found;
    ran_out = scan_text(&scan, text, scanned, slash == real ? "/" : real, 0);
    free(text);
    if (whole || !ran_out) {
      /* macro lines after the last #include change no header the prelude holds */
      for (kept = found.count; kept > 0 && strncmp(found.items[kept - 1], "#include", 8) != 0;
           kept--)
        ;
      for (i = 0; i < kept; i++)
        cubind_strlist_add(lines, found.items[i]);
      cubind_strlist_free(&found);
      break;
    }
    cubind_strlist_free(&found);
    head = SIZE_MAX; /* the lines may go on past the head: scan the whole file */
  }
  free(real);
}

static void add_held_path(const char *path, void *held) {
  cubind_strlist_add(held, path);
}

/* The real paths of the files a valid prelude holds (<path>.files). */
static void read_held_files(const char *path, cubind_strlist *held) {
  char *files_path = cubind_xasprintf("%s.files", path), *data = NULL;
  size_t size = 0;
  if (cubind_read_file_quiet(files_path, CUBIND_MAX_SOURCE_BYTES, &data, &size) == 0)
    each_held_file(data, 0, add_held_path, held);
  free(data);
  free(files_path);
}

/*
 * The real paths of every file `name` could be found as (in any directory of the arguments'
 * -I, -isystem and -idirafter, or the toolkit's include/), appended to `copies`.
 */
static void header_copies(const prelude_request *request, const char *name,
                          cubind_strlist *copies) {
  const cubind_strlist *args = request->args;
  char *toolkit = cubind_xasprintf("%s/include", request->cuda_path);
  size_t i;
  for (i = 0; i <= args->count; i++) {
    const char *arg = i < args->count ? args->items[i] : NULL, *dir = NULL;
    char *candidate, *real;
    if (!arg)
      dir = toolkit;
    else if (strncmp(arg, "-I", 2) == 0)
      dir = arg[2] ? arg + 2 : i + 1 < args->count ? args->items[i + 1] : NULL;
    else if ((strcmp(arg, "-isystem") == 0 || strcmp(arg, "-idirafter") == 0) &&
             i + 1 < args->count)
      dir = args->items[i + 1];
    if (!dir)
      continue;
    candidate = cubind_xasprintf("%s/%s", dir, name);
    real = realpath(candidate, NULL);
    if (real)
      cubind_strlist_add(copies, real);
    free(real);
    free(candidate);
  }
  free(toolkit);
}

/*
 * 1 when every file `name` could be found as (header_copies) is one `held` lists, and there is
 * one: whichever of them clang picks, including it after that prelude is a no-op (its include
 * guard).
 */
static int held_everywhere(const prelude_request *request, const char *name,
                           const cubind_strlist *held) {
  cubind_strlist copies = {0};
  size_t i;
  int held_all;
  header_copies(request, name, &copies);
  held_all = copies.count > 0;
  for (i = 0; i < copies.count && held_all; i++)
    held_all = cubind_strlist_contains(held, copies.items[i]);
  cubind_strlist_free(&copies);
  return held_all;
}

/*
 * The one file `name` is wherever it could be found (header_copies), as a new string; NULL
 * when there is none or they are not all the same file (which clang picks is then not known
 * here).
 */
static char *the_header(const prelude_request *request, const char *name) {
  cubind_strlist copies = {0};
  char *only = NULL;
  size_t i;
  header_copies(request, name, &copies);
  for (i = 1; i < copies.count && strcmp(copies.items[i], copies.items[0]) == 0; i++)
    ;
  if (copies.count && i == copies.count)
    only = cubind_xstrdup(copies.items[0]);
  cubind_strlist_free(&copies);
  return only;
}

/*
 * Removes from request->lines the #include lines of headers that the base prelude (what clang
 * includes before every CUDA file, `base`) already holds: <cuda_runtime.h> and the like include
 * as no-ops after it (before any of the .cu's lines, #define ones included), so files that
 * differ only in them share one prelude.
 */
static void drop_held_headers(prelude_request *request, const char *base) {
  cubind_strlist *held = &request->base_held, kept = {0};
  size_t i;
  cubind_strlist_free(held);
  read_held_files(base, held);
  for (i = 0; i < request->lines->count; i++) {
    const char *line = request->lines->items[i];
    int dropped = 0;
    if (strncmp(line, "#include <", 10) == 0) {
      char *name = cubind_xstrndup(line + 10, strlen(line + 10) - 1); /* up to the '>' */
      dropped = held_everywhere(request, name, held);
      free(name);
    }
    if (!dropped)
      cubind_strlist_add(&kept, line);
  }
  cubind_strlist_free(request->lines);
  *request->lines = kept;
}

/*
 * 1 when a header's text is a no-op when included again: its first directive is #pragma once,
 * or #ifndef G and #define G whose conditional the text's last directive closes.
 */
static int include_guarded(const char *text, size_t size) {
  const char *end = text + size, *at = skip_blank(text, end);
  directive d, define;
  int depth = 1;
  if (!read_directive(at, end, &d))
    return 0;
  if (directive_is(&d, "pragma"))
    return line_is_name(d.rest, d.stop, "once");
  if (!opens_guard(&d, end, &define))
    return 0;
  d = define;
  for (at = d.stop; (at = skip_blank(at, end)) < end; at = d.stop) {
    if (!read_directive(at, end, &d))
      d.stop = line_end(at, end);
    else if (directive_is(&d, "if") || directive_is(&d, "ifdef") || directive_is(&d, "ifndef"))
      depth++;
    else if (directive_is(&d, "endif") && --depth == 0)
      return skip_blank(d.stop, end) == end;
  }
  return 0;
}

/* 1 when the #pragma only makes its own file a system header (GCC, clang or MSVC spelling). */
static int marks_system_header(const directive *d) {
  const char *at = d->rest, *word_end = skip_word(at, d->stop);
  if (word_is(at, word_end, "GCC") || word_is(at, word_end, "clang"))
    at = skip_spaces(word_end, d->stop);
  return line_is_name(at, d->stop, "system_header");
}

/* The most lines of a header's lead that are looked for. */
#define MAX_LEAD_LINES 64

/* The most headers lead_closure visits. */
#define MAX_CLOSURE 1024

/*
 * Reads the lead of the header `name`: the names of the headers its text includes first
 * (#include <...> lines past its #pragma once or include guard; only conditional blocks that
 * hold nothing but `#pragma system_header` lines may come between them, as CCCL's headers mark
 * themselves), appended to `lead`. Returns 1 when it is one file wherever it could be found
 * (the_header) and a no-op included again (include_guarded), else 0.
 */
static int read_lead(const prelude_request *request, const char *name, cubind_strlist *lead) {
  char *path = the_header(request, name), *text = NULL;
  const char *at, *end;
  size_t size = 0;
  directive d, define;
  int depth = 0, guarded;
  if (!path || cubind_read_file_quiet(path, CUBIND_MAX_SOURCE_BYTES, &text, &size) != 0) {
    free(path);
    return 0;
  }
  guarded = include_guarded(text, size);
  end = text + size;
  at = skip_blank(text, end);
  if (read_directive(at, end, &d) && directive_is(&d, "pragma") &&
      line_is_name(d.rest, d.stop, "once")) {
    at = d.stop;
  } else if (read_directive(at, end, &d) && opens_guard(&d, end, &define)) {
    at = define.stop;
  }
  while ((at = skip_blank(at, end)) < end && lead->count < MAX_LEAD_LINES &&
         read_directive(at, end, &d)) {
    if (directive_is(&d, "include") && !depth) {
      const char *close = *d.rest == '<' ? memchr(d.rest, '>', (size_t)(d.stop - d.rest)) : NULL;
      char *header;
      if (!close || close == d.rest + 1 || !rest_is_blank(close + 1, d.stop))
        break;
      header = cubind_xstrndup(d.rest + 1, (size_t)(close - d.rest - 1));
      cubind_strlist_add(lead, header);
      free(header);
    } else if (directive_is(&d, "if") || directive_is(&d, "ifdef") ||
               directive_is(&d, "ifndef")) {
      depth++;
    } else if (depth && (directive_is(&d, "elif") || directive_is(&d, "else"))) {
      /* another branch of the same block */
    } else if (depth && directive_is(&d, "endif")) {
      depth--;
    } else if (!directive_is(&d, "pragma") || !marks_system_header(&d)) {
      break;
    }
    at = d.stop;
  }
  free(text);
  free(path);
  return guarded;
}

/* The library a header name belongs to: its first part, up to a '/' or '.' (`cub`). */
static size_t library_length(const char *name) {
  return strcspn(name, "/.");
}

/* 1 when `name` belongs to the library of one of `names` (library_length). */
static int same_library(const char *name, const cubind_strlist *names) {
  size_t i, length = library_length(name);
  for (i = 0; i < names->count; i++)
    if (library_length(names->items[i]) == length && strncmp(name, names->items[i], length) == 0)
      return 1;
  return 0;
}

/*
 * The headers a parse of a .cu that includes `names` reads through their leads (read_lead: what
 * each includes first, what those include first, ...), as far as it needs to know whether each
 * of `wanted` is one: into `read`, those that are each one file and a no-op included again
 * (the .cu's own `names` among them). It follows only the headers of the libraries of `wanted`
 * (MAX_CLOSURE at most): the leads of CUB's headers, not of libcu++'s that they include.
 */
static void lead_closure(const prelude_request *request, const cubind_strlist *names,
                         const cubind_strlist *wanted, cubind_strlist *read) {
  cubind_strlist seen = {0};
  size_t next, i;
  for (i = 0; i < names->count; i++)
    cubind_strlist_add(&seen, names->items[i]);
  for (next = 0; next < seen.count && next < MAX_CLOSURE; next++) {
    cubind_strlist lead = {0};
    const char *name = seen.items[next];
    if (!same_library(name, wanted))
      continue;
    if (read_lead(request, name, &lead))
      cubind_strlist_add(read, name);
    for (i = 0; i < lead.count; i++)
      if (!strstr(lead.items[i], "..") && !cubind_strlist_contains(&seen, lead.items[i]))
        cubind_strlist_add(&seen, lead.items[i]);
    cubind_strlist_free(&lead);
  }
  cubind_strlist_free(&seen);
}

/*
 * The header that `#include "quoted"` in the header `name` reads (both named as below a search
 * directory): "cooperative_groups/details/info.h" for "info.h" in
 * "cooperative_groups/details/reduce.h", "cooperative_groups.h" for "../cooperative_groups.h"
 * (the including file's directory first, as the preprocessor looks), else `quoted` itself from
 * the search directories, or NULL where neither is one file (the_header). Frees `quoted`.
 */
static char *beside(const prelude_request *request, const char *name, char *quoted) {
  cubind_buf joined = {0};
  const char *slash = strrchr(name, '/'), *part = quoted;
  char *found;
  if (slash)
    cubind_buf_append(&joined, name, (size_t)(slash - name));
  while (strncmp(part, "../", 3) == 0 && joined.length) { /* up from the including directory */
    char *up = strrchr(joined.data, '/');
    joined.length = up ? (size_t)(up - joined.data) : 0;
    joined.data[joined.length] = '\0';
    part += 3;
  }
  if (strncmp(part, "../", 3) != 0 && !strstr(part, "/../")) {
    cubind_buf_printf(&joined, "%s%s", joined.length ? "/" : "", part);
    if ((found = the_header(request, joined.data)) != NULL) {
      free(found);
      free(quoted);
      return joined.data;
    }
  }
  cubind_buf_free(&joined);
  if (!strstr(quoted, "..") && (found = the_header(request, quoted)) != NULL) {
    free(found);
    return quoted;
  }
  free(quoted);
  return NULL;
}

/* The most headers may_read_all follows before it leaves the question to the parse. */
#define MAX_TEXT_CLOSURE 4096

/*
 * 0 when the parse of a .cu that includes `names` cannot read each of a checked group's
 * `headers`: following every #include <...> line, in any conditional block, of the texts of
 * the headers of the group's `libraries` and of the headers' own, from the .cu's, reaches not
 * all of them. Else 1, as where the texts cannot tell (an #include of a macro or of a quoted
 * name, a header not found as one file, too many headers): the parse then shows it
 * (prelude_attempt). It spares the parses of attempts that would fail: <cuda/std/limits>
 * reads none of the type traits <cuda/std/complex> and the other heavy libcu++ headers share.
 */
static int may_read_all(const prelude_request *request, const cubind_strlist *names,
                        const cubind_strlist *libraries, const cubind_strlist *headers) {
  cubind_strlist seen = {0};
  size_t next, i;
  int unknown = 0, reached = 1;
  for (i = 0; i < names->count; i++)
    if (same_library(names->items[i], libraries) || same_library(names->items[i], headers))
      cubind_strlist_add(&seen, names->items[i]);
  for (next = 0; next < seen.count && !unknown; next++) {
    char *path = the_header(request, seen.items[next]), *text = NULL;
    const char *at, *end;
    size_t size = 0;
    directive d;
    if (next == MAX_TEXT_CLOSURE || !path ||
        cubind_read_file_quiet(path, CUBIND_MAX_SOURCE_BYTES, &text, &size) != 0) {
      unknown = 1;
      free(path);
      break;
    }
    /* line by line: past the last one is past the text's NUL */
    for (at = text, end = text + size; at < end && !unknown; at = line_end(at, end) + 1) {
      const char *close;
      char *header;
      if (!read_directive(skip_spaces(at, end), end, &d) ||
          !(directive_is(&d, "include") || directive_is(&d, "include_next")))
        continue;
      close = *d.rest == '<' || *d.rest == '"'
                  ? memchr(d.rest + 1, *d.rest == '<' ? '>' : '"', (size_t)(d.stop - d.rest - 1))
                  : NULL;
      if (!close) { /* a macro: not followed here */
        unknown = 1;
        break;
      }
      header = cubind_xstrndup(d.rest + 1, (size_t)(close - d.rest - 1));
      if (*d.rest == '"' && !(header = beside(request, seen.items[next], header))) {
        unknown = 1; /* found as neither a neighbour nor one file */
        break;
      }
      if ((same_library(header, libraries) || same_library(header, headers)) &&
          !cubind_strlist_contains(&seen, header))
        cubind_strlist_add(&seen, header);
      free(header);
    }
    free(text);
    free(path);
  }
  for (i = 0; i < headers->count && !unknown && reached; i++)
    reached = cubind_strlist_contains(&seen, headers->items[i]);
  cubind_strlist_free(&seen);
  return unknown || reached;
}

/*
 * The groups of headers the installed preludes were built for (build_preludes.cmake writes
 * them to <dir>/groups, one group a line, its headers joined by commas), each as a list of
 * names, into `groups`: none when the request uses no installed preludes. A checked group's
 * line is `checked <libraries> <headers>` (libraries joined by commas too): its libraries go to
 * checked_for[i] (an empty list for a group of the other kind).
 */
static size_t installed_groups(const prelude_request *request, cubind_strlist *groups,
                               cubind_strlist *checked_for, size_t most) {
  char *path, *data = NULL, *line, *save = NULL;
  size_t size = 0, count = 0;
  if (!request->installed_dir || request->user_unknown)
    return 0;
  path = cubind_xasprintf("%s/groups", request->installed_dir);
  if (cubind_read_file_quiet(path, CUBIND_MAX_SOURCE_BYTES, &data, &size) == 0) {
    for (line = strtok_r(data, "\n", &save); line && count < most;
         line = strtok_r(NULL, "\n", &save)) {
      char *name, *inner = NULL, *headers = line;
      memset(&groups[count], 0, sizeof groups[count]);
      memset(&checked_for[count], 0, sizeof checked_for[count]);
      if (strncmp(line, "checked ", 8) == 0) {
        char *libraries = line + 8;
        headers = strchr(libraries, ' ');
        if (!headers)
          continue;
        *headers++ = '\0';
        for (name = strtok_r(libraries, ",", &inner); name; name = strtok_r(NULL, ",", &inner))
          cubind_strlist_add(&checked_for[count], name);
        inner = NULL;
      }
      for (name = strtok_r(headers, ",", &inner); name; name = strtok_r(NULL, ",", &inner))
        cubind_strlist_add(&groups[count], name);
      if (groups[count].count > 0)
        count++;
      else
        cubind_strlist_free(&checked_for[count]);
    }
  }
  free(data);
  free(path);
  return count;
}

/* The most installed groups looked at. */
#define MAX_GROUPS 64

/* The longest list whose subsequences are all looked for: 4,094 keys at most. */
#define MAX_SUBSEQUENCE_LINES 12

/*
 * The prelude that the one at `path` is chained onto, as its .sum names it (new string), or
 * NULL when it is chained onto none (the base), its .sum cannot be read or the parent is gone.
 */
static char *chain_parent(const prelude_request *request, const char *path) {
  char *sum_path = cubind_xasprintf("%s.sum", path), *parent = NULL;
  prelude_sums sums;
  if (read_sums(sum_path, &sums) && sums.parent)
    parent = parent_path(request, path, sums.parent_name);
  free(sum_path);
  return parent;
}

/*
 * How much parsing a cached prelude saves, roughly: the size of its .pch and of those it is
 * chained onto (0 when there is none or the chain is longer than MAX_CHAIN; not validated: see
 * best_partial_prelude); *links gets how many preludes the chain holds.
 */
static unsigned long long prelude_weight(const prelude_request *request, const char *path,
                                         int *links) {
  struct stat info;
  unsigned long long weight = 0;
  char *link = cubind_xstrdup(path), *parent;
  for (*links = 0; link && *links <= MAX_CHAIN && stat(link, &info) == 0; ++*links) {
    weight += (unsigned long long)info.st_size;
    parent = chain_parent(request, link);
    free(link);
    link = parent;
  }
  free(link);
  return *links <= MAX_CHAIN ? weight : 0;
}

/* A cached prelude that holds part of a list. */
typedef struct partial_prelude {
  char *path;
  size_t count;      /* how many of the list's lines it holds */
  /* names no file it holds may name (names_none), or NULL: the macro lines it leaves out that
     come before some of its lines */
  const cubind_strlist *unnamed;
  int installed;     /* an installed one: usable where it fits the user's arguments */
  /* a checked group's headers (best_partial_prelude's list), or NULL: the parse must name each
     (prelude_attempt) */
  cubind_strlist *checked;
  unsigned long long weight;
  int links;         /* how many preludes its chain holds (prelude_weight) */
} partial_prelude;

static int heavier_first(const void *a, const void *b) {
  const partial_prelude *x = a, *y = b;
  return x->weight < y->weight ? 1 : x->weight > y->weight ? -1 : 0;
}

/* The name a macro line (`#define NAME ...`, `#undef NAME`) is about, as a new string. */
static char *macro_name(const char *line) {
  const char *stop = line + strlen(line);
  const char *at = skip_spaces(skip_word(skip_spaces(line + 1, stop), stop), stop);
  return cubind_xstrndup(at, (size_t)(skip_word(at, stop) - at));
}

/* Where `text` next holds `name` as a whole identifier, from `from` on; NULL if nowhere. */
static const char *next_mention(const char *text, size_t size, const char *from,
                                const char *name) {
  size_t length = strlen(name);
  const char *at, *end = text + size;
  /* memmem, not memchr of the first character: CCCL's names begin with '_' */
  for (at = from; length && (at = memmem(at, (size_t)(end - at), name, length)) != NULL; at++) {
    int before = at > text && (isalnum((unsigned char)at[-1]) || at[-1] == '_');
    int after = at + length < end && (isalnum((unsigned char)at[length]) || at[length] == '_');
    if (!before && !after)
      return at;
  }
  return NULL;
}

/* 1 when `text` holds `name` as a whole identifier. */
static int mentions(const char *text, size_t size, const char *name) {
  return next_mention(text, size, text, name) != NULL;
}

/*
 * 1 when no file the prelude at `path` holds, nor one of those it is chained onto, names any
 * of `names` (short of the base prelude, which clang includes before a .cu's first line either
 * way). A macro line that no held header names can then come after those headers rather than
 * before them: they preprocess alike. (Not seen: a name that a header forms by pasting tokens.)
 */
static int names_none(const prelude_request *request, const char *path,
                      const cubind_strlist *names) {
  char *link = cubind_xstrdup(path), *parent;
  int named = 0;
  while (link && !named && (parent = chain_parent(request, link)) != NULL) {
    cubind_strlist held = {0};
    size_t i, k;
    read_held_files(link, &held);
    for (i = 0; i < held.count && !named; i++) {
      char *text = NULL;
      size_t size = 0;
      if (cubind_read_file_quiet(held.items[i], CUBIND_MAX_SOURCE_BYTES, &text, &size) != 0)
        named = 1; /* unreadable: as if it named them */
      for (k = 0; k < names->count && !named; k++)
        named = mentions(text, size, names->items[k]);
      free(text);
    }
    cubind_strlist_free(&held);
    free(link);
    link = parent;
  }
  free(link);
  return !named;
}

/*
 * The shared base prelude in `dir`: the one of shared_args (the request's own when nothing
 * varies).
 */
static char *shared_base_path(const prelude_request *request, const char *dir) {
  return key_path(dir, request->shared_set, request->lines, NULL, 0);
}

/*
 * The valid shared base prelude (new string): the cache's, else the installed one (cubind's
 * build makes it with none of the arguments that vary: the same key); NULL when neither is.
 */
static char *valid_shared_base(const prelude_request *request) {
  char *path = shared_base_path(request, request->cache_dir);
  if (prelude_valid(request, path)) /* validated once: a checksum reads the whole .pch */
    return path;
  free(path);
  path = request->installed_dir ? shared_base_path(request, request->installed_dir) : NULL;
  if (path && prelude_valid(request, path))
    return path;
  free(path);
  return NULL;
}

/*
 * 1 when the line of `text` that holds `at` is a directive (read into `d`); *continued gets 1
 * when the line before it ends in a splice (the directive may begin there: not followed).
 */
static int line_directive(const char *text, const char *at, const char *end, directive *d,
                          int *continued) {
  const char *start = at;
  while (start > text && start[-1] != '\n')
    start--;
  *continued = start - text >= 2 &&
               (start[-2] == '\\' || (start[-2] == '\r' && start - text >= 3 && start[-3] == '\\'));
  return read_directive(skip_spaces(start, end), end, d);
}

/*
 * The function-like macro that the line holding `at` defines (`#define NAME(params) ...`), as a
 * new string, or NULL when that line is no such definition.
 */
static char *defining_macro(const char *text, const char *at, const char *end) {
  directive d;
  const char *name_end;
  int continued;
  if (!line_directive(text, at, end, &d, &continued) || !directive_is(&d, "define"))
    return NULL;
  name_end = skip_word(d.rest, d.stop);
  if (name_end == d.rest || name_end == d.stop || *name_end != '(')
    return NULL;
  return cubind_xstrndup(d.rest, (size_t)(name_end - d.rest));
}

/*
 * Adds to `targets` the names that `text` asks about with one of `words` (__has_include,
 * __has_include_next, or a macro that forwards to them) as `word(<name>)` or `word("name")`.
 * A macro defined as one of them applied to one of its parameters (CCCL's
 * `#define _CCCL_HAS_INCLUDE(_X) __has_include(_X)`) is added to `forwarders`, to be looked
 * for in turn. Returns 0 when a name is not spelled out otherwise (a macro), whose file
 * cannot be known.
 */
static int has_include_targets(const char *text, size_t size, const cubind_strlist *words,
                               cubind_strlist *targets, cubind_strlist *forwarders) {
  const char *end = text + size;
  size_t w;
  for (w = 0; w < words->count; w++) {
    const char *word = words->items[w], *at = text;
    while ((at = next_mention(text, size, at, word)) != NULL) {
      const char *mention = at, *name, *stop;
      at = skip_spaces(at + strlen(word), end);
      if (at == end || *at != '(')
        continue; /* `defined(__has_include)` and the like */
      at = skip_spaces(at + 1, end);
      if (at == end || (*at != '<' && *at != '"')) {
        char *macro = defining_macro(text, mention, end);
        if (!macro || skip_word(at, end) == at) {
          free(macro);
          return 0;
        }
        if (!cubind_strlist_contains(words, macro) && !cubind_strlist_contains(forwarders, macro))
          cubind_strlist_add(forwarders, macro); /* a macro's own definition is no new one */
        free(macro);
        continue;
      }
      name = at + 1;
      for (stop = name; stop < end && *stop != (*at == '<' ? '>' : '"') && *stop != '\n'; stop++)
        ;
      if (stop == end || *stop == '\n')
        return 0;
      if (stop > name) {
        char *target = cubind_xstrndup(name, (size_t)(stop - name));
        if (!cubind_strlist_contains(targets, target))
          cubind_strlist_add(targets, target);
        free(target);
      }
      at = stop;
    }
  }
  return 1;
}

/* 1 when `dir`/`name` is a regular file other than the one at the real path `real`. */
static int dir_has_other(const char *dir, const char *name, const char *real) {
  char *path, *found;
  int other;
  if (!dir_has(dir, name))
    return 0;
  path = cubind_xasprintf("%s/%s", dir, name);
  found = realpath(path, NULL);
  other = !found || strcmp(found, real) != 0;
  free(found);
  free(path);
  return other;
}

/*
 * 1 when a file in one of `dirs` could be found for a file clang took from elsewhere, `real`:
 * another file at a path that ends `real` (dir/bits/types.h for .../include/bits/types.h). A
 * header is named by a path below a search directory, and -I ones are searched first.
 */
static int shadows_held(const cubind_strlist *dirs, const char *real) {
  const char *slash;
  size_t i;
  for (slash = strchr(real, '/'); slash; slash = strchr(slash + 1, '/'))
    for (i = 0; i < dirs->count; i++)
      if (slash[1] && dir_has_other(dirs->items[i], slash + 1, real))
        return 1;
  return 0;
}

/*
 * The held files as a test of the macros a prelude was built without sees them (held_lookup):
 * in the run (`run`: the request's arguments define them) or in the prelude's build (not
 * given).
 */
typedef struct held_view {
  const prelude_request *request;
  const cubind_strlist *held;
  char *const *texts;
  const size_t *sizes;
  const cubind_strlist *macros;
  int run;
  /* the other names asked about so far: those found not defined, and the others (the same in
     both views: each is looked for in the held files once) */
  cubind_strlist *undefined_names, *unknown_names;
} held_view;

/*
 * 1 when a compiler may define `name` itself: a reserved name, or one that GNU mode defines.
 * nvcc's own (__CUDACC_*, __CUDA_ARCH_LIST__) are no clang's.
 */
static int maybe_predefined(const char *name) {
  if (strncmp(name, "__CUDACC_", 9) == 0 || strcmp(name, "__CUDA_ARCH_LIST__") == 0)
    return 0;
  return (name[0] == '_' && (name[1] == '_' || isupper((unsigned char)name[1]))) ||
         strcmp(name, "linux") == 0 || strcmp(name, "unix") == 0 || strcmp(name, "i386") == 0;
}

/* What the arguments' last -D or -U of `name` makes it (PP_NAME_UNKNOWN: none names it). */
static pp_name argument_definition(const cubind_strlist *args, const char *name) {
  pp_name found = {PP_NAME_UNKNOWN, 0};
  size_t length = strlen(name), i;
  for (i = 0; i < args->count; i++) {
    const char *arg = args->items[i], *value;
    char *end;
    if (arg[0] != '-' || (arg[1] != 'D' && arg[1] != 'U'))
      continue;
    value = arg[2] ? arg + 2 : i + 1 < args->count ? args->items[i + 1] : "";
    if (strncmp(value, name, length) != 0 || (value[length] && value[length] != '=' &&
                                              value[length] != '('))
      continue;
    found.state = arg[1] == 'U' ? PP_NAME_UNDEFINED : PP_NAME_DEFINED;
    found.value = 0;
    if (arg[1] == 'D' && !value[length]) {
      found.state = PP_NAME_VALUE; /* -DNAME: 1 */
      found.value = 1;
    } else if (arg[1] == 'D' && value[length] == '=' && value[length + 1]) {
      long long number = strtoll(value + length + 1, &end, 0);
      if (!*end) {
        found.state = PP_NAME_VALUE;
        found.value = number;
      }
    }
  }
  return found;
}

/*
 * 1 when the mention of a name at `at` in `text` may be its #define or #undef: the name of such
 * a directive, or on a line that a splice continues (not followed).
 */
static int defines_at(const char *text, const char *at, const char *end) {
  directive d;
  int continued, directive_line = line_directive(text, at, end, &d, &continued);
  return continued || (directive_line && (directive_is(&d, "define") ||
                                          directive_is(&d, "undef")) && d.rest == at);
}

/* 1 when a held file may #define or #undef `name`. */
static int held_defines(const held_view *view, const char *name) {
  size_t i;
  for (i = 0; i < view->held->count; i++) {
    const char *text = view->texts[i], *at = text;
    while ((at = next_mention(text, view->sizes[i], at, name)) != NULL) {
      if (defines_at(text, at, text + view->sizes[i]))
        return 1;
      at += strlen(name);
    }
  }
  return 0;
}

/*
 * What a condition in a held file knows of a name (pp_lookup): a macro under test is as the
 * run's arguments define it, or not defined in the prelude's build (unless a compiler may
 * define it itself); any other name is not defined where no argument and no held file defines
 * it and no compiler may.
 */
static pp_name held_lookup(const char *name, size_t length, void *data) {
  const held_view *view = data;
  char *copy = cubind_xstrndup(name, length);
  pp_name found = {PP_NAME_UNKNOWN, 0};
  if (cubind_strlist_contains(view->macros, copy)) {
    if (view->run)
      found = argument_definition(view->request->args, copy);
    else if (!maybe_predefined(copy))
      found.state = PP_NAME_UNDEFINED;
  } else if (cubind_strlist_contains(view->undefined_names, copy)) {
    found.state = PP_NAME_UNDEFINED;
  } else if (!cubind_strlist_contains(view->unknown_names, copy)) {
    int undefined = !maybe_predefined(copy) &&
                    argument_definition(view->request->args, copy).state == PP_NAME_UNKNOWN &&
                    !held_defines(view, copy);
    cubind_strlist_add(undefined ? view->undefined_names : view->unknown_names, copy);
    if (undefined)
      found.state = PP_NAME_UNDEFINED;
  }
  free(copy);
  return found;
}

/*
 * 1 when the held file `text` may preprocess otherwise with the view's macros as the run
 * defines them than without them: it names one outside #if and #elif conditions (comments
 * aside; #else and #endif take no operands), or in one whose outcome they may change. A test
 * that they do not decide leaves the file as it was: CUDA 13's cooperative groups check
 * `defined(__CUDACC_DEBUG__) && defined(CG_DEBUG)`, -G's macro and one no file defines.
 */
static int reads_macros(const held_view *view, const char *text, size_t size) {
  held_view build = *view;
  pp_line_reader reader;
  cubind_buf line = {0};
  char name[8];
  const char *rest;
  size_t k;
  int named = 0;
  for (k = 0; k < view->macros->count && !named; k++)
    named = mentions(text, size, view->macros->items[k]);
  if (!named)
    return 0;
  named = 0;
  build.run = 0;
  reader = pp_line_reader_of(text, size);
  while (!named && pp_next_line(&reader, &line)) {
    long long run_value, build_value;
    for (k = 0; k < view->macros->count && !named; k++)
      named = mentions(line.data, line.length, view->macros->items[k]);
    if (!named || !pp_directive_of(line.data, name, sizeof name, &rest))
      continue;
    if (strcmp(name, "else") == 0 || strcmp(name, "endif") == 0)
      named = 0;
    else if (strcmp(name, "if") == 0 || strcmp(name, "elif") == 0)
      named = !pp_condition_value(rest, held_lookup, (void *)view, &run_value) ||
              !pp_condition_value(rest, held_lookup, &build, &build_value) ||
              !run_value != !build_value;
  }
  cubind_buf_free(&line);
  return named;
}

/*
 * 1 when the prelude at `path` (with those it is chained onto when `chain` is set), built
 * without some -D, -U, -I and -isystem arguments, is what a build with them would be: no file
 * it holds reads one of those `macros` in a way that matters (reads_macros), and none of
 * those `dirs` holds another
 * file that clang could take for one the prelude holds or asks __has_include about (-I
 * directories are searched before the system ones). Not seen, as in names_none: a name formed
 * by pasting tokens; nor a header named through a link inside a search directory.
 */
static int fits_without(const prelude_request *request, const char *path, int chain,
                        const cubind_strlist *macros, const cubind_strlist *dirs) {
  cubind_strlist held = {0}, targets = {0}, words = {0}, forwarders = {0};
  char *link = cubind_xstrdup(path), **texts;
  size_t i, k, pass, *sizes;
  int fits = 1, links = MAX_CHAIN;
  if (!macros->count && !dirs->count) {
    free(link);
    return 1;
  }
  while (link && links-- > 0) {
    char *parent = chain ? chain_parent(request, link) : NULL;
    read_held_files(link, &held);
    free(link);
    link = parent;
  }
  free(link);
  texts = cubind_xcalloc(held.count + 1, sizeof *texts); /* each file read once, kept for all */
  sizes = cubind_xcalloc(held.count + 1, sizeof *sizes);
  for (i = 0; i < held.count && fits; i++)
    fits = cubind_read_file_quiet(held.items[i], CUBIND_MAX_SOURCE_BYTES, &texts[i],
                                  &sizes[i]) == 0; /* unreadable: as if it named them */
  if (fits && macros->count) {
    cubind_strlist undefined_names = {0}, unknown_names = {0};
    held_view view;
    view.request = request;
    view.held = &held;
    view.texts = texts;
    view.sizes = sizes;
    view.macros = macros;
    view.run = 1;
    view.undefined_names = &undefined_names;
    view.unknown_names = &unknown_names;
    for (i = 0; i < held.count && fits; i++)
      fits = !reads_macros(&view, texts[i], sizes[i]);
    cubind_strlist_free(&undefined_names);
    cubind_strlist_free(&unknown_names);
  }
  cubind_strlist_add(&words, "__has_include");
  cubind_strlist_add(&words, "__has_include_next");
  /* a second pass looks for the macros that forward to __has_include, if any */
  for (pass = 0; pass < 2 && words.count && fits; pass++) {
    for (i = 0; i < held.count && fits && dirs->count; i++)
      fits = has_include_targets(texts[i], sizes[i], &words, &targets, &forwarders) &&
             (pass || !shadows_held(dirs, held.items[i]));
    cubind_strlist_free(&words);
    words = forwarders;
    memset(&forwarders, 0, sizeof forwarders);
  }
  fits = fits && !words.count; /* a macro that forwards to a forwarder: not followed */
  /* a name asked about that a directory holds: fine only where it is a file the prelude
     holds (the toolkit's own directory given again) */
  for (i = 0; i < targets.count && fits; i++)
    for (k = 0; k < dirs->count && fits; k++) {
      if (dir_has(dirs->items[k], targets.items[i])) {
        char *candidate = cubind_xasprintf("%s/%s", dirs->items[k], targets.items[i]);
        char *real = realpath(candidate, NULL);
        fits = real && cubind_strlist_contains(&held, real);
        free(real);
        free(candidate);
      }
    }
  for (i = 0; i < held.count; i++)
    free(texts[i]);
  free(texts);
  free(sizes);
  cubind_strlist_free(&held);
  cubind_strlist_free(&targets);
  cubind_strlist_free(&words);
  cubind_strlist_free(&forwarders);
  return fits;
}

/*
 * 1 when the shared base prelude at `path`, built without the request's -D, -U and -I arguments
 * (split_varying), is what a build with them would be (fits_without).
 */
static int base_fits(const prelude_request *request, const char *path) {
  return fits_without(request, path, 0, &request->varying_macros, &request->varying_dirs);
}

/*
 * 1 when the installed prelude at `path`, built without the user's -D, -U, -I and -isystem
 * arguments, is what a build with them would be, with every prelude it is chained onto
 * (fits_without).
 */
static int installed_fits(const prelude_request *request, const char *path) {
  return !request->user_unknown &&
         fits_without(request, path, 1, &request->user_macros, &request->user_dirs);
}

/*
 * The installed prelude of the `count` of `lines` that `picked` numbers (as prelude_path_of),
 * keyed without the user's arguments (new string); NULL when there is no installed directory.
 */
static char *installed_path_of(const prelude_request *request, const cubind_strlist *lines,
                               const size_t *picked, size_t count) {
  return request->installed_dir ? key_path(request->installed_dir, request->installed_set,
                                           lines, picked, count)
                                : NULL;
}

/*
 * The valid installed prelude of the first `count` leading lines that fits the request's user
 * arguments (new string), or NULL.
 */
static char *installed_prelude(const prelude_request *request, size_t count) {
  char *path = installed_path_of(request, request->lines, NULL, count);
  if (path && prelude_valid(request, path) && installed_fits(request, path))
    return path;
  free(path);
  return NULL;
}

/*
 * The base prelude the request parses with (new string): its option set's own when valid, else
 * the shared one (the cache's, else the installed one) when valid and it fits the request
 * (base_fits); NULL when there is none.
 */
static char *usable_base(const prelude_request *request) {
  char *own = prelude_path(request, 0), *shared;
  if (prelude_valid(request, own))
    return own;
  free(own);
  shared = valid_shared_base(request);
  if (shared && base_fits(request, shared))
    return shared;
  free(shared);
  return NULL;
}

/*
 * The #include lines of request->lines, by index, into `includes` (MAX_SUBSEQUENCE_LINES at
 * most), and the names of its macro lines into `macros`; returns how many #include lines
 * there are, or 0 when there are more than MAX_SUBSEQUENCE_LINES (they are not taken apart).
 */
static size_t split_lines(const prelude_request *request, size_t *includes,
                          cubind_strlist *macros) {
  size_t i, count = 0;
  for (i = 0; i < request->lines->count; i++) {
    const char *line = request->lines->items[i];
    if (strncmp(line, "#include <", 10) != 0) {
      char *name = macro_name(line);
      cubind_strlist_add(macros, name);
      free(name);
    } else if (count == MAX_SUBSEQUENCE_LINES) {
      return 0;
    } else {
      includes[count++] = i;
    }
  }
  return count;
}

/*
 * Adds the prelude at `path` (taken over) to `candidates` when it is there, with its weight and
 * the rest of `shape`; frees `path` otherwise.
 */
static void add_one_candidate(const prelude_request *request, partial_prelude *candidates,
                              size_t *found, char *path, partial_prelude shape) {
  shape.weight = path ? prelude_weight(request, path, &shape.links) : 0;
  if (!shape.weight) {
    free(path);
    return;
  }
  shape.path = path;
  candidates[(*found)++] = shape;
}

/*
 * Adds the preludes of the `count` of `lines` that `picked` numbers (NULL: the first `count`)
 * to `candidates`, as `shape` tells: the cache's and the installed one, those that are there
 * (two at most).
 */
static void add_candidate(const prelude_request *request, partial_prelude *candidates,
                          size_t *found, const cubind_strlist *lines, const size_t *picked,
                          size_t count, partial_prelude shape) {
  shape.installed = 0;
  add_one_candidate(request, candidates, found, prelude_path_of(request, lines, picked, count),
                    shape);
  shape.installed = 1;
  add_one_candidate(request, candidates, found, installed_path_of(request, lines, picked, count),
                    shape);
}

/* 1 when one of `names` is a header of one of `libraries` ("thrust": thrust/sort.h). */
static int names_a_library(const cubind_strlist *names, const cubind_strlist *libraries) {
  size_t i;
  for (i = 0; i < names->count; i++)
    if (same_library(names->items[i], libraries)) /* a library's name is its own library */
      return 1;
  return 0;
}

/*
 * Adds the preludes of the installed groups (installed_groups) whose headers the .cu's parse
 * reads without its naming them all (a group of its own lines is one of its subsets): each is
 * one of its #include lines `names` or in their leads (lead_closure). Such a prelude holds only
 * what that parse reads, read earlier: where the .cu names <cub/block/block_reduce.cuh>,
 * <cub/config.cuh> and <cub/util_type.cuh>, which that includes first, are read before it
 * rather than by it. It is the liberty subsets take, here with headers each of which can be a
 * program's first (self-contained, and a no-op included again); no file the prelude holds may
 * name the .cu's `macros` (names_none). A checked group that the leads do not show read (Thrust
 * reaches its CUDA backend through the .inl files its headers include last, by macro-named
 * #includes) is added too where the .cu names a header of one of its libraries and the texts
 * do not show it unread (may_read_all), marked with its headers: it counts only if the parse
 * shows it read them after all (prelude_attempt).
 */
static void add_group_candidates(const prelude_request *request, partial_prelude *candidates,
                                 size_t *found, const cubind_strlist *names,
                                 const cubind_strlist *macros, cubind_strlist *checked) {
  cubind_strlist groups[MAX_GROUPS], checked_for[MAX_GROUPS], read = {0}, wanted = {0};
  partial_prelude shape = {0};
  size_t count = installed_groups(request, groups, checked_for, MAX_GROUPS), g, i;
  for (g = 0; g < count; g++)
    for (i = 0; i < groups[g].count; i++)
      if (!cubind_strlist_contains(names, groups[g].items[i]))
        cubind_strlist_add(&wanted, groups[g].items[i]);
  if (wanted.count)
    lead_closure(request, names, &wanted, &read);
  shape.unnamed = macros->count ? macros : NULL;
  for (g = 0; g < count; g++) {
    cubind_strlist lines = {0};
    int all_read = 1, named_all = 1;
    for (i = 0; i < groups[g].count; i++) {
      all_read = all_read && (cubind_strlist_contains(&read, groups[g].items[i]) ||
                              cubind_strlist_contains(names, groups[g].items[i]));
      named_all = named_all && cubind_strlist_contains(names, groups[g].items[i]);
      /* as its key was made: without the headers the base prelude holds (drop_held_headers) */
      if (!held_everywhere(request, groups[g].items[i], &request->base_held)) {
        char *line = cubind_xasprintf("#include <%s>", groups[g].items[i]);
        cubind_strlist_add(&lines, line);
        free(line);
        if (checked_for[g].count)
          cubind_strlist_add(&checked[g], groups[g].items[i]);
      }
    }
    shape.checked = NULL;
    if (!all_read && checked_for[g].count && names_a_library(names, &checked_for[g]) &&
        may_read_all(request, names, &checked_for[g], &checked[g])) {
      shape.checked = &checked[g];
      all_read = 1;
    }
    if (all_read && !named_all && lines.count)
      add_candidate(request, candidates, found, &lines, NULL, lines.count, shape);
    cubind_strlist_free(&lines);
    cubind_strlist_free(&groups[g]);
    cubind_strlist_free(&checked_for[g]);
  }
  cubind_strlist_free(&read);
  cubind_strlist_free(&wanted);
}

/*
 * The valid prelude, of a chain of `most_links` preludes at most, that holds the most of
 * request->lines short of the whole list (its weight), or NULL; *count gets how many lines it
 * holds. Its lines are a prefix of the list or any
 * subsequence of its #include lines (some of its headers, in their order): the headers it lacks
 * are then parsed after the ones it holds rather than between them, as the C++ standard lets a
 * program include its library's headers in any order ([using.headers]) and the toolkit's
 * libraries are made to be included. A subsequence that leaves out macro lines is taken only
 * where no header it holds names those macros (names_none). Or it is an installed group that
 * its headers read first (add_group_candidates: <cub/config.cuh> and <cub/util_type.cuh> for
 * <cub/block/block_reduce.cuh>). A prefix that holds only <cstdio> must not hide a subsequence
 * that holds <cub/cub.cuh>: candidates go heaviest first, and only the one taken is validated
 * (a checksum reads the whole .pch). Each part is looked for in the cache and among the
 * installed preludes (those only where they fit: installed_fits). A checked group heavier than
 * the one taken goes to `attempts` (NULL: none is taken, as for a prelude's parent).
 */
static char *best_partial_prelude(const prelude_request *request, size_t *count, int most_links,
                                  prelude_attempts *attempts) {
  size_t n = request->lines->count, includes[MAX_SUBSEQUENCE_LINES], picked[MAX_SUBSEQUENCE_LINES];
  size_t found = 0, subsets, first_macro, mask, i, k;
  cubind_strlist macros = {0}, names = {0}, checked[MAX_GROUPS];
  size_t ni = split_lines(request, includes, &macros);
  partial_prelude *candidates, shape = {0};
  char *best = NULL;
  memset(checked, 0, sizeof checked);
  for (first_macro = 0; first_macro < ni && includes[first_macro] == first_macro; first_macro++)
    ; /* the lines before it are all #include lines: it is the first macro line, if any */
  subsets = ni ? ((size_t)1 << ni) - (macros.count ? 1 : 2) : 0;
  candidates = cubind_xcalloc(2 * (n + subsets + MAX_GROUPS), sizeof *candidates);
  /* the prefixes short of the whole list; those of #include lines alone are subsets too */
  for (k = ni && macros.count ? first_macro + 1 : ni ? n : 1; k < n; k++) {
    shape.count = k;
    add_candidate(request, candidates, &found, request->lines, NULL, k, shape);
  }
  /* every nonempty subset of the #include lines (bit i: the i-th) but, without macro lines,
     the whole list */
  for (mask = 1; mask <= subsets; mask++) {
    for (i = 0, k = 0; i < ni; i++)
      if ((mask >> i) & 1)
        picked[k++] = includes[i];
    shape.count = k;
    shape.unnamed = macros.count && first_macro < picked[k - 1] ? &macros : NULL;
    add_candidate(request, candidates, &found, request->lines, picked, k, shape);
  }
  /* the installed groups its headers read first: none of the list's lines whole */
  for (i = 0; i < ni; i++) {
    const char *line = request->lines->items[includes[i]];
    char *name = cubind_xstrndup(line + 10, strlen(line + 10) - 1); /* up to the '>' */
    cubind_strlist_add(&names, name);
    free(name);
  }
  add_group_candidates(request, candidates, &found, &names, &macros, checked);
  qsort(candidates, found, sizeof *candidates, heavier_first);
  for (i = 0; i < found; i++) {
    partial_prelude *candidate = &candidates[i];
    if (!best && candidate->links <= most_links &&
        (!candidate->checked ||
         (attempts && attempts->count < sizeof attempts->items / sizeof attempts->items[0])) &&
        prelude_valid(request, candidate->path) &&
        (!candidate->installed || installed_fits(request, candidate->path)) &&
        (!candidate->unnamed || names_none(request, candidate->path, candidate->unnamed))) {
      if (candidate->checked) { /* heavier than the best that needs no check: tried first */
        prelude_attempt *attempt = &attempts->items[attempts->count++];
        attempt->path = candidate->path;
        memset(&attempt->headers, 0, sizeof attempt->headers);
        for (k = 0; k < candidate->checked->count; k++)
          cubind_strlist_add(&attempt->headers, candidate->checked->items[k]);
        continue;
      }
      best = candidate->path;
      *count = candidate->count;
    } else {
      free(candidate->path);
    }
  }
  for (i = 0; i < MAX_GROUPS; i++)
    cubind_strlist_free(&checked[i]);
  free(candidates);
  cubind_strlist_free(&names);
  cubind_strlist_free(&macros);
  return best;
}

/* The lock that a builder holds for an option set: <base prelude's name>.lock. */
static char *builder_lock_path(const prelude_request *request) {
  char *base = prelude_path(request, 0), *lock = cubind_xasprintf("%.*s.lock",
                                                                  (int)(strlen(base) - 4), base);
  free(base);
  return lock;
}

/*
 * Builds the whole list's prelude unless a valid one is there, chained onto the heaviest valid
 * part of the list (best_partial_prelude), else onto the base: its text is the whole list, and
 * the lines the parent holds include as no-ops after it.
 */
static void build_list(CXIndex index, const prelude_request *request, const char *base) {
  size_t count = request->lines->count, parent_count;
  char *whole = prelude_path(request, count), *parent;
  char *valid = prelude_valid(request, whole) ? cubind_xstrdup(whole)
                                              : installed_prelude(request, count);
  if (!valid) { /* an empty list's is the base: valid by now */
    /* the new one is a link more */
    parent = best_partial_prelude(request, &parent_count, MAX_CHAIN - 1, NULL);
    build_prelude(index, request, count, whole, parent ? parent : base);
    free(parent);
  }
  free(valid);
  free(whole);
}

/*
 * The #include lines of the toolkit's headers in request->lines, in their order, into `lines`.
 * They are what is dear to parse (docs/libclang.md: CUB 1.3 s, Thrust 1.2 s, cooperative groups
 * 0.45 s) and what files share; the C and C++ library lines and macro lines vary most between
 * files.
 */
static void toolkit_lines(const prelude_request *request, cubind_strlist *lines) {
  cubind_strlist macros = {0};
  size_t includes[MAX_SUBSEQUENCE_LINES], count = split_lines(request, includes, &macros), i;
  for (i = 0; i < count; i++) {
    const char *line = request->lines->items[includes[i]];
    char *name = cubind_xstrndup(line + 10, strlen(line + 10) - 1); /* up to the '>' */
    if (toolkit_header(request->cuda_path, name))
      cubind_strlist_add(lines, line);
    free(name);
  }
  cubind_strlist_free(&macros);
}

/*
 * Builds the base prelude the request lacks: the shared one (with shared_args) unless it is
 * there, and the option set's own when the shared one does not fit it. Returns the one the
 * request then parses with (new string), or NULL.
 */
static char *build_base(CXIndex index, const prelude_request *request) {
  char *own = prelude_path(request, 0), *valid_shared = valid_shared_base(request);
  char *shared = valid_shared ? valid_shared : shared_base_path(request, request->cache_dir);
  prelude_request shared_request = *request;
  shared_request.args = &request->shared_args;
  if ((valid_shared || build_prelude(index, &shared_request, 0, shared, NULL)) &&
      (strcmp(cubind_basename(shared), cubind_basename(own)) == 0 ||
       base_fits(request, shared))) {
    free(own);
    return shared;
  }
  free(shared);
  if (build_prelude(index, request, 0, own, NULL))
    return own;
  free(own);
  return NULL;
}

/*
 * The background builder's work: the base prelude when it is missing; then, the list normalised
 * against it, the preludes of its toolkit headers' prefixes (<cooperative_groups.h>, then with
 * <cooperative_groups/reduce.h>), each chained onto the one before, and last the whole list's
 * onto the heaviest of them; each only if no valid one appeared meanwhile. The next .cu whose
 * list shares some of those headers in another company (<stdio.h>, <cub/cub.cuh> after
 * <iostream>, <cub/cub.cuh>; <cooperative_groups.h>, <cuda_fp16.h>) then finds them.
 */
static void build_missing(prelude_request *request) {
  CXIndex index = clang_createIndex(0, 0);
  char *base = usable_base(request);
  if (!base)
    base = build_base(index, request);
  if (base) {
    cubind_strlist toolkit = {0};
    size_t k;
    drop_held_headers(request, base);
    toolkit_lines(request, &toolkit);
    for (k = 1; k <= toolkit.count && k < request->lines->count; k++) {
      cubind_strlist lines = {0};
      prelude_request prefix;
      size_t i;
      for (i = 0; i < k; i++)
        cubind_strlist_add(&lines, toolkit.items[i]);
      prefix = *request;
      prefix.lines = &lines;
      build_list(index, &prefix, base);
      cubind_strlist_free(&lines);
    }
    cubind_strlist_free(&toolkit);
    build_list(index, request, base);
  }
  free(base);
  clang_disposeIndex(index);
}

/*
 * Where a run whose builder could not start (another one holds the option set's lock) leaves its
 * list for that builder: <base prelude's name>.want-<the list's key>, its lines one per line.
 */
static char *want_path(const prelude_request *request) {
  char *base = prelude_path(request, 0), *whole = prelude_path(request, request->lines->count);
  char *want = cubind_xasprintf("%.*s.want-%s", (int)(strlen(base) - 4), base,
                                cubind_basename(whole) + 8 /* "prelude-" */);
  free(base);
  free(whole);
  return want;
}

/* Leaves the request's list for the builder at work (see want_path). */
static void leave_want(const prelude_request *request) {
  char *path = want_path(request);
  cubind_buf text = {0};
  size_t i;
  cubind_buf_puts(&text, "");
  for (i = 0; i < request->lines->count; i++)
    cubind_buf_printf(&text, "%s\n", request->lines->items[i]);
  cubind_write_file(path, text.data, text.length, 0); /* without it, a later run asks again */
  cubind_buf_free(&text);
  free(path);
}

/* 1 when the cache's file `name` is a list left for the option set of `base` (want_path). */
static int is_want_of(const char *name, const char *base) {
  const char *base_name = cubind_basename(base);
  size_t stem = strlen(base_name) - 4; /* less ".pch" */
  return strncmp(name, base_name, stem) == 0 && strncmp(name + stem, ".want-", 6) == 0 &&
         !strstr(name, ".tmp-");
}

/* 1 when a list is left for this option set's builder (take_want would take one). */
static int want_waiting(const prelude_request *request) {
  char *base = prelude_path(request, 0);
  DIR *dir = opendir(request->cache_dir);
  struct dirent *entry;
  int waiting = 0;
  while (dir && !waiting && (entry = readdir(dir)) != NULL)
    waiting = is_want_of(entry->d_name, base);
  if (dir)
    closedir(dir);
  free(base);
  return waiting;
}

/*
 * Takes one list left for this option set's builder (removing it) into request->lines; returns
 * 1 when there was one.
 */
static int take_want(prelude_request *request) {
  char *base = prelude_path(request, 0);
  DIR *dir = opendir(request->cache_dir);
  struct dirent *entry;
  int taken = 0;
  while (dir && !taken && (entry = readdir(dir)) != NULL) {
    char *path, *data = NULL, *line, *next;
    size_t size = 0;
    if (!is_want_of(entry->d_name, base))
      continue;
    path = cubind_xasprintf("%s/%s", request->cache_dir, entry->d_name);
    if (cubind_read_file_quiet(path, CUBIND_MAX_SOURCE_BYTES, &data, &size) == 0 &&
        unlink(path) == 0) {
      cubind_strlist_free(request->lines);
      for (line = data; (next = memchr(line, '\n', size - (size_t)(line - data))) != NULL;
           line = next + 1) {
        *next = '\0';
        cubind_strlist_add(request->lines, line);
      }
      taken = 1;
    }
    free(data);
    free(path);
  }
  if (dir)
    closedir(dir);
  free(base);
  return taken;
}

/* How many lists left by other runs one builder makes before it exits. */
#define MAX_WANTS_PER_BUILDER 64

/*
 * The builder's process: detached (its own session, a grandchild that init adopts), quiet
 * (stdin, stdout and stderr on /dev/null, no other descriptor but the lock's: make and ninja wait
 * for a job's pipes to close), at low priority. It keeps the lock `lock_fd` until it exits.
 */
static void run_builder(prelude_request *request, int lock_fd) {
  int null_fd, fd, max_fd = (int)sysconf(_SC_OPEN_MAX), wants;
  if (setsid() < 0 || fork() != 0)
    _exit(0);
  null_fd = open("/dev/null", O_RDWR);
  if (null_fd < 0)
    _exit(1);
  dup2(null_fd, 0);
  dup2(null_fd, 1);
  dup2(null_fd, 2);
  for (fd = 3; fd < (max_fd > 0 && max_fd < 65536 ? max_fd : 65536); fd++)
    if (fd != lock_fd)
      close(fd);
  setpriority(PRIO_PROCESS, 0, 10); /* where it fails, the build goes on at the default one */
  build_missing(request);
  for (wants = 0; wants < MAX_WANTS_PER_BUILDER;) {
    if (take_want(request)) {
      build_missing(request);
      wants++;
      continue;
    }
    /* None left: let the lock go, then look once more. A run that found the lock held leaves
       its list and then tries the lock again (start_builder): a list left after this look is
       that run's builder's, one left before it is this one's, which takes the lock back once
       a waiter's shared hold or another builder lets it go. */
    flock(lock_fd, LOCK_UN);
    if (!want_waiting(request) || flock(lock_fd, LOCK_EX) != 0)
      break;
  }
  _exit(0);
}

/*
 * Starts a background builder for the option set, unless one already holds its lock: that one
 * builds another list, and this one's after it (leave_want). The lock is taken here, before the
 * fork, so that a wait that follows (prelude_cache_wait) cannot miss the builder.
 */
static void start_builder(prelude_request *request) {
  char *lock = builder_lock_path(request);
  int fd = open(lock, O_RDWR | O_CREAT, 0666);
  pid_t child;
  free(lock);
  if (fd < 0)
    return;
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    leave_want(request);
    /* the builder may have looked for lists for the last time before this one was left, and
       let the lock go since (run_builder): then this run starts the next builder */
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      close(fd);
      return;
    }
  }
  child = fork();
  if (child == 0)
    run_builder(request, fd);
  close(fd); /* the builder's copy keeps the lock */
  if (child > 0)
    while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
      ;
}

/*
 * Reports (cubind_report) which prelude a run parses with and how many of the .cu's leading
 * lines it holds (#include lines of headers the base prelude holds are not counted).
 */
static void report_choice(const char *path, size_t count, size_t total) {
  cubind_report("prelude %s (%zu of %zu leading lines)", path ? cubind_basename(path) : "none",
                count, total);
}

/*
 * Splits the options' arguments for the shared base prelude: past the generator's own ones,
 * each -D and -U (the binary's __CUDA_ARCH_LIST__, the user's) goes to varying_macros by name
 * and each -I and the user's -isystem to varying_dirs; all others, and their values, to
 * shared_args. For the installed
 * preludes: the user's -D and -U go to user_macros by name, their -I and -isystem directories
 * to user_dirs, and installed_set hashes the arguments before them. NDEBUG goes to neither:
 * <assert.h> (and CCCL's assertions) name it, but it changes nothing a declaration is made of,
 * only what assert() expands to in function bodies (which a .cu's own <assert.h> defines again,
 * having no include guard); CMake's Release and RelWithDebInfo builds pass it.
 */
static void split_varying(prelude_request *request, const prelude_options *options) {
  const cubind_strlist *args = options->args;
  cubind_strlist before_user = {0};
  size_t i;
  for (i = 0; i < args->count; i++) {
    const char *arg = args->items[i];
    int valued = strcmp(arg, "-isystem") == 0 || strcmp(arg, "-idirafter") == 0 ||
                 strcmp(arg, "-include") == 0 || strcmp(arg, "-imacros") == 0 ||
                 strcmp(arg, "-iquote") == 0 ||
                 strcmp(arg, "-x") == 0 || strcmp(arg, "-Xclang") == 0;
    int user = i >= options->user_args;
    if (user && strncmp(arg, "-isystem", 8) == 0) {
      /* searched before clang's own system directories, as -I ones: a directory that varies */
      const char *dir = arg[8] ? arg + 8 : i + 1 < args->count ? args->items[++i] : "";
      cubind_strlist_add(&request->user_dirs, dir);
      cubind_strlist_add(&request->varying_dirs, dir);
      continue;
    }
    if (user && !(arg[0] == '-' && arg[1] && strchr("DUI", arg[1])))
      request->user_unknown = 1; /* none that cubind-gen passes on */
    if (!user)
      cubind_strlist_add(&before_user, arg);
    if (i >= options->own_args && arg[0] == '-' && arg[1] && strchr("DUI", arg[1])) {
      /* the value as one argument or the next one; a macro's name ends at '=' or '(' */
      const char *value = arg[2] ? arg + 2 : i + 1 < args->count ? args->items[++i] : "";
      char *name = cubind_xstrndup(value, strcspn(value, "=("));
      if (arg[1] != 'I' && strcmp(name, "NDEBUG") == 0) {
        free(name);
        continue;
      }
      cubind_strlist_add(arg[1] == 'I' ? &request->varying_dirs : &request->varying_macros,
                         arg[1] == 'I' ? value : name);
      if (user)
        cubind_strlist_add(arg[1] == 'I' ? &request->user_dirs : &request->user_macros,
                           arg[1] == 'I' ? value : name);
      else if (!arg[2])
        cubind_strlist_add(&before_user, value);
      free(name);
      continue;
    }
    cubind_strlist_add(&request->shared_args, arg);
    if (valued && i + 1 < args->count) {
      cubind_strlist_add(&request->shared_args, args->items[++i]);
      if (!user)
        cubind_strlist_add(&before_user, args->items[i]);
    }
  }
  request->installed_set = option_set_hash(&before_user, options->cuda_path);
  cubind_strlist_free(&before_user);
}

/* A request for `lines` (copied into the request's own list; request_free frees it). */
static void request_init(prelude_request *request, const prelude_options *options,
                         const cubind_strlist *lines) {
  size_t i;
  memset(request, 0, sizeof *request);
  request->args = options->args;
  request->cache_dir = options->cache_dir;
  request->installed_dir = options->installed_dir;
  request->cuda_path = options->cuda_path;
  request->option_set = option_set_hash(options->args, options->cuda_path);
  split_varying(request, options);
  request->shared_set = option_set_hash(&request->shared_args, options->cuda_path);
  request->lines = cubind_xcalloc(1, sizeof *request->lines);
  for (i = 0; i < lines->count; i++)
    cubind_strlist_add(request->lines, lines->items[i]);
}

static void request_free(prelude_request *request) {
  cubind_strlist_free(request->lines);
  free(request->lines);
  cubind_strlist_free(&request->shared_args);
  cubind_strlist_free(&request->varying_macros);
  cubind_strlist_free(&request->varying_dirs);
  cubind_strlist_free(&request->user_macros);
  cubind_strlist_free(&request->user_dirs);
  cubind_strlist_free(&request->base_held);
}

/*
 * The best valid prelude for the request now: once there is a base prelude for it (usable_base;
 * the list then normalised against it), the whole list's (the cache's, else an installed one
 * that fits), else the one that holds most of it (best_partial_prelude), else the base; NULL
 * without a base. *count: how many lines of the (normalised) list it holds. `attempts` (or
 * NULL): where the whole list's is not there, the checked groups heavier than that one.
 */
static char *find_prelude(prelude_request *request, size_t *count, prelude_attempts *attempts) {
  char *base = usable_base(request), *path;
  *count = 0;
  if (!base)
    return NULL;
  drop_held_headers(request, base);
  path = prelude_path(request, request->lines->count);
  if (!prelude_valid(request, path)) {
    free(path);
    path = installed_prelude(request, request->lines->count);
  }
  if (path)
    *count = request->lines->count;
  else
    path = best_partial_prelude(request, count, MAX_CHAIN, attempts);
  if (path) {
    free(base);
    return path;
  }
  return base;
}

/* prelude_cache_get: see prelude_cache.h. */
char *prelude_cache_get(const prelude_options *options, const cubind_strlist *lines, int *whole,
                        prelude_attempts *attempts) {
  prelude_request request;
  size_t count, i;
  char *path;
  memset(attempts, 0, sizeof *attempts);
  request_init(&request, options, lines);
  cubind_sweep_stale(options->cache_dir, is_cache_temp, NULL);
  path = find_prelude(&request, &count, attempts);
  *whole = path && count == request.lines->count;
  if (!*whole)
    start_builder(&request);
  for (i = 0; i < attempts->count; i++)
    cubind_report("prelude %s first, if the parse reads %s", cubind_basename(attempts->items[i].path),
                  attempts->items[i].headers.items[0]);
  report_choice(path, count, request.lines->count);
  request_free(&request);
  return path;
}

/* prelude_attempts_free: see prelude_cache.h. */
void prelude_attempts_free(prelude_attempts *attempts) {
  size_t i;
  for (i = 0; i < attempts->count; i++) {
    free(attempts->items[i].path);
    cubind_strlist_free(&attempts->items[i].headers);
  }
  memset(attempts, 0, sizeof *attempts);
}

/* prelude_cache_wait: see prelude_cache.h. */
char *prelude_cache_wait(const prelude_options *options, const cubind_strlist *lines,
                         double seconds) {
  prelude_request request;
  const struct timespec pause = {0, 20 * 1000 * 1000};
  char *lock, *path = NULL;
  double waited = 0;
  size_t count = 0;
  int fd;
  request_init(&request, options, lines);
  lock = builder_lock_path(&request);
  fd = open(lock, O_RDONLY);
  free(lock);
  if (fd >= 0) {
    /* polled, not blocking: a builder that hangs costs this run `seconds`, not forever */
    while (flock(fd, LOCK_SH | LOCK_NB) != 0 && waited < seconds) {
      nanosleep(&pause, NULL);
      waited += 0.02;
    }
    close(fd);
    path = waited < seconds ? find_prelude(&request, &count, NULL) : NULL;
    if (path && count < request.lines->count) {
      free(path);
      path = NULL;
    }
    report_choice(path, count, request.lines->count);
  }
  request_free(&request);
  return path;
}

/* prelude_cache_drop: see prelude_cache.h. */
void prelude_cache_drop(const prelude_options *options, const char *path) {
  size_t length = strlen(options->cache_dir);
  char *sum_path, *files_path;
  if (strncmp(path, options->cache_dir, length) != 0 || path[length] != '/' ||
      strchr(path + length + 1, '/'))
    return; /* an installed prelude: cubind's, read-only to a run */
  sum_path = cubind_xasprintf("%s.sum", path);
  files_path = cubind_xasprintf("%s.files", path);
  unlink(sum_path);
  unlink(path);
  unlink(files_path);
  free(sum_path);
  free(files_path);
}
