/*
 * driver.h (driver.c): the CUDA driver, loaded at run time: its entry points (one member per
 * line of driver_api.h), its one-time initialisation, the device count and the driver's names
 * for its results.
 */
#ifndef CUBIND_DRIVER_H
#define CUBIND_DRIVER_H

#include <cudaTypedefs.h>

#include "driver_api.h"
#include "internal.h"

/* The resolved entry points; one member per line of driver_api.h (optional ones may be NULL). */
typedef struct cubind__driver_table {
#define CUBIND_DRIVER_MEMBER_(name, version) PFN_##name##_v##version name;
  CUBIND_DRIVER_API(CUBIND_DRIVER_MEMBER_, CUBIND_DRIVER_MEMBER_)
#undef CUBIND_DRIVER_MEMBER_
} cubind__driver_table;

/* Filled once by cubind__driver_ready(); read-only afterwards. */
extern cubind__driver_table cubind__drv CUBIND_INTERNAL;

/*
 * cubind__driver_ready: loads and initialises the driver on first use (once per process).
 * Returns CUBIND_SUCCESS, or the remembered init failure with the calling thread's last error set
 * to the init message. `what` names the public call for the message ("cubind_malloc").
 */
CUBIND_INTERNAL cubind_status cubind__driver_ready(const char *what);

/* 1 once the driver is initialised; written once with release semantics. */
extern int cubind__ready CUBIND_INTERNAL;

/* cubind__driver_loaded: 1 once the driver is initialised (the launch fast path's check). */
static inline int cubind__driver_loaded(void) {
  return __atomic_load_n(&cubind__ready, __ATOMIC_ACQUIRE);
}

/* cubind__device_count: the number of devices, known once the driver is ready. */
CUBIND_INTERNAL int cubind__device_count(void);

/*
 * cubind__cuda_error_text: "CUDA_ERROR_NAME (description)" for `result` from the driver's own
 * tables, or "CUDA error <number>" when the driver has no name for it (or is not loaded).
 */
CUBIND_INTERNAL void cubind__cuda_error_text(CUresult result, char *buf, size_t size);

#endif /* CUBIND_DRIVER_H */
