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
 *    followed by its payload. Compressed cubins (-G, -rdc=true, -Xfatbin=-compress-all) are
 *    decompressed first: see "Compressed cubins" below.
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

/* ---- Compressed cubins ---------------------------------------------------------------------
 * fatbinary compresses an entry when asked (-Xfatbin=-compress-all), for relocatable code
 * (-rdc=true) and for device debug code (-G). The entry header then says how, in its flags (u64
 * at offset 40): 0x2000 an LZ4 block, 0x8000 a Zstandard frame (nvcc 13's default; LZ4 is
 * --compress-mode=speed). The compressed length is the u32 at offset 16 (the payload is padded
 * to 8 bytes), the decompressed length the u64 at offset 56. Both decoders below are written
 * from the formats' public specifications (LZ4's block format; RFC 8878 for Zstandard), decode
 * whole inputs only, and check every length, offset and table against the input and the
 * declared output size: a damaged or hostile fatbin is an error, never a crash.
 */

#define CUBIND_FATBIN_FLAG_LZ4 0x2000u
#define CUBIND_FATBIN_FLAG_ZSTD 0x8000u
/* No cubin nvcc writes comes near this; it bounds what a hostile header can make us allocate. */
#define CUBIND_MAX_INFLATED ((size_t)1 << 30)

/* The decompressed bytes: grown as they are produced, never beyond `limit`. */
typedef struct inflated {
  unsigned char *data;
  size_t length, capacity, limit;
} inflate_buf;

/* Makes room for `more` bytes; 1 when that would pass the limit. */
static int inflated_reserve(inflate_buf *out, size_t more) {
  size_t capacity = out->capacity ? out->capacity : 4096;
  if (more > out->limit - out->length)
    return 1;
  while (capacity - out->length < more)
    capacity = capacity > out->limit / 2 ? out->limit : capacity * 2;
  if (capacity != out->capacity) {
    out->data = cubind_xrealloc(out->data, capacity);
    out->capacity = capacity;
  }
  return 0;
}

/* Appends `length` bytes. Returns 0, or 1 past the limit. */
static int inflated_append(inflate_buf *out, const unsigned char *bytes, size_t length) {
  if (inflated_reserve(out, length))
    return 1;
  if (length)
    memcpy(out->data + out->length, bytes, length);
  out->length += length;
  return 0;
}

/* Appends `length` copies of one byte. */
static int inflated_repeat(inflate_buf *out, unsigned char byte, size_t length) {
  if (inflated_reserve(out, length))
    return 1;
  memset(out->data + out->length, byte, length);
  out->length += length;
  return 0;
}

/*
 * Appends `length` bytes copied from `distance` bytes back, byte by byte: the source may overlap
 * what is being written (a run). `window` is how many bytes back may be referenced.
 */
static int inflated_match(inflate_buf *out, size_t distance, size_t length, size_t window) {
  size_t i;
  if (distance == 0 || distance > window || inflated_reserve(out, length))
    return 1;
  for (i = 0; i < length; i++)
    out->data[out->length + i] = out->data[out->length + i - distance];
  out->length += length;
  return 0;
}

/* An LZ4 length continuation: bytes of 255 add up until a smaller one. */
static int lz4_length(const unsigned char *in, size_t size, size_t *at, size_t *length) {
  unsigned byte;
  do {
    if (*at >= size || *length > CUBIND_MAX_INFLATED)
      return 1;
    byte = in[(*at)++];
    *length += byte;
  } while (byte == 255);
  return 0;
}

/*
 * Decodes one LZ4 block: sequences of a token (literal count, match length), the literals, a
 * 16-bit distance and the match; the last sequence has literals only. Returns 0 or 1 (corrupt).
 */
