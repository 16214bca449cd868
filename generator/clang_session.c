/* clang_session.c: clang's command line, parsing and diagnostics (see clang_session.h). */
#include "clang_session.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clang_util.h"
#include "fs.h"
#include "host_compiler.h"
#include "parse_context.h"
#include "prelude_cache.h"

/* session_libclang_major: see clang_session.h ("... clang version 19.1.7 ..."). */
int session_libclang_major(void) {
  char *version = cubind_libclang_version();
  const char *at = strstr(version, "version ");
  int major = at ? atoi(at + 8) : 0;
  free(version);
  return major;
}

/* ---- The shim directory: headers clang's CUDA mode needs in place of the system's ---------- */

/* Clang < 16's texture intrinsics name a `texture` template that CUDA 13 no longer declares. */
static const char texture_shim[] =
    "#include_next <cuda_runtime.h>\n"
    "template <class T, int dim, enum cudaTextureReadMode mode> struct texture {};\n";

/*
 * GCC's omp.h (11 and newer) names a deallocator in `__malloc__ (omp_free)`, an error to clang:
 * read as a plain __malloc__, omp.h parses without errors, so a prelude can hold it (one with
 * errors is never saved). The macro is undone after it.
 */
static const char omp_shim[] =
    "#pragma once\n"
    "#pragma push_macro(\"__malloc__\")\n"
    "#undef __malloc__\n"
    "#define __malloc__(...) __malloc__\n"
    "#include_next <omp.h>\n"
    "#pragma pop_macro(\"__malloc__\")\n";

/*
 * What clang's CUDA wrapper (which clang includes before everything) defines and nvcc does not,
 * undone before the .cu, whose own #if tests then read as under nvcc (a stub's element type may
 * hang on one): __USE_FAST_MATH__ and __CUDA_PREC_DIV, defined to 0 for the toolkit's math
 * headers, which the wrapper has included by then. (CUDA_VERSION, from the cuda.h the wrapper
 * includes, must stay: CCCL takes clang's CUDA version from it, docs/libclang.md.)
 */
static const char nvcc_view_shim[] =
    "#undef __USE_FAST_MATH__\n"
    "#undef __CUDA_PREC_DIV\n";

#define NVCC_VIEW_SHIM "cubind_nvcc_view.h"

/* A shim header: its name, its text, and the newest libclang it is for (0: every one). */
typedef struct shim_file {
  const char *name, *text;
  int before_major;
} shim_file;

static const shim_file shim_files[] = {
    {"texture_fetch_functions.h", "", 0}, /* CUDA 13 removed it; clang's wrapper includes it */
    {"cuda_runtime.h", texture_shim, 16},
    {"omp.h", omp_shim, 0},
    {NVCC_VIEW_SHIM, nvcc_view_shim, 0},
};

/* Fills dir with the shim headers of libclang `major`. */
static int fill_shim_dir(const char *dir, int major) {
  size_t i;
  int ok = 1;
  for (i = 0; ok && i < sizeof shim_files / sizeof shim_files[0]; i++) {
    char *path;
    if (shim_files[i].before_major && major >= shim_files[i].before_major)
      continue;
    path = cubind_xasprintf("%s/%s", dir, shim_files[i].name);
    ok = cubind_write_file(path, shim_files[i].text, strlen(shim_files[i].text), 0) == 0;
    free(path);
  }
  return ok;
}

/* 1 when dir holds the shim headers of libclang `major` as fill_shim_dir writes them. */
static int shim_dir_filled(const char *dir, int major) {
  size_t i;
  int same = 1;
  for (i = 0; same && i < sizeof shim_files / sizeof shim_files[0]; i++) {
    char *path = cubind_xasprintf("%s/%s", dir, shim_files[i].name), *text = NULL;
    size_t size = 0;
    if (shim_files[i].before_major && major >= shim_files[i].before_major)
      same = access(path, F_OK) != 0;
    else
      same = cubind_read_file_quiet(path, 4096, &text, &size) == 0 &&
             size == strlen(shim_files[i].text) && memcmp(text, shim_files[i].text, size) == 0;
    free(text);
    free(path);
  }
  return same;
}

/*
 * The shim directory: the installed preludes' (their keys and files name it; cubind's build
 * wrote it), else one in the cache (stable, so that a precompiled prelude that names its files
 * stays valid), else a temporary directory. Sets session->shim_dir and shim_temporary; returns
 * 0, or 1 after reporting why.
 */
