/* host_compiler.c: the host compiler's include directories and _OPENMP (see host_compiler.h). */
#include "host_compiler.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs.h"

/* What `<cc> -E -v -dM` reports that the device parse needs. */
typedef struct host_report {
  cubind_strlist dirs;   /* its #include <...> directories, in search order */
  cubind_strlist absent; /* directories it would search but skipped as missing */
  char *openmp;          /* the value of its _OPENMP, or NULL */
} host_report;

static void report_free(host_report *report) {
  cubind_strlist_free(&report->dirs);
  cubind_strlist_free(&report->absent);
  free(report->openmp);
  memset(report, 0, sizeof *report);
}

/*
 * Runs the compiler on an empty C++ unit (GCC and Clang print the same listing). Returns 1 when
 * it ran and listed its directories. The run costs 0.02 s, a fifth of a run of cubind-gen on a
 * light .cu with a warm cache: hence remembering its report.
 */
static int probe(const char *compiler, int openmp, host_report *report) {
  static const char skipped[] = "ignoring nonexistent directory \"";
  char *command, line[4096];
  FILE *pipe;
  int listing = 0;
  if (strchr(compiler, '\'')) /* not quotable this way: go without */
    return 0;
  command = cubind_xasprintf("'%s' -E -x c++ -v -dM %s - </dev/null 2>&1", compiler,
                             openmp ? "-fopenmp" : "");
  pipe = popen(command, "r");
  free(command);
  if (!pipe)
    return 0;
  while (fgets(line, sizeof line, pipe)) {
    size_t length = strcspn(line, "\r\n");
    line[length] = '\0';
    if (strncmp(line, "#include <...> search starts here:", 34) == 0)
      listing = 1;
    else if (strncmp(line, "End of search list.", 19) == 0)
      listing = 0;
    else if (listing && line[0] == ' ')
      cubind_strlist_add(&report->dirs, line + 1);
    else if (strncmp(line, skipped, sizeof skipped - 1) == 0 && length > sizeof skipped &&
             line[length - 1] == '"') {
      line[length - 1] = '\0';
      cubind_strlist_add(&report->absent, line + sizeof skipped - 1);
    } else if (openmp && strncmp(line, "#define _OPENMP ", 16) == 0 && !report->openmp) {
      report->openmp = cubind_xstrdup(line + 16);
    }
  }
  return pclose(pipe) == 0 && report->dirs.count > 0;
}

/* 1 when `path` is a file the shell would run. */
static int is_program(const char *path) {
  struct stat info;
  return stat(path, &info) == 0 && S_ISREG(info.st_mode) && access(path, X_OK) == 0;
}

/* The file `compiler` names, as the shell finds it ($PATH for a bare name); NULL if none. */
static char *executable(const char *compiler) {
  const char *path = getenv("PATH"), *at;
  if (strchr(compiler, '/'))
    return is_program(compiler) ? realpath(compiler, NULL) : NULL;
  for (at = path; at && *at;) {
    size_t length = strcspn(at, ":");
    char *candidate = cubind_xasprintf("%.*s/%s", (int)length, length ? at : ".", compiler);
    char *real = is_program(candidate) ? realpath(candidate, NULL) : NULL;
    free(candidate);
    if (real)
      return real;
    at += length + (at[length] == ':');
  }
  return NULL;
}

/*
 * What the report depends on, as the first lines of its record: the name and the real file of
 * the compiler with its size and modification time (an update in place, a switched alternative),
 * the OpenMP flag, and the environment variables GCC and Clang read for their search paths.
 * NULL when the compiler's file is not found (new string).
 */
static char *identity(const char *compiler, int openmp) {
  static const char *const variables[] = {"CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH",
                                          "GCC_EXEC_PREFIX", "COMPILER_PATH"};
  char *real = executable(compiler);
  cubind_buf text = {0};
  struct stat info;
  size_t i;
  if (!real || stat(real, &info) != 0) {
    free(real);
    return NULL;
  }
  cubind_buf_printf(&text, "cubind host compiler 1\ncompiler %s\nwith -fopenmp %d\n", compiler,
                    openmp);
  cubind_buf_printf(&text, "file %s %lld %lld.%09ld\n", real, (long long)info.st_size,
                    (long long)info.st_mtim.tv_sec, (long)info.st_mtim.tv_nsec);
  for (i = 0; i < sizeof variables / sizeof variables[0]; i++) {
    const char *value = getenv(variables[i]);
    if (value)
      cubind_buf_printf(&text, "env %s=%s\n", variables[i], value);
  }
  free(real);
  return text.data;
}

