/*
 * parse_wrapper.c: kernels that the .cu's own declarations do not show, reached through a
 * wrapper translation unit that includes the .cu:
 *
 *   #include "/abs/path/file.cu"
 *   static void *cubind_ref_0 = (void *)static_cast<void (*)(float *, float)>(&::scale<float>);
 *
 * Parsing the wrapper makes clang instantiate each named specialisation; following the
 * DeclRefExpr to its FunctionDecl gives the substituted parameter types, the annotations and
 * the device-side mangled name. Two sources of names:
 *
 *  1. Explicit instantiations (`template __global__ void scale<float>(float *, float);`),
 *     which produce no cursor in libclang 14-19: found in the main file's tokens.
 *  2. nvcc's binary (--kernels-from): every kernel symbol the source parse did not bind
 *     (templates instantiated by host code that launches them, kernels behind other
 *     architectures' guards), demangled into a name and a parameter list. A kernel is bound
 *     only when clang's mangling of what the name resolves to is the symbol itself, so a wrong
 *     guess can never become a wrong stub; every other kernel is listed with the reason.
 */
#include "parse_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binary.h"
#include "fs.h"

/* ---- The wrapper translation unit --------------------------------------------------------- */

/* A parsed wrapper: what each of its reference lines resolved to. */
typedef struct wrapper {
  CXTranslationUnit tu;
  size_t count;
  CXCursor *functions; /* [i]: the function cubind_ref_<i> names, or a null cursor */
  char **errors;       /* [i]: clang's first error on line i (new string), or NULL */
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

static enum CXChildVisitResult visit_wrapper(CXCursor cursor, CXCursor parent,
                                             CXClientData data) {
  wrapper *w = data;
  (void)parent;
  if (!clang_Location_isFromMainFile(clang_getCursorLocation(cursor)))
    return CXChildVisit_Continue;
  if (clang_getCursorKind(cursor) == CXCursor_Namespace) {
    clang_visitChildren(cursor, visit_wrapper, data);
  } else if (clang_getCursorKind(cursor) == CXCursor_VarDecl) {
    char *name = take_string(clang_getCursorSpelling(cursor));
    unsigned index;
    char tail;
    if (sscanf(name, "cubind_ref_%u%c", &index, &tail) == 1 && index < w->count)
      clang_visitChildren(cursor, find_function_reference, &w->functions[index]);
    free(name);
  }
  return CXChildVisit_Continue;
}

/*
 * Parses the wrapper whose line i + 2 is lines->items[i] (each declares cubind_ref_<i>), with
 * the main parse's arguments. Fills *w; w->tu is NULL when clang could not parse it at all.
 */
static void wrapper_parse(parser *p, const cubind_strlist *args, CXIndex index,
                          const cubind_strlist *lines, wrapper *w) {
  cubind_buf text = {0};
  char *path = cubind_xasprintf("%s.cubind-wrapper.cu", p->input);
  char *absolute = realpath(p->input, NULL);
  struct CXUnsavedFile unsaved;
  unsigned d, num_diags;
  size_t i;
  memset(w, 0, sizeof *w);
  w->count = lines->count;
  w->functions = cubind_xcalloc(lines->count ? lines->count : 1, sizeof *w->functions);
  w->errors = cubind_xcalloc(lines->count ? lines->count : 1, sizeof *w->errors);
  for (i = 0; i < lines->count; i++)
    w->functions[i] = clang_getNullCursor();
  /* next to the .cu, so that its relative includes resolve; never written to disk */
  cubind_buf_printf(&text, "#include \"%s\"\n", absolute ? absolute : p->input);
  for (i = 0; i < lines->count; i++)
    cubind_buf_printf(&text, "%s\n", lines->items[i]);
  unsaved.Filename = path;
  unsaved.Contents = text.data;
  unsaved.Length = (unsigned long)text.length;
  if (clang_parseTranslationUnit2(index, path, (const char *const *)args->items,
                                  (int)args->count, &unsaved, 1,
                                  CXTranslationUnit_SkipFunctionBodies |
                                      CXTranslationUnit_KeepGoing,
                                  &w->tu) != CXError_Success)
    w->tu = NULL;
  num_diags = w->tu ? clang_getNumDiagnostics(w->tu) : 0;
  for (d = 0; d < num_diags; d++) {
    CXDiagnostic diag = clang_getDiagnostic(w->tu, d);
    CXFile file;
    unsigned line, column, offset;
    clang_getExpansionLocation(clang_getDiagnosticLocation(diag), &file, &line, &column,
                               &offset);
    if (clang_getDiagnosticSeverity(diag) >= CXDiagnostic_Error &&
        clang_Location_isFromMainFile(clang_getDiagnosticLocation(diag)) && line >= 2 &&
        line - 2 < lines->count && !w->errors[line - 2])
      w->errors[line - 2] = take_string(clang_getDiagnosticSpelling(diag));
    clang_disposeDiagnostic(diag);
  }
  if (w->tu)
    clang_visitChildren(clang_getTranslationUnitCursor(w->tu), visit_wrapper, w);
  free(absolute);
  free(path);
  cubind_buf_free(&text);
}

static void wrapper_free(wrapper *w) {
  size_t i;
  for (i = 0; i < w->count; i++)
    free(w->errors[i]);
  free(w->errors);
  free(w->functions);
  if (w->tu)
    clang_disposeTranslationUnit(w->tu);
  memset(w, 0, sizeof *w);
}

/* Counts a bound specialisation against its template (for parse_warn_unused_templates). */
static void count_template_use(parser *p, CXCursor function) {
  CXCursor pattern = clang_getSpecializedCursorTemplate(function);
  char *usr;
  size_t i;
  if (clang_Cursor_isNull(pattern))
    return;
  usr = take_string(clang_getCursorUSR(pattern));
  for (i = 0; i < p->template_usrs.count; i++)
    if (strcmp(p->template_usrs.items[i], usr) == 0)
      p->template_uses[i]++;
  free(usr);
}

/* ---- Template arguments --------------------------------------------------------------- */

/* A template's parameters, in order (visitor state of collect_template_params). */
typedef struct template_params {
  CXCursor items[64];
  unsigned count;
} template_params;

static enum CXChildVisitResult collect_template_params(CXCursor cursor, CXCursor parent,
                                                       CXClientData data) {
  template_params *params = data;
  enum CXCursorKind kind = clang_getCursorKind(cursor);
  (void)parent;
  if ((kind == CXCursor_TemplateTypeParameter || kind == CXCursor_NonTypeTemplateParameter ||
       kind == CXCursor_TemplateTemplateParameter) &&
      params->count < sizeof params->items / sizeof params->items[0])
    params->items[params->count++] = cursor;
  return CXChildVisit_Continue;
}

/* The parameters of the template `specialization` specialises (none when it is no template). */
static void specialization_params(CXCursor specialization, template_params *params) {
  CXCursor pattern = clang_getSpecializedCursorTemplate(specialization);
  params->count = 0;
  if (!clang_Cursor_isNull(pattern))
    clang_visitChildren(pattern, collect_template_params, params);
}

/* Visitor state: the enumerator of an enum with a given value. */
typedef struct enumerator_search {
  long long value;
  char *name;
} enumerator_search;

static enum CXChildVisitResult find_enumerator(CXCursor cursor, CXCursor parent,
                                               CXClientData data) {
  enumerator_search *search = data;
  (void)parent;
  if (clang_getCursorKind(cursor) == CXCursor_EnumConstantDecl &&
      clang_getEnumConstantDeclValue(cursor) == search->value) {
    search->name = take_string(clang_getCursorSpelling(cursor));
    return CXChildVisit_Break;
  }
  return CXChildVisit_Continue;
}

/*
 * Integral template argument i of a specialisation as text. In a C name (in_name): "true" /
 * "false", an enumerator's name ("Add"), else the number ("256", "minus2"). In a count
 * expression: the value as a C literal ("1", "256", "(-2)").
 */
static char *integral_argument(CXCursor specialization, const template_params *params,
                               unsigned i, int in_name) {
  long long value = clang_Cursor_getTemplateArgumentValue(specialization, i);
  CXType type = {CXType_Invalid, {NULL, NULL}};
  if (i < params->count)
    type = clang_getCanonicalType(clang_getCursorType(params->items[i]));
  switch (type.kind) {
  case CXType_Bool:
    return cubind_xstrdup(in_name ? (value ? "true" : "false") : (value ? "1" : "0"));
  case CXType_Enum:
    if (in_name) {
      enumerator_search search;
      search.value = value;
      search.name = NULL;
      clang_visitChildren(clang_getTypeDeclaration(type), find_enumerator, &search);
      if (search.name)
        return search.name;
    }
    break;
  case CXType_UChar:
  case CXType_UShort:
  case CXType_UInt:
  case CXType_ULong:
  case CXType_ULongLong:
  case CXType_Char16:
  case CXType_Char32:
    return cubind_xasprintf("%llu", clang_Cursor_getTemplateArgumentUnsignedValue(specialization, i));
  default:
    break;
  }
  if (value < 0)
    return in_name ? cubind_xasprintf("minus%llu", 0ull - (unsigned long long)value)
                   : cubind_xasprintf("(%lld)", value);
  return cubind_xasprintf("%lld", value);
}

/*
 * In a specialisation's count expressions (CUBIND_OUT_N((n + BLOCK - 1) / BLOCK)), replaces
 * each integral template parameter by its value in this specialisation, so that the C code,
 * which has no BLOCK, computes the same count: "(n + 256 - 1) / 256".
 */
static void substitute_template_constants(CXCursor specialization, cubind_kernel *kernel) {
  int count = clang_Cursor_getNumTemplateArguments(specialization);
  template_params params;
  size_t p, a;
  specialization_params(specialization, &params);
  if (count <= 0 || !params.count)
    return;
  for (p = 0; p < kernel->num_params; p++) {
    cubind_strlist *annotations = &kernel->params[p].annotations;
    for (a = 0; a < annotations->count; a++) {
      const char *text = annotations->items[a], *colon = strchr(text, ':'), *at;
      cubind_buf out = {0};
      if (!colon)
        continue;
      cubind_buf_append(&out, text, (size_t)(colon + 1 - text));
      for (at = colon + 1; *at;) {
        const char *start = at;
        unsigned i;
        if (!(isalpha((unsigned char)*at) || *at == '_')) {
          /* numbers keep their suffixes ("10u") whole */
          if (isdigit((unsigned char)*at))
            while (isalnum((unsigned char)*at) || *at == '_' || *at == '.')
              at++;
          else
            at++;
          cubind_buf_append(&out, start, (size_t)(at - start));
          continue;
        }
        while (isalnum((unsigned char)*at) || *at == '_')
          at++;
        for (i = 0; i < params.count && i < (unsigned)count; i++) {
          char *name = take_string(clang_getCursorSpelling(params.items[i]));
          int same = strlen(name) == (size_t)(at - start) &&
                     strncmp(name, start, (size_t)(at - start)) == 0;
          free(name);
          if (same && clang_Cursor_getTemplateArgumentKind(specialization, i) ==
                          CXTemplateArgumentKind_Integral)
            break;
        }
        if (i < params.count && i < (unsigned)count) {
          char *value = integral_argument(specialization, &params, i, 0);
          cubind_buf_puts(&out, value);
          free(value);
        } else {
          cubind_buf_append(&out, start, (size_t)(at - start));
        }
      }
      free(annotations->items[a]);
      annotations->items[a] = out.data;
    }
  }
}

/* ---- 1. Explicit instantiations ---------------------------------------------------------- */

/* One explicit instantiation found in the tokens. */
typedef struct instantiation {
  size_t template_index; /* into parser.template_* */
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
    char *spelling = take_string(clang_getTokenSpelling(tu, tokens[i]));
    cubind_buf_printf(&out, "%s%s", i > first ? " " : "", spelling);
    free(spelling);
  }
  return out.data;
}

