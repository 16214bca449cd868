/* parse_wrapper.c: kernels reached through a wrapper parse (see parse_wrapper.h). */
#include "parse_wrapper.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binary.h"
#include "clang_util.h"
#include "fs.h"
#include "instantiation_scan.h"
#include "parse_decls.h"
#include "parse_templates.h"
#include "util.h"

/* ---- The wrapper translation unit --------------------------------------------------------- */

/* A parsed wrapper: what each of its reference lines resolved to. */
typedef struct wrapper {
  CXTranslationUnit tu;
  unsigned first_line; /* the line of its first reference */
  const char *variable; /* the name of its references' variables, before their index */
  size_t count;
  CXCursor *functions; /* [i]: the function reference i names, or a null cursor */
  char **errors;       /* [i]: clang's first error on that line (new string), or NULL */
} wrapper;

static enum CXChildVisitResult find_function_reference(CXCursor cursor, CXCursor parent,
                                                       CXClientData data) {
  CXCursor *found = data;
  (void)parent;
  if (clang_getCursorKind(cursor) == CXCursor_DeclRefExpr) {
    CXCursor referenced = clang_getCursorReferenced(cursor);
    if (clang_getCursorKind(referenced) == CXCursor_FunctionDecl) {
      *found = referenced;
      return CXChildVisit_Break;
    }
  }
  return CXChildVisit_Recurse;
}

/* The line a cursor starts on in the main file. */
static unsigned cursor_line(CXCursor cursor) {
  CXFile file;
  unsigned line, column, offset;
  clang_getExpansionLocation(clang_getCursorLocation(cursor), &file, &line, &column, &offset);
  return line;
}

static enum CXChildVisitResult visit_wrapper(CXCursor cursor, CXCursor parent,
                                             CXClientData data) {
  wrapper *w = data;
  (void)parent;
  if (!clang_Location_isFromMainFile(clang_getCursorLocation(cursor)) ||
      cursor_line(cursor) < w->first_line)
    return CXChildVisit_Continue;
  if (clang_getCursorKind(cursor) == CXCursor_Namespace) {
    clang_visitChildren(cursor, visit_wrapper, data);
  } else if (clang_getCursorKind(cursor) == CXCursor_VarDecl) {
    char *name = cx_spelling(cursor);
    size_t prefix = strlen(w->variable);
    char *end;
    unsigned long index;
    if (strncmp(name, w->variable, prefix) == 0 && isdigit((unsigned char)name[prefix]) &&
        (index = strtoul(name + prefix, &end, 10), !*end) && index < w->count)
      clang_visitChildren(cursor, find_function_reference, &w->functions[index]);
    free(name);
  }
  return CXChildVisit_Continue;
}

/*
 * Reads what the `count` reference lines of `tu` from `first_line` on, which declare
 * `variable`<i>, resolved to: the function each names, clang's first error on each. w->tu is
 * `tu` (not w's to dispose).
 */
static void wrapper_read(CXTranslationUnit tu, unsigned first_line, size_t count,
                         const char *variable, wrapper *w) {
  unsigned d, num_diags = tu ? clang_getNumDiagnostics(tu) : 0;
  size_t i;
  memset(w, 0, sizeof *w);
  w->tu = tu;
  w->first_line = first_line;
  w->variable = variable;
  w->count = count;
  w->functions = cubind_xcalloc(count + 1, sizeof *w->functions);
  w->errors = cubind_xcalloc(count + 1, sizeof *w->errors);
  for (i = 0; i < count; i++)
    w->functions[i] = clang_getNullCursor();
  for (d = 0; d < num_diags; d++) {
    CXDiagnostic diag = clang_getDiagnostic(tu, d);
    unsigned line = cx_main_file_line(diag);
    if (clang_getDiagnosticSeverity(diag) >= CXDiagnostic_Error &&
        line >= first_line && line - first_line < count && !w->errors[line - first_line])
      w->errors[line - first_line] = cx_string(clang_getDiagnosticSpelling(diag));
    clang_disposeDiagnostic(diag);
  }
  if (tu)
    clang_visitChildren(clang_getTranslationUnitCursor(tu), visit_wrapper, w);
}

/*
 * Parses the .cu's text (as the main parse read it) followed by `lines` (line i declares
 * `variable`<i>), with __CUDA_ARCH__ = cuda_arch (0: the main parse's), and reads it into *w;
 * w->tu is NULL when clang could not parse it at all.
 */
static void wrapper_parse(clang_session *session, const cubind_strlist *lines,
                          unsigned cuda_arch, const char *variable, wrapper *w) {
  cubind_buf text = {0};
  unsigned first_line = 0;
  CXTranslationUnit tu = NULL;
  if (session->main_text) {
    first_line = session_reference_text(session->main_text, session->main_length, lines, &text);
    tu = session_parse_text(session, text.data, text.length, cuda_arch);
    cubind_buf_free(&text);
  }
  wrapper_read(tu, tu ? first_line : 0, lines->count, variable, w);
}

static void wrapper_free(wrapper *w) {
  size_t i;
  for (i = 0; i < w->count; i++)
    free(w->errors[i]);
  free(w->errors);
  free(w->functions);
  memset(w, 0, sizeof *w); /* w->tu is the session's */
}

/*
 * Records the specialisation `function` as a kernel (unless it is one already): its C name made
 * from its template arguments, its display name `display`, its template constants substituted
 * in count expressions. Returns it, or NULL when it was recorded before.
 */
static cubind_kernel *add_specialization(parse_context *ctx, CXCursor function,
                                         cubind_kernel_origin origin, const char *args,
                                         const char *display) {
  cubind_kernel *kernel;
  if (parse_find_kernel(ctx, function) >= 0)
    return NULL;
  kernel = cubind_model_add_kernel(ctx->model);
  parse_kernel(ctx, function, kernel);
  kernel->origin = origin;
  if (!clang_Cursor_isNull(clang_getSpecializedCursorTemplate(function))) {
    parse_substitute_template_constants(function, kernel);
    free(kernel->c_name);
    kernel->c_name = parse_specialization_c_name(function, args);
  }
  free(kernel->display_name);
  kernel->display_name = cubind_xstrdup(display);
  return kernel;
}

