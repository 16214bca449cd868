/*
 * staging.h (staging.c): how `<kernel>_call` moves a pageable host buffer: the policy
 * (CUBIND_PAGEABLE_STAGING, CUBIND_STAGING_MIN) and the registration of a buffer for one call.
 */
#ifndef CUBIND_STAGING_H
#define CUBIND_STAGING_H

#include "internal.h"

/*
 * cubind__staging_check: CUBIND_SUCCESS, or, on every call, CUBIND_ERROR_INVALID_VALUE when
 * CUBIND_PAGEABLE_STAGING or CUBIND_STAGING_MIN holds a value that cannot be read (the message,
 * prefixed with `what`, names the variable and the forms accepted). Reads the environment once.
 */
CUBIND_INTERNAL cubind_status cubind__staging_check(const char *what);

/*
 * cubind__staging_register: page-locks host[0..bytes) in place for the duration of one call
 * (cuMemHostRegister) when the policy says so: staging on, at least the threshold, pageable
 * memory. Returns 1 if it is registered (call cubind__staging_unregister after the call's
 * final synchronisation), 0 if it is to be copied plainly (small, page-locked already, staging
 * off, or the driver refused).
 */
CUBIND_INTERNAL int cubind__staging_register(void *host, size_t bytes);

/* cubind__staging_unregister: undoes cubind__staging_register (cuMemHostUnregister). */
CUBIND_INTERNAL CUresult cubind__staging_unregister(void *host);

/* For the tests: overrides the environment (on or off; the smallest registered buffer). */
CUBIND_INTERNAL void cubind__set_staging(int on, size_t min_bytes);

#endif /* CUBIND_STAGING_H */
