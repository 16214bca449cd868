/*
 * env.h (env.c): cubind's environment variables, read one way: sizes through one parser
 * (cubind__parse_size) and switches through another. A value that cannot be read is rejected
 * with a message naming the variable, the value and the forms accepted; it is never misread.
 */
#ifndef CUBIND_ENV_H
#define CUBIND_ENV_H

#include "internal.h"

/*
 * cubind__parse_size: reads a size in bytes: decimal digits, optionally followed by a unit,
 * case-insensitive: B; K, KB, KiB (1024); M, MB, MiB (1024^2); G, GB, GiB; T, TB, TiB. Every
 * unit is a power of 1024. Spaces around the value and before the unit are ignored. Returns 0
 * and *out, or -1 and *why (a static string: "a negative size", "it does not fit in size_t").
 */
CUBIND_INTERNAL int cubind__parse_size(const char *text, size_t *out, const char **why);

/*
 * cubind__env_size: the size in environment variable `name` into *out; `fallback` when it is
 * unset or empty. Returns 0, or -1 with `message` (of `size` bytes) saying what is wrong:
 * "CUBIND_STAGING_MIN='1Q' is not a size: ...".
 */
CUBIND_INTERNAL int cubind__env_size(const char *name, size_t fallback, size_t *out, char *message,
                                     size_t size);

/*
 * cubind__env_count: the count (decimal digits, at most `max`) in environment variable `name`
 * into *out; `fallback` when it is unset or empty. Returns 0, or -1 with `message`.
 */
CUBIND_INTERNAL int cubind__env_count(const char *name, unsigned fallback, unsigned max,
                                      unsigned *out, char *message, size_t size);

/*
 * cubind__env_switch: the on/off environment variable `name` into *on: 1, on, yes, true or 0,
 * off, no, false (case-insensitive); `fallback` when unset or empty. Returns 0, or -1 with
 * `message`.
 */
CUBIND_INTERNAL int cubind__env_switch(const char *name, int fallback, int *on, char *message,
                                       size_t size);

#endif /* CUBIND_ENV_H */
