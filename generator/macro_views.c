/*
 * macro_views.c: kernels declared under a test of a macro that cubind-gen's parse and nvcc
 * define differently (macro_views.h). The files' text is read line by line, as a preprocessor
 * reads directives (pp_text.h): comments and line splices taken out, conditional groups nested.
 */
#include "macro_views.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "pp_text.h"
#include "util.h"

/* When a macro's two values differ. */
typedef enum differs_when {
  DIFFERS_ALWAYS,
  DIFFERS_GCC_HOST, /* unless nvcc's host compiler is clang */
  DIFFERS_GNU_MODE  /* unless a -std put the host compiler in strict mode as the parse is */
} differs_when;

typedef struct viewed_macro {
  const char *name;
  differs_when when;
  const char *why;
} viewed_macro;

static const char gnuc_why[] = "clang defines it as GCC 4.2 does, nvcc's host compiler (gcc) "
                               "as its own version";
static const char clang_why[] = "clang defines it, nvcc with gcc as its host compiler does not";
static const char gnu_mode_why[] = "nvcc without -std runs its host compiler in GNU mode, the "
                                   "parse is strict C++ (-std=c++17): one defines it, the other "
                                   "does not";

static const viewed_macro viewed_macros[] = {
    {"__GNUC__", DIFFERS_GCC_HOST, gnuc_why},
    {"__GNUC_MINOR__", DIFFERS_GCC_HOST, gnuc_why},
    {"__GNUC_PATCHLEVEL__", DIFFERS_GCC_HOST, gnuc_why},
    {"__GXX_ABI_VERSION", DIFFERS_GCC_HOST, gnuc_why},
    {"__clang__", DIFFERS_GCC_HOST, clang_why},
    {"__clang_major__", DIFFERS_GCC_HOST, clang_why},
    {"__clang_minor__", DIFFERS_GCC_HOST, clang_why},
    {"__clang_patchlevel__", DIFFERS_GCC_HOST, clang_why},
    {"__clang_version__", DIFFERS_GCC_HOST, clang_why},
    {"__llvm__", DIFFERS_GCC_HOST, clang_why},
    {"__CUDA__", DIFFERS_ALWAYS, "clang defines it for CUDA, nvcc does not"},
    {"CUDA_VERSION", DIFFERS_ALWAYS,
     "clang's CUDA headers include <cuda.h>, which defines it; under nvcc only code that "
     "includes <cuda.h> has it"},
    {"__STRICT_ANSI__", DIFFERS_GNU_MODE, gnu_mode_why},
    {"linux", DIFFERS_GNU_MODE, gnu_mode_why},
    {"unix", DIFFERS_GNU_MODE, gnu_mode_why},
};

/* A conditional group (#if ... #endif) whose conditions test a viewed macro. */
typedef struct flagged_group {
  unsigned first, last;       /* the lines of its #if and its #endif */
  unsigned tested_at;         /* the line of the condition that names the macro */
  const viewed_macro *macro;
} flagged_group;

typedef struct group_list {
  flagged_group *items;
  size_t count, capacity;
} group_list;

/* The first viewed macro that the condition `text` names, where its two values differ. */
static const viewed_macro *tested_macro(const char *text, const macro_views_options *options,
                                        int includes_cuda_h) {
  const char *at = text;
  while (*at) {
    const char *start = at;
    size_t i, length;
    if (!(isalpha((unsigned char)*at) || *at == '_')) {
      at++;
      continue;
    }
    while (isalnum((unsigned char)*at) || *at == '_')
      at++;
    length = (size_t)(at - start);
    for (i = 0; i < sizeof viewed_macros / sizeof viewed_macros[0]; i++) {
      const viewed_macro *macro = &viewed_macros[i];
      if (strlen(macro->name) != length || strncmp(macro->name, start, length) != 0)
        continue;
      if ((macro->when == DIFFERS_GCC_HOST && options->clang_host) ||
          (macro->when == DIFFERS_GNU_MODE && options->std_given) ||
          (strcmp(macro->name, "CUDA_VERSION") == 0 && includes_cuda_h))
        continue;
      return macro;
    }
  }
  return NULL;
}

/* 1 when the text includes <cuda.h> (then nvcc defines CUDA_VERSION too). */
static int includes_cuda_h(const char *text, size_t size) {
  pp_line_reader reader;
  cubind_buf line = {0};
  char name[16];
  const char *rest;
  int found = 0;
  reader = pp_line_reader_of(text, size);
  while (!found && pp_next_line(&reader, &line))
    found = pp_directive_of(line.data, name, sizeof name, &rest) &&
            strcmp(name, "include") == 0 &&
            (strstr(rest, "<cuda.h>") || strstr(rest, "\"cuda.h\"") || strstr(rest, "/cuda.h"));
  cubind_buf_free(&line);
  return found;
}

