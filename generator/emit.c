/*
 * emit.c: fills the templates from the model (see emit.h). The sections are built in the
 * order the generated files show them; fill_template() pastes them at the markers.
 */
#include "emit.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "util.h"

#ifndef CUBIND_GEN_VERSION
#error "CUBIND_GEN_VERSION must be defined by the build (generator/CMakeLists.txt)"
#endif

/* The templates, embedded by the build from templates/ (generator/embed_templates.cmake). */
extern const char cubind_template_stubs_h[];
extern const char cubind_template_stubs_c[];
extern const char cubind_template_fatbin_c[];

/* One marker's replacement. */
typedef struct marker {
  const char *name;
  const char *value;
} marker;

/*
 * Copies the template text after its "@@BEGIN@@" line to out, replacing each @@NAME@@ with its
 * value. A marker alone on a line whose value is empty leaves no blank line behind.
 */
static int fill_template(const char *template_name, const char *text, const marker *markers,
                         size_t num_markers, cubind_buf *out) {
  const char *at = strstr(text, "@@BEGIN@@\n");
  if (!at) {
    cubind_diag(NULL, 0, 0, "error", "template %s has no @@BEGIN@@ line", template_name);
    return 1;
  }
  at += strlen("@@BEGIN@@\n");
  for (;;) {
    const char *open = strstr(at, "@@"), *close;
    size_t i;
    int whole_line;
    if (!open) {
      cubind_buf_puts(out, at);
      return 0;
    }
    close = strstr(open + 2, "@@");
    if (!close) {
      cubind_diag(NULL, 0, 0, "error", "template %s has an unterminated @@ marker",
                  template_name);
      return 1;
    }
    cubind_buf_append(out, at, (size_t)(open - at));
    for (i = 0; i < num_markers; i++)
      if (strlen(markers[i].name) == (size_t)(close - open - 2) &&
          strncmp(markers[i].name, open + 2, (size_t)(close - open - 2)) == 0)
        break;
    if (i == num_markers) {
      cubind_diag(NULL, 0, 0, "error", "template %s uses an unknown marker %.*s", template_name,
                  (int)(close - open + 2), open);
      return 1;
    }
    whole_line = (open == text || open[-1] == '\n') && close[2] == '\n';
    cubind_buf_puts(out, markers[i].value);
    at = close + 2;
    if (whole_line && (!markers[i].value[0] || markers[i].value[strlen(markers[i].value) - 1] ==
                                                   '\n'))
      at++; /* the section brought its own line ends (or none) */
  }
}

/* ---- Pieces shared by the header and the source ------------------------------------------ */

/*
 * Appends "type name" the way C declarations are written ("float *a", "int n"). A top-level
 * CUBIND_RESTRICT stays in prototypes, where it documents the kernel's promise, and is dropped
 * in definitions: there the stub takes the parameter's address, and `T *restrict *` does not
 * convert to `void *` without a warning. Top-level qualifiers do not change the function type.
 */
static void append_declarator(cubind_buf *out, const char *c_type, const char *name,
                              int definition) {
  static const char restrict_word[] = "CUBIND_RESTRICT";
  size_t length = strlen(c_type), word = sizeof restrict_word - 1;
  if (definition && length >= word && strcmp(c_type + length - word, restrict_word) == 0) {
    length -= word;
    while (length && c_type[length - 1] == ' ')
      length--;
  }
  cubind_buf_printf(out, length && c_type[length - 1] == '*' ? "%.*s%s" : "%.*s %s",
                    (int)length, c_type, name);
}

/* Appends one argument of a signature, wrapping before it when the line would pass 100. */
static void append_argument(cubind_buf *out, size_t *column, const char *text, int first) {
  size_t length = strlen(text);
  if (!first && *column + length + 3 > 100) {
    cubind_buf_puts(out, ",\n    ");
    *column = 4;
  } else if (!first) {
    cubind_buf_puts(out, ", ");
    *column += 2;
  }
  cubind_buf_puts(out, text);
  *column += length;
}