/* ---- 1. Explicit instantiations ---------------------------------------------------------- */

/* The variable of instantiation reference lines: cubind_inst_<i>. */
#define INSTANTIATION_VARIABLE "cubind_inst_"

/* A namespace as a qualified name spells it: "(anonymous namespace)" for "". */
static const char *spelled_namespace(const char *name) {
  return name[0] ? name : "(anonymous namespace)";
}

/*
 * 1 when the qualified name `qualified` ("ns::v1::scale") ends in `written` ("v1 :: scale",
 * tokens joined by spaces): the same name in the same scopes, or in scopes enclosing them.
 */
static int ends_with_scope(const char *qualified, const char *written) {
  cubind_buf bare = {0};
  const char *at;
  size_t q, w;
  int global = strncmp(written, "::", 2) == 0, result;
  cubind_buf_puts(&bare, "");
  for (at = global ? written + 2 : written; *at; at++)
    if (*at != ' ')
      cubind_buf_append(&bare, at, 1);
  q = strlen(qualified);
  w = bare.length;
  result = w <= q && strcmp(qualified + q - w, bare.data) == 0 &&
           (global ? w == q : w == q || (q - w >= 2 && qualified[q - w - 1] == ':'));
  cubind_buf_free(&bare);
  return result;
}

/* 1 when `offset` lies in a block the preprocessor skipped (#if 0, an undefined #ifdef). */
static int in_skipped_range(CXSourceRangeList *skipped, size_t offset) {
  unsigned i;
  for (i = 0; skipped && i < skipped->count; i++) {
    CXFile file;
    unsigned line, column, begin, end;
    clang_getSpellingLocation(clang_getRangeStart(skipped->ranges[i]), &file, &line, &column,
                              &begin);
    clang_getSpellingLocation(clang_getRangeEnd(skipped->ranges[i]), &file, &line, &column,
                              &end);
    if (offset >= begin && offset <= end)
      return 1;
  }
  return 0;
}

/* 1 when a template kernel of the model is named `name`. */
static int names_template(const cubind_model *model, const char *name) {
  size_t t;
  for (t = 0; t < model->num_templates; t++)
    if (strcmp(model->templates[t].name, name) == 0)
      return 1;
  return 0;
}

/* The template kernel of the model whose USR is `usr`, as an index; -1 when none is. */
static long template_by_usr(const cubind_model *model, const char *usr) {
  size_t t;
  for (t = 0; usr && t < model->num_templates; t++)
    if (strcmp(model->templates[t].usr, usr) == 0)
      return (long)t;
  return -1;
}

/* What instantiated_template finds besides one template kernel of the model. */
#define NO_TEMPLATE (-1)
#define AMBIGUOUS_TEMPLATE (-2)
/* An instantiation retried with its name as written: clang's resolution tells the template. */
#define TEMPLATE_AS_WRITTEN (-3)

/*
 * The template kernel of the model an explicit instantiation written in the namespaces `scope`
 * names, as C++ looks the name up: in `scope`, then in each enclosing namespace (the innermost
 * that has one wins); else one whose name merely ends in the written one (an inline namespace
 * between). An index into model->templates; NO_TEMPLATE, or AMBIGUOUS_TEMPLATE when several
 * match (recorded as a finding).
 */
static long instantiated_template(parse_context *ctx, const written_instantiation *inst,
                                  const cubind_strlist *scope) {
  const cubind_model *model = ctx->model;
  const size_t levels = inst->global ? 1 : scope->count + 1; /* scopes to look in */
  size_t t, k, matches = 0, match = 0;
  for (k = 0; k < levels && !matches; k++) {
    const size_t depth = inst->global ? 0 : scope->count - k; /* the innermost first */
    cubind_buf qualified = {0};
    size_t i;
    cubind_buf_puts(&qualified, "");
    for (i = 0; i < depth; i++)
      cubind_buf_printf(&qualified, "%s::", spelled_namespace(scope->items[i]));
    for (i = 0; i < inst->qualifiers.count; i++)
      cubind_buf_printf(&qualified, "%s::", inst->qualifiers.items[i]);
    cubind_buf_puts(&qualified, inst->name);
    for (t = 0; t < model->num_templates; t++)
      if (strcmp(model->templates[t].qualified, qualified.data) == 0) {
        match = t;
        matches++;
      }
    cubind_buf_free(&qualified);
  }
  for (t = 0; !matches && t < model->num_templates; t++)
    if (strcmp(model->templates[t].name, inst->name) == 0 &&
        ends_with_scope(model->templates[t].qualified, inst->written)) {
      match = t;
      matches++;
    }
  if (matches > 1) {
    cubind_location location;
    location.file = cubind_xstrdup(ctx->input);
    location.line = inst->line;
    location.column = inst->column;
    cubind_model_add_finding(ctx->model, CUBIND_FINDING_AMBIGUOUS_INSTANTIATION, inst->name,
                             NULL, &location);
    free(location.file);
  }
  return matches == 1 ? (long)match : matches ? AMBIGUOUS_TEMPLATE : NO_TEMPLATE;
}

/* Visitor state of find_scopes: the instantiations whose namespaces it finds. */
typedef struct scope_search {
  CXFile file;                  /* the .cu */
  const written_instantiation *insts; /* in the order of their offsets */
  size_t count;
  cubind_strlist *scopes;       /* [i]: the namespaces around insts[i] */
} scope_search;

