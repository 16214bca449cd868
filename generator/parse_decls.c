/* parse_decls.c: kernels, parameters, templates and variables of the .cu (see parse_decls.h). */
#include "parse_decls.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "binary.h"
#include "clang_util.h"
#include "fs.h"
#include "parse_structs.h"
#include "parse_templates.h"
#include "parse_types.h"
#include "util.h"

/* Maps a parameter's or variable's type to C; by-value records are registered. */
static void map_type(parse_context *ctx, CXType type, c_type *mapped, char **elem_type,
                     unsigned long long *elem_size, long *record, int *is_pointer) {
  enum CXTypeKind kind = cx_strip_sugar(type).kind;
  *record = -1;
  if (kind == CXType_Pointer) {
    *is_pointer = 1;
    map_pointer_type(type, mapped, elem_type, elem_size, 1);
    return;
  }
  *is_pointer = 0;
  map_value_type(type, mapped);
  if (mapped->is_record)
    parse_struct(ctx, type, mapped, record);
}

static enum CXChildVisitResult collect_annotations(CXCursor cursor, CXCursor parent,
                                                   CXClientData data) {
  cubind_strlist *annotations = data;
  (void)parent;
  if (clang_getCursorKind(cursor) == CXCursor_AnnotateAttr) {
    char *text = cx_spelling(cursor);
    if (strncmp(text, "cubind.", 7) == 0)
      cubind_strlist_add(annotations, text);
    free(text);
  }
  return CXChildVisit_Continue;
}

/* 1 for an array type (a parameter declared so is a pointer to its element). */
static int is_array(CXType type) {
  enum CXTypeKind kind = cx_strip_sugar(type).kind;
  return kind == CXType_ConstantArray || kind == CXType_IncompleteArray ||
         kind == CXType_VariableArray || kind == CXType_DependentSizedArray;
}

/* Fills one parameter from its ParmDecl. */
static void parse_param(parse_context *ctx, CXCursor cursor, cubind_param *param) {
  CXType type = clang_getCursorType(cursor);
  c_type mapped = {0};
  long long size = clang_Type_getSizeOf(type), align = clang_Type_getAlignOf(type);
  param->name = cx_spelling(cursor);
  param->type_spelling = cx_type_spelling(type);
  parse_location(ctx, cursor, &param->location);
  clang_visitChildren(cursor, collect_annotations, &param->annotations);
  if (is_array(type)) { /* `float a[16]` is a `float *` parameter: 8 bytes in the buffer */
    param->is_pointer = 1;
    param->record = -1;
    map_array_param(type, &mapped, &param->elem_type, &param->elem_size);
    param->pointee_const =
        clang_isConstQualifiedType(clang_getCanonicalType(clang_getArrayElementType(cx_strip_sugar(type))));
    size = align = (long long)sizeof(void *);
  } else {
    map_type(ctx, type, &mapped, &param->elem_type, &param->elem_size, &param->record,
             &param->is_pointer);
    if (param->is_pointer)
      param->pointee_const = clang_isConstQualifiedType(
          clang_getCanonicalType(clang_getPointeeType(cx_strip_sugar(type))));
  }
  param->c_type = mapped.spelling;
  param->unsupported = mapped.unsupported;
  param->is_empty = mapped.is_empty;
  param->is_scalar = mapped.is_scalar;
  param->needs = mapped.needs;
  if (size <= 0 || align <= 0) {
    if (!param->unsupported)
      param->unsupported = cubind_xasprintf("type '%s' has no known size", param->type_spelling);
  } else {
    param->size = (unsigned long long)size;
    param->align = (unsigned long long)align;
  }
}

/* The index in model->templates of the template `function` specialises, or -1. */
static long template_of(const parse_context *ctx, CXCursor function) {
  CXCursor pattern = clang_getSpecializedCursorTemplate(function);
  long found = -1;
  char *usr;
  size_t i;
  if (clang_Cursor_isNull(pattern))
    return -1;
  usr = cx_usr(pattern);
  for (i = 0; i < ctx->model->num_templates; i++)
    if (strcmp(ctx->model->templates[i].usr, usr) == 0)
      found = (long)i;
  free(usr);
  return found;
}

/*
 * Whether a function declaration has a body. Under SkipFunctionBodies libclang reports no
 * definitions (clang_isCursorDefinition is 0, the extent stops before the body): what follows
 * the declaration in the file tells, `{` (or `= delete`) for a body, `;` for none. A declaration
 * written by a macro, whose text cannot be read this way, counts as defined.
 */
