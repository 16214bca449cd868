/*
 * test_fatbin_format.c (common/cubind_fatbin_format.h): the one reader and writer of nvcc's
 * fatbin container: entries of one and of several containers, zero padding, each malformed
 * header reported where it is, every truncation read within bounds (valgrind, ASan), the
 * compression flags, and nvcc's own output (plain and -compress-all) when the build made it.
 */
#include "test_support.h"

/* Walks data[0..size) into arrays of kinds and archs; returns the final result. */
static int walk(const unsigned char *data, size_t size, unsigned *kinds, unsigned *archs,
                size_t *count, cubind_fatbin_reader *reader) {
  cubind_fatbin_entry e;
  int result;
  *count = 0;
  cubind_fatbin_begin(reader, data, size);
  while ((result = cubind_fatbin_next(reader, &e)) == CUBIND_FATBIN_ENTRY) {
    assert_true(e.payload >= data && e.payload + e.payload_size <= data + size);
    assert_true(e.offset + e.header_size + e.payload_size <= size);
    if (*count < 16) {
      kinds[*count] = e.kind;
      archs[*count] = e.arch;
    }
    (*count)++;
  }
  assert_int_equal(cubind_fatbin_next(reader, &e), result); /* it stays ended */
  return result;
}

static void entries(void **state) {
  unsigned char buf[1024];
  unsigned kinds[16], archs[16];
  size_t n, size = build_fatbin(buf, sizeof buf);
  cubind_fatbin_reader r;
  cubind_fatbin_entry e;
  (void)state;
  assert_true(cubind_fatbin_is_fatbin(buf, size));
  assert_false(cubind_fatbin_is_fatbin(buf, 3));
  assert_false(cubind_fatbin_is_fatbin("\x7f" "ELF", 4));
  assert_false(cubind_fatbin_is_fatbin(NULL, 16));
  assert_int_equal(size, 16 + 3 * (64 + 16));
  assert_int_equal(walk(buf, size, kinds, archs, &n, &r), CUBIND_FATBIN_END);
  assert_int_equal(n, 3);
  assert_int_equal(r.containers, 1);
  assert_int_equal(kinds[0], CUBIND_FATBIN_KIND_ELF);
  assert_int_equal(archs[0], 80);
  assert_int_equal(kinds[2], CUBIND_FATBIN_KIND_PTX);
  assert_int_equal(archs[2], 90);
  cubind_fatbin_begin(&r, buf, size);
  assert_int_equal(cubind_fatbin_next(&r, &e), CUBIND_FATBIN_ENTRY);
  assert_int_equal(e.offset, 16);
  assert_int_equal(e.header_size, 64);
  assert_int_equal(e.payload_size, 16);
  assert_ptr_equal(e.payload, buf + 16 + 64);
  assert_int_equal(e.version, 0x0101);
  assert_int_equal(e.flags, CUBIND_FATBIN_FLAG_64BIT | CUBIND_FATBIN_FLAG_LINUX);
  assert_false(cubind_fatbin_compressed(&e));
  assert_string_equal(cubind_fatbin_kind_name(e.kind), "cubin");
  assert_string_equal(cubind_fatbin_kind_name(CUBIND_FATBIN_KIND_PTX), "PTX");
  assert_string_equal(cubind_fatbin_kind_name(7), "unknown kind");
  /* two containers, then zero padding (as in a section of a linked program) */
  memcpy(buf + size, buf, size);
  memset(buf + 2 * size, 0, 40);
  assert_int_equal(walk(buf, 2 * size + 40, kinds, archs, &n, &r), CUBIND_FATBIN_END);
  assert_int_equal(n, 6);
  assert_int_equal(r.containers, 2);
  /* an empty container */
  cubind_fatbin_put_container(buf, 0);
  assert_int_equal(walk(buf, 16, kinds, archs, &n, &r), CUBIND_FATBIN_END);
  assert_int_equal(n, 0);
}