static int token_is(CXTranslationUnit tu, CXToken token, const char *text) {
  char *spelling = take_string(clang_getTokenSpelling(tu, token));
  int same = strcmp(spelling, text) == 0;
  free(spelling);
  return same;
}

/*
 * Reads the explicit instantiation whose declaration starts after the `template` keyword at
 * tokens[start - 1]. Fills *found and returns 1 when it names a template kernel of this file.
 */
static int read_instantiation(parser *p, CXToken *tokens, unsigned count, unsigned start,
                              instantiation *found) {
  unsigned open = start, close, name, i;
  int depth = 0;
  char *spelling;
  size_t match = 0, matches = 0, t;
  CXFile file;
  unsigned line, column, offset;
  while (open < count && !token_is(p->tu, tokens[open], "(") && !token_is(p->tu, tokens[open], ";"))
    open++;
  if (open >= count || open == start || !token_is(p->tu, tokens[open], "("))
    return 0;
  for (close = open; close < count; close++) {
    if (token_is(p->tu, tokens[close], "("))
      depth++;
    else if (token_is(p->tu, tokens[close], ")") && --depth == 0)
      break;
  }
  if (close >= count)
    return 0;
  name = open - 1;
  /* skip back over the template arguments; `f<float, Max<float>>(` ends in one `>>` token */
  if (token_is(p->tu, tokens[name], ">") || token_is(p->tu, tokens[name], ">>")) {
    depth = 0;
    for (i = name + 1; i-- > start;) {
      if (token_is(p->tu, tokens[i], ">"))
        depth++;
      else if (token_is(p->tu, tokens[i], ">>"))
        depth += 2;
      else if (token_is(p->tu, tokens[i], "<") && --depth == 0)
        break;
    }
    if (i <= start || i > name)
      return 0;
    found->args = join_tokens(p->tu, tokens, i, name);
    name = i - 1;
  } else {
    found->args = cubind_xstrdup("");
  }
  spelling = take_string(clang_getTokenSpelling(p->tu, tokens[name]));
  for (t = 0; t < p->template_names.count; t++)
    if (strcmp(p->template_names.items[t], spelling) == 0) {
      match = t;
      matches++;
    }
  free(spelling);
  if (matches != 1) { /* no template kernel of that name here (or one per namespace) */
    free(found->args);
    if (matches > 1) {
      clang_getExpansionLocation(clang_getTokenLocation(p->tu, tokens[name]), &file, &line,
                                 &column, &offset);
      cubind_diag(p->input, line, column, "warning",
                  "several template kernels are named '%s': its explicit instantiations are "
                  "skipped",
                  p->template_names.items[match]);
    }
    return 0;
  }
  found->template_index = match;
  found->params = join_tokens(p->tu, tokens, open, close);
  clang_getExpansionLocation(clang_getTokenLocation(p->tu, tokens[name]), &file, &line, &column,
                             &offset);
  found->location.file = cubind_xstrdup(p->input);
  found->location.line = line;
  found->location.column = column;
  return 1;
}

