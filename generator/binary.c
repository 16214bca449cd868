/*
 * binary.c: kernel symbols from nvcc's output. See binary.h.
 *
 * Layouts read here:
 *  - fatbin (what `nvcc -fatbin` writes): containers of entries, walked with
 *    common/cubind_fatbin_format.h. A compressed cubin (-G, -rdc=true, -Xfatbin=-compress-all,
 *    --compress-mode) is inflated with Debian's libzstd or liblz4, to exactly the size its
 *    header gives.
 *  - cubin: a little-endian ELF64 file for EM_CUDA; a kernel is an STT_FUNC symbol whose
 *    st_other has STO_CUDA_ENTRY (0x10). The SM version is in e_flags (bits 8-15 from ELF ABI
 *    version 8, as CUDA 13 writes; bits 0-7 before). Its section ".nv.info.<symbol>" is a list
 *    of attributes {u8 format, u8 attribute, value}: formats 1, 2, 3 (no value, a byte, a u16)
 *    take 2 bytes of value (4 in all), format 4 a u16 size and that many bytes. Attribute 0x17
 *    (KPARAM_INFO, format 4, 12 bytes) gives one parameter: u32 index, u16 ordinal, u16 offset,
 *    u32 whose bits 18-31 are its size. A kernel whose parameters pass 4 KiB (CUDA 12.1 allows
 *    32,764 bytes) has attribute 0x45 (KPARAM_INFO_V2, 12 bytes) instead: u32 index, u16
 *    ordinal, u16 offset, u32 whose bits 0-23 are its size in bytes (seen from nvcc 13: a
 *    4,400-byte struct gives {0, 0, 0, 4400}; a pointer in some architectures' code
 *    0x05000008, flags in the top byte).
 */
#include "binary.h"

#include <ctype.h>
#include <elf.h>
#include <lz4.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "cubind_fatbin_format.h"
#include "util.h"

/* The C++ runtime's demangler (Itanium C++ ABI, section 3.4); libstdc++ and libc++abi have it. */
extern char *__cxa_demangle(const char *mangled, char *buffer, size_t *length, int *status);

#define CUBIND_STO_CUDA_ENTRY 0x10
#define NV_INFO_PREFIX ".nv.info."
#define EIATTR_KPARAM_INFO 0x17
#define EIATTR_KPARAM_INFO_V2 0x45
/* A decompressed cubin larger than this is a damaged header, not a real cubin. */
#define CUBIND_MAX_INFLATED ((uint64_t)1 << 32)
#ifndef EM_CUDA
#define EM_CUDA 190
#endif

/* offset + length lies within size, without overflow. */
static int in_bounds(uint64_t offset, uint64_t length, size_t size) {
  return offset <= size && length <= size - offset;
}

static int compare_units(const void *a, const void *b) {
  unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
  return x < y ? -1 : x > y;
}

/* Adds arch to a sorted set of SM versions. */
/* cubind_archs_contain: see binary.h. */
int cubind_archs_contain(const unsigned *archs, size_t count, unsigned arch) {
  size_t i;
  for (i = 0; i < count; i++)
    if (archs[i] == arch)
      return 1;
  return 0;
}

static void add_arch(unsigned **archs, size_t *count, unsigned arch) {
  if (cubind_archs_contain(*archs, *count, arch))
    return;
  *archs = cubind_xrealloc(*archs, (*count + 1) * sizeof **archs);
  (*archs)[(*count)++] = arch;
  qsort(*archs, *count, sizeof **archs, compare_units);
}

static int compare_kernels(const void *a, const void *b) {
  return strcmp(((const cubind_binary_kernel *)a)->symbol,
                ((const cubind_binary_kernel *)b)->symbol);
}

/* cubind_binary_find: see binary.h. */
const cubind_binary_kernel *cubind_binary_find(const cubind_binary *binary, const char *symbol) {
  cubind_binary_kernel key;
  if (!binary->num_kernels)
    return NULL;
  key.symbol = (char *)symbol;
  return bsearch(&key, binary->kernels, binary->num_kernels, sizeof key, compare_kernels);
}

