/*
 * check.c: every decision about a parsed model (see check.h), in one place and without
 * libclang, so that the fuzzer reaches each rule. The parse records facts; here they become
 * errors, warnings, bound kernels and unbound ones:
 *
 *   names          the .cu's file name, unnamed parameters, reserved and colliding C names
 *   annotations    directions and count expressions
 *   kernels        which are bound, which are listed as unbound (and why), which are errors
 *   templates      which have no specialisation at all
 *   variables      which get copy functions
 *   records        which the generated code declares, and whether C can name them apart
 */
#include "check.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <cubind/annotations.h>

#include "count_expr.h"
#include "fs.h"
#include "util.h"

static void error_at(const cubind_location *where, const char *message) {
  cubind_diag(where->file, where->line, where->column, "error", "%s", message);
}

/* Reports `message` (a new string, freed here) at `where`. */
static void error_take(const cubind_location *where, char *message) {
  error_at(where, message);
  free(message);
}

/* Reports a warning `message` (a new string, freed here) at `where`. */
static void warning_take(const cubind_location *where, char *message) {
  cubind_diag(where->file, where->line, where->column, "warning", "%s", message);
  free(message);
}

/* ---- Annotations ------------------------------------------------------------------------ */

typedef struct annotation_kind {
  const char *text; /* the annotate string (<cubind/annotations.h>); up to ':' for the _N forms */
  const char *macro;
  cubind_param_direction direction;
  int has_count;
} annotation_kind;

static const annotation_kind annotation_kinds[] = {
    {CUBIND_ANNOTATION_IN, "CUBIND_IN", CUBIND_PARAM_IN, 0},
    {CUBIND_ANNOTATION_OUT, "CUBIND_OUT", CUBIND_PARAM_OUT, 0},
    {CUBIND_ANNOTATION_INOUT, "CUBIND_INOUT", CUBIND_PARAM_INOUT, 0},
    {CUBIND_ANNOTATION_IN_N, "CUBIND_IN_N", CUBIND_PARAM_IN, 1},
    {CUBIND_ANNOTATION_OUT_N, "CUBIND_OUT_N", CUBIND_PARAM_OUT, 1},
    {CUBIND_ANNOTATION_INOUT_N, "CUBIND_INOUT_N", CUBIND_PARAM_INOUT, 1},
};

/* The kind of an annotate string, or NULL when it is no cubind annotation we know. */
static const annotation_kind *find_annotation(const char *text) {
  size_t i;
  for (i = 0; i < sizeof annotation_kinds / sizeof annotation_kinds[0]; i++) {
    const annotation_kind *kind = &annotation_kinds[i];
    size_t length = strlen(kind->text);
    if (strncmp(text, kind->text, length) == 0 && (kind->has_count || text[length] == '\0'))
      return kind;
  }
  return NULL;
}

/*
 * A count expression must be integer arithmetic over the kernel's scalar parameters that C can
 * compute: parsed and translated here (count_expr.c), so that what is accepted compiles.
 */
static void check_count_expr(const cubind_kernel *kernel, cubind_param *param, const char *expr) {
  char *error = NULL;
  param->count_code = cubind_count_translate(expr, kernel, &error);
  if (!param->count_code) {
    if (strcmp(error, "is empty") == 0)
      error_take(&param->location,
                 cubind_xasprintf("count expression of parameter '%s' is empty", param->name));
    else if (strlen(expr) > 80) /* quoted in part: the message stays one readable line */
      error_take(&param->location,
                 cubind_xasprintf("count expression '%.60s...' of parameter '%s' %s", expr,
                                  param->name, error));
    else
      error_take(&param->location, cubind_xasprintf("count expression '%s' of parameter '%s' %s",
                                                    expr, param->name, error));
    free(error);
  }
}

/*
 * The name of the kernel's CUBIND_ELEMENT_COUNT parameter (<cubind/elementwise.cuh>'s `n`,
 * which every annotated pointer without _N(expr) counts), or NULL for another kernel.
 */
static const char *element_count_name(const cubind_kernel *kernel) {
  size_t p, a;
  for (p = 0; p < kernel->num_params; p++)
    for (a = 0; a < kernel->params[p].annotations.count; a++)
      if (strcmp(kernel->params[p].annotations.items[a], CUBIND_ANNOTATION_ELEMENT_COUNT) == 0 ||
          strcmp(kernel->params[p].annotations.items[a], CUBIND_ANNOTATION_ELEMENT_MAP) == 0)
        return kernel->params[p].name;
  return NULL;
}

