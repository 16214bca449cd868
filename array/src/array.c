/*
 * array.c: cubind::array (<cubind/array.h>): the argument checks, done before the driver is
 * touched, and the dispatch of each operation to its dtype's kernel (array_kernels.cu, bound by
 * cubind-gen as cubindarray_<kernel>_launch). Everything runs on the legacy default stream with
 * the launch shape cubind picks (cfg NULL); reductions copy their result back synchronously.
 */
#include <cubind/array.h>

#include <stdint.h>

#include <cubind/generated.h>

#include "array_kernels.cubind.h"

/* What cubind_array_free leaves in dtype: no dtype, so every later use is refused. */
#define FREED_DTYPE ((cubind_dtype)-1)

static const size_t dtype_sizes[] = {4, 8, 4, 8};
static const char *const dtype_names[] = {"f32", "f64", "i32", "i64"};

static int dtype_valid(cubind_dtype dtype) { return (unsigned)dtype <= (unsigned)CUBIND_I64; }

/* A usable array argument: not NULL, not freed, memory behind its elements. */
static cubind_status check_array(const char *fn, const char *name, const cubind_array *a) {
  if (!a) return cubind_fail(CUBIND_ERROR_INVALID_VALUE, "%s: %s is NULL", fn, name);
  if (!dtype_valid(a->dtype))
    return cubind_fail(CUBIND_ERROR_INVALID_VALUE,
                       "%s: %s is freed or uninitialised (its dtype %d is none of CUBIND_F32, "
                       "CUBIND_F64, CUBIND_I32, CUBIND_I64)",
                       fn, name, (int)a->dtype);
  if (a->count > 0 && !a->data)
    return cubind_fail(CUBIND_ERROR_INVALID_VALUE,
                       "%s: %s has %zu elements but no device memory (data is NULL)", fn, name,
                       a->count);
  return CUBIND_SUCCESS;
}

/* x and y hold the same count of the same dtype. */
static cubind_status check_pair(const char *fn, const char *xname, const cubind_array *x,
                                const char *yname, const cubind_array *y) {
  cubind_status status = check_array(fn, xname, x);
  if (status == CUBIND_SUCCESS) status = check_array(fn, yname, y);
  if (status != CUBIND_SUCCESS) return status;
  if (x->dtype != y->dtype)
    return cubind_fail(CUBIND_ERROR_INVALID_VALUE, "%s: %s is %s but %s is %s", fn, xname,
                       dtype_names[x->dtype], yname, dtype_names[y->dtype]);
  if (x->count != y->count)
    return cubind_fail(CUBIND_ERROR_INVALID_VALUE, "%s: %s has %zu elements but %s has %zu", fn,
                       xname, x->count, yname, y->count);
  return CUBIND_SUCCESS;
}

/*
 * The array's memory is on the calling thread's device (checked after the arguments, before a
 * launch or a copy: a kernel given another device's memory would fault).
 */
static cubind_status check_device(const char *fn, const cubind_array *a) {
  int device = 0;
  cubind_status status = cubind_get_device(&device);
  if (status == CUBIND_SUCCESS && device != a->device)
    return cubind_fail(CUBIND_ERROR_INVALID_VALUE,
                       "%s: the array lives on device %d but the calling thread's device is %d "
                       "(cubind_set_device)",
                       fn, a->device, device);
  return status;
}

/* An array's bytes, or CUBIND_ERROR_SIZE_OVERFLOW. */
static cubind_status array_bytes(const char *fn, size_t count, cubind_dtype dtype,
                                 size_t *bytes) {
  if (count > SIZE_MAX / dtype_sizes[dtype])
    return cubind_fail(CUBIND_ERROR_SIZE_OVERFLOW, "%s: %zu elements of %s overflow size_t", fn,
                       count, dtype_names[dtype]);
  *bytes = count * dtype_sizes[dtype];
  return CUBIND_SUCCESS;
}

