/* names.c: generated C names, the names file and --check-names (see names.h). */
#include "names.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"

/* Replaces *name (owned) with prefix + *name. */
static void prefix_string(char **name, const char *prefix) {
  char *joined = cubind_xasprintf("%s%s", prefix, *name ? *name : "");
  free(*name);
  *name = joined;
}

/* cubind_names_from_words: see names.h. */
char *cubind_names_from_words(const char *text) {
  size_t k, length = 0;
  char *result = cubind_xmalloc(strlen(text) + 1);
  for (k = 0; text[k]; k++) {
    unsigned char c = (unsigned char)text[k];
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
      result[length++] = (char)c;
    else if (length && result[length - 1] != '_')
      result[length++] = '_';
  }
  while (length && result[length - 1] == '_')
    length--;
  result[length] = '\0';
  return result;
}

/*
 * Appends `length` bytes of C++ text to `words` as words for cubind_names_from_words: '*' reads
 * "ptr"; the restrict qualifiers (which change no type a caller passes) and
 * "(anonymous namespace)" are left out.
 */
static void append_words(cubind_buf *words, const char *text, size_t length) {
  static const char *const skipped[] = {"__restrict__", "__restrict", "restrict", "anonymous",
                                        "namespace"};
  const char *at = text, *end = text + length;
  while (at < end) {
    const char *word = at;
    size_t i, size;
    if (*at == '*') {
      cubind_buf_puts(words, " ptr");
      at++;
      continue;
    }
    if (!isalnum((unsigned char)*at) && *at != '_') {
      at++;
      continue;
    }
    while (at < end && (isalnum((unsigned char)*at) || *at == '_'))
      at++;
    size = (size_t)(at - word);
    for (i = 0; i < sizeof skipped / sizeof skipped[0]; i++)
      if (strlen(skipped[i]) == size && strncmp(word, skipped[i], size) == 0)
        break;
    if (i == sizeof skipped / sizeof skipped[0])
      cubind_buf_printf(words, " %.*s", (int)size, word);
  }
}

/*
 * Where the scopes of a kernel's C++ name end ("v1::detail::" of "v1::detail::scale<float>"):
 * the length of that text, 0 for a kernel of the global namespace.
 */
static size_t scope_length(const char *display_name) {
  size_t i, end = 0;
  int depth = 0;
  for (i = 0; display_name[i]; i++) {
    char c = display_name[i];
    if (c == '<' || c == '(')
      depth++;
    else if ((c == '>' || c == ')') && depth > 0)
      depth--;
    else if (c == ':' && display_name[i + 1] == ':' && depth == 0)
      end = ++i + 1;
  }
  return end;
}

/*
 * 1 when another kernel of the .cu's (or its headers') has kernel k's C name. A kernel the
 * source names counts only the others the source names: one that only nvcc's binary holds
 * (a specialisation host code launches) never renames it, so that its C name is the same with
 * or without the binary; the binary's kernel then loses the name (check.c lists it).
 */
static int shares_c_name(const cubind_model *model, size_t k) {
  int source_named = model->kernels[k].origin != CUBIND_ORIGIN_BINARY;
  size_t i;
  if (model->kernels[k].place == CUBIND_PLACE_SYSTEM)
    return 0;
  for (i = 0; i < model->num_kernels; i++)
    if (i != k && model->kernels[i].place != CUBIND_PLACE_SYSTEM &&
        !(source_named && model->kernels[i].origin == CUBIND_ORIGIN_BINARY) &&
        strcmp(model->kernels[i].c_name, model->kernels[k].c_name) == 0)
      return 1;
  return 0;
}

/*
 * One round of cubind_names_disambiguate: every kernel that shares its C name with another
 * gets its scopes before it (`scopes`: v1::scale -> v1_scale) or its parameters' types after it
 * (k(const int2 *, int) -> k_const_int2_ptr_int). A name made from the parameters that another
 * kernel would still share is not taken: the kernel keeps the one it had, which check.c then
 * reports as taken twice.
 */
static void disambiguate_by(cubind_model *model, int scopes) {
  char **before = cubind_xcalloc(model->num_kernels + 1, sizeof *before);
  size_t k, i;
  for (k = 0; k < model->num_kernels; k++)
    if (shares_c_name(model, k))
      before[k] = cubind_xstrdup(model->kernels[k].c_name);
  for (k = 0; k < model->num_kernels; k++) {
    cubind_kernel *kernel = &model->kernels[k];
    cubind_buf words = {0};
    if (!before[k])
      continue;
    cubind_buf_puts(&words, "");
    if (scopes) {
      const char *display = kernel->display_name ? kernel->display_name : "";
      append_words(&words, display, scope_length(display));
      append_words(&words, kernel->c_name, strlen(kernel->c_name));
    } else {
      append_words(&words, kernel->c_name, strlen(kernel->c_name));
      for (i = 0; i < kernel->num_params; i++)
        append_words(&words, kernel->params[i].type_spelling,
                     strlen(kernel->params[i].type_spelling));
      if (!kernel->num_params)
        append_words(&words, "void", 4);
    }
    free(kernel->c_name);
    kernel->c_name = cubind_names_from_words(words.data);
    cubind_buf_free(&words);
  }
  for (k = 0; k < model->num_kernels; k++) /* decided on the round's names, then undone */
    if (before[k] && (scopes || !shares_c_name(model, k))) {
      free(before[k]);
      before[k] = NULL;
    }
  for (k = 0; k < model->num_kernels; k++)
    if (before[k]) {
      free(model->kernels[k].c_name);
      model->kernels[k].c_name = before[k];
    }
  free(before);
}

