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
#include "util.h"

typedef struct clang_session {
  const cubind_parse_options *options;
  CXIndex index;
  cubind_strlist args;  /* clang's arguments for the main parse (without the prelude) */
  char *prelude;        /* the precompiled prelude in use, or NULL */
  char *shim_dir;       /* headers CUDA 13 removed that clang's CUDA wrapper includes */
  int shim_temporary;   /* shim_dir is a temporary directory (removed on close) */
  int major;            /* libclang's major version */
  /* The main unit, the session's. With a binary to resolve, it keeps the .cu's preamble (its
     leading #includes: CUB, Thrust...) precompiled, and the texts parsed at the main
     __CUDA_ARCH__ reparse it: a CUB-heavy .cu is then parsed in full once, not 2-3 times. */
  CXTranslationUnit unit;
  int unit_reusable;    /* `unit` was made with a preamble, to be reparsed */
  CXTranslationUnit text_unit; /* the last text parsed without reparsing (the session's) */
  char *main_text;      /* the .cu as the main parse read it */
  size_t main_length;
} clang_session;

/*
 * session_open: prepares a session for options->input. Returns 0, or 1 after reporting why
 * (no temporary directory could be made).
 */
int session_open(clang_session *session, const cubind_parse_options *options);

/* session_close: frees the session and removes a temporary shim directory. */
void session_close(clang_session *session);

/*
 * session_parse_input: parses the .cu, with the cached prelude when there is one. A parse with
 * the prelude that reports any error is redone without it, so that what the user sees never
 * depends on the cache. Returns the translation unit (the session's: valid until the first
 * session_parse_text at the main __CUDA_ARCH__, which may reparse it), or NULL after reporting
 * why. session->main_text then holds the .cu's text.
 */
CXTranslationUnit session_parse_input(clang_session *session);

/*
 * session_parse_text: parses `text` as if it were the .cu (same path, so that its relative
 * includes resolve and its declarations count as the .cu's), with __CUDA_ARCH__ set to
 * `cuda_arch` (750 for sm_75; 0: the main parse's). `text` must begin with the .cu's text
 * (session->main_text): only then is reparsing the main unit the same parse. Returns the
 * translation unit (the session's, valid until the next session_parse_text) or NULL.
 */
CXTranslationUnit session_parse_text(clang_session *session, const char *text, size_t length,
                                     unsigned cuda_arch);

/*
 * session_report_errors: prints clang's errors located in the user's files as
 * "file:line:col: error: ...", each with its notes outside system headers; returns how many.
 */
unsigned session_report_errors(CXTranslationUnit tu);

/*
 * session_add_inclusions: adds every non-system file the main unit read (the main file and the
 * prelude excluded).
 */
void session_add_inclusions(const clang_session *session, cubind_strlist *deps);

/* session_libclang_major: the major version of the libclang we run against. */
int session_libclang_major(void);

#endif /* CUBIND_GEN_CLANG_SESSION_H */
