/* model.c: construction and destruction of the data model (see model.h). */
#include "model.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Grows `array` (of `count` entries) by one zeroed entry and evaluates to its address. */
#define APPEND_ZEROED(array, count)                                                            \
  ((array) = cubind_xrealloc((array), ((count) + 1) * sizeof *(array)),                        \
   memset(&(array)[(count)], 0, sizeof *(array)), &(array)[(count)++])

/* cubind_model_add_kernel: appends a zeroed kernel and returns it. */
cubind_kernel *cubind_model_add_kernel(cubind_model *model) {
  cubind_kernel *kernel;
  if (model->num_kernels == model->capacity) {
    model->capacity = model->capacity ? model->capacity * 2 : 16;
    model->kernels = cubind_xrealloc(model->kernels, model->capacity * sizeof *model->kernels);
  }
  kernel = &model->kernels[model->num_kernels++];
  cubind_kernel_init(kernel);
  return kernel;
}

/* cubind_model_add_unbound: see model.h. */
cubind_unbound *cubind_model_add_unbound(cubind_model *model, const char *symbol,
                                         const char *name, const char *reason) {
  cubind_unbound *entry =
      APPEND_ZEROED(model->unbound, model->num_unbound);
  entry->symbol = cubind_xstrdup(symbol);
  entry->name = cubind_xstrdup(name);
  entry->reason = cubind_xstrdup(reason);
  return entry;
}

/* cubind_model_add_variable: see model.h. */
cubind_variable *cubind_model_add_variable(cubind_model *model) {
  return APPEND_ZEROED(model->variables, model->num_variables);
}

/* cubind_model_add_template: see model.h. */
cubind_template *cubind_model_add_template(cubind_model *model) {
  return APPEND_ZEROED(model->templates, model->num_templates);
}

/* cubind_location_copy: see model.h. */
cubind_location cubind_location_copy(const cubind_location *location) {
  cubind_location copy = *location;
  copy.file = location->file ? cubind_xstrdup(location->file) : NULL;
  return copy;
}

/* cubind_model_add_finding: see model.h. */
cubind_finding *cubind_model_add_finding(cubind_model *model, cubind_finding_kind kind,
                                         const char *name, const char *detail,
                                         const cubind_location *location) {
  cubind_finding *finding = APPEND_ZEROED(model->findings, model->num_findings);
  finding->kind = kind;
  finding->name = cubind_xstrdup(name);
  finding->detail = detail ? cubind_xstrdup(detail) : NULL;
  finding->location = cubind_location_copy(location);
  return finding;
}

/* cubind_model_add_struct: appends a zeroed record and returns it. */
cubind_struct *cubind_model_add_struct(cubind_model *model) {
  return APPEND_ZEROED(model->structs, model->num_structs);
}

/*
 * The largest parameter alignment whose offset is the same on every architecture: nvcc aligns
 * a parameter's address in the constant bank, and the parameter base is only 16-byte aligned
 * on some (sm_90: 0x210), where a double4_32a lands at 16 instead of 0.
 */
#define PORTABLE_PARAM_ALIGN 16

/* cubind_model_layout: see model.h. */
void cubind_model_layout(cubind_kernel *kernel) {
  unsigned long long offset = 0;
  int varies = 0;
  size_t i;
  for (i = 0; i < kernel->num_params; i++) {
    cubind_param *param = &kernel->params[i];
    unsigned long long align = param->align ? param->align : 1;
    offset = (offset + align - 1) / align * align;
    param->offset = offset;
    varies |= align > PORTABLE_PARAM_ALIGN;
    param->offset_varies = varies;
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
  free(param->count_code);
}

/* cubind_kernel_clear: see model.h. */
void cubind_kernel_clear(cubind_kernel *kernel) {
  size_t p;
  for (p = 0; p < kernel->num_params; p++)
    free_param(&kernel->params[p]);
  free(kernel->params);
  free(kernel->usr);
  free(kernel->c_name);
  free(kernel->display_name);
  free(kernel->symbol);
  free(kernel->doc);
  free(kernel->location.file);
  free(kernel->doc_location.file);
  free(kernel->declared_in);
  free(kernel->bound_by);
  free(kernel->binary_layout);
  free(kernel->only_in);
  cubind_kernel_init(kernel);
}

/* cubind_kernel_init: see model.h. */
void cubind_kernel_init(cubind_kernel *kernel) {
  memset(kernel, 0, sizeof *kernel);
  kernel->template_index = -1;
  kernel->binary_num_params = -1;
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
    free(record->alias);
    free(record->display_name);
    free(record->header);
    free(record->location.file);
  }
  free(model->structs);
  for (k = 0; k < model->num_variables; k++) {
    cubind_variable *variable = &model->variables[k];
    free(variable->name);
    free(variable->display_name);
    free(variable->symbol);
    free(variable->elem_type);
    free(variable->unsupported);
    free(variable->type_spelling);
    free(variable->location.file);
  }
  free(model->variables);
  for (k = 0; k < model->num_templates; k++) {
    free(model->templates[k].usr);
    free(model->templates[k].name);
    free(model->templates[k].qualified);
    free(model->templates[k].location.file);
  }
  free(model->templates);
  for (k = 0; k < model->num_findings; k++) {
    free(model->findings[k].name);
    free(model->findings[k].detail);
    free(model->findings[k].location.file);
  }
  free(model->findings);
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

/* cubind_kernel_map_count_names: see model.h. */
void cubind_kernel_map_count_names(cubind_kernel *kernel,
                                   char *(*map)(const char *name, size_t length, void *data),
                                   void *data) {
  size_t p, a;
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
        char *replaced;
        if (isalpha((unsigned char)*at) || *at == '_') {
          while (isalnum((unsigned char)*at) || *at == '_')
            at++;
          replaced = map(start, (size_t)(at - start), data);
          if (replaced)
            cubind_buf_puts(&out, replaced);
          else
            cubind_buf_append(&out, start, (size_t)(at - start));
          free(replaced);
        } else if (isdigit((unsigned char)*at)) {
          while (isalnum((unsigned char)*at) || *at == '_' || *at == '.')
            at++;
          cubind_buf_append(&out, start, (size_t)(at - start));
        } else {
          cubind_buf_append(&out, at++, 1);
        }
      }
      free(annotations->items[a]);
      annotations->items[a] = out.data;
    }
  }
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
