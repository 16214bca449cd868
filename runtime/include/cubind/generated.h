/*
 * generated.h: the interface between code written by cubind-gen and libcubind.
 *
 * Users never call these directly; the generated `<kernel>_launch` / `<kernel>_call` stubs do.
 * Every generated source checks CUBIND_ABI_VERSION at compile time, and describes its module
 * with the ABI version it was generated for, which the runtime checks again at run time.
 *
 * Ownership: every descriptor is static, read-only (const) data of the generated code. The one
 * mutable object per module is its cubind_module_state, a zero-initialised static that only
 * the runtime writes (atomically). What generated code writes for vec.cu (module `vec`):
 *
 *   static cubind_module_state vec_state;
 *   static const cubind_module vec_module = {
 *       3, "vec", cubind_fatbin_vec, &cubind_fatbin_vec_size,
 *       vec_kernels, 1, &vec_state, NULL, 0};
 *
 * Shared images (relocatable device code, add_gpu_kernels SEPARABLE): several modules (one per
 * .cu file, each with its own descriptor and kernel table) may point at the same embedded
 * fatbin, i.e. the same `image` pointer. The runtime loads each image once per device and shares
 * the loaded module among all modules that point at it: their kernels are resolved from it and
 * a __device__ variable is one object for all of them. The image pointer is the identity: two
 * copies of the same bytes are two images.
 */
#ifndef CUBIND_GENERATED_H
#define CUBIND_GENERATED_H

#include <stddef.h>
#include <stdint.h>
#include <cubind/cubind.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Bumped whenever the structures or functions below change shape or meaning.
 *   2: cubind_module.globals, cubind_module_global_copy
 *   3: cubind_module is const and its runtime state a separate cubind_module_state, pointed to
 *      by `state` (was `void *state`, runtime-owned; `next` is gone); the runtime functions take
 *      `const cubind_module *`; cubind_host_arg.count_text and CUBIND_COUNT_INVALID; the count
 *      helpers cubind_count_*; CUBIND_LAYOUT_CHECK.
 */
#define CUBIND_ABI_VERSION 3

/* How `<kernel>_call` moves a host buffer (from the CUBIND_IN/OUT/INOUT annotations). */
typedef enum cubind_direction {
  CUBIND_DIRECTION_IN = 1,   /* copied to the device before the launch */
  CUBIND_DIRECTION_OUT = 2,  /* copied back to the host after the launch */
  CUBIND_DIRECTION_INOUT = 3 /* both */
} cubind_direction;

/* One kernel parameter as the generator laid it out in the kernel's parameter buffer. */
typedef struct cubind_param_info {
  const char *name; /* the parameter's name in the .cu ("" when unnamed) */
  unsigned offset;  /* byte offset in the parameter buffer, or CUBIND_PARAM_OFFSET_ANY */
  unsigned size;    /* size in bytes */
} cubind_param_info;

/*
 * The offset of a parameter aligned to more than 16 bytes (double4_32a, alignas(32)) and of
 * those after it: nvcc aligns such a parameter's address in the constant bank, whose base
 * differs by architecture (on sm_90 it lands 16 bytes further), so only its size is checked.
 * The driver places each argument itself (cuLaunchKernel's kernelParams).
 */
#define CUBIND_PARAM_OFFSET_ANY 0xffffffffu

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

struct cubind_module;

/*
 * The runtime's state of one module: a static object of the generated code, zero-initialised
 * (define it without an initializer), written only by the runtime, never read by anyone else.
 */
typedef struct cubind_module_state {
  void *runtime;                     /* the module's per-device slots; NULL until first use */
  const struct cubind_module *next;  /* the registry's link (cubind_module_register) */
} cubind_module_state;

/* One .cu file's fatbin and kernels: a `static const` object of the generated code. */
typedef struct cubind_module {
  unsigned abi_version;        /* CUBIND_ABI_VERSION of the generator that wrote it (first, in
                                  every ABI, so that any runtime can read it) */
  const char *name;            /* module name (the .cu file's stem), for messages */
  const unsigned char *image;  /* the embedded fatbin (cubind_fatbin_<module>); modules with
                                  the same pointer share one loaded image (see above) */
  const size_t *image_size;    /* its size in bytes (cubind_fatbin_<module>_size): a pointer, so
                                  that the module can be a static initializer in C */
  const cubind_kernel_info *kernels;
  unsigned num_kernels;
  cubind_module_state *state;  /* the module's own zero-initialised state (never NULL). Where
                                  ABI 2 had its runtime-owned pointer, NULL in every module of an
                                  older ABI: a stale object of one is refused, not misread */
  const cubind_global_info *globals; /* its __constant__ / __device__ variables */
  unsigned num_globals;
} cubind_module;