static int lz4_decode(const unsigned char *in, size_t size, inflate_buf *out) {
  size_t at = 0;
  while (at < size) {
    unsigned token = in[at++];
    size_t literals = token >> 4, match = token & 15, distance;
    if ((literals == 15 && lz4_length(in, size, &at, &literals)) || literals > size - at ||
        inflated_append(out, in + at, literals))
      return 1;
    at += literals;
    if (at == size)
      return 0;
    if (size - at < 2)
      return 1;
    distance = (size_t)in[at] | (size_t)in[at + 1] << 8;
    at += 2;
    if (match == 15 && lz4_length(in, size, &at, &match))
      return 1;
    if (inflated_match(out, distance, match + 4, out->length))
      return 1;
  }
  return 1; /* empty, or ends with a match */
}

/* -- Zstandard (RFC 8878) -- */

/*
 * A backward bit stream (Huffman and FSE streams are read from their end): `pos` counts the
 * bits not yet read, above bit 0 of byte 0; reading past the start yields zeros and makes `pos`
 * negative, which the callers treat as the end (weights) or as corruption (everything else).
 */
typedef struct bits_back {
  const unsigned char *data;
  long long pos;
} bits_back;

/* Index of the highest set bit of a non-zero value. */
static unsigned high_bit(uint64_t value) {
  unsigned bit = 0;
  while (value >>= 1)
    bit++;
  return bit;
}

/* Starts at the last byte's highest set bit (the end marker). Returns 1 without one. */
static int bits_back_init(bits_back *bits, const unsigned char *data, size_t size) {
  if (!size || !data[size - 1])
    return 1;
  bits->data = data;
  bits->pos = (long long)(size - 1) * 8 + high_bit(data[size - 1]);
  return 0;
}

/* The next `count` (<= 32) bits without consuming them, the first-read bit highest. */
static uint64_t bits_back_peek(const bits_back *bits, unsigned count) {
  long long low = bits->pos - (long long)count, from = low < 0 ? 0 : low;
  uint64_t value = 0;
  size_t k, first;
  if (bits->pos <= 0 || count == 0)
    return 0;
  first = (size_t)(from >> 3);
  for (k = (size_t)((bits->pos - 1) >> 3) + 1; k-- > first;)
    value = value << 8 | bits->data[k];
  value >>= from & 7;
  value &= ((uint64_t)1 << (bits->pos - from)) - 1;
  return low < 0 ? value << -low : value;
}

/* Reads (consumes) the next `count` (<= 32) bits; see bits_back_peek. */
static uint64_t bits_back_read(bits_back *bits, unsigned count) {
  uint64_t value = bits_back_peek(bits, count);
  bits->pos -= count;
  return value;
}

/* An FSE decoding table: for each state, its symbol and how to reach the next state. */
typedef struct fse_cell {
  unsigned char symbol, bits;
  unsigned short base;
} fse_cell;

typedef struct fse_table {
  fse_cell cells[1 << 9];
  unsigned log;
} fse_table;

/*
 * Builds a decoding table from normalized counts (RFC 8878 4.1.1): "less than one" symbols
 * (-1) take the last cells, the others are spread with the format's fixed step, and each
 * cell's next-state range follows from its symbol's occurrence index. Returns 0 or 1.
 */
static int fse_build(fse_table *table, const short *counts, unsigned symbols, unsigned log) {
  unsigned size = 1u << log, high = size - 1, step = (size >> 1) + (size >> 3) + 3;
  unsigned pos = 0, s, u;
  unsigned short next[256];
  table->log = log;
  for (s = 0; s < symbols; s++) {
    if (counts[s] == -1) {
      table->cells[high--].symbol = (unsigned char)s;
      next[s] = 1;
    } else {
      next[s] = (unsigned short)counts[s];
    }
  }
  for (s = 0; s < symbols; s++) {
    int i;
    for (i = 0; i < counts[s]; i++) {
      table->cells[pos].symbol = (unsigned char)s;
      do
        pos = (pos + step) & (size - 1);
      while (pos > high);
    }
  }
  if (pos != 0)
    return 1; /* the counts did not fill the table exactly */
  for (u = 0; u < size; u++) {
    unsigned x = next[table->cells[u].symbol]++, bits = log - high_bit(x);
    table->cells[u].bits = (unsigned char)bits;
    table->cells[u].base = (unsigned short)((x << bits) - size);
  }
  return 0;
}