/* Finds the explicit instantiations of this file's template kernels in its tokens. */
static size_t find_instantiations(parser *p, instantiation **out) {
  CXFile file = clang_getFile(p->tu, p->input);
  size_t size = 0, found = 0, capacity = 0;
  CXToken *tokens = NULL;
  unsigned count = 0, i;
  *out = NULL;
  if (!file || !p->template_names.count || !clang_getFileContents(p->tu, file, &size))
    return 0;
  clang_tokenize(p->tu,
                 clang_getRange(clang_getLocationForOffset(p->tu, file, 0),
                                clang_getLocationForOffset(p->tu, file, (unsigned)size)),
                 &tokens, &count);
  for (i = 0; i + 1 < count; i++) {
    instantiation next;
    if (clang_getTokenKind(tokens[i]) != CXToken_Keyword || !token_is(p->tu, tokens[i], "template") ||
        token_is(p->tu, tokens[i + 1], "<") || (i > 0 && token_is(p->tu, tokens[i - 1], "extern")))
      continue;
    memset(&next, 0, sizeof next);
    if (!read_instantiation(p, tokens, count, i + 1, &next))
      continue;
    if (found == capacity) {
      capacity = capacity ? capacity * 2 : 8;
      *out = cubind_xrealloc(*out, capacity * sizeof **out);
    }
    (*out)[found++] = next;
  }
  clang_disposeTokens(p->tu, tokens, count);
  return found;
}