/* Each kind of damage: reported with what and where; the entries before it still come out. */
static void malformed(void **state) {
  unsigned char good[512], buf[512];
  unsigned kinds[16], archs[16];
  size_t n, size = build_fatbin(good, sizeof good);
  cubind_fatbin_reader r;
  (void)state;
#define DAMAGE(offset, value, bytes)                                                               \
  (memcpy(buf, good, sizeof buf), cubind_fatbin_put_le(buf + (offset), (value), (bytes)))
  DAMAGE(6, 8, 2); /* container header shorter than 16 */
  assert_int_equal(walk(buf, size, kinds, archs, &n, &r), CUBIND_FATBIN_MALFORMED);
  assert_string_equal(r.error, "bad container header size");
  assert_int_equal(r.error_offset, 0);
  DAMAGE(8, size, 8); /* entries past the end */
  assert_int_equal(walk(buf, size, kinds, archs, &n, &r), CUBIND_FATBIN_MALFORMED);
  assert_string_equal(r.error, "container runs past the end of the data");
  DAMAGE(96 + 4, 16, 4); /* the second entry's header shorter than 32 */
  assert_int_equal(walk(buf, size, kinds, archs, &n, &r), CUBIND_FATBIN_MALFORMED);
  assert_string_equal(r.error, "bad entry header size");
  assert_int_equal(r.error_offset, 96);
  assert_int_equal(n, 1);
  DAMAGE(176 + 8, 17, 8); /* the third entry's payload one byte past its container */
  assert_int_equal(walk(buf, size, kinds, archs, &n, &r), CUBIND_FATBIN_MALFORMED);
  assert_string_equal(r.error, "entry payload runs past its container");
  assert_int_equal(n, 2);
  DAMAGE(8, size - 16 + 8, 8); /* 8 bytes of entries that are no entry, past the third */
  memset(buf + size, 0, 8);
  assert_int_equal(walk(buf, size + 8, kinds, archs, &n, &r), CUBIND_FATBIN_MALFORMED);
  assert_string_equal(r.error, "entry header truncated");
  assert_int_equal(n, 3);
  memcpy(buf, good, size); /* garbage after the container */
  memcpy(buf + size, "junk", 4);
  assert_int_equal(walk(buf, size + 4, kinds, archs, &n, &r), CUBIND_FATBIN_MALFORMED);
  assert_string_equal(r.error, "container header truncated");
  memset(buf + size, 0x11, 32);
  assert_int_equal(walk(buf, size + 32, kinds, archs, &n, &r), CUBIND_FATBIN_MALFORMED);
  assert_string_equal(r.error, "no container magic");
  assert_int_equal(r.error_offset, size);
#undef DAMAGE
}

/* Every prefix of a fatbin, each in a buffer of exactly its size: no read past it. */
static void truncations(void **state) {
  unsigned char good[512];
  unsigned kinds[16], archs[16];
  size_t n, len, size = build_fatbin(good, sizeof good);
  cubind_fatbin_reader r;
  (void)state;
  for (len = 0; len <= size; len++) {
    unsigned char *exact = malloc(len ? len : 1);
    memcpy(exact, good, len);
    (void)walk(exact, len, kinds, archs, &n, &r);
    assert_true(n <= 3);
    free(exact);
  }
}

