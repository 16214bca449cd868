/*
 * emit.h: the emitter. Fills the templates (templates/, built into the binary) from the
 * model; never touches libclang. Output bytes depend only on the model, the module name and
 * the source's basename: no paths, no timestamps.
 */
#ifndef CUBIND_GEN_EMIT_H
#define CUBIND_GEN_EMIT_H

#include <stddef.h>

#include "model.h"
#include "util.h"

/*
 * cubind_emit_header / cubind_emit_source: the text of <stem>.cubind.h / <stem>.cubind.c for a
 * checked model, appended to out. The header holds the declarations and, selected by a macro,
 * the definitions; the .c defines the macro and includes it (its text depends only on the
 * names, so only the header changes from run to run and one rename commits a run). Return 0, or 1 when a template names an unknown marker (a
 * bug in the templates, reported as such).
 */
int cubind_emit_header(const cubind_model *model, cubind_buf *out);
int cubind_emit_source(const cubind_model *model, cubind_buf *out);

/*
 * cubind_emit_fatbin: the text of <module>.fatbin.c embedding `size` bytes of `data` as
 * cubind_fatbin_<module>. source_name is the fatbin's basename, for the banner. Returns 0 or 1.
 */
int cubind_emit_fatbin(const char *module, const char *source_name, const unsigned char *data,
                       size_t size, cubind_buf *out);

#endif /* CUBIND_GEN_EMIT_H */
