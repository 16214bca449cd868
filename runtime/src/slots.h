/*
 * slots.h (slots.c): a module's runtime state (cubind_module_state.runtime): one slot per kernel
 * and device, one per variable and device, and its shared image. Allocated at the module's first
 * use; read without a lock by the launch path.
 */
#ifndef CUBIND_SLOTS_H
#define CUBIND_SLOTS_H

#include "image.h"
#include "internal.h"

/*
 * What a launch needs of one kernel on one device, resolved on the kernel's first launch there
 * (or by cubind_preload), in one 64-byte cache line: the launch path's checks read nothing else
 * of the module's state. `function` is the publication flag: it is stored last, with release
 * semantics, and only once the image's device slot is committed, so a launch that reads it
 * non-NULL with an acquire load may use every field here.
 */
typedef struct cubind__kernel_slot {
  CUfunction function;          /* NULL until resolved on this device */
  CUcontext context;            /* the context it was resolved in (the image's, on this device) */
  unsigned max_block[3];        /* the device's limits (copies of the image slot's) */
  unsigned max_grid[3];
  unsigned max_threads;         /* cuFuncGetAttribute MAX_THREADS_PER_BLOCK */
  unsigned max_dynamic_shared;  /* dynamic shared memory the launch may ask for */
  unsigned cluster_required[3]; /* the kernel's __cluster_dims__ (all 0: none) */
  unsigned elementwise_grid;    /* <cubind/elementwise.cuh> kernels: the grid of a launch with
                                   cfg NULL (elementwise.c); 0 until its first one. Relaxed
                                   atomics: racing first launches store the same value */
} __attribute__((aligned(64))) cubind__kernel_slot;

/* One __constant__ / __device__ variable on one device: looked up once, published by ptr. */
typedef struct cubind__global_slot {
  CUdeviceptr ptr;   /* 0 until looked up; release-stored after the fields below */
  size_t bytes;      /* the variable's size in the cubin */
  CUcontext context; /* the context it was looked up in */
} cubind__global_slot;

/*
 * A module's state, 64-byte aligned and one cache line long, followed directly by its kernel
 * slots ([device * num_kernels + kernel]: cubind__kernel_slots), so that the launch path finds
 * a kernel's slot with two dependent loads from the descriptor.
 */
typedef struct cubind__module_slots {
  cubind__global_slot *globals; /* [device * num_globals + global] */
  cubind__image *image;         /* shared with every module of the same image */
  int num_devices;
} __attribute__((aligned(64))) cubind__module_slots;

/*
 * The module's state, or NULL before its first use (and for a module without state: one of an
 * older ABI, which cubind__module_check refuses). No lock: one acquire load.
 */
static inline cubind__module_slots *cubind__slots_peek(const cubind_module *module) {
  cubind_module_state *state = module->state;
  if (CUBIND_UNLIKELY(!state)) return NULL;
  return (cubind__module_slots *)__atomic_load_n(&state->runtime, __ATOMIC_ACQUIRE);
}

/* The kernel slots that follow the module's state. */
static inline cubind__kernel_slot *cubind__kernel_slots(cubind__module_slots *slots) {
  return (cubind__kernel_slot *)(slots + 1);
}

/*
 * cubind__kernel_published: the kernel's slot on `device` if the kernel has been resolved
 * there, else NULL. No lock: two acquire loads (plain loads on x86).
 */
static inline const cubind__kernel_slot *cubind__kernel_published(const cubind_module *module,
                                                                  int device,
                                                                  unsigned kernel_index) {
  cubind__module_slots *slots = cubind__slots_peek(module);
  const cubind__kernel_slot *k;
  if (CUBIND_UNLIKELY(!slots)) return NULL;
  k = &cubind__kernel_slots(slots)[(size_t)device * module->num_kernels + kernel_index];
  return CUBIND_LIKELY(__atomic_load_n(&k->function, __ATOMIC_ACQUIRE) != NULL) ? k : NULL;
}

/*
 * cubind__module_check: CUBIND_SUCCESS for a module this runtime can use; else
 * CUBIND_ERROR_VERSION_MISMATCH (generated for another CUBIND_ABI_VERSION: its layout is not
 * this one's) or CUBIND_ERROR_INVALID_VALUE (no state), with a message naming it.
 */
CUBIND_INTERNAL cubind_status cubind__module_check(const char *what, const cubind_module *module);

/* 1 if cubind__module_check would pass (the launch path's inline test). */
static inline int cubind__module_usable(const cubind_module *module) {
  return module->abi_version == CUBIND_ABI_VERSION && module->state != NULL;
}

/*
 * cubind__slots_get: the module's state, created (once, by whichever thread wins the race) at
 * its first use, bound to its image's record; checks the module first (cubind__module_check).
 * The first-use path only.
 */
CUBIND_INTERNAL cubind_status cubind__slots_get(const char *what, const cubind_module *module,
                                                cubind__module_slots **out);

#endif /* CUBIND_SLOTS_H */
