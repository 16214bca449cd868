/*
 * generated.h: the interface between code written by cubind-gen and libcubind.
 *
 * Users never call these directly; the generated `<kernel>_launch` / `<kernel>_call` stubs do.
 * Every generated source checks CUBIND_ABI_VERSION at compile time, and registers its module
 * with the ABI version it was generated for, which the runtime checks again at load time.
 *
 * Ownership: all descriptors are static, read-only data of the generated code, except
 * cubind_module.state, which only the runtime writes (atomically, once per module).
 */
#ifndef CUBIND_GENERATED_H
#define CUBIND_GENERATED_H

#include <stddef.h>
#include <cubind/cubind.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever the structures or functions below change shape or meaning. */
#define CUBIND_ABI_VERSION 2 /* 2: cubind_module.globals, cubind_module_global_copy */

/* How `<kernel>_call` moves a host buffer (from the CUBIND_IN/OUT/INOUT annotations). */
typedef enum cubind_direction {
  CUBIND_DIRECTION_IN = 1,   /* copied to the device before the launch */
  CUBIND_DIRECTION_OUT = 2,  /* copied back to the host after the launch */
  CUBIND_DIRECTION_INOUT = 3 /* both */
} cubind_direction;

/* One kernel parameter as the generator laid it out in the kernel's parameter buffer. */
typedef struct cubind_param_info {
  const char *name; /* the parameter's name in the .cu ("" when unnamed) */
  unsigned offset;  /* byte offset in the parameter buffer */
  unsigned size;    /* size in bytes */
} cubind_param_info;

/* One kernel of a module. */
typedef struct cubind_kernel_info {
  const char *name;   /* the C-facing name: "doublify", "scale_float" (used in messages) */
  const char *symbol; /* the symbol nvcc gives the kernel in the cubin (mangled for C++) */
  const cubind_param_info *params;
  unsigned num_params;
} cubind_kernel_info;

/* One __constant__ or __device__ variable of a module. */
typedef struct cubind_global_info {
  const char *name;   /* the C-facing name: "coeffs" (used in messages) */
  const char *symbol; /* its symbol in the cubin (mangled in a namespace) */
} cubind_global_info;

/* Which way cubind_module_global_copy copies. */
typedef enum cubind_copy_direction {
  CUBIND_COPY_TO_DEVICE = 1,  /* host -> the variable */
  CUBIND_COPY_FROM_DEVICE = 2 /* the variable -> host */
} cubind_copy_direction;

/* One .cu file's fatbin and kernels. Defined (non-const, static storage) by generated code. */
typedef struct cubind_module {
  unsigned abi_version;        /* CUBIND_ABI_VERSION of the generator that wrote it */
  const char *name;            /* module name (the .cu file's stem), for messages */
  const unsigned char *image;  /* the embedded fatbin (cubind_fatbin_<module>) */
  const size_t *image_size;    /* its size in bytes (cubind_fatbin_<module>_size): a pointer, so
                                  that the module can be a static initializer in C */
  const cubind_kernel_info *kernels;
  unsigned num_kernels;
  void *state;                 /* runtime-owned; NULL until first load; never touch */
  struct cubind_module *next;  /* runtime-owned registry link; NULL initially */
  const cubind_global_info *globals; /* its __constant__ / __device__ variables (ABI 2) */
  unsigned num_globals;
} cubind_module;

/* One host buffer handled by `<kernel>_call`. */
typedef struct cubind_host_arg {
  unsigned param_index;       /* which kernel parameter (index into the args array) */
  cubind_direction direction;
  void *host;                 /* the caller's host buffer */
  size_t count;               /* number of elements */
  size_t elem_size;           /* bytes per element */
} cubind_host_arg;

/*
 * cubind_module_register: adds `module` to the process-wide list that cubind_preload() walks.
 * Generated code calls it from a constructor; it takes no lock and allocates nothing.
 */
void cubind_module_register(cubind_module *module);

/*
 * cubind_module_launch: launches kernel `kernel_index` of `module` with `cfg`, asynchronously on
 * cfg->stream. `args[i]` points to the value of parameter i (the cuLaunchKernel convention).
 * The first launch on a device loads the module there (thread-safe, once); later launches take
 * no lock and allocate nothing.
 * Returns CUBIND_SUCCESS or a failure status with cubind_last_error() naming the kernel, the
 * grid/block/shared sizes and the CUDA error.
 */
cubind_status cubind_module_launch(cubind_module *module, unsigned kernel_index,
                                   const cubind_config *cfg, void **args);

/*
 * cubind_module_call: the host-buffer launch behind `<kernel>_call`. For each of the
 * `num_host_args` entries, device scratch memory of count * elem_size bytes is taken (reused
 * between calls), IN/INOUT buffers are copied to it on cfg->stream, and the pointer that
 * args[param_index] points to is overwritten with the device address. Then the kernel is launched,
 * OUT/INOUT buffers are copied back, and the stream is synchronised before returning.
 * A count of 0 passes a NULL device pointer and copies nothing; count * elem_size overflowing
 * size_t fails with CUBIND_ERROR_SIZE_OVERFLOW before anything runs.
 */
cubind_status cubind_module_call(cubind_module *module, unsigned kernel_index,
                                 const cubind_config *cfg, void **args,
                                 const cubind_host_arg *host_args, unsigned num_host_args);

/*
 * cubind_module_global_copy: copies count * elem_size bytes between `host` and the start of
 * variable `global_index` of `module` on the calling thread's device, synchronously (ordered
 * after the work of the legacy default stream, like cudaMemcpyToSymbol). The first use on a
 * device loads the module there and looks the variable up (cuLibraryGetGlobal or
 * cuModuleGetGlobal); later uses take no lock. More bytes than the variable holds fail with
 * CUBIND_ERROR_INVALID_VALUE naming the variable and both sizes; count 0 copies nothing.
 */
cubind_status cubind_module_global_copy(cubind_module *module, unsigned global_index, void *host,
                                        size_t count, size_t elem_size,
                                        cubind_copy_direction direction);

/*
 * cubind_module_kernel_attributes: behind <kernel>_attributes. Resolves the kernel on the
 * calling thread's device (loading the module there if needed) and fills *out.
 */
cubind_status cubind_module_kernel_attributes(cubind_module *module, unsigned kernel_index,
                                              cubind_kernel_attributes *out);

/*
 * cubind_module_config_occupancy: behind <kernel>_config_occupancy: *out = a 1D configuration
 * over n threads with the block size that maximises the kernel's occupancy
 * (cuOccupancyMaxPotentialBlockSize for shared_bytes of dynamic shared memory per block).
 */
cubind_status cubind_module_config_occupancy(cubind_module *module, unsigned kernel_index,
                                             size_t n, unsigned shared_bytes, cubind_config *out);

#ifdef __cplusplus
}
#endif

#endif /* CUBIND_GENERATED_H */
