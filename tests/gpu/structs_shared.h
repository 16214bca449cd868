/* structs_shared.h: a C-compatible header that structs.cu and structs.c both include. */
#ifndef CUBIND_TEST_STRUCTS_SHARED_H
#define CUBIND_TEST_STRUCTS_SHARED_H
struct span {
  int offset; /* first element evaluated */
  int length; /* how many */
};
#endif
