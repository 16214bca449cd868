/*
 * test_arguments.c (array/src/array.c): every argument error of cubind::array is a status and a
 * message, given before the driver is touched (there is none: see CMakeLists.txt), arrays of two
 * devices in one operation included.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <cubind/array.h>

/* The last call failed with `status` and a message holding `text`. */
#define assert_refused(call, status, text)                                                     \
  do {                                                                                         \
    assert_int_equal((call), (status));                                                        \
    if (!strstr(cubind_last_error(), (text)))                                                  \
      fail_msg("message '%s' lacks '%s'", cubind_last_error(), (text));                        \
  } while (0)

static float host[4];
static int device_memory; /* the address arrays below pretend to own (never dereferenced) */

/* An array that looks allocated: the checks never reach the memory. */
static cubind_array fake(size_t count, cubind_dtype dtype) {
  cubind_array a;
  a.data = &device_memory;
  a.count = count;
  a.dtype = dtype;
  a.device = 0;
  return a;
}

static int setup(void **state) {
  (void)state;
  return cubind_set_driver_library("/nonexistent/libcuda.so.1") == CUBIND_SUCCESS ? 0 : -1;
}

static void allocation(void **state) {
  cubind_array a;
  (void)state;
  assert_refused(cubind_array_empty(NULL, 4, CUBIND_F32), CUBIND_ERROR_INVALID_VALUE, "NULL");
  assert_refused(cubind_array_zeros(&a, 4, (cubind_dtype)7), CUBIND_ERROR_INVALID_VALUE,
                 "dtype 7");
  assert_refused(cubind_array_empty(&a, SIZE_MAX / 2, CUBIND_F64), CUBIND_ERROR_SIZE_OVERFLOW,
                 "overflow");
  assert_refused(cubind_array_to_gpu(&a, NULL, 4, CUBIND_F32), CUBIND_ERROR_INVALID_VALUE,
                 "host is NULL");
  /* empty arrays need no device */
  assert_int_equal(cubind_array_empty(&a, 0, CUBIND_I64), CUBIND_SUCCESS);
  assert_null(a.data);
  assert_int_equal(a.dtype, CUBIND_I64);
  assert_int_equal(cubind_array_to_gpu(&a, NULL, 0, CUBIND_I32), CUBIND_SUCCESS);
  assert_int_equal(cubind_array_get(&a, NULL), CUBIND_SUCCESS);
  assert_int_equal(cubind_array_free(&a), CUBIND_SUCCESS);
}

static void freed_and_null(void **state) {
  cubind_array a, out = {NULL, 0, CUBIND_F32, 0};
  double r;
  (void)state;
  assert_int_equal(cubind_array_empty(&a, 0, CUBIND_F32), CUBIND_SUCCESS);
  assert_int_equal(cubind_array_free(&a), CUBIND_SUCCESS);
  assert_refused(cubind_array_free(&a), CUBIND_ERROR_INVALID_VALUE, "freed");
  assert_refused(cubind_array_get(&a, host), CUBIND_ERROR_INVALID_VALUE, "freed");
  assert_refused(cubind_array_fill(&a, 1), CUBIND_ERROR_INVALID_VALUE, "freed");
  assert_refused(cubind_array_scale(&out, 2, &a), CUBIND_ERROR_INVALID_VALUE, "x is freed");
  assert_refused(cubind_array_sum(&a, &r), CUBIND_ERROR_INVALID_VALUE, "freed");
  assert_refused(cubind_array_get(NULL, host), CUBIND_ERROR_INVALID_VALUE, "is NULL");
  assert_refused(cubind_array_fill(NULL, 1), CUBIND_ERROR_INVALID_VALUE, "is NULL");
  assert_refused(cubind_array_free(NULL), CUBIND_ERROR_INVALID_VALUE, "is NULL");
  assert_refused(cubind_array_scale(&out, 2, NULL), CUBIND_ERROR_INVALID_VALUE, "x is NULL");
  assert_refused(cubind_array_min(NULL, &r), CUBIND_ERROR_INVALID_VALUE, "x is NULL");
  assert_refused(cubind_array_dot(&a, NULL, &r), CUBIND_ERROR_INVALID_VALUE, "y is NULL");
  /* elements without memory */
  a = fake(4, CUBIND_F32);
  a.data = NULL;
  assert_refused(cubind_array_get(&a, host), CUBIND_ERROR_INVALID_VALUE, "no device memory");
  a = fake(4, CUBIND_F32);
  assert_refused(cubind_array_get(&a, NULL), CUBIND_ERROR_INVALID_VALUE, "host is NULL");
}

