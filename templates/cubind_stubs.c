/*
 * templates/cubind_stubs.c: the template of the definitions at the end of every generated
 * <stem>.cubind.h, compiled only where <stem>.cubind.c (templates/cubind_unit.c) defines
 * IMPLEMENTATION before including the header. Declarations and definitions live in one file so
 * that one rename replaces both: no run, killed or concurrent with another, can leave a header
 * beside another run's definitions. With marked insertion points (generator/template.h says how they are filled; generator/emit.c
 * supplies the values). Built into cubind-gen, so editing it needs a rebuild. The ABI version
 * below is the one this template is written for (cubind/generated.h).
 *
 * Markers:
 *   OUTPUT_NAME  the file these lines end, e.g. vec.cubind.h
 *   IMPLEMENTATION  the macro that vec.cubind.c defines, e.g. CUBIND_GENERATED_VEC_IMPLEMENTATION
 *   SOURCE_NAME  the .cu file's name (basename only)
 *   VERSION      cubind-gen's version
 *   MODULE       the module name, a C identifier (the .cu file's stem unless --module-name)
 *   INTERNAL     cubind_g_<MODULE>: the prefix of every name this file defines for itself,
 *                in cubind's namespace, where no name of the user's can be (the check refuses
 *                kernels and parameters named cubind_...)
 *   FATBIN       the embedded fatbin the module loads: cubind_fatbin_<FATBIN> (the module name
 *                unless --fatbin-name; the modules of a SEPARABLE target share one)
 *   KERNELS / NUM_KERNELS, GLOBALS / NUM_GLOBALS: the tables below, or NULL and 0
 * Blocks:
 *   layout_checks once when kernels take structs by value, with layout: for each struct or
 *                 union, compile-time checks that the host's size, alignment and field offsets
 *                 (FIELD_CHECKS) equal the device's
 *   param_table   each kernel with parameters: {name, offset, size} of each (ENTRIES), in
 *                 <INTERNAL>_params<INDEX>
 *   kernel_table  once when there are kernels, with kernel_entry: one line per kernel
 *   global_table  once when there are variables, with global_entry: one line per variable
 *   kernel        each kernel's functions: LAUNCH / CALL (definitions' names and parameters),
 *                 ARGS_ARRAY, HOST_ARGS_ARRAY (the _call's host buffers), ARGS, HOST_ARGS,
 *                 NUM_HOST_ARGS, INDEX, NAME; for the kernels of <cubind/elementwise.cuh>,
 *                 KIND "_elementwise", SHAPE (the cubind_elementwise_shape line) and SHAPE_ARG
 *                 (", &cubind_shape"), all empty for other kernels
 *   empty_arg     once when a kernel has an empty (tag type) parameter: the byte passed for it
 *   variable      each variable's copy functions
 */
@@BEGIN@@

/* The definitions, compiled where @@IMPLEMENTATION@@ is defined (by the .cubind.c). */
#if defined(@@IMPLEMENTATION@@) && !defined(@@IMPLEMENTATION@@_DONE)
#define @@IMPLEMENTATION@@_DONE
#include <cubind/generated.h>

#if CUBIND_ABI_VERSION != 3
#error "@@OUTPUT_NAME@@ was generated for cubind ABI 3: regenerate it with this cubind's cubind-gen"
#endif

/* The fatbin, embedded by `cubind-gen --embed-fatbin` into @@FATBIN@@.fatbin.c. */
#ifdef __cplusplus
extern "C" {
#endif
extern const unsigned char cubind_fatbin_@@FATBIN@@[];
extern const size_t cubind_fatbin_@@FATBIN@@_size;
#ifdef __cplusplus
}
#endif

@@EACH layout_checks@@
/* The host must lay out each struct the kernels take by value as the device does
   (CUBIND_LAYOUT_CHECK: a compile-time assertion, from cubind/generated.h). */
