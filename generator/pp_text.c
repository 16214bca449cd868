/*
 * pp_text.c: directives read from a header's text (pp_text.h): logical lines, and #if
 * conditions evaluated where some names are unknown, in three values (0, 1 or a number; or
 * unknown), by recursive descent over C's precedence levels.
 */
#include "pp_text.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* pp_line_reader_of: see pp_text.h. */
pp_line_reader pp_line_reader_of(const char *text, size_t size) {
  pp_line_reader reader;
  memset(&reader, 0, sizeof reader);
  reader.at = text;
  reader.end = text + size;
  reader.next_line = 1;
  return reader;
}

/* pp_next_line: see pp_text.h. */
int pp_next_line(pp_line_reader *reader, cubind_buf *out) {
  out->length = 0;
  cubind_buf_puts(out, "");
  if (reader->at >= reader->end)
    return 0;
  reader->line = reader->next_line;
  while (reader->at < reader->end) {
    char c = *reader->at;
    if (c == '\\' && reader->at + 1 < reader->end && reader->at[1] == '\n') {
      reader->at += 2;
      reader->next_line++;
    } else if (c == '\n') {
      reader->at++;
      reader->next_line++;
      if (!reader->in_comment)
        break;
    } else if (reader->in_comment) {
      if (c == '*' && reader->at + 1 < reader->end && reader->at[1] == '/') {
        reader->in_comment = 0;
        cubind_buf_puts(out, " ");
        reader->at += 2;
      } else {
        reader->at++;
      }
    } else if (c == '/' && reader->at + 1 < reader->end && reader->at[1] == '*') {
      reader->in_comment = 1;
      reader->at += 2;
    } else if (c == '/' && reader->at + 1 < reader->end && reader->at[1] == '/') {
      while (reader->at < reader->end && *reader->at != '\n')
        reader->at++;
    } else if (c == '"' || c == '\'') { /* a literal: a comment marker inside it is none */
      const char *close = reader->at + 1;
      while (close < reader->end && *close != c && *close != '\n')
        close += *close == '\\' && close + 1 < reader->end ? 2 : 1;
      close = close < reader->end && *close == c ? close + 1 : close;
      cubind_buf_append(out, reader->at, (size_t)(close - reader->at));
      reader->at = close;
    } else {
      cubind_buf_append(out, &c, 1);
      reader->at++;
    }
  }
  return 1;
}

/* pp_directive_of: see pp_text.h. */
int pp_directive_of(const char *line, char *name, size_t size, const char **rest) {
  size_t length = 0;
  while (*line == ' ' || *line == '\t' || *line == '\r' || *line == '\f')
    line++;
  if (*line != '#')
    return 0;
  line++;
  while (*line == ' ' || *line == '\t')
    line++;
  while (isalpha((unsigned char)line[length]) && length + 1 < size)
    length++;
  memcpy(name, line, length);
  name[length] = '\0';
  *rest = line + length;
  return length > 0;
}

/* ---- conditions ------------------------------------------------------------------------ */

/* A value of the evaluation: a number, or unknown. */
typedef struct pp_value {
  int known;
  long long number;
} pp_value;

typedef struct evaluation {
  const char *at;
  pp_lookup lookup;
  void *data;
  int failed; /* no expression this reads */
  int depth;  /* of nested operands: a hostile header's ((((... ends it, not the stack */
} evaluation;

enum { MOST_DEPTH = 200 };

static const pp_value unknown_value = {0, 0};

static pp_value known(long long number) {
  pp_value value;
  value.known = 1;
  value.number = number;
  return value;
}

static void skip_blanks(evaluation *e) {
  while (*e->at == ' ' || *e->at == '\t' || *e->at == '\r' || *e->at == '\f' || *e->at == '\v')
    e->at++;
}

/* Takes the operator `op` where it is next, not the start of a longer one ("<" of "<<"). */
static int take_op(evaluation *e, const char *op) {
  static const char *const longer[] = {"<<", ">>", "<=", ">=", "==", "!=", "&&", "||"};
  size_t length = strlen(op), i;
  skip_blanks(e);
  if (strncmp(e->at, op, length) != 0)
    return 0;
  for (i = 0; length == 1 && i < sizeof longer / sizeof longer[0]; i++)
    if (strncmp(e->at, longer[i], 2) == 0)
      return 0;
  e->at += length;
  return 1;
}

