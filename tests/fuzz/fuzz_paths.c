/*
 * fuzz_paths.c: libFuzzer harness for cubind_check_outputs (generator/fs.c), the one decision
 * that no output replaces an input or another output. The input bytes spell two paths inside a
 * scratch tree that holds directories, a symlinked directory, a symlinked file and a hard link
 * (components ".", "..", "", names that exist and names that do not). Oracle, from the file
 * system itself: when the check lets `output` through beside `input`, writing the output the way
 * cubind-gen does (a temporary file renamed over it) must leave the input's bytes as they were;
 * when it lets two outputs through, writing the second must leave the first as written.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs.h"
#include "util.h"

static char root[64];

/* The scratch tree, made once: d/, d/e/, d/f (a file), d/h (a hard link to d/f), l -> d,
   d/s -> f (a symlinked file), g (a file). */
static void make_tree(void) {
  char path[128];
  FILE *file;
  snprintf(root, sizeof root, "/tmp/cubind-fuzz-paths-%ld", (long)getpid());
  mkdir(root, 0777);
  snprintf(path, sizeof path, "%s/d", root), mkdir(path, 0777);
  snprintf(path, sizeof path, "%s/d/e", root), mkdir(path, 0777);
  snprintf(path, sizeof path, "%s/l", root), (void)symlink("d", path);
  snprintf(path, sizeof path, "%s/d/s", root), (void)symlink("f", path);
  if (chdir(root) != 0)
    abort();
}

/* Writes `text` to `path` as cubind-gen writes an output (0 on success). */
static int write_output(const char *path, const char *text) {
  return cubind_write_file(path, text, strlen(text), 0);
}

/* The bytes of `path` as a new string, or NULL. */
static char *read_back(const char *path) {
  char *data = NULL;
  size_t size = 0;
  return cubind_read_file_quiet(path, 1 << 20, &data, &size) == 0 ? data : NULL;
}

/* Resets the files the paths may name: d/f (+ its hard link d/h), g. */
static void reset_files(void) {
  FILE *file;
  unlink("d/h");
  unlink("d/e/x");
  unlink("d/x");
  unlink("x");
  file = fopen("d/f", "w");
  if (file)
    fputs("input f\n", file), fclose(file);
  file = fopen("g", "w");
  if (file)
    fputs("input g\n", file), fclose(file);
  (void)link("d/f", "d/h");
}

/* A path from the input bytes: up to 6 components from a small alphabet, maybe absolute. */
static char *take_path(const uint8_t **data, size_t *size) {
  static const char *const parts[] = {".", "..", "", "d", "e", "f", "g", "h", "l", "s", "x"};
  cubind_buf path = {0};
  unsigned count, i;
  cubind_buf_puts(&path, "");
  if (!*size)
    return path.data;
  count = **data % 7;
  if (**data & 0x80)
    cubind_buf_printf(&path, "%s/", root);
  (*data)++, (*size)--;
  for (i = 0; i < count && *size; i++, (*data)++, (*size)--)
    cubind_buf_printf(&path, "%s%s", i ? "/" : "", parts[**data % (sizeof parts / sizeof *parts)]);
  return path.data;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int made;
  char *first, *second, *before, *after;
  const char *outputs[2], *inputs[1];
  struct stat info;
  if (!made) {
    make_tree();
    made = 1;
  }
  first = take_path(&data, &size);
  second = take_path(&data, &size);
  reset_files();
  /* an output must be creatable as a file for the oracle to mean anything */
  if (!*first || !*second || (stat(first, &info) == 0 && !S_ISREG(info.st_mode))) {
    free(first);
    free(second);
    return 0;
  }
  /* output `first` beside input `second` */
  outputs[0] = first;
  inputs[0] = second;
  before = read_back(second);
  if (before && cubind_check_outputs(outputs, 1, inputs, 1) == 0 &&
      write_output(first, "output\n") == 0) {
    after = read_back(second);
    if (!after || strcmp(before, after) != 0) {
      fprintf(stderr, "fuzz_paths: output '%s' replaced input '%s'\n", first, second);
      abort();
    }
    free(after);
  }
  free(before);
  /* two outputs, `first` then `second` */
  reset_files();
  outputs[1] = second;
  if ((stat(second, &info) != 0 || S_ISREG(info.st_mode)) &&
      cubind_check_outputs(outputs, 2, NULL, 0) == 0 && write_output(first, "one\n") == 0 &&
      write_output(second, "two\n") == 0) {
    after = read_back(first);
    if (!after || strcmp(after, "one\n") != 0) {
      fprintf(stderr, "fuzz_paths: outputs '%s' and '%s' are one file\n", first, second);
      abort();
    }
    free(after);
  }
  free(first);
  free(second);
  return 0;
}
