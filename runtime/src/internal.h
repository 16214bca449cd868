/*
 * internal.h: what the runtime's source files share. Nothing here is public: every function is
 * named cubind__* and hidden from the shared library's exported symbols.
 */
#ifndef CUBIND_INTERNAL_H
#define CUBIND_INTERNAL_H

#include <cuda.h>
#include <cudaTypedefs.h>
#include <stddef.h>
#include <stdint.h>

#include <cubind/cubind.h>
#include <cubind/generated.h>

#include "driver_api.h"

#define CUBIND_INTERNAL __attribute__((visibility("hidden")))

/* Thread-local storage (a GNU extension that gcc and clang accept in C99). */
#define CUBIND_THREAD_LOCAL __thread

/* Streams in messages: "0x0" for the legacy default stream rather than glibc's "(nil)". */
#define CUBIND_STREAM_ARG(stream) ((unsigned long long)(uintptr_t)(stream))

/* Branch hints for the launch fast path. */
#define CUBIND_LIKELY(x) __builtin_expect(!!(x), 1)
#define CUBIND_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* ---- driver.c ------------------------------------------------------------------------------ */

/* The resolved entry points; one member per line of driver_api.h (optional ones may be NULL). */
typedef struct cubind__driver_table {
#define CUBIND_DRIVER_MEMBER_(name, version) PFN_##name##_v##version name;
  CUBIND_DRIVER_API(CUBIND_DRIVER_MEMBER_, CUBIND_DRIVER_MEMBER_)
#undef CUBIND_DRIVER_MEMBER_
} cubind__driver_table;

/* Filled once by cubind__driver_ready(); read-only afterwards. */
extern cubind__driver_table cubind__drv CUBIND_INTERNAL;

/*
 * cubind__driver_ready: loads and initialises the driver on first use (once per process).
 * Returns CUBIND_SUCCESS, or the remembered init failure with the calling thread's last error set
 * to the init message. `what` names the public call for the message ("cubind_malloc").
 */
CUBIND_INTERNAL cubind_status cubind__driver_ready(const char *what);

/* cubind__driver_loaded: 1 once the driver is initialised (the launch fast path's check). */
CUBIND_INTERNAL int cubind__driver_loaded(void);

/* cubind__device_count: the number of devices, known once the driver is ready. */
CUBIND_INTERNAL int cubind__device_count(void);

/* ---- error.c ------------------------------------------------------------------------------- */

/*
 * cubind__fail: sets the calling thread's last error to the printf-style message, calls the
 * error hook, and returns `status`.
 */
CUBIND_INTERNAL cubind_status cubind__fail(cubind_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

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

/*
 * cubind__note_launch: remembers the calling thread's last launch (pointers to static strings
 * and the dims: no allocation), so that a fault surfacing later names the kernel.
 */
CUBIND_INTERNAL void cubind__note_launch(const cubind_module *module, unsigned kernel_index,
                                         const cubind_config *cfg);

/* ---- context.c ----------------------------------------------------------------------------- */

/*
 * cubind__thread_context: makes sure the calling thread has a current context (its own, else the
 * selected device's primary one) and returns it and its device ordinal. Fast path: one
 * cuCtxGetCurrent and a comparison with the per-thread cache. Does not check driver readiness.
 */
CUBIND_INTERNAL cubind_status cubind__thread_context(const char *what, CUcontext *ctx, int *device);

/*
 * cubind__cached_device: if `current` is the context this thread last resolved, writes its device
 * ordinal and returns 1; else 0 (then call cubind__thread_context).
 */
CUBIND_INTERNAL int cubind__cached_device(CUcontext current, int *device);

/*
 * cubind__enter: what every public call that needs the GPU does first: the driver is ready and
 * the thread has a current context. `what` names the call for messages.
 */
CUBIND_INTERNAL cubind_status cubind__enter(const char *what);

/* ---- module.c ------------------------------------------------------------------------------ */

/* What a launch needs of one kernel on one device, cached at load time. */
typedef struct cubind__kernel_slot {
  CUfunction function;
  unsigned max_threads;        /* cuFuncGetAttribute MAX_THREADS_PER_BLOCK */
  unsigned max_dynamic_shared; /* dynamic shared memory the launch may ask for */
} cubind__kernel_slot;

/* One module on one device. */
typedef struct cubind__device_slot {
  int loaded;        /* 0 until everything below is valid; published with release semantics */
  CUcontext context; /* the context the kernels were resolved in */
  CUlibrary library; /* either library (CUDA >= 12.0) ... */
  CUmodule cumodule; /* ... or module is set */
  unsigned max_block[3], max_grid[3];
  cubind__kernel_slot *kernels; /* num_kernels entries */
} cubind__device_slot;

/* cubind__module_slot: the module's loaded slot for `device`, loading it there first if needed. */
CUBIND_INTERNAL cubind_status cubind__module_slot(const char *what, cubind_module *module,
                                                  CUcontext ctx, int device,
                                                  cubind__device_slot **slot);

/* cubind__fast_slot: the loaded slot if the module is loaded on `device`, else NULL. No lock. */
CUBIND_INTERNAL cubind__device_slot *cubind__fast_slot(const cubind_module *module, int device);

/*
 * cubind__fatbin_archs: writes "sm_80 (cubin), sm_90 (PTX)"-style text for the architectures a
 * fatbin holds into buf (always terminated). Reads at most `size` bytes of `image`.
 */
CUBIND_INTERNAL void cubind__fatbin_archs(const unsigned char *image, size_t size, char *buf,
                                          size_t buf_size);

#endif /* CUBIND_INTERNAL_H */
