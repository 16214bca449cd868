/*
 * cubind_fatbin_format.h: the one description of nvcc's fatbin container, for every part of
 * cubind that reads or writes one (the runtime's "no code for this GPU" message, cubind-gen's
 * --kernels-from reader, the fake driver and the synthetic fatbins of the tests and benchmarks).
 * Header-only, C99 and C++, no allocation; every read is checked against the size given.
 *
 * Layout (little-endian; as nvcc 11.x-13.x write it, e.g. `nvcc -fatbin`):
 *
 *   container header (CUBIND_FATBIN_CONTAINER_SIZE = 16 bytes)
 *     0  u32  magic, CUBIND_FATBIN_MAGIC
 *     4  u16  version (1)
 *     6  u16  header size (16): the first entry starts there
 *     8  u64  size of the entries that follow the header
 *   entries, back to back; each a header of at least CUBIND_FATBIN_ENTRY_MIN = 32 bytes (nvcc
 *   writes 64, and 80 or 112 for some newer targets) followed by its payload:
 *     0  u16  kind, CUBIND_FATBIN_KIND_PTX or CUBIND_FATBIN_KIND_ELF (a cubin)
 *     2  u16  version (0x0101)
 *     4  u32  header size: the payload starts there
 *     8  u64  payload size: the next entry starts after it (compressed payloads are padded to
 *             8 bytes)
 *    16  u32  compressed size: a compressed payload's length before that padding
 *    28  u32  architecture: 80 for sm_80 / compute_80
 *    40  u64  flags, CUBIND_FATBIN_FLAG_* (headers of at least 48 bytes)
 *    56  u64  uncompressed size of a compressed payload (headers of at least 64 bytes)
 *   A file or section may hold several containers back to back; zero bytes may pad the end.
 *
 * Reading:
 *
 *   cubind_fatbin_reader r;
 *   cubind_fatbin_entry e;
 *   int result;
 *   if (!cubind_fatbin_is_fatbin(data, size)) ...;           (a cubin, or not nvcc's output)
 *   cubind_fatbin_begin(&r, data, size);
 *   while ((result = cubind_fatbin_next(&r, &e)) == CUBIND_FATBIN_ENTRY)
 *     ... e.kind, e.arch, e.flags, e.payload, e.payload_size ...
 *   if (result == CUBIND_FATBIN_MALFORMED) ... r.error, at offset r.error_offset ...
 *
 * The entries before a malformed spot are still handed out, so a reader may report what it
 * found. cubind_fatbin_put_container / cubind_fatbin_put_entry write the two headers (tests,
 * benchmarks).
 */
#ifndef CUBIND_FATBIN_FORMAT_H
#define CUBIND_FATBIN_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CUBIND_FATBIN_MAGIC 0xBA55ED50u
#define CUBIND_FATBIN_CONTAINER_SIZE 16 /* the container header nvcc writes */
#define CUBIND_FATBIN_ENTRY_MIN 32      /* the shortest entry header read (the arch ends at 32) */
#define CUBIND_FATBIN_ENTRY_SIZE 64     /* the entry header nvcc writes for most targets */

/* Entry kinds (u16 at offset 0). */
#define CUBIND_FATBIN_KIND_PTX 1
#define CUBIND_FATBIN_KIND_ELF 2 /* a cubin */

/* Entry flags (u64 at offset 40). */
#define CUBIND_FATBIN_FLAG_64BIT 0x0001ull
#define CUBIND_FATBIN_FLAG_DEBUG 0x0002ull
#define CUBIND_FATBIN_FLAG_LINUX 0x0010ull
#define CUBIND_FATBIN_FLAG_COMPRESSED_LZ4 0x2000ull  /* payload compressed (LZ4; CUDA < 12.8) */
#define CUBIND_FATBIN_FLAG_COMPRESSED_ZSTD 0x8000ull /* payload compressed (zstd; CUDA 12.8+) */
#define CUBIND_FATBIN_FLAG_COMPRESSED                                                              \
  (CUBIND_FATBIN_FLAG_COMPRESSED_LZ4 | CUBIND_FATBIN_FLAG_COMPRESSED_ZSTD)

/* Field offsets in an entry header. */
#define CUBIND_FATBIN_ENTRY_KIND 0
#define CUBIND_FATBIN_ENTRY_VERSION 2
#define CUBIND_FATBIN_ENTRY_HEADER_SIZE 4
#define CUBIND_FATBIN_ENTRY_PAYLOAD_SIZE 8
#define CUBIND_FATBIN_ENTRY_COMPRESSED_SIZE 16
#define CUBIND_FATBIN_ENTRY_ARCH 28
#define CUBIND_FATBIN_ENTRY_FLAGS 40
#define CUBIND_FATBIN_ENTRY_UNCOMPRESSED_SIZE 56

