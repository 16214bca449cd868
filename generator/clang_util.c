/* clang_util.c: answers about single cursors and types (see clang_util.h). */
#include "clang_util.h"

#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "util.h"

/* cubind_libclang_version: see parse.h. */
char *cubind_libclang_version(void) { return cx_string(clang_getClangVersion()); }

/* cx_string: see clang_util.h. */
char *cx_string(CXString text) {
  const char *chars = clang_getCString(text);
  char *copy = cubind_xstrdup(chars ? chars : "");
  clang_disposeString(text);
  return copy;
}

/* cx_spelling: see clang_util.h. */
char *cx_spelling(CXCursor cursor) { return cx_string(clang_getCursorSpelling(cursor)); }

/* cx_type_spelling: see clang_util.h. */
char *cx_type_spelling(CXType type) { return cx_string(clang_getTypeSpelling(type)); }

/* cx_usr: see clang_util.h. */
char *cx_usr(CXCursor cursor) { return cx_string(clang_getCursorUSR(cursor)); }

/* cx_location: see clang_util.h. */
void cx_location(CXCursor cursor, const char *fallback, cubind_location *location) {
  CXFile file;
  unsigned line, column, offset;
  clang_getExpansionLocation(clang_getCursorLocation(cursor), &file, &line, &column, &offset);
  location->file = file ? cx_string(clang_getFileName(file)) : cubind_xstrdup(fallback);
  location->line = line;
  location->column = column;
}

/* cx_file_name: see clang_util.h. */
char *cx_file_name(CXCursor cursor) {
  CXFile file;
  unsigned line, column, offset;
  clang_getExpansionLocation(clang_getCursorLocation(cursor), &file, &line, &column, &offset);
  return file ? cx_string(clang_getFileName(file)) : NULL;
}

/* cx_file_real_path: see clang_util.h. */
char *cx_file_real_path(CXCursor cursor) {
  char *name = cx_file_name(cursor), *real;
  if (!name)
    return NULL;
  real = realpath(name, NULL);
  free(name);
  return real;
}

/* cx_in_system_header: see clang_util.h. */
int cx_in_system_header(CXCursor cursor) {
  return clang_Location_isInSystemHeader(clang_getCursorLocation(cursor));
}

static enum CXChildVisitResult find_global_attr(CXCursor cursor, CXCursor parent,
                                                CXClientData data) {
  (void)parent;
  if (clang_getCursorKind(cursor) == CXCursor_CUDAGlobalAttr) {
    *(int *)data = 1;
    return CXChildVisit_Break;
  }
  return CXChildVisit_Continue;
}

/* cx_is_global: see clang_util.h. */
int cx_is_global(CXCursor cursor) {
  int found = 0;
  clang_visitChildren(cursor, find_global_attr, &found);
  return found;
}

/* cx_qualified_name: see clang_util.h. */
char *cx_qualified_name(CXCursor cursor, int *anonymous) {
  char *name = cx_spelling(cursor);
  CXCursor parent = clang_getCursorSemanticParent(cursor);
  *anonymous = 0;
  while (!clang_Cursor_isNull(parent) && !clang_isTranslationUnit(clang_getCursorKind(parent))) {
    if (clang_getCursorKind(parent) == CXCursor_Namespace) {
      char *scope = cx_spelling(parent), *joined;
      if (!scope[0]) {
        *anonymous = 1;
        free(scope);
        scope = cubind_xstrdup("(anonymous namespace)");
      }
      joined = cubind_xasprintf("%s::%s", scope, name);
      free(scope);
      free(name);
      name = joined;
    }
    parent = clang_getCursorSemanticParent(parent);
  }
  return name;
}

/* cx_linkage: see clang_util.h. */
cubind_linkage cx_linkage(CXCursor cursor) {
  int anonymous;
  char *name;
  if (clang_Cursor_getStorageClass(cursor) == CX_SC_Static)
    return CUBIND_LINKAGE_STATIC;
  name = cx_qualified_name(cursor, &anonymous);
  free(name);
  if (anonymous)
    return CUBIND_LINKAGE_ANONYMOUS_NS;
  return clang_getCursorLinkage(cursor) == CXLinkage_Internal ? CUBIND_LINKAGE_STATIC
                                                                : CUBIND_LINKAGE_EXTERNAL;
}

/* cx_doc_comment: see clang_util.h. */
char *cx_doc_comment(CXCursor cursor, unsigned *line_out) {
  char *raw = cx_string(clang_Cursor_getRawCommentText(cursor));
  cubind_buf out = {0};
  const char *line = raw;
  int first = 1;
  *line_out = 0;
  if (!raw[0]) {
    free(raw);
    return NULL;
  }
  {
    CXSourceRange range = clang_Cursor_getCommentRange(cursor);
    CXFile file;
    unsigned column, offset;
    clang_getExpansionLocation(clang_getRangeStart(range), &file, line_out, &column, &offset);
  }
  while (*line) {
    const char *end = strchr(line, '\n');
    size_t length = end ? (size_t)(end - line) : strlen(line);
    if (!first) {
      while (length && (*line == ' ' || *line == '\t')) {
        line++;
        length--;
      }
      cubind_buf_puts(&out, *line == '*' ? "\n " : "\n");
    }
    while (length &&
           (line[length - 1] == ' ' || line[length - 1] == '\t' || line[length - 1] == '\r'))
      length--;
    cubind_buf_append(&out, line, length);
    first = 0;
    line = end ? end + 1 : line + strlen(line);
  }
  free(raw);
  return out.data;
}

/* cx_count_errors: see clang_util.h. */
unsigned cx_count_errors(CXTranslationUnit tu) {
  unsigned i, count = clang_getNumDiagnostics(tu), errors = 0;
  for (i = 0; i < count; i++) {
    CXDiagnostic diag = clang_getDiagnostic(tu, i);
    errors += clang_getDiagnosticSeverity(diag) >= CXDiagnostic_Error;
    clang_disposeDiagnostic(diag);
  }
  return errors;
}

/* cx_strip_elaborated: see clang_util.h. */
CXType cx_strip_elaborated(CXType type) {
  while (type.kind == CXType_Elaborated)
    type = clang_Type_getNamedType(type);
  return type;
}

/* cx_strip_sugar: see clang_util.h. */
CXType cx_strip_sugar(CXType type) {
  type = cx_strip_elaborated(type);
  while (type.kind == CXType_Typedef)
    type = cx_strip_elaborated(clang_getTypedefDeclUnderlyingType(clang_getTypeDeclaration(type)));
  return type.kind == CXType_Unexposed ? clang_getCanonicalType(type) : type;
}
