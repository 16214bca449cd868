/* parse_types.c: C++ types -> C spellings (see parse_types.h). */
#include "parse_types.h"

#include <stdlib.h>
#include <string.h>

#include "clang_util.h"
#include "model.h"
#include "util.h"

/* c_type_free: see parse_types.h. */
void c_type_free(c_type *mapped) {
  free(mapped->spelling);
  free(mapped->unsupported);
  mapped->spelling = mapped->unsupported = NULL;
}

/* Spells a builtin scalar type for C; NULL when C has no equal type. */
static const char *builtin_spelling(enum CXTypeKind kind, unsigned *needs) {
  switch (kind) {
  case CXType_Bool:
    *needs |= CUBIND_NEEDS_STDBOOL;
    return "bool";
  case CXType_Char_U:
  case CXType_Char_S:
    return "char";
  case CXType_SChar:
    return "signed char";
  case CXType_UChar:
    return "unsigned char";
  case CXType_Short:
    return "short";
  case CXType_UShort:
    return "unsigned short";
  case CXType_Int:
    return "int";
  case CXType_UInt:
    return "unsigned int";
  case CXType_Long:
    return "long";
  case CXType_ULong:
    return "unsigned long";
  case CXType_LongLong:
    return "long long";
  case CXType_ULongLong:
    return "unsigned long long";
  case CXType_Float:
    return "float";
  case CXType_Double:
    return "double";
  case CXType_WChar: /* <stddef.h>'s in C: 4 bytes, signed, on the Linux targets, as in C++ */
    return "wchar_t";
  case CXType_Char16: /* C11's <uchar.h> names these so; C99 has only the stdint types */
    *needs |= CUBIND_NEEDS_STDINT;
    return "uint_least16_t";
  case CXType_Char32:
    *needs |= CUBIND_NEEDS_STDINT;
    return "uint_least32_t";
  default:
    return NULL;
  }
}

/*
 * The C typedef names kept as written, with the type each names on the LP64 targets cubind
 * supports (Linux x86-64 and aarch64). A typedef of that name is kept only when the .cu's type
 * is that type: a user's own `int32_t` that is something else is spelled by what it is.
 */
static const struct {
  const char *name;
  enum CXTypeKind kind;
  int from_stdint; /* needs <stdint.h>; the others come with <stddef.h> */
} c_typedefs[] = {
    {"int8_t", CXType_SChar, 1},     {"int16_t", CXType_Short, 1},
    {"int32_t", CXType_Int, 1},      {"int64_t", CXType_Long, 1},
    {"uint8_t", CXType_UChar, 1},    {"uint16_t", CXType_UShort, 1},
    {"uint32_t", CXType_UInt, 1},    {"uint64_t", CXType_ULong, 1},
    {"intptr_t", CXType_Long, 1},    {"uintptr_t", CXType_ULong, 1},
    {"size_t", CXType_ULong, 0},     {"ptrdiff_t", CXType_Long, 0}};

/* The C typedef `typedef_type` (a Typedef type) stands for, or -1. */
static int c_typedef_index(CXType typedef_type) {
  CXCursor decl = clang_getTypeDeclaration(typedef_type);
  CXCursor parent = clang_getCursorSemanticParent(decl);
  enum CXTypeKind kind = clang_getCanonicalType(typedef_type).kind;
  char *name = cx_spelling(decl), *scope = NULL;
  size_t i;
  int found = -1;
  /* at global scope, or std:: (cstdint), as the C headers declare them */
  if (clang_getCursorKind(parent) == CXCursor_Namespace)
    scope = cx_spelling(parent);
  if (!scope || strcmp(scope, "std") == 0)
    for (i = 0; i < sizeof c_typedefs / sizeof c_typedefs[0]; i++)
      if (strcmp(name, c_typedefs[i].name) == 0 && kind == c_typedefs[i].kind)
        found = (int)i;
  free(scope);
  free(name);
  return found;
}