/* Little-endian reads and writes at any alignment (the caller has checked the bounds). */
static inline uint16_t cubind_fatbin_u16(const unsigned char *at) {
  return (uint16_t)(at[0] | at[1] << 8);
}
static inline uint32_t cubind_fatbin_u32(const unsigned char *at) {
  return (uint32_t)at[0] | (uint32_t)at[1] << 8 | (uint32_t)at[2] << 16 | (uint32_t)at[3] << 24;
}
static inline uint64_t cubind_fatbin_u64(const unsigned char *at) {
  return (uint64_t)cubind_fatbin_u32(at) | (uint64_t)cubind_fatbin_u32(at + 4) << 32;
}
static inline void cubind_fatbin_put_le(unsigned char *at, uint64_t value, int bytes) {
  int i;
  for (i = 0; i < bytes; i++)
    at[i] = (unsigned char)(value >> (8 * i));
}

/* One entry, as cubind_fatbin_next hands it out. */
typedef struct cubind_fatbin_entry {
  unsigned kind;                 /* CUBIND_FATBIN_KIND_* (others are passed through) */
  unsigned version;              /* the entry's version field */
  unsigned arch;                 /* 80 for sm_80 */
  uint64_t flags;                /* CUBIND_FATBIN_FLAG_*; 0 if the header is shorter than 48 */
  size_t offset;                 /* of the entry header, from the start of the data */
  size_t header_size;            /* the payload starts this far after `offset` */
  const unsigned char *payload;  /* payload_size bytes, inside the data */
  size_t payload_size;
  size_t compressed_size;        /* compressed payloads: bytes before the padding, else 0 */
  uint64_t uncompressed_size;    /* compressed payloads: the size once inflated (0: unknown) */
} cubind_fatbin_entry;

/* cubind_fatbin_next's results. */
#define CUBIND_FATBIN_ENTRY 1      /* *entry is the next entry */
#define CUBIND_FATBIN_END 0        /* no more entries: the data ended cleanly */
#define CUBIND_FATBIN_MALFORMED -1 /* truncated or inconsistent: reader.error says what, where */

/* A walk over the entries of every container of one fatbin. Fields are read-only to callers. */
typedef struct cubind_fatbin_reader {
  const unsigned char *data;
  size_t size;
  size_t next;          /* the next entry's (or, between containers, the next container's) offset */
  size_t entries_end;   /* the end of the current container's entries */
  int in_container;     /* 0 between containers */
  int result;           /* the last result; CUBIND_FATBIN_ENTRY until the walk ends */
  unsigned containers;  /* containers entered so far */
  const char *error;    /* CUBIND_FATBIN_MALFORMED: what is wrong ("entry header truncated") */
  size_t error_offset;  /* ... and the offset of the header it is about */
} cubind_fatbin_reader;

/* 1 if data[0..size) starts like a fatbin (the container magic), else 0. */
static inline int cubind_fatbin_is_fatbin(const void *data, size_t size) {
  return data && size >= 4 && cubind_fatbin_u32((const unsigned char *)data) == CUBIND_FATBIN_MAGIC;
}

/* Starts a walk over data[0..size). */
static inline void cubind_fatbin_begin(cubind_fatbin_reader *reader, const void *data, size_t size) {
  memset(reader, 0, sizeof *reader);
  reader->data = (const unsigned char *)data;
  reader->size = data ? size : 0;
  reader->result = CUBIND_FATBIN_ENTRY;
}

static inline int cubind_fatbin_malformed_(cubind_fatbin_reader *reader, const char *error,
                                           size_t offset) {
  reader->error = error;
  reader->error_offset = offset;
  return reader->result = CUBIND_FATBIN_MALFORMED;
}

/*
 * Hands out the next entry into *entry: CUBIND_FATBIN_ENTRY, or CUBIND_FATBIN_END after the
 * last one (trailing zero bytes are padding), or CUBIND_FATBIN_MALFORMED where a header is
 * truncated, has a bad magic or size, or a payload runs past its container. After END or
 * MALFORMED every further call returns the same.
 */
