/* model.c: construction and destruction of the data model (see model.h). */
#include "model.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* cubind_model_add_kernel: appends a zeroed kernel and returns it. */
cubind_kernel *cubind_model_add_kernel(cubind_model *model) {
  cubind_kernel *kernel;
  if (model->num_kernels == model->capacity) {
    model->capacity = model->capacity ? model->capacity * 2 : 16;
    model->kernels = cubind_xrealloc(model->kernels, model->capacity * sizeof *model->kernels);
  }
  kernel = &model->kernels[model->num_kernels++];
  memset(kernel, 0, sizeof *kernel);
  return kernel;
}

/* cubind_model_add_unbound: see model.h. */
void cubind_model_add_unbound(cubind_model *model, const char *symbol, const char *name,
                              const char *reason) {
  cubind_unbound *entry;
  model->unbound =
      cubind_xrealloc(model->unbound, (model->num_unbound + 1) * sizeof *model->unbound);
  entry = &model->unbound[model->num_unbound++];
  entry->symbol = cubind_xstrdup(symbol);
  entry->name = cubind_xstrdup(name);
  entry->reason = cubind_xstrdup(reason);
}

/* cubind_model_add_struct: appends a zeroed record and returns it. */
cubind_struct *cubind_model_add_struct(cubind_model *model) {
  cubind_struct *record;
  model->structs =
      cubind_xrealloc(model->structs, (model->num_structs + 1) * sizeof *model->structs);
  record = &model->structs[model->num_structs++];
  memset(record, 0, sizeof *record);
  return record;
}

/* cubind_model_layout: offsets per the CUDA ABI (each parameter at its own alignment). */
void cubind_model_layout(cubind_kernel *kernel) {
  unsigned long long offset = 0;
  size_t i;
  for (i = 0; i < kernel->num_params; i++) {
    cubind_param *param = &kernel->params[i];
    unsigned long long align = param->align ? param->align : 1;
    offset = (offset + align - 1) / align * align;
    param->offset = offset;
    offset += param->size;
  }
}

static void free_param(cubind_param *param) {
  free(param->name);
  free(param->c_type);
  free(param->unsupported);
  free(param->type_spelling);
  free(param->elem_type);
  free(param->location.file);
  cubind_strlist_free(&param->annotations);
  free(param->count_expr);
}

/* cubind_kernel_clear: see model.h. */
void cubind_kernel_clear(cubind_kernel *kernel) {
  size_t p;
  for (p = 0; p < kernel->num_params; p++)
    free_param(&kernel->params[p]);
  free(kernel->params);
  free(kernel->c_name);
  free(kernel->display_name);
  free(kernel->symbol);
  free(kernel->doc);
  free(kernel->location.file);
  free(kernel->only_in);
  memset(kernel, 0, sizeof *kernel);
}

/* cubind_model_free: frees everything the model owns. */
void cubind_model_free(cubind_model *model) {
  size_t k;
  for (k = 0; k < model->num_kernels; k++)
    cubind_kernel_clear(&model->kernels[k]);
  free(model->kernels);
  for (k = 0; k < model->num_unbound; k++) {
    free(model->unbound[k].symbol);
    free(model->unbound[k].name);
    free(model->unbound[k].reason);
  }
  free(model->unbound);
  for (k = 0; k < model->num_structs; k++) {
    size_t f;
    cubind_struct *record = &model->structs[k];
    for (f = 0; f < record->num_fields; f++) {
      free(record->fields[f].name);
      free(record->fields[f].c_decl);
    }
    free(record->fields);
    free(record->usr);
    free(record->c_name);
    free(record->display_name);
  }
  free(model->structs);
  for (k = 0; k < model->num_variables; k++) {
    cubind_variable *variable = &model->variables[k];
    free(variable->name);
    free(variable->display_name);
    free(variable->symbol);
    free(variable->elem_type);
    free(variable->location.file);
  }
  free(model->variables);
  cubind_strlist_free(&model->includes);
  free(model->module_name);
  free(model->fatbin_name);
  free(model->prefix);
  free(model->source_name);
  free(model->file_stem);
  memset(model, 0, sizeof *model);
}

/* cubind_sanitize_identifier: see model.h. */
char *cubind_sanitize_identifier(const char *text) {
  size_t length = strlen(text), i;
  int prefix = length == 0 || isdigit((unsigned char)text[0]);
  char *result = cubind_xmalloc(length + 4);
  char *out = result;
  if (prefix) {
    memcpy(out, "cu_", 3);
    out += 3;
  }
  for (i = 0; i < length; i++) {
    unsigned char c = (unsigned char)text[i];
    *out++ = (char)((isalnum(c) || c == '_') && c < 128 ? c : '_');
  }
  *out = '\0';
  return result;
}

/* cubind_is_identifier: see model.h. */
int cubind_is_identifier(const char *text) {
  size_t i;
  if (!text[0] || isdigit((unsigned char)text[0]))
    return 0;
  for (i = 0; text[i]; i++) {
    unsigned char c = (unsigned char)text[i];
    if (c >= 128 || !(isalnum(c) || c == '_'))
      return 0;
  }
  return 1;
}
