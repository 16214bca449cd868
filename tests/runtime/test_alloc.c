/*
 * test_alloc.c: shows that a launch allocates no heap memory once its module is loaded, and that
 * a steady-state _call allocates none either (its scratch is reused), and neither does an
 * elementwise launch with cfg NULL (<cubind/elementwise.cuh>: its shape is cached). malloc, calloc, realloc and
 * aligned allocations of the whole process are counted by the interposers below.
 */
#define _GNU_SOURCE
#include "test_support.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static unsigned long allocations;

void *malloc(size_t n) {
  __atomic_add_fetch(&allocations, 1, __ATOMIC_RELAXED);
  return __libc_malloc(n);
}
void *calloc(size_t n, size_t m) {
  __atomic_add_fetch(&allocations, 1, __ATOMIC_RELAXED);
  return __libc_calloc(n, m);
}
void *realloc(void *p, size_t n) {
  __atomic_add_fetch(&allocations, 1, __ATOMIC_RELAXED);
  return __libc_realloc(p, n);
}
void *aligned_alloc(size_t a, size_t n) {
  __atomic_add_fetch(&allocations, 1, __ATOMIC_RELAXED);
  return __libc_memalign(a, n);
}

static unsigned long count(void) { return __atomic_load_n(&allocations, __ATOMIC_RELAXED); }

static void no_allocation_per_launch(void **state) {
  float *dev = NULL, host[512];
  cubind_config cfg = cubind_config_1d(512, 128);
  unsigned long before, after, allocs_seen;
  int i;
  (void)state;
  /* The interposer really counts (the fake driver's cuMemAlloc allocates host memory). */
  before = count();
  assert_int_equal(cubind_malloc((void **)&dev, sizeof host), CUBIND_SUCCESS);
  allocs_seen = count() - before;
  assert_true(allocs_seen >= 1);

  assert_int_equal(doublify_launch(&cfg, dev, 512), CUBIND_SUCCESS); /* loads the module */
  before = count();
  for (i = 0; i < 100000; i++)
    assert_int_equal(doublify_launch(&cfg, dev, 512), CUBIND_SUCCESS);
  after = count();
  print_message("[ allocs   ] %lu heap allocations in 100000 launches after the first\n",
                after - before);
  assert_int_equal(after - before, 0);

  { /* the same for <cubind/elementwise.cuh>'s launches with cfg NULL (shape cached) */
    void *args[2];
    int n = 512;
    cubind_elementwise_shape shape = {512, CUBIND_NO_SCRATCH, 0, 1, 0};
    args[0] = &dev;
    args[1] = &n;
    assert_int_equal(cubind_module_launch_elementwise(&vec_module, 0, NULL, args, &shape),
                     CUBIND_SUCCESS);
    before = count();
    for (i = 0; i < 100000; i++)
      assert_int_equal(cubind_module_launch_elementwise(&vec_module, 0, NULL, args, &shape),
                       CUBIND_SUCCESS);
    after = count();
    print_message("[ allocs   ] %lu heap allocations in 100000 elementwise launches (cfg NULL)\n",
                  after - before);
    assert_int_equal(after - before, 0);
  }

  for (i = 0; i < 512; i++)
    host[i] = 1.0f;
  assert_int_equal(doublify_call(&cfg, host, 512), CUBIND_SUCCESS); /* creates the scratch */
  before = count();
  for (i = 0; i < 1000; i++)
    assert_int_equal(doublify_call(&cfg, host, 512), CUBIND_SUCCESS);
  after = count();
  print_message("[ allocs   ] %lu heap allocations in 1000 _call round trips after the first\n",
                after - before);
  assert_int_equal(after - before, 0);
  assert_int_equal(cubind_free(dev), CUBIND_SUCCESS);
  assert_int_equal(cubind_release_scratch(), CUBIND_SUCCESS);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(no_allocation_per_launch)};
  use_fake_driver();
  return cmocka_run_group_tests(tests, NULL, NULL);
}
