/*
 * test_instantiation_scan: the explicit instantiations generator/instantiation_scan.c reads
 * from a .cu's text before clang parses it: what counts as one, the namespaces around it, and
 * the text (comments, literals, directives) that must not be read as code.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "instantiation_scan.h"

/* Scans `text`; the caller frees the list. */
static size_t scan(const char *text, written_instantiation **found) {
  return scan_instantiations(text, strlen(text), found);
}

static void test_shapes(void **state) {
  const char *text = "template <class T, int N> __global__ void fill(T *);\n"
                     "template __global__ void fill<float, 4>(float *);\n"
                     "template __global__ void fill<Max<float>, (2 > 1)>(Max<float> *);\n"
                     "template __global__ void scale(int *, int, int);\n"
                     "template __global__ void ::second::mark<int>(int *);\n"
                     "template __global__ void fill<pair{1, 2}, 3>(int *);\n"
                     "extern template __global__ void fill<int, 1>(int *);\n"
                     "template struct Holder<int>;\n"
                     "template __global__ __launch_bounds__(256, 2) void fill<char, 8>(char *);\n"
                     "template __attribute__((used)) [[nodiscard]] void fill<short, 2>(short *);\n";
  written_instantiation *found;
  size_t count = scan(text, &found);
  (void)state;
  assert_int_equal(count, 7);
  assert_string_equal(found[0].name, "fill");
  assert_string_equal(found[0].written, "fill");
  assert_string_equal(found[0].args, "< float , 4 >");
  assert_string_equal(found[0].params, "( float * )");
  assert_int_equal(found[0].line, 2);
  assert_int_equal(found[0].column, 26);
  assert_int_equal(found[0].offset, strchr(text, '\n') + 1 - text);
  assert_string_equal(found[1].args, "< Max < float > , ( 2 > 1 ) >");
  assert_string_equal(found[1].params, "( Max < float > * )");
  assert_string_equal(found[2].args, ""); /* deduced */
  assert_string_equal(found[2].params, "( int * , int , int )");
  assert_string_equal(found[3].name, "mark");
  assert_string_equal(found[3].written, ":: second :: mark"); /* not `void :: second` */
  assert_string_equal(found[4].args, "< pair { 1 , 2 } , 3 >"); /* a class-type argument */
  assert_string_equal(found[5].args, "< char , 8 >"); /* attributes before the name */
  assert_string_equal(found[5].params, "( char * )");
  assert_string_equal(found[6].args, "< short , 2 >");
  scan_instantiations_free(found, count);
}

static void test_scopes(void **state) {
  const char *text = "namespace a { namespace { template __global__ void k<int>(int *); } }\n"
                     "namespace a::inline v1 { template __global__ void k<char>(char *); }\n"
                     "extern \"C++\" { namespace b {\n"
                     "template __global__ void k<long>(long *); } }\n"
                     "namespace alias = a;\n"
                     "template __global__ void a::k<short>(short *);\n"
                     "namespace [[deprecated]] c { template void k<int>(int *); }\n"
                     "namespace __attribute__((visibility(\"default\"))) d {\n"
                     "template void k<int>(int *); }\n"
                     "OPEN(e) { template void k<int>(int *); }\n"
                     "template void k<char>(char *);\n";
  written_instantiation *found;
  size_t count = scan(text, &found);
  char *line;
  (void)state;
  assert_int_equal(count, 8);
  assert_int_equal(found[0].scope.count, 2);
  assert_string_equal(found[0].scope.items[0], "a");
  assert_string_equal(found[0].scope.items[1], "");
  assert_int_equal(found[1].scope.count, 2);
  assert_string_equal(found[1].scope.items[1], "v1");
  assert_int_equal(found[2].scope.count, 1);
  assert_string_equal(found[2].scope.items[0], "b");
  assert_int_equal(found[3].scope.count, 0);
  assert_string_equal(found[3].written, "a :: k");
  assert_true(found[3].scope_known);
  assert_int_equal(found[4].scope.count, 1); /* attributes read past */
  assert_string_equal(found[4].scope.items[0], "c");
  assert_int_equal(found[5].scope.count, 1);
  assert_string_equal(found[5].scope.items[0], "d");
  assert_false(found[6].scope_known); /* a block a macro opened: the parse knows its scope */
  assert_true(found[7].scope_known);
  assert_int_equal(found[7].scope.count, 0);
  line = scan_reference_line("v", &found[0].scope, found[0].name, &found[0]);
  assert_string_equal(line, "namespace a { namespace { static void *v = (void *)static_cast<void "
                            "(*)( int * )>(&k< int >); } }");
  free(line);
  scan_instantiations_free(found, count);
}

