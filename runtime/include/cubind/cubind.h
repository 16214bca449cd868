/*
 * cubind.h: the public runtime API of libcubind.
 *
 * libcubind loads the CUDA driver at run time (no link-time dependency on libcuda), loads the
 * fatbins that cubind-gen's generated code embeds, launches kernels, moves memory and turns
 * every CUDA failure into a status plus a message. No function here aborts or exits.
 *
 * Errors: every function returns a cubind_status. On failure, cubind_last_error() returns the
 * calling thread's full message (what failed, which kernel, which launch dims, the CUDA error's
 * name and text) until the next failing call on that thread.
 */
#ifndef CUBIND_CUBIND_H
#define CUBIND_CUBIND_H

/* C code needs C99 (restrict, inline, long long in these headers and the generated ones): a
   C89 compiler would stop somewhere inside them with a message about something else. */
#if !defined(__cplusplus) && (!defined(__STDC_VERSION__) || __STDC_VERSION__ < 199901L)
#error "cubind's headers need C99 or later: compile this C code with -std=c99 (or c11, gnu99)"
#endif

#include <stddef.h>
#include <cuda.h> /* CUstream, CUresult: types only; the driver itself is loaded at run time */

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the runtime; the generated code checks CUBIND_ABI_VERSION (cubind/generated.h). */
#define CUBIND_VERSION_MAJOR 0
#define CUBIND_VERSION_MINOR 2
#define CUBIND_VERSION_PATCH 0
#define CUBIND_VERSION_STRING "0.2.0"

/*
 * CUBIND_RESTRICT: C99's `restrict`, spelled for whichever language includes this header
 * (C++ compilers say __restrict, or nothing). The generated prototypes use it where a kernel
 * parameter is __restrict__.
 */
#ifndef CUBIND_RESTRICT
#if !defined(__cplusplus)
#define CUBIND_RESTRICT restrict
#elif defined(__GNUC__) || defined(_MSC_VER)
#define CUBIND_RESTRICT __restrict
#else
#define CUBIND_RESTRICT
#endif
#endif

/*
 * The one table of status codes: X(NAME, value, message). cubind_status_string() and the
 * enum below are both generated from it, so a code cannot lack its message.
 */
#define CUBIND_STATUS_TABLE(X)                                                                     \
  X(CUBIND_SUCCESS, 0, "success")                                                                  \
  X(CUBIND_ERROR_INVALID_VALUE, 1, "invalid argument")                                             \
  X(CUBIND_ERROR_NO_DRIVER, 2, "the CUDA driver library could not be loaded")                      \
  X(CUBIND_ERROR_DRIVER_TOO_OLD, 3, "the CUDA driver lacks an entry point cubind needs")           \
  X(CUBIND_ERROR_NO_DEVICE, 4, "no CUDA device is available")                                      \
  X(CUBIND_ERROR_INVALID_DEVICE, 5, "invalid device ordinal")                                      \
  X(CUBIND_ERROR_CONTEXT, 6, "no usable CUDA context")                                             \
  X(CUBIND_ERROR_NO_KERNEL_IMAGE, 7, "the fatbin holds no code for this device's architecture")    \
  X(CUBIND_ERROR_MODULE_LOAD, 8, "loading the embedded fatbin failed")                             \
  X(CUBIND_ERROR_KERNEL_NOT_FOUND, 9, "a kernel symbol is missing from the loaded fatbin")         \
  X(CUBIND_ERROR_ABI_MISMATCH, 10, "kernel parameter layout differs from the generated stub")     \
  X(CUBIND_ERROR_INVALID_CONFIG, 11, "launch configuration the device cannot run")                 \
  X(CUBIND_ERROR_LAUNCH, 12, "kernel launch failed")                                               \
  X(CUBIND_ERROR_OUT_OF_MEMORY, 13, "out of memory")                                               \
  X(CUBIND_ERROR_MEMCPY, 14, "memory copy failed")                                                 \
  X(CUBIND_ERROR_SIZE_OVERFLOW, 15, "element count times element size overflows size_t")          \
  X(CUBIND_ERROR_KERNEL_FAULT, 16, "a kernel faulted on the device (the context is unusable)")     \
  X(CUBIND_ERROR_STREAM, 17, "stream or event operation failed")                                   \
  X(CUBIND_ERROR_VERSION_MISMATCH, 18, "generated code and runtime versions differ")              \
  X(CUBIND_ERROR_CUDA, 19, "other CUDA driver error")