/* Appends the C signature of <kernel>_launch or <kernel>_call (with_counts: the _call one). */
static void append_signature(cubind_buf *out, const cubind_kernel *kernel, int with_counts,
                             int definition) {
  cubind_buf argument = {0};
  size_t i, start = out->length, column;
  cubind_buf_printf(out, "cubind_status %s_%s(", kernel->c_name, with_counts ? "call" : "launch");
  column = out->length - start;
  append_argument(out, &column, "const cubind_config *cfg", 1);
  for (i = 0; i < kernel->num_params; i++) {
    const cubind_param *param = &kernel->params[i];
    argument.length = 0;
    append_declarator(&argument, param->c_type, param->name, definition);
    append_argument(out, &column, argument.data, 0);
    if (with_counts && param->direction != CUBIND_PARAM_DEVICE && !param->count_expr) {
      argument.length = 0;
      cubind_buf_printf(&argument, "size_t %s_count", param->name);
      append_argument(out, &column, argument.data, 0);
    }
  }
  cubind_buf_puts(out, ")");
  cubind_buf_free(&argument);
}

/*
 * Appends text that goes inside a comment. C99 compilers replace trigraphs even in comments
 * (C++17 does not): two question marks and a slash at the end of a `///` line would become a
 * backslash that splices the next line, the prototype, into the comment. A backslash between
 * the question marks keeps it text. With close_safe (text that was not already a comment, such
 * as demangled names, and that other text follows), "*" "/" is broken up too, and every "??"
 * gets the backslash, since what follows the text is not known here.
 */
static void append_comment_text(cubind_buf *out, const char *text, int close_safe) {
  const char *at;
  for (at = text; *at; at++) {
    cubind_buf_append(out, at, 1);
    if (at[0] == '?' && at[1] == '?' &&
        (close_safe || (at[2] && strchr("=/'()!<>-", at[2]))))
      cubind_buf_puts(out, "\\");
    if (close_safe && at[0] == '*' && at[1] == '/')
      cubind_buf_puts(out, " ");
  }
}

static void append_doc(cubind_buf *out, const cubind_kernel *kernel) {
  if (kernel->doc) {
    append_comment_text(out, kernel->doc, 0);
    cubind_buf_puts(out, "\n");
  }
}

/* The architectures note of a kernel that some of the binary's code lacks. */
static void append_only_in(cubind_buf *out, const cubind_kernel *kernel) {
  if (kernel->only_in)
    cubind_buf_printf(out,
                      "/* Only in the code for %s: elsewhere these return "
                      "CUBIND_ERROR_KERNEL_NOT_FOUND. */\n",
                      kernel->only_in);
}

/*
 * Appends text as comment lines that start with `prefix`, broken at spaces before `width`
 * columns (a word longer than a line stays whole). No newline after the last line.
 */
static void append_wrapped_comment(cubind_buf *out, const char *text, const char *prefix,
                                   size_t width) {
  size_t room = width > strlen(prefix) + 20 ? width - strlen(prefix) : 20;
  while (*text) {
    size_t length = strlen(text), cut = length;
    char *line;
    if (length > room) {
      for (cut = room; cut > 0 && text[cut] != ' '; cut--)
        ;
      if (cut == 0)
        for (cut = room; text[cut] && text[cut] != ' '; cut++)
          ;
    }
    line = cubind_xstrndup(text, cut);
    cubind_buf_puts(out, prefix);
    append_comment_text(out, line, 1);
    free(line);
    text += cut;
    while (*text == ' ')
      text++;
    if (*text)
      cubind_buf_puts(out, "\n");
  }
}