/* 1 when `path` is a directory now. */
static int is_dir(const char *path) {
  struct stat info;
  return stat(path, &info) == 0 && S_ISDIR(info.st_mode);
}

/*
 * Reads the record at `path` into *report when it starts with `id` and still holds: each listed
 * directory is there, each skipped one still missing (one made since would be searched now).
 */
static int recall(const char *path, const char *id, host_report *report) {
  char *data = NULL, *line, *save = NULL;
  size_t size = 0, id_length = strlen(id);
  int holds;
  if (cubind_read_file_quiet(path, CUBIND_MAX_SOURCE_BYTES, &data, &size) != 0)
    return 0;
  holds = size > id_length && strncmp(data, id, id_length) == 0;
  for (line = holds ? strtok_r(data + id_length, "\n", &save) : NULL; line && holds;
       line = strtok_r(NULL, "\n", &save)) {
    if (strncmp(line, "dir ", 4) == 0 && is_dir(line + 4))
      cubind_strlist_add(&report->dirs, line + 4);
    else if (strncmp(line, "absent ", 7) == 0 && access(line + 7, F_OK) != 0)
      cubind_strlist_add(&report->absent, line + 7);
    else if (strncmp(line, "openmp ", 7) == 0 && !report->openmp)
      report->openmp = cubind_xstrdup(line + 7);
    else
      holds = 0;
  }
  free(data);
  holds = holds && report->dirs.count > 0;
  if (!holds)
    report_free(report);
  return holds;
}

/* Writes the record of `report` to `path` (all or nothing; a failure only costs a probe later). */
static void remember(const char *path, const char *id, const host_report *report) {
  cubind_buf text = {0};
  size_t i;
  cubind_buf_puts(&text, id);
  for (i = 0; i < report->dirs.count; i++)
    cubind_buf_printf(&text, "dir %s\n", report->dirs.items[i]);
  for (i = 0; i < report->absent.count; i++)
    cubind_buf_printf(&text, "absent %s\n", report->absent.items[i]);
  if (report->openmp)
    cubind_buf_printf(&text, "openmp %s\n", report->openmp);
  (void)cubind_write_file(path, text.data, text.length, 0);
  cubind_buf_free(&text);
}

/* host_compiler_arguments: see host_compiler.h. */
void host_compiler_arguments(const char *compiler, int openmp, const char *cache_dir,
                             cubind_strlist *args) {
  host_report report = {0};
  char *id, *path = NULL;
  size_t i;
  if (!compiler || !*compiler)
    return;
  id = cache_dir ? identity(compiler, openmp) : NULL;
  if (id)
    path = cubind_xasprintf("%s/host-%016llx.txt", cache_dir,
                            cubind_hash_bytes(CUBIND_HASH_START, id, strlen(id)));
  if (!path || !recall(path, id, &report)) {
    if (probe(compiler, openmp, &report) && path && cubind_make_dirs(cache_dir, 0) == 0)
      remember(path, id, &report);
  }
  for (i = 0; i < report.dirs.count; i++) {
    cubind_strlist_add(args, "-idirafter");
    cubind_strlist_add(args, report.dirs.items[i]);
  }
  if (report.openmp) {
    char *define = cubind_xasprintf("-D_OPENMP=%s", report.openmp);
    cubind_strlist_add(args, define);
    free(define);
  }
  report_free(&report);
  free(path);
  free(id);
}

/* host_compiler_program: see host_compiler.h. */
char *host_compiler_program(const char *named) {
  char *program;
  if (!is_dir(named))
    return cubind_xstrdup(named);
  /* nvcc looks for gcc alone there, never g++ or clang (it fails without one) */
  program = cubind_xasprintf("%s/gcc", named);
  if (is_program(program))
    return program;
  free(program);
  return NULL;
}
