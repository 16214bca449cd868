/* parse_templates.c: template specialisations: C names and template constants (see
   parse_templates.h). */
#include "parse_templates.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clang_util.h"
#include "names.h"
#include "util.h"

/* A template's parameters, in order (visitor state of collect_template_params). */
typedef struct template_params {
  CXCursor items[64];
  unsigned count;
} template_params;

static enum CXChildVisitResult collect_template_params(CXCursor cursor, CXCursor parent,
                                                       CXClientData data) {
  template_params *params = data;
  enum CXCursorKind kind = clang_getCursorKind(cursor);
  (void)parent;
  if ((kind == CXCursor_TemplateTypeParameter || kind == CXCursor_NonTypeTemplateParameter ||
       kind == CXCursor_TemplateTemplateParameter) &&
      params->count < sizeof params->items / sizeof params->items[0])
    params->items[params->count++] = cursor;
  return CXChildVisit_Continue;
}

/* The parameters of the template `specialization` specialises (none when it is no template). */
static void specialization_params(CXCursor specialization, template_params *params) {
  CXCursor pattern = clang_getSpecializedCursorTemplate(specialization);
  params->count = 0;
  if (!clang_Cursor_isNull(pattern))
    clang_visitChildren(pattern, collect_template_params, params);
}

/* Visitor state: the enumerator of an enum with a given value. */
typedef struct enumerator_search {
  long long value;
  char *name;
} enumerator_search;

static enum CXChildVisitResult find_enumerator(CXCursor cursor, CXCursor parent,
                                               CXClientData data) {
  enumerator_search *search = data;
  (void)parent;
  if (clang_getCursorKind(cursor) == CXCursor_EnumConstantDecl &&
      clang_getEnumConstantDeclValue(cursor) == search->value) {
    search->name = cx_spelling(cursor);
    return CXChildVisit_Break;
  }
  return CXChildVisit_Continue;
}

/*
 * Integral template argument i of a specialisation as text. In a C name (in_name): "true" /
 * "false", an enumerator's name ("Add"), else the number ("256", "minus2"). In a count
 * expression: the value as a C literal ("1", "256", "(-2)").
 */
static char *integral_argument(CXCursor specialization, const template_params *params,
                               unsigned i, int in_name) {
  long long value = clang_Cursor_getTemplateArgumentValue(specialization, i);
  CXType type = {CXType_Invalid, {NULL, NULL}};
  if (i < params->count)
    type = clang_getCanonicalType(clang_getCursorType(params->items[i]));
  switch (type.kind) {
  case CXType_Bool:
    return cubind_xstrdup(in_name ? (value ? "true" : "false") : (value ? "1" : "0"));
  case CXType_Enum:
    if (in_name) {
      enumerator_search search;
      search.value = value;
      search.name = NULL;
      clang_visitChildren(clang_getTypeDeclaration(type), find_enumerator, &search);
      if (search.name)
        return search.name;
    }
    break;
  case CXType_UChar:
  case CXType_UShort:
  case CXType_UInt:
  case CXType_ULong:
  case CXType_ULongLong:
  case CXType_Char16:
  case CXType_Char32:
    return cubind_xasprintf("%llu",
                            clang_Cursor_getTemplateArgumentUnsignedValue(specialization, i));
  default:
    break;
  }
  if (value < 0)
    return in_name ? cubind_xasprintf("minus%llu", 0ull - (unsigned long long)value)
                   : cubind_xasprintf("(%lld)", value);
  return cubind_xasprintf("%lld", value);
}

/* What substitute_constant needs: the specialisation and its template's parameters. */
typedef struct constant_search {
  CXCursor specialization;
  template_params params;
  unsigned count; /* template arguments */
} constant_search;

/* The value of the integral template parameter `name`, as a C literal, or NULL. */
static char *substitute_constant(const char *name, size_t length, void *data) {
  const constant_search *search = data;
  unsigned i;
  for (i = 0; i < search->params.count && i < search->count; i++) {
    char *spelled = cx_spelling(search->params.items[i]);
    int same = strlen(spelled) == length && strncmp(spelled, name, length) == 0;
    free(spelled);
    if (same && clang_Cursor_getTemplateArgumentKind(search->specialization, i) ==
                    CXTemplateArgumentKind_Integral)
      return integral_argument(search->specialization, &search->params, i, 0);
  }
  return NULL;
}

/* parse_substitute_template_constants: see parse_templates.h. */
void parse_substitute_template_constants(CXCursor specialization, cubind_kernel *kernel) {
  int count = clang_Cursor_getNumTemplateArguments(specialization);
  constant_search search;
  search.specialization = specialization;
  specialization_params(specialization, &search.params);
  if (count <= 0 || !search.params.count)
    return;
  search.count = (unsigned)count;
  cubind_kernel_map_count_names(kernel, substitute_constant, &search);
}

/*
 * Template argument `index` of `args` ("<&scale, 4>", as written or demangled) as text, without
 * the brackets: the pieces between top-level commas. NULL when there is no such piece.
 */
static char *argument_text(const char *args, int index) {
  const char *at = strchr(args, '<'), *start;
  int depth = 0, piece = 0;
  if (!at)
    return NULL;
  for (start = ++at; *at; at++) {
    if (*at == '<' || *at == '(' || *at == '[' || *at == '{') /* P{1, 2}: one argument */
      depth++;
    else if ((*at == '>' || *at == ')' || *at == ']' || *at == '}') && depth > 0)
      depth--;
    else if ((*at == ',' || *at == '>') && depth == 0) {
      if (piece++ == index)
        return cubind_xstrndup(start, (size_t)(at - start));
      if (*at == '>')
        return NULL;
      start = at + 1;
    }
  }
  return NULL;
}

