/*
 * image.c: embedded fatbins loaded once per device and shared by every module that points at
 * them; the "no code for this GPU" message with the architectures the fatbin holds.
 *
 * An image's record is created at the first use of any of its modules (under a process-wide
 * lock) and holds one slot per device. A slot is loaded under the image's own lock and
 * committed with a release store of slot->loaded once its first user has resolved what it
 * needed (cubind__image_leave); a failed first use unloads it again. Loaded images stay loaded
 * until the process exits.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "cubind_fatbin_format.h"
#include "driver.h"
#include "error.h"
#include "image.h"
#include "result.h"

static pthread_mutex_t images_lock = PTHREAD_MUTEX_INITIALIZER;
static cubind__image *images; /* under images_lock */

cubind_status cubind__image_of(const char *what, const cubind_module *module,
                               cubind__image **out) {
  cubind__image *image;
  int n = cubind__device_count();
  pthread_mutex_lock(&images_lock);
  for (image = images; image; image = image->next)
    if (image->bytes == module->image) break;
  if (!image) {
    image = calloc(1, sizeof *image + (size_t)n * sizeof image->slots[0]);
    if (image && pthread_mutex_init(&image->lock, NULL) != 0) {
      free(image);
      image = NULL;
    }
    if (image) {
      image->bytes = module->image;
      image->size = module->image_size ? *module->image_size : 0;
      image->num_devices = n;
      image->next = images;
      images = image;
    }
  }
  pthread_mutex_unlock(&images_lock);
  if (!image)
    return cubind__fail(CUBIND_ERROR_OUT_OF_MEMORY, "%s: loading module %s: out of host memory",
                        what, module->name);
  *out = image;
  return CUBIND_SUCCESS;
}

/* ---- the architectures of a fatbin (for the "no code for this GPU" message) ---------------- */

void cubind__fatbin_archs(const unsigned char *image, size_t size, char *buf, size_t buf_size) {
  cubind_fatbin_reader reader;
  cubind_fatbin_entry entry;
  size_t used = 0;
  int found = 0, result;
  if (buf_size == 0) return;
  buf[0] = '\0';
  if (!cubind_fatbin_is_fatbin(image, size)) {
    snprintf(buf, buf_size, "no recognisable architectures (not a fatbin?)");
    return;
  }
  cubind_fatbin_begin(&reader, image, size);
  while ((result = cubind_fatbin_next(&reader, &entry)) == CUBIND_FATBIN_ENTRY) {
    if (used < buf_size) {
      int n = snprintf(buf + used, buf_size - used, "%ssm_%u (%s)", found ? ", " : "", entry.arch,
                       cubind_fatbin_kind_name(entry.kind));
      used += n > 0 ? (size_t)n : 0;
    }
    found = 1;
  }
  if (!found)
    snprintf(buf, buf_size, "no recognisable architectures (%s)",
             result == CUBIND_FATBIN_MALFORMED ? reader.error : "no entries");
  else if (result == CUBIND_FATBIN_MALFORMED && used < buf_size)
    snprintf(buf + used, buf_size - used, ", then malformed data (%s)", reader.error);
}

/* ---- loading ------------------------------------------------------------------------------- */

cubind_status cubind__image_failure(const char *what, const cubind_module *module, int device,
                                    const char *call, CUresult r) {
  char archs[256];
  int major = 0, minor = 0;
  CUdevice dev;
  if (r != CUDA_ERROR_NO_BINARY_FOR_GPU)
    return cubind__fail_cuda(r, CUBIND_ERROR_MODULE_LOAD,
                             "%s: %s failed loading module %s on device %d", what, call,
                             module->name, device);
  cubind__fatbin_archs(module->image, module->image_size ? *module->image_size : 0, archs,
                       sizeof archs);
  /* Best effort: the message is still useful if the capability cannot be read. */
  if (cubind__drv.cuDeviceGet(&dev, device) != CUDA_SUCCESS ||
      cubind__drv.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) !=
          CUDA_SUCCESS ||
      cubind__drv.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) !=
          CUDA_SUCCESS)
    major = minor = 0;
  return cubind__fail_cuda(r, CUBIND_ERROR_MODULE_LOAD,
                           "%s: %s failed: module %s has no code for device %d (sm_%d%d); its "
                           "fatbin holds %s; rebuild it for this architecture (add_gpu_kernels "
                           "ARCHS %d%d, or PTX)",
                           what, call, module->name, device, major, minor, archs, major, minor);
}

