/*
 * internal.h: the conventions every runtime source shares (hidden symbols, thread-local storage,
 * branch hints). Nothing here is public: every internal function is named cubind__* and hidden
 * from the shared library's exported symbols. Each source file's own interface is in the header
 * of the same name (driver.h for driver.c, ...); docs/architecture.md draws the layers.
 */
#ifndef CUBIND_INTERNAL_H
#define CUBIND_INTERNAL_H

#include <cuda.h>
#include <stddef.h>
#include <stdint.h>

#include <cubind/cubind.h>
#include <cubind/generated.h>

#define CUBIND_INTERNAL __attribute__((visibility("hidden")))

/* Thread-local storage (a GNU extension that gcc and clang accept in C99). */
#define CUBIND_THREAD_LOCAL __thread

/*
 * For the few bytes the launch path touches: initial-exec TLS is read without a __tls_get_addr
 * call, even in the shared library (glibc keeps spare static TLS for such dlopen'ed libraries).
 */
#define CUBIND_FAST_TLS __attribute__((visibility("hidden"), tls_model("initial-exec")))

/* Out of line and out of the way: the failure and first-use paths. */
#define CUBIND_COLD __attribute__((noinline, cold))

/* Branch hints for the launch fast path. */
#define CUBIND_LIKELY(x) __builtin_expect(!!(x), 1)
#define CUBIND_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Streams in messages: "0x0" for the legacy default stream rather than glibc's "(nil)". */
#define CUBIND_STREAM_ARG(stream) ((unsigned long long)(uintptr_t)(stream))

/* Long enough for a launch message with a module, kernel and a CUDA error description. */
#define CUBIND_MESSAGE_SIZE 1024

#endif /* CUBIND_INTERNAL_H */
