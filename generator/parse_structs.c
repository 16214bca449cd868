/* parse_structs.c: structs and unions by value (see parse_structs.h). */
#include "parse_structs.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "clang_util.h"
#include "fs.h"
#include "util.h"

/* Deeper than any real type: stops a malformed input from recursing forever. */
#define MAX_RECORD_DEPTH 16

static void parse_struct_at(parse_context *ctx, CXType written, c_type *mapped, long *index,
                            int depth, const char *name_hint);

/* State of one record's field walk (clang_Type_visitFields). */
typedef struct field_walk {
  parse_context *ctx;
  const char *record;  /* the record's C++ name, for messages */
  cubind_field *fields;
  size_t count;
  char *error;         /* the first problem found */
  unsigned needs;
  int depth;
  int copied;          /* the generated header defines a C copy of the record */
  const char *c_name;  /* that copy's name, for the names of unnamed nested records */
} field_walk;

static void free_fields(cubind_field *fields, size_t count) {
  size_t i;
  for (i = 0; i < count; i++) {
    free(fields[i].name);
    free(fields[i].c_decl);
  }
  free(fields);
}

/* The typedef name `type` is spelled with (outermost), or NULL. */
static char *typedef_name(CXType type) {
  type = cx_strip_elaborated(type);
  if (type.kind != CXType_Typedef)
    return NULL;
  return cx_spelling(clang_getTypeDeclaration(type));
}

/* 1 when the record is declared inside a struct or union (C declares it at file scope). */
static int nested_record(CXCursor decl) {
  enum CXCursorKind parent = clang_getCursorKind(clang_getCursorSemanticParent(decl));
  return parent == CXCursor_StructDecl || parent == CXCursor_UnionDecl;
}

/*
 * Maps one field's type (arrays already peeled) to C, registering nested records. A record
 * declared inside this one (`struct { int lo, hi; } range;`) is a record of its own in a C
 * copy, at file scope as C puts it, named <copy>_<field> when it has no name; in a header the
 * generated header includes, it is that header's, checked through the field's offset alone
 * (C++ names it Outer::Inner, C struct Inner).
 */
static void map_field_type(field_walk *walk, CXType type, const char *field, c_type *mapped,
                           long *record) {
  *record = -1;
  if (cx_strip_sugar(type).kind == CXType_Pointer) {
    char *elem = NULL;
    unsigned long long elem_size;
    map_pointer_type(type, mapped, &elem, &elem_size, 0);
    free(elem);
    return;
  }
  map_value_type(type, mapped);
  if (mapped->is_record && nested_record(mapped->record) && !walk->copied) {
    mapped->spelling = cx_type_spelling(type); /* no C copy: never written */
  } else if (mapped->is_record) {
    char *hint = nested_record(mapped->record)
                     ? cubind_xasprintf("%s_%s", walk->c_name ? walk->c_name : "", field)
                     : NULL;
    parse_struct_at(walk->ctx, type, mapped, record, walk->depth + 1, hint);
    free(hint);
  }
}