/*
 * The mangled C++ name in a kernel symbol: relocatable device code (-rdc) names a kernel of
 * internal linkage "__nv_static_<n>_<n characters naming the file>_<mangled name>"
 * (__nv_static_26__91f14183_5_st_cu_884ad2bb__Z8s_kernelPi), so that it stays unique when
 * linked; NULL where the symbol has no such prefix.
 */
static const char *past_static_prefix(const char *symbol) {
  static const char prefix[] = "__nv_static_";
  char *end;
  unsigned long length;
  if (strncmp(symbol, prefix, sizeof prefix - 1) != 0)
    return NULL;
  length = strtoul(symbol + sizeof prefix - 1, &end, 10);
  if (end == symbol + sizeof prefix - 1 || *end != '_' || strlen(end + 1) <= length + 1 ||
      end[1 + length] != '_')
    return NULL;
  return end + 2 + length;
}

/* Appends one kernel symbol of a cubin for `arch`; merge_kernels() sorts and merges later. */
static cubind_binary_kernel *add_kernel(cubind_binary *binary, const char *symbol, int internal,
                                        unsigned arch) {
  cubind_binary_kernel *kernel;
  const char *mangled;
  binary->kernels =
      cubind_xrealloc(binary->kernels, (binary->num_kernels + 1) * sizeof *binary->kernels);
  kernel = &binary->kernels[binary->num_kernels++];
  memset(kernel, 0, sizeof *kernel);
  kernel->symbol = cubind_xstrdup(symbol);
  mangled = past_static_prefix(kernel->symbol);
  kernel->mangled = mangled ? mangled : kernel->symbol;
  kernel->internal = internal || mangled != NULL;
  kernel->num_params = -1;
  add_arch(&kernel->archs, &kernel->num_archs, arch);
  return kernel;
}

/*
 * 1 when two cubins' layouts of a kernel agree (an unknown one matches any): their sizes, and
 * their offsets too when `offsets` is 1.
 */
static int same_layout(const cubind_binary_kernel *a, const cubind_binary_kernel *b,
                       int offsets) {
  long i;
  if (a->num_params < 0 || b->num_params < 0)
    return 1;
  if (a->num_params != b->num_params)
    return 0;
  for (i = 0; i < a->num_params; i++)
    if ((offsets && a->params[i].offset != b->params[i].offset) ||
        a->params[i].size != b->params[i].size)
      return 0;
  return 1;
}

/* Sorts the kernels by symbol and merges the entries of one symbol (one per cubin). */
static void merge_kernels(cubind_binary *binary) {
  size_t from, to = 0, a;
  if (binary->num_kernels < 2)
    return; /* (qsort must not see the NULL of an empty list) */
  qsort(binary->kernels, binary->num_kernels, sizeof *binary->kernels, compare_kernels);
  for (from = 0; from < binary->num_kernels; from++) {
    cubind_binary_kernel *kernel = &binary->kernels[from];
    if (to > 0 && strcmp(binary->kernels[to - 1].symbol, kernel->symbol) == 0) {
      cubind_binary_kernel *kept = &binary->kernels[to - 1];
      kept->internal |= kernel->internal;
      for (a = 0; a < kernel->num_archs; a++)
        add_arch(&kept->archs, &kept->num_archs, kernel->archs[a]);
      /* the layout of every architecture's code, when they agree (they do unless the kernel's
         signature depends on __CUDA_ARCH__) */
      kept->layout_differs |= kernel->layout_differs || !same_layout(kept, kernel, 1);
      kept->sizes_differ |= kernel->sizes_differ || !same_layout(kept, kernel, 0);
      if (kept->num_params < 0) {
        kept->num_params = kernel->num_params;
        kept->params = kernel->params;
        kernel->params = NULL;
      }
      free(kernel->params);
      free(kernel->symbol);
      free(kernel->archs);
    } else {
      binary->kernels[to++] = *kernel;
    }
  }
  binary->num_kernels = to;
}

