/* check.c: semantic checks on the model (see check.h). */
#include "check.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static void error_at(const cubind_location *where, const char *message) {
  cubind_diag(where->file, where->line, where->column, "error", "%s", message);
}

/* Reports `message` (a new string, freed here) at `where`. */
static void error_take(const cubind_location *where, char *message) {
  error_at(where, message);
  free(message);
}

/* ---- Annotations ------------------------------------------------------------------------ */

typedef struct annotation_kind {
  const char *text; /* the annotate string, up to ':' for the _N forms */
  const char *macro;
  cubind_param_direction direction;
  int has_count;
} annotation_kind;

static const annotation_kind annotation_kinds[] = {
    {"cubind.in", "CUBIND_IN", CUBIND_PARAM_IN, 0},
    {"cubind.out", "CUBIND_OUT", CUBIND_PARAM_OUT, 0},
    {"cubind.inout", "CUBIND_INOUT", CUBIND_PARAM_INOUT, 0},
    {"cubind.in_n", "CUBIND_IN_N", CUBIND_PARAM_IN, 1},
    {"cubind.out_n", "CUBIND_OUT_N", CUBIND_PARAM_OUT, 1},
    {"cubind.inout_n", "CUBIND_INOUT_N", CUBIND_PARAM_INOUT, 1},
};

/* The kind of an annotate string, or NULL when it is no cubind annotation we know. */
static const annotation_kind *find_annotation(const char *text) {
  size_t i;
  for (i = 0; i < sizeof annotation_kinds / sizeof annotation_kinds[0]; i++) {
    const annotation_kind *kind = &annotation_kinds[i];
    size_t length = strlen(kind->text);
    if (strncmp(text, kind->text, length) == 0 &&
        (kind->has_count ? text[length] == ':' : text[length] == '\0'))
      return kind;
  }
  return NULL;
}

static const cubind_param *find_param(const cubind_kernel *kernel, const char *name,
                                      size_t length) {
  size_t i;
  for (i = 0; i < kernel->num_params; i++)
    if (strlen(kernel->params[i].name) == length &&
        strncmp(kernel->params[i].name, name, length) == 0)
      return &kernel->params[i];
  return NULL;
}

/* Words a count expression may use besides parameter names (sizeof and type names in it). */
static int is_count_keyword(const char *word, size_t length) {
  static const char *const words[] = {
      "sizeof",  "char",    "short",    "int",      "long",     "unsigned", "signed",
      "float",   "double",  "size_t",   "int8_t",   "int16_t",  "int32_t",  "int64_t",
      "uint8_t", "uint16_t", "uint32_t", "uint64_t"};
  size_t i;
  for (i = 0; i < sizeof words / sizeof words[0]; i++)
    if (strlen(words[i]) == length && strncmp(words[i], word, length) == 0)
      return 1;
  return 0;
}

/*
 * NULL when the operator at `at` only computes a value; else what is wrong with it. Comments
 * would swallow the rest of the generated line; assignments, ++ and -- would change the
 * stub's arguments before the launch.
 */
static const char *count_operator_problem(const char *at, size_t *length) {
  static const char *const assigning[] = {"<<=", ">>=", "++", "--", "+=", "-=", "*=", "/=",
                                          "%=",  "&=",  "|=", "^="};
  static const char *const computing[] = {"==", "!=", "<=", ">=", "<<", ">>", "&&", "||"};
  size_t i;
  *length = 1;
  if (at[0] == '/' && (at[1] == '/' || at[1] == '*'))
    return "contains a comment";
  if (at[0] == '?' && at[1] == '?') /* two question marks start a trigraph in C99 */
    return "contains '?\?' (a trigraph in C)";
  for (i = 0; i < sizeof assigning / sizeof assigning[0]; i++)
    if (strncmp(at, assigning[i], strlen(assigning[i])) == 0)
      return "assigns or increments";
  for (i = 0; i < sizeof computing / sizeof computing[0]; i++)
    if (strncmp(at, computing[i], 2) == 0) {
      *length = 2;
      return NULL;
    }
  if (at[0] == '=')
    return "assigns ('=')";
  return NULL;
}

/*
 * A count expression may use the kernel's scalar parameters, literals, operators, parentheses
 * and sizeof: it is pasted into the generated C as `(size_t)(expr)`.
 */