static int make_shim_dir(clang_session *session) {
  const char *tmp = getenv("TMPDIR"), *cache_dir = session->options->cache_dir;
  const char *installed = session->options->installed_preludes;
  char *dir;
  if (cache_dir && installed) {
    dir = cubind_xasprintf("%s/shim-clang%d", installed, session->major);
    if (shim_dir_filled(dir, session->major)) {
      session->shim_dir = dir;
      return 0;
    }
    free(dir);
  }
  if (cache_dir) {
    dir = cubind_xasprintf("%s/shim-clang%d", cache_dir, session->major);
    if ((mkdir(dir, 0777) == 0 || errno == EEXIST) && fill_shim_dir(dir, session->major)) {
      session->shim_dir = dir;
      return 0;
    }
    free(dir); /* an unusable cache: work without it */
  }
  session->shim_temporary = 1;
  dir = cubind_xasprintf("%s/cubind-gen-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    cubind_diag(NULL, 0, 0, "error", "cannot create a temporary directory '%s': %s", dir,
                strerror(errno));
    free(dir);
    return 1;
  }
  session->shim_dir = dir; /* removed by session_close even when a write fails */
  if (!fill_shim_dir(dir, session->major)) {
    cubind_diag(NULL, 0, 0, "error", "cannot write to the temporary directory '%s'", dir);
    return 1;
  }
  return 0;
}

/* ---- The command line ------------------------------------------------------------------- */

static void add_arg(cubind_strlist *args, const char *format, const char *value) {
  char *text = cubind_xasprintf(format, value);
  cubind_strlist_add(args, text);
  free(text);
}

/*
 * nvcc's __CUDACC_VER_MAJOR__ and __CUDACC_VER_MINOR__, which clang does not define and code
 * gates declarations on (PyTorch, CUTLASS), and __CUDA_API_VER_MAJOR__ / _MINOR__ (which
 * cuda_runtime_api.h reads too): the toolkit's version, from its cuda.h (CUDA_VERSION 13000:
 * 13 and 0, near its top); and the macros nvcc defines that no toolkit header reads under clang
 * (__NVCC_DIAG_PRAGMA_SUPPORT__, CUDA_DOUBLE_MATH_FUNCTIONS). __NVCC__ stays undefined: CCCL
 * would take clang for nvcc. Left out: __CUDACC_VER_BUILD__ (only nvcc's binary holds it) and
 * __CUDACC_DEVICE_ATOMIC_BUILTINS__ (what it guards, nvcc's __nv_atomic builtins, clang lacks).
 */
static void add_toolkit_version(cubind_strlist *args, const char *cuda_path) {
  char *path = cubind_xasprintf("%s/include/cuda.h", cuda_path), *text = NULL, *at;
  size_t size = 0;
  long version;
  if (cubind_read_head_quiet(path, CUBIND_MAX_SOURCE_BYTES, 64 * 1024, &text, &size) == 0 &&
      text && (at = strstr(text, "#define CUDA_VERSION ")) != NULL &&
      (version = strtol(at + strlen("#define CUDA_VERSION "), NULL, 10)) >= 1000) {
    char define[64];
    snprintf(define, sizeof define, "-D__CUDACC_VER_MAJOR__=%ld", version / 1000);
    cubind_strlist_add(args, define);
    snprintf(define, sizeof define, "-D__CUDACC_VER_MINOR__=%ld", version % 1000 / 10);
    cubind_strlist_add(args, define);
    snprintf(define, sizeof define, "-D__CUDA_API_VER_MAJOR__=%ld", version / 1000);
    cubind_strlist_add(args, define);
    snprintf(define, sizeof define, "-D__CUDA_API_VER_MINOR__=%ld", version % 1000 / 10);
    cubind_strlist_add(args, define);
  }
  cubind_strlist_add(args, "-D__NVCC_DIAG_PRAGMA_SUPPORT__=1");
  cubind_strlist_add(args, "-DCUDA_DOUBLE_MATH_FUNCTIONS");
  free(text);
  free(path);
}

/*
 * -D__CUDA_ARCH__ for the binary's SM version `arch`, and the macros nvcc defines besides for
 * code of the arch's own features (sm_90a: __CUDA_ARCH_FEAT_SM90_ALL, __CUDA_ARCH_SPECIFIC__,
 * __CUDA_ARCH_FAMILY_SPECIFIC__) or of its family's (sm_100f: __CUDA_ARCH_FAMILY_SPECIFIC__),
 * behind which Hopper and Blackwell code keeps kernels.
 */
static void add_arch_macros(cubind_strlist *args, const cubind_binary *binary, unsigned arch) {
  char define[64];
  int specific = binary && cubind_archs_contain(binary->specific_archs,
                                                binary->num_specific_archs, arch);
  int family = binary && cubind_archs_contain(binary->family_archs, binary->num_family_archs,
                                              arch);
  snprintf(define, sizeof define, "-D__CUDA_ARCH__=%u", arch * 10);
  cubind_strlist_add(args, define);
  if (specific) {
    snprintf(define, sizeof define, "-D__CUDA_ARCH_FEAT_SM%u_ALL", arch);
    cubind_strlist_add(args, define);
    snprintf(define, sizeof define, "-D__CUDA_ARCH_SPECIFIC__=%u", arch * 10);
    cubind_strlist_add(args, define);
  }
  if (specific || family) {
    snprintf(define, sizeof define, "-D__CUDA_ARCH_FAMILY_SPECIFIC__=%u", arch * 10);
    cubind_strlist_add(args, define);
  }
}

