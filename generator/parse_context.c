/* parse_context.c: where declarations lie relative to the .cu (see parse_context.h). */
#include "parse_context.h"

#include <stdlib.h>
#include <string.h>

#include "clang_util.h"
#include "fs.h"
#include "util.h"

/* 1 when the cursor lies in the .cu itself (also when a wrapper unit includes it). */
static int in_input(const parse_context *ctx, CXCursor cursor) {
  char *real;
  int same;
  if (!ctx->input_real)
    return clang_Location_isFromMainFile(clang_getCursorLocation(cursor));
  real = cx_file_real_path(cursor);
  same = real && strcmp(real, ctx->input_real) == 0;
  free(real);
  return same;
}

/* parse_place: see parse_context.h. */
cubind_place parse_place(const parse_context *ctx, CXCursor cursor) {
  if (in_input(ctx, cursor))
    return CUBIND_PLACE_INPUT;
  return cx_in_system_header(cursor) ? CUBIND_PLACE_SYSTEM : CUBIND_PLACE_HEADER;
}

/* parse_location: see parse_context.h. */
void parse_location(const parse_context *ctx, CXCursor cursor, cubind_location *location) {
  cx_location(cursor, ctx->input, location);
  if (ctx->input_real && strcmp(location->file, ctx->input) != 0) {
    char *real = realpath(location->file, NULL);
    if (real && strcmp(real, ctx->input_real) == 0) {
      free(location->file);
      location->file = cubind_xstrdup(ctx->input);
    }
    free(real);
  }
}

/* "dir/" prefix test on real paths: the rest of path when it lies below dir, else NULL. */
static const char *below_dir(const char *path, const char *dir) {
  size_t length = strlen(dir);
  if (!length || strncmp(path, dir, length) != 0)
    return NULL;
  if (dir[length - 1] == '/')
    return path + length;
  return path[length] == '/' ? path + length + 1 : NULL;
}

/* parse_include_spelling: see parse_context.h. */
char *parse_include_spelling(const parse_context *ctx, CXCursor cursor) {
  char *real = cx_file_real_path(cursor), *result = NULL;
  const cubind_strlist *args = ctx->options->user_args;
  size_t i;
  if (!real)
    return NULL;
  if (ctx->input_dir_real && below_dir(real, ctx->input_dir_real))
    result = cubind_xstrdup(below_dir(real, ctx->input_dir_real));
  for (i = 0; !result && args && i < args->count; i++) {
    const char *arg = args->items[i];
    char *dir_real;
    if (strncmp(arg, "-I", 2) != 0)
      continue;
    dir_real = realpath(arg + 2, NULL);
    if (dir_real && below_dir(real, dir_real))
      result = cubind_xstrdup(below_dir(real, dir_real));
    free(dir_real);
  }
  free(real);
  return result;
}

/* parse_main_arch: see parse_context.h. */
unsigned parse_main_arch(const cubind_binary *binary) {
  unsigned below = 0;
  size_t i;
  if (!binary || !binary->num_archs)
    return 90;
  for (i = 0; i < binary->num_archs; i++) /* ascending */
    if (binary->archs[i] <= 90)
      below = binary->archs[i];
  return below ? below : binary->archs[0];
}
