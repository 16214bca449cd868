/*
 * model.h: the plain data model between the layers of cubind-gen.
 *
 *   parse*.c   record facts about the .cu file and nvcc's binary (the only code that sees
 *              libclang): every kernel, template, variable and record, where each was declared,
 *              what clang could and could not resolve
 *   check.c    decides: what is an error or a warning, which kernels are bound and which are
 *              listed as unbound (and why), the C names; resolves annotations into directions
 *              and counts
 *   emit.c     turns the decided model into the generated header and source
 *
 * Every string and array here is owned by the model and freed by cubind_model_free().
 */
#ifndef CUBIND_GEN_MODEL_H
#define CUBIND_GEN_MODEL_H

#include <stddef.h>

#include "util.h"

/* A position in a source file (file as the user or clang spelled it, 1-based line/column). */
typedef struct cubind_location {
  char *file;
  unsigned line;
  unsigned column;
} cubind_location;

/* The CUBIND_IN/OUT/INOUT annotation of a pointer parameter (values as in cubind/generated.h). */
typedef enum cubind_param_direction {
  CUBIND_PARAM_DEVICE = 0, /* no annotation: a device pointer or a plain value */
  CUBIND_PARAM_IN = 1,
  CUBIND_PARAM_OUT = 2,
  CUBIND_PARAM_INOUT = 3
} cubind_param_direction;

/* A parameter's part in a kernel of <cubind/elementwise.cuh> (from its annotation). */
typedef enum cubind_param_role {
  CUBIND_ROLE_NONE = 0,
  CUBIND_ROLE_ELEMENT_COUNT,   /* CUBIND_ELEMENT_COUNT: the `size_t n` of an elementwise kernel */
  CUBIND_ROLE_ELEMENT_MAP,     /* CUBIND_ELEMENT_MAP: the same, element i touching only i */
  CUBIND_ROLE_REDUCTION_SCRATCH /* CUBIND_REDUCTION_SCRATCH: passed by the runtime, hidden */
} cubind_param_role;

/* Headers the generated header must include for the C types it spells. */
enum {
  CUBIND_NEEDS_STDINT = 1,      /* int8_t ... uint64_t, intptr_t */
  CUBIND_NEEDS_STDBOOL = 2,     /* bool in C */
  CUBIND_NEEDS_VECTOR_TYPES = 4 /* float4, int2, ... from the CUDA toolkit */
};

/* One kernel parameter. */
typedef struct cubind_param {
  char *name;                   /* as written in the .cu; "" when unnamed (check.c names it) */
  int user_named;               /* set by check.c: 1 when the .cu named the parameter */
  char *c_type;                 /* C spelling without the name: "const float *CUBIND_RESTRICT" */
  char *unsupported;            /* NULL, or why a C caller cannot pass this type */
  char *type_spelling;          /* the C++ type as clang spells it (for messages) */
  unsigned long long size;      /* bytes in the kernel's parameter buffer */
  unsigned long long align;     /* alignment in the parameter buffer */
  unsigned long long offset;    /* offset in the parameter buffer (aligned to `align`) */
  int offset_varies;            /* nvcc's offset depends on the architecture: this parameter or
                                   one before it is aligned to more than 16 (model.c) */
  int is_pointer;               /* a pointer (device pointer or annotated host buffer); also an
                                   array parameter, which C and C++ adjust to a pointer */
  int pointee_const;            /* a pointer to const: the kernel promises not to write it */
  int is_scalar;                /* integer, bool, enum or floating value: usable in counts */
  char *elem_type;              /* pointers: pointee C type for sizeof(); NULL if it has none */
  unsigned long long elem_size; /* pointers: bytes per element (1 for void) */
  unsigned needs;               /* CUBIND_NEEDS_* bits */
  long record;                  /* by-value struct or union: its index in model->structs, else -1 */
  int is_empty;                 /* an empty struct (a tag type such as std::integral_constant):
                                   C passes nothing for it; the stub passes a zero byte */
  cubind_location location;
  cubind_strlist annotations;   /* raw "cubind.*" annotate strings, in source order */
  /* Filled by check.c from `annotations`: */
  cubind_param_direction direction;
  char *count_expr;             /* the _N(expr) text; NULL when the caller passes a count */
  char *count_code;             /* the C that computes it in the stub (a size_t; count_expr.h) */
  cubind_param_role role;
} cubind_param;