static int compare_params(const void *a, const void *b) {
  const cubind_binary_param *x = a, *y = b;
  return x->ordinal < y->ordinal ? -1 : x->ordinal > y->ordinal;
}

/*
 * Reads a kernel's parameters from its ".nv.info.<symbol>" section (info[0..size)): each
 * KPARAM_INFO or KPARAM_INFO_V2 attribute gives one. Leaves the layout unknown (num_params -1)
 * when the section holds no such attribute or is malformed; a kernel without parameters has an
 * empty section or none, and gets 0 from the caller.
 */
static void read_kernel_params(cubind_binary_kernel *kernel, const unsigned char *info,
                               size_t size) {
  size_t at = 0;
  long count = 0;
  cubind_binary_param *params = NULL;
  while (at + 2 <= size) {
    unsigned format = info[at], attribute = info[at + 1];
    size_t value_size = 2; /* formats 1-3 (none, a byte, a u16) fill 4 bytes with the header */
    at += 2;
    if (format == 4) {
      if (at + 2 > size)
        break;
      value_size = cubind_fatbin_u16(info + at);
      at += 2;
    } else if (format < 1 || format > 3) {
      break; /* unknown: stop reading rather than guess */
    }
    if (value_size > size - at)
      break;
    if (format == 4 && value_size >= 12 &&
        (attribute == EIATTR_KPARAM_INFO || attribute == EIATTR_KPARAM_INFO_V2)) {
      uint32_t last = cubind_fatbin_u32(info + at + 8);
      params = cubind_xrealloc(params, (size_t)(count + 1) * sizeof *params);
      params[count].ordinal = cubind_fatbin_u16(info + at + 4);
      params[count].offset = cubind_fatbin_u16(info + at + 6);
      params[count].size =
          attribute == EIATTR_KPARAM_INFO ? (last >> 18) & 0x3fff : last & 0xffffff;
      count++;
    }
    at += value_size;
  }
  if (count) {
    qsort(params, (size_t)count, sizeof *params, compare_params);
    kernel->params = params;
    kernel->num_params = count;
  } else {
    free(params);
  }
}

/*
 * Reads the kernels of one cubin (data[0..size)). arch: the SM version its fatbin entry gives,
 * or 0 to take it from the ELF header. Returns 0, or 1 after reporting why it is no cubin.
 */
/*
 * The variant of the code in a cubin, from ptxas's command line in its ".note.nv.tkinfo"
 * section (note[0..size)): 'a' for an architecture's own features ("-arch sm_90a"), 'f' for
 * its family's ("-arch sm_100f"), else 0. The ELF header and the fatbin's entry flags tell the
 * SM version alone (sm_90 and sm_90a have the same e_flags).
 */
static char code_variant(const unsigned char *note, size_t size) {
  static const char option[] = "-arch sm_";
  size_t at, length = sizeof option - 1;
  for (at = 0; at + length < size; at++)
    if (memcmp(note + at, option, length) == 0) {
      at += length;
      while (at < size && note[at] >= '0' && note[at] <= '9')
        at++;
      return at < size && (note[at] == 'a' || note[at] == 'f') ? (char)note[at] : 0;
    }
  return 0;
}

