/*
 * parse_clang.c: the libclang layer. Parses a .cu file as CUDA device code (the recipe in
 * shared/notes/libclang-cuda.md), passes clang's errors in the user's files through, and turns
 * every __global__ function of the main file into the plain model of model.h.
 *
 * Template kernels reached through a wrapper translation unit (explicit instantiations, and the
 * kernels of nvcc's binary) are in parse_wrapper.c. Only these two files see libclang.
 */
#include "parse.h"
#include "parse_internal.h"

#include <clang-c/Index.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* take_string: see parse_internal.h. */
char *take_string(CXString text) {
  const char *chars = clang_getCString(text);
  char *copy = cubind_xstrdup(chars ? chars : "");
  clang_disposeString(text);
  return copy;
}

/* cubind_libclang_version: see parse.h. */
char *cubind_libclang_version(void) { return take_string(clang_getClangVersion()); }

/* The major version of the libclang we run against, from "... clang version 19.1.7 ...". */
static int libclang_major(void) {
  char *version = cubind_libclang_version();
  const char *at = strstr(version, "version ");
  int major = at ? atoi(at + 8) : 0;
  free(version);
  return major;
}

/* ---- The shim directory: headers CUDA 13 removed but clang's CUDA wrapper still includes -- */

static int write_text_file(const char *path, const char *text) {
  FILE *file = fopen(path, "w");
  int ok;
  if (!file)
    return 0;
  ok = fputs(text, file) >= 0;
  return fclose(file) == 0 && ok;
}

/* Clang < 16's texture intrinsics name a `texture` template that CUDA 13 no longer declares. */
static const char texture_shim[] =
    "#include_next <cuda_runtime.h>\n"
    "template <class T, int dim, enum cudaTextureReadMode mode> struct texture {};\n";

/* Writes a file through a temporary name and a rename, so concurrent runs never see half of it. */
static int write_file_atomically(const char *path, const char *text) {
  char *temp = cubind_xasprintf("%s.tmp-%ld", path, (long)getpid());
  int ok = write_text_file(temp, text) && rename(temp, path) == 0;
  if (!ok)
    unlink(temp);
  free(temp);
  return ok;
}

/* Fills dir with the shim headers (the texture shim only for libclang < 16). */
static int fill_shim_dir(const char *dir, int major) {
  char *path = cubind_xasprintf("%s/texture_fetch_functions.h", dir);
  int ok = write_file_atomically(path, "");
  free(path);
  if (ok && major < 16) {
    path = cubind_xasprintf("%s/cuda_runtime.h", dir);
    ok = write_file_atomically(path, texture_shim);
    free(path);
  }
  return ok;
}

/*
 * The shim directory: in the cache (stable, so that a precompiled prelude that names its files
 * stays valid), else a temporary directory. Returns its path (new string) and sets *temporary,
 * or returns NULL after reporting why.
 */
static char *make_shim_dir(int major, const char *cache_dir, int *temporary) {
  const char *tmp = getenv("TMPDIR");
  char *dir;
  if (cache_dir) {
    dir = cubind_xasprintf("%s/shim-clang%d", cache_dir, major);
    if ((mkdir(dir, 0777) == 0 || errno == EEXIST) && fill_shim_dir(dir, major)) {
      *temporary = 0;
      return dir;
    }
    free(dir); /* an unusable cache: work without it */
  }
  *temporary = 1;
  dir = cubind_xasprintf("%s/cubind-gen-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    cubind_diag(NULL, 0, 0, "error", "cannot create a temporary directory '%s': %s", dir,
                strerror(errno));
    free(dir);
    return NULL;
  }
  if (!fill_shim_dir(dir, major))
    cubind_diag(NULL, 0, 0, "error", "cannot write to the temporary directory '%s'", dir);
  return dir; /* removed by remove_shim_dir even when a write failed */
}

/* Removes a temporary shim directory (a cached one stays). */
static void remove_shim_dir(char *dir, int temporary) {
  char *path;
  if (!dir)
    return;
  if (temporary) {
    path = cubind_xasprintf("%s/texture_fetch_functions.h", dir);
    unlink(path);
    free(path);
    path = cubind_xasprintf("%s/cuda_runtime.h", dir);
    unlink(path);
    free(path);
    rmdir(dir);
  }
  free(dir);
}

/* ---- Locations and comments ------------------------------------------------------------- */

/* in_input_file: see parse_internal.h. */
int in_input_file(parser *p, CXCursor cursor) {
  CXFile file;
  unsigned line, column, offset;
  char *name, *real;
  int same;
  clang_getExpansionLocation(clang_getCursorLocation(cursor), &file, &line, &column, &offset);
  if (!file || !p->input_real)
    return clang_Location_isFromMainFile(clang_getCursorLocation(cursor));
  name = take_string(clang_getFileName(file));
  real = realpath(name, NULL);
  same = real && strcmp(real, p->input_real) == 0;
  free(real);
  free(name);
  return same;
}

/* cursor_location: see parse_internal.h. */
void cursor_location(parser *p, CXCursor cursor, cubind_location *location) {
  CXFile file;
  unsigned line, column, offset;
  clang_getExpansionLocation(clang_getCursorLocation(cursor), &file, &line, &column, &offset);
  location->file = file ? take_string(clang_getFileName(file)) : cubind_xstrdup(p->input);
  location->line = line;
  location->column = column;
}

/*
 * The doc comment as written, with continuation lines re-indented to column 0 (" * text"), so
 * it reads well in the generated header whatever the kernel's indentation was. NULL if none.
 */
static char *doc_comment(CXCursor cursor) {
  char *raw = take_string(clang_Cursor_getRawCommentText(cursor));
  cubind_buf out = {0};
  const char *line = raw;
  int first = 1;
  if (!raw[0]) {
    free(raw);
    return NULL;
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
    while (length && (line[length - 1] == ' ' || line[length - 1] == '\t' ||
                      line[length - 1] == '\r'))
      length--;
    cubind_buf_append(&out, line, length);
    first = 0;
    line = end ? end + 1 : line + strlen(line);
  }
  free(raw);
  return out.data;
}

/* ---- Types ------------------------------------------------------------------------------ */

/* Libclang 16+ wraps most named types in an Elaborated node; 14 does not. Strip it. */
static CXType strip_elaborated(CXType type) {
  while (type.kind == CXType_Elaborated)
    type = clang_Type_getNamedType(type);
  return type;
}