/* A table of one symbol and no bits (RLE mode). */
static void fse_single(fse_table *table, unsigned char symbol) {
  table->log = 0;
  table->cells[0].symbol = symbol;
  table->cells[0].bits = 0;
  table->cells[0].base = 0;
}

/* Forward little-endian bits of a table description; reads past the end give zeros. */
static uint64_t bits_forward(const unsigned char *in, size_t size, size_t pos, unsigned count) {
  uint64_t value = 0;
  unsigned i;
  for (i = 0; i < count; i++, pos++)
    if (pos / 8 < size && (in[pos / 8] >> (pos % 8) & 1))
      value |= (uint64_t)1 << i;
  return value;
}

/*
 * Reads an FSE table description (RFC 8878 4.1.1) from in[0..size) and builds the table.
 * max_log, max_symbol: the limits of the alphabet. *used: the bytes it took. Returns 0 or 1.
 */
static int fse_read(fse_table *table, const unsigned char *in, size_t size, unsigned max_log,
                    unsigned max_symbol, size_t *used) {
  short counts[256];
  size_t pos = 4;
  unsigned log, symbol = 0;
  int remaining, threshold, bits;
  if (size == 0)
    return 1;
  log = (unsigned)bits_forward(in, size, 0, 4) + 5;
  if (log > max_log)
    return 1;
  remaining = (1 << log) + 1;
  threshold = 1 << log;
  bits = (int)log + 1;
  while (remaining > 1) {
    int max = 2 * threshold - 1 - remaining, value, count;
    if (symbol > max_symbol)
      return 1;
    value = (int)bits_forward(in, size, pos, (unsigned)bits - 1);
    if (value < max) {
      pos += (size_t)bits - 1;
    } else {
      value = (int)bits_forward(in, size, pos, (unsigned)bits);
      if (value >= threshold)
        value -= max;
      pos += (size_t)bits;
    }
    count = value - 1;
    remaining -= count < 0 ? -count : count;
    counts[symbol++] = (short)count;
    if (count == 0) { /* a run of zero-probability symbols follows, in 2-bit repeat flags */
      unsigned repeat;
      do {
        unsigned k;
        repeat = (unsigned)bits_forward(in, size, pos, 2);
        pos += 2;
        for (k = 0; k < repeat; k++) {
          if (symbol > max_symbol)
            return 1;
          counts[symbol++] = 0;
        }
      } while (repeat == 3 && pos <= size * 8);
    }
    if (remaining < 1 || pos > size * 8)
      return 1;
    while (remaining < threshold) {
      bits--;
      threshold >>= 1;
    }
  }
  if (remaining != 1)
    return 1;
  *used = (pos + 7) / 8;
  return fse_build(table, counts, symbol, log);
}

/* A Huffman decoding table indexed by the next max_bits bits of the stream. */
typedef struct huf_table {
  unsigned char symbol[1 << 11], bits[1 << 11];
  unsigned max_bits;
  int valid;
} huf_table;

/*
 * Reads a Huffman tree description (RFC 8878 4.2.1): weights given directly (4 bits each) or
 * FSE-compressed with two interleaved states; the last symbol's weight is implied by the others
 * summing to a power of two. Builds the table (longer codes first, then by symbol). *used: the
 * bytes it took. Returns 0 or 1.
 */