/* The comment listing the kernels of nvcc's binary that got no C functions. */
static void append_unbound(cubind_buf *out, const cubind_model *model) {
  size_t i;
  if (!model->num_unbound)
    return;
  cubind_buf_puts(out, "/*\n * Kernels of nvcc's binary without C functions, and why:\n");
  for (i = 0; i < model->num_unbound; i++) {
    const cubind_unbound *entry = &model->unbound[i];
    cubind_buf_puts(out, " *\n *   ");
    append_comment_text(out, entry->name, 1);
    cubind_buf_puts(out, "\n");
    append_wrapped_comment(out, entry->reason, " *     ", 100);
    if (strcmp(entry->name, entry->symbol) != 0) {
      cubind_buf_puts(out, "\n *     (symbol ");
      append_comment_text(out, entry->symbol, 1);
      cubind_buf_puts(out, ")");
    }
    cubind_buf_puts(out, "\n");
  }
  cubind_buf_puts(out, " */\n");
}

static const char *generator_version(void) { return CUBIND_GEN_VERSION; }

/* ---- Header ---------------------------------------------------------------------------- */

static void append_extra_includes(cubind_buf *out, const cubind_model *model) {
  unsigned needs = 0;
  size_t k, p;
  for (k = 0; k < model->num_kernels; k++)
    for (p = 0; p < model->kernels[k].num_params; p++)
      needs |= model->kernels[k].params[p].needs;
  for (k = 0; k < model->num_variables; k++)
    needs |= model->variables[k].needs;
  if (needs & CUBIND_NEEDS_STDINT)
    cubind_buf_puts(out, "#include <stdint.h>\n");
  if (needs & CUBIND_NEEDS_STDBOOL)
    cubind_buf_puts(out, "#include <stdbool.h>\n");
  if (needs & CUBIND_NEEDS_VECTOR_TYPES)
    cubind_buf_puts(out, "#include <vector_types.h> /* float4, int2, ... */\n");
  for (k = 0; k < model->includes.count; k++)
    cubind_buf_printf(out, "#include \"%s\" /* declares structs the kernels take */\n",
                      model->includes.items[k]);
}

/* The signature of <module>_<var>_to_device or _from_device. */
static void append_variable_signature(cubind_buf *out, const cubind_model *model,
                                      const cubind_variable *variable, int to_device) {
  size_t length = strlen(variable->elem_type);
  int star = length && variable->elem_type[length - 1] == '*';
  if (to_device)
    cubind_buf_printf(out, "cubind_status %s_%s_to_device(%s const *src, size_t count)",
                      model->module_name, variable->name, variable->elem_type);
  else
    cubind_buf_printf(out, "cubind_status %s_%s_from_device(%s%s*dst, size_t count)",
                      model->module_name, variable->name, variable->elem_type, star ? "" : " ");
}

/* Declarations of the copy functions of each __constant__ / __device__ variable. */
static void append_variable_decls(cubind_buf *out, const cubind_model *model) {
  size_t k;
  for (k = 0; k < model->num_variables; k++) {
    const cubind_variable *variable = &model->variables[k];
    cubind_buf_printf(out,
                      "/* %s %s (%s): %llu element%s of %llu bytes. Copies the first `count` "
                      "elements\n   to or from the current device's copy of it, synchronously; "
                      "more than %llu fail. */\n",
                      variable->is_constant ? "__constant__" : "__device__",
                      variable->display_name, model->source_name, variable->count,
                      variable->count == 1 ? "" : "s", variable->elem_size, variable->count);
    append_variable_signature(out, model, variable, 1);
    cubind_buf_puts(out, ";\n");
    append_variable_signature(out, model, variable, 0);
    cubind_buf_puts(out, ";\n\n");
  }
}

static void append_line_directive(cubind_buf *out, const cubind_model *model,
                                  const cubind_location *location);
static void append_line_restore(cubind_buf *out, const cubind_model *model,
                                const cubind_location *location);

