/* fs.c: all-or-nothing output writing, unchanged-skip, stale temporaries, file reading (fs.h). */
#include "fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
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

/*
 * Opens an input and checks it is a regular file of at most `limit` bytes: a FIFO or a device
 * would block or never end, a directory opens on Linux, a huge file would exhaust memory.
 * O_NONBLOCK: opening a FIFO with no writer must not wait. Returns the descriptor (and
 * *info), or -1 after reporting why when `report` is 1.
 */
static int open_input(const char *path, unsigned long long limit, struct stat *info,
                      int report) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), error;
  if (fd < 0 || fstat(fd, info) != 0) {
    error = errno;
    if (fd >= 0)
      close(fd);
    if (report)
      cubind_diag(NULL, 0, 0, "error", "cannot read '%s': %s", path, strerror(error));
    return -1;
  }
  if (!S_ISREG(info->st_mode) || (unsigned long long)info->st_size > limit) {
    if (report && S_ISDIR(info->st_mode))
      cubind_diag(NULL, 0, 0, "error", "cannot read '%s': %s", path, strerror(EISDIR));
    else if (report && !S_ISREG(info->st_mode))
      cubind_diag(NULL, 0, 0, "error",
                  "cannot read '%s': not a regular file (a pipe, socket or device); cubind-gen "
                  "reads files only",
                  path);
    else if (report)
      cubind_diag(NULL, 0, 0, "error",
                  "cannot read '%s': it holds %llu bytes, more than the %llu this input may have",
                  path, (unsigned long long)info->st_size, limit);
    close(fd);
    return -1;
  }
  return fd;
}

/*
 * Reads an input (see open_input), or only its first `head` bytes when it has more; reports
 * failures when `report` is 1.
 */
static int read_file(const char *path, unsigned long long limit, size_t head, char **data,
                     size_t *size, int report) {
  struct stat info;
  size_t length, got = 0;
  char *buffer;
  int fd = open_input(path, limit, &info, report);
  if (fd < 0)
    return 1;
  length = (size_t)info.st_size < head ? (size_t)info.st_size : head;
  buffer = cubind_xmalloc(length + 1);
  while (got < length) {
    ssize_t n = read(fd, buffer + got, length - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) { /* an error, or the file shrank while it was read */
      if (report)
        cubind_diag(NULL, 0, 0, "error", "cannot read '%s': %s", path,
                    n < 0 ? strerror(errno) : "it changed while it was read");
      close(fd);
      free(buffer);
      return 1;
    }
    got += (size_t)n;
  }
  close(fd);
  buffer[length] = '\0';
  *data = buffer;
  *size = length;
  return 0;
}

/* cubind_check_input: see fs.h. */
int cubind_check_input(const char *path, unsigned long long limit) {
  struct stat info;
  int fd = open_input(path, limit, &info, 1);
  if (fd < 0)
    return 1;
  close(fd);
  return 0;
}

/* cubind_read_file: see fs.h. */
int cubind_read_file(const char *path, unsigned long long limit, char **data, size_t *size) {
  return read_file(path, limit, SIZE_MAX, data, size, 1);
}

/* cubind_read_file_quiet: see fs.h. */
int cubind_read_file_quiet(const char *path, unsigned long long limit, char **data,
                           size_t *size) {
  return read_file(path, limit, SIZE_MAX, data, size, 0);
}

/* cubind_read_head_quiet: see fs.h. */
int cubind_read_head_quiet(const char *path, unsigned long long limit, size_t head, char **data,
                           size_t *size) {
  return read_file(path, limit, head, data, size, 0);
}

/* cubind_map_file_quiet: see fs.h. */
int cubind_map_file_quiet(const char *path, unsigned long long limit, const void **data,
                          size_t *size) {
  struct stat info;
  void *map = NULL;
  int fd = open_input(path, limit, &info, 0);
  if (fd < 0)
    return 1;
  if (info.st_size > 0)
    map = mmap(NULL, (size_t)info.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED)
    return 1;
  *data = map;
  *size = (size_t)info.st_size;
  return 0;
}

/* cubind_unmap_file: see fs.h. */
void cubind_unmap_file(const void *data, size_t size) {
  if (data)
    munmap((void *)data, size);
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

/* Writes all `size` bytes to `fd`; 0, or -1 with errno set (0 for a short write). */
static int write_all(int fd, const char *data, size_t size) {
  size_t written = 0;
  while (written < size) {
    ssize_t n = write(fd, data + written, size - written);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0)
        errno = 0;
      return -1;
    }
    written += (size_t)n;
  }
  return 0;
}

/*
 * Stages an output that exists and is no regular file (a device such as /dev/null, a FIFO, a
 * terminal): renaming a file over it would replace the device (as root, /dev/null itself), and
 * reading it to compare could block. It is opened now, without waiting for a FIFO's reader, so
 * that a failure comes before any output is replaced, and written at commit.
 */
