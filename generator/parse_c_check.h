/*
 * parse_c_check.h: whether C can include a user's header, asked of clang in C mode. The
 * generated header includes the header that declares a struct the kernels take where C can
 * (a shared `types.h`), and carries a C copy of the struct elsewhere (parse_structs.c).
 */
#ifndef CUBIND_GEN_PARSE_C_CHECK_H
#define CUBIND_GEN_PARSE_C_CHECK_H

#include "parse_context.h"

/*
 * parse_c_includable: 1 when C can include the header that defines `record` (a user header):
 * a C99 translation unit that includes it alone parses without an error, with the .cu's -I,
 * -isystem, -D and -U arguments and the toolkit's include directory, and every record the
 * header defines at its top level for the device it defines for C with the same size and
 * alignment. So a C program that includes the generated header sees it: no __cplusplus, no
 * __CUDACC__ (a dual-mode header's C++ is no obstacle, `__align__(16)` under #ifdef __CUDACC__
 * is), none of nvcc's implicit includes, none of the .cu's own macros. One answer a header,
 * for all its records (an included header's record is never also copied); kept in ctx for the
 * parse; the user headers the checks read go to ctx->c_check_files (the outputs depend on
 * them).
 */
int parse_c_includable(parse_context *ctx, CXCursor record);

#endif /* CUBIND_GEN_PARSE_C_CHECK_H */