static enum CXChildVisitResult find_scopes(CXCursor cursor, CXCursor parent, CXClientData data) {
  scope_search *search = data;
  enum CXCursorKind kind = clang_getCursorKind(cursor);
  CXSourceRange extent;
  CXFile file;
  unsigned line, column, begin, end;
  size_t low, high, i;
  (void)parent;
  /* an extern "C++" block is a LinkageSpec (libclang < 15: an UnexposedDecl) */
  if (kind != CXCursor_Namespace && kind != CXCursor_LinkageSpec &&
      kind != CXCursor_UnexposedDecl)
    return CXChildVisit_Continue;
  /* where the .cu writes it: a macro's use, for a namespace a macro opens */
  extent = clang_getCursorExtent(cursor);
  clang_getExpansionLocation(clang_getRangeStart(extent), &file, &line, &column, &begin);
  if (!file || !clang_File_isEqual(file, search->file) ||
      begin > search->insts[search->count - 1].offset)
    return CXChildVisit_Continue;
  clang_getExpansionLocation(clang_getRangeEnd(extent), &file, &line, &column, &end);
  /* the instantiations inside it: the first at or after `begin` (a binary search), on */
  for (low = 0, high = search->count; low < high;) {
    size_t middle = low + (high - low) / 2;
    if (search->insts[middle].offset < begin)
      low = middle + 1;
    else
      high = middle;
  }
  if (low == search->count || search->insts[low].offset >= end)
    return CXChildVisit_Continue;
  if (kind == CXCursor_Namespace) {
    char *name = cx_spelling(cursor);
    for (i = low; i < search->count && search->insts[i].offset < end; i++)
      cubind_strlist_add(&search->scopes[i], name);
    free(name);
  }
  clang_visitChildren(cursor, find_scopes, data);
  return CXChildVisit_Continue;
}

/*
 * The namespaces around each of `count` instantiations of the .cu as clang parsed it (macros
 * that open them, blocks under #if, included), outermost first, "" for an anonymous one, in
 * one walk of the unit: scopes[i] for insts[i], whose offsets increase.
 */
static void namespaces_around(CXTranslationUnit tu, CXFile file,
                              const written_instantiation *insts, size_t count,
                              cubind_strlist *scopes) {
  scope_search search;
  search.file = file;
  search.insts = insts;
  search.count = count;
  search.scopes = scopes;
  if (count)
    clang_visitChildren(clang_getTranslationUnitCursor(tu), find_scopes, &search);
}

/*
 * Records the specialisation `function` of the model's template `template_index` that an
 * explicit instantiation names, or, when it is none (`error`, or another function), a finding
 * saying why.
 */
static void record_instantiation(parse_context *ctx, const written_instantiation *inst,
                                 long template_index, CXCursor function, const char *error) {
  const cubind_template *pattern = &ctx->model->templates[template_index];
  cubind_location location;
  char *usr = clang_Cursor_isNull(function)
                  ? NULL
                  : cx_usr(clang_getSpecializedCursorTemplate(function));
  location.file = cubind_xstrdup(ctx->input);
  location.line = inst->line;
  location.column = inst->column;
  /* one that does not resolve to a specialisation of the template, in clang's eyes too, is
     reported, never turned into wrong code */
  if (error || !usr || !cx_is_global(function) || strcmp(usr, pattern->usr) != 0) {
    cubind_model_add_finding(ctx->model, CUBIND_FINDING_UNRESOLVED_INSTANTIATION, pattern->name,
                             error, &location);
    free(location.file);
  } else {
    char *display = cubind_xasprintf("%s%s", pattern->qualified, inst->args);
    cubind_kernel *kernel =
        add_specialization(ctx, function, CUBIND_ORIGIN_INSTANTIATION, inst->args, display);
    if (kernel) { /* errors about this kernel point at its instantiation */
      free(kernel->location.file);
      kernel->location = location;
    } else {
      free(location.file);
    }
    free(display);
  }
  free(usr);
}

/*
 * The namespaces of the model's template `pattern` ("ns::(anonymous namespace)::k": ns, ""),
 * for a line that names it from inside them.
 */
static void template_namespaces(const cubind_template *pattern, cubind_strlist *namespaces) {
  const char *at = pattern->qualified, *next;
  while ((next = strstr(at, "::")) != NULL) {
    char *name = cubind_xstrndup(at, (size_t)(next - at));
    cubind_strlist_add(namespaces, strcmp(name, "(anonymous namespace)") == 0 ? "" : name);
    free(name);
    at = next + 2;
  }
}

/*
 * Records what clang resolved `function` to for an instantiation, when its template is a
 * template kernel of the .cu's; another template (a host function's) is not ours.
 */
static void record_resolved(parse_context *ctx, const written_instantiation *inst,
                            CXCursor function) {
  char *usr = cx_usr(clang_getSpecializedCursorTemplate(function));
  long found = template_by_usr(ctx->model, usr);
  if (found >= 0)
    record_instantiation(ctx, inst, found, function, NULL);
  free(usr);
}

/*
 * 1 when the main parse resolved line `j` of its own, the line of `inst`, written in the
 * namespaces clang saw around it (`scope`): then what clang resolved it to is recorded.
 */
static int resolved_in_main(parse_context *ctx, const wrapper *in_main, size_t j,
                            const written_instantiation *inst, const cubind_strlist *scope) {
  cubind_strlist namespaces = {0};
  char *variable, *line;
  int same;
  if (!in_main->tu || j >= ctx->num_instantiation_lines ||
      ctx->instantiation_offsets[j] != inst->offset || in_main->errors[j] ||
      clang_Cursor_isNull(in_main->functions[j]))
    return 0;
  variable = cubind_xasprintf(INSTANTIATION_VARIABLE "%u", (unsigned)j);
  scan_template_namespaces(scope, inst, &namespaces);
  line = scan_reference_line(variable, &namespaces, inst->name, inst);
  same = strcmp(line, ctx->instantiation_lines.items[j]) == 0;
  if (same)
    record_resolved(ctx, inst, in_main->functions[j]);
  free(line);
  free(variable);
  cubind_strlist_free(&namespaces);
  return same;
}

/*
 * The line that resolves `inst` in a parse of its own, as `variable`, written in `scope` (the
 * namespaces clang saw around it), or NULL when it needs none; *pattern gets the template
 * kernel it names (TEMPLATE_AS_WRITTEN: clang's resolution will tell). One that names a macro
 * the .cu changes after it gets a finding instead.
 */
