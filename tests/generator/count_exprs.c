/*
 * count_exprs: the count-expression decision (generator/count_expr.c) against a C compiler.
 *
 *   count_exprs DIR [ITERATIONS [SEED]]
 *
 * 1. Random token strings and random well-formed expressions over a kernel's parameters are
 *    parsed; for every one accepted, DIR/originals.c gets a function that evaluates the
 *    original text (it must be C++, the .cu's language: compiled with warnings off) and
 *    DIR/translated.c one that returns the generated translation (it must compile with
 *    -std=c99 -Wall -Wextra -Werror -pedantic): count_exprs.cmake compiles both.
 * 2. A table of expressions with known results: each translation goes into translated.c with a
 *    main() that checks the values, including counts that overflow int, go negative in between,
 *    divide by zero, or do not fit.
 * Prints how many strings were accepted and rejected; exits 1 when the parser crashes or
 * accepts what it must not (checked here: unbalanced parentheses, comments, assignments).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "count_expr.h"
#include "model.h"
#include "util.h"

/* The kernel whose parameters count expressions may use. */
static const struct {
  const char *name, *c_type;
  int scalar;
} params[] = {{"n", "int", 1},          {"m", "unsigned int", 1}, {"big", "long long", 1},
              {"s", "size_t", 1},        {"b", "bool", 1},         {"c", "char", 1},
              {"x", "float", 1},         {"p", "float *", 0},      {"uint64_t", "int", 1}};
#define NUM_PARAMS (sizeof params / sizeof params[0])

static unsigned long long rng = 88172645463325252ull;
static unsigned next(unsigned bound) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (unsigned)(rng % bound);
}

/* A random string of count-expression-ish tokens (mostly nonsense). */
static void random_tokens(cubind_buf *out) {
  static const char *const tokens[] = {
      "n",  "m", "big", "s", "b", "c", "x", "p", "q", "uint64_t", "0",  "1",   "7",  "256",
      "0x10", "010", "1u", "2LL", "1.5", "1e3", "+", "-", "*", "/",   "%",  "<<",  ">>", "<",
      "<=", ">", ">=", "==", "!=", "&", "|", "^", "~", "!", "&&", "||", "?",  ":",   "(",  ")",
      "(",  ")", "sizeof", "int", "unsigned", "long", "size_t", "float", "char", ",", "[", "]",
      "=",  "++", "->", ".", "//", "/*", "??", "'a'", "\"s\"", "9223372036854775808", "3'000"};
  unsigned length = 1 + next(9), i;
  for (i = 0; i < length; i++)
    cubind_buf_printf(out, "%s%s", i ? " " : "", tokens[next(sizeof tokens / sizeof tokens[0])]);
}

/* A random well-formed expression (depth-bounded). */
static void random_expression(cubind_buf *out, int depth) {
  static const char *const binary[] = {"+", "-", "*", "/", "%", "<<", ">>", "<", "<=", ">",
                                       ">=", "==", "!=", "&", "|", "^", "&&", "||"};
  static const char *const leaves[] = {"n", "m", "big", "s", "b", "c", "uint64_t", "0", "3",
                                       "255u", "0x7f", "1LL", "sizeof(int)", "sizeof(n)",
                                       "sizeof(unsigned long)", "sizeof(float *)"};
  unsigned kind = depth > 4 ? 0 : next(7);
  switch (kind) {
  case 0:
  case 1:
    cubind_buf_puts(out, leaves[next(sizeof leaves / sizeof leaves[0])]);
    break;
  case 2:
    cubind_buf_puts(out, next(2) ? "-" : next(2) ? "!" : "~");
    random_expression(out, depth + 1);
    break;
  case 3:
    cubind_buf_puts(out, "(");
    random_expression(out, depth + 1);
    cubind_buf_puts(out, ")");
    break;
  case 4:
    cubind_buf_puts(out, next(2) ? "(size_t)" : "(int)");
    random_expression(out, depth + 1);
    break;
  case 5:
    random_expression(out, depth + 1);
    cubind_buf_puts(out, " ? ");
    random_expression(out, depth + 1);
    cubind_buf_puts(out, " : ");
    random_expression(out, depth + 1);
    break;
  default:
    random_expression(out, depth + 1);
    cubind_buf_printf(out, " %s ", binary[next(sizeof binary / sizeof binary[0])]);
    random_expression(out, depth + 1);
    break;
  }
}

/* Checks that are the parser's promises whatever C says. */
static int must_reject(const char *text) {
  int depth = 0;
  const char *at;
  for (at = text; *at; at++) {
    depth += *at == '(' ? 1 : *at == ')' ? -1 : 0;
    if (depth < 0 || (at[0] == '/' && (at[1] == '/' || at[1] == '*')) ||
        (at[0] == '?' && at[1] == '?') || (at[0] == '=' && at[1] != '=' && at > text &&
                                           !strchr("=!<>", at[-1])))
      return 1;
  }
  return depth != 0;
}

static const char *const signature =
    "int n, unsigned int m, long long big, size_t s, bool b, char c, float x, float *p, "
    "int uint64_t";

/* The expected values: an expression, and its count (or -1: CUBIND_COUNT_INVALID) for
   n = 70000, m = 3, big = 5, s = 10, b = 1, c = 2. */
