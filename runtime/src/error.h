/*
 * error.h (error.c): the calling thread's last-error message and the error hook. The lowest
 * layer: it knows nothing of the driver (result.h turns driver results into failures).
 */
#ifndef CUBIND_ERROR_H
#define CUBIND_ERROR_H

#include "internal.h"

/*
 * cubind__fail: sets the calling thread's last error to the printf-style message, calls the
 * error hook, and returns `status`.
 */
CUBIND_INTERNAL cubind_status cubind__fail(cubind_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif /* CUBIND_ERROR_H */
