/* fs.c: all-or-nothing output writing, unchanged-skip, file reading (see fs.h). */
#include "fs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

/* cubind_basename: see fs.h. */
const char *cubind_basename(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* cubind_unspellable: see fs.h. */
const char *cubind_unspellable(const char *base) {
  const char *at;
  for (at = base; *at; at++)
    if (*at == '"' || *at == '\\' || (unsigned char)*at < 0x20 || *at == 0x7f ||
        (at[0] == '?' && at[1] == '?')) /* with what follows it in the output, a trigraph */
      return at;
  return NULL;
}

/* Reads a whole file; reports failures when `report` is 1. */
static int read_file(const char *path, char **data, size_t *size, int report) {
  FILE *file = fopen(path, "rb");
  cubind_buf buf = {0};
  char chunk[65536];
  size_t got;
  struct stat info;
  if (!file || fstat(fileno(file), &info) != 0 || S_ISDIR(info.st_mode)) {
    int error = file ? (S_ISDIR(info.st_mode) ? EISDIR : errno) : errno;
    if (report)
      cubind_diag(NULL, 0, 0, "error", "cannot read '%s': %s", path, strerror(error));
    if (file)
      fclose(file);
    return 1;
  }
  cubind_buf_append(&buf, "", 0);
  while ((got = fread(chunk, 1, sizeof chunk, file)) > 0)
    cubind_buf_append(&buf, chunk, got);
  if (ferror(file)) {
    if (report)
      cubind_diag(NULL, 0, 0, "error", "cannot read '%s': %s", path, strerror(errno));
    fclose(file);
    cubind_buf_free(&buf);
    return 1;
  }
  fclose(file);
  *data = buf.data;
  *size = buf.length;
  return 0;
}

/* cubind_read_file: see fs.h. */
int cubind_read_file(const char *path, char **data, size_t *size) {
  return read_file(path, data, size, 1);
}

/* cubind_read_file_quiet: see fs.h. */
int cubind_read_file_quiet(const char *path, char **data, size_t *size) {
  return read_file(path, data, size, 0);
}

/* 1 when the file at path holds exactly these bytes. */
static int same_content(const char *path, const char *data, size_t size) {
  FILE *file = fopen(path, "rb");
  char chunk[65536];
  size_t offset = 0, got;
  int same = 1;
  if (!file)
    return 0;
  while (same && (got = fread(chunk, 1, sizeof chunk, file)) > 0) {
    if (offset + got > size || memcmp(chunk, data + offset, got) != 0)
      same = 0;
    offset += got;
  }
  if (ferror(file) || offset != size)
    same = 0;
  fclose(file);
  return same;
}

static int stage(cubind_outputs *outputs, const char *path, const char *data, size_t size,
                 int report);
static int commit(cubind_outputs *outputs, int report);

/* Creates the temporary file for `path` and returns its descriptor (and *temp), or -1. */
static int create_temp(const char *path, char **temp) {
  const char *base = cubind_basename(path);
  int fd;
  /* next to the final file: rename() is atomic only within a file system */
  *temp = cubind_xasprintf("%.*s.%s.tmp-XXXXXX", (int)(base - path), path, base);
  fd = mkstemp(*temp);
  if (fd < 0) {
    free(*temp);
    *temp = NULL;
  }
  return fd;
}

/* cubind_temp_path: see fs.h. */
char *cubind_temp_path(const char *path) {
  char *temp;
  int fd = create_temp(path, &temp);
  if (fd < 0)
    return NULL;
  close(fd);
  return temp;
}

/* cubind_write_file: see fs.h. */
int cubind_write_file(const char *path, const char *data, size_t size, int report) {
  cubind_outputs outputs = {0};
  int failed = stage(&outputs, path, data, size, report) || commit(&outputs, report);
  cubind_outputs_discard(&outputs);
  return failed;
}

/* cubind_outputs_stage: see fs.h. */
int cubind_outputs_stage(cubind_outputs *outputs, const char *path, const char *data,
                         size_t size) {
  return stage(outputs, path, data, size, 1);
}

/* Stages one output (see cubind_outputs_stage); reports failures when `report` is 1. */
static int stage(cubind_outputs *outputs, const char *path, const char *data, size_t size,
                 int report) {
  cubind_staged *staged;
  char *temp;
  int fd;
  size_t written = 0;
  mode_t mask;
  struct stat info;
  if (outputs->count == sizeof outputs->items / sizeof outputs->items[0]) {
    if (report)
      cubind_diag(NULL, 0, 0, "error", "too many outputs");
    return 1;
  }
  /* rename() over a directory fails: find out now, before any output is renamed into place
     (a failure in cubind_outputs_commit would leave the earlier outputs already replaced) */
  if (stat(path, &info) == 0 && S_ISDIR(info.st_mode)) {
    if (report)
      cubind_diag(NULL, 0, 0, "error", "cannot write '%s': %s", path, strerror(EISDIR));
    return 1;
  }
  staged = &outputs->items[outputs->count];
  staged->path = cubind_xstrdup(path);
  staged->temp = NULL;
  outputs->count++;
  if (same_content(path, data, size))
    return 0;
  fd = create_temp(path, &temp);
  if (fd < 0) {
    if (report)
      cubind_diag(NULL, 0, 0, "error", "cannot write '%s': %s", path, strerror(errno));
    return 1;
  }
  staged->temp = temp;
  mask = umask(0);
  umask(mask);
  if (fchmod(fd, 0666 & ~mask) != 0) { /* mkstemp creates 0600; outputs get the usual mode */
    if (report)
      cubind_diag(NULL, 0, 0, "error", "cannot write '%s': %s", temp, strerror(errno));
    close(fd);
    return 1;
  }
  while (written < size) {
    ssize_t n = write(fd, data + written, size - written);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (report)
        cubind_diag(NULL, 0, 0, "error", "cannot write '%s': %s", temp,
                    n < 0 ? strerror(errno) : "short write");
      close(fd);
      return 1;
    }
    written += (size_t)n;
  }
  if (close(fd) != 0) {
    if (report)
      cubind_diag(NULL, 0, 0, "error", "cannot write '%s': %s", temp, strerror(errno));
    return 1;
  }
  return 0;
}