/* A new array of count elements in *a (device memory when count > 0). */
static cubind_status allocate(const char *fn, cubind_array *a, size_t count,
                              cubind_dtype dtype) {
  cubind_array made = {NULL, 0, CUBIND_F32, 0};
  size_t bytes = 0;
  cubind_status status;
  if (!a) return cubind_fail(CUBIND_ERROR_INVALID_VALUE, "%s: the array is NULL", fn);
  if (!dtype_valid(dtype))
    return cubind_fail(CUBIND_ERROR_INVALID_VALUE, "%s: dtype %d is none of CUBIND_F32, "
                       "CUBIND_F64, CUBIND_I32, CUBIND_I64", fn, (int)dtype);
  status = array_bytes(fn, count, dtype, &bytes);
  if (status != CUBIND_SUCCESS) return status;
  made.count = count;
  made.dtype = dtype;
  if (bytes > 0) {
    status = cubind_get_device(&made.device);
    if (status == CUBIND_SUCCESS) status = cubind_malloc(&made.data, bytes);
    if (status != CUBIND_SUCCESS) return status;
  }
  *a = made;
  return CUBIND_SUCCESS;
}

/* The output of an operation on `like` (checked): allocated now when it has no memory. */
static cubind_status prepare_out(const char *fn, cubind_array *out, const cubind_array *like) {
  return out->data ? CUBIND_SUCCESS : allocate(fn, out, like->count, like->dtype);
}

/*
 * The arguments of an operation writing `out` from x (and y, when not NULL), checked before the
 * driver is touched: usable, matching, out NULL or unallocated or matching; then, when there
 * are elements, x (and y and an allocated out) on the calling thread's device; then out
 * allocated if it has no memory.
 */
static cubind_status check_operation(const char *fn, cubind_array *out, const cubind_array *x,
                                     const cubind_array *y) {
  cubind_status status = y ? check_pair(fn, "x", x, "y", y) : check_array(fn, "x", x);
  if (status != CUBIND_SUCCESS) return status;
  if (!out) return cubind_fail(CUBIND_ERROR_INVALID_VALUE, "%s: out is NULL", fn);
  if (out->data) {
    status = check_pair(fn, "out", out, "the input", x);
    if (status != CUBIND_SUCCESS) return status;
  }
  if (x->count == 0) return prepare_out(fn, out, x);
  if ((y && y->device != x->device) || (out->data && out->device != x->device))
    return cubind_fail(CUBIND_ERROR_INVALID_VALUE, "%s: the arrays live on different devices (%d, "
                       "%d, %d)", fn, x->device, y ? y->device : x->device,
                       out->data ? out->device : x->device);
  status = check_device(fn, x);
  if (status == CUBIND_SUCCESS) status = prepare_out(fn, out, x);
  return status;
}

cubind_status cubind_array_empty(cubind_array *a, size_t count, cubind_dtype dtype) {
  return allocate("cubind_array_empty", a, count, dtype);
}

cubind_status cubind_array_zeros(cubind_array *a, size_t count, cubind_dtype dtype) {
  cubind_status status = allocate("cubind_array_zeros", a, count, dtype);
  if (status != CUBIND_SUCCESS || count == 0) return status;
  return cubind_memset_d8(a->data, 0, count * dtype_sizes[dtype]);
}

cubind_status cubind_array_to_gpu(cubind_array *a, const void *host, size_t count,
                                  cubind_dtype dtype) {
  cubind_status status;
  if (count > 0 && !host)
    return cubind_fail(CUBIND_ERROR_INVALID_VALUE,
                       "cubind_array_to_gpu: host is NULL but holds %zu elements", count);
  status = allocate("cubind_array_to_gpu", a, count, dtype);
  if (status != CUBIND_SUCCESS || count == 0) return status;
  status = cubind_to_device(a->data, host, count * dtype_sizes[dtype]);
  if (status != CUBIND_SUCCESS) {
    (void)cubind_free(a->data);
    a->data = NULL;
    a->dtype = FREED_DTYPE;
  }
  return status;
}

cubind_status cubind_array_get(const cubind_array *a, void *host) {
  cubind_status status = check_array("cubind_array_get", "the array", a);
  if (status != CUBIND_SUCCESS || a->count == 0) return status;
  if (!host)
    return cubind_fail(CUBIND_ERROR_INVALID_VALUE,
                       "cubind_array_get: host is NULL but the array holds %zu elements",
                       a->count);
  status = check_device("cubind_array_get", a);
  if (status != CUBIND_SUCCESS) return status;
  return cubind_from_device(host, a->data, a->count * dtype_sizes[a->dtype]);
}

cubind_status cubind_array_free(cubind_array *a) {
  cubind_status status = check_array("cubind_array_free", "the array", a);
  if (status != CUBIND_SUCCESS) return status;
  if (a->data) status = cubind_free(a->data);
  a->data = NULL;
  a->count = 0;
  a->dtype = FREED_DTYPE;
  return status;
}

