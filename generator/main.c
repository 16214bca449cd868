/*
 * main.c: cubind-gen's driver. Reads the options, then runs the layers in order:
 *
 *   parse (parse.c) -> prefix (names.c) -> check (check.c) -> emit (emit.c) -> write (fs.c)
 *
 * Nothing is written unless every step before succeeded, so a failed run leaves existing
 * outputs exactly as they were.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "binary.h"
#include "check.h"
#include "cli.h"
#include "emit.h"
#include "fs.h"
#include "host_compiler.h"
#include "macro_views.h"
#include "model.h"
#include "names.h"
#include "parse.h"
#include "util.h"

/* "dir/name", without doubling a trailing slash. */
static char *join_path(const char *dir, const char *name) {
  size_t length = strlen(dir);
  return cubind_xasprintf(length && dir[length - 1] == '/' ? "%s%s" : "%s/%s", dir, name);
}

/* Appends a path to a depfile, escaped the way Make and Ninja read it. */
static void append_depfile_path(cubind_buf *out, const char *path) {
  for (; *path; path++) {
    if (*path == ' ' || *path == '#' || *path == '\\')
      cubind_buf_puts(out, "\\");
    if (*path == '$')
      cubind_buf_puts(out, "$");
    cubind_buf_append(out, path, 1);
  }
}

/* "out.h out.c: in.cu header.h ...", one dependency per line. */
static void build_depfile(cubind_buf *out, const char *header, const char *source,
                          const cubind_strlist *deps) {
  size_t i;
  append_depfile_path(out, header);
  cubind_buf_puts(out, " ");
  append_depfile_path(out, source);
  cubind_buf_puts(out, ":");
  for (i = 0; i < deps->count; i++) {
    cubind_buf_puts(out, " \\\n  ");
    append_depfile_path(out, deps->items[i]);
  }
  cubind_buf_puts(out, "\n");
}

/*
 * The toolkit: --cuda-path, else $CUDA_PATH, else the one found when cubind-gen was built; as
 * its real path where it has one (a new string), so that /usr/local/cuda and the versioned
 * directory it links to share the precompiled preludes, whose keys hold clang's arguments.
 */
static char *cuda_path(const cubind_cli *cli) {
  const char *env = getenv("CUDA_PATH");
  const char *path = cli->cuda_path ? cli->cuda_path
                     : env && *env  ? env
                                    : CUBIND_GEN_DEFAULT_CUDA_PATH;
  char *real = realpath(path, NULL);
  return real ? real : cubind_xstrdup(path);
}

/*
 * The directory of the precompiled CUDA prelude: --cache-dir, else $CUBIND_GEN_CACHE_DIR, else
 * $XDG_CACHE_HOME/cubind-gen, else $HOME/.cache/cubind-gen (a relative XDG_CACHE_HOME or HOME
 * is ignored, as the XDG specification asks: it would be a cache in each working directory).
 * NULL with --no-cache or when it cannot be created (cubind-gen then works without it).
 * Returns a new string or NULL.
 */
static char *cache_dir(const cubind_cli *cli) {
  const char *env = getenv("CUBIND_GEN_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"),
             *home = getenv("HOME");
  char *dir;
  if (cli->no_cache)
    return NULL;
  if (cli->cache_dir)
    dir = cubind_xstrdup(cli->cache_dir);
  else if (env && *env)
    dir = cubind_xstrdup(env);
  else if (xdg && *xdg == '/')
    dir = cubind_xasprintf("%s/cubind-gen", xdg);
  else if (home && *home == '/')
    dir = cubind_xasprintf("%s/.cache/cubind-gen", home);
  else
    return NULL;
  if (cubind_make_dirs(dir, 0) != 0) {
    free(dir);
    return NULL;
  }
  return dir;
}