/* A declaration's linkage, as far as the generated C cares. */
typedef enum cubind_linkage {
  CUBIND_LINKAGE_EXTERNAL = 0,
  CUBIND_LINKAGE_STATIC,        /* declared `static` */
  CUBIND_LINKAGE_ANONYMOUS_NS,  /* inside an anonymous namespace */
  CUBIND_LINKAGE_ANONYMOUS_TYPE /* taking a type of one (nvcc names both after the file) */
} cubind_linkage;

/* How the parse found a kernel. */
typedef enum cubind_kernel_origin {
  CUBIND_ORIGIN_SOURCE = 0,     /* a __global__ function declared in the .cu (no template) */
  CUBIND_ORIGIN_INSTANTIATION,  /* an explicit instantiation written in the .cu */
  CUBIND_ORIGIN_BINARY          /* a kernel of nvcc's binary (--kernels-from), resolved by clang */
} cubind_kernel_origin;

/* Where a declaration lies. */
typedef enum cubind_place {
  CUBIND_PLACE_INPUT = 0,       /* the .cu itself */
  CUBIND_PLACE_HEADER,          /* a user header the .cu includes */
  CUBIND_PLACE_SYSTEM           /* a system header (the toolkit's: CUB, Thrust, ...) */
} cubind_place;

/* Where a parameter lies in a kernel's parameter buffer. */
typedef struct cubind_slot {
  unsigned long long offset;
  unsigned long long size;
} cubind_slot;

/* One __global__ function. */
typedef struct cubind_kernel {
  char *usr;            /* clang's unified symbol resolution: one per declared function */
  char *c_name;         /* prefix of the generated functions: "doublify", "scale_float" */
  char *display_name;   /* for messages: "ns::doublify" */
  char *symbol;         /* the device-side (cubin) symbol: "_ZN2ns8doublifyEPfi", "doublify" */
  int symbol_unknown;   /* `symbol` is clang's mangling of a pointer template argument, which
                           nvcc's differs from (binary.h): only nvcc's binary tells it */
  char *doc;            /* the doc comment as written (NULL when none) */
  cubind_location location;
  cubind_location doc_location; /* where the doc comment starts (line 0: no doc) */
  cubind_linkage linkage;
  cubind_kernel_origin origin;
  cubind_place place;   /* where the kernel is declared */
  char *declared_in;    /* basename of the header that declares it (place != INPUT), else NULL */
  long template_index;  /* index into model->templates of its template, or -1 */
  cubind_param *params;
  size_t num_params;
  int defined;          /* 1: this translation unit defines it (a declaration has a body) */
  int in_binary;        /* with --kernels-from: 1 when the binary holds its symbol */
  cubind_slot *binary_layout; /* its parameters as nvcc's binary lays them out (.nv.info) */
  long binary_num_params; /* their number; -1: unknown (no binary, or the binary does not say) */
  int binary_layouts_differ; /* the binary's architectures give its parameters different
                                sizes (an extern "C" signature under #if __CUDA_ARCH__) */
  char *bound_by;       /* a header kernel that an earlier source's binary of the same library
                           also holds (--earlier-binary): that binary's name; else NULL */
  char *only_in;        /* "sm_90": the architectures whose code has it, when some lack it
                           (read from nvcc's binary); NULL when all have it or unknown */
} cubind_kernel;

/* A template __global__ function of the .cu; its specialisations are kernels. */
typedef struct cubind_template {
  char *usr;            /* clang's unified symbol resolution of the template */
  char *name;           /* "scale" */
  char *qualified;      /* "ns::scale" */
  cubind_place place;   /* the .cu or a user header */
  cubind_location location;
} cubind_template;

/* Something the parse met that the check reports (a warning: nothing is bound from it). */
typedef enum cubind_finding_kind {
  CUBIND_FINDING_UNRESOLVED_INSTANTIATION, /* clang could not resolve an explicit instantiation
                                              (detail: clang's message) */
  CUBIND_FINDING_AMBIGUOUS_INSTANTIATION,  /* an explicit instantiation names a template of
                                              which the .cu has several in the scope it names
                                              (overloads) */
  CUBIND_FINDING_INVALID_KERNEL,           /* clang marked a kernel declaration invalid without
                                              an error in the user's files */
  CUBIND_FINDING_VARIABLE_TEMPLATE,        /* a __device__ / __constant__ variable template:
                                              its instances get no copy functions */
  CUBIND_FINDING_VARIADIC_KERNEL           /* a kernel with a C variable argument list ('...'),
                                              which nvcc rejects */
} cubind_finding_kind;

