/* parse_structs.c: structs and unions by value (see parse_structs.h). */
#include "parse_structs.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "clang_util.h"
#include "parse_c_check.h"
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

/*
 * The first typedef of the chain that `type` is written with (`params_t` -> `params` -> the
 * record) that the file of `record` declares (a new string), or NULL: the name C code that
 * includes that header knows the record by. A typedef of the .cu, or of another header, is
 * no name the generated header can use.
 */
static char *header_typedef_name(CXType type, CXCursor record) {
  CXFile record_file, file;
  clang_getExpansionLocation(clang_getCursorLocation(record), &record_file, NULL, NULL, NULL);
  for (type = cx_strip_elaborated(type); type.kind == CXType_Typedef;) {
    CXCursor declaration = clang_getTypeDeclaration(type);
    clang_getExpansionLocation(clang_getCursorLocation(declaration), &file, NULL, NULL, NULL);
    if (file && record_file && clang_File_isEqual(file, record_file))
      return cx_spelling(declaration);
    type = cx_strip_elaborated(clang_getTypedefDeclUnderlyingType(declaration));
  }
  return NULL;
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

/*
 * 1 when C cannot include the record's header: a C++ or CUDA header by its name (.cuh, .hpp,
 * .hh, .hxx, .inl, .tcc, .cu), or one that clang's C mode rejects or where C lays the record
 * out otherwise than the device (parse_c_includable). The
 * generated header then carries a C copy, as of a record of the .cu; a .h that C can include
 * is included: it is the header a kernel's types live in when C code shares them.
 */
static int in_cxx_header(parse_context *ctx, CXCursor decl) {
  static const char *const suffixes[] = {".cuh", ".hpp", ".hh", ".hxx", ".inl", ".tcc", ".cu"};
  char *file = cx_file_name(decl);
  size_t i, length = file ? strlen(file) : 0;
  int cxx = 0;
  for (i = 0; file && i < sizeof suffixes / sizeof suffixes[0] && !cxx; i++)
    cxx = length > strlen(suffixes[i]) &&
          strcmp(file + length - strlen(suffixes[i]), suffixes[i]) == 0;
  if (file && !cxx)
    cxx = !parse_c_includable(ctx, decl);
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
  else if (!record->toolkit_header && (record->c_name = header_typedef_name(written, decl)))
    ; /* the header's typedef */
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