static int has_body(CXTranslationUnit tu, CXCursor function) {
  CXSourceLocation end = clang_getRangeEnd(clang_getCursorExtent(function));
  CXFile file, expanded_file;
  unsigned line, column, offset, expanded_offset;
  size_t size = 0;
  const char *text;
  clang_getSpellingLocation(end, &file, &line, &column, &offset);
  clang_getExpansionLocation(end, &expanded_file, &line, &column, &expanded_offset);
  if (!file || !clang_File_isEqual(file, expanded_file) || offset != expanded_offset)
    return 1; /* written by a macro */
  text = clang_getFileContents(tu, file, &size);
  if (!text || offset >= size)
    return 1;
  while (offset < size && strchr(" \t\r\n)", text[offset]))
    offset++;
  return offset >= size || text[offset] != ';';
}

/*
 * The symbol nvcc gives a function of internal linkage: clang marks such names with an 'L'
 * before the unqualified name ("_ZL3topPi", "_ZN2nsL6hiddenEPi"), nvcc does not ("_Z3topPi",
 * "_ZN2ns6hiddenEPi"). Drops that mark from the function's own name; other shapes are kept.
 */
static void drop_internal_mark(char *symbol) {
  char *at;
  if (strncmp(symbol, "_Z", 2) != 0)
    return;
  at = symbol + 2;
  if (*at == 'N') /* a nested name: skip the scopes before the function's own name */
    for (at++; isdigit((unsigned char)*at);) {
      char *end;
      unsigned long length = strtoul(at, &end, 10);
      if (strlen(end) < length)
        return;
      at = end + length;
    }
  if (at[0] == 'L' && isdigit((unsigned char)at[1]))
    memmove(at, at + 1, strlen(at));
}

/* The symbol of a kernel as clang mangles it, without the internal mark of a static one. */
static char *kernel_symbol(CXCursor function) {
  char *symbol = cx_string(clang_Cursor_getMangling(function));
  if (cx_linkage(function) == CUBIND_LINKAGE_STATIC)
    drop_internal_mark(symbol);
  return symbol;
}

/* parse_kernel: see parse_decls.h. */
void parse_kernel(parse_context *ctx, CXCursor function, cubind_kernel *kernel) {
  int anonymous, i, count = clang_Cursor_getNumArguments(function);
  kernel->usr = cx_usr(function);
  kernel->display_name = cx_qualified_name(function, &anonymous);
  /* a full explicit specialisation (template <> __global__ void fill<int>(...)) is named like
     an instantiation, fill_int: fill<int> and fill<float> must not both be fill */
  kernel->c_name = clang_Cursor_getNumTemplateArguments(function) > 0
                       ? parse_specialization_c_name(function, kernel->display_name)
                       : cx_spelling(function);
  kernel->symbol = kernel_symbol(function);
  kernel->symbol_unknown = cubind_mangling_clang_only(kernel->symbol);
  kernel->doc = cx_doc_comment(function, &kernel->doc_location.line);
  if (kernel->doc) {
    kernel->doc_location.file = cubind_xstrdup(ctx->input);
    kernel->doc_location.column = 1;
  }
  parse_location(ctx, function, &kernel->location);
  kernel->linkage = cx_linkage(function);
  kernel->place = parse_place(ctx, function);
  kernel->defined = has_body(clang_Cursor_getTranslationUnit(function), function);
  if (kernel->place != CUBIND_PLACE_INPUT) {
    char *file = cx_file_name(function);
    kernel->declared_in = cubind_xstrdup(file ? cubind_basename(file) : "?");
    free(file);
  }
  kernel->template_index = template_of(ctx, function);
  if (count < 0)
    count = 0;
  kernel->num_params = (size_t)count;
  kernel->params = cubind_xcalloc((size_t)count, sizeof *kernel->params);
  for (i = 0; i < count; i++)
    parse_param(ctx, clang_Cursor_getArgument(function, (unsigned)i), &kernel->params[i]);
  cubind_model_layout(kernel);
}

/* parse_find_kernel: see parse_decls.h. */
long parse_find_kernel(const parse_context *ctx, CXCursor function) {
  char *usr = cx_usr(function), *symbol = NULL;
  long found = -1;
  size_t i;
  for (i = 0; i < ctx->model->num_kernels && found < 0; i++) {
    const cubind_kernel *kernel = &ctx->model->kernels[i];
    if (!kernel->usr || strcmp(kernel->usr, usr) != 0)
      continue;
    /* one USR, told apart by the symbol: libclang gives f<P{1, 2}> and f<P{1, 3}> (class-type
       template arguments) one USR; a symbol taken from nvcc's binary is no clang mangling */
    if (!symbol)
      symbol = kernel_symbol(function);
    if (kernel->in_binary || !kernel->symbol || strcmp(kernel->symbol, symbol) == 0)
      found = (long)i;
  }
  free(usr);
  free(symbol);
  return found;
}