/* Text that is not code, or not at namespace scope, holds no instantiation. */
static void test_not_code(void **state) {
  const char *text =
      "// template __global__ void k<int>(int *);\n"
      "/* template __global__ void k<int>(int *); */\n"
      "#define INSTANTIATE(T) \\\n  template __global__ void k<T>(T *);\n"
      "const char *s = \"template __global__ void k<int>(int *);\";\n"
      "const char *r = R\"x(template __global__ void k<int>(int *);)x\";\n"
      "int n = 1'000; char c = '{';\n"
      "struct S { template <class T> void f(); };\n"
      "void g() { x.template f<int>(); }\n"
      "// a comment continued \\\n template __global__ void k<int>(int *);\n"
      "template __global__ void k<double>(double *);\n";
  written_instantiation *found;
  size_t count = scan(text, &found);
  (void)state;
  assert_int_equal(count, 1);
  assert_string_equal(found[0].args, "< double >");
  assert_int_equal(found[0].scope.count, 0); /* the '{' in a character literal opened nothing */
  scan_instantiations_free(found, count);
}

/* Braces the branches of a conditional each open count once; an #if 0 branch counts none. */
static void test_conditionals(void **state) {
  const char *text = "#define SOURCES \"kernels/*.cu\"\n"
                     "template <class T> __global__ void k(T *p) {\n"
                     "#if __CUDA_ARCH__ >= 800\n"
                     "  if (p) {\n"
                     "#elif defined(OTHER)\n"
                     "  if (!p) {\n"
                     "#else\n"
                     "  if (p != 0) {\n"
                     "#endif\n"
                     "    *p = T();\n"
                     "  }\n"
                     "}\n"
                     "#if 0\n"
                     "void unused() {\n"
                     "template void k<char>(char *);\n"
                     "#else\n"
                     "namespace a {\n"
                     "#endif\n"
                     "template __global__ void k<float>(float *);\n"
                     "}\n"
                     "#ifdef UNBALANCED\n"
                     "struct s {\n"
                     "#endif\n"
                     "template __global__ void k<int>(int *);\n";
  written_instantiation *found;
  size_t count = scan(text, &found);
  (void)state;
  assert_int_equal(count, 2); /* not k<char>, in the #if 0 branch */
  assert_true(found[0].scope_known);
  assert_int_equal(found[0].scope.count, 1);
  assert_string_equal(found[0].scope.items[0], "a");
  assert_false(found[1].scope_known); /* after `struct s {`, which only #ifdef reads */
  scan_instantiations_free(found, count);
}

/* A member of a class template's instance is no function template's; macros that change after. */
static void test_members_and_macros(void **state) {
  const char *text = "template void Tensor<float>::fill(float);\n"
                     "template void Holder<Pair<int, int>>::clear(int *);\n"
                     "#define T float\n"
                     "template __global__ void k<T>(T *);\n"
                     "#undef T\n"
                     "#define U int\n"
                     "template __global__ void k<U>(U *);\n";
  written_instantiation *found;
  size_t count = scan(text, &found);
  (void)state;
  assert_int_equal(count, 2);
  assert_string_equal(found[0].redefined_macro, "T"); /* #undef'd after it */
  assert_null(found[1].redefined_macro);              /* U stays as it is */
  scan_instantiations_free(found, count);
}

/* Malformed text ends the scan without a crash: unclosed literals, comments and brackets. */
static void test_malformed(void **state) {
  static const char *const texts[] = {"template", "template __global__ void k<int>(int *",
                                      "template void k<(>(int);", "}}} template void k(int);",
                                      "/* template void k(int);", "\"template void k(int);",
                                      "R\"x( template void k(int);", "namespace a::", "#",
                                      "#else\n#endif\n#endif\n}", "#if 0\n{", "#define A \"/*\n"};
  size_t i;
  (void)state;
  for (i = 0; i < sizeof texts / sizeof texts[0]; i++) {
    written_instantiation *found;
    size_t count = scan(texts[i], &found);
    assert_true(count <= 1);
    scan_instantiations_free(found, count);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_shapes),
      cmocka_unit_test(test_scopes),
      cmocka_unit_test(test_not_code),
      cmocka_unit_test(test_conditionals),
      cmocka_unit_test(test_members_and_macros),
      cmocka_unit_test(test_malformed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