/* CUDA's vector types (vector_types.h): char1 ... ulonglong4, float1 ... double4_32a. */
static int is_vector_type_name(const char *name) {
  static const char *const bases[] = {"char",     "uchar",     "short", "ushort",
                                      "int",      "uint",      "long",  "ulong",
                                      "longlong", "ulonglong", "float", "double"};
  size_t i;
  for (i = 0; i < sizeof bases / sizeof bases[0]; i++) {
    size_t length = strlen(bases[i]);
    const char *rest = name + length;
    if (strncmp(name, bases[i], length) != 0 || rest[0] < '1' || rest[0] > '4')
      continue;
    if (rest[1] == '\0' || strcmp(rest + 1, "_16a") == 0 || strcmp(rest + 1, "_32a") == 0)
      return 1;
  }
  return 0;
}

/*
 * The C spelling of a toolkit value type (__half -> cubind_half, __nv_bfloat16 ->
 * cubind_bfloat16, __half2 -> cubind_half2, __nv_fp8_e4m3 -> cubind_fp8, float4 -> float4),
 * or NULL when `decl` (named `name`) is none. Recognised by
 * name at global scope, not by the header it came from: a plain -I to the toolkit's include
 * directory makes its headers user headers (seen in CI), and the names are safe to trust,
 * since __half and __nv_bfloat16 are reserved identifiers and vector_types.h precedes every
 * CUDA file, so no user type can take them at global scope.
 */
static const char *toolkit_type_spelling(CXCursor decl, const char *name, unsigned *needs) {
  if (!cx_at_file_scope(decl))
    return NULL;
  /* the _raw structs hold the same bits, and C sees them only as anonymous typedefs */
  if (strcmp(name, "__half") == 0 || strcmp(name, "__half_raw") == 0)
    return "cubind_half";
  if (strcmp(name, "__nv_bfloat16") == 0 || strcmp(name, "__nv_bfloat16_raw") == 0)
    return "cubind_bfloat16";
  /* 4-byte pairs with user-provided copy constructors in C++, plain 4-byte values to the
     launch (cubind.h spells them with the device's size and alignment) */
  if (strcmp(name, "__half2") == 0 || strcmp(name, "__half2_raw") == 0)
    return "cubind_half2";
  if (strcmp(name, "__nv_bfloat162") == 0 || strcmp(name, "__nv_bfloat162_raw") == 0)
    return "cubind_bfloat162";
  /* cuda_fp8.h's classes (C++ only): their bits, 1, 2 or 4 bytes */
  if (strncmp(name, "__nv_fp8", 8) == 0) {
    static const char *const formats[] = {"_e4m3", "_e5m2", "_e8m0"};
    static const char *const widths[][2] = {
        {"", "cubind_fp8"}, {"x2", "cubind_fp8x2"}, {"x4", "cubind_fp8x4"}};
    size_t w, f;
    for (w = 0; w < 3; w++)
      for (f = 0; f < 3; f++) {
        size_t length = strlen(widths[w][0]);
        if (strncmp(name + 8, widths[w][0], length) == 0 &&
            strcmp(name + 8 + length, formats[f]) == 0)
          return widths[w][1];
      }
  }
  if (is_vector_type_name(name)) {
    /* CUDA 13 deprecates the 4-vectors of 8-byte fields for the explicit double4_16a and
       double4_32a: the one of the same layout keeps a -Werror build of the stubs quiet */
    static const char *const renamed[][2] = {{"double4", "double4_16a"},
                                             {"long4", "long4_16a"},
                                             {"ulong4", "ulong4_16a"},
                                             {"longlong4", "longlong4_16a"},
                                             {"ulonglong4", "ulonglong4_16a"}};
    size_t i;
    *needs |= CUBIND_NEEDS_VECTOR_TYPES;
    if (clang_getCursorAvailability(decl) == CXAvailability_Deprecated)
      for (i = 0; i < sizeof renamed / sizeof renamed[0]; i++)
        if (strcmp(name, renamed[i][0]) == 0)
          return renamed[i][1];
    return name;
  }
  return NULL;
}