static int add_cubin(cubind_binary *binary, const char *name, const unsigned char *data,
                     size_t size, unsigned arch) {
  Elf64_Ehdr header;
  Elf64_Shdr symtab, strtab, names;
  uint64_t i, count;
  unsigned s;
  size_t first = binary->num_kernels, k;
  char variant = 0;
  if (size < sizeof header || memcmp(data, ELFMAG, SELFMAG) != 0) {
    cubind_diag(NULL, 0, 0, "error", "'%s' is neither a fatbin nor a cubin", name);
    return 1;
  }
  memcpy(&header, data, sizeof header);
  if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB ||
      header.e_machine != EM_CUDA) {
    cubind_diag(NULL, 0, 0, "error", "'%s' holds an ELF file that is no 64-bit CUDA cubin", name);
    return 1;
  }
  if (!arch)
    arch = header.e_ident[EI_ABIVERSION] >= 8 ? (header.e_flags >> 8) & 0xff
                                              : header.e_flags & 0xff;
  if (header.e_shentsize != sizeof(Elf64_Shdr) ||
      !in_bounds(header.e_shoff, (uint64_t)header.e_shnum * sizeof(Elf64_Shdr), size))
    goto truncated;
  for (s = 0; s < header.e_shnum; s++) {
    memcpy(&symtab, data + header.e_shoff + (uint64_t)s * sizeof symtab, sizeof symtab);
    if (symtab.sh_type != SHT_SYMTAB)
      continue;
    if (symtab.sh_entsize != sizeof(Elf64_Sym) || symtab.sh_link >= header.e_shnum ||
        !in_bounds(symtab.sh_offset, symtab.sh_size, size))
      goto truncated;
    memcpy(&strtab, data + header.e_shoff + (uint64_t)symtab.sh_link * sizeof strtab,
           sizeof strtab);
    if (!in_bounds(strtab.sh_offset, strtab.sh_size, size) || strtab.sh_size == 0 ||
        data[strtab.sh_offset + strtab.sh_size - 1] != '\0')
      goto truncated;
    count = symtab.sh_size / sizeof(Elf64_Sym);
    for (i = 0; i < count; i++) {
      Elf64_Sym symbol;
      memcpy(&symbol, data + symtab.sh_offset + i * sizeof symbol, sizeof symbol);
      if (ELF64_ST_TYPE(symbol.st_info) != STT_FUNC ||
          !(symbol.st_other & CUBIND_STO_CUDA_ENTRY) || symbol.st_shndx == SHN_UNDEF ||
          symbol.st_name == 0 || symbol.st_name >= strtab.sh_size ||
          data[strtab.sh_offset + symbol.st_name] == '\0')
        continue;
      add_kernel(binary, (const char *)data + strtab.sh_offset + symbol.st_name,
                 ELF64_ST_BIND(symbol.st_info) == STB_LOCAL, arch);
    }
  }
  /* each kernel's parameter layout, from the section named after it */
  if (header.e_shstrndx < header.e_shnum) {
    memcpy(&names, data + header.e_shoff + (uint64_t)header.e_shstrndx * sizeof names,
           sizeof names);
    if (!in_bounds(names.sh_offset, names.sh_size, size))
      goto truncated;
    for (k = first; k < binary->num_kernels; k++)
      binary->kernels[k].num_params = 0; /* no section: no parameters */
    for (s = 0; s < header.e_shnum; s++) {
      Elf64_Shdr section;
      const char *section_name;
      memcpy(&section, data + header.e_shoff + (uint64_t)s * sizeof section, sizeof section);
      if (section.sh_name >= names.sh_size ||
          !memchr(data + names.sh_offset + section.sh_name, '\0', names.sh_size - section.sh_name))
        continue;
      section_name = (const char *)data + names.sh_offset + section.sh_name;
      if (strcmp(section_name, ".note.nv.tkinfo") == 0 &&
          in_bounds(section.sh_offset, section.sh_size, size))
        variant = code_variant(data + section.sh_offset, (size_t)section.sh_size);
      if (strncmp(section_name, NV_INFO_PREFIX, strlen(NV_INFO_PREFIX)) != 0 ||
          !in_bounds(section.sh_offset, section.sh_size, size))
        continue;
      for (k = first; k < binary->num_kernels; k++)
        if (strcmp(binary->kernels[k].symbol, section_name + strlen(NV_INFO_PREFIX)) == 0) {
          free(binary->kernels[k].params); /* (two sections of one name: the last counts) */
          binary->kernels[k].params = NULL;
          binary->kernels[k].num_params = -1;
          read_kernel_params(&binary->kernels[k], data + section.sh_offset,
                             (size_t)section.sh_size);
          if (binary->kernels[k].num_params < 0) /* a section without parameters */
            binary->kernels[k].num_params = 0;
        }
    }
  }
  add_arch(&binary->archs, &binary->num_archs, arch);
  if (variant == 'a')
    add_arch(&binary->specific_archs, &binary->num_specific_archs, arch);
  else if (variant == 'f')
    add_arch(&binary->family_archs, &binary->num_family_archs, arch);
  return 0;