static enum CXVisitorResult visit_field(CXCursor field, CXClientData data) {
  field_walk *walk = data;
  CXType type = clang_getCursorType(field);
  cubind_buf dims = {0};
  c_type mapped = {0};
  char *name = cx_spelling(field);
  long long offset = clang_Cursor_getOffsetOfField(field);
  long record = -1;
  cubind_field *out;
  cubind_location where;
  cubind_buf_puts(&dims, "");
  /* an anonymous struct or union member (`union { float f; int i; };`): C99 has none */
  if (!name[0] || clang_Cursor_isAnonymousRecordDecl(field) ||
      clang_Cursor_isAnonymousRecordDecl(clang_getTypeDeclaration(cx_strip_sugar(type))))
    walk->error = cubind_xasprintf("'%s' has an unnamed member: C cannot name it", walk->record);
  else if (!cubind_is_identifier(name))
    walk->error = cubind_xasprintf("field '%s' of '%s' has a name the C copy of the struct "
                                   "cannot spell (only ASCII letters, digits and '_'): rename "
                                   "the field",
                                   name, walk->record);
  else if (clang_Cursor_isBitField(field))
    walk->error = cubind_xasprintf(
        "bitfield '%s' in '%s': bitfield layout is up to each compiler, so a C caller could not "
        "be checked against the device; use whole integer fields",
        name, walk->record);
  else if (offset < 0 || offset % 8)
    walk->error = cubind_xasprintf("field '%s' of '%s' has no known offset", name, walk->record);
  else if (cubind_c_only_keyword(name))
    walk->error = cubind_xasprintf("field '%s' of '%s' has a name that is a keyword in C, "
                                   "which the C copy of the struct cannot use: rename the field",
                                   name, walk->record);
  while (!walk->error) {
    CXType bare = cx_strip_sugar(type);
    if (bare.kind == CXType_ConstantArray) {
      cubind_buf_printf(&dims, "[%lld]", clang_getArraySize(bare));
      type = clang_getArrayElementType(bare);
    } else if (bare.kind == CXType_IncompleteArray || bare.kind == CXType_VariableArray ||
               bare.kind == CXType_DependentSizedArray) {
      walk->error = cubind_xasprintf("field '%s' of '%s' is an array without a fixed size", name,
                                     walk->record);
    } else {
      break;
    }
  }
  if (!walk->error) {
    map_field_type(walk, type, name, &mapped, &record);
    if (mapped.is_empty && !dims.length)
      /* an empty struct member (a tag type): C has no empty structs, and C++ gives it a byte
         of its own, which the C copy keeps as one (the layout checks confirm where it lies) */
      mapped.spelling = cubind_xstrdup("unsigned char");
    if (!mapped.spelling)
      walk->error = cubind_xasprintf("field '%s' of '%s': %s", name, walk->record,
                                     mapped.unsupported ? mapped.unsupported : "unknown type");
  }
  if (walk->error) {
    c_type_free(&mapped);
    free(name);
    cubind_buf_free(&dims);
    return CXVisit_Break;
  }
  walk->needs |= mapped.needs;
  walk->fields = cubind_xrealloc(walk->fields, (walk->count + 1) * sizeof *walk->fields);
  out = &walk->fields[walk->count++];
  out->name = name;
  out->offset = (unsigned long long)offset / 8;
  out->size = (unsigned long long)clang_Type_getSizeOf(clang_getCursorType(field));
  out->align = (unsigned long long)clang_Type_getAlignOf(clang_getCursorType(field));
  out->align_attr = 0; /* spell_layout's to decide */
  out->record = record;
  cx_location(field, "", &where);
  out->line = where.line;
  free(where.file);
  {
    size_t length = strlen(mapped.spelling);
    out->c_decl = cubind_xasprintf(length && mapped.spelling[length - 1] == '*' ? "%s%s%s"
                                                                                : "%s %s%s",
                                   mapped.spelling, name, dims.data);
  }
  c_type_free(&mapped);
  cubind_buf_free(&dims);
  return CXVisit_Continue;
}

static enum CXChildVisitResult find_base(CXCursor cursor, CXCursor parent, CXClientData data) {
  (void)parent;
  if (clang_getCursorKind(cursor) == CXCursor_CXXBaseSpecifier) {
    *(int *)data = 1;
    return CXChildVisit_Break;
  }
  return CXChildVisit_Continue;
}

/*
 * The path of the toolkit header that declares `decl` relative to the toolkit's include
 * directory ("driver_types.h"), or NULL when it is not the toolkit's. The toolkit's C headers
 * declare the runtime's structs (cudaExtent, cudaPitchedPtr, dim3) for C too. The file may have
 * been reached another way than through that directory (a merged prefix like /usr/local whose
 * include/ holds symlinks into the toolkit, a toolkit include directory that is itself a
 * symlink), so it counts by identity: the shortest tail of its path, as clang spelled it or
 * resolved, that names the very same file below the include directory.
 */
static char *toolkit_header(const parse_context *ctx, CXCursor decl) {
  char *include = cubind_xasprintf("%s/include", ctx->options->cuda_path);
  char *spelled = cx_file_name(decl), *real = spelled ? realpath(spelled, NULL) : NULL;
  const char *paths[2];
  char *result = NULL;
  struct stat want;
  int depth, p;
  paths[0] = spelled;
  paths[1] = real;
  for (depth = 1; depth <= 4 && !result && real && stat(real, &want) == 0; depth++)
    for (p = 0; p < 2 && !result; p++) {
      const char *tail = paths[p] + strlen(paths[p]);
      int slashes = 0;
      char *joined;
      struct stat got;
      while (tail > paths[p] && slashes < depth)
        slashes += *--tail == '/';
      if (slashes < depth)
        continue; /* the path has fewer components */
      joined = cubind_xasprintf("%s/%s", include, tail + 1);
      if (stat(joined, &got) == 0 && got.st_dev == want.st_dev && got.st_ino == want.st_ino)
        result = cubind_xstrdup(tail + 1);
      free(joined);
    }
  free(include);
  free(spelled);
  free(real);
  return result;
}