/* Definitions of the copy functions of each variable. */
static void append_variable_stubs(cubind_buf *out, const cubind_model *model) {
  size_t k;
  int to_device;
  for (k = 0; k < model->num_variables; k++) {
    const cubind_variable *variable = &model->variables[k];
    for (to_device = 1; to_device >= 0; to_device--) {
      cubind_buf_puts(out, "\n");
      append_line_directive(out, model, &variable->location);
      append_variable_signature(out, model, variable, to_device);
      cubind_buf_printf(out,
                        " {\n  return cubind_module_global_copy(&%s_module, %u, (void *)%s, "
                        "count,\n                                   sizeof(%s), %s);\n}\n",
                        model->module_name, (unsigned)k, to_device ? "src" : "dst",
                        variable->elem_type,
                        to_device ? "CUBIND_COPY_TO_DEVICE" : "CUBIND_COPY_FROM_DEVICE");
      append_line_restore(out, model, &variable->location);
    }
  }
}

/* The C definitions of the structs and unions defined in the .cu (dependency order). */
static void append_struct_defs(cubind_buf *out, const cubind_model *model) {
  size_t k, f;
  for (k = 0; k < model->num_structs; k++) {
    const cubind_struct *record = &model->structs[k];
    if (!record->defined_here)
      continue;
    cubind_buf_printf(out,
                      "/* %s (%s): %llu bytes, aligned to %llu; the .cubind.c checks the layout */\n",
                      record->display_name, model->source_name, record->size, record->align);
    cubind_buf_printf(out, "typedef %s %s {\n", record->is_union ? "union" : "struct",
                      record->c_name);
    for (f = 0; f < record->num_fields; f++)
      cubind_buf_printf(out, "  %s;\n", record->fields[f].c_decl);
    cubind_buf_printf(out, "} %s;\n\n", record->c_name);
  }
}

/*
 * Compile-time checks that the host compiler lays out every record as the device does:
 * size, alignment (offsetof in a helper struct: C99 has no alignof) and each field's offset.
 */
static void append_layout_checks(cubind_buf *out, const cubind_model *model) {
  size_t k, f;
  if (!model->num_structs)
    return;
  cubind_buf_puts(
      out,
      "/* CUBIND_LAYOUT_CHECK(name, cond): a compile-time assertion (C99 has no "
      "_Static_assert). */\n"
      "#if defined(__cplusplus) && __cplusplus >= 201103L\n"
      "#define CUBIND_LAYOUT_CHECK(name, cond) static_assert(cond, \"layout differs: \" #name)\n"
      "#elif !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L\n"
      "#define CUBIND_LAYOUT_CHECK(name, cond) _Static_assert(cond, \"layout differs: \" #name)\n"
      "#else\n"
      "#define CUBIND_LAYOUT_CHECK(name, cond) typedef char cubind_layout_##name[(cond) ? 1 : -1]\n"
      "#endif\n"
      "/* The host must lay out each struct the kernels take by value as the device does. */\n");
  for (k = 0; k < model->num_structs; k++) {
    const cubind_struct *record = &model->structs[k];
    char *id = cubind_sanitize_identifier(record->c_name);
    cubind_buf_printf(out, "struct cubind_align_%s { char c; %s t; };\n", id, record->c_name);
    cubind_buf_printf(out, "CUBIND_LAYOUT_CHECK(%s__size, sizeof(%s) == %llu);\n", id,
                      record->c_name, record->size);
    cubind_buf_printf(out,
                      "CUBIND_LAYOUT_CHECK(%s__align, offsetof(struct cubind_align_%s, t) == "
                      "%llu);\n",
                      id, id, record->align);
    for (f = 0; f < record->num_fields; f++)
      cubind_buf_printf(out, "CUBIND_LAYOUT_CHECK(%s__%s, offsetof(%s, %s) == %llu);\n", id,
                        record->fields[f].name, record->c_name, record->fields[f].name,
                        record->fields[f].offset);
    free(id);
  }
  cubind_buf_puts(out, "\n");
}

