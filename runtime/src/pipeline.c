/*
 * pipeline.c: `<kernel>_call` of an element map in chunks (pipeline.h). A call over host arrays
 * otherwise runs three phases one after another (all copies in, the kernel, all copies out);
 * here chunk c goes to stream c % CUBIND_PIPELINE_STREAMS as copies in, the kernel over the
 * chunk (its pointers at the chunk's device buffers, its n the chunk's length), copies out, so
 * that the copy engines of both directions and the multiprocessors work at once and the call
 * runs near the link's rate. Each stream owns one set of chunk buffers in the thread's scratch
 * (scratch.h); a stream's chunks run in order, so the next chunk on it reuses them safely.
 * Chunks are CUBIND_CHUNK_BYTES of the largest element (16 MiB: large enough that a copy runs at
 * the link's rate, small enough that filling and draining the pipeline costs little).
 */
#include <stdint.h>

#include "driver.h"
#include "error.h"
#include "launch.h"
#include "pipeline.h"
#include "result.h"
#include "scratch.h"
#include "staging.h"

#define CUBIND_PIPELINE_STREAMS 3
#define CUBIND_CHUNK_BYTES ((size_t)16 << 20)
#define MAX_REGISTERED 64 /* host arguments that can be registered (a bit mask), as call.c */

#define ALIGN_UP(bytes)                                                                            \
  (((bytes) + CUBIND_SCRATCH_ALIGNMENT - 1) & ~(size_t)(CUBIND_SCRATCH_ALIGNMENT - 1))

static size_t chunk_bytes = CUBIND_CHUNK_BYTES; /* the tests may lower it */

void cubind__set_chunk_bytes(size_t bytes) { chunk_bytes = bytes ? bytes : CUBIND_CHUNK_BYTES; }

size_t cubind__pipeline_chunk(const cubind_elementwise_shape *shape,
                              const cubind_host_arg *host_args, unsigned num_host_args) {
  size_t largest = 1, chunk;
  unsigned i;
  if (!shape->element_map || shape->scratch_index != CUBIND_NO_SCRATCH || num_host_args == 0 ||
      num_host_args > MAX_REGISTERED)
    return 0;
  for (i = 0; i < num_host_args; i++) {
    if (host_args[i].count != shape->n) return 0; /* a table of its own size: one pass */
    if (host_args[i].elem_size > largest) largest = host_args[i].elem_size;
  }
  chunk = chunk_bytes / largest;
  return chunk > 0 && shape->n / 2 > chunk ? chunk : 0;
}

cubind_status cubind__pipeline(const char *what, const cubind_module *module,
                               unsigned kernel_index, const cubind_config *cfg, void **args,
                               const cubind_host_arg *host_args, unsigned num_host_args,
                               const cubind_elementwise_shape *shape, size_t chunk) {
  const cubind__kernel_slot *k = NULL;
  CUstream streams[CUBIND_PIPELINE_STREAMS] = {NULL};
  unsigned long long registered = 0;
  size_t set_bytes = 0, offset, saved_n, done;
  CUdeviceptr base = 0;
  unsigned i, s, c;
  int device = 0;
  CUresult r = CUDA_SUCCESS;
  const char *failed = NULL;
  cubind_status status;

  for (i = 0; i < num_host_args; i++) set_bytes += ALIGN_UP(chunk * host_args[i].elem_size);
  status = cubind__launch_prepare("call", module, kernel_index, cfg, &k, &device);
  if (status == CUBIND_SUCCESS)
    status = cubind__scratch(what, device, k->context, CUBIND_PIPELINE_STREAMS * set_bytes, &base);
  if (status != CUBIND_SUCCESS) return status;

  for (s = 0; s < CUBIND_PIPELINE_STREAMS && !failed; s++)
    if ((r = cubind__drv.cuStreamCreate(&streams[s], CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS) {
      streams[s] = NULL;
      failed = "cuStreamCreate";
    }
  /* after what the caller queued on its stream (the kernel may read device memory it wrote) */
  if (!failed && (r = cubind__drv.cuStreamSynchronize(cfg->stream)) != CUDA_SUCCESS)
    failed = "cuStreamSynchronize of the call's stream";
  for (i = 0; !failed && i < num_host_args; i++)
    if (cubind__staging_register(host_args[i].host, shape->n * host_args[i].elem_size))
      registered |= 1ull << i; /* else: copied plainly */

  saved_n = *(size_t *)args[shape->count_index];
  for (c = 0, done = 0; !failed && status == CUBIND_SUCCESS && done < shape->n; c++) {
    size_t length = shape->n - done < chunk ? shape->n - done : chunk;
    cubind_config on = *cfg;
    CUdeviceptr set = base + (CUdeviceptr)(c % CUBIND_PIPELINE_STREAMS) * set_bytes;
    on.stream = streams[c % CUBIND_PIPELINE_STREAMS];
    for (i = 0, offset = 0; !failed && i < num_host_args; i++) {
      const cubind_host_arg *h = &host_args[i];
      if ((h->direction & CUBIND_DIRECTION_IN) &&
          (r = cubind__drv.cuMemcpyHtoDAsync(set + offset, (char *)h->host + done * h->elem_size,
                                             length * h->elem_size, on.stream)) != CUDA_SUCCESS)
        failed = "cuMemcpyHtoDAsync of a chunk";
      *(void **)args[h->param_index] = (void *)(uintptr_t)(set + offset);
      offset += ALIGN_UP(chunk * h->elem_size);
    }
    *(size_t *)args[shape->count_index] = length;
    if (!failed)
      status = cubind__launch_resolved("call", module, kernel_index, &on, args, k, device);
    for (i = 0, offset = 0; !failed && status == CUBIND_SUCCESS && i < num_host_args; i++) {
      const cubind_host_arg *h = &host_args[i];
      if ((h->direction & CUBIND_DIRECTION_OUT) &&
          (r = cubind__drv.cuMemcpyDtoHAsync((char *)h->host + done * h->elem_size, set + offset,
                                             length * h->elem_size, on.stream)) != CUDA_SUCCESS)
        failed = "cuMemcpyDtoHAsync of a chunk";
      offset += ALIGN_UP(chunk * h->elem_size);
    }
    done += length;
  }
  *(size_t *)args[shape->count_index] = saved_n;

  /* Every path: the streams finish before the buffers are unregistered and the scratch reused. */
  for (s = 0; s < CUBIND_PIPELINE_STREAMS; s++) {
    CUresult synced;
    if (!streams[s]) continue;
    synced = cubind__drv.cuStreamSynchronize(streams[s]);
    if (synced != CUDA_SUCCESS && !failed && status == CUBIND_SUCCESS) {
      r = synced;
      failed = "cuStreamSynchronize of a chunk stream";
    }
    (void)cubind__drv.cuStreamDestroy(streams[s]);
  }
  for (i = 0; registered && i < num_host_args; i++)
    if (registered >> i & 1) {
      CUresult unregistered = cubind__staging_unregister(host_args[i].host);
      if (unregistered != CUDA_SUCCESS && !failed && status == CUBIND_SUCCESS) {
        r = unregistered;
        failed = "cuMemHostUnregister";
      }
    }
  if (failed)
    return cubind__fail_cuda(r, CUBIND_ERROR_CUDA, "%s: in chunks of %zu elements: %s failed",
                             what, chunk, failed);
  return status;
}
