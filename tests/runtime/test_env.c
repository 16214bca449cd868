/*
 * test_env.c (runtime/src/env.c): the one parser of size-valued environment variables and the
 * on/off switches: every accepted form, and every rejected one with its reason (never a
 * silent misreading such as 1G as 1 byte, or -5 as a huge number).
 */
#include "test_support.h"

/* Defined in the runtime (hidden in the shared library; these tests link the static one). */
int cubind__parse_size(const char *text, size_t *out, const char **why);
int cubind__env_size(const char *name, size_t fallback, size_t *out, char *message, size_t size);
int cubind__env_switch(const char *name, int fallback, int *on, char *message, size_t size);

static void sizes(void **state) {
  static const struct {
    const char *text;
    size_t value;
  } good[] = {
      {"0", 0},          {"8192", 8192},        {"1B", 1},           {"1b", 1},
      {"1K", 1024},      {"1k", 1024},          {"1KB", 1024},       {"1KiB", 1024},
      {"1kib", 1024},    {"8M", (size_t)8 << 20}, {"8MiB", (size_t)8 << 20},
      {"1G", (size_t)1 << 30}, {"1gb", (size_t)1 << 30}, {"2T", (size_t)2 << 40},
      {" 16M ", (size_t)16 << 20}, {"8 M", (size_t)8 << 20}, {"+4K", 4096},
      {"18446744073709551615", (size_t)-1}, {"16777215T", (size_t)16777215 << 40},
  };
  static const struct {
    const char *text, *why;
  } bad[] = {
      {"-5", "a negative size"},
      {"", "no decimal digits"},
      {"   ", "no decimal digits"},
      {"G", "no decimal digits"},
      {"0x100", "an unknown unit"},
      {"1Q", "an unknown unit"},
      {"1.5G", "an unknown unit"},
      {"1KiBB", "an unknown unit"},
      {"1Mi", "an unknown unit"},
      {"1 G B", "text after the unit"},
      {"18446744073709551616", "it does not fit in size_t"},
      {"16777216T", "it does not fit in size_t"},
      {"99999999999999999999K", "it does not fit in size_t"},
  };
  size_t i, value;
  const char *why;
  (void)state;
  assert_int_equal(sizeof(size_t), 8); /* the cases above are for 64-bit size_t */
  for (i = 0; i < sizeof good / sizeof good[0]; i++) {
    why = NULL;
    value = 12345;
    if (cubind__parse_size(good[i].text, &value, &why) != 0)
      fail_msg("'%s' rejected: %s", good[i].text, why);
    if (value != good[i].value)
      fail_msg("'%s' read as %zu, not %zu", good[i].text, value, good[i].value);
  }
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    why = NULL;
    value = 12345;
    if (cubind__parse_size(bad[i].text, &value, &why) == 0)
      fail_msg("'%s' accepted as %zu", bad[i].text, value);
    assert_non_null(why);
    if (strcmp(why, bad[i].why) != 0)
      fail_msg("'%s': '%s', expected '%s'", bad[i].text, why, bad[i].why);
  }
}

static void size_variables(void **state) {
  char message[256];
  size_t value = 0;
  (void)state;
  unsetenv("CUBIND_TEST_SIZE");
  assert_int_equal(cubind__env_size("CUBIND_TEST_SIZE", 77, &value, message, sizeof message), 0);
  assert_int_equal(value, 77);
  setenv("CUBIND_TEST_SIZE", "", 1);
  assert_int_equal(cubind__env_size("CUBIND_TEST_SIZE", 77, &value, message, sizeof message), 0);
  assert_int_equal(value, 77);
  setenv("CUBIND_TEST_SIZE", "1G", 1);
  assert_int_equal(cubind__env_size("CUBIND_TEST_SIZE", 77, &value, message, sizeof message), 0);
  assert_int_equal(value, (size_t)1 << 30);
  setenv("CUBIND_TEST_SIZE", "-5", 1);
  assert_int_equal(cubind__env_size("CUBIND_TEST_SIZE", 77, &value, message, sizeof message), -1);
  assert_int_equal(value, 77); /* the fallback, never a misreading */
  assert_contains(message, "CUBIND_TEST_SIZE='-5' is not a size (a negative size)");
  assert_contains(message, "K, M, G or T");
  unsetenv("CUBIND_TEST_SIZE");
}

static void switches(void **state) {
  static const struct {
    const char *text;
    int on;
  } good[] = {{"1", 1}, {"0", 0}, {"on", 1}, {"OFF", 0}, {"yes", 1}, {"No", 0},
              {"true", 1}, {"false", 0}};
  char message[256];
  size_t i;
  int on;
  (void)state;
  unsetenv("CUBIND_TEST_SWITCH");
  assert_int_equal(cubind__env_switch("CUBIND_TEST_SWITCH", 1, &on, message, sizeof message), 0);
  assert_int_equal(on, 1);
  for (i = 0; i < sizeof good / sizeof good[0]; i++) {
    setenv("CUBIND_TEST_SWITCH", good[i].text, 1);
    on = -1;
    assert_int_equal(cubind__env_switch("CUBIND_TEST_SWITCH", 1, &on, message, sizeof message),
                     0);
    assert_int_equal(on, good[i].on);
  }
  setenv("CUBIND_TEST_SWITCH", "2", 1);
  assert_int_equal(cubind__env_switch("CUBIND_TEST_SWITCH", 1, &on, message, sizeof message), -1);
  assert_int_equal(on, 1);
  assert_contains(message, "CUBIND_TEST_SWITCH='2' is neither on nor off");
  unsetenv("CUBIND_TEST_SWITCH");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(sizes),
      cmocka_unit_test(size_variables),
      cmocka_unit_test(switches),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