static int stage_special(cubind_staged *staged, const char *data, size_t size, int report) {
  int fd = open(staged->path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    if (report)
      cubind_diag(NULL, 0, 0, "error", "cannot write '%s': %s", staged->path,
                  errno == ENXIO ? "it is a FIFO that no process reads" : strerror(errno));
    return 1;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK); /* a reader there: write as usual */
  staged->special_fd = fd;
  staged->special = cubind_xmalloc(size ? size : 1);
  memcpy(staged->special, data, size);
  staged->special_size = size;
  return 0;
}

/* How much of an output's name its temporary files keep: a name near NAME_MAX (255 bytes)
   still leaves room for ".tmp-XXXXXX". */
#define TEMP_NAME_KEEPS 200

/* Creates the temporary file for `path` and returns its descriptor (and *temp), or -1. */
static int create_temp(const char *path, char **temp) {
  const char *base = cubind_basename(path);
  int fd;
  /* next to the final file: rename() is atomic only within a file system */
  *temp = cubind_xasprintf("%.*s.%.*s.tmp-XXXXXX", (int)(base - path), path, TEMP_NAME_KEEPS,
                           base);
  fd = mkstemp(*temp);
  if (fd < 0) {
    free(*temp);
    *temp = NULL;
  }
  return fd;
}

/* 1 when the file `name` is one create_temp makes for an output named `data` (a basename). */
static int is_output_temp(const char *name, const void *data) {
  const char *base = data;
  size_t length = strlen(base);
  if (length > TEMP_NAME_KEEPS)
    length = TEMP_NAME_KEEPS;
  return name[0] == '.' && strncmp(name + 1, base, length) == 0 &&
         strncmp(name + 1 + length, ".tmp-", 5) == 0 && strlen(name + 1 + length + 5) == 6;
}

/* Removes the stale temporary files of the output `path` that killed runs left (see
   cubind_sweep_stale). */
static void sweep_output_temps(const char *path) {
  const char *base = cubind_basename(path);
  char *dir = base == path ? cubind_xstrdup(".") : cubind_xstrndup(path, (size_t)(base - path));
  cubind_sweep_stale(dir, is_output_temp, base);
  free(dir);
}

