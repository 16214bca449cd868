/*
 * parse_templates.h: what a specialisation of a template kernel (an explicit or implicit
 * instantiation, or a full explicit specialisation) needs beyond a plain kernel: a C name made
 * from its template arguments, and its template constants substituted in count expressions.
 */
#ifndef CUBIND_GEN_PARSE_TEMPLATES_H
#define CUBIND_GEN_PARSE_TEMPLATES_H

#include <clang-c/Index.h>

#include "model.h"

/*
 * parse_specialization_c_name: the C name of a specialisation: the kernel's name and its
 * template arguments made into an identifier ("scale<float>" -> "scale_float", "fill<int, 4>"
 * -> "fill_int_4", "f<-2>" -> "f_minus2", "combine<Op::Add, float>" -> "combine_Add_float",
 * "apply<&square>" -> "apply_square", "sum<1, 2, 3>" -> "sum_1_2_3"). `args`: the arguments as
 * written or demangled ("<1, 2, 3>"), for what libclang does not break down (packs, functions
 * and objects as arguments). Returns a new string.
 */
char *parse_specialization_c_name(CXCursor specialization, const char *args);

/*
 * parse_substitute_template_constants: in a specialisation's count expressions
 * (CUBIND_OUT_N((n + BLOCK - 1) / BLOCK)), replaces each integral template parameter by its
 * value in this specialisation, so that the C code, which has no BLOCK, computes the same
 * count: "(n + 256 - 1) / 256".
 */
void parse_substitute_template_constants(CXCursor specialization, cubind_kernel *kernel);

#endif /* CUBIND_GEN_PARSE_TEMPLATES_H */