/* Why C cannot declare or name the record, or NULL (checks that need no field walk). */
static char *record_problem(parse_context *ctx, CXCursor decl, const char *display,
                            const char *name, const char *alias, int defined_here, int depth,
                            char **header) {
  const char *what = clang_getCursorKind(decl) == CXCursor_UnionDecl ? "union" : "struct";
  int has_base = 0;
  clang_visitChildren(decl, find_base, &has_base);
  if (depth > MAX_RECORD_DEPTH)
    return cubind_xasprintf("%s '%s' nests too deeply", what, display);
  /* a system header's record C could name is a toolkit C header's, at global scope
     (CUtensorMap); libcu++'s cuda::atomic is in a toolkit header too, but in a namespace */
  if (cx_in_system_header(decl) &&
      (!cx_at_file_scope(decl) || !(*header = toolkit_header(ctx, decl))))
    return cubind_xasprintf(
        "type '%s' comes from a system header that C code cannot include: pass a pointer",
        display);
  if (*header && strlen(*header) > 4 && strcmp(*header + strlen(*header) - 4, ".hpp") == 0)
    return cubind_xasprintf("type '%s' comes from the toolkit's %s, which is C++ only: pass a "
                            "pointer",
                            display, *header);
  /* (a template first: moving it to the global scope would not help) */
  if (!clang_Cursor_isNull(clang_getSpecializedCursorTemplate(decl)) &&
      clang_Type_getNumTemplateArguments(clang_getCursorType(decl)) > 0)
    return cubind_xasprintf(
        "'%s' is a class template specialization, which C cannot name: use a plain struct",
        display);
  if (!clang_Cursor_isNull(clang_getSpecializedCursorTemplate(decl))) /* Gemm<float>::Params */
    return cubind_xasprintf("%s '%s' is a member of a class template's instance, which C "
                            "cannot name: declare it at global scope",
                            what, display);
  if (!cx_at_file_scope(decl) && !(defined_here && nested_record(decl))) {
    /* a record nested in a struct is copied where the generated header defines the outer
       one; in a header C includes, a class, a namespace or a function, C has no name for it */
    enum CXCursorKind parent = clang_getCursorKind(clang_getCursorSemanticParent(decl));
    return cubind_xasprintf(
        "%s '%s' is declared inside %s, where C cannot name it: declare it at global scope (in "
        "the .cu, or in a C-compatible header both sides include)",
        what, display,
        parent == CXCursor_Namespace ? "a namespace"
        : nested_record(decl)        ? "a struct of a header the generated C header includes"
        : parent == CXCursor_FunctionDecl || parent == CXCursor_CXXMethod ||
                parent == CXCursor_FunctionTemplate
            ? "a function"
            : "a class");
  }
  if (has_base)
    return cubind_xasprintf(
        "%s '%s' has base classes, which C cannot declare: make it a plain struct", what,
        display);
  if ((!name[0] || clang_Cursor_isAnonymous(decl)) && !alias)
    return cubind_xasprintf("an unnamed %s cannot be named from C: give it a name", what);
  if (!defined_here && !*header && !(*header = parse_include_spelling(ctx, decl)))
    return cubind_xasprintf(
        "%s '%s' is declared in a header that lies neither below the .cu file's directory nor "
        "below an -I directory: pass that directory with -I so that the generated header can "
        "include it",
        what, display);
  return NULL;
}

static unsigned long long align_up(unsigned long long at, unsigned long long align) {
  return (at + align - 1) / align * align;
}

/*
 * How the C copy of a record of the .cu spells its device layout where C's own rules would
 * not give it (alignas, __align__(N), __attribute__((packed))): sets record->packed, its
 * align_attr and each field's align_attr, the smallest that put every field at its offset and
 * give the record its size and alignment. Returns NULL, or why no C spelling has that layout
 * (a new string). The .cubind.c checks the result against the device's numbers either way.
 */