cubind_status cubind_array_fill(cubind_array *a, double value) {
  cubind_status status = check_array("cubind_array_fill", "the array", a);
  if (status != CUBIND_SUCCESS || a->count == 0) return status;
  status = check_device("cubind_array_fill", a);
  if (status != CUBIND_SUCCESS) return status;
  switch (a->dtype) {
  case CUBIND_F32: return cubindarray_fill_f32_launch(NULL, a->data, (float)value, a->count);
  case CUBIND_F64: return cubindarray_fill_f64_launch(NULL, a->data, value, a->count);
  case CUBIND_I32: return cubindarray_fill_i32_launch(NULL, a->data, (int)value, a->count);
  default: return cubindarray_fill_i64_launch(NULL, a->data, (long long)value, a->count);
  }
}

cubind_status cubind_array_scale(cubind_array *out, double alpha, const cubind_array *x) {
  const char *fn = "cubind_array_scale";
  cubind_status status = check_operation(fn, out, x, NULL);
  if (status != CUBIND_SUCCESS || x->count == 0) return status;
  switch (x->dtype) {
  case CUBIND_F32:
    return cubindarray_scale_f32_launch(NULL, out->data, (float)alpha, x->data, x->count);
  case CUBIND_F64: return cubindarray_scale_f64_launch(NULL, out->data, alpha, x->data, x->count);
  case CUBIND_I32:
    return cubindarray_scale_i32_launch(NULL, out->data, (int)alpha, x->data, x->count);
  default:
    return cubindarray_scale_i64_launch(NULL, out->data, (long long)alpha, x->data, x->count);
  }
}

cubind_status cubind_array_axpby(cubind_array *out, double alpha, const cubind_array *x,
                                 double beta, const cubind_array *y) {
  const char *fn = "cubind_array_axpby";
  cubind_status status = check_operation(fn, out, x, y);
  if (status != CUBIND_SUCCESS || x->count == 0) return status;
  switch (x->dtype) {
  case CUBIND_F32:
    return cubindarray_axpby_f32_launch(NULL, out->data, (float)alpha, x->data, (float)beta,
                                        y->data, x->count);
  case CUBIND_F64:
    return cubindarray_axpby_f64_launch(NULL, out->data, alpha, x->data, beta, y->data,
                                        x->count);
  case CUBIND_I32:
    return cubindarray_axpby_i32_launch(NULL, out->data, (int)alpha, x->data, (int)beta, y->data,
                                        x->count);
  default:
    return cubindarray_axpby_i64_launch(NULL, out->data, (long long)alpha, x->data,
                                        (long long)beta, y->data, x->count);
  }
}

/* The four elementwise binary operations, one body. */
#define ARRAY_BINARY_OP(op)                                                                     \
  cubind_status cubind_array_##op(cubind_array *out, const cubind_array *x,                     \
                                  const cubind_array *y) {                                      \
    const char *fn = "cubind_array_" #op;                                                       \
    cubind_status status = check_operation(fn, out, x, y);                                      \
    if (status != CUBIND_SUCCESS || x->count == 0) return status;                               \
    switch (x->dtype) {                                                                         \
    case CUBIND_F32: return cubindarray_##op##_f32_launch(NULL, out->data, x->data, y->data,    \
                                                          x->count);                            \
    case CUBIND_F64: return cubindarray_##op##_f64_launch(NULL, out->data, x->data, y->data,    \
                                                          x->count);                            \
    case CUBIND_I32: return cubindarray_##op##_i32_launch(NULL, out->data, x->data, y->data,    \
                                                          x->count);                            \
    default: return cubindarray_##op##_i64_launch(NULL, out->data, x->data, y->data, x->count); \
    }                                                                                           \
  }
ARRAY_BINARY_OP(add)
ARRAY_BINARY_OP(sub)
ARRAY_BINARY_OP(mul)
ARRAY_BINARY_OP(div)

/* The result of a reduction: its kernel's launch into device memory, copied back. */
typedef union reduction_value {
  float f32;
  double f64;
  int i32;
  long long i64;
} reduction_value;

/*
 * Runs `launch` (a reduction kernel's _launch with the result pointer `device`) and reads its
 * result back: 8 bytes of device memory for the call.
 */
typedef cubind_status (*reduction_launch)(void *device, const cubind_array *x,
                                          const cubind_array *y);