/* 1 when the argument is one of add_arch_macros'. */
static int is_arch_macro(const char *arg) {
  return strncmp(arg, "-D__CUDA_ARCH__=", 16) == 0 ||
         strncmp(arg, "-D__CUDA_ARCH_FEAT_", 19) == 0 ||
         strncmp(arg, "-D__CUDA_ARCH_SPECIFIC__=", 25) == 0 ||
         strncmp(arg, "-D__CUDA_ARCH_FAMILY_SPECIFIC__=", 32) == 0;
}

/*
 * Clang's arguments (docs/libclang.md): a device-side CUDA parse that skips nothing clang
 * needs to lay out parameters, with the user's -I/-D/-U/-isystem/-include in order.
 */
static void build_arguments(clang_session *session) {
  const cubind_parse_options *options = session->options;
  cubind_strlist *args = &session->args;
  char *toolkit_include, *toolkit_real;
  size_t i;
  cubind_strlist_add(args, "-x");
  cubind_strlist_add(args, "cuda");
  add_arg(args, "--cuda-path=%s", options->cuda_path);
  cubind_strlist_add(args, "--cuda-device-only");
  /* The newest architecture each libclang accepts (an unsupported one fails without a
     message); __CUDA_ARCH__ is the binary's (parse_main_arch), whatever the version's own. */
  cubind_strlist_add(args, session->major >= 16 ? "--cuda-gpu-arch=sm_90" : "--cuda-gpu-arch=sm_86");
  cubind_strlist_add(args, "-U__CUDA_ARCH__");
  add_arch_macros(args, options->binary, parse_main_arch(options->binary));
  cubind_strlist_add(args, "-nocudalib");
  /* nvcc mangles a constrained template's instances without the constraint (scale<float> of
     template <Number T>: _Z5scaleIfEvPT_S0_i), as clang did up to 17; 18 adds it (Tk6Number),
     which would name a kernel the binary does not hold */
  if (session->major >= 18)
    cubind_strlist_add(args, "-fclang-abi-compat=17");
  cubind_strlist_add(args, options->std);
  cubind_strlist_add(args, "-isystem");
  add_arg(args, "%s/include/cccl", options->cuda_path);
  cubind_strlist_add(args, "-isystem");
  cubind_strlist_add(args, session->shim_dir);
  cubind_strlist_add(args, "-include");
  add_arg(args, "%s/" NVCC_VIEW_SHIM, session->shim_dir);
  cubind_strlist_add(args, "-Xclang");
  cubind_strlist_add(args, "-fcuda-allow-variadic-functions");
  cubind_strlist_add(args, "-ferror-limit=0");
  cubind_strlist_add(args, "-Wno-unknown-cuda-version");
  /* nvcc takes C++17's removed `register` (legacy HPC code) without a word; clang's error
     stands in the bodies it parses (deduced return types, constexpr functions, lambdas) */
  cubind_strlist_add(args, "-Wno-register");
  /* nvcc takes a template argument such as (Kind)5, outside the enum's values; clang 16 to 19
     reject it by default, as a warning that can still be turned off */
  if (session->major >= 16 && session->major <= 19)
    cubind_strlist_add(args, "-Wno-enum-constexpr-conversion");
  cubind_strlist_add(args, "-DCUBIND_GENERATOR=1");
  add_toolkit_version(args, options->cuda_path);
  /* nvcc preprocesses a .cu with its host compiler: headers only it provides (gcc's omp.h)
     are found in its directories, after clang's own (whose intrinsics headers win) */
  host_compiler_arguments(options->host_compiler, options->host_openmp, options->cache_dir,
                          args);
  /* the macros nvcc's options define that the installed preludes were built with key every
     prelude, as -std does (parse.h) */
  for (i = 0; i < options->variant_defines->count; i++)
    cubind_strlist_add(args, options->variant_defines->items[i]);
  /* the rest varies between the targets of one build: the base prelude's key leaves its -D,
     -U and -I arguments out where they change nothing in it (prelude_cache.h) */
  session->prelude_options.own_args = args->count;
  if (options->binary && options->binary->num_archs) {
    /* nvcc defines it from the -gencode list (CCCL names its namespaces after it): the same
       list makes the same names */
    cubind_buf list = {0};
    for (i = 0; i < options->binary->num_archs; i++)
      cubind_buf_printf(&list, "%s%u", i ? "," : "-D__CUDA_ARCH_LIST__=",
                        options->binary->archs[i] * 10);
    cubind_strlist_add(args, list.data);
    cubind_buf_free(&list);
  }
  /* the installed preludes have none past here: the macros of nvcc's options that no variant
     was built with count as the user's -D (--expt-relaxed-constexpr's, which no toolkit header
     names, takes CUB's prelude; -G's, which cooperative groups' headers name, does not) */
  session->prelude_options.user_args = args->count;
  for (i = 0; i < options->implied_defines->count; i++) /* before the user's, as nvcc has them */
    cubind_strlist_add(args, options->implied_defines->items[i]);
  /* The toolkit's include directory stays a system directory however the user names it
     (pkg-config --cflags cubind gives it as -I): as a user directory it would shadow clang's
     system one, and errors in toolkit headers would count as the user's. */
  toolkit_include = cubind_xasprintf("%s/include", options->cuda_path);
  toolkit_real = realpath(toolkit_include, NULL);
  free(toolkit_include);
  for (i = 0; i < options->user_args->count; i++) {
    const char *arg = options->user_args->items[i];
    char *real = strncmp(arg, "-I", 2) == 0 && toolkit_real ? realpath(arg + 2, NULL) : NULL;
    if (real && strcmp(real, toolkit_real) == 0) {
      cubind_strlist_add(args, "-isystem");
      cubind_strlist_add(args, arg + 2);
    } else {
      cubind_strlist_add(args, arg);
    }
    free(real);
  }
  free(toolkit_real);
}