static inline int cubind_fatbin_next(cubind_fatbin_reader *reader, cubind_fatbin_entry *entry) {
  const unsigned char *d = reader->data;
  if (reader->result != CUBIND_FATBIN_ENTRY) return reader->result;
  for (;;) {
    size_t at = reader->next, room;
    uint64_t header_size, payload_size;
    if (!reader->in_container) {
      uint64_t container_header, entries;
      if (at >= reader->size) return reader->result = CUBIND_FATBIN_END;
      if (reader->size - at < CUBIND_FATBIN_CONTAINER_SIZE ||
          cubind_fatbin_u32(d + at) != CUBIND_FATBIN_MAGIC) {
        size_t pad = at;
        while (pad < reader->size && d[pad] == 0)
          pad++;
        if (pad == reader->size) return reader->result = CUBIND_FATBIN_END;
        return cubind_fatbin_malformed_(reader,
                                        reader->size - at < CUBIND_FATBIN_CONTAINER_SIZE
                                            ? "container header truncated"
                                            : "no container magic",
                                        at);
      }
      container_header = cubind_fatbin_u16(d + at + 6);
      entries = cubind_fatbin_u64(d + at + 8);
      room = reader->size - at;
      if (container_header < CUBIND_FATBIN_CONTAINER_SIZE || container_header > room)
        return cubind_fatbin_malformed_(reader, "bad container header size", at);
      if (entries > room - container_header)
        return cubind_fatbin_malformed_(reader, "container runs past the end of the data", at);
      reader->next = at + (size_t)container_header;
      reader->entries_end = reader->next + (size_t)entries;
      reader->in_container = 1;
      reader->containers++;
      continue;
    }
    if (at >= reader->entries_end) { /* the container is done; the next one may follow */
      reader->in_container = 0;
      continue;
    }
    room = reader->entries_end - at;
    if (room < CUBIND_FATBIN_ENTRY_MIN)
      return cubind_fatbin_malformed_(reader, "entry header truncated", at);
    header_size = cubind_fatbin_u32(d + at + CUBIND_FATBIN_ENTRY_HEADER_SIZE);
    payload_size = cubind_fatbin_u64(d + at + CUBIND_FATBIN_ENTRY_PAYLOAD_SIZE);
    if (header_size < CUBIND_FATBIN_ENTRY_MIN || header_size > room)
      return cubind_fatbin_malformed_(reader, "bad entry header size", at);
    if (payload_size > room - header_size)
      return cubind_fatbin_malformed_(reader, "entry payload runs past its container", at);
    memset(entry, 0, sizeof *entry);
    entry->kind = cubind_fatbin_u16(d + at + CUBIND_FATBIN_ENTRY_KIND);
    entry->version = cubind_fatbin_u16(d + at + CUBIND_FATBIN_ENTRY_VERSION);
    entry->arch = cubind_fatbin_u32(d + at + CUBIND_FATBIN_ENTRY_ARCH);
    if (header_size >= CUBIND_FATBIN_ENTRY_FLAGS + 8)
      entry->flags = cubind_fatbin_u64(d + at + CUBIND_FATBIN_ENTRY_FLAGS);
    entry->offset = at;
    entry->header_size = (size_t)header_size;
    entry->payload = d + at + (size_t)header_size;
    entry->payload_size = (size_t)payload_size;
    if (entry->flags & CUBIND_FATBIN_FLAG_COMPRESSED) {
      entry->compressed_size = cubind_fatbin_u32(d + at + CUBIND_FATBIN_ENTRY_COMPRESSED_SIZE);
      if (entry->compressed_size > entry->payload_size) entry->compressed_size = 0;
      if (header_size >= CUBIND_FATBIN_ENTRY_UNCOMPRESSED_SIZE + 8)
        entry->uncompressed_size =
            cubind_fatbin_u64(d + at + CUBIND_FATBIN_ENTRY_UNCOMPRESSED_SIZE);
    }
    reader->next = at + (size_t)header_size + (size_t)payload_size;
    return CUBIND_FATBIN_ENTRY;
  }
}

/* "PTX", "cubin" or "unknown kind", for messages. */
static inline const char *cubind_fatbin_kind_name(unsigned kind) {
  return kind == CUBIND_FATBIN_KIND_PTX ? "PTX" : kind == CUBIND_FATBIN_KIND_ELF ? "cubin"
                                                                                 : "unknown kind";
}

/* 1 if the entry's payload is compressed (by its flags). */
static inline int cubind_fatbin_compressed(const cubind_fatbin_entry *entry) {
  return (entry->flags & CUBIND_FATBIN_FLAG_COMPRESSED) != 0;
}

/* Writes a container header (16 bytes at `at`) for `entries_size` bytes of entries. */
static inline void cubind_fatbin_put_container(unsigned char *at, uint64_t entries_size) {
  cubind_fatbin_put_le(at, CUBIND_FATBIN_MAGIC, 4);
  cubind_fatbin_put_le(at + 4, 1, 2);
  cubind_fatbin_put_le(at + 6, CUBIND_FATBIN_CONTAINER_SIZE, 2);
  cubind_fatbin_put_le(at + 8, entries_size, 8);
}

/*
 * Writes an entry header of `header_size` bytes at `at` (zero-filled, then the fields; header
 * sizes below 48 get no flags) for a payload of `payload_size` bytes that follows it.
 */
static inline void cubind_fatbin_put_entry(unsigned char *at, size_t header_size, unsigned kind,
                                           unsigned arch, uint64_t payload_size, uint64_t flags) {
  memset(at, 0, header_size);
  cubind_fatbin_put_le(at + CUBIND_FATBIN_ENTRY_KIND, kind, 2);
  cubind_fatbin_put_le(at + CUBIND_FATBIN_ENTRY_VERSION, 0x0101, 2);
  cubind_fatbin_put_le(at + CUBIND_FATBIN_ENTRY_HEADER_SIZE, header_size, 4);
  cubind_fatbin_put_le(at + CUBIND_FATBIN_ENTRY_PAYLOAD_SIZE, payload_size, 8);
  cubind_fatbin_put_le(at + CUBIND_FATBIN_ENTRY_ARCH, arch, 4);
  if (header_size >= CUBIND_FATBIN_ENTRY_FLAGS + 8)
    cubind_fatbin_put_le(at + CUBIND_FATBIN_ENTRY_FLAGS, flags, 8);
}

#ifdef __cplusplus
}
#endif

#endif /* CUBIND_FATBIN_FORMAT_H */