static char *spell_layout(cubind_struct *record) {
  unsigned long long natural = 1, at = 0, reached = 1;
  size_t f;
  /* packed where a field sits before its type's alignment or the record is less aligned */
  for (f = 0; f < record->num_fields; f++) {
    const cubind_field *field = &record->fields[f];
    unsigned long long start = record->is_union ? 0 : align_up(at, field->align);
    if (field->offset < start)
      record->packed = 1;
    if (field->align > natural)
      natural = field->align;
    at = field->offset + field->size;
  }
  if (record->align < natural)
    record->packed = 1;
  at = 0;
  for (f = 0; f < record->num_fields; f++) {
    cubind_field *field = &record->fields[f];
    unsigned long long align = record->packed ? 1 : field->align;
    unsigned long long start = record->is_union ? 0 : align_up(at, align);
    if (field->offset > start) {
      /* alignas on the field: the smallest larger alignment that puts it there */
      unsigned long long wanted = align * 2;
      while (wanted <= field->offset && align_up(at, wanted) != field->offset)
        wanted *= 2;
      if (wanted > field->offset)
        return cubind_xasprintf("field '%s' of '%s' lies at offset %llu, which no alignment "
                                "of a C field gives",
                                field->name, record->display_name, field->offset);
      field->align_attr = align = wanted;
    } else if (field->offset < start) {
      return cubind_xasprintf("field '%s' of '%s' overlaps the field before it", field->name,
                              record->display_name);
    }
    if (align > reached)
      reached = align;
    if (field->offset + field->size > at)
      at = field->offset + field->size;
  }
  if (record->align > reached)
    record->align_attr = reached = record->align;
  if (record->align != reached || align_up(at, reached) != record->size)
    return cubind_xasprintf("'%s' is %llu bytes aligned to %llu on the device, which no C "
                            "struct with its fields in their places is",
                            record->display_name, record->size, record->align);
  return NULL;
}

/* 1 when [word, end) begins with the keyword `keyword` (a space, '<' or '{' after it). */
static int starts_with_keyword(const char *word, const char *end, const char *keyword) {
  size_t length = strlen(keyword);
  return (size_t)(end - word) > length && strncmp(word, keyword, length) == 0 &&
         (word[length] == ' ' || word[length] == '\t' || word[length] == '<' ||
          word[length] == '{');
}

/*
 * 1 when a header's text is plainly C++: it includes a C++ standard header (<cstdint>,
 * <vector>: a name without a '.') or a line begins with namespace, template, class or using
 * (flash-attention's flash.h, GROMACS's types headers: .h files C cannot include).
 */
static int cxx_text(const char *path) {
  char *text = NULL;
  const char *at, *end;
  size_t size = 0;
  int cxx = 0;
  if (cubind_read_file_quiet(path, CUBIND_MAX_SOURCE_BYTES, &text, &size) != 0)
    return 0;
  for (at = text, end = text + size; at < end && !cxx;) {
    const char *stop = memchr(at, '\n', (size_t)(end - at)), *word = at;
    if (!stop)
      stop = end;
    while (word < stop && (*word == ' ' || *word == '\t'))
      word++;
    if (word < stop && *word == '#') {
      const char *name = word + 1, *close;
      while (name < stop && (*name == ' ' || *name == '\t'))
        name++;
      if (starts_with_keyword(name, stop, "include")) {
        name += strlen("include");
        while (name < stop && (*name == ' ' || *name == '\t'))
          name++;
        close = name < stop && *name == '<' ? memchr(name, '>', (size_t)(stop - name)) : NULL;
        cxx = close && close > name + 1 && !memchr(name, '.', (size_t)(close - name));
      }
    } else {
      cxx = starts_with_keyword(word, stop, "namespace") ||
            starts_with_keyword(word, stop, "template") ||
            starts_with_keyword(word, stop, "class") || starts_with_keyword(word, stop, "using");
    }
    at = stop + 1;
  }
  free(text);
  return cxx;
}

/* What cxx_declarations looks for in one header: the file, and whether it found any. */
typedef struct cxx_search {
  CXFile file;
  int found;
  /* the typedefs seen so far that name a struct, union or enum by its own tag
     (`typedef struct cell cell;`): C spells the type by that name too */
  cubind_strlist tag_typedefs;
} cxx_search;