static int is_name_start(char c) {
  return isalpha((unsigned char)c) || c == '_';
}

static int is_name_char(char c) {
  return isalnum((unsigned char)c) || c == '_';
}

/* A name's length at e->at (0: none there). */
static size_t name_length(const evaluation *e) {
  size_t length = 0;
  if (!is_name_start(*e->at))
    return 0;
  while (is_name_char(e->at[length]))
    length++;
  return length;
}

static pp_value conditional(evaluation *e);
static pp_value unary(evaluation *e);
static pp_value unary_operand(evaluation *e);

/* An integer literal: decimal, octal or hexadecimal, with l/L suffixes; unsigned: unknown. */
static pp_value number(evaluation *e) {
  const char *start = e->at, *suffix;
  char *text, *end;
  unsigned long long number;
  int unsigned_suffix = 0;
  while (is_name_char(*e->at) || *e->at == '.' || *e->at == '\'')
    e->at++;
  text = cubind_xstrndup(start, (size_t)(e->at - start));
  number = strtoull(text, &end, 0);
  for (suffix = end; *suffix; suffix++) {
    if (*suffix == 'u' || *suffix == 'U')
      unsigned_suffix = 1;
    else if (*suffix != 'l' && *suffix != 'L')
      break;
  }
  if (*suffix || end == text)
    e->failed = 1; /* 0b101, 1'000, 1.5: not read */
  free(text);
  return e->failed || unsigned_suffix || number > (unsigned long long)LLONG_MAX
             ? unknown_value
             : known((long long)number);
}

/* Steps over a parenthesised argument list (a function-like macro's, __has_include's). */
static void skip_arguments(evaluation *e) {
  int depth = 0;
  do {
    if (*e->at == '(')
      depth++;
    else if (*e->at == ')')
      depth--;
    else if (!*e->at)
      e->failed = 1;
    if (*e->at)
      e->at++;
  } while (depth > 0 && !e->failed);
}

/* `defined NAME` or `defined ( NAME )`, past `defined`. */
static pp_value defined_operator(evaluation *e) {
  int parenthesised = take_op(e, "(");
  size_t length;
  pp_name name;
  skip_blanks(e);
  if ((length = name_length(e)) == 0) {
    e->failed = 1;
    return unknown_value;
  }
  name = e->lookup(e->at, length, e->data);
  e->at += length;
  if (parenthesised && !take_op(e, ")"))
    e->failed = 1;
  return name.state == PP_NAME_UNKNOWN ? unknown_value
                                       : known(name.state != PP_NAME_UNDEFINED);
}

/* A name in a condition: `defined`, true, false, a function-like use, or a macro's value. */
static pp_value name_operand(evaluation *e, size_t length) {
  const char *name = e->at;
  pp_name found;
  e->at += length;
  if (length == 7 && strncmp(name, "defined", 7) == 0)
    return defined_operator(e);
  if (length == 4 && strncmp(name, "true", 4) == 0)
    return known(1);
  if (length == 5 && strncmp(name, "false", 5) == 0)
    return known(0);
  skip_blanks(e);
  if (*e->at == '(') { /* a function-like macro, __has_include, __has_builtin ... */
    skip_arguments(e);
    return unknown_value;
  }
  found = e->lookup(name, length, e->data);
  return found.state == PP_NAME_UNDEFINED ? known(0)
         : found.state == PP_NAME_VALUE   ? known(found.value)
                                          : unknown_value;
}

static pp_value primary(evaluation *e) {
  size_t length;
  skip_blanks(e);
  if (take_op(e, "(")) {
    pp_value value = conditional(e);
    if (!take_op(e, ")"))
      e->failed = 1;
    return value;
  }
  if (isdigit((unsigned char)*e->at))
    return number(e);
  if (*e->at == '\'') { /* a character literal: its value is the compiler's */
    for (e->at++; *e->at && *e->at != '\''; e->at += e->at[0] == '\\' && e->at[1] ? 2 : 1)
      ;
    if (*e->at)
      e->at++;
    else
      e->failed = 1;
    return unknown_value;
  }
  if ((length = name_length(e)) != 0)
    return name_operand(e, length);
  e->failed = 1;
  return unknown_value;
}

static pp_value unary(evaluation *e) {
  pp_value value;
  if (++e->depth > MOST_DEPTH)
    e->failed = 1;
  if (e->failed)
    return unknown_value;
  value = unary_operand(e);
  e->depth--;
  return value;
}

