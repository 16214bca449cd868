/*
 * parse_wrapper.h: kernels that the .cu's own declarations do not show, reached by parsing the
 * .cu's text again with lines appended that take each one's address:
 *
 *   <the .cu, unchanged>
 *   static void *cubind_ref_0 = (void *)static_cast<void (*)(float *, float)>(&::scale<float>);
 *
 * Parsing that text makes clang instantiate each named specialisation; following the
 * DeclRefExpr to its FunctionDecl gives the substituted parameter types, the annotations and
 * the device-side mangled name. Two sources of names:
 *
 *  1. Explicit instantiations (`template __global__ void scale<float>(float *, float);`),
 *     which produce no cursor in libclang 14-19: found in the main file's tokens (outside the
 *     blocks the preprocessor skipped).
 *  2. nvcc's binary (--kernels-from): every kernel symbol the source parse did not bind
 *     (templates instantiated by host code that launches them, kernels behind other
 *     architectures' guards), demangled into a name and a parameter list. A kernel is recorded
 *     only when clang's mangling of what the name resolves to is the symbol itself, so a wrong
 *     guess can never become a wrong stub; the others are recorded as unbound, with the reason.
 */
#ifndef CUBIND_GEN_PARSE_WRAPPER_H
#define CUBIND_GEN_PARSE_WRAPPER_H

#include <clang-c/Index.h>

#include "clang_session.h"
#include "parse_context.h"

/*
 * parse_instantiations: records a kernel for every explicit instantiation of the main file's
 * template kernels, and a finding for each that clang could not resolve. `tu`: the main parse.
 */
void parse_instantiations(parse_context *ctx, clang_session *session, CXTranslationUnit tu);

/*
 * parse_binary_kernels: with options->binary, marks each recorded kernel found in it (and the
 * architectures lacking it), records every other kernel of the binary that clang resolves in
 * the .cu (origin CUBIND_ORIGIN_BINARY), and lists the rest in model->unbound with the reason.
 */
void parse_binary_kernels(parse_context *ctx, clang_session *session);

#endif /* CUBIND_GEN_PARSE_WRAPPER_H */
