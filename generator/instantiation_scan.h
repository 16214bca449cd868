/*
 * instantiation_scan.h: the explicit instantiations a .cu's text writes
 * (`template __global__ void ns::scale<float>(float *, float);`), found by reading its tokens
 * without clang, so that they are known before the .cu is parsed: the main parse then resolves
 * them itself (parse_wrapper.c), where a second parse of the .cu once did.
 *
 * The scan reads what it can without preprocessing: directives and comments are skipped, and
 * the namespaces are tracked as the braces open and close them. What the preprocessor decides
 * (a block #if 0 skips, a namespace a macro opens) is not known here; the parse checks each
 * instantiation's offset and scope against what clang saw (parse_wrapper.c).
 */
#ifndef CUBIND_GEN_INSTANTIATION_SCAN_H
#define CUBIND_GEN_INSTANTIATION_SCAN_H

#include <stddef.h>

#include "util.h"

/* One explicit instantiation of a function template, as the text writes it. */
typedef struct written_instantiation {
  size_t offset;         /* of its `template` keyword in the text */
  unsigned line, column; /* of the template's name (1-based; columns count bytes, as clang's) */
  cubind_strlist scope;  /* the namespaces the text opened around it, outermost first ("" for
                            an anonymous one) */
  int scope_known;       /* 0: it lies in a block the scan did not read as a namespace's (a
                            function's, a class's, or one a macro or an #if opened) */
  char *name;            /* the template's name: "scale" */
  char *written;         /* the name with the scopes written before it: "v1 :: scale" */
  cubind_strlist qualifiers; /* those scopes: "v1" */
  int global;            /* they start at the global scope: "::v1::scale" */
  char *args;            /* its template arguments as written, "< float >", or "" (deduced) */
  char *params;          /* its parameter list as written, "( float * , float )" */
  char *redefined_macro; /* a name in it that a #define or #undef after it gives, or NULL: a
                            line at the end of the .cu would read another text */
} written_instantiation;

/*
 * scan_instantiations: the explicit instantiations of function templates written in `text`
 * (`size` bytes), in the order they appear; *found gets a new array (NULL when there are none).
 * Tokens are joined by one space, as clang spells them.
 */
size_t scan_instantiations(const char *text, size_t size, written_instantiation **found);

/* scan_instantiations_free: frees what scan_instantiations returned. */
void scan_instantiations_free(written_instantiation *list, size_t count);

/*
 * scan_template_namespaces: adds to `namespaces` those of the template an instantiation written
 * in the namespaces `scope` names, as its text says: `scope` then its qualifiers (only these
 * when they start with "::"). C++ looks up the names after a qualified name there.
 */
void scan_template_namespaces(const cubind_strlist *scope, const written_instantiation *inst,
                              cubind_strlist *namespaces);

/*
 * scan_reference_line: a line that, appended to the .cu, takes the address of the
 * specialisation `inst` names, by `name` (its own, or as written) from inside `namespaces` (the
 * template's: scan_template_namespaces), as the variable `variable`; parsing it makes clang
 * instantiate that specialisation:
 *   namespace ns { static void *v = (void *)static_cast<void (*)( float * )>(&scale< float >); }
 */
char *scan_reference_line(const char *variable, const cubind_strlist *namespaces,
                          const char *name, const written_instantiation *inst);

#endif /* CUBIND_GEN_INSTANTIATION_SCAN_H */