/* cubind_emit_header: see emit.h. */
int cubind_emit_header(const cubind_model *model, cubind_buf *out) {
  cubind_buf includes = {0}, decls = {0}, structs = {0}, unbound = {0};
  char *output_name = cubind_xasprintf("%s.cubind.h", model->file_stem);
  char *stem_id = cubind_sanitize_identifier(model->file_stem);
  char *guard = cubind_xasprintf("%s_CUBIND_H", stem_id);
  size_t k;
  int status;
  for (k = 0; guard[k]; k++)
    guard[k] = (char)toupper((unsigned char)guard[k]);
  append_extra_includes(&includes, model);
  cubind_buf_puts(&includes, "");
  cubind_buf_puts(&decls, "");
  cubind_buf_puts(&structs, "");
  append_struct_defs(&structs, model);
  for (k = 0; k < model->num_kernels; k++) {
    const cubind_kernel *kernel = &model->kernels[k];
    append_doc(&decls, kernel);
    append_only_in(&decls, kernel);
    append_signature(&decls, kernel, 0, 0);
    cubind_buf_puts(&decls, ";\n");
    append_doc(&decls, kernel);
    append_signature(&decls, kernel, 1, 0);
    cubind_buf_puts(&decls, ";\n");
    cubind_buf_printf(&decls,
                      "cubind_status %s_attributes(cubind_kernel_attributes *out);\n"
                      "cubind_status %s_config_occupancy(size_t n, unsigned shared_bytes, "
                      "cubind_config *out);\n\n",
                      kernel->c_name, kernel->c_name);
  }
  append_variable_decls(&decls, model);
  cubind_buf_puts(&unbound, "");
  append_unbound(&unbound, model);
  {
    marker markers[8];
    markers[0].name = "OUTPUT_NAME", markers[0].value = output_name;
    markers[1].name = "SOURCE_NAME", markers[1].value = model->source_name;
    markers[2].name = "VERSION", markers[2].value = generator_version();
    markers[3].name = "GUARD", markers[3].value = guard;
    markers[4].name = "EXTRA_INCLUDES", markers[4].value = includes.data;
    markers[5].name = "KERNEL_DECLS", markers[5].value = decls.data;
    markers[6].name = "STRUCT_DEFS", markers[6].value = structs.data;
    markers[7].name = "UNBOUND", markers[7].value = unbound.data;
    status = fill_template("cubind_stubs.h", cubind_template_stubs_h, markers, 8, out);
  }
  cubind_buf_free(&unbound);
  cubind_buf_free(&structs);
  cubind_buf_free(&includes);
  cubind_buf_free(&decls);
  free(output_name);
  free(stem_id);
  free(guard);
  return status;
}

/* ---- Source ---------------------------------------------------------------------------- */

/* static const cubind_param_info <kernel>_params[] = {{"a", 0, 8}, {"n", 8, 4}}; */
static void append_param_table(cubind_buf *out, const cubind_kernel *kernel) {
  cubind_buf entries = {0};
  size_t i;
  int one_line;
  for (i = 0; i < kernel->num_params; i++) {
    const cubind_param *param = &kernel->params[i];
    cubind_buf_printf(&entries, "%s{\"%s\", %llu, %llu}", i ? ", " : "",
                      param->user_named ? param->name : "", param->offset, param->size);
  }
  one_line = strlen(kernel->c_name) + entries.length < 60;
  cubind_buf_printf(out, "static const cubind_param_info %s_params[] = {", kernel->c_name);
  if (one_line) {
    cubind_buf_printf(out, "%s};\n", entries.data);
  } else {
    cubind_buf_puts(out, "\n");
    for (i = 0; i < kernel->num_params; i++) {
      const cubind_param *param = &kernel->params[i];
      cubind_buf_printf(out, "    {\"%s\", %llu, %llu},\n", param->user_named ? param->name : "",
                        param->offset, param->size);
    }
    cubind_buf_puts(out, "};\n");
  }
  cubind_buf_free(&entries);
}

static const char *direction_name(cubind_param_direction direction) {
  switch (direction) {
  case CUBIND_PARAM_IN:
    return "CUBIND_DIRECTION_IN";
  case CUBIND_PARAM_OUT:
    return "CUBIND_DIRECTION_OUT";
  default:
    return "CUBIND_DIRECTION_INOUT";
  }
}