static char *retry_line(parse_context *ctx, const written_instantiation *inst,
                        const cubind_strlist *scope, const char *variable, long *pattern) {
  cubind_strlist namespaces = {0};
  const char *name = inst->name;
  char *line;
  size_t i;
  *pattern = instantiated_template(ctx, inst, scope);
  if (inst->redefined_macro) { /* a line after the .cu's text would read another text */
    if (*pattern >= 0) {
      char *why = cubind_xasprintf("it names '%s', which a #define or #undef after it "
                                   "changes; %s",
                                   inst->redefined_macro,
                                   ctx->options->binary
                                       ? "the kernel is bound from nvcc's binary, if it is there"
                                       : "nvcc's binary names its kernel (--kernels-from)");
      record_instantiation(ctx, inst, *pattern, clang_getNullCursor(), why);
      free(why);
    }
    *pattern = NO_TEMPLATE;
    return NULL;
  }
  if (*pattern >= 0) {
    template_namespaces(&ctx->model->templates[*pattern], &namespaces);
  } else if (*pattern == NO_TEMPLATE && inst->qualifiers.count &&
             names_template(ctx->model, inst->name)) {
    /* its qualifier names no namespace the model knows (an alias: `md::k<int>`): the name as
       written, where clang saw it written */
    *pattern = TEMPLATE_AS_WRITTEN;
    name = inst->written;
    for (i = 0; i < scope->count; i++)
      cubind_strlist_add(&namespaces, scope->items[i]);
  } else {
    return NULL;
  }
  line = scan_reference_line(variable, &namespaces, name, inst);
  cubind_strlist_free(&namespaces);
  return line;
}

/* parse_instantiations: see parse_wrapper.h. */
void parse_instantiations(parse_context *ctx, clang_session *session, CXTranslationUnit tu) {
  CXFile file = clang_getFile(tu, ctx->input);
  CXSourceRangeList *skipped;
  written_instantiation *insts;
  cubind_strlist *scopes, retried = {0}; /* the lines of those the main parse did not resolve */
  long *pattern;
  size_t *retried_as, count, i, j = 0;
  wrapper in_main, again;
  if (!file || !ctx->model->num_templates || !session->main_text)
    return;
  /* the text as clang parsed it: offsets are clang's */
  count = scan_instantiations(session->main_text, session->main_length, &insts);
  if (!count)
    return;
  skipped = clang_getSkippedRanges(tu, file);
  scopes = cubind_xcalloc(count, sizeof *scopes);
  pattern = cubind_xcalloc(count, sizeof *pattern);
  retried_as = cubind_xcalloc(count, sizeof *retried_as);
  namespaces_around(tu, file, insts, count, scopes);
  memset(&in_main, 0, sizeof in_main);
  memset(&again, 0, sizeof again);
  if (session->first_reference_line && ctx->num_instantiation_lines)
    wrapper_read(session->unit, session->first_reference_line + (unsigned)ctx->num_binary_lines,
                 ctx->num_instantiation_lines, INSTANTIATION_VARIABLE, &in_main);
  for (i = 0; i < count; i++) {
    char *variable, *line;
    pattern[i] = NO_TEMPLATE;
    if (in_skipped_range(skipped, insts[i].offset))
      continue;
    /* the main parse's line for it: both lists are in the order of their offsets */
    while (j < ctx->num_instantiation_lines && ctx->instantiation_offsets[j] < insts[i].offset)
      j++;
    if (resolved_in_main(ctx, &in_main, j, &insts[i], &scopes[i]))
      continue;
    variable = cubind_xasprintf(INSTANTIATION_VARIABLE "%u", (unsigned)retried.count);
    line = retry_line(ctx, &insts[i], &scopes[i], variable, &pattern[i]);
    if (line) {
      retried_as[i] = retried.count;
      cubind_strlist_add(&retried, line);
    }
    free(line);
    free(variable);
  }
  if (skipped)
    clang_disposeSourceRangeList(skipped);
  if (retried.count) {
    if (cubind_reporting())
      cubind_report("%u explicit instantiations not resolved by the main parse",
                    (unsigned)retried.count);
    wrapper_parse(session, &retried, 0, INSTANTIATION_VARIABLE, &again);
    for (i = 0; i < count; i++) {
      size_t at = retried_as[i];
      if (pattern[i] >= 0)
        record_instantiation(ctx, &insts[i], pattern[i], again.functions[at], again.errors[at]);
      else if (pattern[i] == TEMPLATE_AS_WRITTEN && !again.errors[at] &&
               !clang_Cursor_isNull(again.functions[at]))
        record_resolved(ctx, &insts[i], again.functions[at]);
    }
  }
  wrapper_free(&in_main);
  wrapper_free(&again);
  cubind_strlist_free(&retried);
  for (i = 0; i < count; i++)
    cubind_strlist_free(&scopes[i]);
  free(scopes);
  free(pattern);
  free(retried_as);
  scan_instantiations_free(insts, count);
}

/*
 * The lines for the explicit instantiations the .cu's text writes (read from the file as it is
 * now; parse_instantiations checks each against the text clang parsed), in the namespaces of
 * the template each names, as the text shows them. Kept in ctx for parse_instantiations.
 */