/* One code per failure class; cubind_last_error() carries the detail. */
typedef enum cubind_status {
#define CUBIND_STATUS_ENUM_(name, value, message) name = value,
  CUBIND_STATUS_TABLE(CUBIND_STATUS_ENUM_)
#undef CUBIND_STATUS_ENUM_
} cubind_status;

/*
 * cubind_status_string: the fixed one-line message for a status.
 * Input: any value (unknown values are reported as such). Returns a static string, never NULL.
 */
const char *cubind_status_string(cubind_status status);

/*
 * cubind_status_name: the enumerator's name ("CUBIND_ERROR_LAUNCH"), or "CUBIND_UNKNOWN_STATUS".
 */
const char *cubind_status_name(cubind_status status);

/*
 * cubind_last_error: the calling thread's last failure message, in full.
 * Returns a thread-local string, valid until the thread's next cubind call that fails;
 * "" when the thread has had no failure.
 */
const char *cubind_last_error(void);

/*
 * cubind_error_hook: called on the failing thread for every failure, with the status and the
 * full message, before the failing call returns. Lets embedded users route errors to their logs.
 * The hook may run while cubind holds an internal lock: it must not call cubind functions.
 */
typedef void (*cubind_error_hook)(cubind_status status, const char *message, void *user_data);

/*
 * cubind_set_error_hook: installs hook (NULL removes it). Process-wide; set it before starting
 * threads that use cubind.
 */
void cubind_set_error_hook(cubind_error_hook hook, void *user_data);

/*
 * Half-precision scalars as C sees them: the bits of an IEEE binary16 / bfloat16 value. The
 * generated stubs use these where a kernel takes __half / __nv_bfloat16 (same size and
 * alignment, so the launch passes the bits unchanged).
 */
typedef struct cubind_half {
  unsigned short bits;
} cubind_half;
typedef struct cubind_bfloat16 {
  unsigned short bits;
} cubind_bfloat16;

/*
 * Pairs as C sees __half2 / __nv_bfloat162: 4 bytes, aligned to 4 like the device types, the
 * halves in h[0] (.x) and h[1] (.y).
 */
typedef union cubind_half2 {
  cubind_half h[2];
  unsigned int bits;
} cubind_half2;
typedef union cubind_bfloat162 {
  cubind_bfloat16 h[2];
  unsigned int bits;
} cubind_bfloat162;

/*
 * 8-bit floating point as C sees cuda_fp8.h's types (__nv_fp8_e4m3, __nv_fp8_e5m2,
 * __nv_fp8_e8m0 and their x2 / x4 vectors): the bits of one, two or four values, the first in
 * the lowest byte, with the device types' size and alignment.
 */
typedef struct cubind_fp8 {
  unsigned char bits;
} cubind_fp8;
typedef struct cubind_fp8x2 {
  unsigned short bits;
} cubind_fp8x2;
typedef struct cubind_fp8x4 {
  unsigned int bits;
} cubind_fp8x4;

/* ---- Launch configuration ------------------------------------------------------------------ */

typedef struct cubind_dim3 {
  unsigned x, y, z;
} cubind_dim3;

/* cubind_config.flags */
#define CUBIND_LAUNCH_COOPERATIVE 1u /* a cooperative launch: the kernel may use grid.sync() */

