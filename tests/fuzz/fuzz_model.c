/*
 * fuzz_model.c: libFuzzer harness for the parts of cubind-gen that need no libclang. The input
 * bytes build a model as the libclang layer would (identifier names, realistic types) but with
 * arbitrary annotate strings (a .cu file can put any text in __attribute__((annotate("...")))),
 * arbitrary doc comments and file names, and arbitrary facts for every decision check.c makes
 * (kernel origins and places, linkage, presence in the binary, templates, variables, records,
 * findings); then check.c and, when the check passes, emit.c run.
 * Invariants beyond the sanitizers: a count expression that passes the checks is balanced and
 * holds no comment and no assignment (it is pasted into the generated C); the emitted text holds
 * no NUL byte and no C99 trigraph.
 * It also feeds the same bytes to the fatbin embedder (cubind_emit_fatbin). Kernels listed as
 * unbound (from --kernels-from) get arbitrary names and reasons: the comment that lists them
 * must stay one comment.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "emit.h"
#include "fs.h"
#include "model.h"
#include "util.h"

typedef struct reader {
  const uint8_t *data;
  size_t size, at;
} reader;

static unsigned take_byte(reader *r) { return r->at < r->size ? r->data[r->at++] : 0; }

/* The text up to the next '\n' (or the end), NULs dropped: a new string. */
static char *take_line(reader *r) {
  cubind_buf buf = {0};
  cubind_buf_append(&buf, "", 0);
  while (r->at < r->size && r->data[r->at] != '\n') {
    if (r->data[r->at])
      cubind_buf_append(&buf, (const char *)&r->data[r->at], 1);
    r->at++;
  }
  if (r->at < r->size)
    r->at++;
  return buf.data;
}

/* An identifier made from the next line ("" stays "": an unnamed parameter). */
static char *take_name(reader *r, int may_be_empty) {
  char *line = take_line(r), *name;
  if (!*line && may_be_empty)
    return line;
  name = cubind_sanitize_identifier(line);
  free(line);
  return name;
}

typedef struct type_info {
  const char *c_type, *spelling, *elem;
  unsigned size, align, elem_size;
  int pointer, scalar;
  const char *unsupported;
} type_info;

static const type_info types[] = {
    {"float *", "float *", "float", 8, 8, 4, 1, 0, NULL},
    {"const double *CUBIND_RESTRICT", "const double *__restrict", "double", 8, 8, 8, 1, 0, NULL},
    {"void *", "void *", NULL, 8, 8, 1, 1, 0, NULL},
    {"int", "int", NULL, 4, 4, 0, 0, 1, NULL},
    {"size_t", "size_t", NULL, 8, 8, 0, 0, 1, NULL},
    {"unsigned char", "unsigned char", NULL, 1, 1, 0, 0, 1, NULL},
    {"float4", "float4", NULL, 16, 16, 0, 0, 0, NULL},
    {"struct S *", "S *", NULL, 8, 8, 0, 1, 0, NULL}, /* incomplete element type */
    {"struct S", "S", NULL, 12, 4, 0, 0, 0, "type 'S' cannot be passed from C"},
    {"S", "S", NULL, 8, 4, 0, 0, 0, NULL}, /* a record of model->structs, by value */
};

/* Records by value, in dependency order, with names that may collide. */
static void add_records(reader *r, cubind_model *model) {
  unsigned count = take_byte(r) % 3, k, f;
  for (k = 0; k < count; k++) {
    cubind_struct *record = cubind_model_add_struct(model);
    unsigned flags = take_byte(r);
    record->usr = cubind_xasprintf("record%u", k);
    record->c_name = take_name(r, 0);
    record->display_name = cubind_xstrdup(record->c_name);
    record->is_union = flags & 1;
    record->defined_here = (flags >> 1) & 1;
    record->header = record->defined_here ? NULL : cubind_xstrdup("fuzz_types.h");
    record->location.file = cubind_xstrdup("fuzz.cu");
    record->location.line = k + 1;
    record->size = 8;
    record->align = 4;
    record->num_fields = 1 + (flags >> 2) % 2;
    record->fields = cubind_xcalloc(record->num_fields, sizeof *record->fields);
    for (f = 0; f < record->num_fields; f++) {
      cubind_field *field = &record->fields[f];
      field->name = take_name(r, 0);
      field->c_decl = cubind_xasprintf("int %s", field->name);
      field->offset = 4 * f;
      field->line = k + 1 + (take_byte(r) & 3);
      field->record = k && (flags >> 3) & 1 ? (long)(k - 1) : -1;
    }
  }
}

