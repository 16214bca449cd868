/*
 * clang_util.h: the thin layer over libclang's C API that the rest of the parse uses: owned
 * strings, locations, where a declaration lies, names, doc comments and type sugar. No state,
 * no model: every function answers one question about a cursor or a type.
 *
 * The parse layer, top-down (a file uses only the files below it):
 *
 *   parse.c          the entry point: one parse of a .cu -> facts in the model
 *   parse_wrapper.c  kernels reached through a wrapper translation unit (explicit
 *                    instantiations, the kernels of nvcc's binary)
 *   parse_decls.c    kernels, parameters, templates and variables of the .cu
 *   parse_templates.c  specialisations: C names from template arguments, template constants
 *   parse_structs.c  structs and unions taken by value
 *   parse_types.c    C++ types -> C spellings
 *   clang_session.c  clang's command line, the precompiled prelude, parsing, diagnostics
 *   clang_util.c     this file
 */
#ifndef CUBIND_GEN_CLANG_UTIL_H
#define CUBIND_GEN_CLANG_UTIL_H

#include <clang-c/Index.h>

#include "model.h"

/*
 * The libclang flags of every parse, the prelude's own build included (which adds
 * CXTranslationUnit_ForSerialization): a PCH records -detailed-preprocessing-record, and
 * clang refuses in C++20 mode one built without it under a command line that has it.
 * SkipFunctionBodies: the generator needs declarations only (docs/libclang.md); the
 * preprocessing record gives the blocks the preprocessor skipped (#if 0), where the tokens of
 * explicit instantiations are not code (measured: no slower on CUB-heavy files, and the
 * same PCH size).
 */
#define CX_PARSE_FLAGS                                                                       \
  (CXTranslationUnit_SkipFunctionBodies | CXTranslationUnit_KeepGoing |                      \
   CXTranslationUnit_DetailedPreprocessingRecord)

/* cx_string: copies a CXString into a new C string and disposes it. */
char *cx_string(CXString text);

/* cx_spelling: the cursor's spelling ("scale", "n"), a new string. */
char *cx_spelling(CXCursor cursor);

/* cx_type_spelling: the C++ spelling of a type, a new string. */
char *cx_type_spelling(CXType type);

/* cx_usr: the cursor's unified symbol resolution (stable across redeclarations), a new string. */
char *cx_usr(CXCursor cursor);

/*
 * cx_location: where the cursor is, as the user would look for it (macro uses at their
 * expansion); location->file is a new string (`fallback` when clang knows no file).
 */
void cx_location(CXCursor cursor, const char *fallback, cubind_location *location);

/* cx_file_real_path: the real path of the file the cursor lies in (expansion location), a new
   string, or NULL when it has none. */
char *cx_file_real_path(CXCursor cursor);

/* cx_file_name: the name of the file the cursor lies in, as clang spells it, or NULL. */
char *cx_file_name(CXCursor cursor);

/* cx_in_system_header: 1 when the cursor lies in a system header. */
int cx_in_system_header(CXCursor cursor);

/*
 * cx_at_file_scope: 1 when the declaration is at the global scope, where C can name it: its
 * semantic parent is the translation unit, or extern "C" / "C++" blocks directly in it
 * (CXCursor_LinkageSpec, which libclang before 15 reports as an UnexposedDecl: C headers wrap
 * their declarations in extern "C" for C++).
 */
int cx_at_file_scope(CXCursor decl);

/* cx_is_global: 1 when the function (or function template) cursor carries __global__. */
int cx_is_global(CXCursor cursor);

/*
 * cx_is_instantiation: 1 when the function cursor is an instantiation of a function template,
 * explicit or implicit: clang gives it its pattern's location (an explicit specialisation has
 * its own).
 */
int cx_is_instantiation(CXCursor function);

/*
 * cx_qualified_name: "ns::inner::name", for messages and for naming the declaration from the
 * global scope; *anonymous is set when an anonymous namespace encloses it.
 */
char *cx_qualified_name(CXCursor cursor, int *anonymous);

/* cx_linkage: what matters of the declaration's linkage for calling it from C. */
cubind_linkage cx_linkage(CXCursor cursor);

/*
 * cx_doc_comment: the doc comment as written, continuation lines re-indented to column 0
 * (" * text"), so it reads well in the generated header whatever the kernel's indentation was;
 * NULL when there is none. *line gets the comment's first line (0 when none).
 */
char *cx_doc_comment(CXCursor cursor, unsigned *line);

/* cx_main_file_line: the line of the main file a diagnostic is on; 0 when it is elsewhere. */
unsigned cx_main_file_line(CXDiagnostic diag);

/* cx_count_errors: the number of error diagnostics of a translation unit, wherever they are. */
unsigned cx_count_errors(CXTranslationUnit tu);

/* cx_strip_elaborated: libclang 16+ wraps most named types in an Elaborated node; 14 does not. */
CXType cx_strip_elaborated(CXType type);

/*
 * cx_strip_sugar: unwraps typedefs and Elaborated nodes down to a type that is not sugar. Types
 * libclang does not expose (a substituted template parameter: T = float * in a specialisation)
 * become their canonical type.
 */
CXType cx_strip_sugar(CXType type);

#endif /* CUBIND_GEN_CLANG_UTIL_H */
