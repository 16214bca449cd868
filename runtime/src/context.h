/*
 * context.h (context.c): the calling thread's CUDA context and device, with a per-thread cache
 * that the launch fast path reads.
 */
#ifndef CUBIND_CONTEXT_H
#define CUBIND_CONTEXT_H

#include "internal.h"

/*
 * cubind__thread_context: makes sure the calling thread has a current context (its own, else the
 * selected device's primary one) and returns it and its device ordinal. Fast path: one
 * cuCtxGetCurrent and a comparison with the per-thread cache. Does not check driver readiness.
 */
CUBIND_INTERNAL cubind_status cubind__thread_context(const char *what, CUcontext *ctx, int *device);

/* Per-thread cache, so that the fast path costs one cuCtxGetCurrent and a comparison. */
typedef struct cubind__thread_cache {
  CUcontext context; /* last context seen current on this thread (NULL: none yet) */
  int device;        /* its device ordinal */
  int selected;      /* device chosen with cubind_set_device (default 0) */
} cubind__thread_cache;
extern CUBIND_THREAD_LOCAL cubind__thread_cache cubind__thread_ctx CUBIND_FAST_TLS;

/*
 * cubind__cached_device: if `current` is the context this thread last resolved, writes its device
 * ordinal and returns 1; else 0 (then call cubind__thread_context).
 */
static inline int cubind__cached_device(CUcontext current, int *device) {
  if (current == NULL || current != cubind__thread_ctx.context) return 0;
  *device = cubind__thread_ctx.device;
  return 1;
}

/*
 * cubind__enter: what every public call that needs the GPU does first: the driver is ready and
 * the thread has a current context (*ctx, on device *device; either may be NULL). `what` names
 * the call for messages.
 */
CUBIND_INTERNAL cubind_status cubind__enter(const char *what, CUcontext *ctx, int *device);

#endif /* CUBIND_CONTEXT_H */