/* The role annotations of <cubind/elementwise.cuh>: 1 when `text` is one (recorded), else 0. */
static int resolve_role(const cubind_kernel *kernel, cubind_param *param, const char *text) {
  cubind_param_role role =
      strcmp(text, CUBIND_ANNOTATION_ELEMENT_COUNT) == 0       ? CUBIND_ROLE_ELEMENT_COUNT
      : strcmp(text, CUBIND_ANNOTATION_ELEMENT_MAP) == 0       ? CUBIND_ROLE_ELEMENT_MAP
      : strcmp(text, CUBIND_ANNOTATION_REDUCTION_SCRATCH) == 0 ? CUBIND_ROLE_REDUCTION_SCRATCH
                                                               : CUBIND_ROLE_NONE;
  if (role == CUBIND_ROLE_NONE)
    return 0;
  if (role != CUBIND_ROLE_REDUCTION_SCRATCH ? !param->is_scalar || param->is_pointer
                                            : !param->is_pointer)
    error_take(&param->location,
               cubind_xasprintf("annotation '%s' on parameter '%s' of kernel '%s' (its type is "
                                "'%s'): it belongs to <cubind/elementwise.cuh>'s macros",
                                text, param->name, kernel->display_name, param->type_spelling));
  else
    param->role = role;
  return 1;
}

/* Turns a parameter's annotate strings into its direction and count expression. */
static void resolve_annotations(const cubind_kernel *kernel, cubind_param *param) {
  const annotation_kind *first = NULL;
  size_t i;
  for (i = 0; i < param->annotations.count; i++) {
    const char *text = param->annotations.items[i];
    const annotation_kind *kind = find_annotation(text);
    if (!kind && resolve_role(kernel, param, text))
      continue;
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
    if ((kind->direction & CUBIND_PARAM_OUT) && param->pointee_const) {
      error_take(&param->location,
                 cubind_xasprintf("%s on parameter '%s' of kernel '%s', a pointer to const (its "
                                  "type is '%s'): %s_call would copy results back into a buffer "
                                  "the kernel promises not to change; use CUBIND_IN, or drop the "
                                  "const",
                                  kind->macro, param->name, kernel->display_name,
                                  param->type_spelling, kernel->c_name));
      continue;
    }
    param->direction = kind->direction;
    if (kind->has_count || element_count_name(kernel)) {
      /* an elementwise kernel's pointers without _N(expr) hold its element count */
      const char *expr = kind->has_count ? text + strlen(kind->text) : element_count_name(kernel);
      param->count_expr = cubind_xstrdup(expr);
      check_count_expr(kernel, param, expr);
    }
  }
}

/* ---- Names ------------------------------------------------------------------------------ */

/* Whether a parameter of `kernel` before `before` is named `name`. */
static int earlier_param_named(const cubind_kernel *kernel, size_t before, const char *name) {
  size_t i;
  for (i = 0; i < before; i++)
    if (strcmp(kernel->params[i].name, name) == 0)
      return 1;
  return 0;
}

/* What rename_name needs: a parameter's name in the .cu and in C. */
typedef struct param_rename {
  const char *from, *to;
} param_rename;

/* `to` for the name `from`, else NULL (cubind_kernel_map_count_names). */
static char *rename_name(const char *name, size_t length, void *data) {
  const param_rename *rename = data;
  return strlen(rename->from) == length && strncmp(name, rename->from, length) == 0
             ? cubind_xstrdup(rename->to)
             : NULL;
}

/* 1 when some parameter of `kernel` is named `name`. */
static int has_param_named(const cubind_kernel *kernel, const char *name) {
  return earlier_param_named(kernel, kernel->num_params, name);
}

/*
 * Gives every parameter a distinct name the generated C can use. The elements of a parameter
 * pack (`Args... args` of launch_all<float *, int>: two parameters named args) are named after
 * the pack and their place in it, args0 and args1. A name that C reserves (`restrict`, `_Bool`:
 * keywords of C that C++ lets a program use) or the generated code does (cubind_*: the stub's
 * cubind_args, cubind_cfg) gets a '_' after it (restrict_; a C caller passes arguments by their
 * place), in the count expressions that name it too. An unnamed parameter, or one whose name is
 * still taken, is cubind_arg<index>.
 */
