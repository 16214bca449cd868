/*
 * check.h: semantic checks on the model (no libclang here). They also complete the model:
 * annotations become directions and count expressions, unnamed parameters get names.
 */
#ifndef CUBIND_GEN_CHECK_H
#define CUBIND_GEN_CHECK_H

#include "model.h"

/*
 * cubind_check: reports every problem as "file:line:col: error: ..." (all of them, not just the
 * first): internal linkage, parameter types C cannot pass, malformed annotations and count
 * expressions, reserved and colliding names. Returns 0 when the model can be emitted, else 1.
 */
int cubind_check(cubind_model *model);

#endif /* CUBIND_GEN_CHECK_H */
