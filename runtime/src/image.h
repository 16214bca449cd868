/*
 * image.h (image.c): embedded fatbins ("images") loaded once per device. Every module that
 * points at the same image (the separable-compilation case: several .cu files, one fatbin)
 * shares its record, its loaded CUmodule on each device, and its lock.
 */
#ifndef CUBIND_IMAGE_H
#define CUBIND_IMAGE_H

#include <pthread.h>

#include "internal.h"

/* One image on one device: what was loaded there, and the device's limits for launches. */
typedef struct cubind__image_slot {
  int loaded;        /* 0 until committed (release store, under the image's lock) */
  CUcontext context; /* the context it was loaded in (and its kernels resolved in) */
  CUmodule cumodule; /* the loaded image */
  unsigned max_block[3], max_grid[3];
  int optin_shared; /* MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, for resolving kernels */
} cubind__image_slot;

/* One image, shared by the modules that point at it; never freed. */
typedef struct cubind__image {
  const unsigned char *bytes; /* the identity: the embedded fatbin's address */
  size_t size;
  pthread_mutex_t lock; /* serialises loading, and resolving the kernels and variables of every
                           module of this image; never on the launch path */
  struct cubind__image *next;
  int num_devices;
  cubind__image_slot slots[]; /* num_devices */
} cubind__image;

/*
 * cubind__image_of: the record of `module`'s image (module->image), created at the first use
 * of any module that points at it. Takes a process-wide lock: the first-use path only.
 */
CUBIND_INTERNAL cubind_status cubind__image_of(const char *what, const cubind_module *module,
                                               cubind__image **out);

/*
 * cubind__image_enter: locks `image` and makes sure it is loaded on `device` in `ctx` (current):
 * *slot is its slot there. A slot loaded by this call is not committed yet (slot->loaded == 0):
 * the caller resolves what it needs, commits it (cubind__image_commit) if that worked, and
 * leaves (cubind__image_leave), which unloads a slot left uncommitted: nothing stays loaded
 * after a failed first use. Fails (lock released) when the load fails, or when the image was
 * loaded on this device in another context. `module` is the module whose use loads it (named
 * in messages).
 */
CUBIND_INTERNAL cubind_status cubind__image_enter(const char *what, const cubind_module *module,
                                                  cubind__image *image, CUcontext ctx, int device,
                                                  cubind__image_slot **slot);

/* cubind__image_commit: makes an entered slot's load permanent (a no-op if it already is). */
static inline void cubind__image_commit(cubind__image_slot *slot) {
  if (!slot->loaded) __atomic_store_n(&slot->loaded, 1, __ATOMIC_RELEASE);
}

/* cubind__image_leave: unloads the slot if it is not committed, and unlocks the image. */
CUBIND_INTERNAL void cubind__image_leave(cubind__image *image, cubind__image_slot *slot);

/*
 * cubind__image_failure: reports the failure `r` of `call` while loading `module`'s image on
 * `device`, or resolving from it; CUDA_ERROR_NO_BINARY_FOR_GPU names the device's architecture
 * and the ones the fatbin holds.
 */
CUBIND_INTERNAL cubind_status cubind__image_failure(const char *what, const cubind_module *module,
                                                    int device, const char *call, CUresult r);

/*
 * cubind__fatbin_archs: writes "sm_80 (cubin), sm_90 (PTX)"-style text for the architectures a
 * fatbin holds into buf (always terminated). Reads at most `size` bytes of `image`.
 */
CUBIND_INTERNAL void cubind__fatbin_archs(const unsigned char *image, size_t size, char *buf,
                                          size_t buf_size);

#endif /* CUBIND_IMAGE_H */
