/* cli.c: command-line parsing and --help (see cli.h). */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

#include "model.h"

/* cubind_cli_usage: see cli.h. */
void cubind_cli_usage(FILE *out) {
  fputs(
      "usage: cubind-gen [options] file.cu\n"
      "       cubind-gen --embed-fatbin file.fatbin --module-name NAME [-o DIR]\n"
      "\n"
      "Writes DIR/<stem>.cubind.h and DIR/<stem>.cubind.c: a C function <kernel>_launch and\n"
      "<kernel>_call for every __global__ function of file.cu. With --embed-fatbin, writes\n"
      "DIR/<NAME>.fatbin.c holding the fatbin as cubind_fatbin_<NAME>.\n"
      "Outputs whose content would not change are left untouched; on any error none is written.\n"
      "\n"
      "options:\n"
      "  -I DIR              add DIR to the include path\n"
      "  -isystem DIR        add DIR to the system include path\n"
      "  -D NAME[=VALUE]     define a macro\n"
      "  -U NAME             undefine a macro\n"
      "  -std=STD            language standard (default: c++17)\n"
      "  -o DIR              output directory (default: the current directory; created if\n"
      "                      missing)\n"
      "  --module-name NAME  module name, a C identifier (default: the input's stem)\n"
      "  --cuda-path DIR     CUDA toolkit (default: $CUDA_PATH, else " CUBIND_GEN_DEFAULT_CUDA_PATH
      ")\n"
      "  --depfile FILE      write a Makefile-style depfile listing the files the parse read\n"
      "  --cache-dir DIR     keep the precompiled CUDA headers there (default:\n"
      "                      $CUBIND_GEN_CACHE_DIR, else $XDG_CACHE_HOME/cubind-gen, else\n"
      "                      ~/.cache/cubind-gen); saves ~0.35 s per run\n"
      "  --no-cache          parse everything every time\n"
      "  --no-line-directives  no #line directives pointing the stubs at the .cu file\n"
      "  --kernels-from FILE also bind every kernel of FILE (nvcc's fatbin or cubin of this\n"
      "                      .cu) that the source does not name: templates instantiated by\n"
      "                      the host code that launches them, kernels behind another\n"
      "                      architecture's #if; the header lists any it cannot bind, with the\n"
      "                      reason (repeatable; without it: plain kernels and explicit\n"
      "                      instantiations only)\n"
      "  --earlier-binary FILE\n"
      "                      the binary of an earlier .cu of the same library: the kernels of\n"
      "                      this .cu's user headers that FILE holds too are bound by that .cu's\n"
      "                      stubs, not again here (repeatable; add_gpu_kernels passes them)\n"
      "  --host-compiler CC  the host compiler nvcc uses (nvcc -ccbin): its include directories\n"
      "                      (omp.h, ...) are searched after clang's (default: g++ on PATH, as\n"
      "                      nvcc; 'none': no host compiler)\n"
      "  --embed-fatbin FILE embed FILE (a fatbin) instead of generating stubs\n"
      "  --help              print this help and exit\n"
      "  --version           print the version and exit\n"
      "\n"
      "exit status: 0 success, 1 error (reported as file:line:col: error: ...), 2 usage error\n",
      out);
}

static int usage_error(const char *message, const char *arg) {
  fprintf(stderr, "cubind-gen: error: %s%s%s\n", message, arg ? ": " : "", arg ? arg : "");
  fputs("Try 'cubind-gen --help' for more information.\n", stderr);
  return CUBIND_EXIT_USAGE;
}

/*
 * Options that take a value, given either as the next argument or attached: "-I DIR" or
 * "-IDIR"; "--module-name NAME" or "--module-name=NAME". Returns the value or NULL (no match);
 * *missing is set when the option matched but had no value.
 */
static const char *option_value(int argc, char **argv, int *index, const char *name,
                                int attached, int *missing) {
  const char *arg = argv[*index];
  size_t length = strlen(name);
  if (strcmp(arg, name) == 0) {
    if (*index + 1 >= argc) {
      *missing = 1;
      return NULL;
    }
    return argv[++*index];
  }
  if (strncmp(arg, name, length) == 0) {
    if (attached && arg[length])
      return arg + length;
    if (!attached && arg[length] == '=')
      return arg + length + 1;
  }
  return NULL;
}

