/*
 * fake_cuda.h: control API of libfake_cuda.so, the stand-in CUDA driver the runtime tests load
 * through CUBIND_DRIVER_LIBRARY / cubind_set_driver_library.
 *
 * Device memory is host memory, copies are memcpy, and launching one of the known kernels runs a
 * tiny CPU version of it. Every entry point counts its calls and can be made to fail.
 * Environment, read when the runtime initialises:
 *   FAKE_CUDA_DEVICES=n      number of devices (default 1, at most 8)
 *   FAKE_CUDA_VERSION=v      driver version (default 12080): below 12000 the library API is
 *                            withheld, below 12040 cuFuncGetParamInfo
 *   FAKE_CUDA_HIDE=name      cuGetProcAddress does not hand out `name`
 *   FAKE_CUDA_STUB=1         behave as the toolkit's stub libcuda.so: cuGetProcAddress fails
 *                            with CUDA_ERROR_STUB_LIBRARY; FAKE_CUDA_STUB=init: only cuInit does
 *
 * cuPointerGetAttributes(MEMORY_TYPE) says CU_MEMORYTYPE_HOST inside cuMemAllocHost allocations and
 * 0 elsewhere (pageable), without an error, as the driver does.
 *
 * Images: cuModuleLoadData accepts anything that starts like a fatbin; each
 * loaded image has its own __device__ variable "coeffs" (8 doubles), so modules that share one
 * loaded image share it, and separately loaded images do not.
 * Kernels report 16 registers, 1 KiB of static shared memory and PTX/binary version = the
 * compute capability; occupancy: 108 multiprocessors of 2048 threads, the largest block up to
 * 256 threads maximises it.
 *
 * Known kernels (symbol: parameters as offset/size; CPU behaviour):
 *   doublify  (float *a @0/8, int n @8/4): a[i] *= 2 for i < n
 *   noop      (): nothing
 *   mismatch  (float *a @0/8, double n @8/8): nothing (for the ABI check)
 *   small     (float *a @0/8, int n @8/4): like doublify, at most 128 threads per block
 */
#ifndef FAKE_CUDA_H
#define FAKE_CUDA_H

#include <cuda.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Clears the failure rule and every call counter. */
void fake_cuda_reset(void);

/*
 * The nth call (1 = the next one) to `function` from now returns `result`, once; with `always`,
 * that call and every later one do. `function` NULL: the nth call to any entry point.
 */
void fake_cuda_fail(const char *function, unsigned nth, CUresult result, int always);

/* Calls to `function` since the last reset. */
unsigned long fake_cuda_calls(const char *function);

/* Library or module loads on `device` since the process started. */
unsigned long fake_cuda_loads(int device);

/* Live objects: device allocations, host allocations, streams, events, libraries + modules. */
long fake_cuda_live_device_allocations(void);
long fake_cuda_live_host_allocations(void);
long fake_cuda_live_streams(void);
long fake_cuda_live_events(void);
long fake_cuda_live_images(void);
long fake_cuda_live_registrations(void); /* cuMemHostRegister'ed ranges */

/* The compute capability every fake device reports (default 8.0). */
void fake_cuda_set_compute_capability(int major, int minor);

/*
 * on: async copies are queued and done only when an event recorded after them, the stream, the
 * context, a launch or a synchronous copy is synchronised (as a GPU would do them later); off
 * (default): done at once. Single-threaded tests only. Switching flushes the queue.
 */
void fake_cuda_defer_async_copies(int on);

/*
 * The next call to the entry point `function` first runs run(data) (once), as another thread
 * would at that moment. Single-threaded tests only.
 */
void fake_cuda_on_call(const char *function, void (*run)(void *), void *data);

/*
 * Page-locked memory freed or unregistered while a queued async copy (deferred mode) still read
 * or wrote it: a DMA the real driver would have run from pages no longer locked.
 */
unsigned long fake_cuda_unregistered_under_copies(void);

/* Makes a context of `device` current on the calling thread, as an application would. */
void fake_cuda_make_current(int device);

#ifdef __cplusplus
}
#endif

#endif /* FAKE_CUDA_H */