typedef struct cubind_config {
  cubind_dim3 grid, block;
  unsigned shared_bytes; /* dynamic shared memory, in bytes */
  CUstream stream;       /* 0: the legacy default stream; a cudaStream_t works too */
  /* Launch attributes (cuLaunchKernelEx); all zero (the default of cubind_config_1d and of an
     initializer that omits them): a plain cuLaunchKernel. */
  cubind_dim3 cluster;   /* thread block cluster dims (sm_90+); {0, 0, 0}: none; a 0 among
                            non-zero dims counts as 1; each grid dim must be a multiple */
  unsigned flags;        /* CUBIND_LAUNCH_* bits */
} cubind_config;

/*
 * What the driver reports for one kernel on the calling thread's device (the PyCUDA
 * Function attributes), from <kernel>_attributes(&a). The occupancy pair is
 * cuOccupancyMaxPotentialBlockSize's answer for no dynamic shared memory.
 */
typedef struct cubind_kernel_attributes {
  int num_regs;                  /* registers per thread */
  int static_shared_bytes;       /* __shared__ variables */
  int local_bytes;               /* local memory per thread (spills, stack arrays) */
  int const_bytes;               /* __constant__ memory the kernel uses */
  int max_threads_per_block;     /* the most a launch may ask for (__launch_bounds__, registers) */
  int max_dynamic_shared_bytes;  /* dynamic shared memory a launch may ask for (opt-in applied) */
  int ptx_version;               /* e.g. 90: PTX ISA target the code was built from */
  int binary_version;            /* e.g. 90: the SASS architecture loaded */
  int occupancy_block_size;      /* the block size that maximises occupancy */
  int occupancy_min_grid_size;   /* the smallest grid that reaches that occupancy */
  unsigned cluster_dims[3];      /* __cluster_dims__, or all 0 */
} cubind_kernel_attributes;

/*
 * cubind_config_1d: a 1-D configuration covering n threads with blocks of `block` threads.
 * grid.x = ceil(n / block) (at least 1), no shared memory, default stream.
 * A block of 0 gives a config that the launch rejects with CUBIND_ERROR_INVALID_CONFIG.
 */
cubind_config cubind_config_1d(size_t n, unsigned block);

/* ---- Driver, devices and contexts ---------------------------------------------------------- */

/*
 * cubind_init: loads the driver library and initialises it. Every other call does this on
 * first use; call it yourself to find out early whether a GPU is usable.
 * The driver library is `libcuda.so.1`, or the path in the environment variable
 * CUBIND_DRIVER_LIBRARY, or the path given to cubind_set_driver_library() before the first call.
 * Returns CUBIND_SUCCESS, CUBIND_ERROR_NO_DRIVER, CUBIND_ERROR_DRIVER_TOO_OLD or
 * CUBIND_ERROR_NO_DEVICE. The outcome is remembered: a failed init fails every later call alike.
 */
cubind_status cubind_init(void);

/*
 * cubind_set_driver_library: use `path` instead of libcuda.so.1. Only effective before the
 * driver is first loaded; returns CUBIND_ERROR_INVALID_VALUE afterwards. The string is copied.
 */
cubind_status cubind_set_driver_library(const char *path);

/* cubind_device_count: number of CUDA devices into *count. */
cubind_status cubind_device_count(int *count);

/*
 * cubind_set_device: selects the device the calling thread uses when it has no current context:
 * its primary context is retained and made current. Default: device 0.
 */
cubind_status cubind_set_device(int ordinal);

/*
 * cubind_get_device: the device of the calling thread's current context (or the selected one,
 * made current) into *ordinal.
 */
cubind_status cubind_get_device(int *ordinal);

/*
 * cubind_preload: loads every module the program links (every registered fatbin) on the calling
 * thread's device now, so that no later launch pays for loading the image (a missing
 * architecture or a damaged fatbin is reported here). Each kernel is still resolved, and its
 * parameter layout checked, at its first launch: as with the driver's cuModuleLoadData, the
 * driver's lazy loading then loads only the kernels that run. Optional.
 */