/* cubind_names_disambiguate: see names.h. */
void cubind_names_disambiguate(cubind_model *model) {
  disambiguate_by(model, 1);
  disambiguate_by(model, 0);
}

/* cubind_names_apply_prefix: see names.h. */
void cubind_names_apply_prefix(cubind_model *model) {
  size_t k;
  if (!model->fatbin_name && model->module_name) /* the default: the module's own fatbin */
    model->fatbin_name = cubind_xstrdup(model->module_name);
  if (!model->prefix || !model->prefix[0])
    return;
  for (k = 0; k < model->num_kernels; k++)
    prefix_string(&model->kernels[k].c_name, model->prefix);
  if (model->module_name)
    prefix_string(&model->module_name, model->prefix);
  prefix_string(&model->fatbin_name, model->prefix);
}

/* Appends a free-text field: a tab or a line break in it would break the record apart. */
static void put_field(cubind_buf *out, const char *text) {
  for (; text && *text; text++)
    cubind_buf_append(out, *text == '\t' || *text == '\n' || *text == '\r' ? " " : text, 1);
}

/* Appends "file:line:col" and the record's end; fallback names the file when clang gave none. */
static void put_location(cubind_buf *out, const cubind_location *where, const char *fallback) {
  put_field(out, where->file ? where->file : fallback);
  cubind_buf_printf(out, ":%u:%u\n", where->line, where->column);
}

/* cubind_names_write: see names.h. */
void cubind_names_write(const cubind_model *model, const char *source, cubind_buf *out) {
  size_t k;
  cubind_buf_puts(out, "# cubind-gen names 1\nmodule\t");
  cubind_buf_printf(out, "%s\t%s\t", model->module_name,
                    model->fatbin_name ? model->fatbin_name : model->module_name);
  put_field(out, source);
  cubind_buf_puts(out, "\n");
  for (k = 0; k < model->num_kernels; k++) {
    const cubind_kernel *kernel = &model->kernels[k];
    cubind_buf_printf(out, "kernel\t%s\t", kernel->c_name);
    put_field(out, kernel->display_name ? kernel->display_name : kernel->c_name);
    cubind_buf_puts(out, "\t");
    put_location(out, &kernel->location, source);
  }
  for (k = 0; k < model->num_variables; k++) {
    const cubind_variable *variable = &model->variables[k];
    if (!variable->bound) /* no copy functions, no names */
      continue;
    cubind_buf_printf(out, "variable\t%s_%s\t", model->module_name, variable->name);
    put_field(out, variable->display_name ? variable->display_name : variable->name);
    cubind_buf_puts(out, "\t");
    put_location(out, &variable->location, source);
  }
}

/* ---- --check-names ------------------------------------------------------------------------ */

enum { RECORD_MODULE, RECORD_KERNEL, RECORD_VARIABLE };

/* One record of a names file; `where` is the location (kernels, variables) or the .cu file. */
typedef struct name_record {
  int kind;
  char *name, *extra, *where;
  const char *source; /* the .cu file of the names file it came from */
} name_record;

typedef struct name_records {
  name_record *items;
  size_t count;
  cubind_strlist sources;
} name_records;

/* Splits one line into its four fields (in place). Returns 0, or 1 when it has fewer. */
static int split_fields(char *line, char *fields[4]) {
  int f;
  fields[0] = line;
  for (f = 1; f < 4; f++) {
    char *tab = strchr(fields[f - 1], '\t');
    if (!tab)
      return 1;
    *tab = '\0';
    fields[f] = tab + 1;
  }
  return 0;
}

/* Reads one names file into records. Returns 0, or 1 after reporting why it cannot. */
static int read_names_file(const char *path, name_records *records) {
  char *data = NULL, *line, *next;
  size_t size = 0, number = 0, first = records->count;
  const char *source = NULL;
  if (cubind_read_file(path, CUBIND_MAX_SOURCE_BYTES, &data, &size) != 0)
    return 1;
  if (strncmp(data, "# cubind-gen names 1\n", 21) != 0) {
    cubind_diag(NULL, 0, 0, "error",
                "'%s' is not a names file of this cubind-gen (# cubind-gen names 1): "
                "regenerate it",
                path);
    free(data);
    return 1;
  }
  for (line = data; line && *line; line = next) {
    char *fields[4];
    name_record *record;
    next = strchr(line, '\n');
    if (next)
      *next++ = '\0';
    number++;
    if (line[0] == '#' || line[0] == '\0')
      continue;
    if (split_fields(line, fields) ||
        (strcmp(fields[0], "module") && strcmp(fields[0], "kernel") &&
         strcmp(fields[0], "variable"))) {
      cubind_diag(path, (unsigned)number, 1, "error", "malformed names record");
      free(data);
      return 1;
    }
    records->items =
        cubind_xrealloc(records->items, (records->count + 1) * sizeof *records->items);
    record = &records->items[records->count++];
    record->kind = fields[0][0] == 'm' ? RECORD_MODULE
                   : fields[0][0] == 'k' ? RECORD_KERNEL
                                         : RECORD_VARIABLE;
    record->name = cubind_xstrdup(fields[1]);
    record->extra = cubind_xstrdup(fields[2]);
    record->where = cubind_xstrdup(fields[3]);
    record->source = NULL;
    if (record->kind == RECORD_MODULE) {
      cubind_strlist_add(&records->sources, fields[3]);
      source = records->sources.items[records->sources.count - 1];
    }
  }
  for (; first < records->count; first++)
    records->items[first].source = source ? source : path;
  free(data);
  return 0;
}