static cubind_status reduce(reduction_launch launch, const cubind_array *x, const cubind_array *y,
                            size_t result_bytes, reduction_value *value) {
  void *device = NULL;
  cubind_status status = cubind_malloc(&device, sizeof *value);
  if (status != CUBIND_SUCCESS) return status;
  status = launch(device, x, y);
  /* only the bytes the kernel wrote (a float's 4 of the union's 8) */
  if (status == CUBIND_SUCCESS) status = cubind_from_device(value, device, result_bytes);
  if (status == CUBIND_SUCCESS) status = cubind_free(device);
  else (void)cubind_free(device);
  return status;
}

/* Each reduction's launches, per dtype (the result types as array_kernels.cu accumulates). */
#define ARRAY_REDUCTION_LAUNCHES(name, ...)                                                     \
  static cubind_status launch_##name(void *r, const cubind_array *x, const cubind_array *y) {   \
    (void)y;                                                                                    \
    switch (x->dtype) {                                                                         \
    case CUBIND_F32: return cubindarray_##name##_f32_launch(NULL, r, __VA_ARGS__, x->count);    \
    case CUBIND_F64: return cubindarray_##name##_f64_launch(NULL, r, __VA_ARGS__, x->count);    \
    case CUBIND_I32: return cubindarray_##name##_i32_launch(NULL, r, __VA_ARGS__, x->count);    \
    default: return cubindarray_##name##_i64_launch(NULL, r, __VA_ARGS__, x->count);            \
    }                                                                                           \
  }
ARRAY_REDUCTION_LAUNCHES(sum, x->data)
ARRAY_REDUCTION_LAUNCHES(dot, x->data, y->data)
ARRAY_REDUCTION_LAUNCHES(min, x->data)
ARRAY_REDUCTION_LAUNCHES(max, x->data)

/* A reduction's value as a double: sums and dots of integers accumulate in 64 bits. */
static double as_double(reduction_value value, cubind_dtype dtype, int accumulated) {
  switch (dtype) {
  case CUBIND_F32: return (double)value.f32;
  case CUBIND_F64: return value.f64;
  case CUBIND_I32: return accumulated ? (double)value.i64 : (double)value.i32;
  default: return (double)value.i64;
  }
}

/* The checks and the run every reduction shares; `nonempty`: an empty x is an error. */
static cubind_status reduction(const char *fn, reduction_launch launch, const cubind_array *x,
                               const cubind_array *y, double *result, int accumulated,
                               int nonempty) {
  reduction_value value = {0};
  cubind_status status = y ? check_pair(fn, "x", x, "y", y) : check_array(fn, "x", x);
  if (status != CUBIND_SUCCESS) return status;
  if (!result) return cubind_fail(CUBIND_ERROR_INVALID_VALUE, "%s: result is NULL", fn);
  if (nonempty && x->count == 0)
    return cubind_fail(CUBIND_ERROR_INVALID_VALUE, "%s: x is empty: it has no %s", fn,
                       launch == launch_min ? "minimum" : "maximum");
  if (x->count == 0) {
    *result = 0.0;
    return CUBIND_SUCCESS;
  }
  if (y && y->device != x->device)
    return cubind_fail(CUBIND_ERROR_INVALID_VALUE, "%s: x lives on device %d but y on %d", fn,
                       x->device, y->device);
  status = check_device(fn, x);
  if (status == CUBIND_SUCCESS)
    status = reduce(launch, x, y,
                    x->dtype == CUBIND_F32 || (x->dtype == CUBIND_I32 && !accumulated) ? 4 : 8,
                    &value);
  if (status == CUBIND_SUCCESS) *result = as_double(value, x->dtype, accumulated);
  return status;
}

cubind_status cubind_array_sum(const cubind_array *x, double *result) {
  return reduction("cubind_array_sum", launch_sum, x, NULL, result, 1, 0);
}

cubind_status cubind_array_dot(const cubind_array *x, const cubind_array *y, double *result) {
  const char *fn = "cubind_array_dot";
  if (!y) return cubind_fail(CUBIND_ERROR_INVALID_VALUE, "%s: y is NULL", fn);
  return reduction(fn, launch_dot, x, y, result, 1, 0);
}

cubind_status cubind_array_min(const cubind_array *x, double *result) {
  return reduction("cubind_array_min", launch_min, x, NULL, result, 0, 1);
}

cubind_status cubind_array_max(const cubind_array *x, double *result) {
  return reduction("cubind_array_max", launch_max, x, NULL, result, 0, 1);
}