/* cubind_outputs_commit: see fs.h. */
int cubind_outputs_commit(cubind_outputs *outputs) { return commit(outputs, 1); }

/* Renames every staged file into place; reports a failure when `report` is 1. */
static int commit(cubind_outputs *outputs, int report) {
  size_t i;
  for (i = 0; i < outputs->count; i++) {
    cubind_staged *staged = &outputs->items[i];
    if (!staged->temp)
      continue;
    if (rename(staged->temp, staged->path) != 0) {
      if (report)
        cubind_diag(NULL, 0, 0, "error", "cannot write '%s': %s", staged->path,
                    strerror(errno));
      return 1;
    }
    free(staged->temp);
    staged->temp = NULL;
  }
  return 0;
}

/* cubind_outputs_discard: see fs.h. */
void cubind_outputs_discard(cubind_outputs *outputs) {
  size_t i;
  for (i = 0; i < outputs->count; i++) {
    if (outputs->items[i].temp)
      unlink(outputs->items[i].temp);
    free(outputs->items[i].temp);
    free(outputs->items[i].path);
  }
  outputs->count = 0;
}

/* cubind_make_dirs: see fs.h. */
int cubind_make_dirs(const char *dir, int report) {
  char *path = cubind_xstrdup(dir);
  char *at = path;
  struct stat info;
  int status = 0;
  for (;;) {
    char saved;
    at += strspn(at, "/");
    at += strcspn(at, "/");
    saved = *at;
    *at = '\0';
    if (path[0] && mkdir(path, 0777) != 0 && errno != EEXIST) {
      if (report)
        cubind_diag(NULL, 0, 0, "error", "cannot create output directory '%s': %s", path,
                    strerror(errno));
      status = 1;
      break;
    }
    *at = saved;
    if (!saved)
      break;
  }
  if (!status && (stat(dir, &info) != 0 || !S_ISDIR(info.st_mode))) {
    if (report)
      cubind_diag(NULL, 0, 0, "error", "output directory '%s' is not a directory", dir);
    status = 1;
  }
  free(path);
  return status;
}
