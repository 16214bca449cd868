/* cli.h: the command line of cubind-gen (CONTRACT section 5). */
#ifndef CUBIND_GEN_CLI_H
#define CUBIND_GEN_CLI_H

#include <stdio.h>

#include "util.h"

typedef struct cubind_cli {
  const char *input;        /* the .cu file (or the fatbin with --embed-fatbin) */
  const char *output_dir;   /* -o; "." by default */
  const char *module_name;  /* --module-name; NULL: the input's stem */
  const char *fatbin_name;  /* --fatbin-name; NULL: the module name */
  const char *prefix;       /* --prefix; NULL: none */
  const char *cuda_path;    /* --cuda-path; NULL: $CUDA_PATH, else the configured toolkit */
  const char *depfile;      /* --depfile */
  const char *cache_dir;    /* --cache-dir; NULL: the default (see main.c) */
  int no_cache;             /* --no-cache */
  int no_line_directives;   /* --no-line-directives */
  int embed_fatbin;         /* --embed-fatbin FILE: input is a fatbin to embed */
  int check_names;          /* --check-names FILE...: inputs are names files to check */
  const char *std;          /* "-std=..." for clang; "-std=c++17" by default */
  int std_given;            /* a -std was given (else nvcc's host compiler is in GNU mode) */
  cubind_strlist clang_args; /* -I, -isystem, -include, -D, -U, in order, as clang arguments */
  cubind_strlist implied_defines; /* -D arguments of the macros nvcc's own options define
                                     (--extended-lambda: __CUDACC_EXTENDED_LAMBDA__), in order */
  cubind_strlist kernels_from; /* --kernels-from FILE...: nvcc's fatbins or cubins */
  cubind_strlist earlier_binaries; /* --earlier-binary FILE...: binaries of earlier sources of
                                      the same library */
  int prepare;               /* --prepare: build the precompiled prelude only */
  unsigned binary_archs[32]; /* --binary-archs LIST (with --prepare): ascending, each once */
  char binary_arch_variants[32]; /* each one's 'a' (90a), 'f' (100f) or 0 */
  size_t num_binary_archs;
  const char *host_compiler; /* --host-compiler (or nvcc's -ccbin); NULL: g++ (nvcc's
                                default), "none": none */
  int host_openmp;           /* nvcc's -Xcompiler -fopenmp: _OPENMP as the host compiler has it */
  int nvcc_options_seen;     /* --nvcc-options was given: nvcc's environment flags apply too */
  cubind_strlist names_files;  /* with --check-names: the files to check */
  cubind_strlist owned;        /* strings the fields above point into (-std from --std X) */
  int help, version;
} cubind_cli;

/* Exit statuses. */
enum { CUBIND_EXIT_OK = 0, CUBIND_EXIT_ERROR = 1, CUBIND_EXIT_USAGE = 2 };

/*
 * cubind_cli_parse: parses argv into cli (zero it first). Returns 0, or CUBIND_EXIT_USAGE after
 * printing "cubind-gen: error: ..." and a hint to --help. Free with cubind_cli_free().
 */
int cubind_cli_parse(int argc, char **argv, cubind_cli *cli);

/* cubind_cli_usage: prints the --help text to out. */
void cubind_cli_usage(FILE *out);

/*
 * cubind_nvcc_implied_macro: the macro an nvcc option of one argument makes nvcc define
 * ("--extended-lambda": "__CUDACC_EXTENDED_LAMBDA__"; with a value where it has one), or NULL.
 */
const char *cubind_nvcc_implied_macro(const char *option);

/* cubind_cli_free: frees what cubind_cli_parse allocated. */
void cubind_cli_free(cubind_cli *cli);

#endif /* CUBIND_GEN_CLI_H */
