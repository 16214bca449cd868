/*
 * parse_wrapper.h: kernels that the .cu's own declarations do not show, reached by parsing the
 * .cu's text with lines appended that take each one's address:
 *
 *   <the .cu, unchanged>
 *   static void *cubind_ref_0 = (void *)static_cast<void (*)(float *, float)>(&::scale<float>);
 *
 * Parsing that text makes clang instantiate each named specialisation; following the
 * DeclRefExpr to its FunctionDecl gives the substituted parameter types, the annotations and
 * the device-side mangled name. Two sources of names, both known before any parse, so that the
 * main parse holds their lines itself (parse_reference_lines):
 *
 *  1. Explicit instantiations (`template __global__ void scale<float>(float *, float);`),
 *     which produce no cursor in libclang 14-19: read from the .cu's text
 *     (instantiation_scan.h), each line written inside the namespaces of the template it
 *     names, as the text shows them. After the parse, one counts only outside the blocks the
 *     preprocessor skipped; where clang saw the namespaces the text showed, clang's
 *     resolution tells which template it names (a kernel's of the .cu, or not ours); the
 *     others are resolved in a wrapper parse, in the namespaces of the template their name
 *     finds.
 *  2. nvcc's binary (--kernels-from): every kernel symbol the source parse did not bind
 *     (templates instantiated by host code that launches them, kernels behind other
 *     architectures' guards), demangled into a name and a parameter list. A kernel they leave
 *     unresolved is tried again under each other architecture's __CUDA_ARCH__. A kernel is
 *     recorded only when clang's mangling of what the name resolves to is the symbol itself, so
 *     a wrong guess can never become a wrong stub; the others are recorded as unbound, with the
 *     reason.
 *
 * Without them in the main parse every run with --kernels-from or an explicit instantiation
 * parsed the .cu twice, and when the precompiled prelude lacked a header the second parse was as
 * dear as the first (measured: a .cu of 2,000 plain kernels pays ~0.13 s for its lines, a first
 * .cu with CUB saves ~1-3 s).
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
 * parse_reference_lines: the lines the main parse appends to the .cu's text
 * (session_parse_input) so that it also resolves the binary's kernels and the .cu's explicit
 * instantiations: one per kernel of options->binary (empty when its symbol names nothing C++
 * can spell), then one per explicit instantiation the text writes (kept in ctx for
 * parse_instantiations); no lines when none names anything.
 */
void parse_reference_lines(parse_context *ctx, cubind_strlist *lines);

/*
 * parse_binary_kernels: with options->binary, marks each recorded kernel found in it (and the
 * architectures lacking it), records every other kernel of the binary that clang resolves in
 * the .cu (origin CUBIND_ORIGIN_BINARY), and lists the rest in model->unbound with the reason.
 */
void parse_binary_kernels(parse_context *ctx, clang_session *session);

#endif /* CUBIND_GEN_PARSE_WRAPPER_H */