/* 1 when the cursor is C++ or CUDA C cannot read, by its kind alone. */
static int cxx_kind(enum CXCursorKind kind) {
  switch (kind) {
  case CXCursor_Namespace:
  case CXCursor_NamespaceAlias:
  case CXCursor_ClassDecl:
  case CXCursor_ClassTemplate:
  case CXCursor_ClassTemplatePartialSpecialization:
  case CXCursor_FunctionTemplate:
  case CXCursor_TypeAliasDecl:
  case CXCursor_TypeAliasTemplateDecl:
  case CXCursor_UsingDirective:
  case CXCursor_UsingDeclaration:
  case CXCursor_CXXMethod:
  case CXCursor_Constructor:
  case CXCursor_Destructor:
  case CXCursor_ConversionFunction:
  case CXCursor_CXXBaseSpecifier:
  case CXCursor_CXXAccessSpecifier:
  case CXCursor_CUDAConstantAttr:
  case CXCursor_CUDADeviceAttr:
  case CXCursor_CUDAGlobalAttr:
  case CXCursor_CUDAHostAttr:
  case CXCursor_CUDASharedAttr:
    return 1;
  default:
    return 0;
  }
}

/* 1 when the expression or statement is C++ (casts, lambdas, `nullptr`, `new`, range for). */
static int cxx_code_kind(enum CXCursorKind kind) {
  switch (kind) {
  case CXCursor_CXXStaticCastExpr:
  case CXCursor_CXXDynamicCastExpr:
  case CXCursor_CXXReinterpretCastExpr:
  case CXCursor_CXXConstCastExpr:
  case CXCursor_CXXFunctionalCastExpr:
  case CXCursor_CXXTypeidExpr:
  case CXCursor_CXXNullPtrLiteralExpr:
  case CXCursor_CXXThisExpr:
  case CXCursor_CXXThrowExpr:
  case CXCursor_CXXNewExpr:
  case CXCursor_CXXDeleteExpr:
  case CXCursor_LambdaExpr:
  case CXCursor_PackExpansionExpr:
  case CXCursor_SizeOfPackExpr:
  case CXCursor_CXXForRangeStmt:
  case CXCursor_CXXTryStmt:
  case CXCursor_CXXCatchStmt:
  case CXCursor_NamespaceRef: /* std::min */
  case CXCursor_TemplateRef:
  case CXCursor_OverloadedDeclRef:
    return 1;
  default:
    return 0;
  }
}

/* The tag of a struct, union or enum type (a new string; empty for an unnamed one). */
static char *tag_name(CXType type) {
  return cx_spelling(clang_getTypeDeclaration(clang_getCanonicalType(type)));
}

/*
 * 1 when C cannot spell the type as written: a reference, `auto`, or a struct, union or enum
 * named without its keyword (`Vec v`) where no typedef of its tag's name is in `search`, also
 * through pointers and arrays. (In C++, `cell` inside `struct cell` is the struct itself even
 * where `typedef struct cell cell;` came first.)
 */
static int cxx_spelled_type(const cxx_search *search, CXType type) {
  CXType named;
  char *spelling, *tag;
  const char *word;
  int cxx;
  for (;;) {
    if (type.kind == CXType_LValueReference || type.kind == CXType_RValueReference ||
        type.kind == CXType_Auto)
      return 1;
    if (type.kind == CXType_Pointer)
      type = clang_getPointeeType(type);
    else if (type.kind == CXType_ConstantArray || type.kind == CXType_IncompleteArray ||
             type.kind == CXType_VariableArray)
      type = clang_getArrayElementType(type);
    else
      break;
  }
  if (type.kind == CXType_Elaborated) {
    named = clang_Type_getNamedType(type);
    if (named.kind != CXType_Record && named.kind != CXType_Enum)
      return 0; /* a typedef's name */
    spelling = cx_string(clang_getTypeSpelling(type));
    for (word = spelling; strncmp(word, "const ", 6) == 0 || strncmp(word, "volatile ", 9) == 0;)
      word += word[0] == 'c' ? 6 : 9; /* clang_getUnqualifiedType is libclang 16's */
    cxx = strncmp(word, "struct ", 7) != 0 && strncmp(word, "union ", 6) != 0 &&
          strncmp(word, "enum ", 5) != 0;
    free(spelling);
  } else { /* libclang 14 spells a tag written without its keyword as a plain record */
    cxx = type.kind == CXType_Record || type.kind == CXType_Enum;
  }
  if (!cxx)
    return 0;
  tag = tag_name(type);
  cxx = !cubind_strlist_contains(&search->tag_typedefs, tag);
  free(tag);
  return cxx;
}