/*
 * 1 when the session uses the prelude cache. Measured: libclang 14 parses files that include
 * toolkit headers (cuda_fp16.h, cub) against the prelude only with errors, so every run would
 * parse twice; the prelude is for 16+, and only in a real cache (a temporary shim directory
 * would make it unusable).
 */
static int uses_prelude_cache(const clang_session *session) {
  return session->options->cache_dir && !session->shim_temporary && session->major >= 16;
}

/*
 * Whether cursor visits may leave out what the precompiled prelude declares (libclang's
 * excludeDeclarationsFromPCH). Visiting a translation unit otherwise reads back every
 * declaration and macro of its prelude, only for parse_decls.c to skip them as system headers:
 * 0.03 s a run with the base prelude, 0.08 s with CUB's (docs/libclang.md). A prelude holds
 * system headers only, except the user's -include files, which are parsed into it: their
 * kernels are the user's, so such a run visits everything.
 */
static int visits_local_declarations(const cubind_parse_options *options) {
  size_t i;
  for (i = 0; i < options->user_args->count; i++)
    if (strncmp(options->user_args->items[i], "-include", 8) == 0)
      return 0;
  return 1;
}

/* session_open: see clang_session.h. */
int session_open(clang_session *session, const cubind_parse_options *options) {
  memset(session, 0, sizeof *session);
  session->options = options;
  session->major = session_libclang_major();
  if (make_shim_dir(session) != 0)
    return 1;
  build_arguments(session);
  /* asked before libclang starts: a missing prelude's builder is a fork of this process */
  if (uses_prelude_cache(session)) {
    session->prelude_options.args = &session->args;
    session->prelude_options.cache_dir = options->cache_dir;
    session->prelude_options.installed_dir = options->installed_preludes;
    session->prelude_options.cuda_path = options->cuda_path;
    prelude_leading_lines(options->input, &session->args, options->cuda_path,
                          &session->leading_lines);
    session->prelude = prelude_cache_get(&session->prelude_options, &session->leading_lines,
                                         &session->prelude_whole, &session->attempts);
    /* the check reads the .cu's own #include directives: not where the walk sees the prelude's */
    if (!visits_local_declarations(options))
      prelude_attempts_free(&session->attempts);
  }
  session->index = clang_createIndex(visits_local_declarations(options), 0);
  return 0;
}

/*
 * How long session_wait_prelude waits (seconds): the builder of a .cu with CUB and Thrust, whose
 * list it may build after others left to it, on a slow machine; a build step must not hang.
 */
#define PREPARE_WAIT_SECONDS 300.0

/* session_wait_prelude: see clang_session.h. */
void session_wait_prelude(clang_session *session) {
  if (uses_prelude_cache(session) && !session->prelude_whole)
    free(prelude_cache_wait(&session->prelude_options, &session->leading_lines,
                            PREPARE_WAIT_SECONDS));
}

/* session_close: see clang_session.h. */
void session_close(clang_session *session) {
  size_t i;
  if (session->text_unit)
    clang_disposeTranslationUnit(session->text_unit);
  if (session->reuse_unit)
    clang_disposeTranslationUnit(session->reuse_unit);
  if (session->unit)
    clang_disposeTranslationUnit(session->unit);
  free(session->main_text);
  if (session->index)
    clang_disposeIndex(session->index);
  if (session->shim_dir && session->shim_temporary) {
    for (i = 0; i < sizeof shim_files / sizeof shim_files[0]; i++) {
      char *path = cubind_xasprintf("%s/%s", session->shim_dir, shim_files[i].name);
      unlink(path);
      free(path);
    }
    rmdir(session->shim_dir);
  }
  free(session->shim_dir);
  free(session->prelude);
  prelude_attempts_free(&session->attempts);
  free(session->text_prelude);
  cubind_strlist_free(&session->leading_lines);
  cubind_strlist_free(&session->args);
  memset(session, 0, sizeof *session);
}

/* ---- Parsing ------------------------------------------------------------------------------ */

/*
 * Parses the input (or `text` in its place) with `args`, plus the prelude when `prelude` is
 * set; reports it as `what` (cubind_report). Returns the translation unit or NULL; *status gets
 * libclang's result.
 */
