/*
 * parse_types.h: how C spells a C++ type that a kernel takes (or a record's field holds).
 * Knows nothing of the model's records: a struct or union by value comes back as a record for
 * the caller to register (parse_structs.c), so that this file stays at the bottom of the parse.
 */
#ifndef CUBIND_GEN_PARSE_TYPES_H
#define CUBIND_GEN_PARSE_TYPES_H

#include <clang-c/Index.h>

/* What mapping one C++ type to C found. */
typedef struct c_type {
  char *spelling;    /* the C spelling; NULL when unsupported or a record */
  char *unsupported; /* why C cannot pass it (spelling is then NULL) */
  int is_scalar;     /* integer, bool, enum or floating value: usable in count expressions */
  int is_record;     /* a struct or union by value, for the caller to spell: see `record` */
  int is_empty;      /* an empty class (a tag type: std::integral_constant, a policy type):
                        nothing to pass from C (spelling and unsupported stay NULL) */
  CXCursor record;   /* its declaration (is_record) */
  unsigned needs;    /* CUBIND_NEEDS_* bits */
  int opaque;        /* a pointer whose innermost pointee is a record C has no declaration of,
                        spelled through void */
} c_type;

/*
 * map_value_type: maps a non-pointer type (top-level qualifiers ignored): builtin scalars,
 * <stdint.h> names, enums (as their integer type), the toolkit's __half, __half2,
 * __nv_bfloat16, __nv_bfloat162 and vector types; an empty class comes back with is_empty
 * set; another trivially copyable struct or union with is_record set; anything else is
 * unsupported with a reason.
 */
void map_value_type(CXType type, c_type *out);

/*
 * map_pointer_type: maps a pointer type: "const float *", "float *const *",
 * "void *CUBIND_RESTRICT". top_level: the parameter itself, whose own `const` C does not need
 * (it would make &param a pointer to const). Pointers to structs and classes become `void *` (C
 * has no declaration of them), and so do a parameter's pointers to pointers to them (`Node **`:
 * `void *`, which takes a caller's `Node **` where `void **` would not; `const void *` for
 * `Node *const *`); *elem_size still gives the pointee's size (1 for void).
 * *elem_type (new string) is the unqualified pointee's C spelling, NULL for void and records.
 */
void map_pointer_type(CXType pointer, c_type *out, char **elem_type,
                      unsigned long long *elem_size, int top_level);

/*
 * map_array_param: maps a parameter declared as an array (`float a[16]`, `int b[]`), which C and
 * C++ adjust to a pointer to its element: like map_pointer_type on that pointer.
 */
void map_array_param(CXType array, c_type *out, char **elem_type, unsigned long long *elem_size);

/* c_type_free: frees the strings of a mapping. */
void c_type_free(c_type *mapped);

#endif /* CUBIND_GEN_PARSE_TYPES_H */