static void mismatches(void **state) {
  cubind_array x = fake(4, CUBIND_F32), y = fake(5, CUBIND_F32), z = fake(4, CUBIND_I32);
  cubind_array out = fake(4, CUBIND_F64), short_out = fake(3, CUBIND_F32);
  double r;
  (void)state;
  assert_refused(cubind_array_add(&out, &x, &y), CUBIND_ERROR_INVALID_VALUE,
                 "x has 4 elements but y has 5");
  assert_refused(cubind_array_sub(&out, &x, &z), CUBIND_ERROR_INVALID_VALUE,
                 "x is f32 but y is i32");
  assert_refused(cubind_array_mul(&out, &x, &x), CUBIND_ERROR_INVALID_VALUE,
                 "out is f64 but the input is f32");
  assert_refused(cubind_array_div(&short_out, &x, &x), CUBIND_ERROR_INVALID_VALUE,
                 "out has 3 elements but the input has 4");
  assert_refused(cubind_array_axpby(&x, 1, &x, 1, &y), CUBIND_ERROR_INVALID_VALUE, "y has 5");
  assert_refused(cubind_array_scale(&out, 2, &x), CUBIND_ERROR_INVALID_VALUE, "out is f64");
  assert_refused(cubind_array_scale(NULL, 2, &x), CUBIND_ERROR_INVALID_VALUE, "out is NULL");
  assert_refused(cubind_array_dot(&x, &y, &r), CUBIND_ERROR_INVALID_VALUE, "5");
  assert_refused(cubind_array_dot(&x, &z, &r), CUBIND_ERROR_INVALID_VALUE, "i32");
  assert_refused(cubind_array_sum(&x, NULL), CUBIND_ERROR_INVALID_VALUE, "result is NULL");
  /* arrays of two devices */
  y = fake(4, CUBIND_F32);
  y.device = 1;
  assert_refused(cubind_array_add(&x, &x, &y), CUBIND_ERROR_INVALID_VALUE, "different devices");
  assert_refused(cubind_array_scale(&y, 2, &x), CUBIND_ERROR_INVALID_VALUE, "different devices");
  assert_refused(cubind_array_dot(&x, &y, &r), CUBIND_ERROR_INVALID_VALUE, "device 0 but y on 1");
}

static void empty_reductions(void **state) {
  cubind_array e = {NULL, 0, CUBIND_F32, 0}, out = {NULL, 0, CUBIND_F32, 0};
  double r = 1;
  (void)state;
  assert_refused(cubind_array_min(&e, &r), CUBIND_ERROR_INVALID_VALUE, "no minimum");
  assert_refused(cubind_array_max(&e, &r), CUBIND_ERROR_INVALID_VALUE, "no maximum");
  /* sums and elementwise operations of empty arrays need no device */
  assert_int_equal(cubind_array_sum(&e, &r), CUBIND_SUCCESS);
  assert_true(r == 0.0);
  assert_int_equal(cubind_array_dot(&e, &e, &r), CUBIND_SUCCESS);
  assert_int_equal(cubind_array_add(&out, &e, &e), CUBIND_SUCCESS);
  assert_int_equal(cubind_array_scale(&out, 2, &e), CUBIND_SUCCESS);
  assert_int_equal(cubind_array_fill(&e, 3), CUBIND_SUCCESS);
}

static void driver_reached(void **state) {
  cubind_array a;
  (void)state;
  /* valid arguments do reach the driver: here, the one that is not there */
  assert_int_equal(cubind_array_empty(&a, 4, CUBIND_F32), CUBIND_ERROR_NO_DRIVER);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(allocation),       cmocka_unit_test(freed_and_null),
      cmocka_unit_test(mismatches),       cmocka_unit_test(empty_reductions),
      cmocka_unit_test(driver_reached),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