static CXTranslationUnit parse(clang_session *session, const char *what,
                               const cubind_strlist *args, const char *prelude, const char *text,
                               size_t length, unsigned extra_flags, enum CXErrorCode *status) {
  const unsigned flags = CX_PARSE_FLAGS | extra_flags;
  cubind_strlist all = {0};
  struct CXUnsavedFile unsaved;
  CXTranslationUnit tu = NULL;
  clock_t started = clock();
  size_t i;
  for (i = 0; i < args->count; i++)
    cubind_strlist_add(&all, args->items[i]);
  if (prelude) {
    cubind_strlist_add(&all, "-include-pch");
    cubind_strlist_add(&all, prelude);
  }
  unsaved.Filename = session->options->input;
  unsaved.Contents = text;
  unsaved.Length = (unsigned long)length;
  *status = clang_parseTranslationUnit2(session->index, session->options->input,
                                        (const char *const *)all.items, (int)all.count,
                                        text ? &unsaved : NULL, text ? 1 : 0, flags, &tu);
  cubind_strlist_free(&all);
  if (cubind_reporting())
    cubind_report("parse of %s, prelude %s: %.2f s CPU, %u errors", what,
                  prelude ? cubind_basename(prelude) : "none",
                  (double)(clock() - started) / CLOCKS_PER_SEC, tu ? cx_count_errors(tu) : 0);
  if (*status != CXError_Success && tu) {
    clang_disposeTranslationUnit(tu);
    tu = NULL;
  }
  return tu;
}

/*
 * Keeps `tu` as the session's main unit, the first `length` bytes of the text it read as the
 * .cu's text (the reference lines after them are not the .cu's), and its CPU time.
 */
static CXTranslationUnit keep_unit(clang_session *session, CXTranslationUnit tu, size_t length,
                                   clock_t started) {
  CXFile file = clang_getFile(tu, session->options->input);
  size_t size = 0;
  const char *text = file ? clang_getFileContents(tu, file, &size) : NULL;
  if (!text)
    size = 0;
  if (size > length)
    size = length;
  session->unit = tu;
  session->main_seconds = (double)(clock() - started) / CLOCKS_PER_SEC;
  session->main_text = cubind_xstrndup(text ? text : "", size);
  session->main_length = size;
  return tu;
}

/* session_reference_text: see clang_session.h. */
unsigned session_reference_text(const char *source, size_t size, const cubind_strlist *lines,
                                cubind_buf *text) {
  unsigned first_line = 3; /* after the .cu's lines and the two newlines below */
  size_t i;
  cubind_buf_append(text, source, size);
  for (i = 0; i < size; i++)
    first_line += source[i] == '\n';
  /* the newline that ends the .cu's last line, and an empty line: a .cu that ends in a
     backslash would splice its last line with the next one */
  cubind_buf_puts(text, "\n\n");
  for (i = 0; i < lines->count; i++)
    cubind_buf_printf(text, "%s\n", lines->items[i]);
  /* an empty declaration after them: clang reports what the .cu left open (a namespace, a
     brace) after the last token, which is then no reference line's */
  cubind_buf_puts(text, ";\n");
  return first_line;
}

/*
 * 1 when a diagnostic lies on a reference line of the main unit (not on the line after them,
 * where session_reference_text's end reports what the .cu left open).
 */
static int on_reference_line(const clang_session *session, CXDiagnostic diag) {
  unsigned line = cx_main_file_line(diag);
  return session->first_reference_line && line >= session->first_reference_line &&
         line - session->first_reference_line < session->num_reference_lines;
}

/*
 * The .cu's text with `references` after it, parsed as the .cu (with the prelude, if any); NULL
 * when clang reports an error off those lines that the .cu's own parse would not keep: one in
 * the user's files, or with the prelude any error (a stale prelude; a header that fails where a
 * reference instantiates it). The plain parse then decides what the user sees. Errors in system
 * headers without the prelude are kept, as the plain parse keeps them (libclang 14 reports some
 * in CUDA 13's headers; a reference's own trouble stays its own, as in a wrapper parse).
 */
static CXTranslationUnit parse_with_references(clang_session *session,
                                               const cubind_strlist *references,
                                               size_t *source_length) {
  enum CXErrorCode status;
  CXTranslationUnit tu;
  cubind_buf text = {0};
  char *source = NULL;
  size_t size = 0;
  unsigned i, count;
  int errors = 0;
  if (cubind_read_file_quiet(session->options->input, CUBIND_MAX_SOURCE_BYTES, &source, &size) !=
      0)
    return NULL;
  session->first_reference_line = session_reference_text(source, size, references, &text);
  session->num_reference_lines = references->count;
  free(source);
  tu = parse(session, "the .cu and its reference lines", &session->args, session->prelude,
             text.data, text.length, 0, &status);
  cubind_buf_free(&text);
  count = tu ? clang_getNumDiagnostics(tu) : 0;
  for (i = 0; i < count && !errors; i++) {
    CXDiagnostic diag = clang_getDiagnostic(tu, i);
    errors = clang_getDiagnosticSeverity(diag) >= CXDiagnostic_Error &&
             !on_reference_line(session, diag) &&
             (session->prelude ||
              !clang_Location_isInSystemHeader(clang_getDiagnosticLocation(diag)));
    clang_disposeDiagnostic(diag);
  }
  if (tu && errors) {
    clang_disposeTranslationUnit(tu);
    tu = NULL;
  }
  if (!tu)
    session->first_reference_line = 0;
  *source_length = size;
  return tu;
}