/* Visitor state for record_is_trivially_copyable(). */
typedef struct copy_check {
  int trivial;
  int depth;
} copy_check;

static int record_is_trivially_copyable(CXCursor record, int depth);

static enum CXChildVisitResult copy_check_visit(CXCursor cursor, CXCursor parent,
                                                CXClientData data) {
  copy_check *check = data;
  enum CXCursorKind kind = clang_getCursorKind(cursor);
  (void)parent;
  if ((kind == CXCursor_Constructor &&
       (clang_CXXConstructor_isCopyConstructor(cursor) ||
        clang_CXXConstructor_isMoveConstructor(cursor)) &&
       !clang_CXXMethod_isDefaulted(cursor)) ||
      (kind == CXCursor_Destructor && !clang_CXXMethod_isDefaulted(cursor)) ||
      (kind == CXCursor_CXXMethod && clang_CXXMethod_isVirtual(cursor)) ||
      (kind == CXCursor_CXXBaseSpecifier && clang_isVirtualBase(cursor))) {
    check->trivial = 0;
  } else if (kind == CXCursor_CXXBaseSpecifier || kind == CXCursor_FieldDecl) {
    CXType type = clang_getCanonicalType(clang_getCursorType(cursor));
    while (type.kind == CXType_ConstantArray)
      type = clang_getCanonicalType(clang_getArrayElementType(type));
    CXCursor decl = clang_getTypeDeclaration(type);
    char *name = cx_spelling(decl);
    unsigned needs = 0;
    /* a toolkit value (__half2 has a user-provided copy constructor) is its bits in C */
    if (type.kind == CXType_Record && !toolkit_type_spelling(decl, name, &needs) &&
        !record_is_trivially_copyable(decl, check->depth + 1))
      check->trivial = 0;
    free(name);
  }
  return check->trivial ? CXChildVisit_Continue : CXChildVisit_Break;
}

/*
 * Whether a C caller may copy the record's bytes: no user-provided copy/move constructor or
 * destructor, no virtual functions or bases, and the same for every base and field.
 */
static int record_is_trivially_copyable(CXCursor record, int depth) {
  copy_check check;
  check.trivial = 1;
  check.depth = depth;
  if (depth > 64) /* deeper than any real type; stops a malformed input from recursing forever */
    return 1;
  clang_visitChildren(record, copy_check_visit, &check);
  return check.trivial;
}

/* Visitor state for record_is_empty(). */
typedef struct empty_check {
  int empty;
  int depth;
} empty_check;

static int record_is_empty(CXCursor record, int depth);

static enum CXChildVisitResult empty_check_visit(CXCursor cursor, CXCursor parent,
                                                 CXClientData data) {
  empty_check *check = data;
  enum CXCursorKind kind = clang_getCursorKind(cursor);
  (void)parent;
  if (kind == CXCursor_FieldDecl ||
      (kind == CXCursor_CXXMethod && clang_CXXMethod_isVirtual(cursor)) ||
      (kind == CXCursor_CXXBaseSpecifier &&
       (clang_isVirtualBase(cursor) ||
        !record_is_empty(clang_getTypeDeclaration(clang_getCanonicalType(
                             clang_getCursorType(cursor))),
                         check->depth + 1))))
    check->empty = 0;
  return check->empty ? CXChildVisit_Continue : CXChildVisit_Break;
}

/* An empty class: no fields, no virtual functions, only empty bases (C++ makes it 1 byte). */
static int record_is_empty(CXCursor record, int depth) {
  empty_check check;
  check.empty = 1;
  check.depth = depth;
  if (depth > 64)
    return 0;
  clang_visitChildren(record, empty_check_visit, &check);
  return check.empty;
}

