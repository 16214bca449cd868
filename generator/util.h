/*
 * util.h: small helpers shared by every layer of cubind-gen: checked allocation, a growable
 * string buffer, a string list, and compiler-style diagnostics.
 */
#ifndef CUBIND_GEN_UTIL_H
#define CUBIND_GEN_UTIL_H

#include <stdarg.h>
#include <stddef.h>

/*
 * Allocation: cubind-gen is a short-lived command-line tool, so running out of memory ends it
 * with a message and exit status 1. Outputs are only renamed into place at the very end, so an
 * early exit never leaves a half-written output behind.
 */
void *cubind_xmalloc(size_t bytes);
void *cubind_xcalloc(size_t count, size_t bytes);
void *cubind_xrealloc(void *ptr, size_t bytes);
char *cubind_xstrdup(const char *text);
char *cubind_xstrndup(const char *text, size_t length);
char *cubind_xasprintf(const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* A growable, always NUL-terminated byte buffer. Zero-initialise it before use. */
typedef struct cubind_buf {
  char *data;
  size_t length;
  size_t capacity;
} cubind_buf;

void cubind_buf_append(cubind_buf *buf, const char *bytes, size_t length);
void cubind_buf_puts(cubind_buf *buf, const char *text);
void cubind_buf_printf(cubind_buf *buf, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* cubind_buf_vprintf: cubind_buf_printf with a va_list. */
void cubind_buf_vprintf(cubind_buf *buf, const char *format, va_list args);
void cubind_buf_free(cubind_buf *buf);

/* A growable list of owned strings. Zero-initialise it before use. */
typedef struct cubind_strlist {
  char **items;
  size_t count;
  size_t capacity;
} cubind_strlist;

void cubind_strlist_add(cubind_strlist *list, const char *text);
int cubind_strlist_contains(const cubind_strlist *list, const char *text);
void cubind_strlist_free(cubind_strlist *list);

/*
 * cubind_hash_bytes: FNV-1a, a stable 64-bit hash for cache keys (not for security): `hash` is
 * CUBIND_HASH_START or what an earlier call returned.
 */
#define CUBIND_HASH_START 14695981039346656037ull
unsigned long long cubind_hash_bytes(unsigned long long hash, const void *data, size_t size);

/*
 * Diagnostics on stderr, in the form compilers use so that editors and CI logs link to them:
 * "file:line:col: error: message", or "cubind-gen: error: message" when there is no location
 * (file == NULL). severity is "error", "warning" or "note". Errors are counted.
 */
void cubind_diag(const char *file, unsigned line, unsigned column, const char *severity,
                 const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/*
 * cubind_report: with CUBIND_GEN_REPORT set (not empty), prints "cubind-gen: <message>" on
 * stderr: what a run did that its outputs do not show (the prelude it took, each parse).
 */
void cubind_report(const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* cubind_reporting: 1 when cubind_report prints (a report that costs work asks first). */
int cubind_reporting(void);

/* cubind_error_count: number of errors reported by cubind_diag so far. */
unsigned cubind_error_count(void);

/*
 * cubind_c_only_keyword: 1 when `name` is a keyword of C (C99 to C23) that C++ lets a program
 * use as a name (restrict, _Bool, typeof...): a parameter or field of that name cannot be
 * spelled in the generated C.
 */
int cubind_c_only_keyword(const char *name);

#endif /* CUBIND_GEN_UTIL_H */
