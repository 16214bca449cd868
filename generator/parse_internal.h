/*
 * parse_internal.h: what the two libclang files of cubind-gen share.
 *
 *   parse_clang.c    the parse itself, types, structs, kernels and variables of the .cu
 *   parse_wrapper.c  kernels reached through a wrapper translation unit that includes the .cu:
 *                    explicit template instantiations, and the kernels of nvcc's binary
 */
#ifndef CUBIND_GEN_PARSE_INTERNAL_H
#define CUBIND_GEN_PARSE_INTERNAL_H

#include <clang-c/Index.h>

#include "model.h"
#include "parse.h"
#include "util.h"

/* The __CUDA_ARCH__ every parse sees (libclang's own arch varies with its version). */
#define CUBIND_PARSE_CUDA_ARCH 900

/* State of one parse, shared by the cursor visitors. */
typedef struct parser {
  CXTranslationUnit tu;
  const char *input;
  char *input_real;              /* realpath of input (NULL if it has none) */
  cubind_model *model;
  cubind_strlist kernel_usrs;   /* USR of model->kernels[i], to merge redeclarations */
  cubind_strlist template_usrs;  /* template kernels of the main file, by USR */
  cubind_strlist template_names; /* ... their names ("scale") */
  cubind_strlist template_quals; /* ... their qualified names ("::ns::scale") */
  cubind_strlist template_locs;  /* ... their locations ("file\nline\ncolumn") */
  unsigned *template_uses;       /* ... how many of their specialisations got stubs */
  unsigned errors_before;        /* cubind_error_count() when this parse began */
  const cubind_parse_options *options;
} parser;

/* take_string: copies a CXString into a new C string and disposes it. */
char *take_string(CXString text);

/* type_spelling: the C++ spelling of a type (new string). */
char *type_spelling(CXType type);

/* cursor_location: where `cursor` is, as the user would look for it (macro uses at their
   expansion); location->file is a new string. */
void cursor_location(parser *p, CXCursor cursor, cubind_location *location);

/* in_input_file: 1 when the cursor lies in the .cu itself (also when a wrapper translation
   unit includes it). */
int in_input_file(parser *p, CXCursor cursor);

/* read_kernel: fills `kernel` (zeroed) from a __global__ FunctionDecl. */
void read_kernel(parser *p, CXCursor cursor, cubind_kernel *kernel);

/* is_global: 1 when the function cursor carries __global__. */
int is_global(CXCursor cursor);

/*
 * parse_add_instantiations: adds a kernel for every explicit instantiation of the main file's
 * template kernels (found in its tokens) and counts them in p->template_uses. args: the clang
 * arguments the main parse used.
 */
void parse_add_instantiations(parser *p, const cubind_strlist *args, CXIndex index);

/*
 * parse_add_binary_kernels: binds every kernel of p->options->binary that the source parse did
 * not bind (implicit template instantiations, kernels behind other architectures' guards) and
 * lists the rest in p->model->unbound with the reason; notes on each kernel the architectures
 * that lack it. Does nothing without a binary.
 */
void parse_add_binary_kernels(parser *p, const cubind_strlist *args, CXIndex index);

/*
 * parse_warn_unused_templates: warns about each template kernel of the main file for which no
 * specialisation got stubs.
 */
void parse_warn_unused_templates(parser *p);

#endif /* CUBIND_GEN_PARSE_INTERNAL_H */