static const struct {
  const char *text;
  long long want;
} table[] = {{"n * n", 4900000000LL},         /* overflows int: exact here */
             {"n - 70001", -1},               /* negative */
             {"n - 70001 + 2", 1},            /* negative in between only */
             {"s / (m - 3)", -1},             /* division by zero */
             {"big << 62", -1},               /* does not fit */
             {"(n + 255) / 256", 274},        {"n > 1024 ? 1024 : n", 1024},
             {"b && s", 1},                   {"0 && s / 0", 0},
             {"sizeof(double) * s", 80},      {"~c + 10", 7},
             {"(size_t)n % 7", 0},            {"m ^ 1", 2},
             {"-(-s)", 10},                   {"!s", 0},
             {"1'000 * 3", 3000},
             {"sizeof(float4) * s", 160},     /* CUDA's vector types: sizeof only */
             {"sizeof(int3) + sizeof(dim3)", 24}};

int main(int argc, char **argv) {
  cubind_kernel kernel;
  FILE *out, *originals;
  char *path;
  unsigned iterations = argc > 2 ? (unsigned)atoi(argv[2]) : 3000, i, accepted = 0, rejected = 0;
  size_t k;
  if (argc < 2) {
    fprintf(stderr, "usage: count_exprs DIR [ITERATIONS [SEED]]\n");
    return 2;
  }
  if (argc > 3)
    rng ^= strtoull(argv[3], NULL, 10);
  memset(&kernel, 0, sizeof kernel);
  kernel.display_name = (char *)"k";
  kernel.num_params = NUM_PARAMS;
  kernel.params = cubind_xcalloc(NUM_PARAMS, sizeof *kernel.params);
  for (k = 0; k < NUM_PARAMS; k++) {
    kernel.params[k].name = (char *)params[k].name;
    kernel.params[k].c_type = (char *)params[k].c_type;
    kernel.params[k].type_spelling = (char *)params[k].c_type;
    kernel.params[k].is_scalar = params[k].scalar;
    kernel.params[k].size = strcmp(params[k].c_type, "int") == 0 ? 4 : 8;
  }
  path = cubind_xasprintf("%s/translated.c", argv[1]);
  out = fopen(path, "w");
  free(path);
  path = cubind_xasprintf("%s/originals.c", argv[1]);
  originals = fopen(path, "w");
  free(path);
  if (!out || !originals)
    return 2;
  fprintf(out, "#include <stdbool.h>\n#include <stddef.h>\n#include <stdio.h>\n"
               "#include <cubind/generated.h>\n\n");
  fprintf(originals, "#include <cstddef>\n#include <cstdint>\n\n");
  for (i = 0; i < iterations; i++) {
    cubind_buf text = {0};
    char *error = NULL, *code;
    if (i % 2)
      random_tokens(&text);
    else
      random_expression(&text, 0);
    code = cubind_count_translate(text.data, &kernel, &error);
    if (code && must_reject(text.data)) {
      fprintf(stderr, "accepted what must be refused: '%s'\n", text.data);
      return 1;
    }
    if (code) {
      /* the original as C (it must be an expression over these parameters), and ours */
      fprintf(originals, "long long original_%u(%s) {\n  return (long long)(%s);\n}\n", i,
              signature, text.data);
      fprintf(out, "size_t translated_%u(%s) {\n  (void)n; (void)m; (void)big; (void)s; (void)b; "
                   "(void)c; (void)x; (void)p; (void)uint64_t;\n  return %s;\n}\n\n",
              i, signature, code);
      accepted++;
    } else {
      rejected++;
    }
    free(code);
    free(error);
    cubind_buf_free(&text);
  }
  fprintf(out, "int main(void) {\n  int bad = 0;\n");
  for (k = 0; k < sizeof table / sizeof table[0]; k++) {
    char *error = NULL, *code = cubind_count_translate(table[k].text, &kernel, &error), *want;
    if (!code) {
      fprintf(stderr, "refused '%s': %s\n", table[k].text, error);
      return 1;
    }
    want = table[k].want < 0 ? cubind_xstrdup("CUBIND_COUNT_INVALID")
                             : cubind_xasprintf("%lld", table[k].want);
    fprintf(out,
            "  {\n    int n = 70000; unsigned int m = 3; long long big = 5; size_t s = 10; "
            "bool b = 1; char c = 2; float x = 0; float *p = NULL; int uint64_t = 0;\n"
            "    size_t got = %s, want = %s;\n"
            "    (void)n; (void)m; (void)big; (void)s; (void)b; (void)c; (void)x; (void)p; "
            "(void)uint64_t;\n"
            "    if (got != want) { printf(\"%%s: got %%zu, want %%zu\\n\", \"%s\", got, want); "
            "bad = 1; }\n  }\n",
            code, want, table[k].text);
    free(code);
    free(want);
  }
  fprintf(out, "  if (!bad) printf(\"count_exprs: %u expressions exact\\n\");\n  return bad;\n}\n",
          (unsigned)(sizeof table / sizeof table[0]));
  fclose(out);
  fclose(originals);
  printf("count_exprs: %u accepted, %u refused of %u strings\n", accepted, rejected, iterations);
  free(kernel.params);
  return 0;
}
