/*
 * launch.h (launch.c): the launch of one kernel: the argument checks, the fast path that finds
 * the kernel's resolved slot for the calling thread (written once, here, for both
 * cubind_module_launch and cubind_module_call), the configuration checks and cuLaunchKernel.
 */
#ifndef CUBIND_LAUNCH_H
#define CUBIND_LAUNCH_H

#include "context.h"
#include "driver.h"
#include "internal.h"
#include "slots.h"

/*
 * cubind__describe_launch: "doublify_launch: kernel 'doublify' (module vec) grid=(4,1,1)
 * block=(256,1,1) shared=0", the start of every launch message (`entry`: "launch" or "call";
 * "cfg=NULL" for an elementwise call shaped by its element count). Names are clipped (120
 * characters), so that the dims and the CUDA error after them always fit.
 */
CUBIND_INTERNAL void cubind__describe_launch(char *buf, size_t size, const char *entry,
                                             const cubind_module *module, unsigned kernel_index,
                                             const cubind_config *cfg);

/* The reason cubind__check_launch refuses (cold). */
CUBIND_INTERNAL cubind_status cubind__launch_arguments_failure(const char *entry,
                                                               const cubind_module *module,
                                                               unsigned kernel_index,
                                                               const cubind_config *cfg,
                                                               void **args) CUBIND_COLD;

/*
 * cubind__check_launch: rejects a NULL module or config, a kernel index out of range, and a NULL
 * args for a kernel with parameters. (A module this runtime cannot use, of another ABI, has no
 * state: the fast path never takes it, and the slow path refuses it.)
 */
static inline cubind_status cubind__check_launch(const char *entry, const cubind_module *module,
                                                 unsigned kernel_index, const cubind_config *cfg,
                                                 void **args) {
  if (CUBIND_UNLIKELY(!module || !cfg || kernel_index >= module->num_kernels ||
                      (!args && module->kernels[kernel_index].num_params > 0)))
    return cubind__launch_arguments_failure(entry, module, kernel_index, cfg, args);
  return CUBIND_SUCCESS;
}

/*
 * Everything before a launch when the fast path does not apply: driver, context, loading the
 * module's image, resolving the kernel. `r` is the result of the fast path's cuCtxGetCurrent
 * (reported if it failed).
 */
CUBIND_INTERNAL cubind_status cubind__launch_prepare_slow(const char *entry,
                                                          const cubind_module *module,
                                                          unsigned kernel_index,
                                                          const cubind_config *cfg, CUresult r,
                                                          const cubind__kernel_slot **kernel,
                                                          int *device) CUBIND_COLD;

/*
 * cubind__launch_fast: the fast path, the one place it is written: once the kernel has been
 * resolved on the calling thread's device and context (the driver is ready, cuCtxGetCurrent is
 * the thread's cached context, the kernel's slot is published for that context), *kernel and
 * *device get its slot and the device, and it returns 1: no lock, no call but cuCtxGetCurrent,
 * no allocation. Else 0, with *r the result of cuCtxGetCurrent for the slow path to report.
 */
static inline int cubind__launch_fast(const cubind_module *module, unsigned kernel_index,
                                      const cubind__kernel_slot **kernel, int *device,
                                      CUresult *r) {
  *r = CUDA_SUCCESS;
  if (CUBIND_LIKELY(cubind__driver_loaded())) {
    CUcontext current = NULL;
    *r = cubind__drv.cuCtxGetCurrent(&current);
    if (CUBIND_LIKELY(*r == CUDA_SUCCESS && cubind__cached_device(current, device))) {
      const cubind__kernel_slot *k = cubind__kernel_published(module, *device, kernel_index);
      if (CUBIND_LIKELY(k != NULL && k->context == current)) {
        *kernel = k;
        return 1;
      }
    }
  }
  return 0;
}

/*
 * cubind__launch_prepare: the calling thread's device and the kernel's resolved slot there:
 * the fast path, else the slow one.
 */
static inline cubind_status cubind__launch_prepare(const char *entry, const cubind_module *module,
                                                   unsigned kernel_index,
                                                   const cubind_config *cfg,
                                                   const cubind__kernel_slot **kernel,
                                                   int *device) {
  CUresult r;
  if (CUBIND_LIKELY(cubind__launch_fast(module, kernel_index, kernel, device, &r)))
    return CUBIND_SUCCESS;
  return cubind__launch_prepare_slow(entry, module, kernel_index, cfg, r, kernel, device);
}

/*
 * cubind__launch_resolved: checks `cfg` against the resolved kernel's limits on `device` and
 * launches it (cuLaunchKernel, or cuLaunchKernelEx for clusters and cooperative launches).
 */
CUBIND_INTERNAL cubind_status cubind__launch_resolved(const char *entry,
                                                      const cubind_module *module,
                                                      unsigned kernel_index,
                                                      const cubind_config *cfg, void **args,
                                                      const cubind__kernel_slot *k, int device);

#endif /* CUBIND_LAUNCH_H */