/*
 * CUBIND_CONVERT_(type, value): the conversions of this header's inline code and of the
 * generated stubs, which the user's C++ compiles too: a static_cast there, so that projects
 * building with -Wold-style-cast stay quiet.
 */
#ifdef __cplusplus
#define CUBIND_CONVERT_(type, value) (static_cast<type>(value))
#else
#define CUBIND_CONVERT_(type, value) ((type)(value))
#endif

/*
 * Counts. The element count of a host buffer of `<kernel>_call`: the value of its
 * CUBIND_IN_N(expr) expression, computed by the generated code with the helpers below, or the
 * `size_t <param>_count` argument the caller passed.
 *
 * CUBIND_COUNT_INVALID ((size_t)-1) stands for "no valid count": the expression was negative,
 * overflowed, or divided by zero. cubind_module_call then fails with CUBIND_ERROR_SIZE_OVERFLOW
 * before anything runs, naming the kernel, the parameter and the expression
 * (cubind_host_arg.count_text). A caller-passed count equal to CUBIND_COUNT_INVALID (e.g. a
 * negative int converted to size_t) fails the same way. No valid count can equal it: (size_t)-1
 * elements of at least one byte exceed every address space.
 *
 * The generated code evaluates a count expression exactly, in cubind_count_value (long long)
 * with every operation checked, whatever the types of the kernel's parameters (no int
 * overflow, no undefined behaviour): CUBIND_COUNT_NAN marks a value that overflowed or divided
 * by zero and passes through every later operation. Intermediate values may be negative
 * (n + (-2)); only the result must lie in [0, LLONG_MAX]. E.g. CUBIND_IN_N(rows * cols - 1)
 * with int rows and cols becomes
 *   cubind_count_result(cubind_count_sub(cubind_count_mul(cubind_count_int(rows),
 *                                                         cubind_count_int(cols)),
 *                                        cubind_count_int(1)))
 * All helpers are static inline, C99 and C++, with no compiler builtins required:
 *
 *   cubind_count_int(intmax_t v), cubind_count_uint(uintmax_t v)   a parameter or literal
 *   add, sub, mul, div, mod (C's truncation), shl, shr (negative operands: NAN), neg
 *   lt, le, gt, ge, eq, ne, and, or, not (0 or 1), bitand, bitor, bitxor
 *   select(c, a, b)         c ? a : b (both computed; the one not taken may be NAN)
 *   size_t cubind_count_result(cubind_count_value v)   v, or CUBIND_COUNT_INVALID for NAN or
 *                                                      a negative value
 */
#define CUBIND_COUNT_INVALID CUBIND_CONVERT_(size_t, -1)

typedef long long cubind_count_value;
#define CUBIND_COUNT_NAN (-0x7fffffffffffffffLL - 1) /* LLONG_MIN */
#define CUBIND_COUNT_MAX 0x7fffffffffffffffLL        /* LLONG_MAX */