/* Reads one device attribute, reporting a failure against the module being loaded. */
static cubind_status device_attribute(const char *what, const cubind_module *module, int device,
                                      CUdevice_attribute attribute, const char *attribute_name,
                                      int *value) {
  CUdevice dev;
  CUresult r = cubind__drv.cuDeviceGet(&dev, device);
  if (r != CUDA_SUCCESS)
    return cubind__fail_cuda(r, CUBIND_ERROR_MODULE_LOAD,
                             "%s: loading module %s on device %d: cuDeviceGet failed", what,
                             module->name, device);
  r = cubind__drv.cuDeviceGetAttribute(value, attribute, dev);
  if (r != CUDA_SUCCESS)
    return cubind__fail_cuda(r, CUBIND_ERROR_MODULE_LOAD,
                             "%s: loading module %s on device %d: cuDeviceGetAttribute(%s) failed",
                             what, module->name, device, attribute_name);
  return CUBIND_SUCCESS;
}

/* Unloads what load() loaded; its own failure would hide the first one: unreported. */
static void unload(cubind__image_slot *slot) {
  if (slot->cumodule) (void)cubind__drv.cuModuleUnload(slot->cumodule);
  slot->cumodule = NULL;
}

/*
 * Loads the image on `device` and reads the device limits into the slot, without committing it
 * (image lock held; ctx current).
 */
static cubind_status load(const char *what, const cubind_module *module, int device,
                          CUcontext ctx, cubind__image_slot *slot) {
  static const struct {
    CUdevice_attribute attribute;
    const char *name;
  } limits[6] = {
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, "MAX_BLOCK_DIM_X"},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, "MAX_BLOCK_DIM_Y"},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, "MAX_BLOCK_DIM_Z"},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, "MAX_GRID_DIM_X"},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, "MAX_GRID_DIM_Y"},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, "MAX_GRID_DIM_Z"},
  };
  cubind_status status = CUBIND_SUCCESS;
  CUmodule cumodule = NULL;
  int values[6], optin_shared = 0;
  unsigned i;
  CUresult r;

  /* cuModuleLoadData, not the library API: measured on a module of 2000 kernels (H100, lazy
     loading, bench/module_load.sh), cuLibraryLoadData took 33 ms and 48 MiB to a first launch
     where cuModuleLoadData took 14 ms and 19 MiB; cubind loads one module per device in the
     context it uses there, so the library's context independence buys nothing */
  r = cubind__drv.cuModuleLoadData(&cumodule, module->image);
  if (r != CUDA_SUCCESS)
    return cubind__image_failure(what, module, device, "cuModuleLoadData", r);
  slot->cumodule = cumodule;

  for (i = 0; i < 6 && status == CUBIND_SUCCESS; i++)
    status =
        device_attribute(what, module, device, limits[i].attribute, limits[i].name, &values[i]);
  if (status == CUBIND_SUCCESS)
    status = device_attribute(what, module, device,
                              CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                              "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN", &optin_shared);
  if (status != CUBIND_SUCCESS) {
    unload(slot);
    return status;
  }
  for (i = 0; i < 3; i++) {
    slot->max_block[i] = (unsigned)values[i];
    slot->max_grid[i] = (unsigned)values[3 + i];
  }
  slot->optin_shared = optin_shared;
  slot->context = ctx;
  return CUBIND_SUCCESS;
}

cubind_status cubind__image_enter(const char *what, const cubind_module *module,
                                  cubind__image *image, CUcontext ctx, int device,
                                  cubind__image_slot **out) {
  cubind__image_slot *slot = &image->slots[device];
  cubind_status status = CUBIND_SUCCESS;
  pthread_mutex_lock(&image->lock);
  if (!__atomic_load_n(&slot->loaded, __ATOMIC_ACQUIRE))
    status = load(what, module, device, ctx, slot);
  else if (slot->context != ctx)
    status = cubind__fail(CUBIND_ERROR_CONTEXT,
                          "%s: module %s was loaded on device %d in another context than the "
                          "calling thread's current one; cubind uses one context per device (the "
                          "primary one, or the first one it is used in)",
                          what, module->name, device);
  if (status != CUBIND_SUCCESS) {
    pthread_mutex_unlock(&image->lock);
    return status;
  }
  *out = slot;
  return CUBIND_SUCCESS;
}

void cubind__image_leave(cubind__image *image, cubind__image_slot *slot) {
  if (!slot->loaded) unload(slot); /* nothing stays loaded after a failed first use */
  pthread_mutex_unlock(&image->lock);
}
