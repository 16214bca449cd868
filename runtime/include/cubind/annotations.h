/*
 * annotations.h: direction annotations for kernel parameters, read by cubind-gen.
 *
 *   extern "C" __global__ void doublify(CUBIND_INOUT_N(n) float *a, int n);
 *
 * Under nvcc (or any compiler) they expand to nothing, so the .cu compiles unchanged. When
 * cubind-gen parses the file it defines CUBIND_GENERATOR, and each macro becomes a clang
 * `annotate` attribute on the parameter: "cubind.in", "cubind.out", "cubind.inout", or with
 * an element count "cubind.in_n:<expr>" (and out_n, inout_n), <expr> being a C expression over
 * the kernel's scalar parameters.
 */
#ifndef CUBIND_ANNOTATIONS_H
#define CUBIND_ANNOTATIONS_H

/* The annotate strings (cubind-gen's check.c reads the same definitions). */
#define CUBIND_ANNOTATION_IN "cubind.in"
#define CUBIND_ANNOTATION_OUT "cubind.out"
#define CUBIND_ANNOTATION_INOUT "cubind.inout"
#define CUBIND_ANNOTATION_IN_N "cubind.in_n:"
#define CUBIND_ANNOTATION_OUT_N "cubind.out_n:"
#define CUBIND_ANNOTATION_INOUT_N "cubind.inout_n:"
/* Used by <cubind/elementwise.cuh>: the element count of an elementwise kernel or reduction
   (`size_t n`; CUBIND_ELEMENT_MAP: of a kernel whose element i reads and writes element i of its
   pointers only, CUBIND_VECTORIZE's, whose _call may run in chunks), and a reduction's scratch
   pointer, which the stubs hide. */
#define CUBIND_ANNOTATION_ELEMENT_COUNT "cubind.element_count"
#define CUBIND_ANNOTATION_ELEMENT_MAP "cubind.element_map" /* element i depends on element i only */
#define CUBIND_ANNOTATION_REDUCTION_SCRATCH "cubind.reduction_scratch"

/* What <cubind/elementwise.cuh>'s reductions and the runtime agree on: the block size they are
   launched with, and where the per-block partials start in the scratch (after the ticket). */
#define CUBIND_REDUCTION_BLOCK 256
#define CUBIND_REDUCTION_PARTIALS_OFFSET 256

#ifdef CUBIND_GENERATOR
#define CUBIND_ANNOTATE_(text) __attribute__((annotate(text)))
#define CUBIND_IN CUBIND_ANNOTATE_(CUBIND_ANNOTATION_IN)
#define CUBIND_OUT CUBIND_ANNOTATE_(CUBIND_ANNOTATION_OUT)
#define CUBIND_INOUT CUBIND_ANNOTATE_(CUBIND_ANNOTATION_INOUT)
#define CUBIND_IN_N(count) CUBIND_ANNOTATE_(CUBIND_ANNOTATION_IN_N #count)
#define CUBIND_OUT_N(count) CUBIND_ANNOTATE_(CUBIND_ANNOTATION_OUT_N #count)
#define CUBIND_INOUT_N(count) CUBIND_ANNOTATE_(CUBIND_ANNOTATION_INOUT_N #count)
#define CUBIND_ELEMENT_COUNT CUBIND_ANNOTATE_(CUBIND_ANNOTATION_ELEMENT_COUNT)
#define CUBIND_ELEMENT_MAP CUBIND_ANNOTATE_(CUBIND_ANNOTATION_ELEMENT_MAP)
#define CUBIND_REDUCTION_SCRATCH CUBIND_ANNOTATE_(CUBIND_ANNOTATION_REDUCTION_SCRATCH)
#else
#define CUBIND_IN
#define CUBIND_OUT
#define CUBIND_INOUT
#define CUBIND_IN_N(count)
#define CUBIND_OUT_N(count)
#define CUBIND_INOUT_N(count)
#define CUBIND_ELEMENT_COUNT
#define CUBIND_ELEMENT_MAP
#define CUBIND_REDUCTION_SCRATCH
#endif

#endif /* CUBIND_ANNOTATIONS_H */