/* 1 when a child of the cursor is an expression (an initialiser, an array's bound). */
static enum CXChildVisitResult find_expression(CXCursor cursor, CXCursor parent,
                                               CXClientData data) {
  (void)parent;
  if (!clang_isExpression(clang_getCursorKind(cursor)))
    return CXChildVisit_Continue;
  *(int *)data = 1;
  return CXChildVisit_Break;
}

static int has_expression_child(CXCursor cursor) {
  int found = 0;
  clang_visitChildren(cursor, find_expression, &found);
  return found;
}

/*
 * 1 when the declaration of a parameter or member has an initialiser: an `=` or `{` after its
 * name, outside brackets (`int n = 64`, not `float v[N]` or `float x[n == 2 ? 1 : 2]`).
 */
static int has_initializer(CXCursor cursor) {
  CXTranslationUnit unit = clang_Cursor_getTranslationUnit(cursor);
  CXToken *tokens = NULL;
  unsigned count = 0, i;
  char *name = cx_spelling(cursor);
  int depth = 0, past_name = 0, found = 0;
  if (!has_expression_child(cursor)) { /* most have none: no tokens needed */
    free(name);
    return 0;
  }
  clang_tokenize(unit, clang_getCursorExtent(cursor), &tokens, &count);
  for (i = 0; i < count && !found; i++) {
    char *text = cx_string(clang_getTokenSpelling(unit, tokens[i]));
    if (!past_name)
      past_name = name[0] && strcmp(text, name) == 0;
    else if (strcmp(text, "(") == 0 || strcmp(text, "[") == 0)
      depth++;
    else if (strcmp(text, ")") == 0 || strcmp(text, "]") == 0)
      depth--;
    else if (depth == 0)
      found = strcmp(text, "=") == 0 || strcmp(text, "{") == 0;
    free(text);
  }
  clang_disposeTokens(unit, tokens, count);
  free(name);
  return found;
}

/*
 * 1 when the cursor, a part of a header's declaration, is something C cannot read: a C++ or
 * CUDA member or attribute (cxx_kind), C++ code in an inline function's body (cxx_code_kind),
 * a type spelled as only C++ spells it (cxx_spelled_type), a default argument, or a member's
 * default initialiser (has_initializer).
 */
static int cxx_part(const cxx_search *search, CXCursor cursor) {
  enum CXCursorKind kind = clang_getCursorKind(cursor);
  if (cxx_kind(kind) || cxx_code_kind(kind))
    return 1;
  switch (kind) {
  case CXCursor_FunctionDecl:
    return cxx_spelled_type(search, clang_getResultType(clang_getCursorType(cursor)));
  case CXCursor_TypedefDecl:
    return cxx_spelled_type(search, clang_getTypedefDeclUnderlyingType(cursor));
  case CXCursor_ParmDecl:
    return cxx_spelled_type(search, clang_getCursorType(cursor)) || has_initializer(cursor);
  case CXCursor_FieldDecl:
    return cxx_spelled_type(search, clang_getCursorType(cursor)) || has_initializer(cursor);
  case CXCursor_VarDecl:
  case CXCursor_CStyleCastExpr:
  case CXCursor_CompoundLiteralExpr:
    return cxx_spelled_type(search, clang_getCursorType(cursor));
  default:
    return 0;
  }
}

/* A part of a header's declaration that C cannot read (cxx_part), at any depth. */
static enum CXChildVisitResult find_cxx_member(CXCursor cursor, CXCursor parent,
                                               CXClientData data) {
  (void)parent;
  if (!cxx_part(data, cursor))
    return CXChildVisit_Recurse;
  ((cxx_search *)data)->found = 1;
  return CXChildVisit_Break;
}

