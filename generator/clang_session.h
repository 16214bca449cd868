/*
 * clang_session.h: everything between cubind-gen and libclang's parser: clang's command line
 * for a CUDA device-side parse (docs/libclang.md), the shim headers CUDA 13 needs, the
 * precompiled prelude cache, parsing the .cu (and wrapper texts in its place), clang's
 * diagnostics, and the files a parse read.
 */
#ifndef CUBIND_GEN_CLANG_SESSION_H
#define CUBIND_GEN_CLANG_SESSION_H

#include <clang-c/Index.h>

#include "parse.h"
#include "prelude_cache.h"
#include "util.h"

typedef struct clang_session {
  const cubind_parse_options *options;
  CXIndex index;
  cubind_strlist args;  /* clang's arguments for the main parse (without the prelude) */
  prelude_options prelude_options; /* args as the prelude cache sees them */
  char *prelude;        /* the precompiled prelude of the main parse, or NULL */
  int prelude_whole;    /* it holds all of leading_lines */
  prelude_attempts attempts; /* checked preludes to try before it (prelude_cache.h) */
  int prelude_checked;  /* the main parse took one of them: the texts take it too */
  cubind_strlist leading_lines; /* the .cu's leading lines a prelude can hold (with a cache) */
  char *text_prelude;   /* the whole prelude, built meanwhile, for the texts (or NULL) */
  int text_prelude_asked; /* text_prelude was waited for */
  char *shim_dir;       /* headers CUDA 13 removed that clang's CUDA wrapper includes */
  int shim_temporary;   /* shim_dir is a temporary directory (removed on close) */
  int major;            /* libclang's major version */
  CXTranslationUnit unit;       /* the main parse's unit (the session's) */
  double main_seconds;          /* the CPU time it took */
  char *main_text;              /* the .cu as it read it */
  size_t main_length;
  unsigned first_reference_line; /* the line of cubind_ref_0 when the main unit also holds the
                                    reference lines it was given (session_parse_input), else 0 */
  size_t num_reference_lines;    /* how many */
  CXTranslationUnit text_unit;  /* the last text parsed afresh (the session's) */
  CXTranslationUnit reuse_unit; /* after a slow main parse: the text unit whose preamble (the
                                   .cu's leading #includes) stays precompiled, reparsed for
                                   each later text at the main __CUDA_ARCH__ */
} clang_session;

/*
 * session_open: prepares a session for options->input. Returns 0, or 1 after reporting why
 * (no temporary directory could be made).
 */
int session_open(clang_session *session, const cubind_parse_options *options);

/* session_close: frees the session and removes a temporary shim directory. */
void session_close(clang_session *session);

/*
 * session_wait_prelude: waits (a bounded time) for the builder to make the whole prelude of the
 * .cu's leading lines, when the cache lacks it (cubind_prepare).
 */
void session_wait_prelude(clang_session *session);

/*
 * session_parse_input: parses the .cu, with the cached prelude when there is one. A parse with
 * the prelude that reports any error is redone without it, so that what the user sees never
 * depends on the cache. Returns the translation unit (the session's, valid until
 * session_close), or NULL after reporting why. session->main_text then holds the .cu's text.
 * `references` (or NULL): wrapper lines (parse_wrapper.h) the parse appends to the .cu's text,
 * so that one parse also resolves them; it keeps them (session->first_reference_line) only when
 * clang reports no error off those lines, and otherwise parses the .cu alone.
 */
CXTranslationUnit session_parse_input(clang_session *session, const cubind_strlist *references);

/*
 * session_parse_text: parses `text` as if it were the .cu (same path, so that its relative
 * includes resolve and its declarations count as the .cu's), with __CUDA_ARCH__ set to
 * `cuda_arch` (750 for sm_75; 0: the main parse's). `text` must begin with the .cu's text
 * (session->main_text), so that its preamble is the .cu's. Returns the translation unit (the
 * session's, valid until the next session_parse_text) or NULL.
 */
CXTranslationUnit session_parse_text(clang_session *session, const char *text, size_t length,
                                     unsigned cuda_arch);

/*
 * session_reference_text: appends to `text` the .cu's text (`size` bytes of `source`) followed
 * by `lines`, one per line, and a line of its own that ends the text; returns the line the
 * first of `lines` is on.
 */
unsigned session_reference_text(const char *source, size_t size, const cubind_strlist *lines,
                                cubind_buf *text);

/*
 * session_report_errors: prints the main unit's errors located in the user's files as
 * "file:line:col: error: ...", each with its notes outside system headers; returns how many.
 * Errors on the reference lines it holds are theirs (parse_wrapper.c reads them).
 */
unsigned session_report_errors(const clang_session *session);

/*
 * session_add_inclusions: adds every non-system file the main unit read (the main file and the
 * prelude excluded).
 */
void session_add_inclusions(const clang_session *session, cubind_strlist *deps);

/*
 * session_add_unit_inclusions: adds to `deps` every non-system file `unit` read but its main
 * file, the source of the prelude `prelude` and cubind-gen's shim headers in `shim_dir`
 * (either NULL: none); parse_c_check.c's C unit too.
 */
void session_add_unit_inclusions(CXTranslationUnit unit, const char *prelude,
                                 const char *shim_dir, cubind_strlist *deps);

/* session_libclang_major: the major version of the libclang we run against. */
int session_libclang_major(void);

#endif /* CUBIND_GEN_CLANG_SESSION_H */
