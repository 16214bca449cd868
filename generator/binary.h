/*
 * binary.h: the kernels nvcc actually emitted, read from its output (a fatbin, or one cubin).
 *
 * A cubin is an ELF file whose entry functions are the kernels; a fatbin is a container of
 * cubins (one per architecture) and PTX. The symbol names found here are the ground truth that
 * parse_wrapper.c binds (implicit template instantiations included). No libclang here.
 */
#ifndef CUBIND_GEN_BINARY_H
#define CUBIND_GEN_BINARY_H

#include <stddef.h>

/* One parameter of a kernel as the cubin lays it out (its .nv.info KPARAM_INFO). */
typedef struct cubind_binary_param {
  unsigned ordinal;   /* its position in the parameter list */
  unsigned offset;    /* byte offset in the parameter buffer */
  unsigned size;      /* bytes */
} cubind_binary_param;

/* One kernel symbol, merged over every cubin that defines it. */
typedef struct cubind_binary_kernel {
  char *symbol;       /* the cubin symbol: "_ZN7samples6reduceIfLj256EEEvPKT_PS1_i" */
  const char *mangled; /* the C++ name's mangling in it: the symbol, or what follows nvcc's
                          "__nv_static_<n>_<tag>_" (relocatable code's internal kernels) */
  int internal;       /* local binding: static, or in an anonymous namespace */
  unsigned *archs;    /* the SM versions (80, 90, ...) whose cubins define it, ascending */
  size_t num_archs;
  cubind_binary_param *params; /* its parameters by ordinal (the first cubin's) */
  long num_params;    /* -1: the layout is unknown */
  int layout_differs; /* two architectures' code lay its parameters out differently: */
  int sizes_differ;   /* their number or sizes too (a signature under #if __CUDA_ARCH__), not
                         only offsets (over-aligned ones, which nvcc places per architecture) */
} cubind_binary_kernel;

/* Every kernel of one or more binaries, sorted by symbol, plus the SM versions seen. */
typedef struct cubind_binary {
  cubind_binary_kernel *kernels;
  size_t num_kernels;
  unsigned *archs;    /* every cubin's SM version, ascending, each once */
  size_t num_archs;
  unsigned *specific_archs; /* those of cubins for the arch's own features (sm_90a), and */
  size_t num_specific_archs;
  unsigned *family_archs;   /* those of cubins for its family's (sm_100f) */
  size_t num_family_archs;
} cubind_binary;

/*
 * cubind_binary_add: reads the kernels of one fatbin or cubin held in data[0..size) (named
 * `name` in messages) into binary (zero it before the first call). PTX entries are skipped;
 * compressed cubins (LZ4 or Zstandard, as nvcc's fatbinary writes them) are decompressed.
 * Inputs: untrusted bytes; every offset, length and decoding table is bounds-checked.
 * Returns 0, or 1 after reporting "name: error: ..." (not a fatbin or cubin, truncated, a
 * cubin that does not decompress, no cubin at all).
 */
int cubind_binary_add(cubind_binary *binary, const char *name, const unsigned char *data,
                      size_t size);

/*
 * cubind_binary_check_image: checks that data[0..size) is what the runtime can load: a whole
 * fatbin (its containers and entries consistent; PTX-only is fine) or a 64-bit CUDA cubin.
 * Returns 0, or 1 after reporting why it is neither (for --embed-fatbin).
 */
int cubind_binary_check_image(const char *name, const unsigned char *data, size_t size);

/*
 * cubind_binary_find: the kernel whose symbol is `symbol`, or NULL.
 */
const cubind_binary_kernel *cubind_binary_find(const cubind_binary *binary, const char *symbol);

/* cubind_archs_contain: 1 when `arch` is one of archs[0..count) (an arch list of binary.h). */
int cubind_archs_contain(const unsigned *archs, size_t count, unsigned arch);

/* cubind_binary_free: frees everything binary owns and zeroes it. */
void cubind_binary_free(cubind_binary *binary);

/*
 * cubind_demangle: the C++ name of an Itanium-mangled symbol
 * ("_ZN7samples5plainEPfi" -> "samples::plain(float*, int)"), through the C++ runtime's
 * __cxa_demangle. Returns a new string, or NULL when symbol is not a mangled C++ name (an
 * extern "C" kernel) or cannot be demangled.
 */
char *cubind_demangle(const char *symbol);

/*
 * Pointer template arguments: nvcc (like g++) mangles the address as the .cu writes it, clang
 * 12 and later the value it converts to. An array's decay, k<tab> with `int tab[4]`, is
 * "XadL_Z3tabEE" to nvcc and "XadsoiL_Z3tabEEE" to clang (the address of a subobject,
 * element 0); `&s` converted to `const S *` is "XadL_Z1sEE" to nvcc and "XcvPK1SadL_Z1sEE" to
 * clang.
 *
 * cubind_mangling_clang_only: 1 when clang's mangling `symbol` has such a form (nvcc's symbol
 * then differs and only its binary tells it).
 *
 * cubind_mangling_alike: 1 when clang's mangling `clang` is nvcc's `nvcc`, or when both name
 * the same function once those forms are read as nvcc writes them (the demangled names,
 * without the casts and parentheses of template arguments; the substitutions a form adds make
 * the symbols differ further on).
 */
int cubind_mangling_clang_only(const char *symbol);
int cubind_mangling_alike(const char *clang, const char *nvcc);

#endif /* CUBIND_GEN_BINARY_H */