static inline cubind_count_value cubind_count_int(intmax_t v) {
  return v < -CUBIND_COUNT_MAX || v > CUBIND_COUNT_MAX ? CUBIND_COUNT_NAN
                                                       : CUBIND_CONVERT_(cubind_count_value, v);
}
static inline cubind_count_value cubind_count_uint(uintmax_t v) {
  return v > CUBIND_CONVERT_(uintmax_t, CUBIND_COUNT_MAX) ? CUBIND_COUNT_NAN
                                                         : CUBIND_CONVERT_(cubind_count_value, v);
}
/* 1 when either operand is NAN (every binary helper starts with it). */
static inline int cubind_count_nan2_(cubind_count_value a, cubind_count_value b) {
  return a == CUBIND_COUNT_NAN || b == CUBIND_COUNT_NAN;
}
static inline cubind_count_value cubind_count_add(cubind_count_value a, cubind_count_value b) {
  if (cubind_count_nan2_(a, b) || (b > 0 && a > CUBIND_COUNT_MAX - b) ||
      (b < 0 && a < -CUBIND_COUNT_MAX - b))
    return CUBIND_COUNT_NAN;
  return a + b;
}
static inline cubind_count_value cubind_count_neg(cubind_count_value a) {
  return a == CUBIND_COUNT_NAN ? CUBIND_COUNT_NAN : -a; /* -LLONG_MAX is representable */
}
static inline cubind_count_value cubind_count_sub(cubind_count_value a, cubind_count_value b) {
  return cubind_count_add(a, cubind_count_neg(b));
}
static inline cubind_count_value cubind_count_mul(cubind_count_value a, cubind_count_value b) {
  unsigned long long ua, ub, r;
  if (cubind_count_nan2_(a, b)) return CUBIND_COUNT_NAN;
  if (a == 0 || b == 0) return 0;
  /* a, b > LLONG_MIN: no NAN */
  ua = CUBIND_CONVERT_(unsigned long long, a < 0 ? -a : a);
  ub = CUBIND_CONVERT_(unsigned long long, b < 0 ? -b : b);
  if (ua > CUBIND_CONVERT_(unsigned long long, CUBIND_COUNT_MAX) / ub) return CUBIND_COUNT_NAN;
  r = ua * ub;
  return (a < 0) != (b < 0) ? -CUBIND_CONVERT_(cubind_count_value, r)
                             : CUBIND_CONVERT_(cubind_count_value, r);
}
static inline cubind_count_value cubind_count_div(cubind_count_value a, cubind_count_value b) {
  return cubind_count_nan2_(a, b) || b == 0 ? CUBIND_COUNT_NAN : a / b;
}
static inline cubind_count_value cubind_count_mod(cubind_count_value a, cubind_count_value b) {
  return cubind_count_nan2_(a, b) || b == 0 ? CUBIND_COUNT_NAN : a % b;
}
static inline cubind_count_value cubind_count_shl(cubind_count_value a, cubind_count_value b) {
  if (cubind_count_nan2_(a, b) || a < 0 || b < 0) return CUBIND_COUNT_NAN;
  if (a == 0) return 0;
  return b >= 63 || a > (CUBIND_COUNT_MAX >> b) ? CUBIND_COUNT_NAN : a << b;
}
static inline cubind_count_value cubind_count_shr(cubind_count_value a, cubind_count_value b) {
  if (cubind_count_nan2_(a, b) || a < 0 || b < 0) return CUBIND_COUNT_NAN;
  return b >= 63 ? 0 : a >> b;
}
#define CUBIND_COUNT_COMPARE_(name, op)                                                        \
  static inline cubind_count_value cubind_count_##name(cubind_count_value a,                   \
                                                       cubind_count_value b) {                 \
    return cubind_count_nan2_(a, b) ? CUBIND_COUNT_NAN : (a op b);                             \
  }
CUBIND_COUNT_COMPARE_(lt, <)
CUBIND_COUNT_COMPARE_(le, <=)
CUBIND_COUNT_COMPARE_(gt, >)
CUBIND_COUNT_COMPARE_(ge, >=)
CUBIND_COUNT_COMPARE_(eq, ==)
CUBIND_COUNT_COMPARE_(ne, !=)
CUBIND_COUNT_COMPARE_(bitand, &)
CUBIND_COUNT_COMPARE_(bitor, |)
CUBIND_COUNT_COMPARE_(bitxor, ^)
#undef CUBIND_COUNT_COMPARE_
/* C's && and || look at the right operand only when they need it: so do these. */
static inline cubind_count_value cubind_count_and(cubind_count_value a, cubind_count_value b) {
  if (a == CUBIND_COUNT_NAN) return CUBIND_COUNT_NAN;
  if (a == 0) return 0;
  return b == CUBIND_COUNT_NAN ? CUBIND_COUNT_NAN : b != 0;
}
static inline cubind_count_value cubind_count_or(cubind_count_value a, cubind_count_value b) {
  if (a == CUBIND_COUNT_NAN) return CUBIND_COUNT_NAN;
  if (a != 0) return 1;
  return b == CUBIND_COUNT_NAN ? CUBIND_COUNT_NAN : b != 0;
}
static inline cubind_count_value cubind_count_not(cubind_count_value a) {
  return a == CUBIND_COUNT_NAN ? CUBIND_COUNT_NAN : a == 0;
}
static inline cubind_count_value cubind_count_select(cubind_count_value c, cubind_count_value a,
                                                     cubind_count_value b) {
  return c == CUBIND_COUNT_NAN ? CUBIND_COUNT_NAN : c ? a : b;
}
static inline size_t cubind_count_result(cubind_count_value v) {
  return v < 0 || CUBIND_CONVERT_(unsigned long long, v) >=
                      CUBIND_CONVERT_(unsigned long long, CUBIND_COUNT_INVALID)
             ? CUBIND_COUNT_INVALID
             : CUBIND_CONVERT_(size_t, v);
}