cubind_status cubind_preload(void);

/* ---- Memory -------------------------------------------------------------------------------- */

/* cubind_malloc: allocates `bytes` of device memory into *dev_ptr (NULL for 0 bytes). */
cubind_status cubind_malloc(void **dev_ptr, size_t bytes);

/* cubind_free: frees device memory from cubind_malloc; NULL is a no-op. */
cubind_status cubind_free(void *dev_ptr);

/* cubind_malloc_host / cubind_free_host: page-locked host memory (fast, async-capable copies). */
cubind_status cubind_malloc_host(void **host_ptr, size_t bytes);
cubind_status cubind_free_host(void *host_ptr);

/*
 * cubind_host_register / cubind_host_unregister: page-lock ordinary host memory in place
 * (PyCUDA's register_host_memory), for buffers a program reuses: copies and `<kernel>_call` on
 * them then run at the link's rate with no staging. `host` and `bytes` need no alignment; a
 * range may be registered once. Unregister before the memory is freed. 0 bytes and
 * cubind_host_unregister(NULL) are no-ops.
 */
cubind_status cubind_host_register(void *host, size_t bytes);
cubind_status cubind_host_unregister(void *host);

/* cubind_to_device / cubind_from_device: synchronous copies; 0 bytes is a no-op. */
cubind_status cubind_to_device(void *dev_dst, const void *host_src, size_t bytes);
cubind_status cubind_from_device(void *host_dst, const void *dev_src, size_t bytes);

/*
 * cubind_to_device_async / cubind_from_device_async: copies ordered on `stream`. Truly
 * asynchronous only for page-locked host memory; the host buffer must stay valid until the
 * stream reaches the copy.
 */
cubind_status cubind_to_device_async(void *dev_dst, const void *host_src, size_t bytes,
                                     CUstream stream);
cubind_status cubind_from_device_async(void *host_dst, const void *dev_src, size_t bytes,
                                       CUstream stream);

/* cubind_memset_d8: sets `bytes` bytes of device memory to `value`. */
cubind_status cubind_memset_d8(void *dev_dst, unsigned char value, size_t bytes);

/* cubind_synchronize: waits for all work in the current context; reports kernel faults. */
cubind_status cubind_synchronize(void);

/* cubind_stream_create / destroy / synchronize: non-blocking streams. */
cubind_status cubind_stream_create(CUstream *stream);
cubind_status cubind_stream_destroy(CUstream stream);
cubind_status cubind_stream_synchronize(CUstream stream);

/*
 * cubind_release_scratch: frees the calling thread's device scratch memory that `<kernel>_call`
 * reuses between calls (also freed when the thread exits), and stops the staging threads of
 * large pageable `_call` buffers and frees their page-locked slots unless a call is using them
 * (started again when needed; also stopped at exit).
 */
cubind_status cubind_release_scratch(void);

/* ---- Timing (the prepared_timed_call analog) ----------------------------------------------- */

typedef struct cubind_timer {
  CUevent start, stop;
  CUstream stream;
} cubind_timer;

/* cubind_timer_create: creates the two events of *timer. */
cubind_status cubind_timer_create(cubind_timer *timer);
/* cubind_timer_start: records the start event on `stream`. */
cubind_status cubind_timer_start(cubind_timer *timer, CUstream stream);
/* cubind_timer_stop: records the stop event, waits for it, and writes the elapsed ms. */
cubind_status cubind_timer_stop(cubind_timer *timer, float *elapsed_ms);
/*
 * cubind_timer_destroy: destroys the events; a zeroed timer is a no-op. An event the driver
 * fails to destroy is left in the timer (the call can be retried).
 */
cubind_status cubind_timer_destroy(cubind_timer *timer);

#ifdef __cplusplus
}
#endif

#endif /* CUBIND_CUBIND_H */
