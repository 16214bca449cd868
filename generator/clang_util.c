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

/* 1 when the cursor is an extern "C" or "C++" block (libclang < 15: an UnexposedDecl whose
   first token is `extern`). */
static int is_linkage_spec(CXCursor cursor) {
  enum CXCursorKind kind = clang_getCursorKind(cursor);
  CXTranslationUnit tu;
  CXSourceLocation start;
  CXToken *tokens = NULL;
  unsigned count = 0;
  int is_extern = 0;
  if (kind == CXCursor_LinkageSpec)
    return 1;
  if (kind != CXCursor_UnexposedDecl)
    return 0;
  tu = clang_Cursor_getTranslationUnit(cursor);
  /* its first token only: the block may be a whole header (cuda.h's is 25,000 lines) */
  start = clang_getRangeStart(clang_getCursorExtent(cursor));
  clang_tokenize(tu, clang_getRange(start, start), &tokens, &count);
  if (count > 0) {
    char *first = cx_string(clang_getTokenSpelling(tu, tokens[0]));
    is_extern = strcmp(first, "extern") == 0;
    free(first);
  }
  clang_disposeTokens(tu, tokens, count);
  return is_extern;
}

/* cx_at_file_scope: see clang_util.h. */
int cx_at_file_scope(CXCursor decl) {
  CXCursor parent = clang_getCursorSemanticParent(decl);
  while (!clang_Cursor_isNull(parent) && is_linkage_spec(parent))
    parent = clang_getCursorSemanticParent(parent);
  return !clang_Cursor_isNull(parent) && clang_isTranslationUnit(clang_getCursorKind(parent));
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

/* cx_is_instantiation: see clang_util.h. */
int cx_is_instantiation(CXCursor function) {
  CXCursor pattern = clang_getSpecializedCursorTemplate(function);
  return !clang_Cursor_isNull(pattern) &&
         clang_equalLocations(clang_getCursorLocation(function), clang_getCursorLocation(pattern));
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
  /* one that takes a type of an anonymous namespace is unique to the file as well (clang's
     "unique external" linkage) */
  if (clang_getCursorLinkage(cursor) == CXLinkage_UniqueExternal)
    return CUBIND_LINKAGE_ANONYMOUS_TYPE;
  return clang_getCursorLinkage(cursor) == CXLinkage_Internal ? CUBIND_LINKAGE_STATIC
                                                                : CUBIND_LINKAGE_EXTERNAL;
}

/*
 * The doc comment that ends right before byte `offset` of `text` (only blanks between):
 * a / ** or / *! block, or a run of /// or //! lines; a new string with its first line in
 * *line, or NULL (also for a trailing comment). For declarations a macro makes, to which clang
 * attaches no comment.
 */
static char *comment_before(const char *text, size_t offset, unsigned *line) {
  size_t end = offset, start = 0, i;
  int found = 0;
  while (end > 0 && strchr(" \t\r\n", text[end - 1]))
    end--;
  if (end >= 4 && text[end - 1] == '/' && text[end - 2] == '*') {
    for (start = end - 2; start > 0 && !(text[start - 1] == '/' && text[start] == '*'); start--)
      ;
    if (start == 0 || start + 1 >= end - 2 || (text[start + 1] != '*' && text[start + 1] != '!'))
      return NULL;
    start--;
  } else {
    size_t at = end;
    for (;;) { /* the start of the line that ends at `at`, while it is a /// or //! line */
      size_t begin = at, lead;
      while (begin > 0 && text[begin - 1] != '\n')
        begin--;
      for (lead = begin; lead < at && (text[lead] == ' ' || text[lead] == '\t'); lead++)
        ;
      if (at - lead < 3 || text[lead] != '/' || text[lead + 1] != '/' ||
          (text[lead + 2] != '/' && text[lead + 2] != '!'))
        break;
      start = lead;
      found = 1;
      if (begin == 0)
        break;
      at = begin - 1;
    }
    if (!found)
      return NULL;
  }
  if (start + 3 < end && text[start + 3] == '<')
    return NULL; /* a trailing comment (/ **< or ///<) documents what comes before it */
  *line = 1;
  for (i = 0; i < start; i++)
    *line += text[i] == '\n';
  return cubind_xstrndup(text + start, end - start);
}

/* Re-indents a raw comment's continuation lines (see cx_doc_comment); frees `raw`. */
static char *reindent_comment(char *raw) {
  cubind_buf out = {0};
  const char *line = raw;
  int first = 1;
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

/* cx_doc_comment: see clang_util.h. */
char *cx_doc_comment(CXCursor cursor, unsigned *line_out) {
  char *raw = cx_string(clang_Cursor_getRawCommentText(cursor));
  *line_out = 0;
  if (!raw[0]) {
    /* Clang attaches none to a declaration a macro makes (<cubind/elementwise.cuh>): the
       comment right before where it starts (the macro's use). Asked for every declaration
       without one: libclang 14 cannot tell a macro's location from the file's (its
       clang_getSpellingLocation gives the expansion), and clang attaches any doc comment that
       directly precedes a plain declaration itself. */
    CXSourceLocation start = clang_getRangeStart(clang_getCursorExtent(cursor));
    CXFile file;
    unsigned line, column, offset;
    size_t size = 0;
    const char *text;
    free(raw);
    clang_getExpansionLocation(start, &file, &line, &column, &offset);
    if (!file)
      return NULL;
    text = clang_getFileContents(clang_Cursor_getTranslationUnit(cursor), file, &size);
    raw = text && offset <= size ? comment_before(text, offset, line_out) : NULL;
    return raw ? reindent_comment(raw) : NULL;
  }
  {
    CXSourceRange range = clang_Cursor_getCommentRange(cursor);
    CXFile file;
    unsigned column, offset;
    clang_getExpansionLocation(clang_getRangeStart(range), &file, line_out, &column, &offset);
  }
  return reindent_comment(raw);
}

/* cx_main_file_line: see clang_util.h. */
unsigned cx_main_file_line(CXDiagnostic diag) {
  CXSourceLocation where = clang_getDiagnosticLocation(diag);
  CXFile file;
  unsigned line, column, offset;
  if (!clang_Location_isFromMainFile(where))
    return 0;
  clang_getExpansionLocation(where, &file, &line, &column, &offset);
  return line;
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