/* C typedef names kept as written (they name the same type in C and in device code). */
static const char *const c_typedefs[] = {
    "int8_t",   "int16_t",   "int32_t",  "int64_t",   "uint8_t", "uint16_t",
    "uint32_t", "uint64_t",  "intptr_t", "uintptr_t", "size_t",  "ptrdiff_t"};

static int is_c_typedef(const char *name) {
  size_t i;
  for (i = 0; i < sizeof c_typedefs / sizeof c_typedefs[0]; i++)
    if (strcmp(name, c_typedefs[i]) == 0)
      return 1;
  return 0;
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

static int in_system_header(CXCursor cursor) {
  return clang_Location_isInSystemHeader(clang_getCursorLocation(cursor));
}

/*
 * The C spelling of a toolkit value type (__half -> cubind_half, __nv_bfloat16 ->
 * cubind_bfloat16, float4 -> float4), or NULL when `decl` (named `name`) is none. Recognised by
 * name at global scope, not by the header it came from: a plain -I to the toolkit's include
 * directory makes its headers user headers (seen in CI), and the names are safe to trust,
 * since __half and __nv_bfloat16 are reserved identifiers and vector_types.h precedes every
 * CUDA file, so no user type can take them at global scope.
 */
static const char *toolkit_type_spelling(CXCursor decl, const char *name, unsigned *needs) {
  CXCursor parent = clang_getCursorSemanticParent(decl);
  if (!clang_isTranslationUnit(clang_getCursorKind(parent)) &&
      clang_getCursorKind(parent) != CXCursor_LinkageSpec)
    return NULL;
  if (strcmp(name, "__half") == 0)
    return "cubind_half";
  if (strcmp(name, "__nv_bfloat16") == 0)
    return "cubind_bfloat16";
  if (is_vector_type_name(name)) {
    *needs |= CUBIND_NEEDS_VECTOR_TYPES;
    return name;
  }
  return NULL;
}

/* Visitor state for trivially_copyable(). */
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
    if (type.kind == CXType_Record &&
        !record_is_trivially_copyable(clang_getTypeDeclaration(type), check->depth + 1))
      check->trivial = 0;
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

/* What mapping one C++ type to C found. */
typedef struct c_type {
  char *spelling;    /* NULL when unsupported */
  char *unsupported; /* why not, when spelling is NULL */
  int is_scalar;
  unsigned needs;
} c_type;

/* type_spelling: see parse_internal.h. */
char *type_spelling(CXType type) { return take_string(clang_getTypeSpelling(type)); }

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
  default:
    return NULL;
  }
}

static void map_pointer_type(CXType pointer, c_type *out, char **elem_type,
                             unsigned long long *elem_size, int top_level, int depth);
static void register_record(parser *p, CXType type, CXCursor decl, c_type *out, int depth);

/*
 * Maps a value (non-pointer) type to C, ignoring its top-level qualifiers. Structs and unions
 * are recorded in the model (register_record) when p is not NULL; with p NULL they are
 * unsupported (a pointee: C sees void).
 */
static void map_value_type(parser *p, CXType type, c_type *out, int depth) {
  CXType canonical, written = type;
  const char *builtin;
  type = strip_elaborated(type);
  while (type.kind == CXType_Typedef) {
    CXCursor decl = clang_getTypeDeclaration(type);
    char *name = take_string(clang_getCursorSpelling(decl));
    if (is_c_typedef(name) && builtin_spelling(clang_getCanonicalType(type).kind, &out->needs)) {
      if (strcmp(name, "size_t") != 0 && strcmp(name, "ptrdiff_t") != 0)
        out->needs |= CUBIND_NEEDS_STDINT;
      out->spelling = name;
      out->is_scalar = 1;
      return;
    }
    free(name);
    type = strip_elaborated(clang_getTypedefDeclUnderlyingType(decl));
  }
  canonical = clang_getCanonicalType(type);
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
  case CXType_Enum:
    if (depth < 4) {
      map_value_type(p, clang_getEnumDeclIntegerType(clang_getTypeDeclaration(canonical)), out,
                     depth + 1);
      return;
    }
    break;
  case CXType_Record: {
    CXCursor decl = clang_getTypeDeclaration(canonical);
    char *name = take_string(clang_getCursorSpelling(decl));
    char *spelled = type_spelling(type);
    const char *toolkit = toolkit_type_spelling(decl, name, &out->needs);
    if (toolkit) {
      out->spelling = cubind_xstrdup(toolkit);
    } else if (!record_is_trivially_copyable(decl, 0)) {
      out->unsupported = cubind_xasprintf(
          "type '%s' is not trivially copyable (it has a user-provided copy or move constructor "
          "or destructor, or virtual functions): a C caller cannot pass it",
          spelled);
    } else if (!p) {
      out->unsupported = cubind_xasprintf("type '%s' is a struct", spelled);
    } else {
      register_record(p, written, decl, out, depth);
    }
    free(name);
    free(spelled);
    return;
  }
  case CXType_LValueReference:
  case CXType_RValueReference: {
    char *spelled = type_spelling(type);
    out->unsupported = cubind_xasprintf(
        "reference type '%s' cannot be passed from C: take the parameter by value or by pointer",
        spelled);
    free(spelled);
    return;
  }
  default:
    break;
  }
  {
    char *spelled = type_spelling(type);
    out->unsupported = cubind_xasprintf("type '%s' cannot be passed from C", spelled);
    free(spelled);
  }
}

/* Appends "const " / "volatile " for the qualifiers of `type` (looked up on its canonical form,
   so that qualifiers hidden in typedefs count too). */
static void append_qualifiers(cubind_buf *buf, CXType type) {
  CXType canonical = clang_getCanonicalType(type);
  if (clang_isConstQualifiedType(canonical))
    cubind_buf_puts(buf, "const ");
  if (clang_isVolatileQualifiedType(canonical))
    cubind_buf_puts(buf, "volatile ");
}

/*
 * Unwraps typedefs and Elaborated nodes until something that is not sugar. Types libclang does
 * not expose (a substituted template parameter: T = float * in a specialisation) become their
 * canonical type.
 */
static CXType strip_sugar(CXType type) {
  type = strip_elaborated(type);
  while (type.kind == CXType_Typedef)
    type = strip_elaborated(clang_getTypedefDeclUnderlyingType(clang_getTypeDeclaration(type)));
  return type.kind == CXType_Unexposed ? clang_getCanonicalType(type) : type;
}