/* Visitor state of names_headers: the headers not yet seen named. */
typedef struct header_search {
  cubind_strlist *missing;
} header_search;

static enum CXChildVisitResult find_inclusion(CXCursor cursor, CXCursor parent,
                                              CXClientData data) {
  header_search *search = data;
  CXFile file;
  (void)parent;
  if (clang_getCursorKind(cursor) == CXCursor_InclusionDirective &&
      (file = clang_getIncludedFile(cursor)) != NULL) {
    char *name = cx_string(clang_getFileName(file));
    size_t length = strlen(name), i;
    for (i = 0; i < search->missing->count; i++) {
      const char *header = search->missing->items[i];
      size_t size = strlen(header);
      if (length > size && name[length - size - 1] == '/' &&
          strcmp(name + length - size, header) == 0) {
        free(search->missing->items[i]);
        search->missing->items[i] = search->missing->items[--search->missing->count];
        break;
      }
    }
    free(name);
  }
  return search->missing->count ? CXChildVisit_Continue : CXChildVisit_Break;
}

/*
 * 1 when the parse `tu` names each of `headers` (<thrust/transform.h>) in an #include of its own:
 * the walk sees only what the parse itself read, not its prelude (excludeDeclarationsFromPCH).
 */
static int names_headers(CXTranslationUnit tu, const cubind_strlist *headers) {
  cubind_strlist missing = {0};
  header_search search;
  size_t i;
  int named;
  for (i = 0; i < headers->count; i++)
    cubind_strlist_add(&missing, headers->items[i]);
  search.missing = &missing;
  if (missing.count)
    clang_visitChildren(clang_getTranslationUnitCursor(tu), find_inclusion, &search);
  named = missing.count == 0;
  cubind_strlist_free(&missing);
  return named;
}

/*
 * Parses the .cu (with `references`, as session_parse_input does) with each checked prelude in
 * turn (prelude_cache.h: prelude_attempt): the first whose parse has no error and names each of
 * its headers becomes the session's prelude, and its unit is returned; NULL when none does.
 */
static CXTranslationUnit parse_with_attempts(clang_session *session,
                                             const cubind_strlist *references, size_t *length) {
  char *proven = session->prelude;
  size_t i;
  for (i = 0; i < session->attempts.count; i++) {
    const prelude_attempt *attempt = &session->attempts.items[i];
    enum CXErrorCode status;
    CXTranslationUnit tu;
    session->prelude = attempt->path;
    if (references && references->count) {
      tu = parse_with_references(session, references, length);
    } else {
      tu = parse(session, "the .cu", &session->args, attempt->path, NULL, 0, 0, &status);
      *length = (size_t)-1;
      if (tu && cx_count_errors(tu) != 0) {
        clang_disposeTranslationUnit(tu);
        tu = NULL;
      }
    }
    if (tu && names_headers(tu, &attempt->headers)) {
      session->prelude = cubind_xstrdup(attempt->path);
      session->prelude_checked = 1;
      free(proven);
      return tu;
    }
    if (cubind_reporting())
      cubind_report("prelude %s not taken: the parse does not show %s read",
                    cubind_basename(attempt->path), attempt->headers.items[0]);
    if (tu)
      clang_disposeTranslationUnit(tu);
    session->first_reference_line = 0;
  }
  session->prelude = proven;
  return NULL;
}

/* session_parse_input: see clang_session.h. */
CXTranslationUnit session_parse_input(clang_session *session, const cubind_strlist *references) {
  enum CXErrorCode status = CXError_Success;
  CXTranslationUnit tu = NULL;
  clock_t started = clock();
  size_t length;
  if (session->attempts.count && (tu = parse_with_attempts(session, references, &length)) != NULL)
    return keep_unit(session, tu, length, started);
  if (references && references->count &&
      (tu = parse_with_references(session, references, &length)) != NULL)
    return keep_unit(session, tu, length, started);
  if (session->prelude) {
    tu = parse(session, "the .cu", &session->args, session->prelude, NULL, 0, 0, &status);
    if (tu && cx_count_errors(tu) == 0)
      return keep_unit(session, tu, (size_t)-1, started);
    if (tu)
      clang_disposeTranslationUnit(tu);
  }
  tu = parse(session, "the .cu", &session->args, NULL, NULL, 0, 0, &status);
  if (session->prelude) {
    /* Only the parse with the prelude failed: the prelude is stale. */
    if (tu && cx_count_errors(tu) == 0)
      prelude_cache_drop(&session->prelude_options, session->prelude);
    free(session->prelude);
    session->prelude = NULL;
  }
  if (!tu) {
    cubind_diag(NULL, 0, 0, "error",
                "libclang could not parse '%s' (error %d): check --cuda-path ('%s') and the "
                "options",
                session->options->input, (int)status, session->options->cuda_path);
    return NULL;
  }
  return keep_unit(session, tu, (size_t)-1, started);
}

