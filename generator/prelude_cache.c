/* prelude_cache.c: the precompiled prelude cache (see prelude_cache.h). */
#include "prelude_cache.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clang_util.h"
#include "fs.h"
#include "parse.h"

/* FNV-1a: a stable 64-bit hash for cache keys (not for security). */
static unsigned long long hash_bytes(unsigned long long hash, const void *data, size_t size) {
  const unsigned char *bytes = data;
  size_t i;
  for (i = 0; i < size; i++)
    hash = (hash ^ bytes[i]) * 1099511628211ull;
  return hash;
}

/*
 * A checksum of a whole file, 8 bytes at a time (a 6 MB prelude in ~2 ms): any change of
 * content or size changes it with overwhelming likelihood. 0 when the file cannot be read.
 */
static unsigned long long file_checksum(const char *path) {
  char *data = NULL;
  size_t size = 0, i;
  unsigned long long sum = 0x9E3779B97F4A7C15ull;
  if (cubind_read_file_quiet(path, CUBIND_MAX_CACHE_BYTES, &data, &size) != 0)
    return 0;
  sum ^= (unsigned long long)size;
  for (i = 0; i + 8 <= size; i += 8) {
    uint64_t word;
    memcpy(&word, data + i, 8);
    sum = (sum ^ word) * 0xFF51AFD7ED558CCDull;
    sum ^= sum >> 29;
  }
  sum = hash_bytes(sum, data + i, size - i);
  free(data);
  return sum ? sum : 1;
}

/* The checksum recorded for a prelude, or 0 when there is none. */
static unsigned long long recorded_checksum(const char *sum_path) {
  char *data = NULL;
  size_t size = 0;
  unsigned long long sum = 0;
  char *end;
  if (cubind_read_file_quiet(sum_path, 64, &data, &size) != 0)
    return 0;
  sum = strtoull(data, &end, 16);
  if (end == data || *end != '\n')
    sum = 0;
  free(data);
  return sum;
}

/*
 * The cache key: the libclang version, every argument, the toolkit's cuda_runtime.h and the
 * toolkit headers the prelude includes.
 */
static unsigned long long cache_key(const cubind_strlist *args, const char *cuda_path,
                                    const cubind_strlist *includes) {
  unsigned long long hash = 14695981039346656037ull;
  char *version = cubind_libclang_version(), *runtime_h;
  struct stat info;
  size_t i;
  hash = hash_bytes(hash, version, strlen(version) + 1);
  free(version);
  for (i = 0; i < args->count; i++)
    hash = hash_bytes(hash, args->items[i], strlen(args->items[i]) + 1);
  hash = hash_bytes(hash, "\0includes", 10);
  for (i = 0; i < includes->count; i++)
    hash = hash_bytes(hash, includes->items[i], strlen(includes->items[i]) + 1);
  runtime_h = cubind_xasprintf("%s/include/cuda_runtime.h", cuda_path);
  if (stat(runtime_h, &info) == 0) {
    long long stamp[2];
    stamp[0] = (long long)info.st_size;
    stamp[1] = (long long)info.st_mtime;
    hash = hash_bytes(hash, stamp, sizeof stamp);
  }
  free(runtime_h);
  return hash;
}

/*
 * Builds the prelude into `path` (through a temporary file, renamed into place) and records
 * its checksum in `sum_path` after it. Returns 1 on success.
 */
static int build_prelude(CXIndex index, const cubind_strlist *args,
                         const cubind_strlist *includes, const char *path, const char *sum_path) {
  /* a .cu of only the toolkit includes: with what clang includes before every CUDA file */
  char *source = cubind_xasprintf("%.*s.cu", (int)(strlen(path) - 4), path);
  char *temp = cubind_temp_path(path);
  struct CXUnsavedFile empty;
  CXTranslationUnit tu = NULL;
  cubind_buf lines = {0};
  size_t i;
  int ok;
  char text[32];
  cubind_buf_puts(&lines, "");
  for (i = 0; i < includes->count; i++)
    cubind_buf_printf(&lines, "#include <%s>\n", includes->items[i]);
  empty.Filename = source;
  empty.Contents = lines.data;
  empty.Length = (unsigned long)lines.length;
  ok = clang_parseTranslationUnit2(index, source, (const char *const *)args->items,
                                   (int)args->count, &empty, 1,
                                   CXTranslationUnit_ForSerialization |
                                       CXTranslationUnit_SkipFunctionBodies |
                                       CXTranslationUnit_KeepGoing,
                                   &tu) == CXError_Success &&
       tu;
  ok = ok && temp && cx_count_errors(tu) == 0 && /* a broken prelude would cost a retry each run */
       clang_saveTranslationUnit(tu, temp, clang_defaultSaveOptions(tu)) == CXSaveError_None &&
       rename(temp, path) == 0;
  if (tu)
    clang_disposeTranslationUnit(tu);
  if (temp)
    unlink(temp); /* after a successful rename there is nothing left to remove */
  if (ok) {
    snprintf(text, sizeof text, "%016llx\n", file_checksum(path));
    ok = cubind_write_file(sum_path, text, strlen(text), 0) == 0;
  }
  free(temp);
  free(source);
  cubind_buf_free(&lines);
  return ok;
}