static int huf_read(huf_table *huf, const unsigned char *in, size_t size, size_t *used) {
  unsigned char weights[256];
  unsigned count = 0, i, sum = 0, rest, b, rank_count[12] = {0}, rank_start[13];
  if (size == 0)
    return 1;
  if (in[0] >= 128) {
    count = in[0] - 127u;
    *used = 1 + (count + 1) / 2;
    if (*used > size)
      return 1;
    for (i = 0; i < count; i++)
      weights[i] = (unsigned char)(i % 2 ? in[1 + i / 2] & 15 : in[1 + i / 2] >> 4);
  } else {
    fse_table table;
    bits_back bits;
    size_t description;
    unsigned s1, s2;
    *used = 1 + (size_t)in[0];
    if (*used > size || fse_read(&table, in + 1, in[0], 6, 12, &description) ||
        bits_back_init(&bits, in + 1 + description, in[0] - description))
      return 1;
    s1 = (unsigned)bits_back_read(&bits, table.log);
    s2 = (unsigned)bits_back_read(&bits, table.log);
    for (;;) {
      const fse_cell *c1 = &table.cells[s1], *c2;
      if (count >= 255)
        return 1;
      weights[count++] = c1->symbol;
      s1 = c1->base + (unsigned)bits_back_read(&bits, c1->bits);
      if (bits.pos < 0) {
        weights[count++] = table.cells[s2].symbol;
        break;
      }
      c2 = &table.cells[s2];
      if (count >= 255)
        return 1;
      weights[count++] = c2->symbol;
      s2 = c2->base + (unsigned)bits_back_read(&bits, c2->bits);
      if (bits.pos < 0) {
        weights[count++] = table.cells[s1].symbol;
        break;
      }
    }
  }
  for (i = 0; i < count; i++) {
    if (weights[i] > 11)
      return 1;
    sum += weights[i] ? 1u << (weights[i] - 1) : 0;
  }
  if (sum == 0 || count > 255)
    return 1;
  huf->max_bits = high_bit(sum) + 1;
  rest = (1u << huf->max_bits) - sum;
  if (huf->max_bits > 11 || (rest & (rest - 1)))
    return 1;
  weights[count++] = (unsigned char)(high_bit(rest) + 1);
  /* code lengths: weight w takes max_bits + 1 - w bits; longer codes take the low indices */
  for (i = 0; i < count; i++)
    if (weights[i])
      rank_count[huf->max_bits + 1 - weights[i]]++;
  rank_start[huf->max_bits] = 0;
  for (b = huf->max_bits; b >= 1; b--) {
    rank_start[b - 1] = rank_start[b] + rank_count[b] * (1u << (huf->max_bits - b));
    memset(&huf->bits[rank_start[b]], (int)b, rank_start[b - 1] - rank_start[b]);
  }
  for (i = 0; i < count; i++) {
    if (weights[i]) {
      unsigned bits = huf->max_bits + 1 - weights[i], span = 1u << (huf->max_bits - bits);
      memset(&huf->symbol[rank_start[bits]], (int)i, span);
      rank_start[bits] += span;
    }
  }
  huf->valid = 1;
  return 0;
}

/* Decodes `count` symbols from one Huffman stream, which must be used up exactly. */
static int huf_stream(const huf_table *huf, const unsigned char *in, size_t size,
                      unsigned char *out, size_t count) {
  bits_back bits;
  size_t i;
  if (bits_back_init(&bits, in, size))
    return 1;
  for (i = 0; i < count; i++) {
    unsigned index = (unsigned)bits_back_peek(&bits, huf->max_bits);
    out[i] = huf->symbol[index];
    bits.pos -= huf->bits[index];
  }
  return bits.pos != 0;
}

enum { ZSTD_BLOCK_MAX = 1 << 17 };

/* What lasts from one block of a frame to the next. */
typedef struct zstd_frame {
  huf_table huf;
  fse_table tables[3]; /* literal lengths, offsets, match lengths */
  int have_table[3];
  size_t rep[3];
  unsigned char literals[ZSTD_BLOCK_MAX];
  size_t num_literals;
} zstd_frame;

