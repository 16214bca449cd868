/* cli.c: command-line parsing and --help (see cli.h). */
#include "cli.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "model.h"

/* cubind_cli_usage: see cli.h. */
void cubind_cli_usage(FILE *out) {
  fputs(
      "usage: cubind-gen [options] file.cu\n"
      "       cubind-gen --embed-fatbin file.fatbin --module-name NAME [-o DIR]\n"
      "       cubind-gen --check-names file.cubind.names...\n"
      "\n"
      "Writes DIR/<stem>.cubind.h and DIR/<stem>.cubind.c: a C function <kernel>_launch and\n"
      "<kernel>_call for every __global__ function of file.cu, and DIR/<stem>.cubind.names (the\n"
      "C names it generated, for --check-names). With --embed-fatbin, writes DIR/<NAME>.fatbin.c\n"
      "holding the fatbin as cubind_fatbin_<NAME>.\n"
      "Outputs whose content would not change are left untouched; on any error none is written.\n"
      "\n"
      "options (nvcc's spellings of the preprocessor options are accepted too):\n"
      "  -I DIR, --include-path DIR        add DIR to the include path\n"
      "  -isystem DIR, --system-include DIR  add DIR to the system include path\n"
      "  -include FILE, --pre-include FILE include FILE before the .cu\n"
      "  -D NAME[=VALUE], --define-macro NAME[=VALUE]  define a macro\n"
      "  -U NAME, --undefine-macro NAME    undefine a macro\n"
      "  -std=STD, --std STD               language standard (default: c++17)\n"
      "  --nvcc-options OPTION... --       the options given to nvcc for this .cu, up to a lone\n"
      "                      '--': the preprocessor ones above are used (and -G, -rdc=true/-dc,\n"
      "                      --extended-lambda, --expt-relaxed-constexpr define the macros nvcc\n"
      "                      defines for them), and those of nvcc's environment\n"
      "                      (NVCC_PREPEND_FLAGS before them, NVCC_APPEND_FLAGS after);\n"
      "                      all others are ignored\n"
      "  -o DIR              output directory (default: the current directory; created if\n"
      "                      missing)\n"
      "  --module-name NAME  module name, a C identifier (default: the input's stem)\n"
      "  --fatbin-name NAME  the embedded fatbin the stubs load, cubind_fatbin_<NAME> (default:\n"
      "                      the module name; several modules may share one fatbin)\n"
      "  --prefix P          put P before every generated C name: P<kernel>_launch, the module\n"
      "                      and fatbin names (with --embed-fatbin: the fatbin's symbol)\n"
      "  --cuda-path DIR     CUDA toolkit (default: $CUDA_PATH, else " CUBIND_GEN_DEFAULT_CUDA_PATH
      ")\n"
      "  --depfile FILE      write a Makefile-style depfile listing the files the parse read\n"
      "  --cache-dir DIR     keep the precompiled CUDA headers there (default:\n"
      "                      $CUBIND_GEN_CACHE_DIR, else $XDG_CACHE_HOME/cubind-gen, else\n"
      "                      ~/.cache/cubind-gen); saves ~0.35 s per run. Looked up after\n"
      "                      it: the preludes cubind's build made (<prefix>/share/cubind/\n"
      "                      preludes, or $CUBIND_GEN_PRELUDE_DIR; set but empty: none)\n"
      "  --no-cache          parse everything every time\n"
      "  --no-line-directives  no #line directives pointing the stubs at the .cu file\n"
      "  --kernels-from FILE also bind every kernel of FILE (nvcc's fatbin or cubin of this\n"
      "                      .cu, compressed or not) that the source does not name: templates\n"
      "                      instantiated by the host code that launches them, kernels behind\n"
      "                      another architecture's #if; the header lists any it cannot bind,\n"
      "                      with the reason (repeatable; without it: plain kernels and explicit\n"
      "                      instantiations only)\n"
      "  --prepare           only build, in the foreground, the precompiled prelude that\n"
      "                      the same command without --prepare will parse with (a build runs\n"
      "                      it beside nvcc, so that the run after nvcc finds it); writes\n"
      "                      nothing else; fails only when the run would fail before its\n"
      "                      parse (a usage error, no input, no toolkit, a -ccbin directory\n"
      "                      without gcc)\n"
      "  --binary-archs LIST with --prepare: the SM versions of the cubins of the binary the\n"
      "                      later run reads with --kernels-from (\"80,90\")\n"
      "  --earlier-binary FILE\n"
      "                      the binary of an earlier .cu of the same library: the kernels of\n"
      "                      this .cu's user headers that FILE holds too are bound by that .cu's\n"
      "                      stubs, not again here (repeatable; add_gpu_kernels passes them)\n"
      "  --                  end of options: what follows are files, even when they begin\n"
      "                      with '-'\n"
      "  --host-compiler CC  the host compiler nvcc uses (nvcc -ccbin): its include directories\n"
      "                      (omp.h, ...) are searched after clang's (default: g++ on PATH, as\n"
      "                      nvcc; a directory: the gcc in it, as nvcc; 'none': no host\n"
      "                      compiler)\n"
      "  --embed-fatbin FILE embed FILE (a fatbin) instead of generating stubs\n"
      "  --check-names FILE... check that the .cubind.names files of the .cu files linked into\n"
      "                      one program give no C name twice; exit status 1, naming both\n"
      "                      places, when they do\n"
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

/* How an option's value may be written besides "NAME VALUE". */
enum { VALUE_ATTACHED = 1, /* "-IDIR" */ VALUE_EQUALS = 2 /* "--include-path=DIR" */ };

/*
 * Options that take a value: "NAME VALUE", and per `forms` "NAMEVALUE" or "NAME=VALUE".
 * Returns the value or NULL (no match); *missing is set when the option matched but had no
 * value.
 */
static const char *option_value(int argc, char **argv, int *index, const char *name,
                                int forms, int *missing) {
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
    if ((forms & VALUE_EQUALS) && arg[length] == '=')
      return arg + length + 1;
    if ((forms & VALUE_ATTACHED) && arg[length])
      return arg + length;
  }
  return NULL;
}

/*
 * The preprocessor options, in cubind-gen's and nvcc's spellings: the one place that maps what
 * nvcc's preprocessor is given onto the clang arguments of the parse (used for cubind-gen's own
 * options and inside --nvcc-options). As for nvcc, "-I=DIR" is "-I DIR".
 */
#define BOTH (VALUE_EQUALS | VALUE_ATTACHED)
typedef enum { PP_DEFINE, PP_UNDEFINE, PP_INCLUDE_DIR, PP_SYSTEM_DIR, PP_PRE_INCLUDE, PP_STD } pp_kind;
static const struct {
  const char *name;
  pp_kind kind;
  int forms;
} preprocessor_options[] = {
    {"-isystem", PP_SYSTEM_DIR, BOTH},        {"--system-include", PP_SYSTEM_DIR, VALUE_EQUALS},
    {"-include", PP_PRE_INCLUDE, VALUE_EQUALS}, {"--pre-include", PP_PRE_INCLUDE, VALUE_EQUALS},
    {"-I", PP_INCLUDE_DIR, BOTH},             {"--include-path", PP_INCLUDE_DIR, VALUE_EQUALS},
    {"-D", PP_DEFINE, BOTH},                  {"--define-macro", PP_DEFINE, VALUE_EQUALS},
    {"-U", PP_UNDEFINE, BOTH},                {"--undefine-macro", PP_UNDEFINE, VALUE_EQUALS},
    {"-std", PP_STD, VALUE_EQUALS},           {"--std", PP_STD, VALUE_EQUALS},
};

/* Records one value of preprocessor option k as clang arguments; 0, or -1 after a usage error. */
static int take_preprocessor_value(size_t k, const char *value, cubind_cli *cli) {
  char *joined;
  /* clang would fail the whole parse with no word on which option ("-I ''", "-D =1") */
  if (!value[0] || ((preprocessor_options[k].kind == PP_DEFINE ||
                     preprocessor_options[k].kind == PP_UNDEFINE) &&
                    !isalpha((unsigned char)value[0]) && value[0] != '_')) {
    char *message = cubind_xasprintf(value[0] ? "%s needs a macro name, not"
                                              : "%s needs a value, not an empty argument",
                                     preprocessor_options[k].name);
    usage_error(message, value[0] ? value : NULL);
    free(message);
    return -1;
  }
  switch (preprocessor_options[k].kind) {
  case PP_SYSTEM_DIR: /* clang wants these two as two arguments */
  case PP_PRE_INCLUDE:
    cubind_strlist_add(&cli->clang_args,
                       preprocessor_options[k].kind == PP_SYSTEM_DIR ? "-isystem" : "-include");
    cubind_strlist_add(&cli->clang_args, value);
    break;
  case PP_STD:
    /* CUDA is C++: a C standard would fail inside clang with a message about the toolkit */
    if ((strncmp(value, "c++", 3) != 0 && strncmp(value, "gnu++", 5) != 0) ||
        !value[strcspn(value, "+") + 2]) {
      usage_error("CUDA source is C++: the language standard must be c++NN or gnu++NN "
                  "(nvcc's --std accepts c++03 to c++20), not",
                  value);
      return -1;
    }
    joined = cubind_xasprintf("-std=%s", value);
    cubind_strlist_add(&cli->owned, joined);
    free(joined);
    cli->std = cli->owned.items[cli->owned.count - 1];
    cli->std_given = 1;
    break;
  default:
    joined = cubind_xasprintf("-%c%s",
                              preprocessor_options[k].kind == PP_DEFINE     ? 'D'
                              : preprocessor_options[k].kind == PP_UNDEFINE ? 'U'
                                                                            : 'I',
                              value);
    cubind_strlist_add(&cli->clang_args, joined);
    free(joined);
  }
  return 0;
}

/*
 * Splits the value of an nvcc list option (-D, -U, -I, -isystem, -include, -Xcompiler) into
 * its items as nvcc does: at commas outside "..." ("-DA,B=1": A and B=1; "-DF=(1,2)" too, but
 * -DS="a,b" is one item), a backslash taking the next character as it is ("\,": a comma) and
 * dropped, the quotes kept; empty items are skipped. Returns 0, or -1 after a usage error for a
 * quote left open or a backslash at the end, which nvcc rejects ("Stray '\"' character").
 */
static int split_nvcc_list(const char *list, cubind_strlist *items) {
  cubind_buf item = {0};
  const char *at;
  int quoted = 0;
  for (at = list;; at++) {
    if (*at == '\\' && at[1]) {
      cubind_buf_append(&item, ++at, 1);
    } else if (*at && *at != '\\' && (quoted || *at != ',')) {
      quoted ^= *at == '"';
      cubind_buf_append(&item, at, 1);
    } else {
      if (*at == '\\' || (!*at && quoted))
        break;
      if (item.length)
        cubind_strlist_add(items, item.data);
      item.length = 0;
      if (!*at)
        break;
    }
  }
  cubind_buf_free(&item);
  if (*at) /* the backslash at the end */
    usage_error("nvcc's list ends in a backslash (nvcc: \"Stray '' character\")", list);
  else if (quoted)
    usage_error("nvcc's list leaves a '\"' open (nvcc: \"Stray '\"' character\")", list);
  return *at || quoted ? -1 : 0;
}

/*
 * Records each value of an nvcc list option (split_nvcc_list): "-Ia,b" is two directories.
 * 0, or -1 after a usage error.
 */
static int take_nvcc_list(size_t k, const char *list, cubind_cli *cli) {
  cubind_strlist items = {0};
  size_t i;
  int status = split_nvcc_list(list, &items);
  for (i = 0; i < items.count && status == 0; i++)
    status = take_preprocessor_value(k, items.items[i], cli);
  if (status == 0 && !items.count)
    status = take_preprocessor_value(k, "", cli);
  cubind_strlist_free(&items);
  return status;
}

/* How split_words reads quotes and backslashes. */
typedef enum {
  WORDS_NVCC_ENVIRONMENT, /* nvcc's NVCC_*_FLAGS: "..." holds white space; all is kept */
  WORDS_NVCC_FILE,        /* an options file: "..." holds white space; \c is c; then each
                             quote no backslash escapes is dropped (nvcc_file_word) */
  WORDS_SHELL /* sh, which nvcc runs the host compiler through: '...', "..." (in which a
                 backslash only escapes $ ` " \) and \c, all dropped; nothing is expanded */
} words_rules;

/*
 * An options file's word as nvcc reads it, in place: past the file's own reading (split_words:
 * quotes group white space and stay, a backslash takes the next character), nvcc drops each
 * quote that no backslash escapes, as its list options (split_nvcc_list) then see the word.
 * `-DM=\"qr\"` and `-DM="qr"` both define M as qr, `"-DM=\"a b\""` as a b, `-DM="a,b"` is two
 * macros, while `-DM=\\\"s\\\"` keeps its quotes ("s"): nvcc 13's -dryrun shows each.
 */
static void nvcc_file_word(char *word) {
  char *from = word, *to = word;
  for (; *from; from++) {
    if (*from == '\\' && from[1])
      *to++ = *from++;
    else if (*from == '"')
      continue;
    *to++ = *from;
  }
  *to = '\0';
}

/*
 * Splits `text` into words at white space outside quotes, as `rules` says, adding them to
 * `words`; returns how many. The rules are nvcc's (NVCC_PREPEND_FLAGS="-DS=\"a b\"" gives S
 * the quotes; an options file's "-DS=a b" gives S none; neither takes '...' for quotes) and the
 * shell's for what nvcc hands the host compiler.
 */
static size_t split_words(const char *text, words_rules rules, cubind_strlist *words) {
  size_t first = words->count;
  const char *at = text;
  while (*at) {
    cubind_buf word = {0};
    char quote = 0;
    while (*at == ' ' || *at == '\t' || *at == '\n' || *at == '\r')
      at++;
    if (!*at)
      break;
    for (; *at && (quote || !(*at == ' ' || *at == '\t' || *at == '\n' || *at == '\r')); at++) {
      int opens = !quote && (*at == '"' || (*at == '\'' && rules == WORDS_SHELL));
      if (rules == WORDS_NVCC_ENVIRONMENT) {
        quote ^= *at == '"' ? '"' : 0;
        cubind_buf_append(&word, at, 1);
      } else if (opens || (quote && *at == quote)) {
        quote = opens ? *at : 0;
        if (rules == WORDS_NVCC_FILE)
          cubind_buf_append(&word, at, 1);
      } else if (*at == '\\' && at[1] && quote != '\'' &&
                 (quote != '"' || rules != WORDS_SHELL || strchr("$`\"\\", at[1]))) {
        cubind_buf_append(&word, ++at, 1);
      } else {
        cubind_buf_append(&word, at, 1);
      }
    }
    if (word.data && rules == WORDS_NVCC_FILE)
      nvcc_file_word(word.data);
    cubind_strlist_add(words, word.data ? word.data : "");
    cubind_buf_free(&word);
  }
  return words->count - first;
}

/*
 * If argv[*index] is a preprocessor option, records it in cli as clang arguments (consuming a
 * separate value) and returns 1; returns 0 when it is none; -1 (after a usage error) when its
 * value is missing or wrong. `nvcc_lists`: inside --nvcc-options, where a value is a list as
 * nvcc reads it (take_nvcc_list).
 */
static int take_preprocessor_option(int argc, char **argv, int *index, cubind_cli *cli,
                                    int nvcc_lists) {
  size_t k;
  for (k = 0; k < sizeof preprocessor_options / sizeof preprocessor_options[0]; k++) {
    int missing = 0;
    const char *value = option_value(argc, argv, index, preprocessor_options[k].name,
                                     preprocessor_options[k].forms, &missing);
    if (missing) {
      usage_error("missing argument to", argv[*index]);
      return -1;
    }
    if (!value)
      continue;
    if (nvcc_lists && preprocessor_options[k].kind != PP_STD)
      return take_nvcc_list(k, value, cli) == 0 ? 1 : -1;
    return take_preprocessor_value(k, value, cli) == 0 ? 1 : -1;
  }
  return 0;
}

/* nvcc options that make nvcc define a macro for the device compile (nvcc -E shows them). */
static const struct {
  const char *option;
  const char *macro;
} nvcc_macros[] = {
    {"-G", "__CUDACC_DEBUG__"},
    {"--device-debug", "__CUDACC_DEBUG__"},
    {"-dc", "__CUDACC_RDC__"},
    {"--device-c", "__CUDACC_RDC__"},
    {"-rdc=true", "__CUDACC_RDC__"},
    {"--relocatable-device-code=true", "__CUDACC_RDC__"},
    {"--extended-lambda", "__CUDACC_EXTENDED_LAMBDA__"},
    {"-extended-lambda", "__CUDACC_EXTENDED_LAMBDA__"},
    {"--expt-extended-lambda", "__CUDACC_EXTENDED_LAMBDA__"},
    {"-expt-extended-lambda", "__CUDACC_EXTENDED_LAMBDA__"},
    {"--expt-relaxed-constexpr", "__CUDACC_RELAXED_CONSTEXPR__"},
    {"-expt-relaxed-constexpr", "__CUDACC_RELAXED_CONSTEXPR__"},
    {"-ewp", "__CUDACC_EWP__"},
    {"--extensible-whole-program", "__CUDACC_EWP__"},
    {"--allow-unsupported-compiler", "__NV_NO_HOST_COMPILER_CHECK=1"},
    {"-allow-unsupported-compiler", "__NV_NO_HOST_COMPILER_CHECK=1"},
    {"--default-stream=per-thread", "CUDA_API_PER_THREAD_DEFAULT_STREAM=1"},
    {"-default-stream=per-thread", "CUDA_API_PER_THREAD_DEFAULT_STREAM=1"},
};

/* cubind_nvcc_implied_macro: see cli.h. */
const char *cubind_nvcc_implied_macro(const char *option) {
  size_t k;
  for (k = 0; k < sizeof nvcc_macros / sizeof nvcc_macros[0]; k++)
    if (strcmp(option, nvcc_macros[k].option) == 0)
      return nvcc_macros[k].macro;
  return NULL;
}

/* 1 when an nvcc option takes the next argument as its value and that value may look like an
   option ("-Xcompiler -DHOST_ONLY", "--ptxas-options -v"): the value is no preprocessor option. */
static int nvcc_passes_next_argument(const char *arg) {
  size_t length = strlen(arg);
  if (strchr(arg, '='))
    return 0;
  if (arg[0] == '-' && arg[1] == 'X' && arg[2])
    return 1; /* -Xcompiler, -Xptxas, -Xlinker, -Xnvlink, -Xfatbin, -Xarchive, ... */
  if (length > 10 && strncmp(arg, "--", 2) == 0 && strcmp(arg + length - 8, "-options") == 0)
    return 1; /* --compiler-options, --ptxas-options, ... */
  return strcmp(arg, "-rdc") == 0 || strcmp(arg, "--relocatable-device-code") == 0 ||
         strcmp(arg, "--default-stream") == 0 || strcmp(arg, "-default-stream") == 0;
}

/*
 * The list nvcc hands its host compiler (-Xcompiler "-O2,-DFOO,-include,x.h"): its items
 * (split_nvcc_list), joined by spaces into the host compiler's command line, which nvcc runs
 * through the shell: the words the shell makes of them are the host compiler's options
 * (-Xcompiler "-fPIC -fopenmp" gives gcc two, -Xcompiler '-DS="a b"' one: -DS=a b). nvcc
 * preprocesses the device code with the host compiler too, so its preprocessor options (-D,
 * -U, -I, -isystem, -include, -imacros, attached or as the next word) reach the device compile
 * and the parse; -fopenmp makes nvcc define _OPENMP for device code. 0, or -1 after a usage
 * error.
 */
static int take_host_compiler_list(const char *value, cubind_cli *cli) {
  static const char *const spaced[] = {"-D", "-U", "-I", "-isystem", "-include", "-imacros"};
  cubind_strlist items = {0}, words = {0};
  cubind_buf line = {0};
  const char *pending = NULL; /* the option whose value is the next word */
  size_t i;
  if (split_nvcc_list(value, &items) != 0) {
    cubind_strlist_free(&items);
    return -1;
  }
  for (i = 0; i < items.count; i++)
    cubind_buf_printf(&line, "%s%s", i ? " " : "", items.items[i]);
  split_words(line.data ? line.data : "", WORDS_SHELL, &words);
  for (i = 0; i < words.count; i++) {
    const char *word = words.items[i];
    size_t k;
    if (pending) {
      if (strcmp(pending, "-isystem") == 0 || strcmp(pending, "-include") == 0 ||
          strcmp(pending, "-imacros") == 0) {
        cubind_strlist_add(&cli->clang_args, pending);
        cubind_strlist_add(&cli->clang_args, word);
      } else {
        char *arg = cubind_xasprintf("%s%s", pending, word);
        cubind_strlist_add(&cli->clang_args, arg);
        free(arg);
      }
      pending = NULL;
      continue;
    }
    for (k = 0; k < sizeof spaced / sizeof spaced[0]; k++)
      if (strcmp(word, spaced[k]) == 0)
        pending = spaced[k];
    if (pending)
      continue;
    if (strcmp(word, "-fopenmp") == 0 || strcmp(word, "-openmp") == 0 ||
        strncmp(word, "-fopenmp=", 9) == 0)
      cli->host_openmp = 1;
    else if ((word[0] == '-' && strchr("DUI", word[1]) && word[2]) ||
             (strncmp(word, "-isystem", 8) == 0 && word[8]))
      cubind_strlist_add(&cli->clang_args, word);
  }
  cubind_strlist_free(&items);
  cubind_strlist_free(&words);
  cubind_buf_free(&line);
  return 0;
}

/*
 * nvcc's options about its host compiler that change what the device compile sees: -ccbin /
 * --compiler-bindir CC (whose include directories the parse searches), and -Xcompiler /
 * --compiler-options (take_host_compiler_list). Returns 1 when argv[*index] was one of them
 * (and moves *index past its value), -1 after a usage error in its value.
 */
static int host_compiler_option(int argc, char **argv, int *index, cubind_cli *cli) {
  static const char *const bindir[] = {"-ccbin", "--compiler-bindir"};
  static const char *const passed[] = {"-Xcompiler", "--compiler-options"};
  const char *arg = argv[*index], *value = NULL;
  size_t k, length;
  for (k = 0; k < 2 && !value; k++) {
    length = strlen(bindir[k]);
    if (strncmp(arg, bindir[k], length) == 0 && arg[length] == '=')
      value = arg + length + 1;
    else if (strcmp(arg, bindir[k]) == 0 && *index + 1 < argc)
      value = argv[++*index];
  }
  if (value) {
    cli->host_compiler = value;
    return 1;
  }
  for (k = 0; k < 2 && !value; k++) {
    length = strlen(passed[k]);
    if (strncmp(arg, passed[k], length) == 0 && arg[length] == '=')
      value = arg + length + 1;
    else if (strcmp(arg, passed[k]) == 0 && *index + 1 < argc && strcmp(argv[*index + 1], "--"))
      value = argv[++*index];
  }
  if (!value)
    return 0;
  return take_host_compiler_list(value, cli) == 0 ? 1 : -1;
}

/* How deep options files may name options files (a file naming itself stops there). */
#define MAX_OPTIONS_FILE_DEPTH 8

static int take_nvcc_options(int argc, char **argv, int *index, cubind_cli *cli, int depth);

/*
 * Takes nvcc options given as text (an options file's, an environment variable's, split by
 * `rules`) as a command line of their own: "--nvcc-options" <the words of text> "--". Returns 0
 * or CUBIND_EXIT_USAGE.
 */
static int take_nvcc_text(const char *text, words_rules rules, cubind_cli *cli, int depth) {
  char open[] = "--nvcc-options", close[] = "--", **argv;
  size_t first = cli->owned.count, count = split_words(text, rules, &cli->owned), i;
  int index = 0, status;
  argv = cubind_xcalloc(count + 2, sizeof *argv);
  argv[0] = open;
  for (i = 0; i < count; i++)
    argv[i + 1] = cli->owned.items[first + i];
  argv[count + 1] = close;
  status = take_nvcc_options((int)count + 2, argv, &index, cli, depth);
  free(argv);
  return status;
}

/*
 * nvcc's --options-file / -optf FILE (a comma-separated list of files too): each file's
 * options are taken as if on the command line (take_nvcc_text). Their strings stay in
 * cli->owned. Returns 0, or CUBIND_EXIT_USAGE after saying which file cannot be read.
 */
static int take_options_files(const char *list, cubind_cli *cli, int depth) {
  char *names = cubind_xstrdup(list), *name, *save = NULL;
  int status = 0;
  for (name = strtok_r(names, ",", &save); name && !status; name = strtok_r(NULL, ",", &save)) {
    char *text = NULL;
    size_t size = 0;
    if (depth >= MAX_OPTIONS_FILE_DEPTH) {
      status = usage_error("options files name each other too deeply", name);
      break;
    }
    if (cubind_read_file_quiet(name, CUBIND_MAX_SOURCE_BYTES, &text, &size) != 0) {
      status = usage_error("cannot read nvcc's --options-file", name);
      break;
    }
    status = take_nvcc_text(text, WORDS_NVCC_FILE, cli, depth + 1);
    free(text);
  }
  free(names);
  return status;
}

/*
 * The options nvcc reads from its environment, NVCC_PREPEND_FLAGS before its command line's and
 * NVCC_APPEND_FLAGS after them (conda sets the first): they reach every nvcc of the build, so
 * they are nvcc's options for this .cu too. Returns 0 or CUBIND_EXIT_USAGE.
 */
static int take_nvcc_environment(const char *variable, cubind_cli *cli) {
  const char *text = getenv(variable);
  return text ? take_nvcc_text(text, WORDS_NVCC_ENVIRONMENT, cli, 0) : 0;
}

/*
 * --nvcc-options OPTION... --: takes the preprocessor options (and nvcc's macro-defining flags,
 * and its options files' options) of nvcc's command line, skips the rest. *index is at
 * --nvcc-options; on return, at the '--'. depth: how many options files name this list.
 * Returns 0, or CUBIND_EXIT_USAGE.
 */
static int take_nvcc_options(int argc, char **argv, int *index, cubind_cli *cli, int depth) {
  int i;
  for (i = *index + 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
    const char *files = NULL, *implied;
    int taken = take_preprocessor_option(argc, argv, &i, cli, 1);
    if (taken < 0)
      return CUBIND_EXIT_USAGE;
    if (taken)
      continue;
    if (strncmp(argv[i], "--options-file=", 15) == 0)
      files = argv[i] + 15;
    else if (strncmp(argv[i], "-optf=", 6) == 0)
      files = argv[i] + 6;
    else if ((strcmp(argv[i], "--options-file") == 0 || strcmp(argv[i], "-optf") == 0) &&
             i + 1 < argc && strcmp(argv[i + 1], "--") != 0)
      files = argv[++i];
    if (files) {
      if (take_options_files(files, cli, depth))
        return CUBIND_EXIT_USAGE;
      continue;
    }
    if ((implied = cubind_nvcc_implied_macro(argv[i])) != NULL) {
      char *define = cubind_xasprintf("-D%s", implied);
      cubind_strlist_add(&cli->implied_defines, define);
      free(define);
    } else if ((taken = host_compiler_option(argc, argv, &i, cli)) != 0) {
      if (taken < 0)
        return CUBIND_EXIT_USAGE;
    } else if (nvcc_passes_next_argument(argv[i]) && i + 1 < argc &&
               strcmp(argv[i + 1], "--") != 0) {
      if ((strcmp(argv[i], "-rdc") == 0 || strcmp(argv[i], "--relocatable-device-code") == 0) &&
          strcmp(argv[i + 1], "true") == 0)
        cubind_strlist_add(&cli->implied_defines, "-D__CUDACC_RDC__");
      else if (strstr(argv[i], "default-stream") && strcmp(argv[i + 1], "per-thread") == 0)
        cubind_strlist_add(&cli->implied_defines, "-DCUDA_API_PER_THREAD_DEFAULT_STREAM=1");
      i++;
    }
  }
  if (i >= argc)
    return usage_error("--nvcc-options needs a closing '--'", NULL);
  *index = i;
  return 0;
}

/*
 * Reads "80,90a" (or "80;90a", a CMake list) into cli->binary_archs, ascending, each once,
 * with each one's variant (90a: 'a', 100f: 'f'). Returns 0, or 1 when it holds anything but SM
 * versions.
 */
static int parse_archs(const char *list, cubind_cli *cli) {
  const char *at = list;
  while (*at) {
    char *end, variant = 0;
    unsigned long arch = strtoul(at, &end, 10);
    size_t i, j;
    if (end != at && (*end == 'a' || *end == 'f'))
      variant = *end++;
    if (end == at || arch < 10 || arch > 999 || (*end && *end != ',' && *end != ';') ||
        !isdigit((unsigned char)*at))
      return 1;
    for (i = 0; i < cli->num_binary_archs && cli->binary_archs[i] < arch; i++)
      ;
    if (i == cli->num_binary_archs || cli->binary_archs[i] != arch) {
      if (cli->num_binary_archs == sizeof cli->binary_archs / sizeof cli->binary_archs[0])
        return 1;
      for (j = cli->num_binary_archs++; j > i; j--) {
        cli->binary_archs[j] = cli->binary_archs[j - 1];
        cli->binary_arch_variants[j] = cli->binary_arch_variants[j - 1];
      }
      cli->binary_archs[i] = (unsigned)arch;
      cli->binary_arch_variants[i] = variant;
    }
    at = *end ? end + 1 : end;
  }
  return cli->num_binary_archs ? 0 : 1;
}

/* cubind_cli_parse: see cli.h. */
int cubind_cli_parse(int argc, char **argv, cubind_cli *cli) {
  int i;
  cli->output_dir = ".";
  cli->std = "-std=c++17";
  int only_files = 0; /* after a lone "--", as in getopt: "-x.cu" is then a file */
  for (i = 1; i < argc; i++) {
    const char *arg = argv[i], *value;
    int missing = 0, taken;
    if (!only_files && strcmp(arg, "--") == 0) {
      only_files = 1;
      continue;
    }
    if (only_files) {
      if (cli->check_names) {
        cubind_strlist_add(&cli->names_files, arg);
        continue;
      }
      if (cli->input)
        return usage_error("more than one input file", arg);
      cli->input = arg;
      continue;
    }
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      cli->help = 1;
      continue;
    }
    if (strcmp(arg, "--version") == 0) {
      cli->version = 1;
      continue;
    }
    taken = take_preprocessor_option(argc, argv, &i, cli, 0);
    if (taken < 0)
      return CUBIND_EXIT_USAGE;
    if (taken)
      continue;
    if (strcmp(arg, "--nvcc-options") == 0) {
      if ((!cli->nvcc_options_seen && take_nvcc_environment("NVCC_PREPEND_FLAGS", cli) != 0) ||
          take_nvcc_options(argc, argv, &i, cli, 0) != 0)
        return CUBIND_EXIT_USAGE;
      cli->nvcc_options_seen = 1;
    } else if ((value = option_value(argc, argv, &i, "-o", VALUE_ATTACHED, &missing))) {
      cli->output_dir = value;
    } else if ((value = option_value(argc, argv, &i, "--module-name", VALUE_EQUALS, &missing))) {
      if (!cubind_is_identifier(value))
        return usage_error("--module-name must be a C identifier", value);
      if (strcmp(value, "cubind") == 0)
        return usage_error("module name is reserved", value);
      cli->module_name = value;
    } else if ((value = option_value(argc, argv, &i, "--fatbin-name", VALUE_EQUALS, &missing))) {
      if (!cubind_is_identifier(value))
        return usage_error("--fatbin-name must be a C identifier", value);
      cli->fatbin_name = value;
    } else if ((value = option_value(argc, argv, &i, "--prefix", VALUE_EQUALS, &missing))) {
      if (!cubind_is_identifier(value))
        return usage_error("--prefix must be a C identifier (letters, digits, '_'; no digit "
                           "first)",
                           value);
      cli->prefix = value;
    } else if ((value = option_value(argc, argv, &i, "--cuda-path", VALUE_EQUALS, &missing))) {
      cli->cuda_path = value;
    } else if ((value = option_value(argc, argv, &i, "--depfile", VALUE_EQUALS, &missing))) {
      cli->depfile = value;
    } else if ((value = option_value(argc, argv, &i, "--cache-dir", VALUE_EQUALS, &missing))) {
      cli->cache_dir = value;
    } else if (strcmp(arg, "--no-cache") == 0) {
      cli->no_cache = 1;
    } else if (strcmp(arg, "--no-line-directives") == 0) {
      cli->no_line_directives = 1;
    } else if (strcmp(arg, "--check-names") == 0) {
      cli->check_names = 1;
    } else if ((value = option_value(argc, argv, &i, "--kernels-from", VALUE_EQUALS, &missing))) {
      cubind_strlist_add(&cli->kernels_from, value);
    } else if (strcmp(arg, "--prepare") == 0) {
      cli->prepare = 1;
    } else if ((value = option_value(argc, argv, &i, "--binary-archs", VALUE_EQUALS, &missing))) {
      if (parse_archs(value, cli) != 0)
        return usage_error("--binary-archs takes SM versions such as 80,90, not", value);
    } else if ((value = option_value(argc, argv, &i, "--earlier-binary", VALUE_EQUALS, &missing))) {
      cubind_strlist_add(&cli->earlier_binaries, value);
    } else if ((value = option_value(argc, argv, &i, "--host-compiler", VALUE_EQUALS, &missing))) {
      cli->host_compiler = value;
    } else if ((value = option_value(argc, argv, &i, "--embed-fatbin", VALUE_EQUALS, &missing))) {
      if (cli->input)
        return usage_error("more than one input file", value);
      cli->input = value;
      cli->embed_fatbin = 1;
    } else if (missing) {
      return usage_error("missing argument to", arg);
    } else if (arg[0] == '-' && arg[1]) {
      return usage_error("unknown option", arg);
    } else if (cli->check_names) {
      cubind_strlist_add(&cli->names_files, arg);
    } else if (cli->input) {
      return usage_error("more than one input file", arg);
    } else {
      cli->input = arg;
    }
  }
  if (cli->nvcc_options_seen && take_nvcc_environment("NVCC_APPEND_FLAGS", cli) != 0)
    return CUBIND_EXIT_USAGE;
  if (cli->help || cli->version)
    return 0;
  if (cli->check_names) {
    if (cli->input) { /* a file named before --check-names */
      cubind_strlist_add(&cli->names_files, cli->input);
      cli->input = NULL;
    }
    if (cli->embed_fatbin)
      return usage_error("--check-names does not go with --embed-fatbin", NULL);
    if (!cli->names_files.count)
      return usage_error("--check-names needs at least one .cubind.names file", NULL);
    return 0;
  }
  if (!cli->input)
    return usage_error("no input file", NULL);
  if (cli->embed_fatbin && !cli->module_name)
    return usage_error("--embed-fatbin needs --module-name", NULL);
  if (cli->embed_fatbin && cli->kernels_from.count)
    return usage_error("--kernels-from does not go with --embed-fatbin", NULL);
  if (cli->prepare && (cli->embed_fatbin || cli->kernels_from.count))
    return usage_error("--prepare does not go with --embed-fatbin or --kernels-from", NULL);
  if (cli->num_binary_archs && !cli->prepare)
    return usage_error("--binary-archs goes with --prepare only", NULL);
  return 0;
}

/* cubind_cli_free: frees what cubind_cli_parse allocated. */
void cubind_cli_free(cubind_cli *cli) {
  cubind_strlist_free(&cli->clang_args);
  cubind_strlist_free(&cli->implied_defines);
  cubind_strlist_free(&cli->kernels_from);
  cubind_strlist_free(&cli->earlier_binaries);
  cubind_strlist_free(&cli->names_files);
  cubind_strlist_free(&cli->owned);
}
