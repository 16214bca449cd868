/* parse_wrapper.c: kernels reached through a wrapper parse (see parse_wrapper.h). */
#include "parse_wrapper.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binary.h"
#include "clang_util.h"
#include "parse_decls.h"
#include "parse_templates.h"
#include "util.h"

/* ---- The wrapper translation unit --------------------------------------------------------- */

/* A parsed wrapper: what each of its reference lines resolved to. */
typedef struct wrapper {
  CXTranslationUnit tu;
  unsigned first_line; /* the line of cubind_ref_0 */
  size_t count;
  CXCursor *functions; /* [i]: the function cubind_ref_<i> names, or a null cursor */
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
    unsigned index;
    char tail;
    if (sscanf(name, "cubind_ref_%u%c", &index, &tail) == 1 && index < w->count)
      clang_visitChildren(cursor, find_function_reference, &w->functions[index]);
    free(name);
  }
  return CXChildVisit_Continue;
}

/*
 * Reads what the `count` reference lines of `tu` from `first_line` on resolved to: the function
 * each names, clang's first error on each. w->tu is `tu` (not w's to dispose).
 */
static void wrapper_read(CXTranslationUnit tu, unsigned first_line, size_t count, wrapper *w) {
  unsigned d, num_diags = tu ? clang_getNumDiagnostics(tu) : 0;
  size_t i;
  memset(w, 0, sizeof *w);
  w->tu = tu;
  w->first_line = first_line;
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
 * Parses the .cu's text (as the main parse read it) followed by `lines` (each declares
 * cubind_ref_<i>), with __CUDA_ARCH__ = cuda_arch (0: the main parse's), and reads it into *w;
 * w->tu is NULL when clang could not parse it at all.
 */
static void wrapper_parse(clang_session *session, const cubind_strlist *lines,
                          unsigned cuda_arch, wrapper *w) {
  cubind_buf text = {0};
  unsigned first_line = 0;
  CXTranslationUnit tu = NULL;
  if (session->main_text) {
    first_line = session_reference_text(session->main_text, session->main_length, lines, &text);
    tu = session_parse_text(session, text.data, text.length, cuda_arch);
    cubind_buf_free(&text);
  }
  wrapper_read(tu, tu ? first_line : 0, lines->count, w);
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

/* One explicit instantiation found in the tokens. */
typedef struct instantiation {
  size_t template_index; /* into model->templates */
  char *args;            /* "< float >" as written, or "" when deduced */
  char *params;          /* "( float * , float )" as written */
  cubind_location location;
} instantiation;

/* Joins the spellings of tokens[first..last] with spaces. */
static char *join_tokens(CXTranslationUnit tu, CXToken *tokens, unsigned first, unsigned last) {
  cubind_buf out = {0};
  unsigned i;
  cubind_buf_puts(&out, "");
  for (i = first; i <= last; i++) {
    char *spelling = cx_string(clang_getTokenSpelling(tu, tokens[i]));
    cubind_buf_printf(&out, "%s%s", i > first ? " " : "", spelling);
    free(spelling);
  }
  return out.data;
}

static int token_is(CXTranslationUnit tu, CXToken token, const char *text) {
  char *spelling = cx_string(clang_getTokenSpelling(tu, token));
  int same = strcmp(spelling, text) == 0;
  free(spelling);
  return same;
}

/* The location of a token in the .cu, named as the user named it. */
static void token_location(parse_context *ctx, CXTranslationUnit tu, CXToken token,
                           cubind_location *location) {
  CXFile file;
  unsigned offset;
  clang_getExpansionLocation(clang_getTokenLocation(tu, token), &file, &location->line,
                             &location->column, &offset);
  location->file = cubind_xstrdup(ctx->input);
}

/*
 * The name at tokens[name] with the scopes written before it ("v1::scale" of `void
 * v1::scale<float>(...)`, "::scale", "scale"), as a new string; tokens before `first` are not
 * looked at.
 */
static char *written_qualified_name(CXTranslationUnit tu, CXToken *tokens, unsigned first,
                                    unsigned name) {
  unsigned begin = name;
  for (;;) { /* back over "scope ::" pairs, then a leading "::" */
    if (begin >= first + 2 && token_is(tu, tokens[begin - 1], "::") &&
        clang_getTokenKind(tokens[begin - 2]) == CXToken_Identifier) {
      begin -= 2;
      continue;
    }
    if (begin >= first + 1 && token_is(tu, tokens[begin - 1], "::"))
      begin--;
    return join_tokens(tu, tokens, begin, name);
  }
}

/*
 * 1 when the qualified name `qualified` ("ns::v1::scale") is what `written` ("v1 :: scale",
 * tokens joined by spaces) names: the same name in the same scopes, or in scopes enclosing
 * the written ones (a partly qualified name; "::" first: from the global scope).
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

/*
 * Reads the explicit instantiation whose declaration starts after the `template` keyword at
 * tokens[start - 1]. Fills *found and returns 1 when it names exactly one template kernel of
 * this file (a name several namespaces use is recorded as a finding).
 */
static int read_instantiation(parse_context *ctx, CXTranslationUnit tu, CXToken *tokens,
                              unsigned count, unsigned start, instantiation *found) {
  const cubind_model *model = ctx->model;
  unsigned open = start, close, name, i;
  int depth = 0;
  char *spelling, *written;
  size_t match = 0, matches = 0, t;
  /* the parameter list's '(': the first outside the template arguments, which may hold
     parentheses of their own (f<(1 + 2)>, f<sizeof(double)>, h<int (*)[3]>) */
  {
    int angle = 0, paren = 0;
    for (; open < count && !token_is(tu, tokens[open], ";"); open++) {
      if (token_is(tu, tokens[open], "(")) {
        if (angle <= 0 && paren == 0)
          break;
        paren++;
      } else if (token_is(tu, tokens[open], ")")) {
        paren--;
      } else if (paren == 0 && token_is(tu, tokens[open], "<")) {
        angle++;
      } else if (paren == 0 && token_is(tu, tokens[open], ">")) {
        angle--;
      } else if (paren == 0 && token_is(tu, tokens[open], ">>")) {
        angle -= 2;
      }
    }
  }
  if (open >= count || open == start || !token_is(tu, tokens[open], "("))
    return 0;
  for (close = open; close < count; close++) {
    if (token_is(tu, tokens[close], "("))
      depth++;
    else if (token_is(tu, tokens[close], ")") && --depth == 0)
      break;
  }
  if (close >= count)
    return 0;
  name = open - 1;
  /* skip back over the template arguments; `f<float, Max<float>>(` ends in one `>>` token */
  if (token_is(tu, tokens[name], ">") || token_is(tu, tokens[name], ">>")) {
    int paren = 0; /* a '<' or '>' inside parentheses, (a > b), is an operator */
    depth = 0;
    for (i = name + 1; i-- > start;) {
      if (token_is(tu, tokens[i], ")"))
        paren++;
      else if (token_is(tu, tokens[i], "("))
        paren--;
      else if (paren == 0 && token_is(tu, tokens[i], ">"))
        depth++;
      else if (paren == 0 && token_is(tu, tokens[i], ">>"))
        depth += 2;
      else if (paren == 0 && token_is(tu, tokens[i], "<") && --depth == 0)
        break;
    }
    if (i <= start || i > name)
      return 0;
    found->args = join_tokens(tu, tokens, i, name);
    name = i - 1;
  } else {
    found->args = cubind_xstrdup("");
  }
  spelling = cx_string(clang_getTokenSpelling(tu, tokens[name]));
  written = written_qualified_name(tu, tokens, start, name);
  for (t = 0; t < model->num_templates; t++)
    if (strcmp(model->templates[t].name, spelling) == 0 &&
        ends_with_scope(model->templates[t].qualified, written)) {
      match = t;
      matches++;
    }
  free(written);
  token_location(ctx, tu, tokens[name], &found->location);
  if (matches > 1)
    cubind_model_add_finding(ctx->model, CUBIND_FINDING_AMBIGUOUS_INSTANTIATION, spelling, NULL,
                             &found->location);
  free(spelling);
  if (matches != 1) { /* no template kernel of that name here, or one per namespace */
    free(found->args);
    free(found->location.file);
    return 0;
  }
  found->template_index = match;
  found->params = join_tokens(tu, tokens, open, close);
  return 1;
}

/* 1 when `offset` lies in a block the preprocessor skipped (#if 0, an undefined #ifdef). */
static int in_skipped_range(CXSourceRangeList *skipped, unsigned offset) {
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

/*
 * 1 when the byte at `offset` of `text` lies in a preprocessor directive (a #define's body, say):
 * its logical line, continuation lines joined, starts with '#'.
 */
static int in_directive(const char *text, size_t offset) {
  size_t start = offset;
  for (;;) {
    while (start > 0 && text[start - 1] != '\n')
      start--;
    /* a line continued from the one before (backslash-newline) belongs to it */
    if (start >= 2 && text[start - 2] == '\\') {
      start--;
      continue;
    }
    if (start >= 3 && text[start - 2] == '\r' && text[start - 3] == '\\') {
      start -= 2;
      continue;
    }
    break;
  }
  while (text[start] == ' ' || text[start] == '\t')
    start++;
  return text[start] == '#';
}

/*
 * Finds the explicit instantiations of this file's template kernels in its tokens that are
 * code: not in blocks the preprocessor skipped, not in directives (a macro that instantiates
 * is seen only through nvcc's binary).
 */
static size_t find_instantiations(parse_context *ctx, CXTranslationUnit tu,
                                  instantiation **out) {
  CXFile file = clang_getFile(tu, ctx->input);
  size_t size = 0, found = 0, capacity = 0;
  CXToken *tokens = NULL;
  CXSourceRangeList *skipped;
  const char *text;
  unsigned count = 0, i;
  *out = NULL;
  if (!file || !ctx->model->num_templates || !(text = clang_getFileContents(tu, file, &size)))
    return 0;
  clang_tokenize(tu,
                 clang_getRange(clang_getLocationForOffset(tu, file, 0),
                                clang_getLocationForOffset(tu, file, (unsigned)size)),
                 &tokens, &count);
  skipped = clang_getSkippedRanges(tu, file);
  for (i = 0; i + 1 < count; i++) {
    instantiation next;
    CXFile where;
    unsigned line, column, offset;
    if (clang_getTokenKind(tokens[i]) != CXToken_Keyword || !token_is(tu, tokens[i], "template") ||
        token_is(tu, tokens[i + 1], "<") || (i > 0 && token_is(tu, tokens[i - 1], "extern")))
      continue;
    clang_getSpellingLocation(clang_getTokenLocation(tu, tokens[i]), &where, &line, &column,
                              &offset);
    if (in_skipped_range(skipped, offset) || (offset < size && in_directive(text, offset)))
      continue;
    memset(&next, 0, sizeof next);
    if (!read_instantiation(ctx, tu, tokens, count, i + 1, &next))
      continue;
    if (found == capacity) {
      capacity = capacity ? capacity * 2 : 8;
      *out = cubind_xrealloc(*out, capacity * sizeof **out);
    }
    (*out)[found++] = next;
  }
  if (skipped)
    clang_disposeSourceRangeList(skipped);
  clang_disposeTokens(tu, tokens, count);
  return found;
}

/*
 * The wrapper line of one explicit instantiation, inside the template's namespaces: C++ looks
 * the names of an explicit instantiation up there (it must be written in that namespace, or
 * qualified with it), so they resolve to the same types here:
 *   namespace ns { static void *cubind_ref_0 = (void *)static_cast<void (*)(P *)>(&::ns::f<P>); }
 */
static char *instantiation_line(size_t index, const instantiation *inst, const char *qualified) {
  cubind_buf line = {0};
  const char *scope = qualified, *next;
  unsigned depth = 0;
  while ((next = strstr(scope, "::")) != NULL) {
    cubind_buf_printf(&line, "namespace %.*s { ", (int)(next - scope), scope);
    depth++;
    scope = next + 2;
  }
  cubind_buf_printf(&line,
                    "static void *cubind_ref_%u = (void *)static_cast<void (*)%s>(&::%s%s);",
                    (unsigned)index, inst->params, qualified, inst->args);
  while (depth--)
    cubind_buf_puts(&line, " }");
  return line.data;
}

/* parse_instantiations: see parse_wrapper.h. */
void parse_instantiations(parse_context *ctx, clang_session *session, CXTranslationUnit tu) {
  instantiation *insts;
  size_t count = find_instantiations(ctx, tu, &insts), i;
  cubind_strlist lines = {0};
  wrapper w;
  if (!count)
    return;
  for (i = 0; i < count; i++) {
    char *line = instantiation_line(i, &insts[i],
                                    ctx->model->templates[insts[i].template_index].qualified);
    cubind_strlist_add(&lines, line);
    free(line);
  }
  wrapper_parse(session, &lines, 0, &w);
  for (i = 0; i < count; i++) {
    const cubind_template *pattern = &ctx->model->templates[insts[i].template_index];
    /* one the wrapper cannot resolve (e.g. its types live in a namespace) is reported, never
       turned into wrong code */
    if (w.errors[i] || clang_Cursor_isNull(w.functions[i]) || !cx_is_global(w.functions[i])) {
      cubind_model_add_finding(ctx->model, CUBIND_FINDING_UNRESOLVED_INSTANTIATION,
                               pattern->name, w.errors[i], &insts[i].location);
    } else {
      char *display = cubind_xasprintf("%s%s", pattern->qualified, insts[i].args);
      cubind_kernel *kernel = add_specialization(ctx, w.functions[i], CUBIND_ORIGIN_INSTANTIATION,
                                                 insts[i].args, display);
      if (kernel) { /* errors about this kernel point at its instantiation */
        free(kernel->location.file);
        kernel->location = insts[i].location;
        insts[i].location.file = NULL;
      }
      free(display);
    }
  }
  wrapper_free(&w);
  cubind_strlist_free(&lines);
  for (i = 0; i < count; i++) {
    free(insts[i].args);
    free(insts[i].params);
    free(insts[i].location.file);
  }
  free(insts);
}

/* ---- 2. The kernels of nvcc's binary ---------------------------------------------------- */

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
    line = cubind_xasprintf("static void *cubind_ref_%u = (void *)&::%s;", (unsigned)index, name);
    free(name);
    return line;
  }
  params = speakable_name(c->params, 0);
  line = cubind_xasprintf("static void *cubind_ref_%u = (void *)static_cast<void (*)%s>(&::%s);",
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

/* parse_binary_references: see parse_wrapper.h. */
void parse_binary_references(const cubind_binary *binary, cubind_strlist *lines) {
  size_t i, named = 0;
  for (i = 0; binary && i < binary->num_kernels; i++) {
    candidate c;
    char *line = NULL;
    read_candidate(&c, &binary->kernels[i]);
    if (!c.reason) {
      line = candidate_line(i, &c);
      named++;
    }
    cubind_strlist_add(lines, line ? line : ""); /* line i names kernel i */
    free(line);
    free(c.name);
    free(c.params);
    free(c.reason);
  }
  if (!named) /* nothing for the main parse to resolve: it parses the .cu alone */
    cubind_strlist_free(lines);
}

/*
 * Resolves the candidates that `takes` picks for `arch` (0: the main parse's __CUDA_ARCH__;
 * else arch * 10; main_arch: the main one again, for the decayed): from the main parse's own
 * reference lines when it holds them (parse_binary_references), else in one wrapper.
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
    wrapper_read(session->unit, session->first_reference_line, binary->num_kernels, &w);
  else
    wrapper_parse(session, &lines, arch == main_arch ? 0 : arch * 10, &w);
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