static void count_invariants(const cubind_model *model) {
  size_t k, p;
  for (k = 0; k < model->num_kernels; k++)
    for (p = 0; p < model->kernels[k].num_params; p++) {
      const char *expr = model->kernels[k].params[p].count_expr, *at;
      int depth = 0;
      if (!expr)
        continue;
      for (at = expr; *at; at++) {
        depth += *at == '(' ? 1 : *at == ')' ? -1 : 0;
        if (depth < 0 || (at[0] == '/' && (at[1] == '/' || at[1] == '*')))
          abort();
      }
      if (depth != 0)
        abort();
    }
}

/* The list of unbound kernels is one comment: nothing in it may close it early. */
static void unbound_invariants(const cubind_buf *header) {
  const char *start = strstr(header->data, "/*\n * Kernels without C functions"), *end;
  if (!start)
    return;
  end = strstr(start + 2, "*/");
  if (!end || strncmp(end - 1, " */\n", 4) != 0 || end[3] != '#')
    abort();
}

static int has_trigraph(const cubind_buf *text) {
  size_t i;
  for (i = 0; i + 2 < text->length; i++)
    if (text->data[i] == '?' && text->data[i + 1] == '?' && strchr("=/'()!<>-", text->data[i + 2]))
      return 1;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  reader r = {data, size, 0};
  cubind_model model = {0};
  cubind_buf header = {0}, source = {0}, fatbin = {0};
  unsigned kernels = take_byte(&r) % 4 + 1, k;
  model.module_name = take_name(&r, 0);
  model.source_name = take_line(&r);
  model.file_stem = cubind_xstrdup(model.source_name);
  model.line_directives = take_byte(&r) & 1;
  model.has_binary = take_byte(&r) & 1;
  add_records(&r, &model);
  for (k = take_byte(&r) % 3; k > 0; k--) {
    cubind_template *pattern = cubind_model_add_template(&model);
    pattern->usr = take_line(&r);
    pattern->name = take_name(&r, 0);
    pattern->qualified = cubind_xstrdup(pattern->name);
    pattern->location.file = cubind_xstrdup("fuzz.cu");
    pattern->location.line = k;
  }
  for (k = 0; k < kernels; k++) {
    cubind_kernel *kernel = cubind_model_add_kernel(&model);
    unsigned params = take_byte(&r) % 6, p, flags = take_byte(&r), facts = take_byte(&r);
    kernel->c_name = take_name(&r, 0);
    kernel->display_name = cubind_xstrdup(kernel->c_name);
    kernel->symbol = cubind_xstrdup(kernel->c_name);
    kernel->doc = flags & 1 ? take_line(&r) : NULL;
    kernel->doc_location.file = cubind_xstrdup("fuzz.cu");
    kernel->doc_location.line = flags & 1 ? k + 1 : 0;
    kernel->linkage = (cubind_linkage)(flags >> 1) % 3;
    kernel->origin = (cubind_kernel_origin)(facts % 3);
    kernel->place = (cubind_place)(facts / 3 % 3);
    kernel->declared_in = kernel->place ? take_line(&r) : NULL;
    kernel->in_binary = (facts >> 4) & 1;
    kernel->template_index = model.num_templates ? (long)(facts >> 5) % 3 - 1 : -1;
    kernel->only_in = (facts >> 7) ? take_line(&r) : NULL;
    kernel->location.file = cubind_xstrdup("fuzz.cu");
    kernel->location.line = k + 1;
    kernel->location.column = 1;
    kernel->num_params = params;
    kernel->params = cubind_xcalloc(params ? params : 1, sizeof *kernel->params);
    for (p = 0; p < params; p++) {
      cubind_param *param = &kernel->params[p];
      const type_info *type = &types[take_byte(&r) % (sizeof types / sizeof types[0])];
      unsigned annotations = take_byte(&r) % 3, a;
      param->name = take_name(&r, 1);
      param->c_type = cubind_xstrdup(type->c_type);
      param->type_spelling = cubind_xstrdup(type->spelling);
      param->unsupported = type->unsupported ? cubind_xstrdup(type->unsupported) : NULL;
      param->size = type->size;
      param->align = type->align;
      param->is_pointer = type->pointer;
      param->is_scalar = type->scalar;
      param->elem_type = type->elem ? cubind_xstrdup(type->elem) : NULL;
      param->elem_size = type->elem_size;
      param->record = type->c_type[0] == 'S' && model.num_structs
                          ? (long)(take_byte(&r) % model.num_structs)
                          : -1;
      if (param->record >= 0) { /* a record by value: spelled by its C name */
        free(param->c_type);
        param->c_type = cubind_xstrdup(model.structs[param->record].c_name);
      }
      param->location.file = cubind_xstrdup("fuzz.cu");
      param->location.line = k + 1;
      param->location.column = p + 2;
      for (a = 0; a < annotations; a++) {
        char *text = take_line(&r);
        /* most annotate strings a user writes start with a known kind: bias towards them */
        static const char *const kinds[] = {"cubind.in_n:", "cubind.out_n:", "cubind.inout_n:",
                                            "cubind.in", "cubind.out", "cubind.inout", ""};
        char *full = cubind_xasprintf("%s%s", kinds[(unsigned char)text[0] % 7], text);
        cubind_strlist_add(&param->annotations, full);
        free(full);
        free(text);
      }
    }
    cubind_model_layout(kernel);
  }
  for (k = take_byte(&r) % 3; k > 0; k--) {
    char *name = take_line(&r), *reason = take_line(&r), *symbol = take_line(&r);
    cubind_model_add_unbound(&model, symbol, name, reason);
    free(name);
    free(reason);
    free(symbol);
  }
  for (k = take_byte(&r) % 3; k > 0; k--) {
    cubind_variable *variable = cubind_model_add_variable(&model);
    unsigned flags = take_byte(&r);
    variable->name = take_name(&r, 0);
    variable->display_name = take_line(&r);
    variable->symbol = cubind_xstrdup(variable->name);
    variable->type_spelling = cubind_xstrdup("float");
    if (flags & 1)
      variable->unsupported = take_line(&r);
    else
      variable->elem_type = cubind_xstrdup(flags & 2 ? "float *" : "float");
    variable->elem_size = 4;
    variable->count = 1 + (flags >> 2) % 5;
    variable->is_constant = (flags >> 5) & 1;
    variable->linkage = (cubind_linkage)((flags >> 6) % 3);
    variable->record = -1;
    variable->location.file = cubind_xstrdup("fuzz.cu");
    variable->location.line = k;
  }
  for (k = take_byte(&r) % 3; k > 0; k--) {
    cubind_location where = {NULL, 1, 1};
    char *name = take_line(&r), *detail = take_line(&r);
    where.file = (char *)"fuzz.cu";
    cubind_model_add_finding(&model, (cubind_finding_kind)(take_byte(&r) % 3), name,
                             detail[0] ? detail : NULL, &where);
    free(name);
    free(detail);
  }
  if (cubind_check(&model) == 0) {
    count_invariants(&model);
    if (cubind_emit_header(&model, &header) != 0 || cubind_emit_source(&model, &source) != 0)
      abort(); /* only a template bug makes these fail */
    if (memchr(header.data, 0, header.length) || memchr(source.data, 0, source.length))
      abort();
    if (has_trigraph(&header) || has_trigraph(&source))
      abort(); /* a C99 compiler would rewrite it, even in a comment */
    unbound_invariants(&header);
  }
  if (cubind_emit_fatbin(model.module_name, model.source_name, data, size, &fatbin) != 0 ||
      fatbin.length < size * 4)
    abort();
  cubind_buf_free(&header);
  cubind_buf_free(&source);
  cubind_buf_free(&fatbin);
  cubind_model_free(&model);
  return 0;
}
