/*
 * parse_structs.h: structs and unions that kernels (or __constant__ variables) take by value.
 * Each is recorded once in model->structs, after the records its fields use, with its device
 * layout as clang measured it; check.c decides whether C can have it.
 */
#ifndef CUBIND_GEN_PARSE_STRUCTS_H
#define CUBIND_GEN_PARSE_STRUCTS_H

#include <clang-c/Index.h>

#include "parse_context.h"
#include "parse_types.h"

/*
 * parse_struct: the record `decl` (as written: `written`, whose typedef name C may use) that a
 * mapping came back with (mapped->is_record). Records it in the model unless it is already
 * there, and sets mapped->spelling to its C name and *index to its index in model->structs;
 * or sets mapped->unsupported to why C cannot declare it (a namespace, bases, bitfields, ...)
 * and *index to -1.
 */
void parse_struct(parse_context *ctx, CXType written, c_type *mapped, long *index);

#endif /* CUBIND_GEN_PARSE_STRUCTS_H */