/* void *cubind_args[N] = {&a, &n}; (nothing for a kernel without parameters) */
static void append_args(cubind_buf *out, const cubind_kernel *kernel) {
  size_t i;
  if (!kernel->num_params)
    return;
  cubind_buf_printf(out, "  void *cubind_args[%u] = {", (unsigned)kernel->num_params);
  for (i = 0; i < kernel->num_params; i++)
    cubind_buf_printf(out, "%s&%s", i ? ", " : "", kernel->params[i].name);
  cubind_buf_puts(out, "};\n");
}

/* Stands for "#line <next line> "<this file>"", filled in by restore_line_directives(). */
static const char line_restore_mark[] = "#line @@CUBIND_RESTORE@@\n";

/*
 * With line directives on: "#line <kernel's line> "<stem>.cu"" before a kernel's stubs (the .cu
 * by its basename, so outputs do not depend on paths), so that compiler messages about them
 * point at the kernel; the return to this file's own numbering follows them.
 */
static void append_line_directive(cubind_buf *out, const cubind_model *model,
                                  const cubind_location *location) {
  if (!model->line_directives || !location->line)
    return;
  cubind_buf_printf(out, "#line %u \"%s\"\n", location->line,
                    location->file ? cubind_basename(location->file) : model->source_name);
}

static void append_line_restore(cubind_buf *out, const cubind_model *model,
                                const cubind_location *location) {
  if (model->line_directives && location->line)
    cubind_buf_puts(out, line_restore_mark);
}

/* Replaces each restore mark in the filled source with the line it stands on + 1. */
static void restore_line_directives(cubind_buf *out, const char *output_name) {
  cubind_buf fixed = {0};
  const char *at = out->data, *line_start;
  unsigned line = 1;
  if (!out->data || !strstr(out->data, line_restore_mark))
    return;
  cubind_buf_puts(&fixed, "");
  for (line_start = at; *line_start; line++) {
    const char *end = strchr(line_start, '\n');
    size_t length = end ? (size_t)(end - line_start + 1) : strlen(line_start);
    if (length == sizeof line_restore_mark - 1 &&
        strncmp(line_start, line_restore_mark, length) == 0)
      cubind_buf_printf(&fixed, "#line %u \"%s\"\n", line + 1, output_name);
    else
      cubind_buf_append(&fixed, line_start, length);
    line_start += length;
  }
  cubind_buf_free(out);
  *out = fixed;
}

/* The <kernel>_launch and <kernel>_call definitions. */
static void append_stubs(cubind_buf *out, const cubind_model *model, size_t index) {
  const cubind_kernel *kernel = &model->kernels[index];
  const char *args = kernel->num_params ? "cubind_args" : "NULL";
  unsigned num_host = 0, i;
  for (i = 0; i < kernel->num_params; i++)
    num_host += kernel->params[i].direction != CUBIND_PARAM_DEVICE;
  append_line_directive(out, model, &kernel->location);

  append_signature(out, kernel, 0, 1);
  cubind_buf_puts(out, " {\n");
  append_args(out, kernel);
  cubind_buf_printf(out, "  return cubind_module_launch(&%s_module, %u, cfg, %s);\n}\n\n",
                    model->module_name, (unsigned)index, args);

  append_signature(out, kernel, 1, 1);
  cubind_buf_puts(out, " {\n");
  append_args(out, kernel);
  if (num_host) {
    unsigned done = 0;
    cubind_buf_printf(out, "  cubind_host_arg cubind_host_args[%u] = {\n", num_host);
    for (i = 0; i < kernel->num_params; i++) {
      const cubind_param *param = &kernel->params[i];
      if (param->direction == CUBIND_PARAM_DEVICE)
        continue;
      cubind_buf_printf(out, "      {%u, %s, (void *)%s, ", i, direction_name(param->direction),
                        param->name);
      if (param->count_expr)
        cubind_buf_printf(out, "(size_t)(%s), ", param->count_expr);
      else
        cubind_buf_printf(out, "%s_count, ", param->name);
      if (param->elem_type)
        cubind_buf_printf(out, "sizeof(%s)}", param->elem_type);
      else
        cubind_buf_printf(out, "%llu}", param->elem_size);
      cubind_buf_puts(out, ++done < num_host ? ",\n" : "};\n");
    }
    cubind_buf_printf(out,
                      "  return cubind_module_call(&%s_module, %u, cfg, %s, cubind_host_args, "
                      "%u);\n}\n",
                      model->module_name, (unsigned)index, args, num_host);
  } else {
    cubind_buf_printf(out, "  return cubind_module_call(&%s_module, %u, cfg, %s, NULL, 0);\n}\n",
                      model->module_name, (unsigned)index, args);
  }
  cubind_buf_printf(out,
                    "\ncubind_status %s_attributes(cubind_kernel_attributes *out) {\n"
                    "  return cubind_module_kernel_attributes(&%s_module, %u, out);\n}\n\n"
                    "cubind_status %s_config_occupancy(size_t n, unsigned shared_bytes, "
                    "cubind_config *out) {\n"
                    "  return cubind_module_config_occupancy(&%s_module, %u, n, shared_bytes, "
                    "out);\n}\n",
                    kernel->c_name, model->module_name, (unsigned)index, kernel->c_name,
                    model->module_name, (unsigned)index);
  append_line_restore(out, model, &kernel->location);
}

