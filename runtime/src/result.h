/*
 * result.h (result.c): driver results turned into cubind failures: the status class of a
 * CUresult, and a message with the driver's name and text for it; a kernel fault names the
 * calling thread's last launch, which the launch path notes here.
 */
#ifndef CUBIND_RESULT_H
#define CUBIND_RESULT_H

#include "internal.h"

/*
 * cubind__fail_cuda: like cubind__fail for a failed driver call: the message gets
 * ": CUDA_ERROR_NAME (description)" appended, and the status is the class of `result`
 * (cubind__status_from_cuda), `fallback` for results without a class of their own. When the
 * result is a kernel fault, the calling thread's last launch is named too.
 */
CUBIND_INTERNAL cubind_status cubind__fail_cuda(CUresult result, cubind_status fallback,
                                                const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* cubind__status_from_cuda: the cubind status class of a driver result. */
CUBIND_INTERNAL cubind_status cubind__status_from_cuda(CUresult result, cubind_status fallback);

/* The calling thread's last launch: named when a fault surfaces in a later call. */
typedef struct cubind__launch_note {
  const cubind_module *module; /* NULL: no launch yet */
  unsigned kernel_index;
  cubind_config cfg;
} cubind__launch_note;
extern CUBIND_THREAD_LOCAL cubind__launch_note cubind__last_launch CUBIND_FAST_TLS;

/*
 * cubind__note_launch: remembers the calling thread's last launch (pointers to static strings
 * and the dims: no allocation), so that a fault surfacing later names the kernel.
 */
static inline void cubind__note_launch(const cubind_module *module, unsigned kernel_index,
                                       const cubind_config *cfg) {
  cubind__last_launch.module = module;
  cubind__last_launch.kernel_index = kernel_index;
  cubind__last_launch.cfg = *cfg;
}

#endif /* CUBIND_RESULT_H */