static void instantiation_lines(parse_context *ctx, cubind_strlist *lines) {
  written_instantiation *insts;
  char *source = NULL;
  size_t size = 0, count, i;
  if (cubind_read_file_quiet(ctx->input, CUBIND_MAX_SOURCE_BYTES, &source, &size) != 0)
    return;
  count = scan_instantiations(source, size, &insts);
  ctx->instantiation_offsets = cubind_xcalloc(count + 1, sizeof *ctx->instantiation_offsets);
  for (i = 0; i < count; i++) {
    size_t index = ctx->instantiation_lines.count;
    cubind_strlist namespaces = {0};
    char *variable, *line;
    /* resolved after the parse, in the namespaces clang saw; or not at all */
    if (!insts[i].scope_known || insts[i].redefined_macro)
      continue;
    variable = cubind_xasprintf(INSTANTIATION_VARIABLE "%u", (unsigned)index);
    scan_template_namespaces(&insts[i].scope, &insts[i], &namespaces);
    line = scan_reference_line(variable, &namespaces, insts[i].name, &insts[i]);
    ctx->instantiation_offsets[index] = insts[i].offset;
    cubind_strlist_add(&ctx->instantiation_lines, line);
    cubind_strlist_add(lines, line);
    free(line);
    free(variable);
    cubind_strlist_free(&namespaces);
  }
  ctx->num_instantiation_lines = ctx->instantiation_lines.count;
  scan_instantiations_free(insts, count);
  free(source);
}

/* ---- 2. The kernels of nvcc's binary ---------------------------------------------------- */

/* The variable of the binary's reference lines: cubind_ref_<i>. */
#define BINARY_VARIABLE "cubind_ref_"

/* One kernel of the binary that the source parse did not record. */
typedef struct candidate {
  const cubind_binary_kernel *kernel;
  char *name;     /* C++ name without the parameter list ("ns::reduce<float, 256u>"), or the
                     symbol of an extern "C" kernel */
  char *params;   /* "(float const*, float*, int)"; NULL for an extern "C" kernel */
  char *reason;   /* why it cannot be resolved; NULL while it may be */
  int unresolved; /* the wrapper did not resolve its name (another __CUDA_ARCH__ may) */
  int tried;      /* a wrapper line named it (resolve_candidate) */
  int decayed;    /* its wrapper line drops the '&' of its pointer template arguments: nvcc
                     writes an array's decay as `&tab`, which names a pointer to the array */
  int recorded;   /* it became a kernel of the model */
} candidate;

static int compare_candidates(const void *a, const void *b) {
  const candidate *x = a, *y = b;
  int order = strcmp(x->name, y->name);
  return order ? order : strcmp(x->kernel->symbol, y->kernel->symbol);
}

/*
 * Splits a demangled function name, "void ns::f<float>(float*, int)" (function template
 * specialisations carry their return type), into "ns::f<float>" and "(float*, int)".
 * Returns 0 when the text has another shape.
 */
static int split_demangled(const char *demangled, char **name, char **params) {
  size_t length = strlen(demangled), open;
  int depth = 0;
  const char *start = demangled;
  if (!length || demangled[length - 1] != ')')
    return 0;
  for (open = length; open-- > 0;) {
    if (demangled[open] == ')')
      depth++;
    else if (demangled[open] == '(' && --depth == 0)
      break;
  }
  if (depth != 0 || open == (size_t)-1 || open == 0)
    return 0;
  if (strncmp(start, "void ", 5) == 0)
    start += 5;
  if (demangled + open <= start)
    return 0;
  *name = cubind_xstrndup(start, (size_t)(demangled + open - start));
  *params = cubind_xstrdup(demangled + open);
  return 1;
}

/* 1 when `text` reads back as the float (`is_float`) or double whose bits are `bits`. */
static int reads_back(const char *text, unsigned long long bits, int is_float) {
  if (is_float) {
    float back = strtof(text, NULL);
    unsigned int word;
    memcpy(&word, &back, sizeof word);
    return word == (unsigned int)bits;
  } else {
    double back = strtod(text, NULL);
    unsigned long long word;
    memcpy(&word, &back, sizeof word);
    return word == bits;
  }
}

/*
 * Reads a floating-point template argument as the demangler prints it, "(float)[40200000]" or
 * "(double)[4004000000000000]" (the value's IEEE bits in hex), at `at`, and appends it to `out`:
 * as `literal`, the shortest literal that reads back as those bits ("2.5f", "0.1", as a user
 * writes them and the C name spells them), else as the exact expression clang resolves
 * ("__builtin_bit_cast(float, 0x40200000u)", which infinities and NaNs need). Returns how many
 * characters it read, 0 when `at` holds no such argument.
 */
static size_t append_float_argument(const char *at, int literal, cubind_buf *out) {
  static const struct {
    const char *spelled, *type, *suffix, *bits_suffix;
    size_t digits, precision; /* hex digits of the bits; significant digits that always read back */
  } kinds[] = {{"(float)[", "float", "f", "u", 8, 9}, {"(double)[", "double", "", "ull", 16, 17}};
  size_t k, length, precision;
  unsigned long long bits;
  double value;
  char text[64];
  for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    const char *hex;
    length = strlen(kinds[k].spelled);
    if (strncmp(at, kinds[k].spelled, length) != 0)
      continue;
    hex = at + length;
    if (strspn(hex, "0123456789abcdef") != kinds[k].digits || hex[kinds[k].digits] != ']')
      return 0;
    bits = strtoull(hex, NULL, 16);
    if (!literal) {
      cubind_buf_printf(out, "__builtin_bit_cast(%s, 0x%.*s%s)", kinds[k].type,
                        (int)kinds[k].digits, hex, kinds[k].bits_suffix);
      return length + kinds[k].digits + 1;
    }
    if (k == 0) {
      float narrow;
      unsigned int word = (unsigned int)bits;
      memcpy(&narrow, &word, sizeof narrow);
      value = narrow;
    } else {
      memcpy(&value, &bits, sizeof value);
    }
    for (precision = 1;; precision++) { /* the most digits a value needs always read back */
      snprintf(text, sizeof text, "%.*g", (int)precision, value);
      if (precision == kinds[k].precision || reads_back(text, bits, k == 0))
        break;
    }
    /* 2 -> 2.0: a literal of a floating type, as 2.0f is */
    cubind_buf_printf(out, "%s%s%s", text,
                      strpbrk(text, ".enai") ? "" : ".0", /* 1e+20, inf, nan keep their form */
                      kinds[k].suffix);
    return length + kinds[k].digits + 1;
  }
  return 0;
}

