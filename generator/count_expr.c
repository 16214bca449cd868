/* count_expr.c: parsing and translating count expressions (see count_expr.h). */
#include "count_expr.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* The longest count expression taken: real ones are a few names and operators, and the
   translation copies the text of each operand into its operator's (quadratic in the length). */
#define CUBIND_COUNT_MAX_LENGTH 4096

/* Tokens. */
typedef enum token_kind { T_END, T_NUMBER, T_NAME, T_PUNCT } token_kind;

typedef struct token {
  token_kind kind;
  const char *start;
  size_t length;
} token;

/* The parser's state: the input, the current token, the first error. */
typedef struct parser {
  const char *text;
  const char *at;         /* the next character to read */
  token current;
  const cubind_kernel *kernel;
  char *error;
  int depth;
} parser;

/* Records the first error (a new string, taken). */
static void fail(parser *p, char *message) {
  if (!p->error)
    p->error = message;
  else
    free(message);
}

/* The punctuators of count expressions, longest first. */
static const char *const punctuators[] = {"<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+",
                                          "-",  "*",  "/",  "%",  "<",  ">",  "&",  "|",  "^",
                                          "~",  "!",  "?",  ":",  "(",  ")"};

/* What is wrong with text at `at` that no count expression may hold, or NULL. */
static const char *forbidden(const char *at) {
  static const char *const assigning[] = {"<<=", ">>=", "++", "--", "+=", "-=", "*=", "/=",
                                          "%=",  "&=",  "|=", "^="};
  size_t i;
  if (at[0] == '/' && (at[1] == '/' || at[1] == '*'))
    return "contains a comment";
  if (at[0] == '?' && at[1] == '?') /* two question marks start a trigraph in C99 */
    return "contains '?\?' (a trigraph in C)";
  for (i = 0; i < sizeof assigning / sizeof assigning[0]; i++)
    if (strncmp(at, assigning[i], strlen(assigning[i])) == 0)
      return "assigns or increments";
  if (at[0] == '=' && at[1] != '=')
    return "assigns ('=')";
  return NULL;
}

/* The first thing no count expression may hold anywhere in `text`, or NULL. */
static const char *forbidden_anywhere(const char *text) {
  for (; *text; text++)
    if (forbidden(text))
      return forbidden(text);
  return NULL;
}

/* Reads the next token into p->current. */
static void advance(parser *p) {
  const char *at = p->at;
  size_t i;
  while (isspace((unsigned char)*at))
    at++;
  p->current.start = at;
  p->current.length = 0;
  if (!*at) {
    p->current.kind = T_END;
    p->at = at;
    return;
  }
  if (forbidden(at)) {
    fail(p, cubind_xstrdup(forbidden(at)));
    p->current.kind = T_END;
    p->at = at + strlen(at);
    return;
  }
  if (isdigit((unsigned char)*at) || (*at == '.' && isdigit((unsigned char)at[1]))) {
    while (isalnum((unsigned char)*at) || *at == '.' || *at == '_' || *at == '\'' ||
           ((*at == '+' || *at == '-') && (at[-1] == 'e' || at[-1] == 'E' || at[-1] == 'p' ||
                                            at[-1] == 'P')))
      at++;
    p->current.kind = T_NUMBER;
  } else if (isalpha((unsigned char)*at) || *at == '_') {
    while (isalnum((unsigned char)*at) || *at == '_')
      at++;
    p->current.kind = T_NAME;
  } else {
    for (i = 0; i < sizeof punctuators / sizeof punctuators[0]; i++)
      if (strncmp(at, punctuators[i], strlen(punctuators[i])) == 0)
        break;
    if (i == sizeof punctuators / sizeof punctuators[0]) {
      fail(p, cubind_xasprintf("may only use integer scalar parameters, integer literals, "
                               "operators, parentheses, casts and sizeof: '%c' is none of them",
                               *at));
      p->current.kind = T_END;
      p->at = at + strlen(at);
      return;
    }
    at += strlen(punctuators[i]);
    p->current.kind = T_PUNCT;
  }
  p->current.length = (size_t)(at - p->current.start);
  p->at = at;
}

static int is(const parser *p, const char *punct) {
  return p->current.kind == T_PUNCT && strlen(punct) == p->current.length &&
         strncmp(p->current.start, punct, p->current.length) == 0;
}

static int is_name(const parser *p, const char *name) {
  return p->current.kind == T_NAME && strlen(name) == p->current.length &&
         strncmp(p->current.start, name, p->current.length) == 0;
}

