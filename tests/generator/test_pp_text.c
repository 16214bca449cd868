/*
 * test_pp_text: generator/pp_text.c, the #if conditions read without a preprocessor: what a
 * condition comes to where some names are unknown (the prelude cache's judgement whether a
 * macro it was built without changes a held header), and the logical lines it reads them from.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pp_text.h"

/* The names of these tests: A is 3, B is defined as nothing usable, U is not defined, and any
   other name is unknown. */
static pp_name lookup(const char *name, size_t length, void *data) {
  pp_name found = {PP_NAME_UNKNOWN, 0};
  (void)data;
  if (length == 1 && name[0] == 'A') {
    found.state = PP_NAME_VALUE;
    found.value = 3;
  } else if (length == 1 && name[0] == 'B') {
    found.state = PP_NAME_DEFINED;
  } else if (length == 1 && name[0] == 'U') {
    found.state = PP_NAME_UNDEFINED;
  }
  return found;
}

/* The condition's value, or -99 where it is not known. */
static long long value_of(const char *text) {
  long long value;
  return pp_condition_value(text, lookup, NULL, &value) ? value : -99;
}

static void test_known_values(void **state) {
  (void)state;
  assert_int_equal(value_of(" A"), 3);
  assert_int_equal(value_of("A >= 2 && A < 4"), 1);
  assert_int_equal(value_of("defined(A) && defined B && !defined(U)"), 1);
  assert_int_equal(value_of("U"), 0); /* a name not defined is 0 */
  assert_int_equal(value_of("(A * 2 + 1) % 4 == 3"), 1);
  assert_int_equal(value_of("1 << 4 | 0x3"), 19);
  assert_int_equal(value_of("-A < 0 ? 10 : 20"), 10);
  assert_int_equal(value_of("~0 == -1"), 1);
  assert_int_equal(value_of("true && !false"), 1); /* C++: true is 1 */
  assert_int_equal(value_of("A - 1 > 1 - A * 2"), 1); /* precedence */
  assert_int_equal(value_of("201307L >= 201307"), 1);
  assert_int_equal(value_of("010 == 8"), 1);
}

/* An operand that cannot change the outcome need not be known; one that can must be. */
static void test_unknowns(void **state) {
  (void)state;
  assert_int_equal(value_of("defined(X) && defined(U)"), 0);
  assert_int_equal(value_of("defined(U) && X > 4"), 0);
  assert_int_equal(value_of("X || 1"), 1);
  assert_int_equal(value_of("X ? 5 : 5"), 5);
  assert_int_equal(value_of("defined(X)"), -99);
  assert_int_equal(value_of("X && 1"), -99);
  assert_int_equal(value_of("B"), -99);               /* defined as something else */
  assert_int_equal(value_of("B > 0 || defined(U)"), -99);
  assert_int_equal(value_of("F(1) || 0"), -99);       /* a function-like macro */
  assert_int_equal(value_of("__has_include(<a/b.h>)"), -99);
  assert_int_equal(value_of("'a' == 97"), -99);       /* the compiler's character set */
  assert_int_equal(value_of("-1 < 0u"), -99);         /* unsigned arithmetic: not followed */
  assert_int_equal(value_of("A / 0"), -99);
  assert_int_equal(value_of("A << 70"), -99);
}

/* What is no expression: never a value. */
static void test_malformed(void **state) {
  char deep[1024];
  size_t i;
  (void)state;
  assert_int_equal(value_of(""), -99);
  assert_int_equal(value_of("(A"), -99);
  assert_int_equal(value_of("A A"), -99);
  assert_int_equal(value_of("defined"), -99);
  assert_int_equal(value_of("defined(A"), -99);
  assert_int_equal(value_of("1 ? 2"), -99);
  assert_int_equal(value_of("0b101 == 5"), -99);
  assert_int_equal(value_of("1.5 > 1"), -99);
  assert_int_equal(value_of("\"s\""), -99);
  for (i = 0; i + 1 < sizeof deep; i++) /* nested past the depth read: no stack overflow */
    deep[i] = i < sizeof deep / 2 ? '(' : '!';
  deep[sizeof deep - 1] = '\0';
  assert_int_equal(value_of(deep), -99);
}

/* Logical lines: splices joined, comments gone, literals kept, directives named. */
static void test_lines(void **state) {
  const char *text = "#if defined(A) /* a\n comment */ && \\\n  B // tail\nint s = \"/*\";\n"
                     "  #  elif X\n";
  pp_line_reader reader = pp_line_reader_of(text, strlen(text));
  cubind_buf line = {0};
  char name[8];
  const char *rest;
  (void)state;
  assert_true(pp_next_line(&reader, &line));
  assert_int_equal(reader.line, 1);
  assert_true(pp_directive_of(line.data, name, sizeof name, &rest));
  assert_string_equal(name, "if");
  assert_string_equal(rest, " defined(A)   &&   B ");
  assert_true(pp_next_line(&reader, &line));
  assert_int_equal(reader.line, 4);
  assert_string_equal(line.data, "int s = \"/*\";");
  assert_false(pp_directive_of(line.data, name, sizeof name, &rest));
  assert_true(pp_next_line(&reader, &line));
  assert_true(pp_directive_of(line.data, name, sizeof name, &rest));
  assert_string_equal(name, "elif");
  assert_false(pp_next_line(&reader, &line));
  cubind_buf_free(&line);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_known_values),
      cmocka_unit_test(test_unknowns),
      cmocka_unit_test(test_malformed),
      cmocka_unit_test(test_lines),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