/* One host buffer handled by `<kernel>_call`. */
typedef struct cubind_host_arg {
  unsigned param_index;       /* which kernel parameter (index into the args array) */
  cubind_direction direction;
  void *host;                 /* the caller's host buffer */
  size_t count;               /* number of elements; CUBIND_COUNT_INVALID: see above */
  size_t elem_size;           /* bytes per element */
  const char *count_text;     /* the count expression as written in CUBIND_IN_N(expr) etc.
                                 ("rows * cols"), for messages; NULL when the caller passed
                                 the count (`size_t <param>_count`) */
} cubind_host_arg;

/*
 * cubind_host_buffer_: a caller's buffer as cubind_host_arg and the global copies hold it,
 * without a cast that drops const (a CUBIND_IN buffer is const; the runtime only reads it).
 */
static inline void *cubind_host_buffer_(const void *buffer) {
#ifdef __cplusplus
  return const_cast<void *>(buffer);
#else
  return (void *)(uintptr_t)buffer;
#endif
}

/*
 * CUBIND_LAYOUT_CHECK(name, cond): a compile-time assertion for the generated layout checks
 * (each struct a kernel takes by value: size, alignment, field offsets), usable at file scope
 * in C99 and C++: static_assert (C++11), _Static_assert (C11), else a negative array size.
 * `name` is an identifier naming the check.
 */
#ifndef CUBIND_LAYOUT_CHECK
#if defined(__cplusplus) && __cplusplus >= 201103L
#define CUBIND_LAYOUT_CHECK(name, cond) static_assert(cond, "layout differs: " #name)
#elif !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define CUBIND_LAYOUT_CHECK(name, cond) _Static_assert(cond, "layout differs: " #name)
#else
#define CUBIND_LAYOUT_CHECK(name, cond) typedef char cubind_layout_##name[(cond) ? 1 : -1]
#endif
#endif

/*
 * CUBIND_LAYOUT_CHECK_ALIGN(name, cond): the alignment check of a struct a kernel takes by value,
 * made only where the language can align a type (C11, C++11): C99 and C++98 cannot, and cuda.h
 * aligns CUtensorMap to 128 only for C11 and C++11. Alignment alone changes no byte a stub
 * passes (the driver copies the parameter's bytes into its place); where the struct is a field,
 * the enclosing struct's offset checks still apply.
 */
#ifndef CUBIND_LAYOUT_CHECK_ALIGN
#if (defined(__cplusplus) && __cplusplus >= 201103L) ||                                         \
    (!defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L)
#define CUBIND_LAYOUT_CHECK_ALIGN(name, cond) CUBIND_LAYOUT_CHECK(name, cond)
#else
#define CUBIND_LAYOUT_CHECK_ALIGN(name, cond) typedef char cubind_layout_##name[1]
#endif
#endif

/*
 * cubind_module_register: adds `module` to the process-wide list that cubind_preload() walks.
 * Generated code calls it from a constructor; it takes no lock and allocates nothing. A module
 * registered twice is listed once.
 */
void cubind_module_register(const cubind_module *module);

/*
 * cubind_module_launch: launches kernel `kernel_index` of `module` with `cfg`, asynchronously on
 * cfg->stream. `args[i]` points to the value of parameter i (the cuLaunchKernel convention).
 * The first launch on a device loads the module's image there (thread-safe, once per image and
 * device) and resolves the kernel; later launches take no lock and allocate nothing.
 * Returns CUBIND_SUCCESS or a failure status with cubind_last_error() naming the kernel, the
 * grid/block/shared sizes and the CUDA error.
 */
cubind_status cubind_module_launch(const cubind_module *module, unsigned kernel_index,
                                   const cubind_config *cfg, void **args);

/*
 * cubind_module_call: the host-buffer launch behind `<kernel>_call`. For each of the
 * `num_host_args` entries, device scratch memory of count * elem_size bytes is taken (reused
 * between calls), IN/INOUT buffers are copied to it on cfg->stream, and the pointer that
 * args[param_index] points to is overwritten with the device address. Then the kernel is launched,
 * OUT/INOUT buffers are copied back, and the stream is synchronised before returning.
 * Before anything runs: a count of CUBIND_COUNT_INVALID, or count * elem_size overflowing
 * size_t, fails with CUBIND_ERROR_SIZE_OVERFLOW (naming the parameter and its count_text); a
 * count of 0 passes a NULL device pointer and copies nothing.
 */
