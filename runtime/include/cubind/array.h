/*
 * array.h: cubind::array, PyCUDA's GPUArray in C: a typed device array and its elementwise
 * operations and reductions, precompiled for f32, f64, i32 and i64 (link cubind::array; the core
 * runtime stays without it).
 *
 *   cubind_array a, b = {0};
 *   cubind_array_to_gpu(&a, host, n, CUBIND_F32);
 *   cubind_array_scale(&b, 2, &a);          PyCUDA's (2*a_gpu)
 *   cubind_array_get(&b, host);             .get()
 *   cubind_array_free(&a); cubind_array_free(&b);
 *
 * Every function returns CUBIND_SUCCESS or a failure status with cubind_last_error() saying
 * why. Arguments are checked before the driver is touched: a NULL array, a freed or
 * uninitialised one (its dtype is not one of the four), a NULL buffer with elements, mismatched
 * counts or dtypes are CUBIND_ERROR_INVALID_VALUE, never a crash.
 *
 * An `out` array whose data is NULL (`cubind_array b = {0}`, or freed) is allocated with the
 * inputs' count and dtype; an allocated `out` must match them (it may be one of the inputs).
 * Scalars (alpha, beta, fill values) are converted to the array's dtype. Operations run on the
 * legacy default stream, in order, on arrays of the calling thread's device (else, and for
 * arrays of two devices in one operation, CUBIND_ERROR_INVALID_VALUE);
 * reductions return when their result is on the host, as a double (i64 values above 2^53 are
 * rounded). Integer division by zero is undefined, as in C.
 */
#ifndef CUBIND_ARRAY_H
#define CUBIND_ARRAY_H

#include <stddef.h>

#include <cubind/cubind.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cubind_dtype { CUBIND_F32, CUBIND_F64, CUBIND_I32, CUBIND_I64 } cubind_dtype;

/* data: device memory (NULL when count is 0 or after cubind_array_free); device: its ordinal. */
typedef struct cubind_array {
  void *data;
  size_t count;
  cubind_dtype dtype;
  int device;
} cubind_array;

/* cubind_array_empty: *a = a new array of count elements, uninitialised. */
cubind_status cubind_array_empty(cubind_array *a, size_t count, cubind_dtype dtype);

/* cubind_array_zeros: *a = a new array of count zeros. */
cubind_status cubind_array_zeros(cubind_array *a, size_t count, cubind_dtype dtype);

/* cubind_array_to_gpu: *a = a new array holding a copy of count elements at `host`. */
cubind_status cubind_array_to_gpu(cubind_array *a, const void *host, size_t count,
                                  cubind_dtype dtype);

/* cubind_array_get: copies the array's elements to `host` (count elements of its dtype). */
cubind_status cubind_array_get(const cubind_array *a, void *host);

/* cubind_array_free: frees the device memory; *a then reads as freed (data NULL). */
cubind_status cubind_array_free(cubind_array *a);

/* cubind_array_fill: every element = value. */
cubind_status cubind_array_fill(cubind_array *a, double value);

/* cubind_array_scale: out = alpha * x (PyCUDA's 2*a_gpu). */
cubind_status cubind_array_scale(cubind_array *out, double alpha, const cubind_array *x);

/* cubind_array_axpby: out = alpha * x + beta * y. */
cubind_status cubind_array_axpby(cubind_array *out, double alpha, const cubind_array *x,
                                 double beta, const cubind_array *y);

/* cubind_array_add / _sub / _mul / _div: out = x + y, x - y, x * y, x / y, elementwise. */
cubind_status cubind_array_add(cubind_array *out, const cubind_array *x, const cubind_array *y);
cubind_status cubind_array_sub(cubind_array *out, const cubind_array *x, const cubind_array *y);
cubind_status cubind_array_mul(cubind_array *out, const cubind_array *x, const cubind_array *y);
cubind_status cubind_array_div(cubind_array *out, const cubind_array *x, const cubind_array *y);

/*
 * cubind_array_sum / _dot: *result = the sum of x's elements, of x's and y's products (0 for
 * empty arrays). f32 accumulates in float, f64 in double, i32 and i64 in 64-bit integers; the
 * order of combining is fixed for a device and a count (cubind/elementwise.cuh), so a result
 * repeats exactly.
 */
cubind_status cubind_array_sum(const cubind_array *x, double *result);
cubind_status cubind_array_dot(const cubind_array *x, const cubind_array *y, double *result);

/* cubind_array_min / _max: *result = the smallest / largest element; an empty array fails. */
cubind_status cubind_array_min(const cubind_array *x, double *result);
cubind_status cubind_array_max(const cubind_array *x, double *result);

#ifdef __cplusplus
}
#endif

#endif /* CUBIND_ARRAY_H */