/* The names of an earlier declaration's parameters, by position, and those of the later one. */
typedef struct renamed_params {
  const cubind_kernel *earlier, *later;
} renamed_params;

static char *later_name(const char *name, size_t length, void *data) {
  const renamed_params *renamed = data;
  size_t i;
  for (i = 0; i < renamed->earlier->num_params && i < renamed->later->num_params; i++)
    if (strlen(renamed->earlier->params[i].name) == length &&
        strncmp(renamed->earlier->params[i].name, name, length) == 0)
      return cubind_xstrdup(renamed->later->params[i].name);
  return NULL;
}

/*
 * A declaration's annotations reach the later ones (clang passes a parameter's annotate
 * attributes on), their count expressions written with that declaration's parameter names:
 * where the later one names its parameters otherwise (`k(CUBIND_IN_N(n) float *p, int m, int
 * n)` before `k(float *p, int n, int m) {...}`), the names are those of the same positions.
 * Only where every annotation is the earlier one's, unchanged.
 */
static void rename_inherited_counts(const cubind_kernel *earlier, cubind_kernel *later) {
  renamed_params renamed;
  size_t i, k;
  int inherited = 0, differ = 0;
  if (earlier->num_params != later->num_params)
    return;
  for (i = 0; i < later->num_params; i++) {
    const cubind_strlist *was = &earlier->params[i].annotations;
    const cubind_strlist *is = &later->params[i].annotations;
    if (was->count != is->count)
      return;
    for (k = 0; k < is->count; k++)
      if (strcmp(was->items[k], is->items[k]) != 0)
        return;
    inherited |= is->count > 0;
    differ |= strcmp(earlier->params[i].name, later->params[i].name) != 0;
  }
  if (!inherited || !differ)
    return;
  renamed.earlier = earlier;
  renamed.later = later;
  cubind_kernel_map_count_names(later, later_name, &renamed);
}

/* One __global__ function of the main file; redeclarations (same USR) are merged. */
static void add_kernel(parse_context *ctx, CXCursor function) {
  long index = parse_find_kernel(ctx, function);
  int variadic = clang_isFunctionTypeVariadic(clang_getCursorType(function)) == 1;
  if (clang_isInvalidDeclaration(function) || variadic) {
    cubind_location where = {0};
    char *name = cx_spelling(function);
    parse_location(ctx, function, &where);
    /* clang takes a variadic kernel (-fcuda-allow-variadic-functions, for device printf-likes) */
    cubind_model_add_finding(ctx->model,
                             variadic ? CUBIND_FINDING_VARIADIC_KERNEL
                                      : CUBIND_FINDING_INVALID_KERNEL,
                             name, NULL, &where);
    free(where.file);
    free(name);
  } else if (index >= 0) {
    /* Later declarations win (the definition normally comes last, with the annotations), at
       the position of the first; the kernel is defined when any of them is. */
    cubind_kernel earlier = ctx->model->kernels[index];
    int defined = earlier.defined;
    cubind_kernel_init(&ctx->model->kernels[index]);
    parse_kernel(ctx, function, &ctx->model->kernels[index]);
    ctx->model->kernels[index].defined |= defined;
    rename_inherited_counts(&earlier, &ctx->model->kernels[index]);
    cubind_kernel_clear(&earlier);
  } else {
    parse_kernel(ctx, function, cubind_model_add_kernel(ctx->model));
  }
}

/* A template kernel of the main file; its specialisations become kernels later. */
static void add_template(parse_context *ctx, CXCursor cursor) {
  char *usr = cx_usr(cursor);
  cubind_template *entry;
  int anonymous;
  size_t i;
  for (i = 0; i < ctx->model->num_templates; i++)
    if (strcmp(ctx->model->templates[i].usr, usr) == 0) {
      free(usr);
      return;
    }
  entry = cubind_model_add_template(ctx->model);
  entry->usr = usr;
  entry->name = cx_spelling(cursor);
  entry->qualified = cx_qualified_name(cursor, &anonymous);
  entry->place = parse_place(ctx, cursor);
  parse_location(ctx, cursor, &entry->location);
}