static void check_count_expr(const cubind_kernel *kernel, const cubind_param *param,
                             const char *expr) {
  const char *at = expr;
  int empty = 1, depth = 0;
  while (*at) {
    unsigned char c = (unsigned char)*at;
    if (isspace(c)) {
      at++;
    } else if (isdigit(c) || (c == '.' && isdigit((unsigned char)at[1]))) {
      /* a number, with its suffixes and exponent: 10u, 0x1F, 1e3 */
      while (isalnum((unsigned char)*at) || *at == '.' || *at == '_')
        at++;
      empty = 0;
    } else if (isalpha(c) || c == '_') {
      const char *start = at;
      const cubind_param *named;
      while (isalnum((unsigned char)*at) || *at == '_')
        at++;
      empty = 0;
      if (is_count_keyword(start, (size_t)(at - start)))
        continue;
      named = find_param(kernel, start, (size_t)(at - start));
      if (!named) {
        error_take(&param->location,
                   cubind_xasprintf("count expression '%s' of parameter '%s' names '%.*s', "
                                    "which is not a parameter of kernel '%s'",
                                    expr, param->name, (int)(at - start), start,
                                    kernel->display_name));
        return;
      }
      if (!named->is_scalar) {
        error_take(&param->location,
                   cubind_xasprintf("count expression '%s' of parameter '%s' names '%s', which "
                                    "is not a scalar parameter (its type is '%s')",
                                    expr, param->name, named->name, named->type_spelling));
        return;
      }
    } else if (c == '(' || c == ')') {
      /* pasted as (size_t)(expr): an unbalanced parenthesis would change the generated code */
      depth += c == '(' ? 1 : -1;
      if (depth < 0)
        break;
      at++;
    } else if (strchr("+-*/%<>=!&|^~?:,", c)) {
      size_t length;
      const char *problem = count_operator_problem(at, &length);
      if (problem) {
        error_take(&param->location,
                   cubind_xasprintf("count expression '%s' of parameter '%s' %s: a count "
                                    "expression is pasted into the generated C and must only "
                                    "compute a value",
                                    expr, param->name, problem));
        return;
      }
      at += length;
    } else {
      error_take(&param->location,
                 cubind_xasprintf("count expression '%s' of parameter '%s' may only use scalar "
                                  "parameters, literals, operators, parentheses and sizeof",
                                  expr, param->name));
      return;
    }
  }
  if (depth != 0)
    error_take(&param->location,
               cubind_xasprintf("count expression '%s' of parameter '%s' has unbalanced "
                                "parentheses",
                                expr, param->name));
  else if (empty)
    error_take(&param->location,
               cubind_xasprintf("count expression of parameter '%s' is empty", param->name));
}

/* Turns a parameter's annotate strings into its direction and count expression. */
static void resolve_annotations(const cubind_kernel *kernel, cubind_param *param) {
  const annotation_kind *first = NULL;
  size_t i;
  for (i = 0; i < param->annotations.count; i++) {
    const char *text = param->annotations.items[i];
    const annotation_kind *kind = find_annotation(text);
    if (!kind) {
      error_take(&param->location,
                 cubind_xasprintf("unknown cubind annotation '%s' on parameter '%s'", text,
                                  param->name));
      continue;
    }
    if (first) {
      error_take(&param->location,
                 cubind_xasprintf("parameter '%s' of kernel '%s' has two direction annotations "
                                  "(%s and %s): use one, e.g. CUBIND_INOUT",
                                  param->name, kernel->display_name, first->macro, kind->macro));
      continue;
    }
    first = kind;
    if (!param->is_pointer) {
      error_take(&param->location,
                 cubind_xasprintf("%s on parameter '%s' of kernel '%s', which is not a pointer "
                                  "(its type is '%s'): direction annotations apply to pointers",
                                  kind->macro, param->name, kernel->display_name,
                                  param->type_spelling));
      continue;
    }
    if (param->elem_size == 0) {
      error_take(&param->location,
                 cubind_xasprintf("%s on parameter '%s': the size of its element type is "
                                  "unknown (incomplete type)",
                                  kind->macro, param->name));
      continue;
    }
    param->direction = kind->direction;
    if (kind->has_count) {
      const char *expr = strchr(text, ':') + 1;
      param->count_expr = cubind_xstrdup(expr);
      check_count_expr(kernel, param, expr);
    }
  }
}

/* ---- Names ------------------------------------------------------------------------------ */

/* Gives unnamed parameters a name the generated C can use: cubind_arg<index>. */
static void name_unnamed_params(cubind_kernel *kernel) {
  size_t i;
  for (i = 0; i < kernel->num_params; i++) {
    cubind_param *param = &kernel->params[i];
    if (!param->name[0]) {
      free(param->name);
      param->name = cubind_xasprintf("cubind_arg%u", (unsigned)i);
    } else {
      param->user_named = 1;
    }
  }
}

