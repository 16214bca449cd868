/*
 * test_call.c (runtime/src/call.c): the host-buffer path behind `<kernel>_call`: round trips,
 * count 0, every check that runs before anything else (a count the generated code found
 * invalid, count * elem_size overflowing, a NULL buffer with elements, a parameter out of
 * range), the count helpers of generated.h that compute counts, and a failure injected into
 * each driver call of a call.
 */
#include "test_support.h"

static void call_round_trip(void **state) {
  float a[3000];
  cubind_config cfg = cubind_config_1d(3000, 128);
  int i;
  (void)state;
  for (i = 0; i < 3000; i++)
    a[i] = (float)i;
  assert_int_equal(doublify_call(&cfg, a, 3000), CUBIND_SUCCESS);
  for (i = 0; i < 3000; i++)
    assert_true(a[i] == 2.0f * (float)i);
  assert_int_equal(fake_cuda_calls("cuMemcpyHtoDAsync"), 1);
  assert_int_equal(fake_cuda_calls("cuMemcpyDtoHAsync"), 1);
  assert_int_equal(fake_cuda_calls("cuStreamSynchronize"), 1);
  assert_int_equal(fake_cuda_calls("cuLaunchKernel"), 1);
}

static void call_count_zero(void **state) {
  float *a = (float *)(uintptr_t)0x1234; /* never dereferenced: nothing to copy */
  int n = 0;
  void *args[2] = {&a, &n};
  cubind_host_arg host[1] = {{0, CUBIND_DIRECTION_INOUT, a, 0, sizeof(float), "n"}};
  cubind_config cfg = cubind_config_1d(1, 32);
  (void)state;
  assert_int_equal(cubind_release_scratch(), CUBIND_SUCCESS);
  fake_cuda_reset();
  assert_int_equal(cubind_module_call(&vec_module, 0, &cfg, args, host, 1), CUBIND_SUCCESS);
  assert_null(a); /* the kernel got a NULL device pointer */
  assert_int_equal(fake_cuda_calls("cuMemAlloc"), 0);
  assert_int_equal(fake_cuda_calls("cuMemcpyHtoDAsync") + fake_cuda_calls("cuMemcpyDtoHAsync"), 0);
}

static void call_size_overflow(void **state) {
  float *a = NULL;
  int n = 0;
  void *args[2] = {&a, &n};
  cubind_host_arg host[1] = {
      {0, CUBIND_DIRECTION_IN, (void *)&n, SIZE_MAX / 2, sizeof(float), NULL}};
  cubind_config cfg = cubind_config_1d(1, 32);
  (void)state;
  assert_int_equal(cubind_module_call(&vec_module, 0, &cfg, args, host, 1),
                   CUBIND_ERROR_SIZE_OVERFLOW);
  assert_contains(cubind_last_error(), "doublify_call");
  assert_contains(cubind_last_error(), "parameter 0 'a'");
  assert_contains(cubind_last_error(), "elements of 4 bytes overflow size_t");
  host[0].count_text = "rows * cols";
  assert_int_equal(cubind_module_call(&vec_module, 0, &cfg, args, host, 1),
                   CUBIND_ERROR_SIZE_OVERFLOW);
  assert_contains(cubind_last_error(), "('rows * cols') of 4 bytes overflow size_t");
  assert_int_equal(fake_cuda_calls("cuMemAlloc") + fake_cuda_calls("cuLaunchKernel"), 0);
  /* A NULL host buffer with elements, and a parameter index out of range, are refused too. */
  host[0].count = 4;
  host[0].host = NULL;
  assert_int_equal(cubind_module_call(&vec_module, 0, &cfg, args, host, 1),
                   CUBIND_ERROR_INVALID_VALUE);
  assert_contains(cubind_last_error(), "the host buffer is NULL but holds 4 elements");
  host[0].host = &n;
  host[0].param_index = 5;
  assert_int_equal(cubind_module_call(&vec_module, 0, &cfg, args, host, 1),
                   CUBIND_ERROR_INVALID_VALUE);
  assert_contains(cubind_last_error(), "host argument 0 names parameter 5; the kernel has 2");
  assert_int_equal(cubind_module_call(&vec_module, 0, &cfg, args, NULL, 1),
                   CUBIND_ERROR_INVALID_VALUE);
}