/*
 * Maps a pointer type to C: "const float *", "float *const *", "void *CUBIND_RESTRICT".
 * top_level: the parameter itself, whose own `const` C does not need (it would make &param a
 * pointer to const). Pointers to structs and classes become `void *` (C has no declaration of
 * them); elem_size still gives the pointee's size. elem_type is NULL for void pointees.
 */
static void map_pointer_type(CXType pointer, c_type *out, char **elem_type,
                             unsigned long long *elem_size, int top_level, int depth) {
  CXType pointee = clang_getPointeeType(strip_sugar(pointer));
  CXType bare = strip_sugar(pointee);
  CXType canonical = clang_getCanonicalType(pointee);
  cubind_buf buf = {0};
  long long size = clang_Type_getSizeOf(pointee);
  *elem_type = NULL;
  *elem_size = size > 0 ? (unsigned long long)size : 0;
  if (depth > 16) {
    out->unsupported = cubind_xstrdup("pointer nesting too deep");
    return;
  }
  if (bare.kind == CXType_Pointer) {
    c_type inner = {0};
    char *inner_elem;
    unsigned long long inner_size;
    map_pointer_type(pointee, &inner, &inner_elem, &inner_size, 0, depth + 1);
    free(inner_elem);
    if (!inner.spelling) {
      out->unsupported = inner.unsupported;
      return;
    }
    cubind_buf_puts(&buf, inner.spelling);
    *elem_type = inner.spelling;
    out->needs |= inner.needs;
  } else if (canonical.kind == CXType_Void) {
    append_qualifiers(&buf, pointee);
    cubind_buf_puts(&buf, "void");
    *elem_size = 1;
  } else if (canonical.kind == CXType_LongDouble || canonical.kind == CXType_FunctionProto ||
             canonical.kind == CXType_FunctionNoProto || canonical.kind == CXType_MemberPointer) {
    char *spelled = type_spelling(pointer);
    out->unsupported = cubind_xasprintf(canonical.kind == CXType_LongDouble
                                            ? "'%s' is not supported: long double differs "
                                              "between the device (8 bytes) and the host"
                                            : "pointer type '%s' cannot be passed from C",
                                        spelled);
    free(spelled);
    return;
  } else {
    c_type value = {0};
    map_value_type(NULL, pointee, &value, 0);
    append_qualifiers(&buf, pointee);
    if (value.spelling) {
      cubind_buf_puts(&buf, value.spelling);
      *elem_type = value.spelling; /* unqualified: sizeof(float), not sizeof(const float) */
      out->needs |= value.needs;
    } else {
      /* Structs and classes: C sees an opaque buffer of elem_size-byte elements. */
      cubind_buf_puts(&buf, "void");
      free(value.unsupported);
    }
  }
  cubind_buf_puts(&buf, buf.data[buf.length - 1] == '*' ? "*" : " *");
  {
    CXType self = clang_getCanonicalType(pointer);
    if (!top_level && clang_isConstQualifiedType(self))
      cubind_buf_puts(&buf, "const");
    if (clang_isRestrictQualifiedType(self))
      cubind_buf_puts(&buf, buf.data[buf.length - 1] == '*' ? "CUBIND_RESTRICT" : " CUBIND_RESTRICT");
  }
  out->spelling = buf.data;
}

/* ---- Structs and unions by value ------------------------------------------------------- */

/* State of one record's field walk (clang_Type_visitFields). */
typedef struct field_walk {
  parser *p;
  const char *record;  /* the record's C++ name, for messages */
  cubind_field *fields;
  size_t count;
  char *error;         /* the first problem found */
  unsigned needs;
  int depth;
} field_walk;

/* The C++ name of a record, with its namespaces ("ns::point"). */
static char *record_display_name(CXType canonical) {
  return type_spelling(canonical);
}

/* The typedef name `type` is spelled with (outermost), or NULL. */
static char *typedef_name(CXType type) {
  type = strip_elaborated(type);
  if (type.kind != CXType_Typedef)
    return NULL;
  return take_string(clang_getCursorSpelling(clang_getTypeDeclaration(type)));
}

/* "dir/" prefix test on real paths: returns the rest of path when it lies below dir. */
static const char *below_dir(const char *path, const char *dir) {
  size_t length = strlen(dir);
  if (!length || strncmp(path, dir, length) != 0)
    return NULL;
  if (dir[length - 1] == '/')
    return path + length;
  return path[length] == '/' ? path + length + 1 : NULL;
}

/*
 * How the generated header includes the header that declares `decl`: the path relative to the
 * .cu file's directory, else to the first -I directory that holds it. NULL when neither does.
 */
