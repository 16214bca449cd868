/* util.c: checked allocation, string buffers and lists, diagnostics (see util.h). */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned error_count;

static void out_of_memory(void) {
  fputs("cubind-gen: error: out of memory\n", stderr);
  exit(1);
}

/* cubind_xmalloc: malloc that never returns NULL (exits on failure; see util.h). */
void *cubind_xmalloc(size_t bytes) {
  void *ptr = malloc(bytes ? bytes : 1);
  if (!ptr)
    out_of_memory();
  return ptr;
}

/* cubind_xcalloc: zeroed array of count elements, checked for overflow and failure. */
void *cubind_xcalloc(size_t count, size_t bytes) {
  void *ptr = calloc(count ? count : 1, bytes ? bytes : 1);
  if (!ptr)
    out_of_memory();
  return ptr;
}

/* cubind_xrealloc: realloc that never returns NULL. */
void *cubind_xrealloc(void *ptr, size_t bytes) {
  void *grown = realloc(ptr, bytes ? bytes : 1);
  if (!grown)
    out_of_memory();
  return grown;
}

/* cubind_hash_bytes: see util.h. */
unsigned long long cubind_hash_bytes(unsigned long long hash, const void *data, size_t size) {
  const unsigned char *bytes = data;
  size_t i;
  for (i = 0; i < size; i++)
    hash = (hash ^ bytes[i]) * 1099511628211ull;
  return hash;
}

/* cubind_xstrdup: copy of a NUL-terminated string. */
char *cubind_xstrdup(const char *text) { return cubind_xstrndup(text, strlen(text)); }

/* cubind_xstrndup: copy of the first `length` bytes of text, NUL-terminated. */
char *cubind_xstrndup(const char *text, size_t length) {
  char *copy = cubind_xmalloc(length + 1);
  memcpy(copy, text, length);
  copy[length] = '\0';
  return copy;
}

/* cubind_xasprintf: a newly allocated formatted string. */
char *cubind_xasprintf(const char *format, ...) {
  cubind_buf buf = {0};
  va_list args;
  va_start(args, format);
  cubind_buf_vprintf(&buf, format, args);
  va_end(args);
  if (!buf.data)
    cubind_buf_puts(&buf, "");
  return buf.data;
}

static void buf_reserve(cubind_buf *buf, size_t extra) {
  size_t needed = buf->length + extra + 1;
  if (needed < extra)
    out_of_memory();
  if (needed > buf->capacity) {
    size_t capacity = buf->capacity ? buf->capacity : 256;
    while (capacity < needed) {
      if (capacity > ((size_t)-1) / 2)
        out_of_memory();
      capacity *= 2;
    }
    buf->data = cubind_xrealloc(buf->data, capacity);
    buf->capacity = capacity;
  }
}

/* cubind_buf_append: appends `length` bytes (which may include NULs). */
void cubind_buf_append(cubind_buf *buf, const char *bytes, size_t length) {
  buf_reserve(buf, length);
  memcpy(buf->data + buf->length, bytes, length);
  buf->length += length;
  buf->data[buf->length] = '\0';
}

/* cubind_buf_puts: appends a NUL-terminated string. */
void cubind_buf_puts(cubind_buf *buf, const char *text) { cubind_buf_append(buf, text, strlen(text)); }

/* cubind_buf_vprintf: appends formatted text (see util.h). */
void cubind_buf_vprintf(cubind_buf *buf, const char *format, va_list args) {
  va_list copy;
  int needed;
  va_copy(copy, args);
  needed = vsnprintf(NULL, 0, format, copy);
  va_end(copy);
  if (needed < 0)
    out_of_memory();
  buf_reserve(buf, (size_t)needed);
  vsnprintf(buf->data + buf->length, (size_t)needed + 1, format, args);
  buf->length += (size_t)needed;
}

/* cubind_buf_printf: appends formatted text. */
void cubind_buf_printf(cubind_buf *buf, const char *format, ...) {
  va_list args;
  va_start(args, format);
  cubind_buf_vprintf(buf, format, args);
  va_end(args);
}

/* cubind_buf_free: releases the buffer and leaves it empty and reusable. */
void cubind_buf_free(cubind_buf *buf) {
  free(buf->data);
  buf->data = NULL;
  buf->length = buf->capacity = 0;
}

/* cubind_strlist_add: appends a copy of text. */
void cubind_strlist_add(cubind_strlist *list, const char *text) {
  if (list->count == list->capacity) {
    list->capacity = list->capacity ? list->capacity * 2 : 8;
    list->items = cubind_xrealloc(list->items, list->capacity * sizeof *list->items);
  }
  list->items[list->count++] = cubind_xstrdup(text);
}

/* cubind_strlist_contains: 1 when an equal string is in the list, else 0. */
int cubind_strlist_contains(const cubind_strlist *list, const char *text) {
  size_t i;
  for (i = 0; i < list->count; i++)
    if (strcmp(list->items[i], text) == 0)
      return 1;
  return 0;
}

/* cubind_strlist_free: frees every string and the list itself. */
void cubind_strlist_free(cubind_strlist *list) {
  size_t i;
  for (i = 0; i < list->count; i++)
    free(list->items[i]);
  free(list->items);
  list->items = NULL;
  list->count = list->capacity = 0;
}

/* cubind_diag: prints one compiler-style diagnostic line (see util.h). */
void cubind_diag(const char *file, unsigned line, unsigned column, const char *severity,
                 const char *format, ...) {
  va_list args;
  if (strcmp(severity, "error") == 0)
    error_count++;
  if (file)
    fprintf(stderr, "%s:%u:%u: %s: ", file, line, column, severity);
  else
    fprintf(stderr, "cubind-gen: %s: ", severity);
  va_start(args, format);
  vfprintf(stderr, format, args);
  va_end(args);
  fputc('\n', stderr);
}

/* cubind_reporting: see util.h. */
int cubind_reporting(void) {
  const char *report = getenv("CUBIND_GEN_REPORT");
  return report && *report;
}

/* cubind_report: see util.h. */
void cubind_report(const char *format, ...) {
  va_list args;
  if (!cubind_reporting())
    return;
  fputs("cubind-gen: ", stderr);
  va_start(args, format);
  vfprintf(stderr, format, args);
  va_end(args);
  fputc('\n', stderr);
}

/* cubind_error_count: errors reported so far. */
unsigned cubind_error_count(void) { return error_count; }

/* cubind_c_only_keyword: see util.h. */
int cubind_c_only_keyword(const char *name) {
  static const char *const keywords[] = {
      "restrict",       "typeof",       "typeof_unqual", "_Alignas",    "_Alignof",
      "_Atomic",        "_BitInt",      "_Bool",         "_Complex",    "_Decimal128",
      "_Decimal32",     "_Decimal64",   "_Generic",      "_Imaginary",  "_Noreturn",
      "_Static_assert", "_Thread_local"};
  size_t i;
  for (i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
    if (strcmp(name, keywords[i]) == 0)
      return 1;
  return 0;
}
