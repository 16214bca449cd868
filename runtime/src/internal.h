/*
 * internal.h: what the runtime's source files share. Nothing here is public: every function is
 * named cubind__* and hidden from the shared library's exported symbols.
 */
#ifndef CUBIND_INTERNAL_H
#define CUBIND_INTERNAL_H

#include <cuda.h>
#include <cudaTypedefs.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <cubind/cubind.h>
#include <cubind/generated.h>

#include "driver_api.h"

#define CUBIND_INTERNAL __attribute__((visibility("hidden")))

/* Thread-local storage (a GNU extension that gcc and clang accept in C99). */
#define CUBIND_THREAD_LOCAL __thread

/*
 * For the few bytes the launch path touches: initial-exec TLS is read without a __tls_get_addr
 * call, even in the shared library (glibc keeps spare static TLS for such dlopen'ed libraries).
 */
#define CUBIND_FAST_TLS __attribute__((visibility("hidden"), tls_model("initial-exec")))

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

/* 1 once the driver is initialised; written once with release semantics. */
extern int cubind__ready CUBIND_INTERNAL;

/* cubind__driver_loaded: 1 once the driver is initialised (the launch fast path's check). */
static inline int cubind__driver_loaded(void) {
  return __atomic_load_n(&cubind__ready, __ATOMIC_ACQUIRE);
}

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

/* ---- context.c ----------------------------------------------------------------------------- */

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
 * the thread has a current context. `what` names the call for messages.
 */
CUBIND_INTERNAL cubind_status cubind__enter(const char *what);

/* ---- module.c ------------------------------------------------------------------------------ */

/*
 * What a launch needs of one kernel on one device, resolved on the kernel's first launch there
 * (or by cubind_preload), in one 64-byte cache line: the launch path's checks read nothing else
 * of the module's state. `function` is the publication flag: it is stored last, with release
 * semantics, and only once the device slot is committed, so a launch that reads it non-NULL with
 * an acquire load may use every field here.
 */
typedef struct cubind__kernel_slot {
  CUfunction function;         /* NULL until resolved on this device */
  CUcontext context;           /* the context it was resolved in (the module's, on this device) */
  unsigned max_block[3];       /* the device's limits (copies of the device slot's) */
  unsigned max_grid[3];
  unsigned max_threads;        /* cuFuncGetAttribute MAX_THREADS_PER_BLOCK */
  unsigned max_dynamic_shared; /* dynamic shared memory the launch may ask for */
  unsigned cluster_required[3]; /* the kernel's __cluster_dims__ (all 0: none) */
} __attribute__((aligned(64))) cubind__kernel_slot;

/* One module on one device. */
typedef struct cubind__device_slot {
  int loaded;        /* 0 until the fields below are valid; published with release semantics */
  CUcontext context; /* the context the module was loaded (and its kernels resolved) in */
  CUlibrary library; /* either library (CUDA >= 12.0) ... */
  CUmodule cumodule; /* ... or module is set */
  unsigned max_block[3], max_grid[3];
  int optin_shared; /* MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, for resolving kernels */
} cubind__device_slot;

/* cubind__module_slot's `kernel_index` for "every kernel" (cubind_preload). */
#define CUBIND__ALL_KERNELS (~0u)
#define CUBIND__NO_KERNEL (~0u - 1) /* load the module only (variables) */

/* One __constant__ / __device__ variable on one device: looked up once, published by ptr. */
typedef struct cubind__global_slot {
  CUdeviceptr ptr;   /* 0 until looked up; release-stored after the fields below */
  size_t bytes;      /* the variable's size in the cubin */
  CUcontext context; /* the context it was looked up in */
} cubind__global_slot;

/*
 * cubind__module_slot: loads the module on `device` if needed and resolves kernel `kernel_index`
 * (CUBIND__ALL_KERNELS: every kernel) if it is not yet; *kernel (unless kernel is NULL) gets the
 * kernel's slot. Takes the module's mutex: the slow path only. A first load whose first kernel
 * cannot be resolved is undone (nothing stays loaded); a later kernel's failure leaves the module
 * loaded for the others.
 */
CUBIND_INTERNAL cubind_status cubind__module_slot(const char *what, cubind_module *module,
                                                  CUcontext ctx, int device, unsigned kernel_index,
                                                  const cubind__kernel_slot **kernel);

/* A module's runtime state (module->state), allocated (64-byte aligned) at its first load. */
typedef struct cubind__module_state {
  cubind__kernel_slot *kernels; /* [device * num_kernels + kernel], after the device slots */
  cubind__global_slot *globals; /* [device * num_globals + global], after the kernel slots */
  pthread_mutex_t lock;         /* serialises loading and resolving; never on the launch path */
  int num_devices;
  cubind__device_slot slots[]; /* num_devices */
} cubind__module_state;

/*
 * cubind__fast_kernel: the kernel's slot on `device` if the kernel has been resolved there, else
 * NULL. No lock: two acquire loads (plain loads on x86).
 */
static inline const cubind__kernel_slot *cubind__fast_kernel(const cubind_module *module,
                                                             int device, unsigned kernel_index) {
  cubind__module_state *state =
      __atomic_load_n((cubind__module_state *const *)&module->state, __ATOMIC_ACQUIRE);
  const cubind__kernel_slot *k;
  if (CUBIND_UNLIKELY(!state)) return NULL;
  k = &state->kernels[(size_t)device * module->num_kernels + kernel_index];
  return CUBIND_LIKELY(__atomic_load_n(&k->function, __ATOMIC_ACQUIRE) != NULL) ? k : NULL;
}

/*
 * cubind__fatbin_archs: writes "sm_80 (cubin), sm_90 (PTX)"-style text for the architectures a
 * fatbin holds into buf (always terminated). Reads at most `size` bytes of `image`.
 */
CUBIND_INTERNAL void cubind__fatbin_archs(const unsigned char *image, size_t size, char *buf,
                                          size_t buf_size);

#endif /* CUBIND_INTERNAL_H */
