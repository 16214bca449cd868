/*
 * binary.c: kernel symbols from nvcc's output. See binary.h.
 *
 * Layouts read here:
 *  - cubin: a little-endian ELF64 file for EM_CUDA; a kernel is an STT_FUNC symbol whose
 *    st_other has STO_CUDA_ENTRY (0x10). The SM version is in e_flags (bits 8-15 from ELF ABI
 *    version 8, as CUDA 13 writes; bits 0-7 before).
 *  - fatbin (what `nvcc -fatbin` writes): a 16-byte header (u32 magic 0xBA55ED50, u16 version,
 *    u16 header size, u64 size of the entries), then entries, each a header (u16 kind: 1 PTX,
 *    2 ELF; u16 version; u32 header size; u64 payload size; u32 SM version at offset 28)
 *    followed by its payload. fatbinary compresses PTX by default but not cubins; a compressed
 *    cubin (-Xfatbin -compress-all) is reported, never guessed at.
 */
#include "binary.h"

#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* The C++ runtime's demangler (Itanium C++ ABI, section 3.4); libstdc++ and libc++abi have it. */
extern char *__cxa_demangle(const char *mangled, char *buffer, size_t *length, int *status);

#define CUBIND_FATBIN_MAGIC 0xBA55ED50u
#define CUBIND_FATBIN_KIND_ELF 2
#define CUBIND_STO_CUDA_ENTRY 0x10
#ifndef EM_CUDA
#define EM_CUDA 190
#endif

/* Little-endian reads at any alignment (the caller has checked the bounds). */
static uint16_t read_u16(const unsigned char *at) { return (uint16_t)(at[0] | at[1] << 8); }
static uint32_t read_u32(const unsigned char *at) {
  return (uint32_t)at[0] | (uint32_t)at[1] << 8 | (uint32_t)at[2] << 16 | (uint32_t)at[3] << 24;
}
static uint64_t read_u64(const unsigned char *at) {
  return (uint64_t)read_u32(at) | (uint64_t)read_u32(at + 4) << 32;
}

/* offset + length lies within size, without overflow. */
static int in_bounds(uint64_t offset, uint64_t length, size_t size) {
  return offset <= size && length <= size - offset;
}

static int compare_units(const void *a, const void *b) {
  unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
  return x < y ? -1 : x > y;
}

/* Adds arch to a sorted set of SM versions. */
static void add_arch(unsigned **archs, size_t *count, unsigned arch) {
  size_t i;
  for (i = 0; i < *count; i++)
    if ((*archs)[i] == arch)
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

/* Appends one kernel symbol of a cubin for `arch`; merge_kernels() sorts and merges later. */
static void add_kernel(cubind_binary *binary, const char *symbol, int internal, unsigned arch) {
  cubind_binary_kernel *kernel;
  binary->kernels =
      cubind_xrealloc(binary->kernels, (binary->num_kernels + 1) * sizeof *binary->kernels);
  kernel = &binary->kernels[binary->num_kernels++];
  memset(kernel, 0, sizeof *kernel);
  kernel->symbol = cubind_xstrdup(symbol);
  kernel->internal = internal;
  add_arch(&kernel->archs, &kernel->num_archs, arch);
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
      free(kernel->symbol);
      free(kernel->archs);
    } else {
      binary->kernels[to++] = *kernel;
    }
  }
  binary->num_kernels = to;
}

/*
 * Reads the kernels of one cubin (data[0..size)). arch: the SM version its fatbin entry gives,
 * or 0 to take it from the ELF header. Returns 0, or 1 after reporting why it is no cubin.
 */
static int add_cubin(cubind_binary *binary, const char *name, const unsigned char *data,
                     size_t size, unsigned arch) {
  Elf64_Ehdr header;
  Elf64_Shdr symtab, strtab;
  uint64_t i, count;
  unsigned s;
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
  add_arch(&binary->archs, &binary->num_archs, arch);
  return 0;
truncated:
  cubind_diag(NULL, 0, 0, "error", "'%s': a cubin in it is truncated or malformed", name);
  return 1;
}

/* Reads one fatbin or cubin into binary (unsorted); returns 0 or 1 after an error. */
static int add_binary(cubind_binary *binary, const char *name, const unsigned char *data,
                      size_t size) {
  uint64_t offset = 0;
  size_t cubins = 0;
  if (size < 4 || read_u32(data) != CUBIND_FATBIN_MAGIC)
    return add_cubin(binary, name, data, size, 0);
  /* one or more containers, back to back; zero padding may follow */
  while (offset < size) {
    uint64_t header_size, entries_size, entry, end;
    if (!in_bounds(offset, 16, size) || read_u32(data + offset) != CUBIND_FATBIN_MAGIC) {
      while (offset < size && data[offset] == 0)
        offset++;
      if (offset == size)
        break;
      goto malformed;
    }
    header_size = read_u16(data + offset + 6);
    entries_size = read_u64(data + offset + 8);
    if (header_size < 16 || !in_bounds(offset + header_size, entries_size, size))
      goto malformed;
    entry = offset + header_size;
    end = entry + entries_size;
    while (entry < end) {
      uint64_t entry_header, payload;
      unsigned kind, arch;
      if (!in_bounds(entry, 32, end))
        goto malformed;
      kind = read_u16(data + entry);
      entry_header = read_u32(data + entry + 4);
      payload = read_u64(data + entry + 8);
      arch = read_u32(data + entry + 28);
      if (entry_header < 32 || !in_bounds(entry + entry_header, payload, end))
        goto malformed;
      if (kind == CUBIND_FATBIN_KIND_ELF) {
        const unsigned char *cubin = data + entry + entry_header;
        if (payload < SELFMAG || memcmp(cubin, ELFMAG, SELFMAG) != 0) {
          cubind_diag(NULL, 0, 0, "error",
                      "'%s': its cubin for sm_%u is compressed (fatbinary -compress-all?): "
                      "cubind-gen reads kernel names from uncompressed cubins only",
                      name, arch);
          return 1;
        }
        if (add_cubin(binary, name, cubin, (size_t)payload, arch) != 0)
          return 1;
        cubins++;
      }
      entry += entry_header + payload;
    }
    offset = end;
  }
  if (!cubins) {
    cubind_diag(NULL, 0, 0, "error",
                "'%s' holds no cubin (PTX only?): compile it for at least one real "
                "architecture (sm_XX)",
                name);
    return 1;
  }
  return 0;
malformed:
  cubind_diag(NULL, 0, 0, "error", "'%s' is a truncated or malformed fatbin", name);
  return 1;
}

/* cubind_binary_add: see binary.h. */
int cubind_binary_add(cubind_binary *binary, const char *name, const unsigned char *data,
                      size_t size) {
  int status = add_binary(binary, name, data, size);
  merge_kernels(binary); /* sorted even after an error, for cubind_binary_find */
  return status;
}

/* cubind_binary_free: see binary.h. */
void cubind_binary_free(cubind_binary *binary) {
  size_t i;
  for (i = 0; i < binary->num_kernels; i++) {
    free(binary->kernels[i].symbol);
    free(binary->kernels[i].archs);
  }
  free(binary->kernels);
  free(binary->archs);
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