/* "'+'", "'rows'", or "the end": the current token, for messages (a new string). */
static char *describe(const parser *p) {
  if (p->current.kind == T_END)
    return cubind_xstrdup("the end");
  return cubind_xasprintf("'%.*s'", (int)p->current.length, p->current.start);
}

static void expect(parser *p, const char *punct, const char *after) {
  if (is(p, punct)) {
    advance(p);
    return;
  }
  {
    char *seen = describe(p);
    fail(p, cubind_xasprintf("is not a C expression: expected '%s' %s, found %s", punct, after,
                             seen));
    free(seen);
  }
}

/* ---- Types (casts and sizeof) ------------------------------------------------------------- */

/* CUDA's vector types of an element type (vector_types.h): float1 .. float4, n elements each,
   no padding (float3: 12 bytes) */
#define VECTOR_TYPES(element, size)                                                              \
  {#element "1", (size), 1}, {#element "2", 2 * (size), 1}, {#element "3", 3 * (size), 1},       \
      {#element "4", 4 * (size), 1}

/* The keywords and typedef names a cast or sizeof may name, with their sizes on LP64. */
static const struct {
  const char *name;
  unsigned size; /* 0: a keyword that combines with others ("unsigned", "long") */
  int vector;    /* a vector type: sizeof only, no cast */
} type_words[] = {
    {"char", 1, 0},        {"short", 2, 0},     {"int", 4, 0},         {"long", 8, 0},
    {"float", 4, 0},       {"double", 8, 0},    {"bool", 1, 0},        {"_Bool", 1, 0},
    {"unsigned", 0, 0},    {"signed", 0, 0},    {"size_t", 8, 0},      {"ptrdiff_t", 8, 0},
    {"intptr_t", 8, 0},    {"uintptr_t", 8, 0}, {"int8_t", 1, 0},      {"uint8_t", 1, 0},
    {"int16_t", 2, 0},     {"uint16_t", 2, 0},  {"int32_t", 4, 0},     {"uint32_t", 4, 0},
    {"int64_t", 8, 0},     {"uint64_t", 8, 0},  {"const", 0, 0},       {"volatile", 0, 0},
    VECTOR_TYPES(char, 1), VECTOR_TYPES(uchar, 1), VECTOR_TYPES(short, 2),
    VECTOR_TYPES(ushort, 2), VECTOR_TYPES(int, 4), VECTOR_TYPES(uint, 4),
    VECTOR_TYPES(long, 8), VECTOR_TYPES(ulong, 8), VECTOR_TYPES(longlong, 8),
    VECTOR_TYPES(ulonglong, 8), VECTOR_TYPES(float, 4), VECTOR_TYPES(double, 8),
    {"dim3", 12, 1}};

/* The parameter named by the current token, or NULL. */
static const cubind_param *current_param(const parser *p) {
  size_t i;
  if (p->current.kind != T_NAME)
    return NULL;
  for (i = 0; i < p->kernel->num_params; i++) {
    const char *name = p->kernel->params[i].name;
    if (strlen(name) == p->current.length &&
        strncmp(name, p->current.start, p->current.length) == 0)
      return &p->kernel->params[i];
  }
  return NULL;
}

/* The type word the current token is (a parameter of that name hides it, as in C), or -1. */
static int current_type_word(const parser *p) {
  size_t i;
  if (p->current.kind != T_NAME || current_param(p))
    return -1;
  for (i = 0; i < sizeof type_words / sizeof type_words[0]; i++)
    if (is_name(p, type_words[i].name))
      return (int)i;
  return -1;
}

/*
 * Reads a type name ("unsigned long", "short int", "size_t", "const int *") at the current token;
 * returns its size in bytes on the LP64 hosts cubind supports (pointers 8, long double 16).
 * Words C does not combine ("int int", "long char") are an error, never a guess. *floating
 * (where given) tells a floating-point type (float, double, long double), or 2 a vector type.
 */
static unsigned long long parse_type(parser *p, int *floating) {
  unsigned long long size = 0, named_size = 0;
  unsigned chars = 0, shorts = 0, ints = 0, longs = 0, floats = 0, doubles = 0, signs = 0,
           named = 0;
  int word, any = 0;
  while ((word = current_type_word(p)) >= 0) {
    const char *name = type_words[word].name;
    any = 1;
    if (strcmp(name, "char") == 0)
      chars++;
    else if (strcmp(name, "short") == 0)
      shorts++;
    else if (strcmp(name, "int") == 0)
      ints++;
    else if (strcmp(name, "long") == 0)
      longs++;
    else if (strcmp(name, "float") == 0)
      floats++;
    else if (strcmp(name, "double") == 0)
      doubles++;
    else if (strcmp(name, "unsigned") == 0 || strcmp(name, "signed") == 0)
      signs++;
    else if (type_words[word].size) { /* bool, size_t, int32_t...: complete on their own */
      named++;
      named_size = type_words[word].size;
      if (type_words[word].vector && floating)
        *floating = 2;
    }
    advance(p);
  }
  if (!any) {
    fail(p, cubind_xstrdup("is not a C expression: expected a type name"));
    return 8;
  }
  if (named == 1 && !chars && !shorts && !ints && !longs && !floats && !doubles && !signs)
    size = named_size;
  else if (named || signs > 1)
    size = 0;
  else if (chars == 1 && !shorts && !ints && !longs && !floats && !doubles)
    size = 1;
  else if (shorts == 1 && ints <= 1 && !longs && !floats && !doubles)
    size = 2;
  else if (doubles == 1 && longs == 1 && !ints && !floats && !signs)
    size = 16; /* long double: x86-64's and aarch64's */
  else if (doubles == 1 && !longs && !ints && !floats && !signs)
    size = 8;
  else if (floats == 1 && !longs && !ints && !doubles && !signs)
    size = 4;
  else if (chars || shorts || floats || doubles)
    size = 0; /* "long char", "short double"... */
  else if (longs >= 1 && longs <= 2 && ints <= 1)
    size = 8;
  else if (!longs && ints <= 1)
    size = 4; /* "int", "unsigned", "signed int" */
  if (!size) {
    fail(p, cubind_xstrdup("is not a C expression: its type name combines words C does not"));
    return 8;
  }
  if (floating && *floating != 2)
    *floating = floats || doubles;
  while (is(p, "*")) {
    size = 8;
    advance(p);
  }
  return size;
}

/* 1 when the tokens after the current '(' are a type name and ')': a cast or sizeof(type). */
static int at_type_in_parentheses(const parser *p) {
  parser ahead = *p;
  ahead.error = NULL;
  advance(&ahead); /* past '(' */
  if (current_type_word(&ahead) < 0) {
    free(ahead.error);
    return 0;
  }
  free(ahead.error);
  return 1;
}

/* ---- Expressions ------------------------------------------------------------------------- */

static char *parse_conditional(parser *p);

/* "helper(a, b)" (a new string; a and b are freed). */
static char *call2(const char *helper, char *a, char *b) {
  char *text = cubind_xasprintf("cubind_count_%s(%s, %s)", helper, a, b);
  free(a);
  free(b);
  return text;
}

static char *call1(const char *helper, char *a) {
  char *text = cubind_xasprintf("cubind_count_%s(%s)", helper, a);
  free(a);
  return text;
}

/* 1 when a parameter's C type is unsigned (a value that from_uint must take). */
static int is_unsigned_type(const char *c_type) {
  return strncmp(c_type, "unsigned", 8) == 0 || strncmp(c_type, "uint", 4) == 0 ||
         strcmp(c_type, "size_t") == 0 || strcmp(c_type, "bool") == 0;
}

/* An integer literal: its value as a C literal for the generated code (a new string). */
static char *parse_number(parser *p) {
  char *literal = cubind_xstrndup(p->current.start, p->current.length), *end, *result;
  const char *suffix;
  unsigned long long value;
  int base = 10;
  advance(p);
  int hex = literal[0] == '0' && (literal[1] == 'x' || literal[1] == 'X');
  char *to = literal;
  const char *from;
  for (from = literal; *from; from++) /* C++14 digit separators: 1'000'000 */
    if (*from != '\'')
      *to++ = *from;
  *to = '\0';
  if (strchr(literal, '.') || (!hex && strpbrk(literal, "eE")) || (hex && strpbrk(literal, "pP"))) {
    fail(p, cubind_xasprintf("is integer arithmetic: '%s' is not an integer literal", literal));
    free(literal);
    return cubind_xstrdup("0");
  }
  if (hex)
    base = 16;
  else if (literal[0] == '0' && (literal[1] == 'b' || literal[1] == 'B'))
    base = 2;
  else if (literal[0] == '0')
    base = 8;
  errno = 0;
  value = strtoull(literal + (base == 16 || base == 2 ? 2 : 0), &end, base);
  suffix = end;
  /* u, l, ul, lu, ll, ull, llu in any case */
  while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
    end++;
  if (*end || end - suffix > 3 || (base == 16 || base == 2 ? literal[2] == '\0' : 0)) {
    fail(p, cubind_xasprintf("is not a C expression: '%s' is no integer literal", literal));
    free(literal);
    return cubind_xstrdup("0");
  }
  if (errno == ERANGE || value > 0x7fffffffffffffffULL) {
    fail(p, cubind_xasprintf("uses the literal '%s', which no count can reach", literal));
    free(literal);
    return cubind_xstrdup("0");
  }
  result = cubind_xasprintf("cubind_count_int(%lluLL)", value);
  free(literal);
  return result;
}

/* A parameter as a count operand. */
static char *parse_name(parser *p) {
  const cubind_param *param = current_param(p);
  char *name = cubind_xstrndup(p->current.start, p->current.length), *result;
  advance(p);
  if (!param) {
    fail(p, cubind_xasprintf("names '%s', which is not a parameter of kernel '%s'", name,
                             p->kernel->display_name));
    free(name);
    return cubind_xstrdup("0");
  }
  if (!param->is_scalar || !param->c_type) {
    fail(p, cubind_xasprintf("names '%s', which is not a scalar parameter (its type is '%s')",
                             name, param->type_spelling ? param->type_spelling : "?"));
    free(name);
    return cubind_xstrdup("0");
  }
  if (strcmp(param->c_type, "float") == 0 || strcmp(param->c_type, "double") == 0) {
    fail(p, cubind_xasprintf("names '%s', a floating-point parameter: counts are integer "
                             "arithmetic",
                             name));
    free(name);
    return cubind_xstrdup("0");
  }
  result = cubind_xasprintf("cubind_count_%s(%s)", is_unsigned_type(param->c_type) ? "uint" : "int",
                            name);
  free(name);
  return result;
}

/* sizeof(type), sizeof(parameter), sizeof parameter: the size, known here (LP64). */
static char *parse_sizeof(parser *p) {
  unsigned long long size = 0;
  int parenthesized;
  advance(p); /* sizeof */
  parenthesized = is(p, "(");
  if (parenthesized && at_type_in_parentheses(p)) {
    advance(p);
    size = parse_type(p, NULL);
    expect(p, ")", "after the type of sizeof");
    return cubind_xasprintf("cubind_count_int(%lluLL)", size);
  }
  if (parenthesized)
    advance(p);
  if (current_param(p))
    size = current_param(p)->size;
  else if (!p->error) {
    char *seen = describe(p);
    fail(p, cubind_xasprintf("may take sizeof of a type or a parameter only, not of %s", seen));
    free(seen);
  }
  if (p->current.kind != T_END)
    advance(p);
  if (parenthesized)
    expect(p, ")", "after the operand of sizeof");
  return cubind_xasprintf("cubind_count_int(%lluLL)", size);
}

static char *parse_unary(parser *p) {
  char *operand;
  if (++p->depth > 200) { /* a pathological nesting: refuse instead of recursing on */
    fail(p, cubind_xstrdup("nests too deeply"));
    p->current.kind = T_END;
    return cubind_xstrdup("0");
  }
  if (is(p, "+")) {
    advance(p);
    operand = parse_unary(p);
  } else if (is(p, "-")) {
    advance(p);
    operand = call1("neg", parse_unary(p));
  } else if (is(p, "!")) {
    advance(p);
    operand = call1("not", parse_unary(p));
  } else if (is(p, "~")) { /* ~x == -x - 1 */
    advance(p);
    operand = call2("sub", call1("neg", parse_unary(p)), cubind_xstrdup("cubind_count_int(1LL)"));
  } else if (is(p, "(") && at_type_in_parentheses(p)) {
    /* a cast: the value is kept exactly, so only a cast that keeps every count C code
       passes may stand (int, unsigned, size_t...); C would truncate or round through the
       others, and the copy would not be the one the kernel reads */
    int floating = 0;
    unsigned long long size;
    advance(p);
    size = parse_type(p, &floating);
    if (!p->error && floating == 2)
      fail(p, cubind_xstrdup("casts to a vector type: counts are integers"));
    else if (!p->error && floating)
      fail(p, cubind_xstrdup("casts to a floating-point type: counts are integers; write the "
                             "count in integer arithmetic"));
    else if (!p->error && size < 4)
      fail(p, cubind_xstrdup("casts to a type narrower than int, which would truncate the "
                             "count in C: cubind computes counts exactly; drop the cast or "
                             "mask the value (n & 0xff)"));
    expect(p, ")", "after the type of a cast");
    operand = parse_unary(p);
  } else if (is(p, "(")) {
    advance(p);
    operand = parse_conditional(p);
    if (!is(p, ")") && !p->error)
      fail(p, p->current.kind == T_END ? cubind_xstrdup("has unbalanced parentheses")
                                       : cubind_xasprintf("is not a C expression: expected ')', "
                                                          "found '%.*s'",
                                                          (int)p->current.length,
                                                          p->current.start));
    if (is(p, ")"))
      advance(p);
  } else if (is_name(p, "sizeof")) {
    operand = parse_sizeof(p);
  } else if (p->current.kind == T_NUMBER) {
    operand = parse_number(p);
  } else if (p->current.kind == T_NAME) {
    operand = parse_name(p);
  } else {
    char *seen = describe(p);
    if (is(p, ")"))
      fail(p, cubind_xstrdup("has unbalanced parentheses"));
    else
      fail(p, cubind_xasprintf("is not a C expression: expected an operand, found %s", seen));
    free(seen);
    if (p->current.kind != T_END)
      advance(p);
    operand = cubind_xstrdup("0");
  }
  p->depth--;
  return operand;
}

/* Binary operators by precedence level (C's), each with its helper. */
static const struct {
  const char *punct;
  const char *helper;
  int level; /* higher binds tighter */
} binary_ops[] = {{"||", "or", 1},     {"&&", "and", 2},    {"|", "bitor", 3},  {"^", "bitxor", 4},
                  {"&", "bitand", 5},  {"==", "eq", 6},     {"!=", "ne", 6},    {"<", "lt", 7},
                  {"<=", "le", 7},     {">", "gt", 7},      {">=", "ge", 7},    {"<<", "shl", 8},
                  {">>", "shr", 8},    {"+", "add", 9},     {"-", "sub", 9},    {"*", "mul", 10},
                  {"/", "div", 10},    {"%", "mod", 10}};

/* The binary operator at the current token with at least `level`, or -1. */
static int binary_op(const parser *p, int level) {
  size_t i;
  for (i = 0; i < sizeof binary_ops / sizeof binary_ops[0]; i++)
    if (binary_ops[i].level >= level && is(p, binary_ops[i].punct))
      return (int)i;
  return -1;
}

/* Precedence climbing over the binary operators of `level` and tighter. */
static char *parse_binary(parser *p, int level) {
  char *left = parse_unary(p);
  int op;
  while (!p->error && (op = binary_op(p, level)) >= 0) {
    char *right;
    advance(p);
    right = parse_binary(p, binary_ops[op].level + 1);
    left = call2(binary_ops[op].helper, left, right);
  }
  return left;
}

static char *parse_conditional(parser *p) {
  char *condition = parse_binary(p, 1), *then, *otherwise, *text;
  if (!is(p, "?"))
    return condition;
  if (++p->depth > 200) { /* a chain of ?: nests as parentheses do */
    fail(p, cubind_xstrdup("nests too deeply"));
    p->current.kind = T_END;
    return condition;
  }
  advance(p);
  then = parse_conditional(p);
  expect(p, ":", "in 'c ? a : b'");
  otherwise = parse_conditional(p);
  text = cubind_xasprintf("cubind_count_select(%s, %s, %s)", condition, then, otherwise);
  free(condition);
  free(then);
  free(otherwise);
  p->depth--;
  return text;
}

/* cubind_count_translate: see count_expr.h. */
char *cubind_count_translate(const char *text, const cubind_kernel *kernel, char **error) {
  parser p;
  char *value, *result = NULL;
  const char *at;
  int depth = 0;
  memset(&p, 0, sizeof p);
  p.text = p.at = text;
  p.kernel = kernel;
  *error = NULL;
  for (at = text; *at && isspace((unsigned char)*at); at++)
    ;
  if (!*at) {
    *error = cubind_xstrdup("is empty");
    return NULL;
  }
  if (strlen(text) > CUBIND_COUNT_MAX_LENGTH) { /* each operator copies its operands' text */
    *error = cubind_xasprintf("is longer than %d characters: compute the count in a parameter",
                              CUBIND_COUNT_MAX_LENGTH);
    return NULL;
  }
  for (at = text; *at; at++) { /* reported as such, before any syntax error they cause */
    depth += *at == '(' ? 1 : *at == ')' ? -1 : 0;
    if (depth < 0)
      break;
  }
  if (forbidden_anywhere(text)) {
    *error = cubind_xstrdup(forbidden_anywhere(text));
    return NULL;
  }
  if (depth != 0) {
    *error = cubind_xstrdup("has unbalanced parentheses");
    return NULL;
  }
  advance(&p);
  value = parse_conditional(&p);
  if (!p.error && p.current.kind != T_END) {
    char *seen = describe(&p);
    fail(&p, cubind_xasprintf("is not a C expression: %s follows a complete expression", seen));
    free(seen);
  }
  if (p.error) {
    *error = p.error;
    free(value);
    return NULL;
  }
  result = cubind_xasprintf("cubind_count_result(%s)", value);
  free(value);
  return result;
}
