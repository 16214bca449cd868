/*
 * staging.h (staging.c): how `<kernel>_call` moves each host buffer: the policy
 * (CUBIND_PAGEABLE_STAGING, CUBIND_STAGING_MIN, CUBIND_STAGING_THREADS, CUBIND_STAGING_START),
 * the staging threads for large pageable buffers (hostcopy.h), and in-place registration when
 * those are busy, shared between the calls that run on one buffer.
 */
#ifndef CUBIND_STAGING_H
#define CUBIND_STAGING_H

#include "internal.h"

/* Host arguments of one call that can be staged (bit masks and arrays of this size); the rest
   are copied plainly (call.c), or the call runs in one pass (pipeline.c). */
#define CUBIND__MAX_STAGED_ARGS 64

/* How one host buffer is copied. */
typedef enum cubind__copy_kind {
  CUBIND__COPY_PLAIN,  /* by the driver as it is: small, staging off, or unknown memory */
  CUBIND__COPY_DIRECT, /* page-locked already: DMA straight from it */
  CUBIND__COPY_STAGED  /* large and pageable: the staging threads (or registration) */
} cubind__copy_kind;

/*
 * cubind__staging_check: CUBIND_SUCCESS, or, on every call, CUBIND_ERROR_INVALID_VALUE when
 * CUBIND_PAGEABLE_STAGING, CUBIND_STAGING_MIN, CUBIND_STAGING_THREADS or CUBIND_STAGING_START
 * holds a value that cannot be read (the message, prefixed with `what`, names the variable and the forms
 * accepted). Reads the environment once.
 */
CUBIND_INTERNAL cubind_status cubind__staging_check(const char *what);

/*
 * cubind__staging_classify: how each of a call's host buffers host_args[0..n) is to be copied,
 * into kind[i], with `elements` elements each (0: each argument's own count). A large pageable
 * buffer is held while the call runs (hold[i] nonzero, else 0: pass it to
 * cubind__staging_release after the call's final synchronisation), so that no other call
 * registers memory under its copies or unregisters memory it copies from; one inside memory
 * another running call registered is held too, and copied directly. Waits (rarely) while the
 * records of running calls' buffers are all taken.
 */
CUBIND_INTERNAL void cubind__staging_classify(const cubind_host_arg *host_args, unsigned n,
                                              size_t elements, unsigned char *kind,
                                              unsigned short *hold);

/*
 * cubind__staging_acquire: the staging threads for one call in `ctx` (current) that would stage
 * `bytes` (each direction counted): 1 when the caller holds them (cubind__hostcopy_run, then
 * cubind__hostcopy_release), 0 when they are busy, switched off, not yet worth starting (the
 * process's staged traffic, this call's included, below CUBIND_STAGING_START) or cannot start:
 * then register or copy plainly.
 */
CUBIND_INTERNAL int cubind__staging_acquire(CUcontext ctx, size_t bytes);

/*
 * cubind__staging_register: page-locks a held STAGED buffer in place (cuMemHostRegister) when
 * that pays (8 MiB and up) and no registration overlaps it: its path when the staging threads
 * are busy. Returns 1 if it is page-locked (copy it directly), 0 if it is to be copied plainly.
 */
CUBIND_INTERNAL int cubind__staging_register(unsigned short hold);

/*
 * cubind__staging_release: the call no longer copies the held buffer. Undoes every
 * registration it kept (its own, or one another call made and left to it) that no running call
 * touches now; returns the first failure of cuMemHostUnregister (the memory is released
 * anyway).
 */
CUBIND_INTERNAL CUresult cubind__staging_release(unsigned short hold);

/*
 * For the tests: overrides the environment (on or off; the smallest staged buffer; the staging
 * threads, the caller included: 0 or 1 for none; the traffic before they start) and forgets the
 * traffic so far. A new thread count restarts the threads.
 */
CUBIND_INTERNAL void cubind__set_staging(int on, size_t min_bytes, unsigned threads,
                                         size_t start_bytes);

#endif /* CUBIND_STAGING_H */