/* Literals_Section (RFC 8878 3.1.1.3.1) of a compressed block. *used: its bytes. */
static int zstd_literals(zstd_frame *frame, const unsigned char *in, size_t size, size_t *used) {
  unsigned type, format;
  size_t regenerated, compressed = 0, header;
  if (size == 0)
    return 1;
  type = in[0] & 3;
  format = in[0] >> 2 & 3;
  if (type < 2) { /* raw or RLE */
    header = format == 1 ? 2 : format == 3 ? 3 : 1;
    if (size < header)
      return 1;
    regenerated = header == 1 ? (size_t)in[0] >> 3
                  : header == 2 ? (size_t)(in[0] >> 4) | (size_t)in[1] << 4
                                : (size_t)(in[0] >> 4) | (size_t)in[1] << 4 | (size_t)in[2] << 12;
    if (regenerated > ZSTD_BLOCK_MAX)
      return 1;
    if (type == 0) {
      if (regenerated > size - header)
        return 1;
      memcpy(frame->literals, in + header, regenerated);
      *used = header + regenerated;
    } else {
      if (size - header < 1)
        return 1;
      memset(frame->literals, in[header], regenerated);
      *used = header + 1;
    }
  } else { /* Huffman-compressed, with a new tree (2) or the previous one (3) */
    uint64_t h;
    unsigned streams = format == 0 ? 1 : 4;
    size_t tree = 0;
    const unsigned char *data;
    header = format < 2 ? 3 : format == 2 ? 4 : 5;
    if (size < header)
      return 1;
    h = (uint64_t)in[0] | (uint64_t)in[1] << 8 | (uint64_t)in[2] << 16 |
        (header > 3 ? (uint64_t)in[3] << 24 : 0) | (header > 4 ? (uint64_t)in[4] << 32 : 0);
    if (header == 3) {
      regenerated = (size_t)(h >> 4 & 0x3FF);
      compressed = (size_t)(h >> 14 & 0x3FF);
    } else if (header == 4) {
      regenerated = (size_t)(h >> 4 & 0x3FFF);
      compressed = (size_t)(h >> 18 & 0x3FFF);
    } else {
      regenerated = (size_t)(h >> 4 & 0x3FFFF);
      compressed = (size_t)(h >> 22 & 0x3FFFF);
    }
    if (regenerated > ZSTD_BLOCK_MAX || compressed > size - header)
      return 1;
    data = in + header;
    if (type == 2) {
      if (huf_read(&frame->huf, data, compressed, &tree))
        return 1;
    } else if (!frame->huf.valid) {
      return 1;
    }
    data += tree;
    compressed -= tree;
    if (streams == 1) {
      if (huf_stream(&frame->huf, data, compressed, frame->literals, regenerated))
        return 1;
    } else {
      size_t lengths[4], each = (regenerated + 3) / 4, at = 6, s, produced = 0;
      if (compressed < 6 || regenerated < 3 * each)
        return 1;
      lengths[0] = (size_t)data[0] | (size_t)data[1] << 8;
      lengths[1] = (size_t)data[2] | (size_t)data[3] << 8;
      lengths[2] = (size_t)data[4] | (size_t)data[5] << 8;
      if (lengths[0] + lengths[1] + lengths[2] > compressed - 6)
        return 1;
      lengths[3] = compressed - 6 - lengths[0] - lengths[1] - lengths[2];
      for (s = 0; s < 4; s++) {
        size_t n = s < 3 ? each : regenerated - 3 * each;
        if (huf_stream(&frame->huf, data + at, lengths[s], frame->literals + produced, n))
          return 1;
        at += lengths[s];
        produced += n;
      }
    }
    *used = header + tree + compressed;
  }
  frame->num_literals = regenerated;
  return 0;
}

/* Literal-length and match-length codes: baseline and extra bits (RFC 8878 3.1.1.3.2.1.1). */
static const unsigned zstd_ll_base[36] = {
    0,  1,  2,  3,  4,  5,  6,  7,  8,   9,   10,  11,  12,   13,   14,   15,   16,   18,
    20, 22, 24, 28, 32, 40, 48, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536};
static const unsigned char zstd_ll_bits[36] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  0,  0,
                                               0, 0, 0, 0, 1, 1, 1, 1, 2, 2,  3,  3,
                                               4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