static char *include_spelling(parser *p, CXCursor decl) {
  CXFile file;
  unsigned line, column, offset;
  char *name, *real, *result = NULL;
  size_t i;
  clang_getExpansionLocation(clang_getCursorLocation(decl), &file, &line, &column, &offset);
  if (!file)
    return NULL;
  name = take_string(clang_getFileName(file));
  real = realpath(name, NULL);
  free(name);
  if (!real)
    return NULL;
  {
    char *input_dir = cubind_xstrdup(p->input), *slash = strrchr(input_dir, '/'), *dir_real;
    if (slash)
      *slash = '\0';
    dir_real = realpath(slash ? input_dir : ".", NULL);
    if (dir_real && below_dir(real, dir_real))
      result = cubind_xstrdup(below_dir(real, dir_real));
    free(dir_real);
    free(input_dir);
  }
  for (i = 0; !result && p->options->user_args && i < p->options->user_args->count; i++) {
    const char *arg = p->options->user_args->items[i];
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

static enum CXVisitorResult visit_field(CXCursor field, CXClientData data) {
  field_walk *walk = data;
  CXType type = clang_getCursorType(field);
  cubind_buf dims = {0};
  c_type mapped = {0};
  char *name = take_string(clang_getCursorSpelling(field));
  long long offset = clang_Cursor_getOffsetOfField(field);
  cubind_field *out;
  cubind_buf_puts(&dims, "");
  if (!name[0] || clang_Cursor_isAnonymousRecordDecl(field)) {
    walk->error = cubind_xasprintf("'%s' has an unnamed member: C cannot name it", walk->record);
  } else if (clang_Cursor_isBitField(field)) {
    walk->error = cubind_xasprintf(
        "bitfield '%s' in '%s': bitfield layout is up to each compiler, so a C caller could not "
        "be checked against the device; use whole integer fields",
        name, walk->record);
  } else if (offset < 0 || offset % 8) {
    walk->error = cubind_xasprintf("field '%s' of '%s' has no known offset", name, walk->record);
  }
  if (walk->error) {
    free(name);
    cubind_buf_free(&dims);
    return CXVisit_Break;
  }
  for (;;) {
    CXType bare = strip_sugar(type);
    if (bare.kind == CXType_ConstantArray) {
      cubind_buf_printf(&dims, "[%lld]", clang_getArraySize(bare));
      type = clang_getArrayElementType(bare);
    } else if (bare.kind == CXType_IncompleteArray || bare.kind == CXType_VariableArray ||
               bare.kind == CXType_DependentSizedArray) {
      walk->error = cubind_xasprintf("field '%s' of '%s' is an array without a fixed size", name,
                                     walk->record);
      break;
    } else {
      break;
    }
  }
  if (!walk->error) {
    if (strip_sugar(type).kind == CXType_Pointer) {
      char *elem = NULL;
      unsigned long long elem_size;
      map_pointer_type(type, &mapped, &elem, &elem_size, 0, 0);
      free(elem);
    } else {
      map_value_type(walk->p, type, &mapped, walk->depth + 1);
    }
    if (!mapped.spelling)
      walk->error = cubind_xasprintf("field '%s' of '%s': %s", name, walk->record,
                                     mapped.unsupported ? mapped.unsupported : "unknown type");
  }
  free(mapped.unsupported);
  if (walk->error) {
    free(mapped.spelling);
    free(name);
    cubind_buf_free(&dims);
    return CXVisit_Break;
  }
  walk->needs |= mapped.needs;
  walk->fields = cubind_xrealloc(walk->fields, (walk->count + 1) * sizeof *walk->fields);
  out = &walk->fields[walk->count++];
  out->name = name;
  out->offset = (unsigned long long)offset / 8;
  {
    size_t length = strlen(mapped.spelling);
    out->c_decl = cubind_xasprintf(length && mapped.spelling[length - 1] == '*' ? "%s%s%s"
                                                                                : "%s %s%s",
                                   mapped.spelling, name, dims.data);
  }
  free(mapped.spelling);
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
 * A struct or union taken by value: records it in the model (once, after the records its fields
 * use) and spells it for C. A record defined in the .cu itself gets a C definition in the
 * generated header under its own name; one from a user header is used through that header.
 * Either must be at global scope, named, trivially copyable, without bases or bitfields.
 */
static void register_record(parser *p, CXType type, CXCursor decl, c_type *out, int depth) {
  CXType canonical = clang_getCanonicalType(type);
  char *usr = take_string(clang_getCursorUSR(decl));
  char *display = record_display_name(canonical);
  char *name = take_string(clang_getCursorSpelling(decl));
  char *alias = typedef_name(type);
  char *header = NULL, *c_name = NULL;
  int defined_here = in_input_file(p, decl);
  int is_union = clang_getCursorKind(decl) == CXCursor_UnionDecl, has_base = 0;
  enum CXCursorKind parent_kind = clang_getCursorKind(clang_getCursorSemanticParent(decl));
  const char *what = is_union ? "union" : "struct";
  field_walk walk;
  size_t i;
  cubind_struct *record;
  memset(&walk, 0, sizeof walk);
  for (i = 0; i < p->model->num_structs; i++)
    if (strcmp(p->model->structs[i].usr, usr) == 0) {
      out->spelling = cubind_xstrdup(p->model->structs[i].c_name);
      goto done;
    }
  clang_visitChildren(decl, find_base, &has_base);
  if (depth > 16) {
    out->unsupported = cubind_xasprintf("%s '%s' nests too deeply", what, display);
  } else if (in_system_header(decl)) {
    out->unsupported = cubind_xasprintf(
        "type '%s' comes from a system header that C code cannot include: pass a pointer",
        display);
  } else if (parent_kind != CXCursor_LinkageSpec && !clang_isTranslationUnit(parent_kind)) {
    out->unsupported = cubind_xasprintf(
        "%s '%s' is declared inside a namespace or class, where C cannot name it: declare it at "
        "global scope (in the .cu, or in a C-compatible header both sides include)",
        what, display);
  } else if (!clang_Cursor_isNull(clang_getSpecializedCursorTemplate(decl))) {
    out->unsupported = cubind_xasprintf(
        "'%s' is a class template specialization, which C cannot name: use a plain struct", display);
  } else if (has_base) {
    out->unsupported = cubind_xasprintf(
        "%s '%s' has base classes, which C cannot declare: make it a plain struct", what,
        display);
  } else if ((!name[0] || clang_Cursor_isAnonymous(decl)) && !alias) {
    out->unsupported = cubind_xasprintf("an unnamed %s cannot be named from C: give it a name",
                                        what);
  } else if (!defined_here && !(header = include_spelling(p, decl))) {
    out->unsupported = cubind_xasprintf(
        "%s '%s' is declared in a header that lies neither below the .cu file's directory nor "
        "below an -I directory: pass that directory with -I so that the generated header can "
        "include it",
        what, display);
  }
  if (out->unsupported)
    goto done;
  if (defined_here)
    c_name = cubind_xstrdup(name[0] && !clang_Cursor_isAnonymous(decl) ? name : alias);
  else if (alias)
    c_name = cubind_xstrdup(alias);
  else
    c_name = cubind_xasprintf("%s %s", what, name);
  walk.p = p;
  walk.record = display;
  walk.depth = depth;
  clang_Type_visitFields(canonical, visit_field, &walk);
  if (walk.error) {
    out->unsupported = walk.error;
    for (i = 0; i < walk.count; i++) {
      free(walk.fields[i].name);
      free(walk.fields[i].c_decl);
    }
    free(walk.fields);
    free(c_name);
    goto done;
  }
  if (!walk.count) {
    out->unsupported = cubind_xasprintf("%s '%s' has no fields: C has no empty structs", what,
                                        display);
    free(walk.fields);
    free(c_name);
    goto done;
  }
  for (i = 0; i < p->model->num_structs; i++) /* the same C name for two different records */
    if (strcmp(p->model->structs[i].c_name, c_name) == 0) {
      out->unsupported = cubind_xasprintf("%s '%s' and '%s' would both be '%s' in C", what,
                                          display, p->model->structs[i].display_name, c_name);
      for (i = 0; i < walk.count; i++) {
        free(walk.fields[i].name);
        free(walk.fields[i].c_decl);
      }
      free(walk.fields);
      free(c_name);
      goto done;
    }
  if (header && !cubind_strlist_contains(&p->model->includes, header))
    cubind_strlist_add(&p->model->includes, header);
  record = cubind_model_add_struct(p->model);
  record->usr = usr;
  usr = NULL;
  record->c_name = c_name;
  record->display_name = display;
  display = NULL;
  record->is_union = is_union;
  record->defined_here = defined_here;
  record->size = (unsigned long long)clang_Type_getSizeOf(canonical);
  record->align = (unsigned long long)clang_Type_getAlignOf(canonical);
  record->fields = walk.fields;
  record->num_fields = walk.count;
  out->spelling = cubind_xstrdup(c_name);
  out->needs |= walk.needs;
done:
  free(usr);
  free(display);
  free(name);
  free(alias);
  free(header);
}

/* ---- Kernels and parameters -------------------------------------------------------------- */

static enum CXChildVisitResult collect_annotations(CXCursor cursor, CXCursor parent,
                                                   CXClientData data) {
  cubind_strlist *annotations = data;
  (void)parent;
  if (clang_getCursorKind(cursor) == CXCursor_AnnotateAttr) {
    char *text = take_string(clang_getCursorSpelling(cursor));
    if (strncmp(text, "cubind.", 7) == 0)
      cubind_strlist_add(annotations, text);
    free(text);
  }
  return CXChildVisit_Continue;
}

/* Fills one parameter of the model from its ParmDecl. */
static void read_param(parser *p, CXCursor cursor, cubind_param *param) {
  CXType type = clang_getCursorType(cursor);
  CXType bare = strip_sugar(type);
  c_type mapped = {0};
  long long size = clang_Type_getSizeOf(type), align = clang_Type_getAlignOf(type);
  param->name = take_string(clang_getCursorSpelling(cursor));
  param->type_spelling = type_spelling(type);
  cursor_location(p, cursor, &param->location);
  clang_visitChildren(cursor, collect_annotations, &param->annotations);
  if (bare.kind == CXType_Pointer) {
    param->is_pointer = 1;
    map_pointer_type(type, &mapped, &param->elem_type, &param->elem_size, 1, 0);
  } else {
    map_value_type(p, type, &mapped, 0);
  }
  param->c_type = mapped.spelling;
  param->unsupported = mapped.unsupported;
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

/* "ns::inner::name" for messages; also reports whether an anonymous namespace encloses it. */
static char *qualified_name(CXCursor cursor, int *in_anonymous_namespace) {
  char *name = take_string(clang_getCursorSpelling(cursor));
  CXCursor parent = clang_getCursorSemanticParent(cursor);
  *in_anonymous_namespace = 0;
  while (!clang_Cursor_isNull(parent) && !clang_isTranslationUnit(clang_getCursorKind(parent))) {
    if (clang_getCursorKind(parent) == CXCursor_Namespace) {
      char *scope = take_string(clang_getCursorSpelling(parent));
      char *joined;
      if (!scope[0]) {
        *in_anonymous_namespace = 1;
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

/* read_kernel: see parse_internal.h. */
void read_kernel(parser *p, CXCursor cursor, cubind_kernel *kernel) {
  int anonymous, i, count = clang_Cursor_getNumArguments(cursor);
  kernel->c_name = take_string(clang_getCursorSpelling(cursor));
  kernel->display_name = qualified_name(cursor, &anonymous);
  kernel->symbol = take_string(clang_Cursor_getMangling(cursor));
  kernel->doc = doc_comment(cursor);
  cursor_location(p, cursor, &kernel->location);
  if (clang_Cursor_getStorageClass(cursor) == CX_SC_Static)
    kernel->linkage = CUBIND_LINKAGE_STATIC;
  else if (anonymous)
    kernel->linkage = CUBIND_LINKAGE_ANONYMOUS_NS;
  else if (clang_getCursorLinkage(cursor) == CXLinkage_Internal)
    kernel->linkage = CUBIND_LINKAGE_STATIC;
  if (count < 0)
    count = 0;
  kernel->num_params = (size_t)count;
  kernel->params = cubind_xcalloc((size_t)count, sizeof *kernel->params);
  for (i = 0; i < count; i++)
    read_param(p, clang_Cursor_getArgument(cursor, (unsigned)i), &kernel->params[i]);
  cubind_model_layout(kernel);
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

/* is_global: see parse_internal.h. */
int is_global(CXCursor cursor) {
  int found = 0;
  clang_visitChildren(cursor, find_global_attr, &found);
  return found;
}

/* Adds one __global__ function, merging redeclarations (same USR) into one kernel. */
static void add_kernel(parser *p, CXCursor cursor) {
  char *usr = take_string(clang_getCursorUSR(cursor));
  size_t i;
  for (i = 0; i < p->kernel_usrs.count; i++)
    if (strcmp(p->kernel_usrs.items[i], usr) == 0)
      break;
  if (clang_isInvalidDeclaration(cursor)) {
    /* clang has reported why (in the user's file, or in a header it included) */
    if (cubind_error_count() == p->errors_before) {
      cubind_location where = {0};
      cursor_location(p, cursor, &where);
      cubind_diag(where.file, where.line, where.column, "error",
                  "kernel declaration is invalid (see the errors above or in included headers)");
      free(where.file);
    }
  } else if (i < p->kernel_usrs.count) {
    /* Later declarations win (the definition normally comes last, with the annotations),
       at the position of the first. */
    cubind_kernel_clear(&p->model->kernels[i]);
    read_kernel(p, cursor, &p->model->kernels[i]);
  } else {
    cubind_strlist_add(&p->kernel_usrs, usr);
    read_kernel(p, cursor, cubind_model_add_kernel(p->model));
  }
  free(usr);
}

/* Records a template kernel; its explicit instantiations become kernels later. */
static void record_template(parser *p, CXCursor cursor) {
  char *usr = take_string(clang_getCursorUSR(cursor));
  if (!cubind_strlist_contains(&p->template_usrs, usr)) {
    int anonymous;
    char *name = take_string(clang_getCursorSpelling(cursor));
    char *qualified = qualified_name(cursor, &anonymous);
    char *global = cubind_xasprintf("::%s", qualified);
    cubind_location where = {0};
    char *location;
    cursor_location(p, cursor, &where);
    location = cubind_xasprintf("%s\n%u\n%u", where.file, where.line, where.column);
    cubind_strlist_add(&p->template_usrs, usr);
    cubind_strlist_add(&p->template_names, name);
    cubind_strlist_add(&p->template_quals, global);
    cubind_strlist_add(&p->template_locs, location);
    free(name);
    free(qualified);
    free(global);
    free(location);
    free(where.file);
  }
  free(usr);
}

/* Walks the main file's declarations, entering namespaces and extern "C" blocks. */
static enum CXChildVisitResult find_variable_attr(CXCursor cursor, CXCursor parent,
                                                  CXClientData data) {
  enum CXCursorKind kind = clang_getCursorKind(cursor);
  (void)parent;
  if (kind == CXCursor_CUDAConstantAttr)
    *(int *)data = 2;
  else if (kind == CXCursor_CUDADeviceAttr && !*(int *)data)
    *(int *)data = 1;
  else if (kind == CXCursor_CUDASharedAttr)
    *(int *)data = -1;
  return *(int *)data < 0 ? CXChildVisit_Break : CXChildVisit_Continue;
}

/*
 * A __constant__ or __device__ variable of the main file: recorded with its element type and
 * count, so that the emitter writes typed copy functions. Static ones (and those in anonymous
 * namespaces) are skipped with a warning: nvcc gives them no stable name.
 */
static void add_variable(parser *p, CXCursor cursor) {
  int space = 0, anonymous = 0;
  cubind_variable variable;
  cubind_location where = {0};
  CXType type = clang_getCursorType(cursor);
  unsigned long long count = 1;
  c_type mapped = {0};
  size_t i;
  long long elem_size;
  clang_visitChildren(cursor, find_variable_attr, &space);
  if (space <= 0)
    return;
  if (clang_Cursor_getStorageClass(cursor) == CX_SC_Extern && !clang_isCursorDefinition(cursor))
    return; /* a declaration of a variable defined elsewhere (relocatable device code) */
  memset(&variable, 0, sizeof variable);
  variable.display_name = qualified_name(cursor, &anonymous);
  cursor_location(p, cursor, &where);
  if (clang_Cursor_getStorageClass(cursor) == CX_SC_Static || anonymous) {
    cubind_diag(where.file, where.line, where.column, "warning",
                "%s variable '%s' has internal linkage: nvcc gives it no stable name, so no "
                "copy functions are generated for it (remove 'static' to get them)",
                space == 2 ? "__constant__" : "__device__", variable.display_name);
    free(variable.display_name);
    free(where.file);
    return;
  }
  for (;;) {
    CXType bare = strip_sugar(type);
    if (bare.kind != CXType_ConstantArray)
      break;
    count *= (unsigned long long)clang_getArraySize(bare);
    type = clang_getArrayElementType(bare);
  }
  if (strip_sugar(type).kind == CXType_Pointer) {
    char *elem = NULL;
    unsigned long long size;
    map_pointer_type(type, &mapped, &elem, &size, 0, 0);
    free(elem);
  } else {
    map_value_type(p, type, &mapped, 0);
  }
  elem_size = clang_Type_getSizeOf(type);
  if (!mapped.spelling || elem_size <= 0) {
    char *spelled = type_spelling(clang_getCursorType(cursor));
    cubind_diag(where.file, where.line, where.column, "error",
                "variable '%s' of type '%s' cannot be copied from C: %s", variable.display_name,
                spelled, mapped.unsupported ? mapped.unsupported : "it has no known size");
    free(spelled);
    free(mapped.spelling);
    free(mapped.unsupported);
    free(variable.display_name);
    free(where.file);
    return;
  }
  variable.name = take_string(clang_getCursorSpelling(cursor));
  for (i = 0; i < p->model->num_variables; i++)
    if (strcmp(p->model->variables[i].name, variable.name) == 0) {
      if (strcmp(p->model->variables[i].display_name, variable.display_name) != 0)
        cubind_diag(where.file, where.line, where.column, "error",
                    "variables '%s' and '%s' would both get the copy functions of '%s'",
                    variable.display_name, p->model->variables[i].display_name, variable.name);
      free(variable.name);
      free(variable.display_name);
      free(mapped.spelling);
      free(where.file);
      return; /* (a redeclaration of the same variable: listed once) */
    }
  variable.symbol = take_string(clang_Cursor_getMangling(cursor));
  variable.elem_type = mapped.spelling;
  variable.elem_size = (unsigned long long)elem_size;
  variable.count = count;
  variable.is_constant = space == 2;
  variable.needs = mapped.needs;
  variable.location = where;
  p->model->variables = cubind_xrealloc(
      p->model->variables, (p->model->num_variables + 1) * sizeof *p->model->variables);
  p->model->variables[p->model->num_variables++] = variable;
}

static enum CXChildVisitResult visit_declaration(CXCursor cursor, CXCursor parent,
                                                 CXClientData data) {
  parser *p = data;
  enum CXCursorKind kind = clang_getCursorKind(cursor);
  (void)parent;
  if (!clang_Location_isFromMainFile(clang_getCursorLocation(cursor)))
    return CXChildVisit_Continue;
  /* libclang < 15 reports extern "C" blocks as UnexposedDecl */
  if (kind == CXCursor_Namespace || kind == CXCursor_LinkageSpec || kind == CXCursor_UnexposedDecl)
    clang_visitChildren(cursor, visit_declaration, p);
  else if (kind == CXCursor_FunctionDecl && is_global(cursor))
    add_kernel(p, cursor);
  else if (kind == CXCursor_FunctionTemplate && is_global(cursor))
    record_template(p, cursor);
  else if (kind == CXCursor_VarDecl)
    add_variable(p, cursor);
  return CXChildVisit_Continue;
}

/* ---- Diagnostics and included files ----------------------------------------------------- */

/* Prints one clang diagnostic as "file:line:col: <kind>: message". */
static void print_diagnostic(CXDiagnostic diag, const char *kind) {
  CXFile file;
  unsigned line, column, offset;
  char *message = take_string(clang_getDiagnosticSpelling(diag));
  clang_getExpansionLocation(clang_getDiagnosticLocation(diag), &file, &line, &column, &offset);
  if (file) {
    char *name = take_string(clang_getFileName(file));
    cubind_diag(name, line, column, kind, "%s", message);
    free(name);
  } else {
    cubind_diag(NULL, 0, 0, kind, "%s", message);
  }
  free(message);
}

/*
 * Prints clang's errors located in the user's files, each with the notes clang attaches to it
 * ("to match this '('") outside system headers; returns how many errors there were.
 */
static unsigned report_diagnostics(parser *p) {
  unsigned i, count = clang_getNumDiagnostics(p->tu), errors = 0;
  for (i = 0; i < count; i++) {
    CXDiagnostic diag = clang_getDiagnostic(p->tu, i);
    if (clang_getDiagnosticSeverity(diag) >= CXDiagnostic_Error &&
        !clang_Location_isInSystemHeader(clang_getDiagnosticLocation(diag))) {
      CXDiagnosticSet notes = clang_getChildDiagnostics(diag);
      unsigned n, num_notes = notes ? clang_getNumDiagnosticsInSet(notes) : 0;
      print_diagnostic(diag, "error");
      errors++;
      for (n = 0; n < num_notes; n++) {
        CXDiagnostic note = clang_getDiagnosticInSet(notes, n);
        if (!clang_Location_isInSystemHeader(clang_getDiagnosticLocation(note)))
          print_diagnostic(note, "note");
        clang_disposeDiagnostic(note);
      }
    }
    clang_disposeDiagnostic(diag);
  }
  return errors;
}

typedef struct include_visit {
  CXTranslationUnit tu;
  cubind_strlist *deps;
} include_visit;

static void visit_inclusion(CXFile file, CXSourceLocation *stack, unsigned depth,
                            CXClientData data) {
  include_visit *visit = data;
  char *name;
  (void)stack;
  if (depth == 0 || clang_Location_isInSystemHeader(clang_getLocationForOffset(visit->tu, file, 0)))
    return; /* the main file (listed first by the caller) or a system header */
  name = take_string(clang_getFileName(file));
  if (!cubind_strlist_contains(visit->deps, name))
    cubind_strlist_add(visit->deps, name);
  free(name);
}

/* ---- Entry point ------------------------------------------------------------------------ */

/* Builds clang's command line (the recipe of shared/notes/libclang-cuda.md). */
static void build_arguments(const cubind_parse_options *options, const char *shim_dir, int major,
                            cubind_strlist *args) {
  char *text;
  size_t i;
  cubind_strlist_add(args, "-x");
  cubind_strlist_add(args, "cuda");
  text = cubind_xasprintf("--cuda-path=%s", options->cuda_path);
  cubind_strlist_add(args, text);
  free(text);
  cubind_strlist_add(args, "--cuda-device-only");
  /* The newest architecture each libclang accepts; an unsupported one fails without a message.
     __CUDA_ARCH__ is pinned to CUBIND_PARSE_CUDA_ARCH (900) so every version sees the same
     arch-guarded declarations. */
  cubind_strlist_add(args, major >= 16 ? "--cuda-gpu-arch=sm_90" : "--cuda-gpu-arch=sm_86");
  cubind_strlist_add(args, "-U__CUDA_ARCH__");
  text = cubind_xasprintf("-D__CUDA_ARCH__=%d", CUBIND_PARSE_CUDA_ARCH);
  cubind_strlist_add(args, text);
  free(text);
  cubind_strlist_add(args, "-nocudalib");
  cubind_strlist_add(args, options->std);
  cubind_strlist_add(args, "-isystem");
  text = cubind_xasprintf("%s/include/cccl", options->cuda_path);
  cubind_strlist_add(args, text);
  free(text);
  cubind_strlist_add(args, "-isystem");
  cubind_strlist_add(args, shim_dir);
  cubind_strlist_add(args, "-Xclang");
  cubind_strlist_add(args, "-fcuda-allow-variadic-functions");
  cubind_strlist_add(args, "-ferror-limit=0");
  cubind_strlist_add(args, "-Wno-unknown-cuda-version");
  cubind_strlist_add(args, "-DCUBIND_GENERATOR=1");
  if (options->binary && options->binary->num_archs) {
    /* nvcc defines it from the -gencode list (CCCL names its namespaces after it): the same
       list makes the same names */
    cubind_buf list = {0};
    for (i = 0; i < options->binary->num_archs; i++)
      cubind_buf_printf(&list, "%s%u", i ? "," : "-D__CUDA_ARCH_LIST__=",
                        options->binary->archs[i] * 10);
    cubind_strlist_add(args, list.data);
    cubind_buf_free(&list);
  }
  {
    /* The toolkit's include directory stays a system directory however the user names it
       (pkg-config --cflags cubind gives it as -I): as a user directory it would shadow clang's
       system one, and errors in toolkit headers would count as the user's. */
    char *toolkit_include = cubind_xasprintf("%s/include", options->cuda_path);
    char *toolkit_real = realpath(toolkit_include, NULL);
    free(toolkit_include);
    for (i = 0; i < options->user_args->count; i++) {
      const char *arg = options->user_args->items[i];
      char *real = strncmp(arg, "-I", 2) == 0 && toolkit_real ? realpath(arg + 2, NULL) : NULL;
      if (real && strcmp(real, toolkit_real) == 0) {
        cubind_strlist_add(args, "-isystem");
        cubind_strlist_add(args, arg + 2);
      } else {
        cubind_strlist_add(args, arg);
      }
      free(real);
    }
    free(toolkit_real);
  }
}

/* ---- The precompiled prelude ------------------------------------------------------------- */

/* FNV-1a: a stable 64-bit hash for cache file names (not for security). */
static unsigned long long hash_bytes(unsigned long long hash, const void *data, size_t size) {
  const unsigned char *bytes = data;
  size_t i;
  for (i = 0; i < size; i++)
    hash = (hash ^ bytes[i]) * 1099511628211ull;
  return hash;
}

/* The number of error diagnostics of a translation unit, wherever they are. */
static unsigned count_errors(CXTranslationUnit tu) {
  unsigned i, count = clang_getNumDiagnostics(tu), errors = 0;
  for (i = 0; i < count; i++) {
    CXDiagnostic diag = clang_getDiagnostic(tu, i);
    errors += clang_getDiagnosticSeverity(diag) >= CXDiagnostic_Error;
    clang_disposeDiagnostic(diag);
  }
  return errors;
}

/*
 * The cached prelude for these arguments: cache_dir/prelude-<hash>.pch, the hash covering the
 * libclang version, every argument and the toolkit's cuda_runtime.h (size and time), so that a
 * new toolkit, libclang or option set gets its own. Built when missing (written through a
 * temporary file and a rename: parallel runs may race, harmlessly). Returns the path (new
 * string) or NULL when there is none and none could be made.
 */
static char *prelude_pch(CXIndex index, const cubind_strlist *args, const char *cache_dir,
                         const char *cuda_path) {
  unsigned long long hash = 14695981039346656037ull;
  char *version = cubind_libclang_version(), *runtime_h, *path, *prelude, *temp;
  struct stat info;
  struct CXUnsavedFile empty;
  CXTranslationUnit tu = NULL;
  size_t i;
  int ok;
  hash = hash_bytes(hash, version, strlen(version) + 1);
  free(version);
  for (i = 0; i < args->count; i++)
    hash = hash_bytes(hash, args->items[i], strlen(args->items[i]) + 1);
  runtime_h = cubind_xasprintf("%s/include/cuda_runtime.h", cuda_path);
  if (stat(runtime_h, &info) == 0) {
    long long stamp[2];
    stamp[0] = (long long)info.st_size;
    stamp[1] = (long long)info.st_mtime;
    hash = hash_bytes(hash, stamp, sizeof stamp);
  }
  free(runtime_h);
  path = cubind_xasprintf("%s/prelude-%016llx.pch", cache_dir, hash);
  if (access(path, R_OK) == 0)
    return path;
  /* an empty .cu: what remains is what clang includes before every CUDA file */
  prelude = cubind_xasprintf("%s/prelude-%016llx.cu", cache_dir, hash);
  empty.Filename = prelude;
  empty.Contents = "";
  empty.Length = 0;
  ok = clang_parseTranslationUnit2(index, prelude, (const char *const *)args->items,
                                   (int)args->count, &empty, 1,
                                   CXTranslationUnit_ForSerialization |
                                       CXTranslationUnit_SkipFunctionBodies |
                                       CXTranslationUnit_KeepGoing,
                                   &tu) == CXError_Success &&
       tu;
  temp = cubind_xasprintf("%s.tmp-%ld", path, (long)getpid());
  ok = ok && count_errors(tu) == 0 && /* a broken prelude would only cost a retry every run */
       clang_saveTranslationUnit(tu, temp, clang_defaultSaveOptions(tu)) ==
                 CXSaveError_None &&
       rename(temp, path) == 0;
  if (tu)
    clang_disposeTranslationUnit(tu);
  if (!ok) {
    unlink(temp);
    free(path);
    path = NULL;
  }
  free(temp);
  free(prelude);
  return path;
}

/*
 * Parses the input, with the cached prelude when there is one. A parse with the prelude that
 * reports any error is redone without it, so that what the user sees never depends on the
 * cache; when only the prelude parse failed, the prelude is stale and removed.
 * On success *args holds the arguments that worked (for the instantiation wrapper).
 */
static enum CXErrorCode parse_input(const cubind_parse_options *options, CXIndex index,
                                    cubind_strlist *args, CXTranslationUnit *tu) {
  const unsigned flags = CXTranslationUnit_SkipFunctionBodies | CXTranslationUnit_KeepGoing;
  char *pch = options->cache_dir ? prelude_pch(index, args, options->cache_dir, options->cuda_path)
                                 : NULL;
  enum CXErrorCode status;
  if (pch) {
    cubind_strlist with_pch = {0};
    size_t i;
    for (i = 0; i < args->count; i++)
      cubind_strlist_add(&with_pch, args->items[i]);
    cubind_strlist_add(&with_pch, "-include-pch");
    cubind_strlist_add(&with_pch, pch);
    status = clang_parseTranslationUnit2(index, options->input,
                                         (const char *const *)with_pch.items,
                                         (int)with_pch.count, NULL, 0, flags, tu);
    if (status == CXError_Success && *tu && count_errors(*tu) == 0) {
      cubind_strlist_free(args);
      *args = with_pch;
      free(pch);
      return status;
    }
    if (*tu)
      clang_disposeTranslationUnit(*tu);
    *tu = NULL;
    cubind_strlist_free(&with_pch);
  }
  status = clang_parseTranslationUnit2(index, options->input, (const char *const *)args->items,
                                       (int)args->count, NULL, 0, flags, tu);
  if (pch && status == CXError_Success && *tu && count_errors(*tu) == 0)
    unlink(pch);
  free(pch);
  return status;
}

/* cubind_parse: see parse.h. */
int cubind_parse(const cubind_parse_options *options, cubind_model *model, cubind_strlist *deps) {
  parser p;
  /* errors are counted from here: a process may parse many files (tests/fuzz does) */
  unsigned errors_before = cubind_error_count();
  int major = libclang_major(), temporary_shim;
  char *shim_dir = make_shim_dir(major, options->cache_dir, &temporary_shim);
  cubind_parse_options effective = *options;
  cubind_strlist args = {0};
  CXIndex index;
  enum CXErrorCode status;
  int failed = 0;
  memset(&p, 0, sizeof p);
  p.input = options->input;
  p.input_real = realpath(options->input, NULL);
  p.model = model;
  p.errors_before = errors_before;
  p.options = options;
  if (!shim_dir || cubind_error_count() > p.errors_before) {
    remove_shim_dir(shim_dir, 1);
    return 1;
  }
  /* Measured: libclang 14 parses files that include toolkit headers (cuda_fp16.h, cub) against
     the prelude only with errors, so every run would parse twice; the prelude is for 16+. */
  if (temporary_shim || major < 16)
    effective.cache_dir = NULL;
  build_arguments(options, shim_dir, major, &args);
  index = clang_createIndex(0, 0);
  status = parse_input(&effective, index, &args, &p.tu);
  if (status != CXError_Success || !p.tu) {
    cubind_diag(NULL, 0, 0, "error",
                "libclang could not parse '%s' (error %d): check --cuda-path ('%s') and the "
                "options",
                options->input, (int)status, options->cuda_path);
    failed = 1;
  } else {
    if (report_diagnostics(&p))
      failed = 1;
    else
    {
      clang_visitChildren(clang_getTranslationUnitCursor(p.tu), visit_declaration, &p);
      parse_add_instantiations(&p, &args, index);
      parse_add_binary_kernels(&p, &args, index);
      parse_warn_unused_templates(&p);
    }
    if (deps) {
      include_visit visit;
      visit.tu = p.tu;
      visit.deps = deps;
      cubind_strlist_add(deps, options->input);
      clang_getInclusions(p.tu, visit_inclusion, &visit);
    }
    clang_disposeTranslationUnit(p.tu);
  }
  clang_disposeIndex(index);
  remove_shim_dir(shim_dir, temporary_shim);
  cubind_strlist_free(&args);
  cubind_strlist_free(&p.kernel_usrs);
  free(p.input_real);
  cubind_strlist_free(&p.template_usrs);
  cubind_strlist_free(&p.template_names);
  cubind_strlist_free(&p.template_quals);
  cubind_strlist_free(&p.template_locs);
  free(p.template_uses);
  return failed || cubind_error_count() > p.errors_before ? 1 : 0;
}