/* qsort order: kind, then C name (equal names meet), then location and .cu file (stable text). */
static int compare_records(const void *a, const void *b) {
  const name_record *x = a, *y = b;
  int by_name = strcmp(x->name, y->name);
  if (x->kind != y->kind)
    return x->kind - y->kind;
  if (by_name)
    return by_name;
  by_name = strcmp(x->where, y->where);
  return by_name ? by_name : strcmp(x->source, y->source);
}

/* Reports that records a and b (same kind, same name) would define the same C names. */
static void report_collision(const name_record *a, const name_record *b) {
  static const char advice[] = "rename one or give the targets PREFIXes";
  if (a->kind == RECORD_MODULE) {
    cubind_diag(NULL, 0, 0, "error",
                "module '%s' (%s) and module '%s' (%s) both define the module %s and its "
                "generated names: rename one of the files or give the targets PREFIXes",
                a->name, a->where, b->name, b->where, a->name);
  } else if (a->kind == RECORD_KERNEL && strcmp(a->where, b->where) == 0) {
    cubind_diag(NULL, 0, 0, "error",
                "kernel '%s' (%s) is bound from both %s and %s, which both generate "
                "%s_launch/%s_call: bind it from one .cu file only (one add_gpu_kernels() "
                "target), or give the targets PREFIXes",
                a->extra, a->where, a->source, b->source, a->name, a->name);
  } else if (a->kind == RECORD_KERNEL) {
    cubind_diag(NULL, 0, 0, "error",
                "kernel '%s' (%s) and kernel '%s' (%s) both generate %s_launch/%s_call: %s",
                a->extra, a->where, b->extra, b->where, a->name, a->name, advice);
  } else {
    cubind_diag(NULL, 0, 0, "error",
                "variable '%s' (%s) and variable '%s' (%s) both generate "
                "%s_to_device/%s_from_device: %s",
                a->extra, a->where, b->extra, b->where, a->name, a->name, advice);
  }
}

/* cubind_names_check: see names.h. */
int cubind_names_check(const cubind_strlist *paths) {
  name_records records = {0};
  cubind_strlist seen = {0};
  size_t i, j;
  int failed = 0;
  for (i = 0; i < paths->count && !failed; i++) {
    /* one file however it is spelled (o/x.names, ./o/../o/x.names): not a clash with itself */
    char *real = realpath(paths->items[i], NULL);
    const char *key = real ? real : paths->items[i];
    if (!cubind_strlist_contains(&seen, key)) {
      cubind_strlist_add(&seen, key);
      failed = read_names_file(paths->items[i], &records);
    }
    free(real);
  }
  if (!failed && records.count > 1) {
    qsort(records.items, records.count, sizeof *records.items, compare_records);
    for (i = 1; i < records.count; i++) {
      const name_record *a = &records.items[i - 1], *b = &records.items[i];
      if (a->kind == b->kind && strcmp(a->name, b->name) == 0) {
        report_collision(a, b);
        failed = 1;
      }
    }
    /* A fatbin shared by several modules (a SEPARABLE target) must not be some other module's
       own: the linker would keep one of the two arrays for both. */
    for (i = 0; i < records.count; i++) {
      const name_record *shared = &records.items[i];
      if (shared->kind != RECORD_MODULE || strcmp(shared->name, shared->extra) == 0)
        continue;
      for (j = 0; j < records.count; j++) {
        const name_record *own = &records.items[j];
        if (own->kind == RECORD_MODULE && strcmp(own->name, shared->extra) == 0 &&
            strcmp(own->extra, own->name) == 0) {
          cubind_diag(NULL, 0, 0, "error",
                      "module '%s' (%s) loads the fatbin cubind_fatbin_%s, which module '%s' "
                      "(%s) also defines as its own: rename one or give the targets PREFIXes",
                      shared->name, shared->where, shared->extra, own->name, own->where);
          failed = 1;
        }
      }
    }
  }
  for (i = 0; i < records.count; i++) {
    free(records.items[i].name);
    free(records.items[i].extra);
    free(records.items[i].where);
  }
  free(records.items);
  cubind_strlist_free(&records.sources);
  cubind_strlist_free(&seen);
  return failed;
}