/* The memory space attribute of a variable: 2 __constant__, 1 __device__, -1 __shared__, 0. */
static enum CXChildVisitResult find_space_attr(CXCursor cursor, CXCursor parent,
                                               CXClientData data) {
  enum CXCursorKind kind = clang_getCursorKind(cursor);
  int *space = data;
  (void)parent;
  if (kind == CXCursor_CUDAConstantAttr)
    *space = 2;
  else if (kind == CXCursor_CUDADeviceAttr && !*space)
    *space = 1;
  else if (kind == CXCursor_CUDASharedAttr)
    *space = -1;
  return *space < 0 ? CXChildVisit_Break : CXChildVisit_Continue;
}

/*
 * Whether a variable is declared __managed__ without __device__: clang gives it an implicit
 * device attribute that libclang does not visit, and no cursor of its own for `managed`, so its
 * tokens tell (`__managed__`, or `__attribute__((managed))` written out).
 */
static int is_managed(CXCursor variable) {
  CXTranslationUnit tu = clang_Cursor_getTranslationUnit(variable);
  CXToken *tokens = NULL;
  unsigned count = 0, i;
  int found = 0;
  CXSourceRange extent = clang_getCursorExtent(variable);
  CXFile file;
  unsigned start, end;
  /* from the file's own text: a range that begins in a macro (`__managed__ int n`) yields no
     tokens */
  clang_getExpansionLocation(clang_getRangeStart(extent), &file, NULL, NULL, &start);
  clang_getExpansionLocation(clang_getRangeEnd(extent), NULL, NULL, NULL, &end);
  if (!file || end <= start)
    return 0;
  clang_tokenize(tu,
                 clang_getRange(clang_getLocationForOffset(tu, file, start),
                                clang_getLocationForOffset(tu, file, end)),
                 &tokens, &count);
  for (i = 0; i < count && !found; i++) {
    char *text = cx_string(clang_getTokenSpelling(tu, tokens[i]));
    if (strcmp(text, "__managed__") == 0)
      found = 1;
    else if (strcmp(text, "managed") == 0 && i >= 3) {
      char *before = cx_string(clang_getTokenSpelling(tu, tokens[i - 3]));
      found = strcmp(before, "__attribute__") == 0;
      free(before);
    }
    free(text);
  }
  clang_disposeTokens(tu, tokens, count);
  return found;
}

/*
 * A __constant__ or __device__ variable defined in the main file: its element type and count,
 * so that the emitter can write typed copy functions (arrays of arrays count every element).
 */
static void add_variable(parse_context *ctx, CXCursor cursor) {
  CXType type = clang_getCursorType(cursor);
  cubind_variable *variable;
  c_type mapped = {0};
  unsigned long long count = 1, elem_size = 0;
  char *elem_type = NULL;
  long long size;
  int space = 0, anonymous, is_pointer;
  clang_visitChildren(cursor, find_space_attr, &space);
  if (space == 0 && is_managed(cursor))
    space = 1;
  if (space <= 0)
    return;
  if (clang_Cursor_getStorageClass(cursor) == CX_SC_Extern && !clang_isCursorDefinition(cursor))
    return; /* a declaration of a variable defined elsewhere (relocatable device code) */
  {
    /* a redeclaration of a variable already recorded: the same symbol */
    char *symbol = cx_string(clang_Cursor_getMangling(cursor));
    size_t i;
    for (i = 0; i < ctx->model->num_variables; i++)
      if (strcmp(ctx->model->variables[i].symbol, symbol) == 0)
        break;
    free(symbol);
    if (i < ctx->model->num_variables)
      return;
  }
  variable = cubind_model_add_variable(ctx->model);
  variable->name = cx_spelling(cursor);
  variable->display_name = cx_qualified_name(cursor, &anonymous);
  variable->type_spelling = cx_type_spelling(type);
  variable->is_constant = space == 2;
  variable->linkage = cx_linkage(cursor);
  variable->symbol = cx_string(clang_Cursor_getMangling(cursor));
  parse_location(ctx, cursor, &variable->location);
  for (;;) {
    CXType bare = cx_strip_sugar(type);
    if (bare.kind != CXType_ConstantArray)
      break;
    count *= (unsigned long long)clang_getArraySize(bare);
    type = clang_getArrayElementType(bare);
  }
  map_type(ctx, type, &mapped, &elem_type, &elem_size, &variable->record, &is_pointer);
  free(elem_type); /* a pointer variable's element is the pointer itself */
  size = clang_Type_getSizeOf(type);
  if (mapped.spelling && size > 0) {
    variable->elem_type = mapped.spelling;
    mapped.spelling = NULL;
  } else {
    variable->unsupported = mapped.unsupported ? mapped.unsupported
                                               : cubind_xstrdup("it has no known size");
    mapped.unsupported = NULL;
  }
  variable->elem_size = size > 0 ? (unsigned long long)size : 0;
  variable->count = count;
  variable->needs = mapped.needs;
  c_type_free(&mapped);
}

