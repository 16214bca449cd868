/*
 * parse_c_check.c: whether C can include a user's header (parse_c_check.h): a libclang parse of
 * `#include "<header>"` as C99, its errors counted. A header is C where the C compiler says so,
 * not where its declarations look like C: C++ hides in function bodies, in headers it
 * includes, in what nvcc includes implicitly, and a header written for both languages keeps
 * its C++ under #ifdef __cplusplus.
 */
#include "parse_c_check.h"

#include <stdlib.h>
#include <string.h>

#include "clang_session.h"
#include "clang_util.h"

/* A record's layout, "<usr> <size> <align>" (a new string), or NULL for an incomplete one. */
static char *record_layout(CXCursor cursor) {
  CXType type = clang_getCursorType(cursor);
  long long size = clang_Type_getSizeOf(type), align = clang_Type_getAlignOf(type);
  char *usr, *layout = NULL;
  if (size <= 0 || align <= 0)
    return NULL;
  usr = cx_usr(cursor);
  layout = cubind_xasprintf("%s %lld %lld", usr, size, align);
  free(usr);
  return layout;
}

/* The top-level records of one file, by their layouts (layouts_in). */
typedef struct file_records {
  CXFile file;
  cubind_strlist *layouts;
  int incomplete; /* a record whose layout is not known */
} file_records;

static enum CXChildVisitResult add_file_record(CXCursor cursor, CXCursor parent,
                                               CXClientData data) {
  file_records *records = data;
  enum CXCursorKind kind = clang_getCursorKind(cursor);
  CXFile file;
  char *layout;
  (void)parent;
  if (kind == CXCursor_LinkageSpec)
    return CXChildVisit_Recurse;
  if ((kind != CXCursor_StructDecl && kind != CXCursor_UnionDecl) ||
      !clang_isCursorDefinition(cursor))
    return CXChildVisit_Continue;
  clang_getExpansionLocation(clang_getCursorLocation(cursor), &file, NULL, NULL, NULL);
  if (!file || !clang_File_isEqual(file, records->file))
    return CXChildVisit_Continue;
  if ((layout = record_layout(cursor)) == NULL) {
    records->incomplete = 1;
    return CXChildVisit_Continue;
  }
  cubind_strlist_add(records->layouts, layout);
  free(layout);
  return CXChildVisit_Continue;
}

/*
 * The layouts of the records that the file named `path` defines at the top level of `unit`
 * (or in an extern "C" block), into `layouts`; 0 when one has no known layout or the unit has
 * no such file.
 */
static int layouts_in(CXTranslationUnit unit, const char *path, cubind_strlist *layouts) {
  file_records records;
  records.file = clang_getFile(unit, path);
  records.layouts = layouts;
  records.incomplete = 0;
  if (!records.file)
    return 0;
  clang_visitChildren(clang_getTranslationUnitCursor(unit), add_file_record, &records);
  return !records.incomplete;
}

/*
 * 1 when clang parses `#include "<path>"` as C99 without an error, and every record the
 * header defines at its top level in `device` (the .cu's translation unit, which names it
 * `device_name`) it defines in C with the same size and alignment. Besides the errors of
 * clang's C, those of gcc's: clang takes a `static const int` as an array's bound at file
 * scope, an enum's fixed underlying type and C23's [[attributes]] in C99 with a warning only.
 */
static int parses_as_c(parse_context *ctx, const char *path, const char *device_name,
                       CXTranslationUnit device) {
  const cubind_parse_options *options = ctx->options;
  cubind_strlist args = {0}, c_layouts = {0}, device_layouts = {0};
  cubind_buf text = {0};
  struct CXUnsavedFile source;
  CXIndex index;
  CXTranslationUnit unit = NULL;
  char *main_file, *toolkit_include;
  unsigned i, count;
  int includable = 0, errors = 0;
  if (strpbrk(path, "\"\\\n"))
    return 0; /* no #include spells it: a copy serves */
  cubind_strlist_add(&args, "-x");
  cubind_strlist_add(&args, "c");
  cubind_strlist_add(&args, "-std=c99");
  cubind_strlist_add(&args, "-ferror-limit=1");
  cubind_strlist_add(&args, "-Werror=gnu-folding-constant");
  cubind_strlist_add(&args, "-Werror=fixed-enum-extension");
  cubind_strlist_add(&args, "-Werror=c2x-extensions");
  for (i = 0; i < options->user_args->count; i++)
    cubind_strlist_add(&args, options->user_args->items[i]);
  toolkit_include = cubind_xasprintf("%s/include", options->cuda_path);
  cubind_strlist_add(&args, "-isystem");
  cubind_strlist_add(&args, toolkit_include);
  free(toolkit_include);
  cubind_buf_printf(&text, "#include \"%s\"\n", path);
  main_file = cubind_xasprintf("%s/cubind-c-check.c", ctx->input_dir_real ? ctx->input_dir_real
                                                                          : "/");
  source.Filename = main_file;
  source.Contents = text.data;
  source.Length = (unsigned long)text.length;
  index = clang_createIndex(0, 0);
  if (clang_parseTranslationUnit2(index, main_file, (const char *const *)args.items,
                                  (int)args.count, &source, 1, CXTranslationUnit_KeepGoing,
                                  &unit) != CXError_Success)
    unit = NULL;
  count = unit ? clang_getNumDiagnostics(unit) : 0;
  for (i = 0; i < count && !errors; i++) {
    CXDiagnostic diagnostic = clang_getDiagnostic(unit, i);
    errors = clang_getDiagnosticSeverity(diagnostic) >= CXDiagnostic_Error;
    clang_disposeDiagnostic(diagnostic);
  }
  if (unit && !errors && layouts_in(unit, path, &c_layouts) &&
      layouts_in(device, device_name, &device_layouts)) {
    includable = 1;
    for (i = 0; i < device_layouts.count && includable; i++)
      includable = cubind_strlist_contains(&c_layouts, device_layouts.items[i]);
  }
  if (unit) {
    session_add_unit_inclusions(unit, NULL, NULL, &ctx->c_check_files);
    clang_disposeTranslationUnit(unit);
  }
  clang_disposeIndex(index);
  free(main_file);
  cubind_buf_free(&text);
  cubind_strlist_free(&args);
  cubind_strlist_free(&c_layouts);
  cubind_strlist_free(&device_layouts);
  return includable;
}

/* parse_c_includable: see parse_c_check.h. */
int parse_c_includable(parse_context *ctx, CXCursor record) {
  CXFile file;
  char *name, *path;
  int includable = 0;
  clang_getExpansionLocation(clang_getCursorLocation(record), &file, NULL, NULL, NULL);
  name = file ? cx_string(clang_getFileName(file)) : NULL;
  path = name ? realpath(name, NULL) : NULL;
  if (path && cubind_strlist_contains(&ctx->c_headers, path)) {
    includable = 1;
  } else if (path && !cubind_strlist_contains(&ctx->cxx_headers, path)) {
    includable = parses_as_c(ctx, path, name, clang_Cursor_getTranslationUnit(record));
    cubind_strlist_add(includable ? &ctx->c_headers : &ctx->cxx_headers, path);
  }
  free(path);
  free(name);
  return includable;
}