/*
 * The directory of the installed preludes (prelude_cache.h), as a new string or NULL:
 * $CUBIND_GEN_PRELUDE_DIR when set (empty: none), else <the executable's directory>/
 * ../share/cubind/preludes (CUBIND_GEN_PRELUDE_DIR_FROM_BIN: the install's datadir from its
 * bindir) when there is one, as both the install and the build tree lay it out.
 */
static char *installed_preludes(void) {
  const char *env = getenv("CUBIND_GEN_PRELUDE_DIR");
  char *exe, *slash, *dir, *real;
  struct stat info;
  if (env && !*env)
    return NULL;
  exe = env ? NULL : realpath("/proc/self/exe", NULL);
  slash = exe ? strrchr(exe, '/') : NULL;
  if (!env && !slash) {
    free(exe);
    return NULL;
  }
  /* as a real path: it is part of every key (the shim headers' directory) */
  dir = env ? cubind_xstrdup(env)
            : cubind_xasprintf("%.*s/%s", (int)(slash - exe), exe,
                               CUBIND_GEN_PRELUDE_DIR_FROM_BIN);
  real = realpath(dir, NULL);
  free(dir);
  free(exe);
  if (real && (stat(real, &info) != 0 || !S_ISDIR(info.st_mode))) {
    free(real);
    real = NULL;
  }
  return real;
}

/*
 * Splits the macros nvcc's own options define (cli->implied_defines) into those the installed
 * preludes have a variant for, whose directory's `variants` file names an option that defines
 * them (build_preludes.cmake), and the others (parse.h).
 */
static void split_implied_defines(const cubind_cli *cli, const char *installed,
                                  cubind_strlist *variant, cubind_strlist *others) {
  cubind_strlist built = {0};
  char *text = NULL, *path, *line, *next;
  size_t size, i;
  if (installed && cli->implied_defines.count) {
    path = cubind_xasprintf("%s/variants", installed);
    if (cubind_read_file_quiet(path, 1u << 16, &text, &size) != 0)
      text = NULL;
    free(path);
  }
  for (line = text; line && *line; line = next) {
    const char *macro;
    next = line + strcspn(line, "\n");
    if (*next)
      *next++ = '\0';
    if ((macro = cubind_nvcc_implied_macro(line)) != NULL) {
      char *define = cubind_xasprintf("-D%s", macro);
      cubind_strlist_add(&built, define);
      free(define);
    }
  }
  for (i = 0; i < cli->implied_defines.count; i++) {
    const char *define = cli->implied_defines.items[i];
    cubind_strlist *list = cubind_strlist_contains(&built, define) ? variant : others;
    if (!cubind_strlist_contains(list, define)) /* -rdc=true given twice keys as once */
      cubind_strlist_add(list, define);
  }
  cubind_strlist_free(&built);
  free(text);
}

/* Stages and commits the outputs; returns the exit status. */
static int write_outputs(const char *output_dir, const char *const *paths, cubind_buf *contents,
                         size_t count) {
  cubind_outputs outputs = {0};
  size_t i;
  int failed = cubind_make_dirs(output_dir, 1);
  for (i = 0; i < count && !failed; i++)
    failed = cubind_outputs_stage(&outputs, paths[i], contents[i].data, contents[i].length);
  if (!failed)
    failed = cubind_outputs_commit(&outputs);
  cubind_outputs_discard(&outputs);
  return failed ? CUBIND_EXIT_ERROR : CUBIND_EXIT_OK;
}

/* Reads one fatbin or cubin into *binary; returns 0, or 1 after reporting an error. */
static int read_binary(const char *path, cubind_binary *binary) {
  char *data = NULL;
  size_t size = 0;
  int failed = cubind_read_file(path, CUBIND_MAX_BINARY_BYTES, &data, &size) != 0 ||
               cubind_binary_add(binary, path, (const unsigned char *)data, size) != 0;
  free(data);
  return failed;
}

/*
 * Reads every --kernels-from file into *binary and each --earlier-binary file into its own
 * entry of *earlier (allocated); returns 0, or 1 after reporting an error.
 */