/*
 * The C name of a specialisation: the kernel's name and its template arguments made into an
 * identifier ("scale<float>" -> "scale_float", "fill<int, 4>" -> "fill_int_4", "f<-2>" ->
 * "f_minus2", "r<float, 512, true>" -> "r_float_512_true", "combine<Op::Add, float>" ->
 * "combine_Add_float"). args: the arguments as text, used only where libclang does not break
 * them down (packs).
 */
static char *specialization_c_name(CXCursor specialization, const char *args) {
  cubind_buf text = {0};
  int i, count = clang_Cursor_getNumTemplateArguments(specialization);
  char *name = take_string(clang_getCursorSpelling(specialization));
  char *result;
  size_t k, length = 0;
  template_params params;
  specialization_params(specialization, &params);
  cubind_buf_puts(&text, name);
  free(name);
  if (count < 0) { /* a pack or another form libclang does not break down: use the text */
    cubind_buf_printf(&text, " %s", args);
    count = 0;
  }
  for (i = 0; i < count; i++) {
    enum CXTemplateArgumentKind kind = clang_Cursor_getTemplateArgumentKind(specialization, (unsigned)i);
    if (kind == CXTemplateArgumentKind_Type) {
      char *type = type_spelling(clang_Cursor_getTemplateArgumentType(specialization, (unsigned)i));
      char *star;
      while ((star = strchr(type, '*')) != NULL) { /* "float *" -> "float ptr" */
        char *spelled = cubind_xasprintf("%.*s ptr %s", (int)(star - type), type, star + 1);
        free(type);
        type = spelled;
      }
      cubind_buf_printf(&text, " %s", type);
      free(type);
    } else if (kind == CXTemplateArgumentKind_Integral) {
      char *value = integral_argument(specialization, &params, (unsigned)i, 1);
      cubind_buf_printf(&text, " %s", value);
      free(value);
    } else {
      cubind_buf_printf(&text, " arg%d", i);
    }
  }
  /* every run of non-identifier characters becomes one '_'; leading underscores of names such
     as __half go too */
  result = cubind_xmalloc(text.length + 1);
  for (k = 0; k < text.length; k++) {
    unsigned char c = (unsigned char)text.data[k];
    int word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (word)
      result[length++] = (char)c;
    else if (length && result[length - 1] != '_')
      result[length++] = '_';
  }
  while (length && result[length - 1] == '_')
    length--;
  result[length] = '\0';
  cubind_buf_free(&text);
  return result;
}