/* The conditional groups of a file's text that test a viewed macro, into `groups`. */
static void find_groups(const char *text, size_t size, const macro_views_options *options,
                        group_list *groups) {
  pp_line_reader reader;
  cubind_buf line = {0};
  flagged_group *open = NULL;
  size_t depth = 0, capacity = 0;
  int cuda_h = includes_cuda_h(text, size);
  char name[16];
  const char *rest;
  reader = pp_line_reader_of(text, size);
  while (pp_next_line(&reader, &line)) {
    if (!pp_directive_of(line.data, name, sizeof name, &rest))
      continue;
    if (strncmp(name, "if", 2) == 0) { /* if, ifdef, ifndef */
      if (depth == capacity) {
        capacity = capacity ? 2 * capacity : 8;
        open = cubind_xrealloc(open, capacity * sizeof *open);
      }
      memset(&open[depth], 0, sizeof open[depth]);
      open[depth].first = reader.line;
      depth++;
    } else if (depth && strncmp(name, "elif", 4) != 0 && strcmp(name, "endif") != 0) {
      continue; /* #else, #define ...: no condition */
    }
    if (!depth)
      continue;
    if (strcmp(name, "endif") == 0) {
      flagged_group *group = &open[--depth];
      if (group->macro) {
        group->last = reader.line;
        if (groups->count == groups->capacity) {
          groups->capacity = groups->capacity ? 2 * groups->capacity : 8;
          groups->items = cubind_xrealloc(groups->items, groups->capacity * sizeof *groups->items);
        }
        groups->items[groups->count++] = *group;
      }
    } else if (!open[depth - 1].macro) { /* #if..., #elif...: the first macro tested decides */
      open[depth - 1].macro = tested_macro(rest, options, cuda_h);
      open[depth - 1].tested_at = reader.line;
    }
  }
  free(open);
  cubind_buf_free(&line);
}

/* The innermost group of `groups` around `line`, or NULL. */
static const flagged_group *group_around(const group_list *groups, unsigned line) {
  const flagged_group *found = NULL;
  size_t i;
  for (i = 0; i < groups->count; i++)
    if (groups->items[i].first < line && line < groups->items[i].last &&
        (!found || groups->items[i].first > found->first))
      found = &groups->items[i];
  return found;
}

/* Warns where `line` of `file` lies in one of `groups`: `what` is declared there. */
static void warn_if_tested(const group_list *groups, const cubind_location *where, unsigned line,
                           const char *what) {
  const flagged_group *group = group_around(groups, line);
  if (!group)
    return;
  cubind_diag(where->file, where->line, where->column, "warning",
              "%s is declared under a test of %s (line %u), which cubind-gen's parse (clang) "
              "and nvcc may read otherwise: %s. The C functions follow the parse's branch; "
              "test nvcc's own macros instead (__CUDACC_VER_MAJOR__, __CUDA_ARCH__, __CUDACC__)",
              what, group->macro->name, group->tested_at, group->macro->why);
}

/* cubind_warn_macro_views: see macro_views.h. */
void cubind_warn_macro_views(const cubind_model *model, const macro_views_options *options) {
  cubind_strlist files = {0};
  size_t f, k, i;
  for (k = 0; k < model->num_kernels; k++)
    if (model->kernels[k].place != CUBIND_PLACE_SYSTEM && model->kernels[k].location.file &&
        !cubind_strlist_contains(&files, model->kernels[k].location.file))
      cubind_strlist_add(&files, model->kernels[k].location.file);
  for (k = 0; k < model->num_structs; k++) /* the C copies the generated header defines */
    if (model->structs[k].used && model->structs[k].defined_here &&
        model->structs[k].location.file &&
        !cubind_strlist_contains(&files, model->structs[k].location.file))
      cubind_strlist_add(&files, model->structs[k].location.file);
  for (f = 0; f < files.count; f++) {
    group_list groups = {0};
    char *text = NULL, *what;
    size_t size = 0;
    if (cubind_read_file_quiet(files.items[f], CUBIND_MAX_SOURCE_BYTES, &text, &size) != 0)
      continue;
    find_groups(text, size, options, &groups);
    for (k = 0; k < model->num_kernels && groups.count; k++) {
      const cubind_kernel *kernel = &model->kernels[k];
      if (kernel->place == CUBIND_PLACE_SYSTEM || !kernel->location.file ||
          strcmp(kernel->location.file, files.items[f]) != 0)
        continue;
      what = cubind_xasprintf("kernel '%s'", kernel->display_name);
      warn_if_tested(&groups, &kernel->location, kernel->location.line, what);
      free(what);
    }
    for (k = 0; k < model->num_structs && groups.count; k++) {
      const cubind_struct *record = &model->structs[k];
      if (!record->used || !record->defined_here || !record->location.file ||
          strcmp(record->location.file, files.items[f]) != 0)
        continue;
      if (group_around(&groups, record->location.line)) { /* the whole record: one warning */
        what = cubind_xasprintf("%s '%s'", record->is_union ? "union" : "struct",
                                record->display_name);
        warn_if_tested(&groups, &record->location, record->location.line, what);
        free(what);
        continue;
      }
      for (i = 0; i < record->num_fields; i++) {
        if (!group_around(&groups, record->fields[i].line))
          continue;
        what = cubind_xasprintf("field '%s' of %s '%s' (line %u)", record->fields[i].name,
                                record->is_union ? "union" : "struct", record->display_name,
                                record->fields[i].line);
        warn_if_tested(&groups, &record->location, record->fields[i].line, what);
        free(what);
      }
    }
    free(groups.items);
    free(text);
  }
  cubind_strlist_free(&files);
}
