/*
 * count_expr.h: the count expressions of CUBIND_IN_N(expr), CUBIND_OUT_N(expr) and
 * CUBIND_INOUT_N(expr), parsed as C (a real parser, not a token filter: what it accepts, the
 * generated code compiles) and translated into C that computes them exactly.
 *
 * A count expression is integer arithmetic over the kernel's integer scalar parameters:
 * integer literals, parameters, + - * / % << >> & | ^ ~ ! && || comparisons ?:, parentheses,
 * casts to arithmetic types (which change nothing: the value is kept exactly) and sizeof of a
 * type or a parameter. The translation evaluates it in cubind_count_value with every operation
 * checked (cubind/generated.h), so that no parameter type's overflow can change a count:
 *
 *   rows * cols  ->  cubind_count_result(cubind_count_mul(cubind_count_int(rows),
 *                                                         cubind_count_int(cols)))
 */
#ifndef CUBIND_GEN_COUNT_EXPR_H
#define CUBIND_GEN_COUNT_EXPR_H

#include "model.h"

/*
 * cubind_count_translate: parses `text` against the parameters of `kernel`. Returns the C
 * expression (a new string, of type size_t) that computes the count in the generated stub, or
 * NULL with *error set to what is wrong (a new string that completes "count expression '...'
 * of parameter 'p' ...": "names 'm', which is not a parameter of kernel 'k'").
 */
char *cubind_count_translate(const char *text, const cubind_kernel *kernel, char **error);

#endif /* CUBIND_GEN_COUNT_EXPR_H */