typedef struct cubind_finding {
  cubind_finding_kind kind;
  char *name;           /* the template or kernel concerned */
  char *detail;         /* NULL, or clang's message */
  cubind_location location;
} cubind_finding;

/* A kernel of nvcc's binary that gets no C functions, and why (listed in the header). */
typedef struct cubind_unbound {
  char *symbol;         /* its cubin symbol */
  char *name;           /* its C++ name (demangled), or the symbol */
  char *reason;
  int template_warning; /* an instance of one of the .cu's templates worth a warning, given per
                           template (check.c): cubind-gen could not name it in the .cu
                           (parse_wrapper.c), or C cannot take its parameters */
} cubind_unbound;

/* One field of a struct or union passed by value (device layout, as libclang measured it). */
typedef struct cubind_field {
  char *name;
  char *c_decl;                 /* the C member declaration without ';': "float v[3]" */
  unsigned long long offset;    /* byte offset in the record */
  unsigned long long size;      /* bytes it takes (arrays: all elements) */
  unsigned long long align;     /* its type's alignment (a field's own alignas not counted) */
  unsigned long long align_attr; /* the C copy's __attribute__((aligned(N))) on it; 0: none */
  unsigned line;                /* its line in the file that declares the record */
  long record;                  /* a struct or union field: its index in model->structs, else -1 */
} cubind_field;

/*
 * A struct or union some kernel takes by value (or that such a record contains). Listed in
 * dependency order: a record comes after the records its fields use.
 */
typedef struct cubind_struct {
  char *usr;                    /* clang's USR, to list each record once */
  char *c_name;                 /* how C spells the type: "params", "struct point" */
  char *alias;                  /* defined_here: the .cu's typedef of another name that a
                                   kernel spells it by (params_t of `typedef struct _params
                                   {...} params_t;`), which the C copy declares too; or NULL */
  char *display_name;           /* the C++ name, for messages */
  int is_union;
  int defined_here;             /* 1: defined in the .cu, or in a header C cannot include
                                   (a .cuh): the generated header defines a C copy;
                                   0: from a header that the generated header includes */
  char *header;                 /* !defined_here: how the generated header includes its header
                                   ("include/types.h", relative to the .cu or an -I dir) */
  int toolkit_header;           /* that header is the CUDA toolkit's (#include <...>) */
  cubind_location location;     /* its definition */
  unsigned long long size;
  unsigned long long align;
  int packed;                   /* the C copy is __attribute__((packed)) */
  unsigned long long align_attr; /* the C copy's __attribute__((aligned(N))); 0: none */
  cubind_field *fields;
  size_t num_fields;
  unsigned needs;               /* CUBIND_NEEDS_* bits of its fields */
  int used;                     /* set by check.c: a bound kernel or variable needs it */
} cubind_struct;

/* A __constant__ or __device__ variable defined in the .cu. */
typedef struct cubind_variable {
  char *name;                   /* C-facing name: "coeffs" (generated: <module>_coeffs_to_device) */
  char *display_name;           /* "ns::coeffs", for messages */
  char *symbol;                 /* its symbol in the cubin */
  char *elem_type;              /* C type of one element (arrays: of the innermost element);
                                   NULL when `unsupported` */
  char *unsupported;            /* NULL, or why C cannot copy it */
  char *type_spelling;          /* the C++ type as clang spells it (for messages) */
  unsigned long long elem_size; /* bytes per element */
  unsigned long long count;     /* elements (1 for a non-array) */
  int is_constant;              /* __constant__ (else __device__) */
  long record;                  /* elements that are structs: index in model->structs, else -1 */
  cubind_linkage linkage;
  unsigned needs;               /* CUBIND_NEEDS_* bits */
  cubind_location location;
  int bound;                    /* set by check.c: it gets copy functions */
} cubind_variable;

