/*
 * fuzz_pp_text.c: libFuzzer harness for generator/pp_text.c, the #if conditions the prelude
 * cache reads without a preprocessor. The input is a header's text; each #if and #elif
 * condition of it is evaluated twice: with some names unknown, and with every name given a
 * value (the same value where the first lookup knew one). Oracle: a value known the first time
 * is the value whatever the unknown names are (a three-valued evaluation never guesses), so
 * the second evaluation, where it has a value, must have that one.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pp_text.h"
#include "util.h"

/* A name's value from its spelling: the first byte decides what each lookup knows. */
static pp_name lookup(const char *name, size_t length, int complete) {
  pp_name found = {PP_NAME_UNKNOWN, 0};
  unsigned hash = 2166136261u;
  size_t i;
  for (i = 0; i < length; i++)
    hash = (hash ^ (unsigned char)name[i]) * 16777619u;
  switch (hash % 4) {
  case 0:
    found.state = PP_NAME_UNDEFINED;
    break;
  case 1:
    found.state = PP_NAME_VALUE;
    found.value = (long long)(hash >> 8) % 7 - 2;
    break;
  default: /* unknown to the partial lookup; a value for the complete one */
    if (complete) {
      found.state = hash % 4 == 2 ? PP_NAME_UNDEFINED : PP_NAME_VALUE;
      found.value = (long long)(hash >> 12) % 5;
    }
    break;
  }
  return found;
}

static pp_name partial_lookup(const char *name, size_t length, void *data) {
  (void)data;
  return lookup(name, length, 0);
}

static pp_name complete_lookup(const char *name, size_t length, void *data) {
  (void)data;
  return lookup(name, length, 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pp_line_reader reader = pp_line_reader_of((const char *)data, size);
  cubind_buf line = {0};
  char name[8];
  const char *rest;
  while (pp_next_line(&reader, &line)) {
    long long partial, complete;
    if (!pp_directive_of(line.data, name, sizeof name, &rest) ||
        (strcmp(name, "if") != 0 && strcmp(name, "elif") != 0))
      continue;
    if (pp_condition_value(rest, partial_lookup, NULL, &partial) &&
        pp_condition_value(rest, complete_lookup, NULL, &complete) && partial != complete)
      abort(); /* the partial evaluation guessed */
  }
  cubind_buf_free(&line);
  return 0;
}