truncated:
  cubind_diag(NULL, 0, 0, "error", "'%s': a cubin in it is truncated or malformed", name);
  return 1;
}

/* ---- Fatbins and compressed cubins ------------------------------------------------------- */

/*
 * The most a compressed payload of `in` bytes may inflate to: LZ4 writes at most 255 bytes per
 * input byte; a Zstandard frame can say more (runs of one byte), so it is held to a ratio no
 * real cubin comes near. A header that claims more is damaged (or hostile): refused before
 * anything is allocated.
 */
static uint64_t inflate_limit(int zstd, size_t in) {
  uint64_t limit = zstd ? (uint64_t)in * 4096 + ((uint64_t)1 << 20) : (uint64_t)in * 255 + 16;
  return limit < CUBIND_MAX_INFLATED ? limit : CUBIND_MAX_INFLATED;
}

/*
 * Inflates one compressed cubin (entry) into *result (caller frees), exactly as large as its
 * header says, with libzstd or liblz4. Returns 0, or 1 after reporting the error.
 */
static int inflate_cubin(const char *name, const cubind_fatbin_entry *entry,
                         unsigned char **result) {
  int zstd = (entry->flags & CUBIND_FATBIN_FLAG_COMPRESSED_ZSTD) != 0;
  const char *method = zstd ? "Zstandard" : "LZ4";
  size_t in = entry->compressed_size ? entry->compressed_size : entry->payload_size, got = 0;
  uint64_t expected = entry->uncompressed_size;
  unsigned char *out;
  if ((entry->flags & CUBIND_FATBIN_FLAG_COMPRESSED) == CUBIND_FATBIN_FLAG_COMPRESSED ||
      expected == 0 || expected > inflate_limit(zstd, in) ||
      (!zstd && (in > (size_t)LZ4_MAX_INPUT_SIZE || expected > 0x7fffffff))) {
    cubind_diag(NULL, 0, 0, "error",
                "'%s': its cubin for sm_%u is compressed (%s) with a header that cannot be right "
                "(%zu bytes that would inflate to %llu): the fatbin is damaged",
                name, entry->arch, method, in, (unsigned long long)expected);
    return 1;
  }
  out = cubind_xmalloc((size_t)expected);
  if (zstd) {
    size_t r = ZSTD_decompress(out, (size_t)expected, entry->payload, in);
    got = ZSTD_isError(r) ? 0 : r;
  } else {
    int r = LZ4_decompress_safe((const char *)entry->payload, (char *)out, (int)in, (int)expected);
    got = r < 0 ? 0 : (size_t)r;
  }
  if (got != expected) {
    cubind_diag(NULL, 0, 0, "error",
                "'%s': its cubin for sm_%u is compressed (%s) but does not decompress to the %llu "
                "bytes its header gives: the fatbin is damaged",
                name, entry->arch, method, (unsigned long long)expected);
    free(out);
    return 1;
  }
  *result = out;
  return 0;
}