/* cubind_emit_source: see emit.h. */
int cubind_emit_source(const cubind_model *model, cubind_buf *out) {
  cubind_buf tables = {0}, kernel_table = {0}, stubs = {0}, checks = {0}, global_table = {0};
  char *globals_ref = model->num_variables ? cubind_xasprintf("%s_globals", model->module_name)
                                           : cubind_xstrdup("NULL");
  char *num_globals = cubind_xasprintf("%u", (unsigned)model->num_variables);
  char *output_name = cubind_xasprintf("%s.cubind.c", model->file_stem);
  char *header_name = cubind_xasprintf("%s.cubind.h", model->file_stem);
  char *kernels_ref = model->num_kernels ? cubind_xasprintf("%s_kernels", model->module_name)
                                         : cubind_xstrdup("NULL");
  char *num_kernels = cubind_xasprintf("%u", (unsigned)model->num_kernels);
  size_t k;
  int status;
  cubind_buf_puts(&tables, "");
  cubind_buf_puts(&kernel_table, "");
  cubind_buf_puts(&stubs, "");
  cubind_buf_puts(&checks, "");
  append_layout_checks(&checks, model);
  for (k = 0; k < model->num_kernels; k++)
    if (model->kernels[k].num_params)
      append_param_table(&tables, &model->kernels[k]);
  if (model->num_kernels) {
    cubind_buf_printf(&kernel_table, "static const cubind_kernel_info %s_kernels[] = {\n",
                      model->module_name);
    for (k = 0; k < model->num_kernels; k++) {
      const cubind_kernel *kernel = &model->kernels[k];
      cubind_buf_printf(&kernel_table, "    {\"%s\", \"%s\", ", kernel->c_name, kernel->symbol);
      if (kernel->num_params)
        cubind_buf_printf(&kernel_table, "%s_params, %u},\n", kernel->c_name,
                          (unsigned)kernel->num_params);
      else
        cubind_buf_puts(&kernel_table, "NULL, 0},\n");
    }
    cubind_buf_puts(&kernel_table, "};\n");
  }
  for (k = 0; k < model->num_kernels; k++) {
    if (k)
      cubind_buf_puts(&stubs, "\n");
    append_stubs(&stubs, model, k);
  }
  append_variable_stubs(&stubs, model);
  cubind_buf_puts(&global_table, "");
  if (model->num_variables) {
    cubind_buf_printf(&global_table,
                      "/* {C name, cubin symbol} of each __constant__ / __device__ variable */\n"
                      "static const cubind_global_info %s_globals[] = {\n",
                      model->module_name);
    for (k = 0; k < model->num_variables; k++)
      cubind_buf_printf(&global_table, "    {\"%s\", \"%s\"},\n", model->variables[k].name,
                        model->variables[k].symbol);
    cubind_buf_puts(&global_table, "};\n");
  }
  {
    marker markers[15];
    markers[14].name = "FATBIN",
    markers[14].value = model->fatbin_name ? model->fatbin_name : model->module_name;
    markers[10].name = "LAYOUT_CHECKS", markers[10].value = checks.data;
    markers[11].name = "GLOBAL_TABLE", markers[11].value = global_table.data;
    markers[12].name = "GLOBALS", markers[12].value = globals_ref;
    markers[13].name = "NUM_GLOBALS", markers[13].value = num_globals;
    markers[0].name = "OUTPUT_NAME", markers[0].value = output_name;
    markers[1].name = "HEADER_NAME", markers[1].value = header_name;
    markers[2].name = "SOURCE_NAME", markers[2].value = model->source_name;
    markers[3].name = "VERSION", markers[3].value = generator_version();
    markers[4].name = "MODULE", markers[4].value = model->module_name;
    markers[5].name = "PARAM_TABLES", markers[5].value = tables.data;
    markers[6].name = "KERNEL_TABLE", markers[6].value = kernel_table.data;
    markers[7].name = "KERNELS", markers[7].value = kernels_ref;
    markers[8].name = "NUM_KERNELS", markers[8].value = num_kernels;
    markers[9].name = "STUBS", markers[9].value = stubs.data;
    status = fill_template("cubind_stubs.c", cubind_template_stubs_c, markers, 15, out);
  }
  if (status == 0)
    restore_line_directives(out, output_name);
  cubind_buf_free(&checks);
  cubind_buf_free(&global_table);
  free(globals_ref);
  free(num_globals);
  cubind_buf_free(&tables);
  cubind_buf_free(&kernel_table);
  cubind_buf_free(&stubs);
  free(output_name);
  free(header_name);
  free(kernels_ref);
  free(num_kernels);
  return status;
}