static const unsigned zstd_ml_base[53] = {
    3,  4,  5,  6,  7,  8,  9,  10, 11,  12,  13,  14,  15,   16,   17,   18,    19,    20,
    21, 22, 23, 24, 25, 26, 27, 28, 29,  30,  31,  32,  33,   34,   35,   37,    39,    41,
    43, 47, 51, 59, 67, 83, 99, 131, 259, 515, 1027, 2051, 4099, 8195, 16387, 32771, 65539};
static const unsigned char zstd_ml_bits[53] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                               0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                               0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4,
                                               5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
/* The predefined distributions (RFC 8878 3.1.1.3.2.2). */
static const short zstd_ll_default[36] = {4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 2,
                                          2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1, -1, -1, -1, -1};
static const short zstd_of_default[29] = {1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1,
                                          1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1};
static const short zstd_ml_default[53] = {1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                          1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                          1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1};

/*
 * Sequences_Section (RFC 8878 3.1.1.3.2) of a compressed block, executed as it is decoded:
 * literals from frame->literals, matches from the output so far (`window` bytes of this frame).
 */
static int zstd_sequences(zstd_frame *frame, const unsigned char *in, size_t size, inflate_buf *out,
                          size_t frame_start) {
  static const unsigned max_log[3] = {9, 8, 9}, max_symbol[3] = {35, 31, 52},
                        default_log[3] = {6, 5, 6};
  static const short *const defaults[3] = {zstd_ll_default, zstd_of_default, zstd_ml_default};
  static const unsigned default_symbols[3] = {36, 29, 53};
  size_t count, at, i, literal = 0;
  unsigned modes, t, state[3];
  bits_back bits;
  if (size == 0)
    return 1;
  if (in[0] < 128) {
    count = in[0];
    at = 1;
  } else if (in[0] < 255) {
    if (size < 2)
      return 1;
    count = ((size_t)(in[0] - 128) << 8) + in[1];
    at = 2;
  } else {
    if (size < 3)
      return 1;
    count = (size_t)in[1] + ((size_t)in[2] << 8) + 0x7F00;
    at = 3;
  }
  if (count == 0) /* literals only */
    return at != size || inflated_append(out, frame->literals, frame->num_literals);
  if (at >= size)
    return 1;
  modes = in[at++];
  if (modes & 3)
    return 1;
  for (t = 0; t < 3; t++) {
    /* the byte's fields are literal lengths (bits 6-7), offsets (4-5), match lengths (2-3) */
    unsigned mode = modes >> (6 - 2 * t) & 3;
    size_t used = 0;
    if (mode == 0) {
      if (fse_build(&frame->tables[t], defaults[t], default_symbols[t], default_log[t]))
        return 1;
    } else if (mode == 1) {
      if (at >= size || in[at] > max_symbol[t])
        return 1;
      fse_single(&frame->tables[t], in[at++]);
    } else if (mode == 2) {
      if (fse_read(&frame->tables[t], in + at, size - at, max_log[t], max_symbol[t], &used))
        return 1;
      at += used;
    } else if (!frame->have_table[t]) {
      return 1;
    }
    frame->have_table[t] = 1;
  }
  if (bits_back_init(&bits, in + at, size - at))
    return 1;
  for (t = 0; t < 3; t++)
    state[t] = (unsigned)bits_back_read(&bits, frame->tables[t].log);
  for (i = 0; i < count; i++) {
    const fse_cell *ll = &frame->tables[0].cells[state[0]], *of = &frame->tables[1].cells[state[1]],
                   *ml = &frame->tables[2].cells[state[2]];
    uint64_t offset_value, offset;
    size_t match, literals;
    if (of->symbol > 31 || ll->symbol > 35 || ml->symbol > 52)
      return 1;
    offset_value = ((uint64_t)1 << of->symbol) + bits_back_read(&bits, of->symbol);
    match = zstd_ml_base[ml->symbol] + (size_t)bits_back_read(&bits, zstd_ml_bits[ml->symbol]);
    literals = zstd_ll_base[ll->symbol] + (size_t)bits_back_read(&bits, zstd_ll_bits[ll->symbol]);
    if (i + 1 < count) { /* states update in this order: literal lengths, match lengths, offsets */
      state[0] = ll->base + (unsigned)bits_back_read(&bits, ll->bits);
      state[2] = ml->base + (unsigned)bits_back_read(&bits, ml->bits);
      state[1] = of->base + (unsigned)bits_back_read(&bits, of->bits);
    }
    if (bits.pos < 0)
      return 1;
    if (offset_value > 3) {
      offset = offset_value - 3;
      frame->rep[2] = frame->rep[1];
      frame->rep[1] = frame->rep[0];
      frame->rep[0] = (size_t)offset;
    } else { /* a repeat offset; with no literals, the choice shifts by one */
      unsigned index = (unsigned)offset_value - 1 + (literals == 0);
      if (index == 0) {
        offset = frame->rep[0];
      } else {
        offset = index == 3 ? frame->rep[0] - 1 : frame->rep[index];
        if (index != 1)
          frame->rep[2] = frame->rep[1];
        frame->rep[1] = frame->rep[0];
        frame->rep[0] = (size_t)offset;
      }
    }
    if (literals > frame->num_literals - literal ||
        inflated_append(out, frame->literals + literal, literals))
      return 1;
    literal += literals;
    if (offset > (uint64_t)(out->length - frame_start) ||
        inflated_match(out, (size_t)offset, match, out->length - frame_start))
      return 1;
  }
  if (bits.pos != 0)
    return 1;
  return inflated_append(out, frame->literals + literal, frame->num_literals - literal);
}