/* Reads one fatbin or cubin into binary (unsorted); returns 0 or 1 after an error. */
static int add_binary(cubind_binary *binary, const char *name, const unsigned char *data,
                      size_t size) {
  cubind_fatbin_reader reader;
  cubind_fatbin_entry entry;
  size_t cubins = 0;
  int result;
  if (!cubind_fatbin_is_fatbin(data, size))
    return add_cubin(binary, name, data, size, 0);
  cubind_fatbin_begin(&reader, data, size);
  while ((result = cubind_fatbin_next(&reader, &entry)) == CUBIND_FATBIN_ENTRY) {
    const unsigned char *cubin = entry.payload;
    unsigned char *inflated = NULL;
    size_t cubin_size = entry.payload_size;
    int failed;
    if (entry.kind != CUBIND_FATBIN_KIND_ELF)
      continue;
    if (cubind_fatbin_compressed(&entry)) {
      if (inflate_cubin(name, &entry, &inflated))
        return 1;
      cubin = inflated;
      cubin_size = (size_t)entry.uncompressed_size;
    } else if (cubin_size < SELFMAG || memcmp(cubin, ELFMAG, SELFMAG) != 0) {
      cubind_diag(NULL, 0, 0, "error",
                  "'%s': its cubin for sm_%u is neither an ELF file nor compressed in a way "
                  "cubind-gen knows (entry flags 0x%llx)",
                  name, entry.arch, (unsigned long long)entry.flags);
      return 1;
    }
    failed = add_cubin(binary, name, cubin, cubin_size, entry.arch);
    free(inflated);
    if (failed)
      return 1;

    cubins++;
  }
  if (result == CUBIND_FATBIN_MALFORMED) {
    cubind_diag(NULL, 0, 0, "error", "'%s' is a truncated or malformed fatbin (%s at offset %zu)",
                name, reader.error, reader.error_offset);
    return 1;
  }
  if (!cubins) {
    cubind_diag(NULL, 0, 0, "error",
                "'%s' holds no cubin (PTX only?): compile it for at least one real "
                "architecture (sm_XX)",
                name);
    return 1;
  }
  return 0;
}

/* cubind_binary_add: see binary.h. */
int cubind_binary_add(cubind_binary *binary, const char *name, const unsigned char *data,
                      size_t size) {
  int status = add_binary(binary, name, data, size);
  merge_kernels(binary); /* sorted even after an error, for cubind_binary_find */
  return status;
}

/* cubind_binary_check_image: see binary.h. */
int cubind_binary_check_image(const char *name, const unsigned char *data, size_t size) {
  cubind_fatbin_reader reader;
  cubind_fatbin_entry entry;
  int result;
  if (!cubind_fatbin_is_fatbin(data, size)) {
    cubind_binary cubin = {0};
    /* a cubin: add_cubin checks its ELF header and symbol table */
    if (size < SELFMAG || memcmp(data, ELFMAG, SELFMAG) != 0) {
      cubind_diag(NULL, 0, 0, "error",
                  "'%s' is neither a fatbin nor a cubin (nvcc -fatbin or -cubin writes them): "
                  "only those are embedded",
                  name);
      return 1;
    }
    result = add_cubin(&cubin, name, data, size, 0);
    cubind_binary_free(&cubin);
    return result;
  }
  cubind_fatbin_begin(&reader, data, size);
  while ((result = cubind_fatbin_next(&reader, &entry)) == CUBIND_FATBIN_ENTRY)
    ;
  if (result == CUBIND_FATBIN_MALFORMED) {
    cubind_diag(NULL, 0, 0, "error", "'%s' is a truncated or malformed fatbin (%s at offset %zu)",
                name, reader.error, reader.error_offset);
    return 1;
  }
  return 0;
}

/* cubind_binary_free: see binary.h. */
void cubind_binary_free(cubind_binary *binary) {
  size_t i;
  for (i = 0; i < binary->num_kernels; i++) {
    free(binary->kernels[i].symbol);
    free(binary->kernels[i].archs);
    free(binary->kernels[i].params);
  }
  free(binary->kernels);
  free(binary->archs);
  free(binary->specific_archs);
  free(binary->family_archs);
  memset(binary, 0, sizeof *binary);
}