/* 1 when the `length` bytes at `word` are `name`. */
static int word_is(const char *word, size_t length, const char *name) {
  return strlen(name) == length && strncmp(word, name, length) == 0;
}

/*
 * Appends space-separated `words` with the qualifiers of each pointer level first, as clang
 * spells types: the demangler's "float const ptr" and the written "const float ptr" give one
 * name (const_float_ptr), whichever way the specialisation was found.
 */
static void append_qualifiers_first(cubind_buf *text, const char *words) {
  const char *level = words;
  while (*level) {
    const char *end = level, *at;
    int pass;
    size_t length;
    /* a level ends after its "ptr" word (or at the end) */
    for (at = level; *at;) {
      at += strspn(at, " ");
      length = strcspn(at, " ");
      if (!length)
        break;
      end = at + length;
      at = end;
      if (word_is(end - length, length, "ptr"))
        break;
    }
    if (end == level)
      break;
    for (pass = 0; pass < 2; pass++) /* qualifiers, then the other words */
      for (at = level; at < end;) {
        at += strspn(at, " ");
        length = strcspn(at, " ");
        if (at + length > end || !length)
          break;
        if ((word_is(at, length, "const") || word_is(at, length, "volatile")) == (pass == 0))
          cubind_buf_printf(text, " %.*s", (int)length, at);
        at += length;
      }
    level = end;
  }
}

/*
 * Appends a template argument as written or demangled ("float *", "-0.25f") in words that keep
 * apart what the name's '_' joining would merge: " float ptr", " minus0.25f" (as integral
 * arguments spell "minus2"); other punctuation only separates words (&square: square).
 */
static void append_written(cubind_buf *text, const char *written) {
  cubind_buf words = {0};
  const char *at;
  cubind_buf_puts(&words, " ");
  for (at = written; *at; at++) {
    if (*at == '*')
      cubind_buf_puts(&words, " ptr ");
    else if (*at == '-' && (isdigit((unsigned char)at[strspn(at + 1, " ") + 1]) ||
                            at[strspn(at + 1, " ") + 1] == '.')) {
      cubind_buf_puts(&words, " minus");
      at += strspn(at + 1, " "); /* "- 1" as written tokens: minus1 */
    } else
      cubind_buf_append(&words, at, 1);
  }
  append_qualifiers_first(text, words.data);
  cubind_buf_free(&words);
}

/* 1 when template parameter i is a non-type one of deduced type (`template <auto V>`). */
static int auto_param(const template_params *params, unsigned i) {
  return i < params->count &&
         clang_getCanonicalType(clang_getCursorType(params->items[i])).kind == CXType_Auto;
}

/* parse_specialization_c_name: see parse_templates.h. */
char *parse_specialization_c_name(CXCursor specialization, const char *args) {
  cubind_buf text = {0};
  int i, count = clang_Cursor_getNumTemplateArguments(specialization);
  char *name = cx_spelling(specialization), *result, *written;
  template_params params;
  specialization_params(specialization, &params);
  cubind_buf_puts(&text, name);
  free(name);
  if (count < 0) { /* a pack or another form libclang does not break down: use the text */
    append_written(&text, args);
    count = 0;
  }
  for (i = 0; i < count; i++) {
    enum CXTemplateArgumentKind kind =
        clang_Cursor_getTemplateArgumentKind(specialization, (unsigned)i);
    if (kind == CXTemplateArgumentKind_Type) {
      char *type =
          cx_type_spelling(clang_Cursor_getTemplateArgumentType(specialization, (unsigned)i));
      char *star;
      while ((star = strchr(type, '*')) != NULL) { /* "float *" -> "float ptr" */
        char *spelled = cubind_xasprintf("%.*s ptr %s", (int)(star - type), type, star + 1);
        free(type);
        type = spelled;
      }
      cubind_buf_printf(&text, " %s", type);
      free(type);
    } else if (kind == CXTemplateArgumentKind_Integral && auto_param(&params, (unsigned)i) &&
               (written = argument_text(args, i)) != NULL) {
      /* an `auto` parameter's argument as written: its type tells instances apart, which
         libclang does not give for a value (tagged<ElecType::Cut>, tagged<VdwType::Cut>:
         tagged_ElecType_Cut, tagged_VdwType_Cut; tagged<3>, tagged<3u>: tagged_3, tagged_3u) */
      append_written(&text, written);
      free(written);
    } else if (kind == CXTemplateArgumentKind_Integral) {
      char *value = integral_argument(specialization, &params, (unsigned)i, 1);
      cubind_buf_printf(&text, " %s", value);
      free(value);
    } else if (kind == CXTemplateArgumentKind_Pack) {
      /* a pack: every written argument from here on is one of its elements ("sum<1, 2, 3>"
         and "sum<1, 23>" must not both become sum_1) */
      int piece;
      for (piece = i; (written = argument_text(args, piece)) != NULL; piece++) {
        append_written(&text, written);
        free(written);
      }
    } else {
      written = argument_text(args, i);
      if (written)
        append_written(&text, written);
      else
        cubind_buf_printf(&text, " arg%d", i);
      free(written);
    }
  }
  result = cubind_names_from_words(text.data);
  cubind_buf_free(&text);
  return result;
}