/* map_value_type: see parse_types.h. */
void map_value_type(CXType type, c_type *out) {
  CXType canonical;
  const char *builtin;
  int depth;
  for (depth = 0; depth < 8; depth++) { /* enums of enums: bounded */
    type = cx_strip_elaborated(type);
    while (type.kind == CXType_Typedef) {
      int index = c_typedef_index(type);
      if (index >= 0) {
        out->spelling = cubind_xstrdup(c_typedefs[index].name);
        out->needs |= c_typedefs[index].from_stdint ? CUBIND_NEEDS_STDINT : 0;
        out->is_scalar = 1;
        return;
      }
      type = cx_strip_elaborated(clang_getTypedefDeclUnderlyingType(clang_getTypeDeclaration(type)));
    }
    canonical = clang_getCanonicalType(type);
    if (canonical.kind != CXType_Enum)
      break;
    type = clang_getEnumDeclIntegerType(clang_getTypeDeclaration(canonical));
  }
  builtin = builtin_spelling(canonical.kind, &out->needs);
  if (builtin) {
    out->spelling = cubind_xstrdup(builtin);
    out->is_scalar = 1;
    return;
  }
  switch (canonical.kind) {
  case CXType_LongDouble:
    out->unsupported = cubind_xstrdup("long double is not supported: its size differs between "
                                      "the device (8 bytes) and the host (16 bytes)");
    return;
  case CXType_Record: {
    CXCursor decl = clang_getTypeDeclaration(canonical);
    char *name = cx_spelling(decl);
    char *spelled = cx_type_spelling(type);
    const char *toolkit = toolkit_type_spelling(decl, name, &out->needs);
    if (toolkit) {
      out->spelling = cubind_xstrdup(toolkit);
    } else if (clang_Type_getSizeOf(canonical) == 1 && record_is_empty(decl, 0)) {
      out->is_empty = 1;
    } else if (!record_is_trivially_copyable(decl, 0)) {
      out->unsupported = cubind_xasprintf(
          "type '%s' is not trivially copyable (it has a user-provided copy or move constructor "
          "or destructor, or virtual functions): a C caller cannot pass it",
          spelled);
    } else {
      out->is_record = 1;
      out->record = decl;
    }
    free(name);
    free(spelled);
    return;
  }
  case CXType_LValueReference:
  case CXType_RValueReference: {
    char *spelled = cx_type_spelling(type);
    out->unsupported = cubind_xasprintf(
        "reference type '%s' cannot be passed from C: take the parameter by value or by pointer",
        spelled);
    free(spelled);
    return;
  }
  default: {
    char *spelled = cx_type_spelling(type), *canonical_spelling = cx_type_spelling(canonical);
    const char *bare = canonical_spelling; /* a pointee keeps its qualifiers: const char8_t */
    while (strncmp(bare, "const ", 6) == 0 || strncmp(bare, "volatile ", 9) == 0)
      bare = strchr(bare, ' ') + 1;
    if (strcmp(bare, "char8_t") == 0) { /* libclang has no kind for C++20's */
      out->spelling = cubind_xstrdup("unsigned char"); /* C23's char8_t */
      out->is_scalar = 1;
    } else
      out->unsupported = cubind_xasprintf("type '%s' cannot be passed from C", spelled);
    free(canonical_spelling);
    free(spelled);
    return;
  }
  }
}

/* Appends "const " / "volatile " for the qualifiers of `type` (looked up on its canonical form,
   so that qualifiers hidden in typedefs count too). */
enum { QUALIFIED_CONST = 1, QUALIFIED_VOLATILE = 2 };

/* The qualifiers of an array type itself, which a typedef of an array carries (`const Arr3`,
   Arr3 an int[3]: not on the stripped element); C puts them on the elements. */
static unsigned array_qualifiers(CXType array) {
  CXType canonical = clang_getCanonicalType(array);
  return (clang_isConstQualifiedType(array) || clang_isConstQualifiedType(canonical)
              ? QUALIFIED_CONST
              : 0) |
         (clang_isVolatileQualifiedType(array) || clang_isVolatileQualifiedType(canonical)
              ? QUALIFIED_VOLATILE
              : 0);
}