/* Checks that the names the generated C uses for parameters are free. */
static void check_param_names(const cubind_kernel *kernel) {
  size_t i, j;
  for (i = 0; i < kernel->num_params; i++) {
    cubind_param *param = &kernel->params[i];
    if (!param->user_named)
      continue;
    /* `cfg` is the stubs' first argument; cubind_* names are the generator's own; `restrict`
       is a keyword in C but not in C++. */
    if (strcmp(param->name, "cfg") == 0 || strncmp(param->name, "cubind_", 7) == 0 ||
        strcmp(param->name, "restrict") == 0)
      error_take(&param->location,
                 cubind_xasprintf("parameter name '%s' of kernel '%s' is reserved in the "
                                  "generated C code: rename the parameter",
                                  param->name, kernel->display_name));
  }
  /* `<p>_count`, the extra argument of an annotated pointer without _N(expr), must be free. */
  for (i = 0; i < kernel->num_params; i++) {
    const cubind_param *param = &kernel->params[i];
    if (param->direction == CUBIND_PARAM_DEVICE || param->count_expr)
      continue;
    for (j = 0; j < kernel->num_params; j++) {
      const char *other = kernel->params[j].name;
      size_t length = strlen(param->name);
      if (strncmp(other, param->name, length) == 0 && strcmp(other + length, "_count") == 0)
        error_take(&kernel->params[j].location,
                   cubind_xasprintf("parameter '%s' of kernel '%s' collides with the generated "
                                    "count argument of parameter '%s' in %s_call",
                                    other, kernel->display_name, param->name, kernel->c_name));
    }
  }
}

static int compare_names(const void *a, const void *b) {
  const cubind_kernel *const *x = a, *const *y = b;
  int order = strcmp((*x)->c_name, (*y)->c_name);
  if (order)
    return order;
  return *x < *y ? -1 : *x > *y; /* keep source order among equal names */
}

/* Two kernels with the same C name would define the same <name>_launch and <name>_call. */
static void check_collisions(cubind_model *model) {
  const cubind_kernel **sorted;
  size_t i;
  if (model->num_kernels < 2)
    return;
  sorted = cubind_xcalloc(model->num_kernels, sizeof *sorted);
  for (i = 0; i < model->num_kernels; i++)
    sorted[i] = &model->kernels[i];
  qsort(sorted, model->num_kernels, sizeof *sorted, compare_names);
  for (i = 1; i < model->num_kernels; i++) {
    const cubind_kernel *first = sorted[i - 1], *second = sorted[i];
    size_t j = i - 1;
    if (strcmp(first->c_name, second->c_name) != 0)
      continue;
    while (j > 0 && strcmp(sorted[j - 1]->c_name, second->c_name) == 0)
      j--; /* report against the first kernel of that name */
    first = sorted[j];
    error_take(&second->location,
               cubind_xasprintf("kernel '%s' and kernel '%s' (at %s:%u:%u) both generate "
                                "%s_launch and %s_call: rename one of them",
                                second->display_name, first->display_name, first->location.file,
                                first->location.line, first->location.column, second->c_name,
                                second->c_name));
  }
  free(sorted);
}

/* cubind_check: see check.h. */
int cubind_check(cubind_model *model) {
  unsigned before = cubind_error_count();
  size_t k, p;
  for (k = 0; k < model->num_kernels; k++) {
    cubind_kernel *kernel = &model->kernels[k];
    name_unnamed_params(kernel);
    /* cubind_module_launch / cubind_module_call are the runtime's own (cubind/generated.h) */
    if (strncmp(kernel->c_name, "cubind_", 7) == 0)
      error_take(&kernel->location,
                 cubind_xasprintf("kernel '%s' would generate %s_launch and %s_call, but names "
                                  "beginning with cubind_ are reserved for cubind: rename the "
                                  "kernel",
                                  kernel->display_name, kernel->c_name, kernel->c_name));
    if (kernel->linkage == CUBIND_LINKAGE_STATIC)
      error_take(&kernel->location,
                 cubind_xasprintf("kernel '%s' is static: its name in the cubin cannot be known "
                                  "and C cannot call it; remove 'static'",
                                  kernel->display_name));
    else if (kernel->linkage == CUBIND_LINKAGE_ANONYMOUS_NS)
      error_take(&kernel->location,
                 cubind_xasprintf("kernel '%s' is in an anonymous namespace: its name in the "
                                  "cubin cannot be known and C cannot call it; use a named "
                                  "namespace",
                                  kernel->display_name));
    for (p = 0; p < kernel->num_params; p++) {
      cubind_param *param = &kernel->params[p];
      if (param->unsupported)
        error_take(&param->location,
                   cubind_xasprintf("parameter '%s' of kernel '%s': %s", param->name,
                                    kernel->display_name, param->unsupported));
      else
        resolve_annotations(kernel, param);
    }
    check_param_names(kernel);
  }
  check_collisions(model);
  return cubind_error_count() > before;
}