static void compression_flags(void **state) {
  unsigned char buf[256];
  cubind_fatbin_reader r;
  cubind_fatbin_entry e;
  (void)state;
  cubind_fatbin_put_entry(buf + 16, 64, CUBIND_FATBIN_KIND_ELF, 90, 24,
                          CUBIND_FATBIN_FLAG_COMPRESSED_ZSTD | CUBIND_FATBIN_FLAG_64BIT);
  cubind_fatbin_put_le(buf + 16 + CUBIND_FATBIN_ENTRY_COMPRESSED_SIZE, 21, 4);
  cubind_fatbin_put_le(buf + 16 + CUBIND_FATBIN_ENTRY_UNCOMPRESSED_SIZE, 4096, 8);
  cubind_fatbin_put_entry(buf + 16 + 88, 64, CUBIND_FATBIN_KIND_PTX, 90, 8,
                          CUBIND_FATBIN_FLAG_COMPRESSED_LZ4);
  cubind_fatbin_put_entry(buf + 16 + 160, 32, CUBIND_FATBIN_KIND_ELF, 75, 0, 0xFFFF);
  cubind_fatbin_put_container(buf, 88 + 72 + 32);
  cubind_fatbin_begin(&r, buf, 16 + 88 + 72 + 32);
  assert_int_equal(cubind_fatbin_next(&r, &e), CUBIND_FATBIN_ENTRY);
  assert_true(cubind_fatbin_compressed(&e));
  assert_int_equal(e.compressed_size, 21);
  assert_int_equal(e.uncompressed_size, 4096);
  assert_int_equal(cubind_fatbin_next(&r, &e), CUBIND_FATBIN_ENTRY);
  assert_true(cubind_fatbin_compressed(&e));
  assert_int_equal(e.flags, CUBIND_FATBIN_FLAG_COMPRESSED_LZ4);
  assert_int_equal(cubind_fatbin_next(&r, &e), CUBIND_FATBIN_ENTRY);
  assert_int_equal(e.flags, 0); /* a 32-byte header has no flags */
  assert_false(cubind_fatbin_compressed(&e));
  assert_int_equal(cubind_fatbin_next(&r, &e), CUBIND_FATBIN_END);
}

/* Reads a whole file (test data the build wrote); NULL if it cannot. */
static unsigned char *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  unsigned char *data = NULL;
  long length;
  if (!f) return NULL;
  if (fseek(f, 0, SEEK_END) == 0 && (length = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
      (data = malloc((size_t)length)) && fread(data, 1, (size_t)length, f) != (size_t)length) {
    free(data);
    data = NULL;
  }
  fclose(f);
  *size = data ? (size_t)length : 0;
  return data;
}

/*
 * nvcc's fatbins of one kernel for sm_80 and sm_90 (cubins) and compute_90 (PTX): the same
 * entries plain and with -Xfatbin -compress-all; uncompressed cubins start with the ELF magic.
 */
static void nvcc_output(void **state) {
#if defined(NVCC_FATBIN_PLAIN) && defined(NVCC_FATBIN_COMPRESSED)
  static const char *const paths[2] = {NVCC_FATBIN_PLAIN, NVCC_FATBIN_COMPRESSED};
  int i;
  (void)state;
  for (i = 0; i < 2; i++) {
    size_t size = 0, elf = 0, ptx = 0;
    unsigned char *data = read_file(paths[i], &size);
    cubind_fatbin_reader r;
    cubind_fatbin_entry e;
    int result;
    if (!data) fail_msg("cannot read %s", paths[i]);
    assert_true(cubind_fatbin_is_fatbin(data, size));
    cubind_fatbin_begin(&r, data, size);
    while ((result = cubind_fatbin_next(&r, &e)) == CUBIND_FATBIN_ENTRY) {
      assert_true(e.arch == 80 || e.arch == 90);
      if (e.kind == CUBIND_FATBIN_KIND_ELF) {
        elf++;
        assert_int_equal(cubind_fatbin_compressed(&e), i == 1);
        if (i == 0) assert_memory_equal(e.payload, "\x7f" "ELF", 4);
        if (i == 1) assert_true(e.compressed_size > 0 && e.uncompressed_size > e.compressed_size);
      } else {
        assert_int_equal(e.kind, CUBIND_FATBIN_KIND_PTX);
        ptx++;
      }
    }
    assert_int_equal(result, CUBIND_FATBIN_END);
    assert_int_equal(elf, 2);
    assert_int_equal(ptx, 1);
    free(data);
  }
#else
  (void)state;
  (void)read_file;
  skip();
#endif
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(entries),      cmocka_unit_test(malformed),   cmocka_unit_test(truncations),
      cmocka_unit_test(compression_flags), cmocka_unit_test(nvcc_output),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
