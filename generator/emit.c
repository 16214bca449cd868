/*
 * emit.c: the values that fill the templates (see emit.h, template.h). Every fixed character of
 * the outputs is in templates/; this file computes what varies: names, signatures, tables, and
 * the text taken from the .cu (doc comments, struct members), which it frames with #line.
 */
#include "emit.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "template.h"
#include "util.h"

#ifndef CUBIND_GEN_VERSION
#error "CUBIND_GEN_VERSION must be defined by the build (generator/CMakeLists.txt)"
#endif

/* The templates, embedded by the build from templates/ (generator/embed_templates.cmake). */
extern const char cubind_template_stubs_h[];
extern const char cubind_template_stubs_c[];
extern const char cubind_template_unit_c[];
extern const char cubind_template_fatbin_c[];

#define COUNT_OF(array) (sizeof(array) / sizeof((array)[0]))

/* ---- Text that goes inside comments ------------------------------------------------------- */

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
    if (at[0] == '?' && at[1] == '?' && (close_safe || (at[2] && strchr("=/'()!<>-", at[2]))))
      cubind_buf_puts(out, "\\");
    if (close_safe && at[0] == '*' && at[1] == '/')
      cubind_buf_puts(out, " ");
  }
}

/* A copy of `text` safe inside a comment (see append_comment_text), a new string. */
static char *comment_safe(const char *text) {
  cubind_buf out = {0};
  cubind_buf_puts(&out, "");
  append_comment_text(&out, text, 1);
  return out.data;
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

/* ---- Signatures ---------------------------------------------------------------------------- */

/*
 * Appends "type name" the way C declarations are written ("float *a", "int n", and for a
 * pointer to arrays "float (*a)[4]"). A top-level CUBIND_RESTRICT stays in prototypes, where it
 * documents the kernel's promise, and is dropped in definitions: there the stub takes the
 * parameter's address, and `T *restrict *` does not convert to `void *` without a warning.
 * Top-level qualifiers do not change the function type.
 */
static void append_declarator(cubind_buf *out, const char *c_type, const char *name,
                              int definition) {
  static const char restrict_word[] = "CUBIND_RESTRICT";
  size_t length = strlen(c_type), word = sizeof restrict_word - 1;
  const char *inside = strstr(c_type, "(*)"); /* a pointer to arrays: "float (*a)[16]" */
  if (definition && length >= word && strcmp(c_type + length - word, restrict_word) == 0) {
    length -= word;
    while (length && c_type[length - 1] == ' ')
      length--;
  }
  if (inside) {
    cubind_buf_printf(out, "%.*s%s%s", (int)(inside + 2 - c_type), c_type, name, inside + 2);
    return;
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

/*
 * The name of a stub's first parameter, the launch configuration: "cfg" as the contract shows
 * it, "cubind_cfg" in the stubs of a kernel that has a parameter of its own named cfg (names
 * beginning with cubind_ are refused in the user's code, check.c).
 */
static const char *config_name(const cubind_kernel *kernel) {
  size_t i;
  for (i = 0; i < kernel->num_params; i++)
    if (strcmp(kernel->params[i].name, "cfg") == 0)
      return "cubind_cfg";
  return "cfg";
}

/*
 * "doublify_launch(const cubind_config *cfg, float *a, int n)": the name and parameters of
 * <kernel>_launch or, with_counts, <kernel>_call (an annotated pointer without _N(expr) is
 * followed by its size_t <name>_count; an empty tag parameter is left out). A new string.
 */
static char *signature(const cubind_kernel *kernel, int with_counts, int definition) {
  cubind_buf out = {0}, argument = {0};
  size_t i, column;
  cubind_buf_printf(&out, "%s_%s(", kernel->c_name, with_counts ? "call" : "launch");
  column = strlen("cubind_status ") + out.length;
  argument.length = 0;
  cubind_buf_printf(&argument, "const cubind_config *%s", config_name(kernel));
  append_argument(&out, &column, argument.data, 1);
  for (i = 0; i < kernel->num_params; i++) {
    const cubind_param *param = &kernel->params[i];
    if (param->is_empty || param->role == CUBIND_ROLE_REDUCTION_SCRATCH)
      continue; /* a tag type, or what the runtime passes: nothing for the caller to pass */
    argument.length = 0;
    append_declarator(&argument, param->c_type, param->name, definition);
    append_argument(&out, &column, argument.data, 0);
    if (with_counts && param->direction != CUBIND_PARAM_DEVICE && !param->count_expr) {
      argument.length = 0;
      cubind_buf_printf(&argument, "size_t %s_count", param->name);
      append_argument(&out, &column, argument.data, 0);
    }
  }
  cubind_buf_puts(&out, ")");
  cubind_buf_free(&argument);
  return out.data;
}

/* The signature of <module>_<var>_to_device or _from_device (a new string). */
static char *variable_signature(const cubind_model *model, const cubind_variable *variable,
                                int to_device) {
  size_t length = strlen(variable->elem_type);
  int star = length && variable->elem_type[length - 1] == '*';
  if (to_device)
    return cubind_xasprintf("%s_%s_to_device(%s const *src, size_t count)", model->module_name,
                            variable->name, variable->elem_type);
  return cubind_xasprintf("%s_%s_from_device(%s%s*dst, size_t count)", model->module_name,
                          variable->name, variable->elem_type, star ? "" : " ");
}

/*
 * "cubind_g_<module>": the prefix of every name a generated .c defines for itself. cubind's own
 * namespace, where no kernel or parameter of the user's can be (check.c refuses cubind_...), so
 * that no user name (a struct gemm_params beside a kernel gemm, a parameter named like the
 * module) can collide with one. A new string.
 */
static char *internal_prefix(const cubind_model *model) {
  return cubind_xasprintf("cubind_g_%s", model->module_name);
}

/* ---- The header ---------------------------------------------------------------------------- */

/* What the header's blocks need besides an item: the model. */
typedef struct header_item {
  const cubind_model *model;
  size_t index;
} header_item;

static void write_extra_includes(tpl_writer *writer, const void *data) {
  const cubind_model *model = data;
  unsigned needs = 0;
  size_t k, p;
  for (k = 0; k < model->num_kernels; k++)
    for (p = 0; p < model->kernels[k].num_params; p++)
      needs |= model->kernels[k].params[p].needs;
  for (k = 0; k < model->num_variables; k++)
    if (model->variables[k].bound)
      needs |= model->variables[k].needs;
  for (k = 0; k < model->num_structs; k++)
    if (model->structs[k].used)
      needs |= model->structs[k].needs;
  if (needs & CUBIND_NEEDS_STDINT)
    tpl_puts(writer, "#include <stdint.h>\n");
  if (needs & CUBIND_NEEDS_STDBOOL)
    tpl_puts(writer, "#include <stdbool.h>\n");
  if (needs & CUBIND_NEEDS_VECTOR_TYPES)
    tpl_puts(writer, "#include <vector_types.h> /* float4, int2, ... */\n");
  for (k = 0; k < model->num_structs; k++) {
    const cubind_struct *record = &model->structs[k];
    size_t earlier;
    if (!record->used || record->defined_here ||
        (record->toolkit_header && (needs & CUBIND_NEEDS_VECTOR_TYPES) &&
         strcmp(record->header, "vector_types.h") == 0))
      continue;
    for (earlier = 0; earlier < k; earlier++) /* each header once */
      if (model->structs[earlier].used && !model->structs[earlier].defined_here &&
          strcmp(model->structs[earlier].header, record->header) == 0)
        break;
    if (earlier == k && record->toolkit_header)
      tpl_printf(writer, "#include <%s> /* declares structs the kernels take */\n",
                 record->header);
    else if (earlier == k)
      tpl_printf(writer, "#include \"%s\" /* declares structs the kernels take */\n",
                 record->header);
  }
}

/* The members of a struct copied from the .cu, each at its own line there. */
static void write_fields(tpl_writer *writer, const void *data) {
  const header_item *item = data;
  const cubind_struct *record = &item->model->structs[item->index];
  unsigned expected = 0; /* the .cu line the next output line stands for (0: none) */
  size_t f;
  for (f = 0; f < record->num_fields; f++) {
    const cubind_field *field = &record->fields[f];
    if (field->line != expected)
      tpl_line_to(writer, field->line, record->location.file);
    if (field->align_attr)
      tpl_printf(writer, "  %s __attribute__((aligned(%llu)));\n", field->c_decl,
                 field->align_attr);
    else
      tpl_printf(writer, "  %s;\n", field->c_decl);
    expected = field->line + 1;
  }
  if (writer->line_directives && record->num_fields)
    tpl_line_back(writer);
}

/* The markers a record's blocks share (C_NAME, SIZE, ALIGN) and the item its writers get. */
typedef struct record_values {
  header_item item;
  char size[32], align[32];
} record_values;

static size_t record_markers(const cubind_model *model, size_t k, record_values *values,
                             tpl_marker *markers) {
  const cubind_struct *record = &model->structs[k];
  values->item.model = model;
  values->item.index = k;
  snprintf(values->size, sizeof values->size, "%llu", record->size);
  snprintf(values->align, sizeof values->align, "%llu", record->align);
  markers[0].name = "C_NAME", markers[0].value = record->c_name;
  markers[1].name = "SIZE", markers[1].value = values->size;
  markers[2].name = "ALIGN", markers[2].value = values->align;
  return 3;
}

/*
 * What names a C copy's definition (CUBIND_RECORD_<name> in the header): a hash of its text
 * (kind, attributes, members, alias), as "0x...u". Two headers of one program (two .cu that
 * include one .cuh) hold the same copy under the same value, so the second is skipped; a
 * different copy of the same name is an #error naming it. A new string.
 */
static char *record_key(const cubind_struct *record, const char *attributes, const char *alias) {
  unsigned long long hash =
      cubind_hash_bytes(CUBIND_HASH_START, record->is_union ? "union" : "struct", 6);
  size_t f;
  hash = cubind_hash_bytes(hash, attributes, strlen(attributes) + 1);
  for (f = 0; f < record->num_fields; f++) {
    hash = cubind_hash_bytes(hash, record->fields[f].c_decl, strlen(record->fields[f].c_decl) + 1);
    hash = cubind_hash_bytes(hash, &record->fields[f].align_attr,
                             sizeof record->fields[f].align_attr);
  }
  hash = cubind_hash_bytes(hash, alias, strlen(alias) + 1);
  return cubind_xasprintf("0x%08lxu", (unsigned long)(hash & 0xffffffffu) ^
                                          (unsigned long)(hash >> 32));
}

static int each_struct(tpl_writer *writer, const char *block, const void *data) {
  const cubind_model *model = data;
  size_t k;
  for (k = 0; k < model->num_structs; k++) {
    const cubind_struct *record = &model->structs[k];
    record_values values;
    tpl_marker markers[10];
    char *display, *attributes, *alias, *key;
    int failed;
    if (!record->used || !record->defined_here)
      continue;
    /* the .cu's own typedef of another name, on the same line (the #line mapping stays) */
    alias = record->alias ? cubind_xasprintf(" typedef %s %s;", record->c_name, record->alias)
                          : cubind_xstrdup("");
    display = comment_safe(record->display_name);
    /* where C's rules alone would not give the device's layout (parse_structs.c) */
    if (record->packed && record->align_attr)
      attributes = cubind_xasprintf("__attribute__((packed, aligned(%llu))) ", record->align_attr);
    else if (record->packed)
      attributes = cubind_xstrdup("__attribute__((packed)) ");
    else if (record->align_attr)
      attributes = cubind_xasprintf("__attribute__((aligned(%llu))) ", record->align_attr);
    else
      attributes = cubind_xstrdup("");
    memset(markers, 0, sizeof markers);
    record_markers(model, k, &values, markers);
    markers[3].name = "DISPLAY_NAME", markers[3].value = display;
    /* the .cu, or the header C cannot include whose record this copies */
    markers[4].name = "SOURCE_NAME";
    markers[4].value =
        record->location.file ? cubind_basename(record->location.file) : model->source_name;
    markers[5].name = "KIND", markers[5].value = record->is_union ? "union" : "struct";
    markers[6].name = "FIELDS", markers[6].write = write_fields, markers[6].data = &values.item;
    markers[7].name = "ATTRIBUTES", markers[7].value = attributes;
    markers[8].name = "ALIAS", markers[8].value = alias;
    markers[9].name = "KEY", markers[9].value = key = record_key(record, attributes, alias);
    failed = tpl_fill(writer, "cubind_stubs.h", block, 0, markers, 10);
    free(display);
    free(attributes);
    free(alias);
    free(key);
    if (failed)
      return 1;
  }
  return 0;
}

/*
 * Appends comment text from `at` to `end` that goes between "/" "*" and "*" "/": a "/" "*"
 * inside is broken up, since compilers warn about it (-Wcomment), and with close_safe a "*" "/".
 */
static void append_block_text(cubind_buf *out, const char *at, const char *end, int close_safe) {
  for (; at < end; at++) {
    if (at[0] == '/' && at + 1 < end && at[1] == '*')
      cubind_buf_puts(out, "/ ");
    else if (close_safe && at[0] == '*' && at + 1 < end && at[1] == '/')
      cubind_buf_puts(out, "* ");
    else
      cubind_buf_append(out, at, 1);
  }
}

/*
 * A doc comment as the generated header can hold it, line for line (so that #line stays true).
 * Clang joins adjacent comments into one doc (`/// a` lines, `/ ** a * /` then `/// b`, two
 * block comments): each is kept as the kind it is, but a block comment's "/" "*" inside the
 * text (data/ *.bin, say) is broken up, and a `//` comment whose line ends in a backslash, which
 * would splice the next line (the prototype) into it, becomes a block comment (of all its lines
 * where the doc is `//` comments alone: "/// text" -> " * text").
 */
/* 1 when the line [start, end) ends in a backslash (before a CRLF's '\r'): it splices the next. */
static int line_spliced(const char *start, const char *end) {
  if (end > start && end[-1] == '\r')
    end--;
  return end > start && end[-1] == '\\';
}

static void append_doc_text(cubind_buf *out, const char *doc) {
  const char *at, *end, *line;
  int line_comments_only = 1, spliced = 0;
  for (at = doc; *at; at = *end ? end + 1 : end) {
    end = at + strcspn(at, "\n");
    line = at + strspn(at, " \t");
    if (line[0] != '/' || line[1] != '/')
      line_comments_only = 0;
    if (line_spliced(at, end))
      spliced = 1;
  }
  if (line_comments_only && spliced) {
    cubind_buf_puts(out, "/*");
    for (at = doc; *at; at++) {
      if (at[0] == '/' && at[1] == '/' && (at == doc || at[-1] == '\n')) {
        /* "/// text" -> " * text" (the first line keeps its place after the opening) */
        while (at[1] == '/' || at[1] == '!')
          at++;
        if (at - doc > 2)
          cubind_buf_puts(out, at == doc + 2 ? "" : " *");
        continue;
      }
      if (at[0] == '/' && at[1] == '*')
        cubind_buf_puts(out, "/ ");
      else if (at[0] == '*' && at[1] == '/')
        cubind_buf_puts(out, "* ");
      else
        cubind_buf_append(out, at, 1);
    }
    cubind_buf_puts(out, " */");
    return;
  }
  for (at = doc; *at;) {
    if (at[0] == '/' && at[1] == '*') { /* a block comment, to its end */
      const char *close = strstr(at + 2, "*/");
      end = close ? close : at + strlen(at);
      cubind_buf_puts(out, "/*");
      append_block_text(out, at + 2, end, 0);
      cubind_buf_puts(out, "*/");
      at = close ? close + 2 : end;
    } else if (at[0] == '/' && at[1] == '/') {
      /* a line comment, to its line's end and through the lines a backslash splices to it
         (which the compiler reads as the comment's: "/// a \\", "   b") */
      const char *start = at;
      end = at + strcspn(at, "\n");
      while (line_spliced(start, end) && *end == '\n') {
        start = end + 1;
        end = start + strcspn(start, "\n");
      }
      if (start != at || line_spliced(start, end)) {
        const char *text = at + 2;
        while (*text == '/' || *text == '!') /* its "///": the opening */
          text++;
        cubind_buf_puts(out, "/*");
        append_block_text(out, text, end, 1);
        cubind_buf_puts(out, " */");
      } else {
        cubind_buf_append(out, at, (size_t)(end - at));
      }
      at = end;
    } else {
      cubind_buf_append(out, at++, 1); /* the space between comments */
    }
  }
}

/* A kernel's doc comment, framed by #line to where it is in the .cu. */
static void write_doc(tpl_writer *writer, const void *data) {
  const cubind_kernel *kernel = data;
  cubind_buf doc = {0}, text = {0};
  if (!kernel->doc || !kernel->doc[0]) /* an empty one leaves `doc` unallocated */
    return;
  append_doc_text(&doc, kernel->doc);
  append_comment_text(&text, doc.data ? doc.data : "", 0); /* an empty comment adds nothing */
  cubind_buf_free(&doc);
  cubind_buf_puts(&text, "\n");
  tpl_line_to(writer, kernel->doc_location.line, kernel->doc_location.file);
  tpl_puts(writer, text.data);
  tpl_line_back(writer);
  cubind_buf_free(&text);
}

/*
 * What the annotations told the generator, next to <kernel>_call: which pointers it copies,
 * which way, and how many elements (not bytes) each holds: "a: copied in and out, n x 4 bytes".
 * On one line when it fits, else one line per buffer; "" for a kernel without host buffers.
 */
static char *call_note(const cubind_kernel *kernel) {
  static const char *const ways[] = {"", "copied in", "copied out", "copied in and out"};
  cubind_buf line = {0}, lines = {0}, item = {0};
  size_t i;
  int count = 0;
  cubind_buf_printf(&line, "/* %s_call host buffers:", kernel->c_name);
  cubind_buf_printf(&lines, "/*\n * %s_call host buffers:", kernel->c_name);
  for (i = 0; i < kernel->num_params; i++) {
    const cubind_param *param = &kernel->params[i];
    if (param->direction == CUBIND_PARAM_DEVICE)
      continue;
    item.length = 0;
    cubind_buf_printf(&item, "%s: %s, ", param->name, ways[param->direction]);
    if (param->count_expr)
      append_comment_text(&item, param->count_expr, 1);
    else
      cubind_buf_printf(&item, "%s_count", param->name);
    cubind_buf_printf(&item, " x %llu byte%s", param->elem_size, param->elem_size == 1 ? "" : "s");
    cubind_buf_printf(&line, "%s %s", count ? ";" : "", item.data);
    cubind_buf_printf(&lines, "\n *   %s", item.data);
    count++;
  }
  cubind_buf_puts(&line, ". */");
  cubind_buf_puts(&lines, "\n */");
  cubind_buf_free(&item);
  if (!count) {
    cubind_buf_free(&line);
    cubind_buf_free(&lines);
    return cubind_xstrdup("");
  }
  if (line.length <= 100) {
    cubind_buf_free(&lines);
    return line.data;
  }
  cubind_buf_free(&line);
  return lines.data;
}

static int each_kernel_decl(tpl_writer *writer, const char *block, const void *data) {
  const cubind_model *model = data;
  size_t k;
  for (k = 0; k < model->num_kernels; k++) {
    const cubind_kernel *kernel = &model->kernels[k];
    char *launch = signature(kernel, 0, 0), *call = signature(kernel, 1, 0);
    char *note = call_note(kernel);
    char *archs = kernel->only_in ? comment_safe(kernel->only_in) : NULL;
    char *only_in = archs ? cubind_xasprintf("/* Only in the code for %s: elsewhere these return "
                                             "CUBIND_ERROR_KERNEL_NOT_FOUND. */",
                                             archs)
                          : cubind_xstrdup("");
    tpl_marker markers[6];
    int failed;
    memset(markers, 0, sizeof markers);
    markers[0].name = "DOC", markers[0].write = write_doc, markers[0].data = kernel;
    markers[1].name = "ONLY_IN", markers[1].value = only_in;
    markers[2].name = "LAUNCH", markers[2].value = launch;
    markers[3].name = "CALL", markers[3].value = call;
    markers[4].name = "CALL_NOTE", markers[4].value = note;
    markers[5].name = "NAME", markers[5].value = kernel->c_name;
    failed = tpl_fill(writer, "cubind_stubs.h", block, 0, markers, 6);
    free(launch);
    free(call);
    free(note);
    free(archs);
    free(only_in);
    if (failed)
      return 1;
  }
  return 0;
}

/* The markers of a variable's block (both templates), into zeroed `markers`; the strings are
   freed by the caller. Returns how many. */
static size_t variable_markers(const cubind_model *model, size_t k, tpl_marker *markers,
                               char **strings) {
  const cubind_variable *variable = &model->variables[k];
  strings[0] = variable_signature(model, variable, 1);
  strings[1] = variable_signature(model, variable, 0);
  strings[2] = cubind_xasprintf("%llu element%s", variable->count, variable->count == 1 ? "" : "s");
  strings[3] = cubind_xasprintf("%llu", variable->elem_size);
  strings[4] = cubind_xasprintf("%llu", variable->count);
  strings[5] = cubind_xasprintf("%u", (unsigned)k);
  strings[6] = comment_safe(variable->display_name);
  markers[0].name = "TO_DEVICE", markers[0].value = strings[0];
  markers[1].name = "FROM_DEVICE", markers[1].value = strings[1];
  markers[2].name = "COUNT", markers[2].value = strings[2];
  markers[3].name = "ELEM_SIZE", markers[3].value = strings[3];
  markers[4].name = "MAX", markers[4].value = strings[4];
  markers[5].name = "INDEX", markers[5].value = strings[5];
  markers[6].name = "SPACE", markers[6].value = variable->is_constant ? "__constant__" : "__device__";
  markers[7].name = "DISPLAY_NAME", markers[7].value = strings[6];
  markers[8].name = "SOURCE_NAME", markers[8].value = model->source_name;
  markers[9].name = "ELEM_TYPE", markers[9].value = variable->elem_type;
  return 10;
}

/* Fills a variable block once per variable that gets copy functions (template: its name). */
static int each_variable_in(tpl_writer *writer, const char *block, const cubind_model *model,
                            const char *template_name, const char *module) {
  size_t k, i;
  for (k = 0; k < model->num_variables; k++) {
    tpl_marker markers[12];
    char *strings[7], *internal;
    size_t count;
    int failed;
    if (!model->variables[k].bound)
      continue;
    memset(markers, 0, sizeof markers);
    count = variable_markers(model, k, markers, strings);
    internal = internal_prefix(model);
    markers[count].name = "MODULE", markers[count].value = module;
    markers[count + 1].name = "INTERNAL", markers[count + 1].value = internal;
    failed = tpl_fill(writer, template_name, block, 0, markers, count + 2);
    free(internal);
    for (i = 0; i < COUNT_OF(strings); i++)
      free(strings[i]);
    if (failed)
      return 1;
  }
  return 0;
}

static int each_variable_decl(tpl_writer *writer, const char *block, const void *data) {
  const cubind_model *model = data;
  return each_variable_in(writer, block, model, "cubind_stubs.h", model->module_name);
}

/* The comment listing the kernels that got no C functions, and why. */
static void write_unbound(tpl_writer *writer, const void *data) {
  const cubind_model *model = data;
  cubind_buf out = {0};
  size_t i;
  if (!model->num_unbound)
    return;
  cubind_buf_puts(&out, "/*\n * Kernels without C functions, and why:\n");
  for (i = 0; i < model->num_unbound; i++) {
    const cubind_unbound *entry = &model->unbound[i];
    cubind_buf_puts(&out, " *\n *   ");
    append_comment_text(&out, entry->name, 1);
    cubind_buf_puts(&out, "\n");
    append_wrapped_comment(&out, entry->reason, " *     ", 100);
    if (strcmp(entry->name, entry->symbol) != 0) {
      cubind_buf_puts(&out, "\n *     (symbol ");
      append_comment_text(&out, entry->symbol, 1);
      cubind_buf_puts(&out, ")");
    }
    cubind_buf_puts(&out, "\n");
  }
  cubind_buf_puts(&out, " */\n");
  tpl_puts(writer, out.data);
  cubind_buf_free(&out);
}

/*
 * The macro names of a module, in cubind's own namespace (a module like "cubind" cannot make a
 * runtime header's guard): CUBIND_GENERATED_<MODULE><suffix>. From the module's name, prefix
 * included, not the file's: two modules of one program may come from files of one name (the
 * same .cu built twice, with PREFIXes f_ and d_), and their headers must both count. A name
 * with capitals keeps its case behind a lowercase mark, which no uppercased name has: modules
 * A and a get CUBIND_GENERATED_case_A_H and CUBIND_GENERATED_A_H, not one guard.
 * Returns a new string.
 */
static char *module_macro(const cubind_model *model, const char *suffix) {
  const char *name = model->module_name, *at;
  char *macro;
  size_t k;
  for (at = name; *at && !isupper((unsigned char)*at); at++)
    ;
  if (*at) /* (the suffixes are capitals: _H, _IMPLEMENTATION) */
    return cubind_xasprintf("CUBIND_GENERATED_case_%s%s", name, suffix);
  macro = cubind_xasprintf("CUBIND_GENERATED_%s%s", name, suffix);
  for (k = 0; macro[k]; k++)
    macro[k] = (char)toupper((unsigned char)macro[k]);
  return macro;
}

static int emit_definitions(const cubind_model *model, tpl_writer *writer,
                            const char *implementation);

/* Starts a writer at line 1 of `out`; its #line directives, when it writes any, call it `name`. */
static void writer_init(tpl_writer *writer, cubind_buf *out, const char *name,
                        int line_directives) {
  writer->out = out;
  writer->lines = 0;
  writer->name = name;
  writer->line_directives = line_directives;
}

/* cubind_emit_header: see emit.h. */
int cubind_emit_header(const cubind_model *model, cubind_buf *out) {
  char *output_name = cubind_xasprintf("%s.cubind.h", model->file_stem);
  char *guard = module_macro(model, "_H");
  char *implementation = module_macro(model, "_IMPLEMENTATION");
  tpl_writer writer;
  tpl_marker markers[9];
  size_t k;
  int status;
  writer_init(&writer, out, output_name, model->line_directives);
  memset(markers, 0, sizeof markers);
  markers[0].name = "OUTPUT_NAME", markers[0].value = output_name;
  markers[1].name = "SOURCE_NAME", markers[1].value = model->source_name;
  markers[2].name = "VERSION", markers[2].value = CUBIND_GEN_VERSION;
  markers[3].name = "GUARD", markers[3].value = guard;
  markers[4].name = "EXTRA_INCLUDES", markers[4].write = write_extra_includes;
  markers[5].name = "UNBOUND", markers[5].write = write_unbound;
  markers[6].name = "struct", markers[6].each = each_struct;
  markers[7].name = "kernel", markers[7].each = each_kernel_decl;
  markers[8].name = "variable", markers[8].each = each_variable_decl;
  for (k = 4; k < COUNT_OF(markers); k++)
    markers[k].data = model;
  status = tpl_fill(&writer, "cubind_stubs.h", cubind_template_stubs_h, 1, markers,
                    COUNT_OF(markers)) ||
           emit_definitions(model, &writer, implementation);
  free(output_name);
  free(guard);
  free(implementation);
  return status;
}

/* cubind_emit_source: see emit.h. */
int cubind_emit_source(const cubind_model *model, cubind_buf *out) {
  char *output_name = cubind_xasprintf("%s.cubind.c", model->file_stem);
  char *header_name = cubind_xasprintf("%s.cubind.h", model->file_stem);
  char *implementation = module_macro(model, "_IMPLEMENTATION");
  tpl_writer writer;
  tpl_marker markers[5];
  int status;
  writer_init(&writer, out, output_name, model->line_directives);
  memset(markers, 0, sizeof markers);
  markers[0].name = "OUTPUT_NAME", markers[0].value = output_name;
  markers[1].name = "HEADER_NAME", markers[1].value = header_name;
  markers[2].name = "SOURCE_NAME", markers[2].value = model->source_name;
  markers[3].name = "VERSION", markers[3].value = CUBIND_GEN_VERSION;
  markers[4].name = "IMPLEMENTATION", markers[4].value = implementation;
  status = tpl_fill(&writer, "cubind_unit.c", cubind_template_unit_c, 1, markers,
                    COUNT_OF(markers));
  free(output_name);
  free(header_name);
  free(implementation);
  return status;
}

/* ---- The source ---------------------------------------------------------------------------- */

static int each_layout(tpl_writer *writer, const char *block, const void *data);

static int each_layout_checks(tpl_writer *writer, const char *block, const void *data) {
  const cubind_model *model = data;
  size_t k;
  tpl_marker layout;
  memset(&layout, 0, sizeof layout);
  layout.name = "layout", layout.each = each_layout, layout.data = model;
  for (k = 0; k < model->num_structs; k++)
    if (model->structs[k].used)
      return tpl_fill(writer, "cubind_stubs.c", block, 0, &layout, 1);
  return 0;
}

/*
 * The identifier the layout checks of record k are named after, which a failed check prints:
 * cubind_g_<module>_<k>_<C name> (the index keeps two names apart that spell alike).
 */
static char *layout_id(const cubind_model *model, size_t k) {
  char *name = cubind_sanitize_identifier(model->structs[k].c_name);
  char *id = cubind_xasprintf("cubind_g_%s_%u_%s", model->module_name, (unsigned)k, name);
  free(name);
  return id;
}

/*
 * CUBIND_LAYOUT_CHECK(<id>_field_<field>, offsetof(<type>, <field>) == <offset>); per field:
 * "_field_" keeps a field's check apart from the record's own (a field named `sizeof` cannot
 * be; one named `size` or `align` now can).
 */
static void write_field_checks(tpl_writer *writer, const void *data) {
  const header_item *item = data;
  const cubind_struct *record = &item->model->structs[item->index];
  char *id = layout_id(item->model, item->index);
  size_t f;
  for (f = 0; f < record->num_fields; f++)
    tpl_printf(writer, "CUBIND_LAYOUT_CHECK(%s_field_%s, offsetof(%s, %s) == %llu);\n", id,
               record->fields[f].name, record->c_name, record->fields[f].name,
               record->fields[f].offset);
  free(id);
}

static int each_layout(tpl_writer *writer, const char *block, const void *data) {
  const cubind_model *model = data;
  size_t k;
  for (k = 0; k < model->num_structs; k++) {
    record_values values;
    tpl_marker markers[5];
    char *id;
    int failed;
    if (!model->structs[k].used)
      continue;
    id = layout_id(model, k);
    memset(markers, 0, sizeof markers);
    record_markers(model, k, &values, markers);
    markers[3].name = "ID", markers[3].value = id;
    markers[4].name = "FIELD_CHECKS", markers[4].write = write_field_checks;
    markers[4].data = &values.item;
    failed = tpl_fill(writer, "cubind_stubs.c", block, 0, markers, 5);
    free(id);
    if (failed)
      return 1;
  }
  return 0;
}

/* One parameter's entry: {"a", 0, 8}; CUBIND_PARAM_OFFSET_ANY where nvcc's offset varies. */
static void param_entry(cubind_buf *out, const cubind_param *param) {
  const char *name = param->user_named ? param->name : "";
  if (param->offset_varies)
    cubind_buf_printf(out, "{\"%s\", CUBIND_PARAM_OFFSET_ANY, %llu}", name, param->size);
  else
    cubind_buf_printf(out, "{\"%s\", %llu, %llu}", name, param->offset, param->size);
}

/* {"a", 0, 8}, {"n", 8, 4}: on one line when short, else one entry per line. */
static char *param_entries(const cubind_kernel *kernel) {
  cubind_buf entries = {0};
  size_t i;
  for (i = 0; i < kernel->num_params; i++) {
    cubind_buf_puts(&entries, i ? ", " : "");
    param_entry(&entries, &kernel->params[i]);
  }
  if (strlen(kernel->c_name) + entries.length < 60)
    return entries.data;
  entries.length = 0;
  cubind_buf_puts(&entries, "\n");
  for (i = 0; i < kernel->num_params; i++) {
    cubind_buf_puts(&entries, "    ");
    param_entry(&entries, &kernel->params[i]);
    cubind_buf_puts(&entries, ",\n");
  }
  return entries.data;
}

static int each_param_table(tpl_writer *writer, const char *block, const void *data) {
  const cubind_model *model = data;
  size_t k;
  for (k = 0; k < model->num_kernels; k++) {
    const cubind_kernel *kernel = &model->kernels[k];
    char *entries, *internal, index[32];
    tpl_marker markers[3];
    int failed;
    if (!kernel->num_params)
      continue;
    entries = param_entries(kernel);
    internal = internal_prefix(model);
    snprintf(index, sizeof index, "%u", (unsigned)k);
    memset(markers, 0, sizeof markers);
    markers[0].name = "INTERNAL", markers[0].value = internal;
    markers[1].name = "INDEX", markers[1].value = index;
    markers[2].name = "ENTRIES", markers[2].value = entries;
    failed = tpl_fill(writer, "cubind_stubs.c", block, 0, markers, 3);
    free(internal);
    free(entries);
    if (failed)
      return 1;
  }
  return 0;
}

static int each_kernel_entry(tpl_writer *writer, const char *block, const void *data) {
  const cubind_model *model = data;
  size_t k;
  for (k = 0; k < model->num_kernels; k++) {
    const cubind_kernel *kernel = &model->kernels[k];
    char *params = kernel->num_params ? cubind_xasprintf("cubind_g_%s_params%u", model->module_name,
                                                         (unsigned)k)
                                      : cubind_xstrdup("NULL");
    char count[32];
    tpl_marker markers[4];
    int failed;
    snprintf(count, sizeof count, "%u", (unsigned)kernel->num_params);
    memset(markers, 0, sizeof markers);
    markers[0].name = "NAME", markers[0].value = kernel->c_name;
    markers[1].name = "SYMBOL", markers[1].value = kernel->symbol;
    markers[2].name = "PARAMS", markers[2].value = params;
    markers[3].name = "NUM_PARAMS", markers[3].value = count;
    failed = tpl_fill(writer, "cubind_stubs.c", block, 0, markers, 4);
    free(params);
    if (failed)
      return 1;
  }
  return 0;
}

static int each_kernel_table(tpl_writer *writer, const char *block, const void *data) {
  const cubind_model *model = data;
  tpl_marker markers[2];
  char *internal;
  int failed;
  if (!model->num_kernels)
    return 0;
  internal = internal_prefix(model);
  memset(markers, 0, sizeof markers);
  markers[0].name = "INTERNAL", markers[0].value = internal;
  markers[1].name = "kernel_entry", markers[1].each = each_kernel_entry, markers[1].data = model;
  failed = tpl_fill(writer, "cubind_stubs.c", block, 0, markers, 2);
  free(internal);
  return failed;
}

static int each_global_entry(tpl_writer *writer, const char *block, const void *data) {
  const cubind_model *model = data;
  size_t k;
  for (k = 0; k < model->num_variables; k++) {
    tpl_marker markers[2];
    if (!model->variables[k].bound)
      continue;
    memset(markers, 0, sizeof markers);
    markers[0].name = "NAME", markers[0].value = model->variables[k].name;
    markers[1].name = "SYMBOL", markers[1].value = model->variables[k].symbol;
    if (tpl_fill(writer, "cubind_stubs.c", block, 0, markers, 2))
      return 1;
  }
  return 0;
}

/* The number of variables that get copy functions. */
static size_t bound_variables(const cubind_model *model) {
  size_t k, count = 0;
  for (k = 0; k < model->num_variables; k++)
    count += model->variables[k].bound != 0;
  return count;
}

static int each_global_table(tpl_writer *writer, const char *block, const void *data) {
  const cubind_model *model = data;
  tpl_marker markers[2];
  char *internal;
  int failed;
  if (!bound_variables(model))
    return 0;
  internal = internal_prefix(model);
  memset(markers, 0, sizeof markers);
  markers[0].name = "INTERNAL", markers[0].value = internal;
  markers[1].name = "global_entry", markers[1].each = each_global_entry, markers[1].data = model;
  failed = tpl_fill(writer, "cubind_stubs.c", block, 0, markers, 2);
  free(internal);
  return failed;
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

/* The index of the kernel's parameter with `role`, or -1. */
static long role_index(const cubind_kernel *kernel, cubind_param_role role) {
  size_t i;
  for (i = 0; i < kernel->num_params; i++)
    if (kernel->params[i].role == role)
      return (long)i;
  return -1;
}

/*
 * "  void *cubind_args[2] = {&a, &n};" (nothing for a kernel without parameters); an empty tag
 * parameter gets the address of a zero byte, its whole value; a reduction's scratch the address
 * of a pointer the runtime sets.
 */
static char *args_array(const cubind_kernel *kernel) {
  cubind_buf out = {0};
  size_t i;
  cubind_buf_puts(&out, "");
  if (!kernel->num_params)
    return out.data;
  if (role_index(kernel, CUBIND_ROLE_REDUCTION_SCRATCH) >= 0)
    cubind_buf_puts(&out, "  void *cubind_scratch = NULL;\n");
  cubind_buf_printf(&out, "  void *cubind_args[%u] = {", (unsigned)kernel->num_params);
  for (i = 0; i < kernel->num_params; i++)
    cubind_buf_printf(&out, "%s&%s", i ? ", " : "",
                      kernel->params[i].is_empty ? "cubind_empty_arg"
                      : kernel->params[i].role == CUBIND_ROLE_REDUCTION_SCRATCH
                          ? "cubind_scratch"
                          : kernel->params[i].name);
  cubind_buf_puts(&out, "};");
  return out.data;
}

/* The index of a kernel's element count (CUBIND_ELEMENT_COUNT or _MAP), or -1. */
static long count_index(const cubind_kernel *kernel) {
  long count = role_index(kernel, CUBIND_ROLE_ELEMENT_COUNT);
  return count >= 0 ? count : role_index(kernel, CUBIND_ROLE_ELEMENT_MAP);
}

/*
 * A kernel of <cubind/elementwise.cuh>: "  const cubind_elementwise_shape cubind_shape = {n, 3,
 * 4, 2, 0};" (its element count, the reduction's scratch parameter or CUBIND_NO_SCRATCH, the
 * bytes of its result's element, the count's parameter, 1 for an element map); "" for other
 * kernels.
 */
static char *shape_line(const cubind_kernel *kernel) {
  long count = count_index(kernel);
  long scratch = role_index(kernel, CUBIND_ROLE_REDUCTION_SCRATCH);
  int map = kernel->params[count < 0 ? 0 : count].role == CUBIND_ROLE_ELEMENT_MAP;
  if (count < 0)
    return cubind_xstrdup("");
  if (scratch < 0)
    return cubind_xasprintf("  const cubind_elementwise_shape cubind_shape = {%s, "
                            "CUBIND_NO_SCRATCH, 0, %ld, %d};",
                            kernel->params[count].name, count, map);
  /* the result is the reduction's first parameter (elementwise.cuh) */
  return cubind_xasprintf("  const cubind_elementwise_shape cubind_shape = {%s, %ld, %llu, %ld, "
                          "0};",
                          kernel->params[count].name, scratch, kernel->params[0].elem_size, count);
}

/* `text` as a C string literal (quotes, backslashes and C99 trigraphs escaped), a new string. */
static char *c_string_literal(const char *text) {
  cubind_buf out = {0};
  const char *at;
  cubind_buf_puts(&out, "\"");
  for (at = text; *at; at++) {
    if (*at == '"' || *at == '\\')
      cubind_buf_printf(&out, "\\%c", *at);
    else if (at[0] == '?' && at[1] == '?')
      cubind_buf_puts(&out, "?\\"); /* "?\?" is no trigraph */
    else if ((unsigned char)*at < 0x20 || *at == 0x7f)
      cubind_buf_printf(&out, "\\%03o", (unsigned char)*at);
    else
      cubind_buf_append(&out, at, 1);
  }
  cubind_buf_puts(&out, "\"");
  return out.data;
}

/*
 * The host buffers of <kernel>_call: {parameter, direction, buffer, count, element size, the
 * count expression as written (for messages; NULL when the caller passes the count)}.
 */
static char *host_args_array(const cubind_kernel *kernel, unsigned num_host) {
  cubind_buf out = {0};
  unsigned done = 0, i;
  cubind_buf_puts(&out, "");
  if (!num_host)
    return out.data;
  cubind_buf_printf(&out, "  cubind_host_arg cubind_host_args[%u] = {\n", num_host);
  for (i = 0; i < kernel->num_params; i++) {
    const cubind_param *param = &kernel->params[i];
    if (param->direction == CUBIND_PARAM_DEVICE)
      continue;
    cubind_buf_printf(&out, "      {%u, %s, cubind_host_buffer_(%s), ", i,
                      direction_name(param->direction), param->name);
    if (param->count_code)
      cubind_buf_printf(&out, "%s, ", param->count_code);
    else
      cubind_buf_printf(&out, "%s_count, ", param->name);
    /* the element's size as a number, the device's: a parameter may be named like a type
       (`int size_t`), and sizeof(size_t) in this function would then be sizeof(int) */
    cubind_buf_printf(&out, "%llu, ", param->elem_size);
    if (param->count_expr) {
      char *text = c_string_literal(param->count_expr);
      cubind_buf_printf(&out, "%s}", text);
      free(text);
    } else {
      cubind_buf_puts(&out, "NULL}");
    }
    cubind_buf_puts(&out, ++done < num_host ? ",\n" : "};");
  }
  return out.data;
}

static int each_kernel_stubs(tpl_writer *writer, const char *block, const void *data) {
  const cubind_model *model = data;
  size_t k, i;
  for (k = 0; k < model->num_kernels; k++) {
    const cubind_kernel *kernel = &model->kernels[k];
    unsigned num_host = 0;
    char *strings[9];
    tpl_marker markers[15];
    int elementwise = count_index(kernel) >= 0;
    int failed;
    for (i = 0; i < kernel->num_params; i++)
      num_host += kernel->params[i].direction != CUBIND_PARAM_DEVICE;
    strings[0] = signature(kernel, 0, 1);
    strings[1] = signature(kernel, 1, 1);
    strings[2] = args_array(kernel);
    strings[3] = host_args_array(kernel, num_host);
    strings[4] = cubind_xasprintf("%u", (unsigned)k);
    strings[5] = cubind_xasprintf("%u", num_host);
    strings[6] = cubind_xstrdup(num_host ? "cubind_host_args" : "NULL");
    strings[7] = internal_prefix(model);
    strings[8] = shape_line(kernel);
    memset(markers, 0, sizeof markers);
    markers[0].name = "LAUNCH", markers[0].value = strings[0];
    markers[1].name = "CALL", markers[1].value = strings[1];
    markers[2].name = "ARGS_ARRAY", markers[2].value = strings[2];
    markers[3].name = "HOST_ARGS_ARRAY", markers[3].value = strings[3];
    markers[4].name = "INDEX", markers[4].value = strings[4];
    markers[5].name = "NUM_HOST_ARGS", markers[5].value = strings[5];
    markers[6].name = "HOST_ARGS", markers[6].value = strings[6];
    markers[7].name = "ARGS", markers[7].value = kernel->num_params ? "cubind_args" : "NULL";
    markers[8].name = "NAME", markers[8].value = kernel->c_name;
    markers[9].name = "MODULE", markers[9].value = model->module_name;
    markers[10].name = "INTERNAL", markers[10].value = strings[7];
    markers[11].name = "SHAPE", markers[11].value = strings[8];
    markers[12].name = "KIND", markers[12].value = elementwise ? "_elementwise" : "";
    markers[13].name = "SHAPE_ARG", markers[13].value = elementwise ? ", &cubind_shape" : "";
    markers[14].name = "CONFIG", markers[14].value = config_name(kernel);
    failed = tpl_fill(writer, "cubind_stubs.c", block, 0, markers, COUNT_OF(markers));
    for (i = 0; i < COUNT_OF(strings); i++)
      free(strings[i]);
    if (failed)
      return 1;
  }
  return 0;
}

/* The zero byte passed for empty tag parameters: once, when some kernel has one. */
static int each_empty_arg(tpl_writer *writer, const char *block, const void *data) {
  const cubind_model *model = data;
  size_t k, p;
  for (k = 0; k < model->num_kernels; k++)
    for (p = 0; p < model->kernels[k].num_params; p++)
      if (model->kernels[k].params[p].is_empty)
        return tpl_fill(writer, "cubind_stubs.c", block, 0, NULL, 0);
  return 0;
}

static int each_variable_stubs(tpl_writer *writer, const char *block, const void *data) {
  const cubind_model *model = data;
  return each_variable_in(writer, block, model, "cubind_stubs.c", model->module_name);
}

/* The definitions that end the header (templates/cubind_stubs.c), written by `writer`. */
static int emit_definitions(const cubind_model *model, tpl_writer *writer,
                            const char *implementation) {
  char *internal = internal_prefix(model);
  char *kernels = model->num_kernels ? cubind_xasprintf("%s_kernels", internal)
                                     : cubind_xstrdup("NULL");
  char *globals = bound_variables(model) ? cubind_xasprintf("%s_globals", internal)
                                         : cubind_xstrdup("NULL");
  char num_kernels[32], num_globals[32];
  tpl_marker markers[18];
  size_t k;
  int status;
  snprintf(num_kernels, sizeof num_kernels, "%u", (unsigned)model->num_kernels);
  snprintf(num_globals, sizeof num_globals, "%u", (unsigned)bound_variables(model));
  memset(markers, 0, sizeof markers);
  markers[0].name = "OUTPUT_NAME", markers[0].value = writer->name;
  markers[1].name = "IMPLEMENTATION", markers[1].value = implementation;
  markers[2].name = "SOURCE_NAME", markers[2].value = model->source_name;
  markers[3].name = "VERSION", markers[3].value = CUBIND_GEN_VERSION;
  markers[4].name = "MODULE", markers[4].value = model->module_name;
  markers[5].name = "KERNELS", markers[5].value = kernels;
  markers[6].name = "NUM_KERNELS", markers[6].value = num_kernels;
  markers[7].name = "GLOBALS", markers[7].value = globals;
  markers[8].name = "NUM_GLOBALS", markers[8].value = num_globals;
  markers[9].name = "layout_checks", markers[9].each = each_layout_checks;
  markers[10].name = "param_table", markers[10].each = each_param_table;
  markers[11].name = "kernel_table", markers[11].each = each_kernel_table;
  markers[12].name = "global_table", markers[12].each = each_global_table;
  markers[13].name = "kernel", markers[13].each = each_kernel_stubs;
  markers[14].name = "variable", markers[14].each = each_variable_stubs;
  markers[15].name = "empty_arg", markers[15].each = each_empty_arg;
  for (k = 9; k < 16; k++)
    markers[k].data = model;
  markers[16].name = "FATBIN";
  markers[16].value = model->fatbin_name ? model->fatbin_name : model->module_name;
  markers[17].name = "INTERNAL", markers[17].value = internal;
  status = tpl_fill(writer, "cubind_stubs.c", cubind_template_stubs_c, 1, markers,
                    COUNT_OF(markers));
  free(internal);
  free(kernels);
  free(globals);
  return status;
}

/* ---- The fatbin -------------------------------------------------------------------------- */

/* The fatbin's bytes as initializer lines, through a lookup table: 10+ MB stay fast. */
static void write_bytes(tpl_writer *writer, const void *data) {
  static const char hex[] = "0123456789abcdef";
  enum { PER_LINE = 16 };
  const cubind_buf *bytes = data;
  const unsigned char *at = (const unsigned char *)bytes->data;
  size_t i, size = bytes->length;
  if (!size) {
    tpl_puts(writer, "    0\n"); /* C has no empty arrays; the size says 0 */
    return;
  }
  for (i = 0; i < size; i += PER_LINE) {
    char line[4 + PER_LINE * 5 + 1] = "    ", *to = line + 4;
    size_t n = size - i < PER_LINE ? size - i : PER_LINE, j;
    for (j = 0; j < n; j++) {
      unsigned char byte = at[i + j];
      to[0] = '0';
      to[1] = 'x';
      to[2] = hex[byte >> 4];
      to[3] = hex[byte & 15];
      to[4] = ',';
      to += 5;
    }
    *to++ = '\n';
    cubind_buf_append(writer->out, line, (size_t)(to - line));
    writer->lines++;
  }
}

/* cubind_emit_fatbin: see emit.h. */
int cubind_emit_fatbin(const char *module, const char *source_name, const unsigned char *data,
                       size_t size, cubind_buf *out) {
  char *output_name = cubind_xasprintf("%s.fatbin.c", module);
  char *size_text =
      size ? cubind_xasprintf("sizeof(cubind_fatbin_%s)", module) : cubind_xstrdup("0");
  cubind_buf bytes;
  tpl_writer writer;
  tpl_marker markers[6];
  int status;
  bytes.data = (char *)data;
  bytes.length = size;
  bytes.capacity = size;
  writer_init(&writer, out, output_name, 0);
  memset(markers, 0, sizeof markers);
  markers[0].name = "OUTPUT_NAME", markers[0].value = output_name;
  markers[1].name = "SOURCE_NAME", markers[1].value = source_name;
  markers[2].name = "VERSION", markers[2].value = CUBIND_GEN_VERSION;
  markers[3].name = "FATBIN", markers[3].value = module;
  markers[4].name = "BYTES", markers[4].write = write_bytes, markers[4].data = &bytes;
  markers[5].name = "SIZE", markers[5].value = size_text;
  status = tpl_fill(&writer, "cubind_fatbin.c", cubind_template_fatbin_c, 1, markers, 6);
  free(output_name);
  free(size_text);
  return status;
}