static void name_params(cubind_kernel *kernel) {
  size_t i, j;
  for (i = 0; i < kernel->num_params; i++)
    kernel->params[i].user_named = kernel->params[i].name[0] != '\0';
  for (i = 0; i < kernel->num_params; i++) {
    cubind_param *param = &kernel->params[i];
    char *pack = param->name;
    unsigned element = 0;
    if (!param->user_named || earlier_param_named(kernel, i, pack))
      continue;
    for (j = i + 1; j < kernel->num_params && strcmp(kernel->params[j].name, pack) != 0; j++)
      ;
    if (j == kernel->num_params)
      continue; /* a name of its own */
    for (j = i; j < kernel->num_params; j++)
      if (kernel->params[j].name != pack && strcmp(kernel->params[j].name, pack) == 0) {
        free(kernel->params[j].name);
        kernel->params[j].name = cubind_xasprintf("%s%u", pack, ++element);
      }
    param->name = cubind_xasprintf("%s0", pack);
    free(pack);
  }
  for (i = 0; i < kernel->num_params; i++) {
    cubind_param *param = &kernel->params[i];
    char *renamed;
    /* cubind's own names (its functions' and the stubs' locals, and the runtime header's
       CUBIND_ macros, which would expand in a prototype) and C's keywords get a '_' */
    if (!param->user_named ||
        (strncmp(param->name, "cubind_", 7) != 0 && strncmp(param->name, "CUBIND_", 7) != 0 &&
         !cubind_c_only_keyword(param->name)))
      continue;
    renamed = cubind_xasprintf("%s_", param->name);
    while (has_param_named(kernel, renamed)) {
      char *longer = cubind_xasprintf("%s_", renamed);
      free(renamed);
      renamed = longer;
    }
    {
      param_rename rename;
      rename.from = param->name;
      rename.to = renamed;
      cubind_kernel_map_count_names(kernel, rename_name, &rename);
    }
    free(param->name);
    param->name = renamed;
  }
  for (i = 0; i < kernel->num_params; i++) {
    cubind_param *param = &kernel->params[i];
    if (!param->name[0] || earlier_param_named(kernel, i, param->name)) {
      free(param->name);
      param->name = cubind_xasprintf("cubind_arg%u", (unsigned)i);
    }
  }
}

/* 1 when `text` holds `word` as a whole C identifier ("const Pt *" holds "Pt", not "P"). */
static int spells_word(const char *text, const char *word) {
  size_t length = strlen(word);
  const char *at;
  for (at = strstr(text, word); at; at = strstr(at + 1, word)) {
    int before = at > text && (isalnum((unsigned char)at[-1]) || at[-1] == '_');
    int after = isalnum((unsigned char)at[length]) || at[length] == '_';
    if (!before && !after)
      return 1;
  }
  return 0;
}