/* Appends the type's qualifiers and the `extra` ones (QUALIFIED_*), as C spells them first. */
static void append_qualifiers(cubind_buf *buf, CXType type, unsigned extra) {
  CXType canonical = clang_getCanonicalType(type);
  if (clang_isConstQualifiedType(canonical) || (extra & QUALIFIED_CONST))
    cubind_buf_puts(buf, "const ");
  if (clang_isVolatileQualifiedType(canonical) || (extra & QUALIFIED_VOLATILE))
    cubind_buf_puts(buf, "volatile ");
}

/* Below: spell_array_pointer spells arrays of pointers with it. */
static void map_pointer_at(CXType pointer, c_type *out, char **elem_type,
                           unsigned long long *elem_size, int top_level, int depth);

/*
 * A pointer to fixed-size arrays, what a `float a[N][16]` parameter is (`float (*)[16]`),
 * spelled as C declares it: "const float (*)[16]" (the stubs put the name after "(*"); arrays
 * of pointers too, `float *const p[][3]` being "float *const (*)[3]".
 * 1 when spelled into `buf`; 0 when the innermost element has no C name (a struct), `buf`
 * then holding "void" with its qualifiers, for an opaque pointer; -1 when C cannot pass it,
 * out->unsupported saying why.
 */
static int spell_array_pointer(CXType array, unsigned outer, cubind_buf *buf, c_type *out) {
  cubind_buf dims = {0};
  c_type value = {0};
  /* C qualifies the elements: the array's own qualifiers count too (array_qualifiers) */
  CXType element, canonical;
  unsigned qualifiers_of_array = array_qualifiers(array) | outer;
  int is_const = (qualifiers_of_array & QUALIFIED_CONST) != 0;
  int is_volatile = (qualifiers_of_array & QUALIFIED_VOLATILE) != 0;
  int result;
  cubind_buf qualifiers = {0};
  cubind_buf_puts(&dims, "");
  for (element = cx_strip_sugar(array); element.kind == CXType_ConstantArray;
       element = cx_strip_sugar(clang_getArrayElementType(element)))
    cubind_buf_printf(&dims, "[%lld]", clang_getArraySize(element));
  canonical = clang_getCanonicalType(element);
  if (element.kind == CXType_Pointer) {
    /* the elements are pointers, which the array's qualifiers qualify (after the '*') */
    char *inner_elem;
    unsigned long long inner_size;
    map_pointer_at(element, &value, &inner_elem, &inner_size, 0, 1);
    free(inner_elem);
    if (value.spelling) {
      cubind_buf_puts(buf, value.spelling);
      if (is_const && !clang_isConstQualifiedType(canonical))
        cubind_buf_puts(buf, buf->data[buf->length - 1] == '*' ? "const" : " const");
      if (is_volatile && !clang_isVolatileQualifiedType(canonical))
        cubind_buf_puts(buf, buf->data[buf->length - 1] == '*' ? "volatile" : " volatile");
      cubind_buf_printf(buf, "%s(*)%s", buf->data[buf->length - 1] == '*' ? "" : " ", dims.data);
      out->needs |= value.needs;
      result = 1;
    } else {
      out->unsupported = value.unsupported;
      value.unsupported = NULL;
      result = -1;
    }
    c_type_free(&value);
    cubind_buf_free(&dims);
    return result;
  }
  is_const = is_const || clang_isConstQualifiedType(canonical);
  is_volatile = is_volatile || clang_isVolatileQualifiedType(canonical);
  cubind_buf_printf(&qualifiers, "%s%s", is_const ? "const " : "", is_volatile ? "volatile " : "");
  map_value_type(element, &value);
  if (value.spelling) {
    cubind_buf_puts(buf, qualifiers.data);
    cubind_buf_printf(buf, "%s (*)%s", value.spelling, dims.data);
    out->needs |= value.needs;
    result = 1;
  } else if (value.is_record || value.is_empty) {
    cubind_buf_puts(buf, qualifiers.data);
    cubind_buf_puts(buf, "void");
    result = 0;
  } else {
    out->unsupported = value.unsupported;
    value.unsupported = NULL;
    result = -1;
  }
  c_type_free(&value);
  cubind_buf_free(&dims);
  cubind_buf_free(&qualifiers);
  return result;
}

