/*
 * parse_decls.h: the declarations of a .cu that matter to C: __global__ functions and their
 * parameters, template kernels, __constant__ and __device__ variables. Records what they are;
 * check.c decides what becomes of them.
 */
#ifndef CUBIND_GEN_PARSE_DECLS_H
#define CUBIND_GEN_PARSE_DECLS_H

#include <clang-c/Index.h>

#include "parse_context.h"

/*
 * parse_declarations: walks the main file's declarations (entering namespaces and extern "C"
 * blocks) and records each kernel, template kernel and variable in the model.
 */
void parse_declarations(parse_context *ctx, CXTranslationUnit tu);

/*
 * parse_kernel: fills `kernel` (zeroed) from a __global__ FunctionDecl: names, symbol, doc
 * comment, location, linkage, place, parameters with their C types and layout, and the
 * template it specialises (template_index, -1 when none of model->templates).
 */
void parse_kernel(parse_context *ctx, CXCursor function, cubind_kernel *kernel);

/*
 * parse_find_kernel: the index of the kernel in the model that `function` declares (the same
 * USR and, where clang mangled the kernel's symbol, the same symbol), or -1.
 */
long parse_find_kernel(const parse_context *ctx, CXCursor function);

#endif /* CUBIND_GEN_PARSE_DECLS_H */