/* A declaration of the translation unit's top level, looked at where it is in the header. */
static enum CXChildVisitResult find_cxx_declaration(CXCursor cursor, CXCursor parent,
                                                    CXClientData data) {
  cxx_search *search = data;
  enum CXCursorKind kind = clang_getCursorKind(cursor);
  CXFile file;
  char *name;
  (void)parent;
  if (kind == CXCursor_LinkageSpec) /* extern "C" { ... }: its declarations are what counts */
    return CXChildVisit_Recurse;
  if (kind == CXCursor_TypedefDecl) {
    CXType underlying = clang_getCanonicalType(clang_getTypedefDeclUnderlyingType(cursor));
    if (underlying.kind == CXType_Record || underlying.kind == CXType_Enum) {
      char *tag = tag_name(underlying);
      name = cx_spelling(cursor);
      if (strcmp(tag, name) == 0 && !cubind_strlist_contains(&search->tag_typedefs, name))
        cubind_strlist_add(&search->tag_typedefs, name);
      free(tag);
      free(name);
    }
  }
  clang_getExpansionLocation(clang_getCursorLocation(cursor), &file, NULL, NULL, NULL);
  if (!file || !clang_File_isEqual(file, search->file))
    return CXChildVisit_Continue;
  name = kind == CXCursor_FunctionDecl ? cx_spelling(cursor) : NULL;
  search->found = cxx_part(search, cursor) ||
                  (kind == CXCursor_EnumDecl && clang_EnumDecl_isScoped(cursor)) ||
                  (name && strncmp(name, "operator", 8) == 0 &&
                   !isalnum((unsigned char)name[8]) && name[8] != '_');
  free(name);
  if (!search->found && (kind == CXCursor_FunctionDecl || kind == CXCursor_VarDecl ||
                         kind == CXCursor_StructDecl || kind == CXCursor_UnionDecl ||
                         kind == CXCursor_TypedefDecl))
    clang_visitChildren(cursor, find_cxx_member, search); /* methods, __device__, bodies */
  return search->found ? CXChildVisit_Break : CXChildVisit_Continue;
}

/*
 * 1 when a declaration at the top level of the header that holds `decl` is C++ or CUDA that C
 * cannot read: a namespace, a class, a template, a scoped enum, an operator, a struct with
 * methods or bases, a __device__ function or variable (a CUDA `common.h` of helpers beside its
 * plain structs). The answer for the last header asked is kept in ctx: a header's records ask
 * in turn.
 */
static int cxx_declarations(parse_context *ctx, CXCursor decl) {
  char *path = cx_file_name(decl);
  cxx_search search = {0};
  if (!path)
    return 0;
  if (ctx->cxx_asked_path && strcmp(ctx->cxx_asked_path, path) == 0) {
    free(path);
    return ctx->cxx_asked_found;
  }
  clang_getExpansionLocation(clang_getCursorLocation(decl), &search.file, NULL, NULL, NULL);
  if (search.file)
    clang_visitChildren(clang_getTranslationUnitCursor(clang_Cursor_getTranslationUnit(decl)),
                        find_cxx_declaration, &search);
  free(ctx->cxx_asked_path);
  ctx->cxx_asked_path = path;
  ctx->cxx_asked_found = search.found;
  cubind_strlist_free(&search.tag_typedefs);
  return search.found;
}

/*
 * 1 when the record's header is C++ or CUDA: by its name (.cuh, .hpp, .hh, .hxx, .inl, .tcc,
 * .cu), by its text (cxx_text) or by its declarations (cxx_declarations). A C file cannot
 * include it (a .cuh that holds the kernels taking the struct, as real code has), so the
 * generated header carries a C copy, as of a record of the .cu. Another .h is taken for the C
 * header a kernel's types live in when C code shares them.
 */
static int in_cxx_header(parse_context *ctx, CXCursor decl) {
  static const char *const suffixes[] = {".cuh", ".hpp", ".hh", ".hxx", ".inl", ".tcc", ".cu"};
  char *file = cx_file_name(decl);
  size_t i, length = file ? strlen(file) : 0;
  int cxx = 0;
  for (i = 0; file && i < sizeof suffixes / sizeof suffixes[0] && !cxx; i++)
    cxx = length > strlen(suffixes[i]) &&
          strcmp(file + length - strlen(suffixes[i]), suffixes[i]) == 0;
  cxx = cxx || (file && (cxx_text(file) || cxx_declarations(ctx, decl)));
  free(file);
  return cxx;
}