/*
 * A main parse slower than this (CPU seconds) makes the texts after it keep their preamble
 * precompiled: measured, it makes the first text ~20% dearer and each later one ~15x cheaper on
 * a .cu whose headers take seconds (CUB, Thrust behind a user header, without a prelude that
 * holds them), and costs ~0.7 s on a light file, where no text is dear.
 */
#define SLOW_MAIN_PARSE_SECONDS 1.0

/*
 * How many times the main parse's time a text waits for the background builder of the whole
 * prelude (plus BUILDER_WAIT_EXTRA seconds): it builds what the main parse parsed, and saves
 * it, started with the main parse. No longer than the text would take without it: on a loaded
 * machine (nvcc beside it in a parallel build) the low-priority builder can starve, and a wait
 * of three times the main parse made a first run take twice --no-cache's time (a helper's
 * CUB file with -DNDEBUG: 8.8-10.3 s against 2.2-4.4 s).
 */
#define BUILDER_WAIT_FACTOR 1.0
#define BUILDER_WAIT_EXTRA 0.25

/*
 * A main parse that lacked part of the prelude and took longer than this (CPU seconds) makes
 * the texts wait for the builder: the builder started with it and has about half of the main
 * parse's time left, while each text parsed without the whole prelude costs a main parse.
 * Measured with --kernels-from and an empty cache: cub_heavy.cu 2.0 s (its texts without the
 * prelude: 3.4 s), implicit.cu 0.27 s (0.30-0.50 s). A quicker main parse lacked only light
 * headers (cuda_fp16.h: 60 ms), whose parse in each text costs less than the builder's wait.
 */
#define TEXT_WAIT_MIN_SECONDS 0.1

/*
 * The prelude for texts at the main __CUDA_ARCH__: the main parse's, unless that lacked some of
 * the prelude and was not quick (TEXT_WAIT_MIN_SECONDS): then the whole prelude, which the
 * background builder is making, once it is there. A checked group the main parse took is kept:
 * the builder makes the whole prelude without it, in the time a parse without it takes.
 */
static const char *text_prelude(clang_session *session) {
  if (!uses_prelude_cache(session) || session->prelude_whole || session->prelude_checked ||
      session->main_seconds <= TEXT_WAIT_MIN_SECONDS)
    return session->prelude;
  if (!session->text_prelude_asked) {
    session->text_prelude_asked = 1;
    session->text_prelude =
        prelude_cache_wait(&session->prelude_options, &session->leading_lines,
                           BUILDER_WAIT_FACTOR * session->main_seconds + BUILDER_WAIT_EXTRA);
  }
  return session->text_prelude ? session->text_prelude : session->prelude;
}

/* session_parse_text: see clang_session.h. */
CXTranslationUnit session_parse_text(clang_session *session, const char *text, size_t length,
                                     unsigned cuda_arch) {
  const char *prelude = cuda_arch ? NULL : text_prelude(session);
  enum CXErrorCode status;
  cubind_strlist args = {0};
  size_t i;
  if (session->text_unit)
    clang_disposeTranslationUnit(session->text_unit);
  session->text_unit = NULL;
  if (!cuda_arch && session->reuse_unit) {
    /* the .cu's text, then other lines: the same preamble, so only what follows is parsed */
    struct CXUnsavedFile unsaved;
    unsaved.Filename = session->options->input;
    unsaved.Contents = text;
    unsaved.Length = (unsigned long)length;
    if (clang_reparseTranslationUnit(session->reuse_unit, 1, &unsaved,
                                     clang_defaultReparseOptions(session->reuse_unit)) == 0)
      return session->reuse_unit;
    clang_disposeTranslationUnit(session->reuse_unit); /* invalid after a failed reparse */
    session->reuse_unit = NULL;
    return NULL;
  }
  if (!cuda_arch) {
    unsigned flags = session->main_seconds > SLOW_MAIN_PARSE_SECONDS && !session->text_prelude
                         ? CXTranslationUnit_PrecompiledPreamble |
                               CXTranslationUnit_CreatePreambleOnFirstParse
                         : 0;
    CXTranslationUnit tu =
        parse(session, "a text", &session->args, prelude, text, length, flags, &status);
    if (!tu && prelude) /* a prelude clang refuses to load: the text without it */
      tu = parse(session, "a text", &session->args, NULL, text, length, flags, &status);
    if (flags)
      return session->reuse_unit = tu;
    return session->text_unit = tu;
  }
  /* Another __CUDA_ARCH__: without the prelude, which was built for the main parse's value. */
  for (i = 0; i < session->args.count; i++) {
    if (strncmp(session->args.items[i], "-D__CUDA_ARCH__=", 16) == 0)
      add_arch_macros(&args, session->options->binary, cuda_arch / 10);
    else if (!is_arch_macro(session->args.items[i]))
      cubind_strlist_add(&args, session->args.items[i]);
  }
  session->text_unit = parse(session, "a text for another __CUDA_ARCH__", &args, NULL, text,
                             length, 0, &status);
  cubind_strlist_free(&args);
  return session->text_unit;
}

