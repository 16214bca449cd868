/* template.c: filling templates, counting lines (see template.h). */
#include "template.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"

/* tpl_puts: see template.h. */
void tpl_puts(tpl_writer *writer, const char *text) {
  const char *at;
  for (at = strchr(text, '\n'); at; at = strchr(at + 1, '\n'))
    writer->lines++;
  cubind_buf_puts(writer->out, text);
}

/* tpl_printf: see template.h. */
void tpl_printf(tpl_writer *writer, const char *format, ...) {
  cubind_buf text = {0};
  va_list args;
  va_start(args, format);
  cubind_buf_vprintf(&text, format, args);
  va_end(args);
  if (text.data)
    tpl_puts(writer, text.data);
  cubind_buf_free(&text);
}

/* tpl_line_to: see template.h. */
void tpl_line_to(tpl_writer *writer, unsigned line, const char *file) {
  if (writer->line_directives && line)
    tpl_printf(writer, "#line %u \"%s\"\n", line, cubind_basename(file));
}

/* tpl_line_back: see template.h. The directive sits on line lines + 1; the next is lines + 2. */
void tpl_line_back(tpl_writer *writer) {
  if (writer->line_directives)
    tpl_printf(writer, "#line %u \"%s\"\n", writer->lines + 2, writer->name);
}

static int template_error(const char *template_name, const char *what, const char *at) {
  cubind_diag(NULL, 0, 0, "error", "template %s: %s near '%.20s'", template_name, what, at);
  return 1;
}

static const tpl_marker *find_marker(const tpl_marker *markers, size_t count, const char *name,
                                     size_t length) {
  size_t i;
  for (i = 0; i < count; i++)
    if (strlen(markers[i].name) == length && strncmp(markers[i].name, name, length) == 0)
      return &markers[i];
  return NULL;
}

/* Appends `length` bytes of template text (counting its lines). */
static void put_text(tpl_writer *writer, const char *text, size_t length) {
  size_t i;
  for (i = 0; i < length; i++)
    writer->lines += text[i] == '\n';
  cubind_buf_append(writer->out, text, length);
}

/* tpl_fill: see template.h. */
int tpl_fill(tpl_writer *writer, const char *template_name, const char *text, int begin,
             const tpl_marker *markers, size_t num_markers) {
  const char *at = text;
  if (begin) {
    at = strstr(text, "@@BEGIN@@\n");
    if (!at)
      return template_error(template_name, "no @@BEGIN@@ line", text);
    at += strlen("@@BEGIN@@\n");
  }
  for (;;) {
    const char *open = strstr(at, "@@"), *close, *name;
    const tpl_marker *marker;
    size_t length, before;
    int whole_line;
    if (!open) {
      tpl_puts(writer, at);
      return 0;
    }
    close = strstr(open + 2, "@@");
    if (!close)
      return template_error(template_name, "an unterminated @@ marker", open);
    put_text(writer, at, (size_t)(open - at));
    name = open + 2;
    length = (size_t)(close - name);
    whole_line = (open == text || open[-1] == '\n') && close[2] == '\n';
    at = close + 2;
    if (length > 5 && strncmp(name, "EACH ", 5) == 0) {
      /* a block: its text runs from the next line to the line before @@END NAME@@ */
      char *end_tag = cubind_xasprintf("\n@@END %.*s@@\n", (int)(length - 5), name + 5);
      const char *end = strstr(at, end_tag);
      char *block;
      int failed;
      marker = find_marker(markers, num_markers, name + 5, length - 5);
      if (!whole_line || !end || !marker || !marker->each) {
        free(end_tag);
        return template_error(template_name,
                              !marker || !marker->each ? "an unknown block" : "a malformed block",
                              open);
      }
      block = cubind_xstrndup(at + 1, (size_t)(end + 1 - (at + 1)));
      failed = marker->each(writer, block, marker->data);
      at = end + strlen(end_tag);
      free(block);
      free(end_tag);
      if (failed)
        return 1;
      continue;
    }
    marker = find_marker(markers, num_markers, name, length);
    if (!marker || marker->each)
      return template_error(template_name, "an unknown marker", open);
    before = writer->out->length;
    if (marker->write)
      marker->write(writer, marker->data);
    else
      tpl_puts(writer, marker->value);
    /* a whole-line marker that wrote nothing, or whole lines, brings its own line end */
    if (whole_line && (writer->out->length == before || writer->out->data[writer->out->length - 1] == '\n'))
      at++;
  }
}