/*
 * The temporary files that a killed run leaves in the cache: ours (".prelude-*.tmp-*") and
 * clang's own, made while it saves ("prelude-*.pch-*"); swept by cubind_sweep_stale.
 */
static int is_cache_temp(const char *name, const void *data) {
  (void)data;
  return (strncmp(name, ".prelude-", 9) == 0 && strstr(name, ".tmp-")) ||
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

/* 1 when the toolkit (its include/ or include/cccl/) has the header `name`. */
static int toolkit_has(const char *cuda_path, const char *name) {
  static const char *const dirs[] = {"include", "include/cccl"};
  size_t i;
  int found = 0;
  for (i = 0; i < 2 && !found; i++) {
    char *path = cubind_xasprintf("%s/%s/%s", cuda_path, dirs[i], name);
    struct stat info;
    found = stat(path, &info) == 0 && S_ISREG(info.st_mode);
    free(path);
  }
  return found;
}

/*
 * The scan of prelude_toolkit_includes over text[0, size), appending to `includes`. Returns 1
 * when it stopped because the text ended (a longer text may list more), 0 when something else
 * ended the list.
 */
static int scan_includes(const char *text, size_t size, const char *cuda_path,
                         cubind_strlist *includes) {
  const char *at = text, *end = text + size;
  while ((at = skip_blank(at, end)) < end && *at == '#') {
    const char *name, *close, *rest;
    char *header;
    at = skip_blank(at + 1, end);
    if (end - at < 7 || strncmp(at, "include", 7) != 0)
      return at >= end;
    at = skip_blank(at + 7, end);
    if (at >= end || *at != '<')
      return at >= end;
    name = at + 1;
    for (close = name; close < end && *close != '>' && *close != '\n'; close++)
      ;
    if (close >= end || *close != '>' || close == name)
      return close >= end;
    /* nothing else on the line but a comment */
    for (rest = close + 1; rest < end && (*rest == ' ' || *rest == '\t' || *rest == '\r'); rest++)
      ;
    if (rest < end && *rest != '\n' &&
        !(end - rest >= 2 && rest[0] == '/' && (rest[1] == '/' || rest[1] == '*')))
      return 0;
    header = cubind_xstrndup(name, (size_t)(close - name));
    if (!toolkit_has(cuda_path, header) || strstr(header, "..")) {
      free(header);
      return 0;
    }
    cubind_strlist_add(includes, header);
    free(header);
    at = close + 1;
  }
  return at >= end;
}

/* How much of a .cu the scan reads first: far more than its leading #include lines take. */
#define HEAD_BYTES 65536

/* prelude_toolkit_includes: see prelude_cache.h. */
void prelude_toolkit_includes(const char *path, const char *cuda_path,
                              cubind_strlist *includes) {
  size_t head = HEAD_BYTES, i;
  for (;;) {
    cubind_strlist found = {0};
    char *text = NULL;
    size_t size = 0, scanned;
    int whole, ran_out;
    if (cubind_read_head_quiet(path, CUBIND_MAX_SOURCE_BYTES, head, &text, &size) != 0)
      return;
    /* A head ends after its last newline: every line the scan reads is then whole, so where it
       stops before that end it stops in the whole file too, with the same list. */
    whole = size < head;
    for (scanned = size; !whole && scanned > 0 && text[scanned - 1] != '\n'; scanned--)
      ;
    ran_out = scan_includes(text, scanned, cuda_path, &found);
    free(text);
    if (whole || !ran_out) {
      for (i = 0; i < found.count; i++)
        cubind_strlist_add(includes, found.items[i]);
      cubind_strlist_free(&found);
      return;
    }
    cubind_strlist_free(&found);
    head = SIZE_MAX; /* the list may go on past the head: scan the whole file */
  }
}

/* prelude_cache_get: see prelude_cache.h. */
char *prelude_cache_get(CXIndex index, const cubind_strlist *args, const char *cache_dir,
                        const char *cuda_path, const cubind_strlist *includes) {
  unsigned long long key = cache_key(args, cuda_path, includes), recorded;
  char *path = cubind_xasprintf("%s/prelude-%016llx.pch", cache_dir, key);
  char *sum_path = cubind_xasprintf("%s.sum", path);
  cubind_sweep_stale(cache_dir, is_cache_temp, NULL);
  recorded = recorded_checksum(sum_path);
  if (!recorded || recorded != file_checksum(path)) {
    /* missing, or not what was written: build anew (a concurrent run may race us to the
       same result; whoever renames last wins, and a mismatch only costs a rebuild) */
    if (!build_prelude(index, args, includes, path, sum_path)) {
      free(path);
      path = NULL;
    }
  }
  free(sum_path);
  return path;
}

/* prelude_cache_drop: see prelude_cache.h. */
void prelude_cache_drop(const char *path) {
  char *sum_path = cubind_xasprintf("%s.sum", path);
  unlink(sum_path);
  unlink(path);
  free(sum_path);
}