/* map_pointer_type at a nesting depth (bounded against malformed input). */
static void map_pointer_at(CXType pointer, c_type *out, char **elem_type,
                           unsigned long long *elem_size, int top_level, int depth) {
  CXType pointee = clang_getPointeeType(cx_strip_sugar(pointer));
  CXType bare = cx_strip_sugar(pointee);
  CXType canonical = clang_getCanonicalType(pointee);
  cubind_buf buf = {0};
  long long size = clang_Type_getSizeOf(pointee);
  *elem_type = NULL;
  *elem_size = size > 0 ? (unsigned long long)size : 0;
  if (depth > 16) {
    out->unsupported = cubind_xstrdup("pointer nesting too deep");
    return;
  }
  if (top_level && depth == 0 && canonical.kind == CXType_ConstantArray) {
    int spelled = spell_array_pointer(pointee, 0, &buf, out);
    if (spelled < 0)
      return;
    if (spelled > 0) { /* restrict left out: only a promise, and C would spell it inside (*) */
      out->spelling = buf.data;
      return;
    }
  } else if (bare.kind == CXType_Pointer) {
    c_type inner = {0};
    char *inner_elem;
    unsigned long long inner_size;
    map_pointer_at(pointee, &inner, &inner_elem, &inner_size, 0, depth + 1);
    free(inner_elem);
    if (!inner.spelling) {
      out->unsupported = inner.unsupported;
      return;
    }
    out->opaque = inner.opaque;
    if (top_level && inner.opaque) { /* `Node **`: C converts it to `void *`, not `void **` */
      append_qualifiers(&buf, pointee, 0);
      cubind_buf_puts(&buf, "void");
    } else {
      cubind_buf_puts(&buf, inner.spelling);
    }
    *elem_type = inner.spelling;
    out->needs |= inner.needs;
  } else if (canonical.kind == CXType_Void) {
    append_qualifiers(&buf, pointee, 0);
    cubind_buf_puts(&buf, "void");
    *elem_size = 1;
  } else if (canonical.kind == CXType_FunctionProto || canonical.kind == CXType_FunctionNoProto) {
    /* a device function's address (read from a __device__ variable that holds one): C passes
       it on and never calls it */
    cubind_buf_puts(&buf, "void");
    *elem_size = 0;
  } else if (canonical.kind == CXType_LongDouble || canonical.kind == CXType_MemberPointer) {
    char *spelled = cx_type_spelling(pointer);
    out->unsupported = cubind_xasprintf(canonical.kind == CXType_LongDouble
                                            ? "'%s' is not supported: long double differs "
                                              "between the device (8 bytes) and the host"
                                            : "pointer type '%s' cannot be passed from C",
                                        spelled);
    free(spelled);
    return;
  } else {
    c_type value = {0};
    map_value_type(pointee, &value);
    append_qualifiers(&buf, pointee, 0);
    if (value.spelling) {
      cubind_buf_puts(&buf, value.spelling);
      *elem_type = value.spelling; /* unqualified: sizeof(float), not sizeof(const float) */
      out->needs |= value.needs;
    } else {
      /* Structs, classes and types C has no name for: C sees an opaque buffer of
         elem_size-byte elements. */
      cubind_buf_puts(&buf, "void");
      out->opaque = 1;
      free(value.unsupported);
    }
  }
  cubind_buf_puts(&buf, buf.data[buf.length - 1] == '*' ? "*" : " *");
  {
    CXType self = clang_getCanonicalType(pointer);
    /* an inner pointer's qualifiers are part of the type a caller passes (`int *volatile *`);
       the parameter's own are the callee's business */
    if (!top_level && clang_isConstQualifiedType(self))
      cubind_buf_puts(&buf, "const");
    if (!top_level && clang_isVolatileQualifiedType(self))
      cubind_buf_puts(&buf, buf.data[buf.length - 1] == '*' ? "volatile" : " volatile");
    if (clang_isRestrictQualifiedType(self))
      cubind_buf_puts(&buf,
                      buf.data[buf.length - 1] == '*' ? "CUBIND_RESTRICT" : " CUBIND_RESTRICT");
  }
  out->spelling = buf.data;
}