/* cubind_demangle: see binary.h. */
char *cubind_demangle(const char *symbol) {
  int status = 0;
  char *demangled, *copy;
  if (strncmp(symbol, "_Z", 2) != 0)
    return NULL;
  demangled = __cxa_demangle(symbol, NULL, NULL, &status);
  if (status != 0 || !demangled) {
    free(demangled);
    return NULL;
  }
  copy = cubind_xstrdup(demangled); /* owned through cubind's allocator like every string */
  free(demangled);
  return copy;
}

/* cubind_mangling_clang_only: see binary.h. */
int cubind_mangling_clang_only(const char *symbol) {
  /* the forms begin a template argument's expression (X); an identifier holding these letters
     would read as one too, and only costs its kernel's stub without the binary */
  return strncmp(symbol, "_Z", 2) == 0 && (strstr(symbol, "Xadso") || strstr(symbol, "Xcv"));
}

/*
 * A demangled name with the casts and parentheses of template arguments gone: "&((int)tab)" and
 * "(float const*)(&bias)" (clang's forms, below) read "&tab" and "&bias", as nvcc's demangle.
 */
static void drop_casts(char *text) {
  char *open, *close;
  int changed = 1;
  while (changed) {
    changed = 0;
    for (open = strchr(text, '('); open; open = strchr(open + 1, '(')) {
      size_t inner = strcspn(open + 1, "()");
      const char *after;
      int simple = inner > 0, word_before = open > text && (isalnum((unsigned char)open[-1]) ||
                                                            strchr("_>]", open[-1]));
      size_t i;
      close = open + 1 + inner;
      if (*close != ')')
        continue;
      after = close + 1;
      for (i = open[1] == '&'; i < inner; i++)
        simple &= isalnum((unsigned char)open[1 + i]) || open[1 + i] == '_' || open[1 + i] == ':';
      if (!word_before && (*after == '(' || *after == '&' || isalpha((unsigned char)*after) ||
                           *after == '_')) {
        memmove(open, after, strlen(after) + 1); /* a cast: (float const*)(&bias) */
        changed = 1;
        break;
      }
      if (!word_before && simple) { /* (&bias) -> &bias, &(tab) -> &tab */
        memmove(close, after, strlen(after) + 1);
        memmove(open, open + 1, strlen(open + 1) + 1);
        changed = 1;
        break;
      }
    }
  }
}

/*
 * Whether a variant of clang's symbol `text` (its "so" forms from `from` on made casts, the 'E'
 * that ended each dropped) demangles to `target` once drop_casts reads it.
 */
static int clang_variant_reads(char *text, size_t from, const char *target) {
  char *so = strstr(text + from, "Xadso"), *end, *demangled;
  int same;
  if (!so) {
    demangled = cubind_demangle(text);
    if (!demangled)
      return 0;
    drop_casts(demangled);
    same = strcmp(demangled, target) == 0;
    free(demangled);
    return same;
  }
  memcpy(so + 3, "cv", 2); /* so<type><expr>E -> cv<type><expr>: "(type)expr" */
  for (end = strchr(so + 5, 'E'); end; end = strchr(end + 1, 'E')) {
    size_t at = (size_t)(end - text);
    char *variant = cubind_xstrdup(text);
    memmove(variant + at, variant + at + 1, strlen(variant + at + 1) + 1);
    same = clang_variant_reads(variant, (size_t)(so - text) + 5, target);
    free(variant);
    if (same)
      return 1;
  }
  return 0;
}

/* cubind_mangling_alike: see binary.h. */
int cubind_mangling_alike(const char *clang, const char *nvcc) {
  char *target, *text;
  int same;
  if (strcmp(clang, nvcc) == 0)
    return 1;
  if (!cubind_mangling_clang_only(clang) || !(target = cubind_demangle(nvcc)))
    return 0;
  drop_casts(target);
  text = cubind_xstrdup(clang);
  same = clang_variant_reads(text, 0, target);
  free(text);
  free(target);
  return same;
}