@@EACH layout@@
struct @@ID@@_align { char c; @@C_NAME@@ t; };
CUBIND_LAYOUT_CHECK(@@ID@@_sizeof, sizeof(@@C_NAME@@) == @@SIZE@@);
CUBIND_LAYOUT_CHECK_ALIGN(@@ID@@_alignof, offsetof(struct @@ID@@_align, t) == @@ALIGN@@);
@@FIELD_CHECKS@@
@@END layout@@

@@END layout_checks@@
/* Each kernel's parameters as laid out in its parameter buffer: {name, offset, size}. The
   runtime checks them against the loaded kernel. */
@@EACH param_table@@
static const cubind_param_info @@INTERNAL@@_params@@INDEX@@[] = {@@ENTRIES@@};
@@END param_table@@

/* {C name, cubin symbol, parameters, number of parameters} */
@@EACH kernel_table@@
static const cubind_kernel_info @@INTERNAL@@_kernels[] = {
@@EACH kernel_entry@@
    {"@@NAME@@", "@@SYMBOL@@", @@PARAMS@@, @@NUM_PARAMS@@},
@@END kernel_entry@@
};
@@END kernel_table@@
@@EACH global_table@@
/* {C name, cubin symbol} of each __constant__ / __device__ variable */
static const cubind_global_info @@INTERNAL@@_globals[] = {
@@EACH global_entry@@
    {"@@NAME@@", "@@SYMBOL@@"},
@@END global_entry@@
};
@@END global_table@@

/* The module: its descriptor (read-only) and the runtime's state for it (written only by
   libcubind, zero until first use). */
static cubind_module_state @@INTERNAL@@_state;
static const cubind_module @@INTERNAL@@_module = {
    3, "@@MODULE@@", cubind_fatbin_@@FATBIN@@, &cubind_fatbin_@@FATBIN@@_size,
    @@KERNELS@@, @@NUM_KERNELS@@, &@@INTERNAL@@_state, @@GLOBALS@@, @@NUM_GLOBALS@@};

#if defined(__GNUC__)
/* Registers the module when the program starts, so that cubind_preload() finds it. */
__attribute__((constructor)) static void @@INTERNAL@@_register(void) {
  cubind_module_register(&@@INTERNAL@@_module);
}
#endif
@@EACH empty_arg@@

/* The whole value of an empty (tag type) parameter, which C callers do not pass. */
static char cubind_empty_arg;
@@END empty_arg@@
@@EACH kernel@@

cubind_status @@LAUNCH@@ {
@@ARGS_ARRAY@@
@@SHAPE@@
  return cubind_module_launch@@KIND@@(&@@INTERNAL@@_module, @@INDEX@@, @@CONFIG@@, @@ARGS@@@@SHAPE_ARG@@);
}

cubind_status @@CALL@@ {
@@ARGS_ARRAY@@
@@HOST_ARGS_ARRAY@@
@@SHAPE@@
  return cubind_module_call@@KIND@@(&@@INTERNAL@@_module, @@INDEX@@, @@CONFIG@@, @@ARGS@@, @@HOST_ARGS@@, @@NUM_HOST_ARGS@@@@SHAPE_ARG@@);
}

cubind_status @@NAME@@_attributes(cubind_kernel_attributes *out) {
  return cubind_module_kernel_attributes(&@@INTERNAL@@_module, @@INDEX@@, out);
}

cubind_status @@NAME@@_config_occupancy(size_t n, unsigned shared_bytes, cubind_config *out) {
  return cubind_module_config_occupancy(&@@INTERNAL@@_module, @@INDEX@@, n, shared_bytes, out);
}
@@END kernel@@
@@EACH variable@@

cubind_status @@TO_DEVICE@@ {
  return cubind_module_global_copy(&@@INTERNAL@@_module, @@INDEX@@, cubind_host_buffer_(src), count,
                                   sizeof(@@ELEM_TYPE@@), CUBIND_COPY_TO_DEVICE);
}

cubind_status @@FROM_DEVICE@@ {
  return cubind_module_global_copy(&@@INTERNAL@@_module, @@INDEX@@, dst, count,
                                   sizeof(@@ELEM_TYPE@@), CUBIND_COPY_FROM_DEVICE);
}
@@END variable@@

#endif /* @@IMPLEMENTATION@@ */
