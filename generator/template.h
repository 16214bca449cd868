/*
 * template.h: fills the templates of templates/ (built into cubind-gen). A template is the
 * whole output: every fixed character of a generated file is in it, and the emitter supplies
 * only values. Its text after the "@@BEGIN@@" line is copied, with
 *
 *   @@NAME@@                 replaced by a marker's value (text, or what a writer function
 *                            writes); a marker alone on its line stands for whole lines, and
 *                            leaves no blank line when it writes nothing
 *   @@EACH NAME@@ ... @@END NAME@@   a block (whole lines) filled once per item of NAME, with
 *                            that item's markers (an item list of 0 or 1 makes it a condition)
 *
 * The writer counts lines as it goes, so that text taken from the .cu can be framed by #line
 * directives that tell the truth: "#line 12 "vec.cu"" before it, the output's own next line
 * after it (lemon's tplt_linedir habit).
 */
#ifndef CUBIND_GEN_TEMPLATE_H
#define CUBIND_GEN_TEMPLATE_H

#include <stddef.h>

#include "util.h"

/* Where a template's output goes. */
typedef struct tpl_writer {
  cubind_buf *out;
  unsigned lines;          /* '\n' written so far */
  const char *name;        /* the output's file name, for #line */
  int line_directives;     /* 0: never write #line */
} tpl_writer;

/* tpl_puts / tpl_printf: append text to the output, counting its lines. */
void tpl_puts(tpl_writer *writer, const char *text);
void tpl_printf(tpl_writer *writer, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* tpl_line_to: "#line <line> "<file>"": the next lines come from `file` (its basename). */
void tpl_line_to(tpl_writer *writer, unsigned line, const char *file);

/* tpl_line_back: "#line <n> "<output>"": the next line is the output's own line n again. */
void tpl_line_back(tpl_writer *writer);

typedef struct tpl_marker tpl_marker;

/* Fills `block` (a @@EACH@@ block's text) once per item of the marker's list. */
typedef int (*tpl_each_fn)(tpl_writer *writer, const char *block, const void *data);

/* Writes a marker's value. */
typedef void (*tpl_write_fn)(tpl_writer *writer, const void *data);

/* One marker: exactly one of value, write and each is set. */
struct tpl_marker {
  const char *name;
  const char *value;   /* a plain text value */
  tpl_write_fn write;  /* or: writes the value itself (to frame it with #line, say) */
  tpl_each_fn each;    /* or: the items of @@EACH name@@ */
  const void *data;    /* passed to write / each */
};

/*
 * tpl_fill: copies `text` (a whole template, from its @@BEGIN@@ line, or a block's text when
 * begin is 0) to the writer, replacing markers and filling blocks. `template_name` names the
 * template in messages. Returns 0, or 1 after reporting a malformed template or an unknown
 * marker (a bug in the templates, not the user's).
 */
int tpl_fill(tpl_writer *writer, const char *template_name, const char *text, int begin,
             const tpl_marker *markers, size_t num_markers);

#endif /* CUBIND_GEN_TEMPLATE_H */
