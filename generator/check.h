/*
 * check.h: every decision about a parsed model (no libclang here). The check also completes
 * the model for the emitter: annotations become directions and count expressions, unnamed
 * parameters get names, kernels that get no C functions move to model->unbound, and the
 * records and variables the generated code needs are marked.
 */
#ifndef CUBIND_GEN_CHECK_H
#define CUBIND_GEN_CHECK_H

#include "model.h"

/*
 * cubind_check: reports every problem as "file:line:col: error: ..." (all of them, not just the
 * first): a file name the generated code cannot spell, internal linkage, parameter types C
 * cannot pass, malformed annotations and count expressions, reserved and colliding names,
 * variables C cannot copy; and warnings (templates without a specialisation, kernels missing
 * from nvcc's binary, instantiations clang could not resolve). Returns 0 when the model can be
 * emitted, else 1.
 */
int cubind_check(cubind_model *model);

#endif /* CUBIND_GEN_CHECK_H */