/*
 * A count the generated code found invalid (CUBIND_COUNT_INVALID: its expression was negative or
 * overflowed) fails before anything runs, naming the kernel, the parameter and the expression;
 * a caller's count of (size_t)-1 (a negative count converted) fails alike.
 */
static void invalid_counts(void **state) {
  float a[16];
  int n = -5;
  void *args[2] = {&a, &n};
  cubind_host_arg host[2] = {
      {0, CUBIND_DIRECTION_IN, a, 4, sizeof(float), NULL},
      {0, CUBIND_DIRECTION_INOUT, a,
       cubind_count_result(cubind_count_sub(cubind_count_int(n), cubind_count_int(1))),
       sizeof(float), "n - 1"}};
  cubind_config cfg = cubind_config_1d(16, 32);
  (void)state;
  assert_int_equal(host[1].count, CUBIND_COUNT_INVALID);
  assert_int_equal(cubind_module_call(&vec_module, 0, &cfg, args, host, 2),
                   CUBIND_ERROR_SIZE_OVERFLOW);
  assert_contains(cubind_last_error(),
                  "doublify_call: kernel 'doublify' (module vec) grid=(1,1,1) block=(32,1,1)");
  assert_contains(cubind_last_error(), "parameter 0 'a': its element count 'n - 1' is negative "
                                       "or does not fit in size_t");
  assert_contains(cubind_last_error(), "nothing was copied or launched");
  host[1].count_text = NULL; /* a count the caller passed: `size_t a_count` */
  assert_int_equal(cubind_module_call(&vec_module, 0, &cfg, args, host, 2),
                   CUBIND_ERROR_SIZE_OVERFLOW);
  assert_contains(cubind_last_error(), "parameter 0 'a': its element count is "
                                       "CUBIND_COUNT_INVALID");
  /* the generated stub: doublify_call with n = -5 */
  assert_int_equal(doublify_call(&cfg, a, -5), CUBIND_ERROR_SIZE_OVERFLOW);
  assert_contains(cubind_last_error(), "its element count 'n' is negative");
  assert_int_equal(fake_cuda_calls("cuMemAlloc") + fake_cuda_calls("cuLaunchKernel") +
                       fake_cuda_calls("cuMemcpyHtoDAsync"),
                   0);
}

/*
 * generated.h's count helpers: exact in long long, NAN for overflow and division by zero, and a
 * result that is CUBIND_COUNT_INVALID for NAN or a negative value.
 */