/*
 * nvcc puts a static function or variable in a namespace of its own, named after the file
 * (`_INTERNAL_195fba21_15_fnptr_static_cu_c03d787e::twice`), where clang leaves it at its
 * scope: what a template argument of llama.cpp's kernels (`dequantize_block<..., dequantize_q4_0>`)
 * is. The length of such a scope at `at` ("_INTERNAL_...::"), or 0.
 */
#define INTERNAL_SCOPE "_INTERNAL_"
static size_t internal_scope_length(const char *at) {
  size_t length;
  if (strncmp(at, INTERNAL_SCOPE, sizeof INTERNAL_SCOPE - 1) != 0)
    return 0;
  length = sizeof INTERNAL_SCOPE - 1;
  while (isalnum((unsigned char)at[length]) || at[length] == '_')
    length++;
  return strncmp(at + length, "::", 2) == 0 ? length + 2 : 0;
}

/*
 * Makes a demangled name one C++ accepts in the .cu: "(anonymous namespace)::" goes (the .cu's
 * own anonymous namespace is found from the global scope), and so does nvcc's scope of a static
 * function (internal_scope_length); a function or object as a template argument, which the
 * demangler prints as "&(matmul_tri3(float const*, int))", becomes "&matmul_tri3" (the
 * parameter's type picks the overload; a function template's instance loses the return type
 * printed first: "&(float silu<float>(float const&))" is "&silu<float>"), a floating-point
 * argument, "(float)[40200000]", its exact value (append_float_argument; as a literal with
 * `float_literals`, for the C name), and the least 64-bit integer, "-9223372036854775808l",
 * one C++ can read. A new string.
 */
static char *speakable_name(const char *demangled, int float_literals);

/* speakable_name of demangled[0..length) (a function named as a template argument). */
static char *speakable_name_part(const char *demangled, size_t length) {
  char *part = cubind_xstrndup(demangled, length), *spoken = speakable_name(part, 0);
  free(part);
  return spoken;
}

static char *speakable_name(const char *demangled, int float_literals) {
  static const char anonymous[] = "(anonymous namespace)::", int64_min[] = "-9223372036854775808";
  cubind_buf out = {0};
  const char *at = demangled;
  size_t length;
  cubind_buf_puts(&out, "");
  while (*at) {
    if (strncmp(at, anonymous, sizeof anonymous - 1) == 0) {
      at += sizeof anonymous - 1;
    } else if ((length = internal_scope_length(at)) != 0 &&
               (at == demangled || !(isalnum((unsigned char)at[-1]) || at[-1] == '_'))) {
      at += length; /* nvcc's scope of a static function: clang's is the file's */
    } else if (at[0] == '&' && at[1] == '(') {
      /* &(name(params)) -> &name: the name runs to the '(' of its parameters (outside its
         template arguments); a function template's instance comes with its return type first,
         &(float silu<float>(float const&)), which goes */
      const char *name = at + 2, *open = name;
      int depth = 1, angles = 0;
      char *spoken;
      while (*open && !(angles == 0 && (*open == '(' || *open == ')'))) {
        if (strncmp(open, anonymous, sizeof anonymous - 1) == 0) {
          open += sizeof anonymous - 1; /* (anonymous namespace)::twice: the name goes on */
          continue;
        }
        angles += *open == '<' ? 1 : *open == '>' ? -1 : 0;
        if (angles == 0 && *open == ' ')
          name = open + 1;
        open++;
      }
      spoken = speakable_name_part(name, (size_t)(open - name));
      cubind_buf_puts(&out, "&");
      cubind_buf_puts(&out, spoken);
      free(spoken);
      for (at += 2; *at && depth; at++)
        depth += *at == '(' ? 1 : *at == ')' ? -1 : 0;
    } else if ((length = append_float_argument(at, float_literals, &out)) != 0) {
      at += length;
    } else if (strncmp(at, int64_min, sizeof int64_min - 1) == 0 &&
               !isdigit((unsigned char)at[sizeof int64_min - 1])) {
      /* -9223372036854775808l: the literal does not fit the type it is negated in */
      const char *suffix = at + sizeof int64_min - 1;
      size_t suffix_length = strspn(suffix, "lLuU");
      cubind_buf_printf(&out, "(-9223372036854775807%.*s - 1)", (int)suffix_length, suffix);
      at = suffix + suffix_length;
    } else {
      cubind_buf_append(&out, at++, 1);
    }
  }
  return out.data;
}

/*
 * Fills a candidate from its symbol: its names, or why it cannot be named from outside (the
 * demangler prints lambdas and unnamed types as "{lambda(int)#1}", "{unnamed type#1}").
 */
static void read_candidate(candidate *c, const cubind_binary_kernel *kernel) {
  char *demangled = cubind_demangle(kernel->mangled);
  memset(c, 0, sizeof *c);
  c->kernel = kernel;
  if (!demangled) {
    c->name = cubind_xstrdup(kernel->mangled);
    if (strncmp(kernel->mangled, "_Z", 2) == 0 || !cubind_is_identifier(kernel->mangled))
      c->reason = cubind_xstrdup("its symbol cannot be demangled");
  } else if (!split_demangled(demangled, &c->name, &c->params)) {
    c->name = cubind_xstrdup(demangled);
    c->reason = cubind_xstrdup("its demangled name is no function name");
  }
  if (!c->reason && demangled && strstr(demangled, "{lambda("))
    c->reason = cubind_xstrdup("a template argument is the type of a lambda, which no code "
                               "outside its enclosing function can name");
  else if (!c->reason && demangled && strstr(demangled, "::{"))
    c->reason = cubind_xstrdup("a template argument is an unnamed or local type, which no code "
                               "outside its scope can name");
  free(demangled);
}

/* Whether a template argument of a demangled name is an address ("k<&tab>", "k<1, &s>"). */
static int has_address_argument(const char *name) {
  return strstr(name, "<&") || strstr(name, ", &");
}

/* `spoken` without the '&' of its address template arguments: "k<&tab>" -> "k<tab>". */
static void drop_address_arguments(char *spoken) {
  char *at;
  while ((at = strstr(spoken, "<&")) || (at = strstr(spoken, ", &"))) {
    at = strchr(at, '&');
    memmove(at, at + 1, strlen(at));
  }
}