/*
 * Whether an UnexposedDecl of the .cu is a variable template in device memory (`template <class
 * T> __device__ T scale;`, or an instance of one): libclang exposes neither, so its tokens tell
 * (the first is `template`, a memory space comes before its initializer or the end).
 */
static int is_device_variable_template(CXCursor cursor) {
  CXTranslationUnit tu = clang_Cursor_getTranslationUnit(cursor);
  CXToken *tokens = NULL;
  unsigned count = 0, i;
  int found = 0;
  clang_tokenize(tu, clang_getCursorExtent(cursor), &tokens, &count);
  for (i = 0; i < count && !found; i++) {
    char *text = cx_string(clang_getTokenSpelling(tu, tokens[i]));
    int stop = (i == 0 && strcmp(text, "template") != 0) || strcmp(text, "=") == 0 ||
               strcmp(text, "{") == 0 || strcmp(text, ";") == 0 || strcmp(text, "__global__") == 0;
    found = !stop && (strcmp(text, "__device__") == 0 || strcmp(text, "__constant__") == 0 ||
                      strcmp(text, "__managed__") == 0);
    free(text);
    if (stop)
      break;
  }
  clang_disposeTokens(tu, tokens, count);
  return found;
}

/* A variable template in device memory: a warning (once per name) that it gets no functions. */
static void add_variable_template(parse_context *ctx, CXCursor cursor) {
  char *name = cx_spelling(cursor);
  cubind_location where;
  size_t i;
  for (i = 0; i < ctx->model->num_findings; i++)
    if (ctx->model->findings[i].kind == CUBIND_FINDING_VARIABLE_TEMPLATE &&
        strcmp(ctx->model->findings[i].name, name) == 0)
      break;
  if (i == ctx->model->num_findings) {
    parse_location(ctx, cursor, &where);
    cubind_model_add_finding(ctx->model, CUBIND_FINDING_VARIABLE_TEMPLATE, name, NULL, &where);
    free(where.file);
  }
  free(name);
}

/*
 * Kernels and templates of the .cu and of the user's headers it includes (a header's kernels
 * are bound like the .cu's: check.c decides by their place); variables of the .cu only (a
 * header's variable would be one per module that includes it).
 */
static enum CXChildVisitResult visit_declaration(CXCursor cursor, CXCursor parent,
                                                 CXClientData data) {
  parse_context *ctx = data;
  enum CXCursorKind kind = clang_getCursorKind(cursor);
  (void)parent;
  if (cx_in_system_header(cursor))
    return CXChildVisit_Continue;
  if (kind == CXCursor_VarDecl &&
      !clang_Location_isFromMainFile(clang_getCursorLocation(cursor)))
    return CXChildVisit_Continue;
  /* the parse's own top-level declarations include the functions it instantiated (explicit
     instantiations among them, which parse_instantiations records) */
  if (kind == CXCursor_FunctionDecl && cx_is_instantiation(cursor))
    return CXChildVisit_Continue;
  if (kind == CXCursor_UnexposedDecl &&
      clang_Location_isFromMainFile(clang_getCursorLocation(cursor)) &&
      is_device_variable_template(cursor))
    add_variable_template(ctx, cursor);
  /* libclang < 15 reports extern "C" blocks as UnexposedDecl */
  else if (kind == CXCursor_Namespace || kind == CXCursor_LinkageSpec ||
           kind == CXCursor_UnexposedDecl)
    clang_visitChildren(cursor, visit_declaration, ctx);
  else if (kind == CXCursor_FunctionDecl && cx_is_global(cursor))
    add_kernel(ctx, cursor);
  else if (kind == CXCursor_FunctionTemplate && cx_is_global(cursor))
    add_template(ctx, cursor);
  else if (kind == CXCursor_VarDecl)
    add_variable(ctx, cursor);
  return CXChildVisit_Continue;
}

/* parse_declarations: see parse_decls.h. */
void parse_declarations(parse_context *ctx, CXTranslationUnit tu) {
  clang_visitChildren(clang_getTranslationUnitCursor(tu), visit_declaration, ctx);
}
