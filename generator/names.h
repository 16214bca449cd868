/*
 * names.h: the C names cubind-gen generates, and the check that no program gets one twice.
 *
 * Every global name of the generated code starts with a kernel's C name (<k>_launch, _call,
 * _attributes, _config_occupancy), with <module>_<variable> (_to_device, _from_device), or is
 * the fatbin symbol cubind_fatbin_<fatbin>. Each run of cubind-gen writes them to
 * <stem>.cubind.names beside its outputs; `cubind-gen --check-names` reads the names files of
 * everything linked into one program and reports any name given twice, naming both places.
 * The format (one record per line, fields separated by tabs, the last one free text):
 *
 *   # cubind-gen names 1
 *   module    <module name>    <fatbin name>    <the .cu file>
 *   kernel    <C name>         <C++ name>       <file>:<line>:<column>
 *   variable  <module>_<name>  <C++ name>       <file>:<line>:<column>
 */
#ifndef CUBIND_GEN_NAMES_H
#define CUBIND_GEN_NAMES_H

#include "model.h"
#include "util.h"

/*
 * cubind_names_from_words: a C name made of the words of `text` (C++ spellings joined by
 * spaces: "scale float ptr"): every run of characters that are not ASCII letters or digits
 * becomes one '_' between words, and none stands at either end ("__half" -> "half"). A new
 * string.
 */
char *cubind_names_from_words(const char *text);

/*
 * cubind_names_disambiguate: gives kernels of the .cu (and of its headers) that would share a C
 * name names of their own: first their namespaces and classes go before the name (v1::scale and
 * v2::scale: v1_scale, v2_scale; first::mark<float>: first_mark_float); overloads, which still
 * share it, get their parameters' types after it (k(const int *, int *) and k(const int2 *,
 * int *): k_const_int_ptr_int_ptr, k_const_int2_ptr_int_ptr). A kernel whose name no other
 * shares keeps it. Run before the prefix is applied.
 */
void cubind_names_disambiguate(cubind_model *model);

/*
 * cubind_names_apply_prefix: puts model->prefix (when set) before every generated C name: each
 * kernel's c_name, the module name and the fatbin name. The one place a prefix is applied; run
 * right after the parse, so that the checks see the final names.
 */
void cubind_names_apply_prefix(cubind_model *model);

/*
 * cubind_names_write: appends the names file of a checked model to out. source: the .cu file as
 * given on the command line.
 */
void cubind_names_write(const cubind_model *model, const char *source, cubind_buf *out);

/*
 * cubind_names_check: reads the names files (paths; a path given twice counts once) and
 * reports each C name that two of their records would both define, as
 * "error: kernel 'k' (a.cu:3:5) and kernel 'k' (b.cu:7:1) both generate k_launch/k_call: ...".
 * Returns 0 when there is none, 1 after reporting the collisions or an unreadable or malformed
 * file.
 */
int cubind_names_check(const cubind_strlist *paths);

#endif /* CUBIND_GEN_NAMES_H */