/* The wrapper line that names candidate i. */
static char *candidate_line(size_t index, const candidate *c) {
  char *name = speakable_name(c->name, 0), *params, *line;
  if (c->decayed)
    drop_address_arguments(name);
  if (!c->params) { /* extern "C": one function per name */
    line = cubind_xasprintf("static void *" BINARY_VARIABLE "%u = (void *)&::%s;",
                            (unsigned)index, name);
    free(name);
    return line;
  }
  params = speakable_name(c->params, 0);
  line = cubind_xasprintf("static void *" BINARY_VARIABLE
                          "%u = (void *)static_cast<void (*)%s>(&::%s);",
                          (unsigned)index, params, name);
  free(params);
  free(name);
  return line;
}

/*
 * Whether clang's mangling of a function is the cubin kernel's symbol: the same text (pointer
 * template arguments read as nvcc mangles them: cubind_mangling_alike), or, for a kernel of
 * internal linkage, the same demangled text. nvcc and clang name those apart: a
 * static function is "_ZL8static_kPfi" to clang and "_Z8static_kPfi" to nvcc, an anonymous
 * namespace "_GLOBAL__N_1" to clang and a name made from the file's path to nvcc; a translation
 * unit cannot hold two such functions with one demangled name. A static function as a template
 * argument differs in its spelling too (`&_INTERNAL_...::twice` from nvcc, `&(twice(float))`
 * from clang): the names are compared as the .cu spells them (speakable_name).
 */
static int same_function(const char *mangled, const cubind_binary_kernel *kernel) {
  char *a, *b;
  int same;
  if (strcmp(mangled, kernel->symbol) == 0 || cubind_mangling_alike(mangled, kernel->mangled))
    return 1;
  if (!kernel->internal && !strstr(kernel->mangled, INTERNAL_SCOPE) &&
      !strstr(kernel->mangled, "_GLOBAL__N_"))
    return 0;
  a = cubind_demangle(mangled);
  b = cubind_demangle(kernel->mangled);
  same = a && b && strcmp(a, b) == 0;
  if (a && b && !same) { /* as the .cu names them: nvcc's `&_INTERNAL_...::twice`, clang's
                            `&(twice(float))` */
    char *spoken_a = speakable_name(a, 0), *spoken_b = speakable_name(b, 0);
    same = strcmp(spoken_a, spoken_b) == 0;
    free(spoken_a);
    free(spoken_b);
  }
  free(a);
  free(b);
  return same;
}

/*
 * Records on `kernel` what nvcc's binary says of it: present, the architectures that lack it,
 * its parameter layout (to be checked against the parse's, check.c), its symbol (nvcc's, where
 * internal linkage makes clang's differ).
 */
static char *only_in(const cubind_binary *binary, const cubind_binary_kernel *kernel);
static void record_binary_facts(const cubind_binary *binary, const cubind_binary_kernel *found,
                                cubind_kernel *kernel) {
  long i;
  kernel->in_binary = 1;
  free(kernel->only_in);
  kernel->only_in = only_in(binary, found);
  free(kernel->symbol);
  kernel->symbol = cubind_xstrdup(found->symbol);
  kernel->symbol_unknown = 0;
  free(kernel->binary_layout);
  kernel->binary_layout = NULL;
  kernel->binary_layouts_differ = found->sizes_differ;
  kernel->binary_num_params = found->layout_differs ? -1 : found->num_params;
  if (kernel->binary_num_params > 0) {
    kernel->binary_layout = cubind_xcalloc((size_t)found->num_params, sizeof *kernel->binary_layout);
    for (i = 0; i < found->num_params; i++) {
      kernel->binary_layout[i].offset = found->params[i].offset;
      kernel->binary_layout[i].size = found->params[i].size;
    }
  }
}

/* "sm_80, sm_90": the architectures whose code defines `kernel`, or NULL when all do. */
static char *only_in(const cubind_binary *binary, const cubind_binary_kernel *kernel) {
  cubind_buf text = {0};
  size_t i;
  if (kernel->num_archs >= binary->num_archs)
    return NULL;
  for (i = 0; i < kernel->num_archs; i++)
    cubind_buf_printf(&text, "%ssm_%u", i ? ", " : "", kernel->archs[i]);
  return text.data;
}

/*
 * Records what candidate c's wrapper line resolved to when it is the candidate itself (a
 * __global__ function whose mangling is the symbol), else sets c->reason.
 */
static void resolve_candidate(parse_context *ctx, const wrapper *w, size_t line, candidate *c) {
  CXCursor function = w->functions[line];
  cubind_kernel *kernel;
  char *mangled;
  c->tried = 1;
  if (clang_Cursor_isNull(function)) {
    c->unresolved = 1;
    c->reason = w->errors[line]
                    ? cubind_xasprintf("its name does not resolve in the .cu (%s)", w->errors[line])
                    : cubind_xstrdup("its name does not resolve to a function of the .cu");
    return;
  }
  mangled = cx_string(clang_Cursor_getMangling(function));
  if (!same_function(mangled, c->kernel) || !cx_is_global(function)) {
    c->reason = cubind_xasprintf("its name resolves to '%s', which is not this kernel", mangled);
    free(mangled);
    return;
  }
  free(mangled);
  {
    char *name = speakable_name(c->name, 1);
    const char *args = strchr(name, '<');
    kernel = add_specialization(ctx, function, CUBIND_ORIGIN_BINARY, args ? args : "", c->name);
    free(name);
  }
  if (kernel)
    record_binary_facts(ctx->options->binary, c->kernel, kernel);
  c->recorded = 1;
}