/* Decodes Zstandard frames (and skips skippable ones) back to back. Returns 0 or 1. */
static int zstd_decode(const unsigned char *in, size_t size, inflate_buf *out) {
  zstd_frame *frame = cubind_xmalloc(sizeof *frame);
  size_t at = 0;
  int status = 1;
  if (size == 0)
    goto done;
  while (at < size) {
    uint32_t magic;
    unsigned descriptor, fcs_bytes, did_bytes;
    uint64_t content_size = 0;
    size_t frame_start = out->length, k;
    int last = 0;
    if (size - at < 4)
      goto done;
    magic = read_u32(in + at);
    at += 4;
    if ((magic & 0xFFFFFFF0u) == 0x184D2A50u) { /* a skippable frame */
      uint32_t skip;
      if (size - at < 4)
        goto done;
      skip = read_u32(in + at);
      at += 4;
      if (skip > size - at)
        goto done;
      at += skip;
      continue;
    }
    if (magic != 0xFD2FB528u || at >= size)
      goto done;
    descriptor = in[at++];
    if (descriptor & 8) /* reserved bit */
      goto done;
    fcs_bytes = descriptor >> 6 ? 1u << (descriptor >> 6) : (descriptor & 0x20) ? 1u : 0u;
    did_bytes = (descriptor & 3) == 3 ? 4u : descriptor & 3;
    if (!(descriptor & 0x20)) /* the window descriptor: everything decoded stays reachable */
      at++;
    if (at > size || did_bytes > size - at)
      goto done;
    for (k = 0; k < did_bytes; k++)
      if (in[at + k]) /* a dictionary: nvcc never uses one */
        goto done;
    at += did_bytes;
    if (fcs_bytes > size - at)
      goto done;
    for (k = 0; k < fcs_bytes; k++)
      content_size |= (uint64_t)in[at + k] << (8 * k);
    if (fcs_bytes == 2)
      content_size += 256;
    at += fcs_bytes;
    frame->huf.valid = 0;
    frame->have_table[0] = frame->have_table[1] = frame->have_table[2] = 0;
    frame->rep[0] = 1;
    frame->rep[1] = 4;
    frame->rep[2] = 8;
    while (!last) {
      uint32_t header;
      size_t block;
      unsigned type;
      if (size - at < 3)
        goto done;
      header = (uint32_t)in[at] | (uint32_t)in[at + 1] << 8 | (uint32_t)in[at + 2] << 16;
      at += 3;
      last = header & 1;
      type = header >> 1 & 3;
      block = header >> 3;
      if (block > ZSTD_BLOCK_MAX)
        goto done;
      if (type == 0) {
        if (block > size - at || inflated_append(out, in + at, block))
          goto done;
        at += block;
      } else if (type == 1) {
        if (at >= size || inflated_repeat(out, in[at], block))
          goto done;
        at++;
      } else if (type == 2) {
        size_t used;
        if (block > size - at || zstd_literals(frame, in + at, block, &used) ||
            zstd_sequences(frame, in + at + used, block - used, out, frame_start))
          goto done;
        at += block;
      } else {
        goto done;
      }
    }
    if (descriptor & 4) { /* content checksum (XXH64): the cubin's own checks follow anyway */
      if (size - at < 4)
        goto done;
      at += 4;
    }
    if (fcs_bytes && content_size != out->length - frame_start)
      goto done;
  }
  status = 0;
done:
  free(frame);
  return status;
}

