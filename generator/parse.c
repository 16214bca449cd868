/* parse.c: one parse of a .cu file, from clang's command line to facts (see parse.h). */
#include "parse.h"

#include <stdlib.h>
#include <string.h>

#include "clang_session.h"
#include "clang_util.h"
#include "fs.h"
#include "parse_context.h"
#include "parse_decls.h"
#include "parse_wrapper.h"

/*
 * A kernel of a user header that a binary of an earlier source of the same library also holds
 * is bound by that source's stubs: each kernel once per library, whichever .cu includes it.
 */
static void mark_bound_elsewhere(parse_context *ctx) {
  size_t k, e;
  for (k = 0; k < ctx->model->num_kernels; k++) {
    cubind_kernel *kernel = &ctx->model->kernels[k];
    if (kernel->place != CUBIND_PLACE_HEADER)
      continue;
    for (e = 0; e < ctx->options->num_earlier && !kernel->bound_by; e++)
      if (cubind_binary_find(&ctx->options->earlier[e].binary, kernel->symbol))
        kernel->bound_by = cubind_xstrdup(cubind_basename(ctx->options->earlier[e].name));
  }
}

/*
 * Adds to `deps` the user headers only the C checks read (parse_c_check.h: a header's
 * `#ifndef __cplusplus` part), by their real paths: those the parse read are there already,
 * spelled as clang found them.
 */
static void add_c_check_files(const parse_context *ctx, cubind_strlist *deps) {
  cubind_strlist real_deps = {0};
  size_t i;
  for (i = 0; i < deps->count; i++) {
    char *real = realpath(deps->items[i], NULL);
    if (real)
      cubind_strlist_add(&real_deps, real);
    free(real);
  }
  for (i = 0; i < ctx->c_check_files.count; i++)
    if (!cubind_strlist_contains(&real_deps, ctx->c_check_files.items[i])) {
      cubind_strlist_add(deps, ctx->c_check_files.items[i]);
      cubind_strlist_add(&real_deps, ctx->c_check_files.items[i]);
    }
  cubind_strlist_free(&real_deps);
}

/* cubind_parse: see parse.h. */
int cubind_parse(const cubind_parse_options *options, cubind_model *model, cubind_strlist *deps) {
  /* errors are counted from here: a process may parse many files (tests/fuzz does) */
  unsigned errors_before = cubind_error_count();
  clang_session session;
  parse_context ctx;
  CXTranslationUnit tu = NULL;
  cubind_strlist references = {0};
  memset(&ctx, 0, sizeof ctx);
  ctx.options = options;
  ctx.input = options->input;
  ctx.input_real = realpath(options->input, NULL);
  ctx.model = model;
  if (ctx.input_real) {
    char *slash = strrchr(ctx.input_real, '/');
    ctx.input_dir_real = cubind_xstrndup(ctx.input_real, slash ? (size_t)(slash - ctx.input_real) : 0);
    if (!ctx.input_dir_real[0]) { /* a file in / */
      free(ctx.input_dir_real);
      ctx.input_dir_real = cubind_xstrdup("/");
    }
  }
  model->relocatable = cubind_strlist_contains(options->variant_defines, "-D__CUDACC_RDC__") ||
                       cubind_strlist_contains(options->implied_defines, "-D__CUDACC_RDC__");
  parse_reference_lines(&ctx, &references);
  if (session_open(&session, options) == 0)
    tu = session_parse_input(&session, &references);
  cubind_strlist_free(&references);
  if (tu) {
    if (session_report_errors(&session) == 0) {
      parse_declarations(&ctx, tu);
      parse_instantiations(&ctx, &session, tu);
      parse_binary_kernels(&ctx, &session);
      mark_bound_elsewhere(&ctx);
    }
    if (deps) {
      cubind_strlist_add(deps, options->input);
      session_add_inclusions(&session, deps);
      add_c_check_files(&ctx, deps);
    }
  }
  session_close(&session);
  free(ctx.input_real);
  free(ctx.input_dir_real);
  cubind_strlist_free(&ctx.c_headers);
  cubind_strlist_free(&ctx.cxx_headers);
  cubind_strlist_free(&ctx.c_check_files);
  free(ctx.instantiation_offsets);
  cubind_strlist_free(&ctx.instantiation_lines);
  return cubind_error_count() > errors_before ? 1 : 0;
}

/* cubind_prepare: see parse.h. */
void cubind_prepare(const cubind_parse_options *options) {
  clang_session session;
  if (session_open(&session, options) == 0)
    session_wait_prelude(&session);
  session_close(&session);
}