/* ---- Fatbin ---------------------------------------------------------------------------- */

/* cubind_emit_fatbin: see emit.h. Formats bytes through a lookup table: 10+ MB stay fast. */
int cubind_emit_fatbin(const char *module, const char *source_name, const unsigned char *data,
                       size_t size, cubind_buf *out) {
  static const char hex[] = "0123456789abcdef";
  enum { PER_LINE = 16 };
  cubind_buf bytes = {0};
  char *output_name = cubind_xasprintf("%s.fatbin.c", module);
  char *size_text =
      size ? cubind_xasprintf("sizeof(cubind_fatbin_%s)", module) : cubind_xstrdup("0");
  size_t i;
  int status;
  if (!size) {
    cubind_buf_puts(&bytes, "    0\n"); /* C has no empty arrays; the size says 0 */
  } else {
    for (i = 0; i < size; i += PER_LINE) {
      char line[4 + PER_LINE * 5 + 1] = "    ", *at = line + 4;
      size_t n = size - i < PER_LINE ? size - i : PER_LINE, j;
      for (j = 0; j < n; j++) {
        unsigned char byte = data[i + j];
        at[0] = '0';
        at[1] = 'x';
        at[2] = hex[byte >> 4];
        at[3] = hex[byte & 15];
        at[4] = ',';
        at += 5;
      }
      *at++ = '\n';
      cubind_buf_append(&bytes, line, (size_t)(at - line));
    }
  }
  {
    marker markers[6];
    markers[0].name = "OUTPUT_NAME", markers[0].value = output_name;
    markers[1].name = "SOURCE_NAME", markers[1].value = source_name;
    markers[2].name = "VERSION", markers[2].value = generator_version();
    markers[3].name = "FATBIN", markers[3].value = module;
    markers[4].name = "BYTES", markers[4].value = bytes.data;
    markers[5].name = "SIZE", markers[5].value = size_text;
    status = fill_template("cubind_fatbin.c", cubind_template_fatbin_c, markers, 6, out);
  }
  cubind_buf_free(&bytes);
  free(output_name);
  free(size_text);
  return status;
}