/* cubind_sweep_stale: see fs.h. */
void cubind_sweep_stale(const char *dir_path, int (*is_temp)(const char *name, const void *data),
                        const void *data) {
  DIR *dir = opendir(dir_path);
  struct dirent *entry;
  time_t now = time(NULL);
  if (!dir)
    return;
  while ((entry = readdir(dir)) != NULL) {
    struct stat info;
    char *path;
    if (!is_temp(entry->d_name, data))
      continue;
    path = cubind_xasprintf("%s/%s", dir_path, entry->d_name);
    if (stat(path, &info) == 0 && S_ISREG(info.st_mode) &&
        now - info.st_mtime > CUBIND_STALE_SECONDS)
      unlink(path);
    free(path);
  }
  closedir(dir);
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
  int fd, exists;
  mode_t mask;
  struct stat info;
  if (outputs->count == sizeof outputs->items / sizeof outputs->items[0]) {
    if (report)
      cubind_diag(NULL, 0, 0, "error", "too many outputs");
    return 1;
  }
  /* rename() over a directory fails: find out now, before any output is renamed into place
     (a failure in cubind_outputs_commit would leave the earlier outputs already replaced) */
  exists = stat(path, &info) == 0;
  if (exists && S_ISDIR(info.st_mode)) {
    if (report)
      cubind_diag(NULL, 0, 0, "error", "cannot write '%s': %s", path, strerror(EISDIR));
    return 1;
  }
  staged = &outputs->items[outputs->count];
  staged->path = cubind_xstrdup(path);
  staged->temp = NULL;
  staged->special_fd = -1;
  staged->special = NULL;
  outputs->count++;
  if (exists && !S_ISREG(info.st_mode))
    return stage_special(staged, data, size, report);
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
  if (write_all(fd, data, size) != 0) {
    if (report)
      cubind_diag(NULL, 0, 0, "error", "cannot write '%s': %s", temp,
                  errno ? strerror(errno) : "short write");
    close(fd);
    return 1;
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

/*
 * Renames every staged file into place; reports a failure when `report` is 1. Then removes the
 * stale temporary files that killed runs left for each output, rewritten or unchanged.
 */
static int commit(cubind_outputs *outputs, int report) {
  size_t i;
  for (i = 0; i < outputs->count; i++) {
    cubind_staged *staged = &outputs->items[i];
    if (staged->special_fd >= 0) {
      int failed = write_all(staged->special_fd, staged->special, staged->special_size) != 0;
      failed |= close(staged->special_fd) != 0;
      staged->special_fd = -1;
      if (failed) {
        if (report)
          cubind_diag(NULL, 0, 0, "error", "cannot write '%s': %s", staged->path,
                      errno ? strerror(errno) : "short write");
        return 1;
      }
      continue;
    }
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
  for (i = 0; i < outputs->count; i++)
    if (!outputs->items[i].special) /* (no temporary files beside a device) */
      sweep_output_temps(outputs->items[i].path);
  return 0;
}

/* cubind_outputs_discard: see fs.h. */
void cubind_outputs_discard(cubind_outputs *outputs) {
  size_t i;
  for (i = 0; i < outputs->count; i++) {
    if (outputs->items[i].temp)
      unlink(outputs->items[i].temp);
    if (outputs->items[i].special_fd >= 0)
      close(outputs->items[i].special_fd);
    free(outputs->items[i].special);
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

/*
 * The directory entry `path` names, as an absolute path with its directories resolved (".",
 * "..", symlinks and repeated slashes) but not its last component: renaming over a symlink
 * replaces the link, not what it points to. Directories that do not exist yet are resolved by
 * their text. Returns a new string.
 */
static char *entry_path(const char *path) {
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  char *dir, *dir_entry, *result;
  if (!slash)
    dir = cubind_xstrdup(".");
  else if (slash == path)
    dir = cubind_xstrdup("/");
  else
    dir = cubind_xstrndup(path, (size_t)(slash - path));
  if (!(dir_entry = realpath(dir, NULL)))
    dir_entry = strcmp(dir, path) == 0 ? cubind_xstrdup(dir) : entry_path(dir);
  free(dir);
  if (!*base || strcmp(base, ".") == 0)
    return dir_entry;
  if (strcmp(base, "..") == 0) {
    char *up = strrchr(dir_entry, '/');
    if (up)
      *(up == dir_entry ? up + 1 : up) = '\0';
    return dir_entry;
  }
  result = cubind_xasprintf("%s%s%s", dir_entry,
                            dir_entry[strlen(dir_entry) - 1] == '/' ? "" : "/", base);
  free(dir_entry);
  return result;
}

/* An input as the outputs are compared with it: each of its names, and its file identity. */
typedef struct resolved_input {
  char *entry; /* entry_path */
  char *real;  /* realpath, or NULL */
  int has_id;  /* stat succeeded: dev and ino are set */
  dev_t dev;
  ino_t ino;
} resolved_input;

/* Resolves `input` once, for every output (see resolved_input). */
static void resolve_input(const char *input, resolved_input *resolved) {
  struct stat info;
  resolved->entry = entry_path(input);
  resolved->real = realpath(input, NULL);
  resolved->has_id = stat(input, &info) == 0;
  resolved->dev = resolved->has_id ? info.st_dev : 0;
  resolved->ino = resolved->has_id ? info.st_ino : 0;
}

/*
 * 1 when the entry `output` names is the input (by either of its names) or a hard link to it.
 * `out_info` is lstat's answer for `output`, or NULL when it has none (no such file yet).
 */
static int overwrites(const char *output_entry, const struct stat *out_info,
                      const resolved_input *input) {
  return strcmp(output_entry, input->entry) == 0 ||
         (input->real && strcmp(output_entry, input->real) == 0) ||
         (out_info && input->has_id && out_info->st_dev == input->dev &&
          out_info->st_ino == input->ino);
}

/* cubind_check_outputs: see fs.h. */
int cubind_check_outputs(const char *const *outputs, size_t num_outputs,
                         const char *const *inputs, size_t num_inputs) {
  char **entries = cubind_xcalloc(num_outputs + 1, sizeof *entries);
  resolved_input *resolved = cubind_xcalloc(num_inputs + 1, sizeof *resolved);
  size_t i, j;
  int failed = 0;
  for (j = 0; j < num_inputs; j++)
    resolve_input(inputs[j], &resolved[j]);
  for (i = 0; i < num_outputs && !failed; i++) {
    struct stat out_info;
    int has_info = lstat(outputs[i], &out_info) == 0;
    entries[i] = entry_path(outputs[i]);
    for (j = 0; j < i && !failed; j++)
      if (strcmp(entries[i], entries[j]) == 0) {
        cubind_diag(NULL, 0, 0, "error", "two outputs are one file: '%s' and '%s'", outputs[j],
                    outputs[i]);
        failed = 1;
      }
    for (j = 0; j < num_inputs && !failed; j++)
      if (overwrites(entries[i], has_info ? &out_info : NULL, &resolved[j])) {
        cubind_diag(NULL, 0, 0, "error",
                    "the output '%s' is the input '%s': nothing was written (an output may "
                    "never replace an input)",
                    outputs[i], inputs[j]);
        failed = 1;
      }
  }
  for (i = 0; i < num_outputs; i++)
    free(entries[i]);
  for (j = 0; j < num_inputs; j++) {
    free(resolved[j].entry);
    free(resolved[j].real);
  }
  free(entries);
  free(resolved);
  return failed;
}