/* cubind_cli_parse: see cli.h. */
int cubind_cli_parse(int argc, char **argv, cubind_cli *cli) {
  static const char *const clang_options[] = {"-isystem", "-I", "-D", "-U"};
  int i;
  cli->output_dir = ".";
  cli->std = "-std=c++17";
  for (i = 1; i < argc; i++) {
    const char *arg = argv[i], *value;
    int missing = 0;
    size_t k;
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      cli->help = 1;
      continue;
    }
    if (strcmp(arg, "--version") == 0) {
      cli->version = 1;
      continue;
    }
    for (k = 0; k < sizeof clang_options / sizeof clang_options[0]; k++) {
      value = option_value(argc, argv, &i, clang_options[k], 1, &missing);
      if (value) {
        if (k == 0) { /* clang wants "-isystem" and the directory as two arguments */
          cubind_strlist_add(&cli->clang_args, "-isystem");
          cubind_strlist_add(&cli->clang_args, value);
        } else {
          char *joined = cubind_xasprintf("%s%s", clang_options[k], value);
          cubind_strlist_add(&cli->clang_args, joined);
          free(joined);
        }
        break;
      }
      if (missing)
        return usage_error("missing argument to", arg);
    }
    if (k < sizeof clang_options / sizeof clang_options[0])
      continue;
    if (strncmp(arg, "-std=", 5) == 0) {
      cli->std = arg;
    } else if ((value = option_value(argc, argv, &i, "-o", 1, &missing))) {
      cli->output_dir = value;
    } else if ((value = option_value(argc, argv, &i, "--module-name", 0, &missing))) {
      if (!cubind_is_identifier(value))
        return usage_error("--module-name must be a C identifier", value);
      if (strcmp(value, "cubind") == 0)
        return usage_error("module name is reserved", value);
      cli->module_name = value;
    } else if ((value = option_value(argc, argv, &i, "--cuda-path", 0, &missing))) {
      cli->cuda_path = value;
    } else if ((value = option_value(argc, argv, &i, "--depfile", 0, &missing))) {
      cli->depfile = value;
    } else if ((value = option_value(argc, argv, &i, "--cache-dir", 0, &missing))) {
      cli->cache_dir = value;
    } else if (strcmp(arg, "--no-cache") == 0) {
      cli->no_cache = 1;
    } else if (strcmp(arg, "--no-line-directives") == 0) {
      cli->no_line_directives = 1;
    } else if ((value = option_value(argc, argv, &i, "--kernels-from", 0, &missing))) {
      cubind_strlist_add(&cli->kernels_from, value);
    } else if ((value = option_value(argc, argv, &i, "--earlier-binary", 0, &missing))) {
      cubind_strlist_add(&cli->earlier_binaries, value);
    } else if ((value = option_value(argc, argv, &i, "--host-compiler", 0, &missing))) {
      cli->host_compiler = value;
    } else if ((value = option_value(argc, argv, &i, "--embed-fatbin", 0, &missing))) {
      if (cli->input)
        return usage_error("more than one input file", value);
      cli->input = value;
      cli->embed_fatbin = 1;
    } else if (missing) {
      return usage_error("missing argument to", arg);
    } else if (arg[0] == '-' && arg[1]) {
      return usage_error("unknown option", arg);
    } else if (cli->input) {
      return usage_error("more than one input file", arg);
    } else {
      cli->input = arg;
    }
  }
  if (cli->help || cli->version)
    return 0;
  if (!cli->input)
    return usage_error("no input file", NULL);
  if (cli->embed_fatbin && !cli->module_name)
    return usage_error("--embed-fatbin needs --module-name", NULL);
  if (cli->embed_fatbin && cli->kernels_from.count)
    return usage_error("--kernels-from does not go with --embed-fatbin", NULL);
  return 0;
}

/* cubind_cli_free: see cli.h. */
void cubind_cli_free(cubind_cli *cli) {
  cubind_strlist_free(&cli->clang_args);
  cubind_strlist_free(&cli->kernels_from);
  cubind_strlist_free(&cli->earlier_binaries);
}