static pp_value unary_operand(evaluation *e) {
  pp_value value;
  if (take_op(e, "!")) {
    value = unary(e);
    return value.known ? known(!value.number) : value;
  }
  if (take_op(e, "~")) {
    value = unary(e);
    return value.known ? known(~value.number) : value;
  }
  if (take_op(e, "-")) {
    value = unary(e);
    return value.known && value.number != LLONG_MIN ? known(-value.number) : unknown_value;
  }
  if (take_op(e, "+"))
    return unary(e);
  return primary(e);
}

/* The binary operators from '|' to '*', lowest first; each level's operators. */
static const char *const binary_levels[][4] = {
    {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<=", ">=", "<", ">"}, {"<<", ">>"}, {"+", "-"},
    {"*", "/", "%"},
};
enum { BINARY_LEVELS = sizeof binary_levels / sizeof binary_levels[0] };

/* `left op right` of known operands; unknown where C leaves it undefined (/ 0, overflow). */
static pp_value apply(const char *op, long long left, long long right) {
  unsigned long long l = (unsigned long long)left, r = (unsigned long long)right;
  switch (op[0]) {
  case '|': return known(left | right);
  case '^': return known(left ^ right);
  case '&': return known(left & right);
  case '=': return known(left == right);
  case '!': return known(left != right);
  case '+': return known((long long)(l + r));
  case '-': return known((long long)(l - r));
  case '*': return known((long long)(l * r));
  case '/':
  case '%':
    if (right == 0 || (left == LLONG_MIN && right == -1))
      return unknown_value;
    return known(op[0] == '/' ? left / right : left % right);
  case '<':
  case '>':
    if (op[1] == op[0]) { /* a shift */
      if (right < 0 || right > 62 || left < 0)
        return unknown_value;
      return known(op[0] == '<' ? (long long)(l << r) : left >> right);
    }
    if (op[0] == '<')
      return known(op[1] == '=' ? left <= right : left < right);
    return known(op[1] == '=' ? left >= right : left > right);
  }
  return unknown_value;
}

static pp_value binary(evaluation *e, size_t level) {
  pp_value left;
  int more = 1;
  if (level == BINARY_LEVELS)
    return unary(e);
  left = binary(e, level + 1);
  while (more && !e->failed) {
    size_t k;
    more = 0;
    for (k = 0; k < 4 && binary_levels[level][k] && !more; k++) {
      const char *op = binary_levels[level][k];
      if (take_op(e, op)) {
        pp_value right = binary(e, level + 1);
        left = left.known && right.known ? apply(op, left.number, right.number) : unknown_value;
        more = 1;
      }
    }
  }
  return left;
}

/* a && b and a || b: an operand known to decide the outcome makes the other one's unneeded */
static pp_value logical_and(evaluation *e) {
  pp_value left = binary(e, 0);
  while (take_op(e, "&&")) {
    pp_value right = binary(e, 0);
    if ((left.known && !left.number) || (right.known && !right.number))
      left = known(0);
    else
      left = left.known && right.known ? known(1) : unknown_value;
  }
  return left;
}

static pp_value logical_or(evaluation *e) {
  pp_value left = logical_and(e);
  while (take_op(e, "||")) {
    pp_value right = logical_and(e);
    if ((left.known && left.number) || (right.known && right.number))
      left = known(1);
    else
      left = left.known && right.known ? known(0) : unknown_value;
  }
  return left;
}

static pp_value conditional(evaluation *e) {
  pp_value test = logical_or(e), then, otherwise;
  if (!take_op(e, "?"))
    return test;
  then = conditional(e);
  if (!take_op(e, ":"))
    e->failed = 1;
  otherwise = conditional(e);
  if (test.known)
    return test.number ? then : otherwise;
  return then.known && otherwise.known && then.number == otherwise.number ? then : unknown_value;
}

/* pp_condition_value: see pp_text.h. */
int pp_condition_value(const char *text, pp_lookup lookup, void *data, long long *value) {
  evaluation e;
  pp_value result;
  e.at = text;
  e.lookup = lookup;
  e.data = data;
  e.failed = 0;
  e.depth = 0;
  result = conditional(&e);
  skip_blanks(&e);
  if (e.failed || *e.at || !result.known)
    return 0;
  *value = result.number;
  return 1;
}
