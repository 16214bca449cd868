/*
 * fuzz_model.c: libFuzzer harness for the parts of cubind-gen that need no libclang. The input
 * bytes build a model as the libclang layer would (identifier names, realistic types) but with
 * arbitrary annotate strings (a .cu file can put any text in __attribute__((annotate("...")))),
 * arbitrary doc comments and file names; then check.c and, when the check passes, emit.c run.
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
    {"struct S", "S", NULL, 12, 4, 0, 0, 0, "structs by value are not supported yet"},
};

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
  const char *start = strstr(header->data, "/*\n * Kernels of nvcc's binary"), *end;
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
  if (cubind_unspellable(model.source_name)) { /* cubind-gen refuses such file names (main.c) */
    cubind_model_free(&model);
    return 0;
  }
  for (k = 0; k < kernels; k++) {
    cubind_kernel *kernel = cubind_model_add_kernel(&model);
    unsigned params = take_byte(&r) % 6, p, flags = take_byte(&r);
    kernel->c_name = take_name(&r, 0);
    kernel->display_name = cubind_xstrdup(kernel->c_name);
    kernel->symbol = cubind_xstrdup(kernel->c_name);
    kernel->doc = flags & 1 ? take_line(&r) : NULL;
    kernel->linkage = (cubind_linkage)(flags >> 1) % 3;
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