static int read_binaries(const cubind_cli *cli, cubind_binary *binary,
                         cubind_earlier_binary **earlier) {
  size_t i;
  *earlier = cubind_xcalloc(cli->earlier_binaries.count + 1, sizeof **earlier);
  for (i = 0; i < cli->kernels_from.count; i++)
    if (read_binary(cli->kernels_from.items[i], binary) != 0)
      return 1;
  for (i = 0; i < cli->earlier_binaries.count; i++) {
    (*earlier)[i].name = cli->earlier_binaries.items[i];
    if (read_binary(cli->earlier_binaries.items[i], &(*earlier)[i].binary) != 0)
      return 1;
  }
  return 0;
}

/* Frees what read_binaries read. */
static void free_binaries(const cubind_cli *cli, cubind_binary *binary,
                          cubind_earlier_binary *earlier) {
  size_t i;
  cubind_binary_free(binary);
  for (i = 0; earlier && i < cli->earlier_binaries.count; i++)
    cubind_binary_free(&earlier[i].binary);
  free(earlier);
}

/* cubind-gen file.cu: parse, check, emit, write. */
static int generate(const cubind_cli *cli) {
  cubind_model model = {0};
  cubind_binary binary = {0};
  cubind_earlier_binary *earlier = NULL;
  cubind_strlist deps = {0}, variant_defines = {0}, implied_defines = {0};
  cubind_buf contents[4] = {{0}, {0}, {0}, {0}};
  const char *paths[4];
  char *header_path = NULL, *source_path = NULL, *names_path = NULL, *name, *cache = NULL,
       *installed = NULL, *toolkit = NULL, *host_compiler = NULL;
  char *input = NULL;
  cubind_parse_options options;
  macro_views_options views;
  int status = CUBIND_EXIT_ERROR;
  size_t i;
  if (cubind_check_input(cli->input, CUBIND_MAX_SOURCE_BYTES) != 0)
    return CUBIND_EXIT_ERROR;

  model.source_name = cubind_xstrdup(cubind_basename(cli->input));
  model.line_directives = !cli->no_line_directives;
  name = strrchr(model.source_name, '.');
  model.file_stem = name && name != model.source_name
                        ? cubind_xstrndup(model.source_name, (size_t)(name - model.source_name))
                        : cubind_xstrdup(model.source_name);
  model.module_name = cli->module_name ? cubind_xstrdup(cli->module_name)
                                       : cubind_sanitize_identifier(model.file_stem);
  memset(&options, 0, sizeof options);
  model.fatbin_name = cli->fatbin_name ? cubind_xstrdup(cli->fatbin_name) : NULL;
  model.prefix = cli->prefix ? cubind_xstrdup(cli->prefix) : NULL;
  options.cuda_path = toolkit = cuda_path(cli);
  {
    /* a wrong toolkit path would otherwise surface as a cascade of unknown CUDA keywords */
    char *probe_path = cubind_xasprintf("%s/include/cuda_runtime.h", options.cuda_path);
    FILE *header = fopen(probe_path, "r");
    free(probe_path);
    if (!header) {
      cubind_diag(NULL, 0, 0, "error",
                  "no CUDA toolkit at '%s' (it has no include/cuda_runtime.h): pass --cuda-path "
                  "or set CUDA_PATH",
                  options.cuda_path);
      cubind_model_free(&model);
      free(toolkit);
      return CUBIND_EXIT_ERROR;
    }
    fclose(header);
  }
  if (cli->host_compiler && strcmp(cli->host_compiler, "none") != 0 &&
      !(host_compiler = host_compiler_program(cli->host_compiler))) {
    /* nvcc stops there too ("Failed to preprocess host compiler properties") */
    cubind_diag(NULL, 0, 0, "error",
                "the host compiler '%s' (nvcc's -ccbin, --host-compiler) is a directory without "
                "gcc: nvcc runs '%s/gcc' for a directory; name the compiler itself",
                cli->host_compiler, cli->host_compiler);
    cubind_model_free(&model);
    free(toolkit);
    return CUBIND_EXIT_ERROR;
  }
  options.std = cli->std;
  options.user_args = &cli->clang_args;
  options.binary = cli->kernels_from.count ? &binary : NULL;
  if (read_binaries(cli, &binary, &earlier) != 0) {
    free_binaries(cli, &binary, earlier);
    cubind_model_free(&model);
    free(toolkit);
    free(host_compiler);
    return CUBIND_EXIT_ERROR;
  }
  /* clang reads a file name beginning with '-' as an option (cubind-gen's own "--" ended
     those); "./" keeps it a file */
  options.input = input =
      cli->input[0] == '-' ? cubind_xasprintf("./%s", cli->input) : cubind_xstrdup(cli->input);
  options.earlier = earlier;
  options.num_earlier = cli->earlier_binaries.count;
  options.host_openmp = cli->host_openmp;
  options.host_compiler = !cli->host_compiler ? "g++"
                          : strcmp(cli->host_compiler, "none") == 0 ? NULL
                                                                    : host_compiler;
  views.std_given = cli->std_given;
  views.clang_host =
      options.host_compiler && strstr(cubind_basename(options.host_compiler), "clang") != NULL;
  options.cache_dir = cache = cache_dir(cli);
  options.installed_preludes = installed = installed_preludes();
  split_implied_defines(cli, installed, &variant_defines, &implied_defines);
  options.variant_defines = &variant_defines;
  options.implied_defines = &implied_defines;
  if (cli->prepare) {
    /* the architectures the binary will have: all a parse takes from it before nvcc made it */
    size_t a;
    binary.archs = cubind_xcalloc(cli->num_binary_archs + 1, sizeof *binary.archs);
    memcpy(binary.archs, cli->binary_archs, cli->num_binary_archs * sizeof *binary.archs);
    binary.num_archs = cli->num_binary_archs;
    binary.specific_archs = cubind_xcalloc(cli->num_binary_archs + 1, sizeof *binary.archs);
    binary.family_archs = cubind_xcalloc(cli->num_binary_archs + 1, sizeof *binary.archs);
    for (a = 0; a < cli->num_binary_archs; a++)
      if (cli->binary_arch_variants[a] == 'a')
        binary.specific_archs[binary.num_specific_archs++] = cli->binary_archs[a];
      else if (cli->binary_arch_variants[a] == 'f')
        binary.family_archs[binary.num_family_archs++] = cli->binary_archs[a];
    options.binary = binary.num_archs ? &binary : NULL;
    cubind_prepare(&options);
    status = CUBIND_EXIT_OK;
  } else if (cubind_parse(&options, &model, &deps) == 0 &&
      (cubind_names_disambiguate(&model), cubind_names_apply_prefix(&model),
       cubind_check(&model) == 0) &&
      (cubind_warn_macro_views(&model, &views), 1) &&
      cubind_emit_source(&model, &contents[0]) == 0 &&
      cubind_emit_header(&model, &contents[2]) == 0) {
    name = cubind_xasprintf("%s.cubind.h", model.file_stem);
    header_path = join_path(cli->output_dir, name);
    free(name);
    name = cubind_xasprintf("%s.cubind.c", model.file_stem);
    source_path = join_path(cli->output_dir, name);
    free(name);
    name = cubind_xasprintf("%s.cubind.names", model.file_stem);
    names_path = join_path(cli->output_dir, name);
    free(name);
    /* committed in this order: the header, which holds the definitions, last (the .c only
       includes it, so a kill before it leaves the previous run's header whole and working) */
    paths[0] = source_path;
    paths[1] = names_path;
    paths[2] = header_path;
    cubind_names_write(&model, cli->input, &contents[1]);
    if (cli->depfile) {
      build_depfile(&contents[3], header_path, source_path, &deps);
      paths[3] = cli->depfile;
    }
    /* every file the parse read, and the binaries: none may be an output */
    for (i = 0; i < cli->kernels_from.count; i++)
      cubind_strlist_add(&deps, cli->kernels_from.items[i]);
    for (i = 0; i < cli->earlier_binaries.count; i++)
      cubind_strlist_add(&deps, cli->earlier_binaries.items[i]);
    if (cubind_check_outputs(paths, cli->depfile ? 4 : 3, (const char *const *)deps.items,
                             deps.count) == 0)
      status = write_outputs(cli->output_dir, paths, contents, cli->depfile ? 4 : 3);
  }
  free(input);
  free(header_path);
  free(source_path);
  free(names_path);
  free(cache);
  free(installed);
  free(toolkit);
  free(host_compiler);
  cubind_buf_free(&contents[0]);
  cubind_buf_free(&contents[1]);
  cubind_buf_free(&contents[2]);
  cubind_buf_free(&contents[3]);
  cubind_strlist_free(&deps);
  cubind_strlist_free(&variant_defines);
  cubind_strlist_free(&implied_defines);
  cubind_model_free(&model);
  free_binaries(cli, &binary, earlier);
  return status;
}