/* Adds one explicit instantiation's specialisation as a kernel named after its arguments. */
static void add_specialization(parser *p, CXCursor function, instantiation *inst) {
  char *usr = take_string(clang_getCursorUSR(function));
  if (!cubind_strlist_contains(&p->kernel_usrs, usr)) {
    cubind_kernel *kernel = cubind_model_add_kernel(p->model);
    char *display;
    cubind_strlist_add(&p->kernel_usrs, usr);
    read_kernel(p, function, kernel);
    substitute_template_constants(function, kernel);
    free(kernel->c_name);
    kernel->c_name = specialization_c_name(function, inst->args);
    display = cubind_xasprintf("%s%s", kernel->display_name, inst->args);
    free(kernel->display_name);
    kernel->display_name = display;
    /* errors about this kernel point at its instantiation */
    free(kernel->location.file);
    kernel->location = inst->location;
    inst->location.file = NULL;
  }
  free(usr);
}

/*
 * The wrapper line of one explicit instantiation, inside the template's namespaces: C++ looks
 * the names of an explicit instantiation up there (it must be written in that namespace, or
 * qualified with it), so they resolve to the same types here:
 *   namespace ns { static void *cubind_ref_0 = (void *)static_cast<void (*)(P *)>(&::ns::f<P>); }
 */
static char *instantiation_line(size_t index, const instantiation *inst, const char *qualified) {
  cubind_buf line = {0};
  const char *scope = qualified + 2, *next; /* skip the leading "::" */
  unsigned depth = 0;
  while ((next = strstr(scope, "::")) != NULL) {
    cubind_buf_printf(&line, "namespace %.*s { ", (int)(next - scope), scope);
    depth++;
    scope = next + 2;
  }
  cubind_buf_printf(&line, "static void *cubind_ref_%u = (void *)static_cast<void (*)%s>(&%s%s);",
                    (unsigned)index, inst->params, qualified, inst->args);
  while (depth--)
    cubind_buf_puts(&line, " }");
  return line.data;
}

/* parse_add_instantiations: see parse_internal.h. */
void parse_add_instantiations(parser *p, const cubind_strlist *args, CXIndex index) {
  instantiation *insts;
  size_t count = find_instantiations(p, &insts), i;
  p->template_uses = cubind_xcalloc(p->template_names.count + 1, sizeof *p->template_uses);
  if (count) {
    cubind_strlist lines = {0};
    wrapper w;
    for (i = 0; i < count; i++) {
      char *line =
          instantiation_line(i, &insts[i], p->template_quals.items[insts[i].template_index]);
      cubind_strlist_add(&lines, line);
      free(line);
    }
    wrapper_parse(p, args, index, &lines, &w);
    for (i = 0; i < count; i++) {
      /* one the wrapper cannot resolve (e.g. its types live in a namespace) is skipped with a
         warning, never turned into wrong code */
      if (w.errors[i]) {
        cubind_diag(insts[i].location.file, insts[i].location.line, insts[i].location.column,
                    "warning", "explicit instantiation of '%s' could not be resolved (%s); skipped",
                    p->template_names.items[insts[i].template_index], w.errors[i]);
      } else if (!clang_Cursor_isNull(w.functions[i]) && is_global(w.functions[i])) {
        add_specialization(p, w.functions[i], &insts[i]);
      }
      /* named explicitly: no "never instantiated" warning for its template, bound or not */
      p->template_uses[insts[i].template_index]++;
    }
    wrapper_free(&w);
    cubind_strlist_free(&lines);
  }
  for (i = 0; i < count; i++) {
    free(insts[i].args);
    free(insts[i].params);
    free(insts[i].location.file);
  }
  free(insts);
}