/* One .cu file. */
typedef struct cubind_model {
  char *module_name;  /* C identifier: descriptor names (and the fatbin's, unless fatbin_name) */
  char *fatbin_name;  /* the embedded fatbin the module loads, cubind_fatbin_<fatbin_name>;
                         NULL until cubind_names_apply_prefix() sets it (default: module_name) */
  char *prefix;       /* --prefix: put before every generated C name (names.c); NULL: none */
  char *source_name;  /* basename of the .cu, for the banner comment */
  char *file_stem;    /* basename without extension: output file names */
  cubind_kernel *kernels;
  size_t num_kernels;
  size_t capacity;
  cubind_struct *structs;   /* records passed by value, in dependency order */
  size_t num_structs;
  int line_directives;      /* emit #line directives around text taken from the .cu */
  int has_binary;           /* the parse read nvcc's binary (--kernels-from) */
  int relocatable;          /* nvcc compiles it as relocatable device code (-rdc=true): a
                               static kernel's symbol is then named after the file */
  cubind_variable *variables; /* __constant__ / __device__ variables, in source order */
  size_t num_variables;
  cubind_unbound *unbound;  /* kernels of nvcc's binary left unbound, by name */
  size_t num_unbound;
  cubind_template *templates; /* template kernels of the .cu */
  size_t num_templates;
  cubind_finding *findings; /* what the check reports besides the kernels' own problems */
  size_t num_findings;
} cubind_model;

/* cubind_model_add_struct: appends a zeroed record and returns it (owned by the model). */
cubind_struct *cubind_model_add_struct(cubind_model *model);

/* cubind_model_add_kernel: appends a zeroed kernel (of no template) and returns it (owned by
   the model). */
cubind_kernel *cubind_model_add_kernel(cubind_model *model);

/* cubind_kernel_init: an empty kernel (no template, its binary layout unknown). */
void cubind_kernel_init(cubind_kernel *kernel);

/* cubind_kernel_clear: frees the strings and parameters a kernel owns and empties it (as init). */
void cubind_kernel_clear(cubind_kernel *kernel);

/* cubind_model_add_unbound: appends copies of the three strings to model->unbound. */
cubind_unbound *cubind_model_add_unbound(cubind_model *model, const char *symbol, const char *name,
                              const char *reason);

/* cubind_model_add_variable / _template / _finding: append a zeroed entry and return it. */
cubind_variable *cubind_model_add_variable(cubind_model *model);
cubind_template *cubind_model_add_template(cubind_model *model);
cubind_finding *cubind_model_add_finding(cubind_model *model, cubind_finding_kind kind,
                                         const char *name, const char *detail,
                                         const cubind_location *location);

/* cubind_location_copy: a deep copy of a location. */
cubind_location cubind_location_copy(const cubind_location *location);

/*
 * cubind_model_layout: computes each parameter's offset in the parameter buffer, aligning
 * each to its own alignment as the CUDA ABI does, and marks offset_varies from the first
 * parameter aligned to more than 16 bytes on (CUBIND_PARAM_OFFSET_ANY in cubind/generated.h).
 */
void cubind_model_layout(cubind_kernel *kernel);

/* cubind_model_free: frees everything the model owns and zeroes it. */
void cubind_model_free(cubind_model *model);

/*
 * cubind_sanitize_identifier: a C identifier made from `text`: every byte that is not a letter,
 * digit or underscore becomes '_', and a leading digit (or an empty text) gets a "cu_" prefix.
 * Returns a new string.
 */
char *cubind_sanitize_identifier(const char *text);

/*
 * cubind_kernel_map_count_names: rewrites the names in the count expressions of the kernel's
 * annotations (an annotate string's text past its ':', "cubind.out_n:(n + BLOCK - 1) / BLOCK"):
 * each identifier for which `map` returns a new string is replaced by it (NULL keeps it);
 * numbers keep their suffixes whole ("10u" names nothing).
 */
void cubind_kernel_map_count_names(cubind_kernel *kernel,
                                   char *(*map)(const char *name, size_t length, void *data),
                                   void *data);

/* cubind_is_identifier: 1 when text is a non-empty C identifier, else 0. */
int cubind_is_identifier(const char *text);

#endif /* CUBIND_GEN_MODEL_H */
