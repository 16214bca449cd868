/*
 * pp_text.h: a header's preprocessor directives read from its text, without a preprocessor:
 * its logical lines (comments and line splices taken out) and what an #if condition comes to
 * where only some names' definitions are known. macro_views.c finds the groups that test a
 * macro clang and nvcc define otherwise; prelude_cache.c asks whether a header reads a macro
 * in a way that matters (a test whose outcome it does not change does not).
 */
#ifndef CUBIND_GEN_PP_TEXT_H
#define CUBIND_GEN_PP_TEXT_H

#include <stddef.h>

#include "util.h"

/* A file's text, read one logical line at a time (pp_next_line). */
typedef struct pp_line_reader {
  const char *at, *end;
  unsigned line;      /* the physical line the logical one begins on */
  unsigned next_line;
  int in_comment;     /* inside a block comment at the start of the next line */
} pp_line_reader;

/* A reader at the start of `text`. */
pp_line_reader pp_line_reader_of(const char *text, size_t size);

/*
 * pp_next_line: the next logical line (line splices joined, comments replaced by a space) into
 * `out`; 0 at the end of the text. String and character literals are kept whole.
 */
int pp_next_line(pp_line_reader *reader, cubind_buf *out);

/*
 * pp_directive_of: 1 when the logical `line` is a directive; its name ("if", "endif" ...) goes
 * to `name` (cut to `size` - 1 characters) and *rest points past it.
 */
int pp_directive_of(const char *line, char *name, size_t size, const char **rest);

/* What a condition's evaluation knows of a name (pp_lookup). */
typedef enum pp_name_state {
  PP_NAME_UNKNOWN,   /* it may be defined or not */
  PP_NAME_UNDEFINED, /* it is not defined */
  PP_NAME_DEFINED,   /* it is defined, as nothing the evaluation can use */
  PP_NAME_VALUE      /* it is defined as the integer `value` */
} pp_name_state;

typedef struct pp_name {
  pp_name_state state;
  long long value;
} pp_name;

/* What is known of the name of `length` characters at `name` (not NUL-terminated). */
typedef pp_name (*pp_lookup)(const char *name, size_t length, void *data);

/*
 * pp_condition_value: 1 when the #if or #elif condition `text` (what follows the directive's
 * name, on one logical line) has a value that what `lookup` knows decides, stored in *value; 0
 * when it depends on something unknown (a name it does not know, a function-like macro,
 * __has_include, a character literal, an unsigned literal) or is no expression this reads.
 * C++'s rules: `true` is 1, `false` 0, any other name not defined is 0. An operand whose value
 * cannot change the outcome (`0 && x`, `1 || x`) need not be known.
 */
int pp_condition_value(const char *text, pp_lookup lookup, void *data, long long *value);

#endif /* CUBIND_GEN_PP_TEXT_H */