static void parse_struct_at(parse_context *ctx, CXType written, c_type *mapped, long *index,
                            int depth, const char *name_hint) {
  cubind_model *model = ctx->model;
  CXCursor decl = mapped->record;
  CXType canonical = clang_getCanonicalType(written);
  char *usr = cx_usr(decl), *display = cx_type_spelling(canonical), *name = cx_spelling(decl);
  char *alias = typedef_name(written), *header = NULL;
  cubind_place place = parse_place(ctx, decl);
  int defined_here = place == CUBIND_PLACE_INPUT ||
                     (place == CUBIND_PLACE_HEADER && in_cxx_header(ctx, decl));
  int is_union = clang_getCursorKind(decl) == CXCursor_UnionDecl;
  const char *what = is_union ? "union" : "struct";
  field_walk walk;
  cubind_struct *record;
  unsigned long long align_attr = 0;
  int packed = 0;
  size_t i;
  *index = -1;
  memset(&walk, 0, sizeof walk);
  if (!alias && name_hint && (!name[0] || clang_Cursor_isAnonymous(decl))) {
    /* an unnamed nested record: its C copy's name, in messages too (clang spells it with the
       file's path and line, which would make the generated header depend on where it lies) */
    alias = cubind_xstrdup(name_hint);
    free(display);
    display = cubind_xstrdup(name_hint);
  }
  for (i = 0; i < model->num_structs; i++)
    if (strcmp(model->structs[i].usr, usr) == 0) {
      mapped->spelling = cubind_xstrdup(model->structs[i].c_name);
      *index = (long)i;
      goto done;
    }
  mapped->unsupported =
      record_problem(ctx, decl, display, name, alias, defined_here, depth, &header);
  if (mapped->unsupported)
    goto done;
  walk.ctx = ctx;
  walk.record = display;
  walk.depth = depth;
  walk.copied = defined_here;
  walk.c_name = name[0] && !clang_Cursor_isAnonymous(decl) ? name : alias;
  if (defined_here && walk.c_name &&
      (cubind_c_only_keyword(walk.c_name) || (alias && cubind_c_only_keyword(alias)))) {
    mapped->unsupported = cubind_xasprintf("%s '%s' has a name that is a keyword in C, which its "
                                           "C copy cannot use: rename it",
                                           what, display);
    goto done;
  }
  clang_Type_visitFields(canonical, visit_field, &walk);
  if (!walk.error && !walk.count)
    walk.error = cubind_xasprintf("%s '%s' has no fields: C has no empty structs", what, display);
  if (!walk.error && defined_here) {
    /* the C spelling of its layout, decided before the model lists the record as usable */
    cubind_struct layout;
    memset(&layout, 0, sizeof layout);
    layout.display_name = display;
    layout.is_union = is_union;
    layout.size = (unsigned long long)clang_Type_getSizeOf(canonical);
    layout.align = (unsigned long long)clang_Type_getAlignOf(canonical);
    layout.fields = walk.fields;
    layout.num_fields = walk.count;
    walk.error = spell_layout(&layout);
    packed = layout.packed;
    align_attr = layout.align_attr;
  }
  if (walk.error) {
    mapped->unsupported = walk.error;
    free_fields(walk.fields, walk.count);
    goto done;
  }
  record = cubind_model_add_struct(model);
  record->packed = packed;
  record->align_attr = align_attr;
  record->usr = usr;
  usr = NULL;
  /* A record of the .cu keeps its own name in the C copy (an unnamed one its typedef's); one
     from a header is named as the header lets C name it: by its typedef, else `struct S`; the
     toolkit's C headers declare no typedefs for C (`struct cudaExtent`). */
  record->toolkit_header = cx_in_system_header(decl);
  if (defined_here) {
    record->c_name = cubind_xstrdup(name[0] && !clang_Cursor_isAnonymous(decl) ? name : alias);
    if (alias && strcmp(alias, record->c_name) != 0)
      record->alias = cubind_xstrdup(alias);
  }
  else if (alias && !record->toolkit_header)
    record->c_name = cubind_xstrdup(alias);
  else
    record->c_name = cubind_xasprintf("%s %s", what, name);
  record->display_name = display;
  display = NULL;
  record->is_union = is_union;
  record->defined_here = defined_here;
  record->header = header;
  header = NULL;
  parse_location(ctx, decl, &record->location);
  record->size = (unsigned long long)clang_Type_getSizeOf(canonical);
  record->align = (unsigned long long)clang_Type_getAlignOf(canonical);
  record->fields = walk.fields;
  record->num_fields = walk.count;
  record->needs = walk.needs;
  mapped->spelling = cubind_xstrdup(record->c_name);
  *index = (long)(model->num_structs - 1);
done:
  if (*index >= 0)
    mapped->needs |= model->structs[*index].needs;
  free(usr);
  free(display);
  free(name);
  free(alias);
  free(header);
}

/* parse_struct: see parse_structs.h. */
void parse_struct(parse_context *ctx, CXType written, c_type *mapped, long *index) {
  parse_struct_at(ctx, written, mapped, index, 0, NULL);
}