/*
 * Decompresses one fatbin entry's payload (flags: the entry's flags) into *result (caller frees)
 * of exactly `expected` bytes. Returns 0, or 1 after reporting the error.
 */
static int decompress_entry(const char *name, unsigned arch, uint64_t flags,
                            const unsigned char *payload, size_t size, uint64_t expected,
                            unsigned char **result) {
  inflate_buf out = {0};
  const char *method = flags & CUBIND_FATBIN_FLAG_ZSTD ? "Zstandard" : "LZ4";
  int failed;
  if (expected == 0 || expected > CUBIND_MAX_INFLATED) {
    cubind_diag(NULL, 0, 0, "error",
                "'%s': its cubin for sm_%u is compressed (%s) with a decompressed size of %llu "
                "bytes, which cannot be right: the fatbin is damaged",
                name, arch, method, (unsigned long long)expected);
    return 1;
  }
  out.limit = (size_t)expected;
  failed = flags & CUBIND_FATBIN_FLAG_ZSTD ? zstd_decode(payload, size, &out)
                                           : lz4_decode(payload, size, &out);
  if (failed || out.length != expected) {
    cubind_diag(NULL, 0, 0, "error",
                "'%s': its cubin for sm_%u is compressed (%s) but does not decompress to the %llu "
                "bytes its header gives: the fatbin is damaged",
                name, arch, method, (unsigned long long)expected);
    free(out.data);
    return 1;
  }
  *result = out.data;
  return 0;
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
        unsigned char *inflated = NULL;
        uint64_t flags = entry_header >= 64 ? read_u64(data + entry + 40) : 0, size_of = payload;
        int failed;
        if (flags & (CUBIND_FATBIN_FLAG_LZ4 | CUBIND_FATBIN_FLAG_ZSTD)) {
          uint64_t compressed = read_u32(data + entry + 16);
          if (compressed > payload ||
              (flags & CUBIND_FATBIN_FLAG_LZ4 && flags & CUBIND_FATBIN_FLAG_ZSTD))
            goto malformed;
          size_of = read_u64(data + entry + 56);
          if (decompress_entry(name, arch, flags, cubin, (size_t)(compressed ? compressed : payload),
                               size_of, &inflated))
            return 1;
          cubin = inflated;
        } else if (payload < SELFMAG || memcmp(cubin, ELFMAG, SELFMAG) != 0) {
          cubind_diag(NULL, 0, 0, "error",
                      "'%s': its cubin for sm_%u is neither an ELF file nor compressed in a way "
                      "cubind-gen knows (entry flags 0x%llx)",
                      name, arch, (unsigned long long)flags);
          return 1;
        }
        failed = add_cubin(binary, name, cubin, (size_t)size_of, arch);
        free(inflated);
        if (failed)
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