cubind_status cubind_module_call(const cubind_module *module, unsigned kernel_index,
                                 const cubind_config *cfg, void **args,
                                 const cubind_host_arg *host_args, unsigned num_host_args);

/*
 * cubind_module_global_copy: copies count * elem_size bytes between `host` and the start of
 * variable `global_index` of `module` on the calling thread's device, synchronously (ordered
 * after the work of the legacy default stream, like cudaMemcpyToSymbol). The first use on a
 * device loads the module's image there and looks the variable up (cuModuleGetGlobal); later
 * uses take no lock. More bytes than the variable holds fail with
 * CUBIND_ERROR_INVALID_VALUE naming the variable and both sizes; count 0 copies nothing.
 */
cubind_status cubind_module_global_copy(const cubind_module *module, unsigned global_index,
                                        void *host, size_t count, size_t elem_size,
                                        cubind_copy_direction direction);

/*
 * cubind_module_kernel_attributes: behind <kernel>_attributes. Resolves the kernel on the
 * calling thread's device (loading the module there if needed) and fills *out.
 */
cubind_status cubind_module_kernel_attributes(const cubind_module *module, unsigned kernel_index,
                                              cubind_kernel_attributes *out);

/*
 * cubind_module_config_occupancy: behind <kernel>_config_occupancy: *out = a 1D configuration
 * over n threads with the block size that maximises the kernel's occupancy
 * (cuOccupancyMaxPotentialBlockSize for shared_bytes of dynamic shared memory per block).
 */
cubind_status cubind_module_config_occupancy(const cubind_module *module, unsigned kernel_index,
                                             size_t n, unsigned shared_bytes, cubind_config *out);

/*
 * cubind_fail: sets the calling thread's last error (cubind_last_error) to the printf-style
 * message, calls the error hook, and returns `status`: libraries built on libcubind
 * (cubind::array) report their own failures the way the runtime does.
 */
cubind_status cubind_fail(cubind_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/*
 * The kernels of <cubind/elementwise.cuh> (CUBIND_ELEMENTWISE, CUBIND_VECTORIZE,
 * CUBIND_REDUCTION): what their stubs tell the runtime besides the arguments. Added in ABI 3
 * without changing anything above: stubs of other kernels never use it.
 */
#define CUBIND_NO_SCRATCH 0xffffffffu
typedef struct cubind_elementwise_shape {
  size_t n;               /* the element count (the kernel's `size_t n`) */
  unsigned scratch_index; /* a reduction's hidden scratch parameter; CUBIND_NO_SCRATCH for an
                             elementwise kernel */
  size_t result_size;     /* a reduction: the bytes of its result type; else 0 */
  unsigned count_index;   /* the parameter that holds n */
  int element_map;        /* 1: element i reads and writes element i of its pointers only
                             (CUBIND_VECTORIZE): _call may run it in chunks */
} cubind_elementwise_shape;

/*
 * cubind_module_launch_elementwise: cubind_module_launch for such a kernel. `cfg` may be NULL:
 * then the grid is the device's multiprocessor count times the blocks of 256 threads
 * (CUBIND_REDUCTION_BLOCK) each can hold for this kernel (cached in the kernel's slot at the
 * first such launch), capped by what n needs, on the legacy default stream. An elementwise
 * kernel with n == 0 returns CUBIND_SUCCESS without launching. A reduction always launches
 * (n == 0 writes the neutral value); its blocks must be CUBIND_REDUCTION_BLOCK threads; its
 * scratch (a ticket and one partial per block) is taken with cuMemAllocAsync on the launch's
 * stream, zeroed there, and freed there after the kernel (cuMemFreeAsync): calls on several
 * streams never share it.
 */
cubind_status cubind_module_launch_elementwise(const cubind_module *module, unsigned kernel_index,
                                               const cubind_config *cfg, void **args,
                                               const cubind_elementwise_shape *shape);

/*
 * cubind_module_call_elementwise: cubind_module_call for such a kernel, with the launch of
 * cubind_module_launch_elementwise (cfg may be NULL); an elementwise kernel with n == 0 copies
 * and launches nothing.
 */
cubind_status cubind_module_call_elementwise(const cubind_module *module, unsigned kernel_index,
                                             const cubind_config *cfg, void **args,
                                             const cubind_host_arg *host_args,
                                             unsigned num_host_args,
                                             const cubind_elementwise_shape *shape);

#ifdef __cplusplus
}
#endif

#endif /* CUBIND_GENERATED_H */