/* map_array_param: see parse_types.h. */
void map_array_param(CXType array, c_type *out, char **elem_type, unsigned long long *elem_size) {
  CXType element = clang_getArrayElementType(cx_strip_sugar(array));
  /* a typedef of an array carries its qualifiers on the array (`const vec8 a`, vec8 a
     float[8]), which C puts on the elements */
  unsigned outer = array_qualifiers(array);
  c_type value = {0};
  cubind_buf buf = {0};
  long long size = clang_Type_getSizeOf(element);
  *elem_type = NULL;
  *elem_size = size > 0 ? (unsigned long long)size : 0;
  if (cx_strip_sugar(element).kind == CXType_ConstantArray) { /* float a[][16]: float (*)[16] */
    int spelled = spell_array_pointer(element, outer, &buf, out);
    if (spelled == 0) /* arrays of structs: an opaque buffer */
      cubind_buf_puts(&buf, " *");
    if (spelled >= 0)
      out->spelling = buf.data;
    else
      cubind_buf_free(&buf);
    return;
  }
  if (cx_strip_sugar(element).kind == CXType_Pointer) { /* int *p[]: int **p, as C reads it */
    char *inner_elem;
    unsigned long long inner_size;
    map_pointer_at(element, &value, &inner_elem, &inner_size, 0, 1);
    free(inner_elem);
    if (!value.spelling) {
      out->unsupported = value.unsupported;
      return;
    }
    out->opaque = value.opaque;
    if (value.opaque) { /* `Node *rows[]`: `void *`, as for `Node **` (map_pointer_type) */
      append_qualifiers(&buf, element, outer & QUALIFIED_CONST);
      cubind_buf_puts(&buf, "void");
    } else {
      cubind_buf_puts(&buf, value.spelling);
      /* a typedef of an array of pointers (`const fptrs p`): C qualifies the pointers */
      if ((outer & QUALIFIED_CONST) &&
          !clang_isConstQualifiedType(clang_getCanonicalType(element)))
        cubind_buf_puts(&buf, buf.data[buf.length - 1] == '*' ? "const" : " const");
    }
    *elem_type = value.spelling;
    out->needs |= value.needs;
    cubind_buf_puts(&buf, buf.data[buf.length - 1] == '*' ? "*" : " *");
    out->spelling = buf.data;
    return;
  }
  map_value_type(element, &value);
  append_qualifiers(&buf, element, outer);
  if (value.spelling) {
    cubind_buf_puts(&buf, value.spelling);
    *elem_type = value.spelling; /* unqualified, as for pointers */
    out->needs |= value.needs;
  } else if (value.is_record || value.is_empty) {
    cubind_buf_puts(&buf, "void"); /* an opaque buffer of elem_size-byte elements */
  } else {
    out->unsupported = value.unsupported;
    cubind_buf_free(&buf);
    return;
  }
  free(value.unsupported);
  cubind_buf_puts(&buf, " *");
  out->spelling = buf.data;
}

/* map_pointer_type: see parse_types.h. */
void map_pointer_type(CXType pointer, c_type *out, char **elem_type,
                      unsigned long long *elem_size, int top_level) {
  map_pointer_at(pointer, out, elem_type, elem_size, top_level, 0);
}
