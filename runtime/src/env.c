/*
 * env.c: the parsers of cubind's environment variables (sizes and switches). A value is read
 * completely or rejected: "1G" is 2^30 bytes, never 1; "2T" is 2^41, never 2; "-5" is an error,
 * never a huge number.
 */
#define _POSIX_C_SOURCE 200809L /* strcasecmp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "env.h"

#define SIZE_FORMS                                                                                 \
  "a number of bytes in decimal, optionally followed by K, M, G or T (also KB/KiB, ...: powers "  \
  "of 1024)"

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

int cubind__parse_size(const char *text, size_t *out, const char **why) {
  static const struct {
    char letter;
    unsigned shift;
  } units[] = {{'k', 10}, {'m', 20}, {'g', 30}, {'t', 40}};
  const char *p = text, *unit;
  size_t value = 0, unit_length;
  unsigned shift = 0, i;
  while (is_space(*p))
    p++;
  if (*p == '-') {
    *why = "a negative size";
    return -1;
  }
  if (*p == '+') p++;
  if (*p < '0' || *p > '9') {
    *why = "no decimal digits";
    return -1;
  }
  for (; *p >= '0' && *p <= '9'; p++) {
    unsigned digit = (unsigned)(*p - '0');
    if (value > ((size_t)-1 - digit) / 10) {
      *why = "it does not fit in size_t";
      return -1;
    }
    value = value * 10 + digit;
  }
  while (is_space(*p)) /* "8 M" reads as "8M" */
    p++;
  unit = p;
  while (*p && !is_space(*p))
    p++;
  unit_length = (size_t)(p - unit);
  while (is_space(*p))
    p++;
  if (*p) {
    *why = "text after the unit";
    return -1;
  }
  if (unit_length == 0 || (unit_length == 1 && (*unit == 'b' || *unit == 'B'))) {
    *out = value;
    return 0;
  }
  for (i = 0; i < sizeof units / sizeof units[0]; i++)
    if ((unit[0] | 0x20) == units[i].letter) shift = units[i].shift;
  if (!shift || !(unit_length == 1 || (unit_length == 2 && (unit[1] | 0x20) == 'b') ||
                  (unit_length == 3 && (unit[1] | 0x20) == 'i' && (unit[2] | 0x20) == 'b'))) {
    *why = "an unknown unit";
    return -1;
  }
  if (shift >= sizeof(size_t) * 8 || value > ((size_t)-1 >> shift)) {
    *why = "it does not fit in size_t";
    return -1;
  }
  *out = value << shift;
  return 0;
}

int cubind__env_size(const char *name, size_t fallback, size_t *out, char *message, size_t size) {
  const char *value = getenv(name), *why = NULL;
  *out = fallback;
  if (!value || !*value) return 0;
  if (cubind__parse_size(value, out, &why) == 0) return 0;
  *out = fallback;
  snprintf(message, size, "%s='%.100s' is not a size (%s): write %s, e.g. 8M", name, value, why,
           SIZE_FORMS);
  return -1;
}

int cubind__env_count(const char *name, unsigned fallback, unsigned max, unsigned *out,
                      char *message, size_t size) {
  const char *value = getenv(name), *p;
  unsigned long count = 0;
  *out = fallback;
  if (!value || !*value) return 0;
  for (p = value; *p >= '0' && *p <= '9' && count <= max; p++) count = count * 10 + (unsigned)(*p - '0');
  if (p != value && *p == '\0' && count <= max) {
    *out = (unsigned)count;
    return 0;
  }
  snprintf(message, size, "%s='%.100s' is not a count from 0 to %u", name, value, max);
  return -1;
}

int cubind__env_switch(const char *name, int fallback, int *on, char *message, size_t size) {
  static const char *const words[][2] = {
      {"1", "0"}, {"on", "off"}, {"yes", "no"}, {"true", "false"}};
  const char *value = getenv(name);
  size_t i;
  *on = fallback;
  if (!value || !*value) return 0;
  for (i = 0; i < sizeof words / sizeof words[0]; i++) {
    if (strcasecmp(value, words[i][0]) == 0) {
      *on = 1;
      return 0;
    }
    if (strcasecmp(value, words[i][1]) == 0) {
      *on = 0;
      return 0;
    }
  }
  snprintf(message, size, "%s='%.100s' is neither on nor off: write 1 or 0 (on/off, yes/no, "
                          "true/false)",
           name, value);
  return -1;
}