/* Checks that the names the generated C uses for parameters are free. */
static void check_param_names(const cubind_kernel *kernel) {
  size_t i, j;
  /* A parameter named like a type the signature spells (`int size_t` before a _call's size_t
     count, `int Pt` before `Pt p`) would hide that type from the rest of the C prototype. */
  for (i = 0; i < kernel->num_params; i++) {
    const cubind_param *param = &kernel->params[i];
    const char *hidden = NULL;
    if (!param->user_named)
      continue;
    if (strcmp(param->name, "size_t") == 0 || strcmp(param->name, "bool") == 0)
      hidden = param->name;
    for (j = 0; j < kernel->num_params && !hidden; j++)
      if (j != i && kernel->params[j].c_type && spells_word(kernel->params[j].c_type, param->name))
        hidden = param->name;
    if (hidden)
      error_take(&param->location,
                 cubind_xasprintf("parameter '%s' of kernel '%s' has the name of a type the "
                                  "generated C signature spells, which it would hide there: "
                                  "rename the parameter",
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

/* ---- The file ---------------------------------------------------------------------------- */

/*
 * The generated .c spells #include "<stem>.cubind.h" and the header #line "<name>": a quote or
 * a control character in the name would end that string or line early and the generated code
 * would not compile.
 */
static void check_file_name(const cubind_model *model) {
  const char *at = cubind_unspellable(model->source_name);
  if (at && *at == '?')
    cubind_diag(NULL, 0, 0, "error",
                "cannot generate from '%s': its file name has '\?\?', which a C99 compiler may "
                "read as the start of a trigraph in the generated code; rename the file",
                model->source_name);
  else if (at)
    cubind_diag(NULL, 0, 0, "error",
                "cannot generate from '%s': its file name has a character (0x%02x) that "
                "#include \"...\" cannot spell in the generated code; rename the file",
                model->source_name, (unsigned)(unsigned char)*at);
}

/* ---- Kernels ------------------------------------------------------------------------------ */

/*
 * Why a kernel gets no C functions, or NULL when it gets them. A kernel C cannot call is listed
 * in the generated header with the reason, never an error: it does not take the other kernels
 * of its file down (only the user's annotation mistakes and C-name collisions are errors).
 */
static char *kernel_refusal(const cubind_model *model, const cubind_kernel *kernel) {
  size_t i;
  if (kernel->place == CUBIND_PLACE_SYSTEM)
    return cubind_xasprintf("it is declared in a system header (%s)", kernel->declared_in);
  if (kernel->bound_by)
    return cubind_xasprintf("it is declared in %s and bound by the stubs of an earlier source "
                            "of the same library (whose binary, %s, holds it)",
                            kernel->declared_in, kernel->bound_by);
  if (!kernel->defined && !kernel->in_binary)
    return cubind_xstrdup("it is only declared here, not defined: the stubs of the .cu that "
                          "defines it bind it");
  if ((kernel->linkage == CUBIND_LINKAGE_ANONYMOUS_NS ||
       kernel->linkage == CUBIND_LINKAGE_ANONYMOUS_TYPE) &&
      !kernel->in_binary)
    return cubind_xasprintf(
        model->has_binary
            ? "it %s an anonymous namespace, and nvcc's binary holds no kernel of its name"
            : "it %s an anonymous namespace, which nvcc names after the file's path: only "
              "nvcc's binary tells its symbol (cubind-gen --kernels-from; add_gpu_kernels "
              "passes it)",
        kernel->linkage == CUBIND_LINKAGE_ANONYMOUS_NS ? "is in" : "takes a type of");
  if (kernel->linkage == CUBIND_LINKAGE_STATIC && model->relocatable && !kernel->in_binary)
    return cubind_xstrdup("it is static, and relocatable device code (-rdc=true) names it "
                          "after the file's path: only nvcc's binary tells its symbol "
                          "(cubind-gen --kernels-from; add_gpu_kernels passes it)");
  if (kernel->symbol_unknown && !model->has_binary)
    return cubind_xstrdup("a template argument is a pointer, whose mangling by nvcc differs "
                          "from clang's: only nvcc's binary tells its symbol (cubind-gen "
                          "--kernels-from; add_gpu_kernels passes it)");
  if (model->has_binary && !kernel->in_binary)
    /* its C functions could only fail (CUBIND_ERROR_KERNEL_NOT_FOUND), and its C name may be
       the one of the kernel nvcc did emit (a signature under another #if) */
    return cubind_xstrdup("it is not in nvcc's binary: a preprocessor condition nvcc did not "
                          "take (another -D, __CUDA_ARCH__, __CUDACC_VER_MAJOR__, a macro "
                          "clang defines and nvcc does not: __clang__, CUDA_VERSION without "
                          "#include <cuda.h>), or a binary of another .cu or an older one");
  if (kernel->binary_layouts_differ)
    return cubind_xstrdup("the binary's architectures give its parameters different sizes "
                          "(a signature under #if __CUDA_ARCH__): one C prototype cannot "
                          "launch the code of each");
  for (i = 0; i < kernel->num_params; i++)
    if (kernel->params[i].unsupported)
      return cubind_xasprintf("parameter '%s': %s", kernel->params[i].name,
                              kernel->params[i].unsupported);
  return NULL;
}

/* The bound kernel already named `c_name`, or NULL. */
static const cubind_kernel *bound_named(const cubind_model *model, const char *bound,
                                        size_t before, const char *c_name) {
  size_t i;
  for (i = 0; i < before; i++)
    if (bound[i] && strcmp(model->kernels[i].c_name, c_name) == 0)
      return &model->kernels[i];
  return NULL;
}

/*
 * Decides, in the model's order (the source's kernels, then explicit instantiations, then the
 * binary's), which kernels get C functions: every kernel C can call, except one of the binary
 * whose C name an earlier kernel took (listed); two kernels the source names that would get one
 * C name are an error naming both.
 */
static void decide_kernels(cubind_model *model, char *bound) {
  size_t k;
  for (k = 0; k < model->num_kernels; k++) {
    cubind_kernel *kernel = &model->kernels[k];
    const cubind_kernel *taken;
    char *refusal;
    name_params(kernel);
    refusal = kernel_refusal(model, kernel);
    taken = refusal ? NULL : bound_named(model, bound, k, kernel->c_name);
    if (taken && kernel->origin == CUBIND_ORIGIN_BINARY &&
        strcmp(taken->display_name, kernel->display_name) == 0)
      /* a declaration the binary's architectures see differently (#if __CUDA_ARCH__): the
         C functions are those of the one the parse saw (parse_main_arch) */
      refusal = cubind_xasprintf("its C name '%s' is taken by another '%s' of other parameter "
                                 "types (its declaration differs between the binary's "
                                 "architectures: only one gets C functions)",
                                 kernel->c_name, taken->display_name);
    else if (taken && kernel->origin == CUBIND_ORIGIN_BINARY)
      refusal = cubind_xasprintf("its C name '%s' is already %s's", kernel->c_name,
                                 taken->display_name);
    else if (taken)
      error_take(&kernel->location,
                 cubind_xasprintf("kernel '%s' and kernel '%s' (at %s:%u:%u) both generate "
                                  "%s_launch and %s_call: rename one of them",
                                  kernel->display_name, taken->display_name, taken->location.file,
                                  taken->location.line, taken->location.column, kernel->c_name,
                                  kernel->c_name));
    if (refusal) {
      /* the .cu's own kernels are worth a word on stderr, and so are the binary's instances of
         its templates that lose their C name to another kernel (renaming one helps); a header's
         or the binary's others are only listed in the generated header */
      if (kernel->place == CUBIND_PLACE_INPUT &&
          (kernel->origin != CUBIND_ORIGIN_BINARY || taken))
        warning_take(&kernel->location,
                     cubind_xasprintf("kernel '%s' gets no C functions: %s",
                                      kernel->display_name, refusal));
      /* an instance only host code launches, of a template of the .cu, whose parameters C
         cannot take: one warning per template (check_unresolved_instances) */
      cubind_model_add_unbound(model, kernel->symbol, kernel->display_name, refusal)
          ->template_warning = kernel->place == CUBIND_PLACE_INPUT &&
                               kernel->origin == CUBIND_ORIGIN_BINARY && !taken;
      free(refusal);
      continue;
    }
    bound[k] = 1;
    if (strncmp(kernel->c_name, "cubind_", 7) == 0)
      /* cubind_module_launch / cubind_module_call are the runtime's own */
      error_take(&kernel->location,
                 cubind_xasprintf("kernel '%s' would generate %s_launch and %s_call, but names "
                                  "beginning with cubind_ are reserved for cubind: rename the "
                                  "kernel",
                                  kernel->display_name, kernel->c_name, kernel->c_name));
  }
}

/* "(0:8, 8:4)": a parameter layout for messages (a new string). */
static char *layout_text(const cubind_slot *slots, const cubind_param *params, size_t count) {
  cubind_buf text = {0};
  size_t i;
  cubind_buf_puts(&text, "(");
  for (i = 0; i < count; i++)
    cubind_buf_printf(&text, "%s%llu:%llu", i ? ", " : "", slots ? slots[i].offset : params[i].offset,
                      slots ? slots[i].size : params[i].size);
  cubind_buf_puts(&text, ")");
  return text.data;
}

/*
 * A bound kernel's parameters as the parse lays them out must be those of nvcc's binary (its
 * .nv.info): an extern "C" kernel is found by name alone, so a binary built from other
 * definitions (another -D, a signature under #ifdef __NVCC__) would otherwise get stubs of the
 * wrong types without a word.
 */
static void check_binary_layout(const cubind_kernel *kernel) {
  size_t i;
  int same = kernel->binary_num_params == (long)kernel->num_params;
  for (i = 0; same && i < kernel->num_params; i++)
    same = (kernel->params[i].offset_varies ||
            kernel->binary_layout[i].offset == kernel->params[i].offset) &&
           kernel->binary_layout[i].size == kernel->params[i].size;
  if (!same) {
    char *binary = layout_text(kernel->binary_layout, NULL, (size_t)kernel->binary_num_params);
    char *parsed = layout_text(NULL, kernel->params, kernel->num_params);
    error_take(&kernel->location,
               cubind_xasprintf("kernel '%s' has %ld parameters at (offset:size) %s in nvcc's "
                                "binary but %u at %s in the .cu as cubind-gen parses it: the "
                                "binary was built from other definitions (another -D, a "
                                "signature under #ifdef __NVCC__ or __CUDA_ARCH__, or under a "
                                "macro only clang defines: __clang__, CUDA_VERSION without "
                                "#include <cuda.h>?); give cubind-gen the options nvcc had",
                                kernel->display_name, kernel->binary_num_params, binary,
                                (unsigned)kernel->num_params, parsed));
    free(binary);
    free(parsed);
  }
}

/* Checks the parameters of every bound kernel: names, annotations, count expressions. */
static void check_parameters(cubind_model *model, const char *bound) {
  size_t k, p;
  for (k = 0; k < model->num_kernels; k++) {
    cubind_kernel *kernel = &model->kernels[k];
    if (!bound[k])
      continue;
    for (p = 0; p < kernel->num_params; p++)
      if (!kernel->params[p].unsupported)
        resolve_annotations(kernel, &kernel->params[p]);
    check_param_names(kernel);
    if (kernel->binary_num_params >= 0)
      check_binary_layout(kernel);
  }
}

/* Moves the kernels that are not bound out of model->kernels (their entries are in unbound). */
static void drop_unbound(cubind_model *model, const char *bound) {
  size_t k, kept = 0;
  for (k = 0; k < model->num_kernels; k++) {
    if (bound[k])
      model->kernels[kept++] = model->kernels[k];
    else
      cubind_kernel_clear(&model->kernels[k]);
  }
  model->num_kernels = kept;
}

static int compare_unbound(const void *a, const void *b) {
  const cubind_unbound *x = a, *y = b;
  int order = strcmp(x->name, y->name);
  return order ? order : strcmp(x->symbol, y->symbol);
}

/* ---- Templates and findings ----------------------------------------------------------------- */

/* How many specialisations of template t the parse met, bound or not. */
static size_t template_uses(const cubind_model *model, size_t t) {
  const cubind_template *pattern = &model->templates[t];
  size_t length = strlen(pattern->qualified), uses = 0, i;
  for (i = 0; i < model->num_kernels; i++)
    uses += model->kernels[i].template_index == (long)t;
  for (i = 0; i < model->num_unbound; i++)
    uses += strncmp(model->unbound[i].name, pattern->qualified, length) == 0 &&
            model->unbound[i].name[length] == '<';
  for (i = 0; i < model->num_findings; i++)
    uses += model->findings[i].kind == CUBIND_FINDING_UNRESOLVED_INSTANTIATION &&
            strcmp(model->findings[i].name, pattern->name) == 0;
  return uses;
}

/*
 * Warns about each template kernel of the .cu whose instances in nvcc's binary get no C
 * functions (cubind_unbound.template_warning): those cubind-gen could not name in the .cu, and
 * those only host code launches whose parameters C cannot take. Listed in the header only,
 * they went unnoticed (llama.cpp's kernels templated on static functions were all unbound,
 * without a word).
 */
static void check_unresolved_instances(const cubind_model *model) {
  size_t t, i;
  for (t = 0; t < model->num_templates; t++) {
    const cubind_template *pattern = &model->templates[t];
    size_t length = strlen(pattern->qualified), count = 0;
    const cubind_unbound *first = NULL;
    if (pattern->place != CUBIND_PLACE_INPUT)
      continue;
    for (i = 0; i < model->num_unbound; i++)
      if (strncmp(model->unbound[i].name, pattern->qualified, length) == 0 &&
          model->unbound[i].name[length] == '<' && model->unbound[i].template_warning) {
        first = first ? first : &model->unbound[i];
        count++;
      }
    if (first)
      warning_take(&pattern->location,
                   cubind_xasprintf("%zu instance%s of template kernel '%s' in nvcc's binary "
                                    "get%s no C functions (listed in the generated header): "
                                    "'%s': %s",
                                    count, count == 1 ? "" : "s", pattern->name,
                                    count == 1 ? "s" : "", first->name, first->reason));
  }
}

/* Warns about each template kernel for which no specialisation was met at all. */
static void check_templates(const cubind_model *model) {
  size_t t;
  check_unresolved_instances(model);
  for (t = 0; t < model->num_templates; t++) {
    const cubind_template *pattern = &model->templates[t];
    /* a header's templates serve many files: this one need not use them */
    if (pattern->place != CUBIND_PLACE_INPUT || template_uses(model, t))
      continue;
    if (model->has_binary)
      warning_take(&pattern->location,
                   cubind_xasprintf("template kernel '%s' has no instantiation in nvcc's "
                                    "binary: no stubs are generated for it",
                                    pattern->name));
    else
      warning_take(&pattern->location,
                   cubind_xasprintf("template kernel '%s' has no explicit instantiation in this "
                                    "file: no stubs are generated for it (add one for each "
                                    "specialisation: 'template __global__ void %s<...>(...);')",
                                    pattern->name, pattern->name));
  }
}

/* Reports what the parse met besides the kernels themselves. */
static void check_findings(const cubind_model *model) {
  size_t i;
  for (i = 0; i < model->num_findings; i++) {
    const cubind_finding *finding = &model->findings[i];
    switch (finding->kind) {
    case CUBIND_FINDING_UNRESOLVED_INSTANTIATION:
      warning_take(&finding->location,
                   cubind_xasprintf("explicit instantiation of '%s' could not be resolved (%s); "
                                    "skipped",
                                    finding->name,
                                    finding->detail ? finding->detail
                                                    : "it names no __global__ function"));
      break;
    case CUBIND_FINDING_AMBIGUOUS_INSTANTIATION:
      /* with nvcc's binary, its instances are bound all the same (named from the binary) */
      if (!model->has_binary)
        warning_take(&finding->location,
                     cubind_xasprintf("several template kernels are named '%s' here "
                                      "(overloads): its explicit instantiations are skipped",
                                      finding->name));
      break;
    case CUBIND_FINDING_VARIABLE_TEMPLATE:
      warning_take(&finding->location,
                   cubind_xasprintf("variable template '%s' gets no copy functions: they are "
                                    "generated for the variables the .cu defines, not for a "
                                    "template's instances (define a variable of each type "
                                    "the host copies to)",
                                    finding->name));
      break;
    case CUBIND_FINDING_VARIADIC_KERNEL:
      error_take(&finding->location,
                 cubind_xasprintf("kernel '%s' takes a variable argument list ('...'), which a "
                                  "__global__ function cannot (nvcc rejects it)",
                                  finding->name));
      break;
    case CUBIND_FINDING_INVALID_KERNEL:
      /* clang has reported why, in the user's file or in a header it included */
      error_take(&finding->location,
                 cubind_xasprintf("declaration of kernel '%s' is invalid (see the errors above "
                                  "or in included headers)",
                                  finding->name));
      break;
    }
  }
}

/* ---- Variables ---------------------------------------------------------------------------- */

/*
 * Decides which __constant__ / __device__ variables get copy functions: those of external
 * linkage whose type C can copy (the others get a warning), one per C name.
 */
static void check_variables(cubind_model *model) {
  size_t v, w;
  for (v = 0; v < model->num_variables; v++) {
    cubind_variable *variable = &model->variables[v];
    const char *space = variable->is_constant ? "__constant__" : "__device__";
    if (variable->linkage != CUBIND_LINKAGE_EXTERNAL) {
      warning_take(&variable->location,
                   cubind_xasprintf("%s variable '%s' has internal linkage: nvcc gives it no "
                                    "stable name, so no copy functions are generated for it "
                                    "(give it external linkage to get them: no 'static', no "
                                    "anonymous namespace, 'extern' on a const one)",
                                    space, variable->display_name));
      continue;
    }
    if (variable->unsupported) {
      warning_take(&variable->location,
                   cubind_xasprintf("%s variable '%s' of type '%s' gets no copy functions: C "
                                    "cannot copy it (%s)",
                                    space, variable->display_name, variable->type_spelling,
                                    variable->unsupported));
      continue;
    }
    for (w = 0; w < v; w++)
      if (model->variables[w].bound && strcmp(model->variables[w].name, variable->name) == 0)
        break;
    if (w < v) {
      error_take(&variable->location,
                 cubind_xasprintf("variables '%s' and '%s' would both get the copy functions "
                                  "of '%s'",
                                  variable->display_name, model->variables[w].display_name,
                                  variable->name));
      continue;
    }
    variable->bound = 1;
  }
}

/* ---- Records -------------------------------------------------------------------------------- */

/* Marks record `index` and the records its fields use as needed by the generated code. */
static void use_record(cubind_model *model, long index, int depth) {
  cubind_struct *record;
  size_t f;
  if (index < 0 || (size_t)index >= model->num_structs || depth > 64)
    return;
  record = &model->structs[index];
  if (record->used)
    return;
  record->used = 1;
  for (f = 0; f < record->num_fields; f++)
    use_record(model, record->fields[f].record, depth + 1);
}

/*
 * Marks the records the bound kernels and variables need, and reports two of them that C
 * would name alike (two namespaces' `point` cannot both be `point` in C).
 */
static void check_records(cubind_model *model) {
  size_t k, p, i, j;
  for (k = 0; k < model->num_kernels; k++)
    for (p = 0; p < model->kernels[k].num_params; p++)
      use_record(model, model->kernels[k].params[p].record, 0);
  for (k = 0; k < model->num_variables; k++)
    if (model->variables[k].bound)
      use_record(model, model->variables[k].record, 0);
  for (i = 0; i < model->num_structs; i++)
    for (j = 0; model->structs[i].used && j < i; j++)
      if (model->structs[j].used &&
          strcmp(model->structs[i].c_name, model->structs[j].c_name) == 0) {
        error_take(&model->structs[i].location,
                   cubind_xasprintf("%s '%s' and '%s' would both be '%s' in C",
                                    model->structs[i].is_union ? "union" : "struct",
                                    model->structs[i].display_name,
                                    model->structs[j].display_name, model->structs[i].c_name));
        break;
      }
  /* The C copy is a typedef, an ordinary identifier like the generated functions' names. */
  for (i = 0; i < model->num_structs; i++) {
    static const char *const kernel_suffixes[] = {"_launch", "_call", "_attributes",
                                                  "_config_occupancy"};
    const cubind_struct *record = &model->structs[i];
    const char *c_name = record->c_name;
    char *clash = NULL;
    if (!record->used)
      continue;
    for (k = 0; k < model->num_kernels && !clash; k++) {
      size_t length = strlen(model->kernels[k].c_name), s;
      if (strncmp(c_name, model->kernels[k].c_name, length) != 0)
        continue;
      for (s = 0; s < sizeof kernel_suffixes / sizeof kernel_suffixes[0]; s++)
        if (strcmp(c_name + length, kernel_suffixes[s]) == 0)
          clash = cubind_xasprintf("kernel '%s'", model->kernels[k].display_name);
    }
    for (k = 0; k < model->num_variables && !clash; k++) {
      char *to = cubind_xasprintf("%s_%s_to_device", model->module_name,
                                  model->variables[k].name);
      char *from = cubind_xasprintf("%s_%s_from_device", model->module_name,
                                    model->variables[k].name);
      if (model->variables[k].bound && (strcmp(c_name, to) == 0 || strcmp(c_name, from) == 0))
        clash = cubind_xasprintf("variable '%s'", model->variables[k].display_name);
      free(to);
      free(from);
    }
    if (clash) {
      error_take(&record->location,
                 cubind_xasprintf("%s '%s' is named like a function generated for %s: rename "
                                  "the %s",
                                  record->is_union ? "union" : "struct", record->display_name,
                                  clash, record->is_union ? "union" : "struct"));
      free(clash);
    }
  }
}

/* cubind_check: see check.h. */
int cubind_check(cubind_model *model) {
  unsigned before = cubind_error_count();
  char *bound = cubind_xcalloc(model->num_kernels + 1, 1);
  check_file_name(model);
  check_findings(model);
  decide_kernels(model, bound);
  check_templates(model);
  check_parameters(model, bound);
  drop_unbound(model, bound);
  free(bound);
  if (model->num_unbound > 1)
    qsort(model->unbound, model->num_unbound, sizeof *model->unbound, compare_unbound);
  check_variables(model);
  check_records(model);
  return cubind_error_count() > before;
}