/*
 * cubind-gen --embed-fatbin file --module-name NAME [--fatbin-name F] [--prefix P]: writes
 * <P><F or NAME>.fatbin.c defining cubind_fatbin_<P><F or NAME>.
 */
static int embed_fatbin(const cubind_cli *cli) {
  cubind_model names = {0}; /* only its names: the prefix is applied in one place */
  char *data = NULL, *name, *path;
  size_t size = 0;
  cubind_buf content = {0};
  const char *paths[1];
  int status = CUBIND_EXIT_ERROR;
  if (cubind_read_file(cli->input, CUBIND_MAX_BINARY_BYTES, &data, &size) != 0 ||
      cubind_binary_check_image(cli->input, (const unsigned char *)data, size) != 0) {
    free(data);
    return CUBIND_EXIT_ERROR;
  }
  names.module_name = cubind_xstrdup(cli->module_name);
  names.fatbin_name = cli->fatbin_name ? cubind_xstrdup(cli->fatbin_name) : NULL;
  names.prefix = cli->prefix ? cubind_xstrdup(cli->prefix) : NULL;
  cubind_names_apply_prefix(&names);
  name = cubind_xasprintf("%s.fatbin.c", names.fatbin_name);
  path = join_path(cli->output_dir, name);
  paths[0] = path;
  if (cubind_check_outputs(paths, 1, &cli->input, 1) == 0 &&
      cubind_emit_fatbin(names.fatbin_name, cubind_basename(cli->input),
                         (const unsigned char *)data, size, &content) == 0)
    status = write_outputs(cli->output_dir, paths, &content, 1);
  cubind_buf_free(&content);
  cubind_model_free(&names);
  free(name);
  free(path);
  free(data);
  return status;
}

/*
 * main: cubind-gen's entry point. Inputs: the command line (see cli.c or --help).
 * Returns 0 on success, 1 when an error was reported (no output written), 2 on a usage error.
 */
int main(int argc, char **argv) {
  cubind_cli cli;
  int status;
  memset(&cli, 0, sizeof cli);
  status = cubind_cli_parse(argc, argv, &cli);
  if (status == 0) {
    if (cli.help) {
      cubind_cli_usage(stdout);
    } else if (cli.version) {
      char *libclang = cubind_libclang_version();
      printf("cubind-gen %s\nlibclang: %s\n", CUBIND_GEN_VERSION, libclang);
      free(libclang);
    } else {
      status = cli.check_names   ? (cubind_names_check(&cli.names_files) ? CUBIND_EXIT_ERROR
                                                                           : CUBIND_EXIT_OK)
               : cli.embed_fatbin ? embed_fatbin(&cli)
                                  : generate(&cli);
    }
  }
  cubind_cli_free(&cli);
  return status;
}