/* Whether resolve_candidates(..., arch, main_arch) takes candidate c. */
static int takes(const candidate *c, unsigned arch, unsigned main_arch) {
  if (c->recorded)
    return 0;
  if (c->decayed)
    return arch == main_arch;
  if (!arch)
    return !c->reason;
  /* unresolved under the main parse's __CUDA_ARCH__, and absent from that architecture's
     code: declared under a guard for `arch`, its first architecture */
  return c->unresolved &&
         !cubind_archs_contain(c->kernel->archs, c->kernel->num_archs, main_arch) &&
         c->kernel->archs[0] == arch;
}

/*
 * Adds the lines for the binary's kernels: line i names binary->kernels[i], or is empty when its
 * symbol names nothing C++ can spell. Returns how many name one.
 */
static size_t binary_lines(const cubind_binary *binary, cubind_strlist *lines) {
  size_t i, named = 0;
  for (i = 0; binary && i < binary->num_kernels; i++) {
    candidate c;
    char *line = NULL;
    read_candidate(&c, &binary->kernels[i]);
    if (!c.reason) {
      line = candidate_line(i, &c);
      named++;
    }
    cubind_strlist_add(lines, line ? line : "");
    free(line);
    free(c.name);
    free(c.params);
    free(c.reason);
  }
  return named;
}

/* parse_reference_lines: see parse_wrapper.h. */
void parse_reference_lines(parse_context *ctx, cubind_strlist *lines) {
  size_t named = binary_lines(ctx->options->binary, lines);
  ctx->num_binary_lines = lines->count;
  instantiation_lines(ctx, lines);
  if (!named && !ctx->num_instantiation_lines) /* nothing to resolve: the .cu is parsed alone */
    cubind_strlist_free(lines);
}

/*
 * Resolves the candidates that `takes` picks for `arch` (0: the main parse's __CUDA_ARCH__;
 * else arch * 10; main_arch: the main one again, for the decayed): from the main parse's own
 * reference lines when it holds them (parse_reference_lines), else in one wrapper.
 */
static void resolve_candidates(parse_context *ctx, clang_session *session, candidate *cands,
                               size_t count, unsigned arch, unsigned main_arch) {
  const cubind_binary *binary = ctx->options->binary;
  const int in_main = !arch && session->first_reference_line;
  cubind_strlist lines = {0};
  size_t *which = cubind_xcalloc(count + 1, sizeof *which), picked = 0, i;
  wrapper w;
  for (i = 0; i < count; i++) {
    if (!takes(&cands[i], arch, main_arch))
      continue;
    free(cands[i].reason); /* a second try forgets the first one's reason */
    cands[i].reason = NULL;
    cands[i].unresolved = 0;
    if (!in_main) {
      char *line = candidate_line(picked, &cands[i]);
      cubind_strlist_add(&lines, line);
      free(line);
    }
    which[picked++] = i;
  }
  if (!picked) {
    free(which);
    return;
  }
  if (in_main)
    wrapper_read(session->unit, session->first_reference_line, binary->num_kernels,
                 BINARY_VARIABLE, &w);
  else
    wrapper_parse(session, &lines, arch == main_arch ? 0 : arch * 10, BINARY_VARIABLE, &w);
  for (i = 0; i < picked; i++) {
    candidate *c = &cands[which[i]];
    resolve_candidate(ctx, &w, in_main ? (size_t)(c->kernel - binary->kernels) : i, c);
  }
  wrapper_free(&w);
  cubind_strlist_free(&lines);
  free(which);
}

/* parse_binary_kernels: see parse_wrapper.h. */
void parse_binary_kernels(parse_context *ctx, clang_session *session) {
  const cubind_binary *binary = ctx->options->binary;
  const unsigned main_arch = parse_main_arch(binary);
  candidate *cands;
  char *known;
  size_t count = 0, i, k;
  if (!binary)
    return;
  ctx->model->has_binary = 1;
  cands = cubind_xcalloc(binary->num_kernels + 1, sizeof *cands);
  known = cubind_xcalloc(binary->num_kernels + 1, 1);
  /* what the source parse recorded: found in the binary or not, and where */
  for (k = 0; k < ctx->model->num_kernels; k++) {
    cubind_kernel *kernel = &ctx->model->kernels[k];
    const cubind_binary_kernel *found = cubind_binary_find(binary, kernel->symbol);
    for (i = 0; !found && (kernel->linkage != CUBIND_LINKAGE_EXTERNAL || kernel->symbol_unknown) &&
                i < binary->num_kernels;
         i++)
      if (same_function(kernel->symbol, &binary->kernels[i]))
        found = &binary->kernels[i];
    if (found) {
      known[found - binary->kernels] = 1;
      record_binary_facts(binary, found, kernel);
    }
  }
  for (i = 0; i < binary->num_kernels; i++)
    if (!known[i])
      read_candidate(&cands[count++], &binary->kernels[i]);
  free(known);
  qsort(cands, count, sizeof *cands, compare_candidates);
  resolve_candidates(ctx, session, cands, count, 0, main_arch);
  /* a kernel behind another architecture's guard: retried with that __CUDA_ARCH__ */
  for (i = 0; i < binary->num_archs; i++)
    if (binary->archs[i] != main_arch)
      resolve_candidates(ctx, session, cands, count, binary->archs[i], main_arch);
  /* an address template argument that did not resolve may be an array's decay */
  for (i = 0, k = 0; i < count; i++)
    if (!cands[i].recorded && cands[i].unresolved && has_address_argument(cands[i].name)) {
      cands[i].decayed = 1;
      k++;
    }
  if (k)
    resolve_candidates(ctx, session, cands, count, main_arch, main_arch);
  for (i = 0; i < count; i++) {
    if (!cands[i].recorded)
      /* unnamed: tried and not resolved, or never resolved; read_candidate's reasons (a
         lambda's type, a local one) are limits of C++ naming, not of cubind-gen */
      cubind_model_add_unbound(ctx->model, cands[i].kernel->symbol, cands[i].name,
                               cands[i].reason ? cands[i].reason : "it was not resolved")
          ->template_warning = cands[i].tried || !cands[i].reason;
    free(cands[i].name);
    free(cands[i].params);
    free(cands[i].reason);
  }
  free(cands);
}