/* parse_warn_unused_templates: see parse_internal.h. */
void parse_warn_unused_templates(parser *p) {
  size_t i;
  for (i = 0; i < p->template_names.count; i++) {
    char *location = p->template_locs.items[i];
    char *line = strchr(location, '\n');
    char *column = line ? strchr(line + 1, '\n') : NULL;
    if (p->template_uses[i] || !line || !column)
      continue;
    *line = '\0';
    if (p->options->binary)
      cubind_diag(location, (unsigned)atoi(line + 1), (unsigned)atoi(column + 1), "warning",
                  "template kernel '%s' has no instantiation in nvcc's binary: no stubs are "
                  "generated for it",
                  p->template_names.items[i]);
    else
      cubind_diag(location, (unsigned)atoi(line + 1), (unsigned)atoi(column + 1), "warning",
                  "template kernel '%s' has no explicit instantiation in this file: no stubs "
                  "are generated for it (add e.g. 'template __global__ void %s<float>(...);')",
                  p->template_names.items[i], p->template_names.items[i]);
    *line = '\n';
  }
}

/* ---- 2. The kernels of nvcc's binary ---------------------------------------------------- */

/* One kernel of the binary that the source parse did not bind. */
typedef struct candidate {
  const cubind_binary_kernel *kernel;
  char *name;    /* C++ name without the parameter list ("ns::reduce<float, 256u>"), or the
                    symbol of an extern "C" kernel */
  char *params;  /* "(float const*, float*, int)"; NULL for an extern "C" kernel */
  char *reason;  /* why it gets no stubs; NULL while it may get them */
  int unresolved; /* the wrapper did not resolve its name (another __CUDA_ARCH__ may) */
  int bound;
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

/*
 * Fills a candidate from its symbol: its names, or why it cannot be named from outside (the
 * demangler prints lambdas and unnamed types as "{lambda(int)#1}", "{unnamed type#1}").
 */
static void read_candidate(candidate *c, const cubind_binary_kernel *kernel) {
  char *demangled = cubind_demangle(kernel->symbol);
  memset(c, 0, sizeof *c);
  c->kernel = kernel;
  if (!demangled) {
    c->name = cubind_xstrdup(kernel->symbol);
    if (strncmp(kernel->symbol, "_Z", 2) == 0 || !cubind_is_identifier(kernel->symbol))
      c->reason = cubind_xstrdup("its symbol cannot be demangled");
  } else if (!split_demangled(demangled, &c->name, &c->params)) {
    c->name = cubind_xstrdup(demangled);
    c->reason = cubind_xstrdup("its demangled name is no function name");
  }
  if (!c->reason && kernel->internal)
    c->reason = cubind_xstrdup("it has internal linkage (static, or in an anonymous namespace): "
                               "its symbol is private to its cubin");
  else if (!c->reason && demangled && strstr(demangled, "{lambda("))
    c->reason = cubind_xstrdup("a template argument is the type of a lambda, which no code "
                               "outside its enclosing function can name");
  else if (!c->reason && demangled && strstr(demangled, "::{"))
    c->reason = cubind_xstrdup("a template argument is an unnamed or local type, which no code "
                               "outside its scope can name");
  free(demangled);
}

/* The wrapper line that names candidate i. */
static char *candidate_line(size_t index, const candidate *c) {
  if (!c->params) /* extern "C": one function per name */
    return cubind_xasprintf("static void *cubind_ref_%u = (void *)&::%s;", (unsigned)index,
                            c->name);
  return cubind_xasprintf("static void *cubind_ref_%u = (void *)static_cast<void (*)%s>(&::%s);",
                          (unsigned)index, c->params, c->name);
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

/* The C name a specialisation or plain kernel found through the binary gets. */
static char *binary_c_name(CXCursor function, const char *name) {
  const char *args = strchr(name, '<');
  if (!clang_Cursor_isNull(clang_getSpecializedCursorTemplate(function)))
    return specialization_c_name(function, args ? args : "");
  return take_string(clang_getCursorSpelling(function));
}

/* The kernel already bound under `c_name`, or NULL. */
static const cubind_kernel *kernel_named(const cubind_model *model, const char *c_name) {
  size_t i;
  for (i = 0; i < model->num_kernels; i++)
    if (model->kernels[i].c_name && strcmp(model->kernels[i].c_name, c_name) == 0)
      return &model->kernels[i];
  return NULL;
}

/*
 * Binds candidate c to what its wrapper line resolved to, or sets c->reason. Binds only a
 * __global__ function of the .cu itself whose mangling is the symbol.
 */
static void bind_candidate(parser *p, const wrapper *w, size_t line, candidate *c) {
  CXCursor function = w->functions[line];
  CXFile file;
  unsigned row, column, offset;
  char *mangled, *c_name, *usr;
  const cubind_kernel *taken;
  cubind_kernel *kernel;
  size_t i;
  if (clang_Cursor_isNull(function)) {
    c->unresolved = 1;
    c->reason = w->errors[line]
                    ? cubind_xasprintf("its name does not resolve in the .cu (%s)", w->errors[line])
                    : cubind_xstrdup("its name does not resolve to a function of the .cu");
    return;
  }
  mangled = take_string(clang_Cursor_getMangling(function));
  if (strcmp(mangled, c->kernel->symbol) != 0 || !is_global(function)) {
    c->reason = cubind_xasprintf("its name resolves to '%s', which is not this kernel", mangled);
    free(mangled);
    return;
  }
  free(mangled);
  if (!in_input_file(p, function)) {
    /* the file's name only: the generated header must not depend on where things live */
    char *path;
    clang_getExpansionLocation(clang_getCursorLocation(function), &file, &row, &column, &offset);
    path = file ? take_string(clang_getFileName(file)) : cubind_xstrdup("?");
    const char *where = cubind_basename(path);
    c->reason = clang_Location_isInSystemHeader(clang_getCursorLocation(function))
                    ? cubind_xasprintf("it is declared in a system header (%s)", where)
                    : cubind_xasprintf("it is declared in %s, not in the .cu: a header's kernels "
                                       "are bound by the .cu that declares them, so that no two "
                                       "modules define the same C functions",
                                       where);
    free(path);
    return;
  }
  c_name = binary_c_name(function, c->name);
  taken = kernel_named(p->model, c_name);
  if (taken) {
    c->reason = cubind_xasprintf("its C name '%s' is already %s's", c_name, taken->display_name);
    free(c_name);
    return;
  }
  kernel = cubind_model_add_kernel(p->model);
  read_kernel(p, function, kernel);
  /* nobody asked for this kernel by name: a type C cannot pass makes it unbound, not an error */
  for (i = 0; i < kernel->num_params; i++)
    if (kernel->params[i].unsupported) {
      c->reason = cubind_xasprintf("parameter '%s': %s", kernel->params[i].name,
                                   kernel->params[i].unsupported);
      cubind_kernel_clear(&p->model->kernels[--p->model->num_kernels]);
      free(c_name);
      return;
    }
  substitute_template_constants(function, kernel);
  free(kernel->c_name);
  kernel->c_name = c_name;
  free(kernel->display_name);
  kernel->display_name = cubind_xstrdup(c->name);
  /* the wrapper includes the .cu by its real path: name it as the user did */
  free(kernel->location.file);
  kernel->location.file = cubind_xstrdup(p->input);
  for (i = 0; i < kernel->num_params; i++) {
    free(kernel->params[i].location.file);
    kernel->params[i].location.file = cubind_xstrdup(p->input);
  }
  kernel->only_in = only_in(p->options->binary, c->kernel);
  usr = take_string(clang_getCursorUSR(function));
  cubind_strlist_add(&p->kernel_usrs, usr);
  free(usr);
  count_template_use(p, function);
  c->bound = 1;
}

/*
 * The main parse's arguments with __CUDA_ARCH__ set to `cuda_arch` (750 for sm_75) and without
 * the precompiled prelude (built for the main parse's value).
 */
static void arguments_for_arch(const cubind_strlist *args, unsigned cuda_arch,
                               cubind_strlist *out) {
  size_t i;
  for (i = 0; i < args->count; i++) {
    if (strcmp(args->items[i], "-include-pch") == 0) {
      i++;
    } else if (strncmp(args->items[i], "-D__CUDA_ARCH__=", 16) == 0) {
      char *define = cubind_xasprintf("-D__CUDA_ARCH__=%u", cuda_arch);
      cubind_strlist_add(out, define);
      free(define);
    } else {
      cubind_strlist_add(out, args->items[i]);
    }
  }
}

/* 1 when the binary's code for `arch` has `kernel`. */
static int has_arch(const cubind_binary_kernel *kernel, unsigned arch) {
  size_t i;
  for (i = 0; i < kernel->num_archs; i++)
    if (kernel->archs[i] == arch)
      return 1;
  return 0;
}

/* Whether resolve_candidates(..., arch, main_arch) takes candidate c. */
static int takes(const candidate *c, unsigned arch, unsigned main_arch) {
  if (c->bound)
    return 0;
  if (!arch)
    return !c->reason;
  /* unresolved under the main parse's __CUDA_ARCH__, and absent from that architecture's
     code: declared under a guard for `arch`, its first architecture */
  return c->unresolved && !has_arch(c->kernel, main_arch) && c->kernel->archs[0] == arch;
}

/*
 * Resolves, in one wrapper, the candidates that `takes` picks for `arch` (0: the main parse's
 * __CUDA_ARCH__; else arch * 10), and binds them.
 */
static void resolve_candidates(parser *p, const cubind_strlist *args, CXIndex index,
                               candidate *cands, size_t count, unsigned arch,
                               unsigned main_arch) {
  cubind_strlist lines = {0}, arch_args = {0};
  size_t *which = cubind_xcalloc(count + 1, sizeof *which), picked = 0, i;
  wrapper w;
  for (i = 0; i < count; i++) {
    char *line;
    if (!takes(&cands[i], arch, main_arch))
      continue;
    free(cands[i].reason); /* a second try forgets the first one's reason */
    cands[i].reason = NULL;
    cands[i].unresolved = 0;
    line = candidate_line(picked, &cands[i]);
    cubind_strlist_add(&lines, line);
    free(line);
    which[picked++] = i;
  }
  if (picked) {
    if (arch)
      arguments_for_arch(args, arch * 10, &arch_args);
    wrapper_parse(p, arch ? &arch_args : args, index, &lines, &w);
    for (i = 0; i < picked; i++)
      bind_candidate(p, &w, i, &cands[which[i]]);
    wrapper_free(&w);
  }
  cubind_strlist_free(&lines);
  cubind_strlist_free(&arch_args);
  free(which);
}

/*
 * Counts an unbound specialisation ("ns::apply<...>") against its template, so that no
 * warning calls that template uninstantiated: the header lists why it has no stubs.
 */
static void count_unbound_use(parser *p, const char *name) {
  size_t i;
  for (i = 0; i < p->template_quals.count; i++) {
    const char *qualified = p->template_quals.items[i] + 2; /* without the leading "::" */
    size_t length = strlen(qualified);
    if (strncmp(name, qualified, length) == 0 && name[length] == '<')
      p->template_uses[i]++;
  }
}

/* parse_add_binary_kernels: see parse_internal.h. */
void parse_add_binary_kernels(parser *p, const cubind_strlist *args, CXIndex index) {
  const cubind_binary *binary = p->options->binary;
  candidate *cands;
  char *bound;
  size_t count = 0, i, k;
  const unsigned main_arch = CUBIND_PARSE_CUDA_ARCH / 10;
  if (!binary)
    return;
  cands = cubind_xcalloc(binary->num_kernels + 1, sizeof *cands);
  bound = cubind_xcalloc(binary->num_kernels + 1, 1);
  /* what the source bound: marked, with the architectures lacking it; a warning when none has
     it */
  for (k = 0; k < p->model->num_kernels; k++) {
    cubind_kernel *kernel = &p->model->kernels[k];
    const cubind_binary_kernel *found = cubind_binary_find(binary, kernel->symbol);
    if (found) {
      bound[found - binary->kernels] = 1;
      kernel->only_in = only_in(binary, found);
    } else if (kernel->linkage == CUBIND_LINKAGE_EXTERNAL)
      cubind_diag(kernel->location.file, kernel->location.line, kernel->location.column,
                  "warning",
                  "kernel '%s' is not in nvcc's binary (declared but not defined here?): its "
                  "C functions will fail with CUBIND_ERROR_KERNEL_NOT_FOUND",
                  kernel->display_name);
  }
  for (i = 0; i < binary->num_kernels; i++)
    if (!bound[i])
      read_candidate(&cands[count++], &binary->kernels[i]);
  free(bound);
  qsort(cands, count, sizeof *cands, compare_candidates);
  resolve_candidates(p, args, index, cands, count, 0, main_arch);
  /* a kernel behind another architecture's guard: retried with that __CUDA_ARCH__ */
  for (i = 0; i < binary->num_archs; i++)
    if (binary->archs[i] != main_arch)
      resolve_candidates(p, args, index, cands, count, binary->archs[i], main_arch);
  for (i = 0; i < count; i++) {
    if (!cands[i].bound) {
      cubind_model_add_unbound(p->model, cands[i].kernel->symbol, cands[i].name,
                               cands[i].reason ? cands[i].reason : "it was not resolved");
      count_unbound_use(p, cands[i].name);
    }
    free(cands[i].name);
    free(cands[i].params);
    free(cands[i].reason);
  }
  free(cands);
}