/* ---- Diagnostics and included files ----------------------------------------------------- */

/* Prints one clang diagnostic as "file:line:col: <kind>: message". */
static void print_diagnostic(CXDiagnostic diag, const char *kind) {
  CXFile file;
  unsigned line, column, offset;
  char *message = cx_string(clang_getDiagnosticSpelling(diag));
  clang_getExpansionLocation(clang_getDiagnosticLocation(diag), &file, &line, &column, &offset);
  if (file) {
    char *name = cx_string(clang_getFileName(file));
    cubind_diag(name, line, column, kind, "%s", message);
    free(name);
  } else {
    cubind_diag(NULL, 0, 0, kind, "%s", message);
  }
  free(message);
}

/* session_report_errors: see clang_session.h. */
unsigned session_report_errors(const clang_session *session) {
  unsigned i, count = clang_getNumDiagnostics(session->unit), errors = 0;
  for (i = 0; i < count; i++) {
    CXDiagnostic diag = clang_getDiagnostic(session->unit, i);
    if (clang_getDiagnosticSeverity(diag) >= CXDiagnostic_Error &&
        !clang_Location_isInSystemHeader(clang_getDiagnosticLocation(diag)) &&
        !on_reference_line(session, diag)) {
      CXDiagnosticSet notes = clang_getChildDiagnostics(diag);
      unsigned n, num_notes = notes ? clang_getNumDiagnosticsInSet(notes) : 0;
      print_diagnostic(diag, "error");
      errors++;
      for (n = 0; n < num_notes; n++) {
        CXDiagnostic note = clang_getDiagnosticInSet(notes, n);
        if (!clang_Location_isInSystemHeader(clang_getDiagnosticLocation(note)))
          print_diagnostic(note, "note");
        clang_disposeDiagnostic(note);
      }
    }
    clang_disposeDiagnostic(diag);
  }
  return errors;
}

typedef struct include_visit {
  CXTranslationUnit tu;
  cubind_strlist *deps;
  const char *prelude; /* the prelude's .pch, whose own main file (<name>.cu) is no input */
  const char *shim_dir; /* cubind-gen's own headers (NVCC_VIEW_SHIM, -include'd by path: not a
                           system header to clang), no input either */
} include_visit;

/* 1 when `name` is the main file of the prelude `prelude` (its basename, .cu for .pch). */
static int is_prelude_source(const char *name, const char *prelude) {
  const char *base = cubind_basename(name), *pch = cubind_basename(prelude);
  size_t length = strlen(base);
  return length > 3 && strlen(pch) == length + 1 && strncmp(base, pch, length - 3) == 0 &&
         strcmp(base + length - 3, ".cu") == 0;
}

static void visit_inclusion(CXFile file, CXSourceLocation *stack, unsigned depth,
                            CXClientData data) {
  include_visit *visit = data;
  char *name;
  /* the main file (listed first by the caller), or a file a system header includes: a system
     header too, known without asking for a location in it, which makes clang read the file
     (measured: 4 s over the thousands of headers behind <cub/cub.cuh>) */
  if (depth == 0 || clang_Location_isInSystemHeader(stack[0]))
    return;
  if (clang_Location_isInSystemHeader(clang_getLocationForOffset(visit->tu, file, 0)))
    return;
  name = cx_string(clang_getFileName(file));
  if ((visit->prelude && is_prelude_source(name, visit->prelude)) ||
      (visit->shim_dir && strncmp(name, visit->shim_dir, strlen(visit->shim_dir)) == 0 &&
       name[strlen(visit->shim_dir)] == '/')) {
    free(name);
    return;
  }
  if (!cubind_strlist_contains(visit->deps, name))
    cubind_strlist_add(visit->deps, name);
  free(name);
}

/* session_add_unit_inclusions: see clang_session.h. */
void session_add_unit_inclusions(CXTranslationUnit unit, const char *prelude,
                                 const char *shim_dir, cubind_strlist *deps) {
  include_visit visit;
  visit.tu = unit;
  visit.deps = deps;
  visit.prelude = prelude;
  visit.shim_dir = shim_dir;
  clang_getInclusions(unit, visit_inclusion, &visit);
}

/* session_add_inclusions: see clang_session.h. */
void session_add_inclusions(const clang_session *session, cubind_strlist *deps) {
  if (session->unit)
    session_add_unit_inclusions(session->unit, session->prelude, session->shim_dir, deps);
}