static void count_helpers(void **state) {
  const cubind_count_value nan = CUBIND_COUNT_NAN, max = CUBIND_COUNT_MAX;
  (void)state;
  assert_true(cubind_count_int(0) == 0 && cubind_count_int(-42) == -42);
  assert_true(cubind_count_int(INTMAX_MIN) == nan);
  assert_true(cubind_count_uint(7u) == 7 && cubind_count_uint(UINTMAX_MAX) == nan);
  assert_true(cubind_count_uint((uintmax_t)max) == max);
  assert_true(cubind_count_add(2, 3) == 5 && cubind_count_add(max, 0) == max);
  assert_true(cubind_count_add(max, 1) == nan && cubind_count_add(-max, -1) == nan);
  assert_true(cubind_count_add(nan, 0) == nan && cubind_count_add(5, -7) == -2);
  assert_true(cubind_count_sub(5, 3) == 2 && cubind_count_sub(3, 5) == -2);
  assert_true(cubind_count_sub(-max, 1) == nan && cubind_count_neg(-max) == max);
  assert_true(cubind_count_mul(1000, 1000) == 1000000 && cubind_count_mul(-3, 4) == -12);
  assert_true(cubind_count_mul(0, nan) == nan && cubind_count_mul(-3, -4) == 12);
  assert_true(cubind_count_mul((cubind_count_value)1 << 32, (cubind_count_value)1 << 31) == nan);
  assert_true(cubind_count_mul(max, 1) == max && cubind_count_mul(max, -1) == -max);
  assert_true(cubind_count_div(10, 3) == 3 && cubind_count_div(-7, 2) == -3);
  assert_true(cubind_count_div(10, 0) == nan && cubind_count_mod(10, 0) == nan);
  assert_true(cubind_count_mod(10, 3) == 1 && cubind_count_mod(-7, 2) == -1);
  assert_true(cubind_count_shl(1, 10) == 1024 && cubind_count_shl(0, 100) == 0);
  assert_true(cubind_count_shl(1, 63) == nan && cubind_count_shl(3, 62) == nan);
  assert_true(cubind_count_shl(1, 62) == (cubind_count_value)1 << 62);
  assert_true(cubind_count_shl(-1, 2) == nan && cubind_count_shl(1, -1) == nan);
  assert_true(cubind_count_shr(1024, 3) == 128 && cubind_count_shr(1024, 64) == 0);
  assert_true(cubind_count_shr(nan, 1) == nan && cubind_count_shr(-8, 1) == nan);
  assert_true(cubind_count_lt(1, 2) == 1 && cubind_count_ge(1, 2) == 0);
  assert_true(cubind_count_eq(nan, 2) == nan && cubind_count_bitand(12, 10) == 8);
  assert_true(cubind_count_and(0, nan) == 0 && cubind_count_and(1, nan) == nan);
  assert_true(cubind_count_or(3, nan) == 1 && cubind_count_or(0, 5) == 1);
  assert_true(cubind_count_not(0) == 1 && cubind_count_not(nan) == nan);
  assert_true(cubind_count_select(1, 7, nan) == 7 && cubind_count_select(0, nan, 9) == 9);
  assert_true(cubind_count_select(nan, 1, 2) == nan);
  assert_int_equal(cubind_count_result(42), 42);
  assert_int_equal(cubind_count_result(-1), CUBIND_COUNT_INVALID);
  assert_int_equal(cubind_count_result(nan), CUBIND_COUNT_INVALID);
  /* rows * cols - 1 over ints, as the generated code writes it */
  {
    int rows = 70000, cols = 70000;
    size_t count = cubind_count_result(cubind_count_sub(
        cubind_count_mul(cubind_count_int(rows), cubind_count_int(cols)), cubind_count_int(1)));
    assert_int_equal(count, (size_t)70000 * 70000 - 1); /* no int overflow */
    rows = -2;
    count = cubind_count_result(cubind_count_sub(
        cubind_count_mul(cubind_count_int(rows), cubind_count_int(cols)), cubind_count_int(1)));
    assert_int_equal(count, CUBIND_COUNT_INVALID);
  }
}

static cubind_status scenario_call(void *arg) {
  float a[1000] = {0};
  cubind_config cfg = {{4, 1, 1}, {256, 1, 1}, 0, NULL, {0, 0, 0}, 0};
  (void)arg;
  return doublify_call(&cfg, a, 1000);
}

static void every_call_step_fails_cleanly(void **state) {
  static const injection cases[] = {
      {"cuMemcpyHtoDAsync", CUDA_ERROR_INVALID_VALUE, scenario_call, NULL, CUBIND_ERROR_MEMCPY,
       {"doublify_call", "parameter 0 'a' (4000 bytes) to the device"}, 0},
      {"cuMemcpyDtoHAsync", CUDA_ERROR_ILLEGAL_ADDRESS, scenario_call, NULL,
       CUBIND_ERROR_KERNEL_FAULT, {"doublify_call", "parameter 0 'a' (4000 bytes) back to the host"},
       0},
      {"cuStreamSynchronize", CUDA_ERROR_ILLEGAL_ADDRESS, scenario_call, NULL,
       CUBIND_ERROR_KERNEL_FAULT, {"doublify_call", "kernel 'doublify'", "grid=(4,1,1)"}, 0},
      {"cuLaunchKernel", CUDA_ERROR_INVALID_VALUE, scenario_call, NULL, CUBIND_ERROR_LAUNCH,
       {"doublify_call: cuLaunchKernel failed for kernel 'doublify'"}, 0},
  };
  cubind_config cfg = cubind_config_1d(1, 1);
  float x = 1.0f;
  (void)state;
  assert_int_equal(doublify_call(&cfg, &x, 1), CUBIND_SUCCESS); /* vec loaded */
  run_injections(cases, sizeof cases / sizeof cases[0]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(call_round_trip, test_setup),
      cmocka_unit_test_setup(call_count_zero, test_setup),
      cmocka_unit_test_setup(call_size_overflow, test_setup),
      cmocka_unit_test_setup(invalid_counts, test_setup),
      cmocka_unit_test_setup(count_helpers, test_setup),
      cmocka_unit_test_setup(every_call_step_fails_cleanly, test_setup),
  };
  return RUN_RUNTIME_TESTS(tests, 4);
}
