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
 * Large pageable buffers go through the staging threads instead (run_staged): the copies are
 * then the threads' memcpy, so each step copies one chunk in and the last one out at once while
 * the kernel of the last one runs.
 */
#include <stdint.h>
#include <string.h>

#include "driver.h"
#include "error.h"
#include "hostcopy.h"
#include "launch.h"
#include "pipeline.h"
#include "result.h"
#include "scratch.h"
#include "staging.h"

#define CUBIND_PIPELINE_STREAMS 3
#define CUBIND_CHUNK_BYTES ((size_t)16 << 20)

#define ALIGN_UP(bytes)                                                                            \
  (((bytes) + CUBIND_SCRATCH_ALIGNMENT - 1) & ~(size_t)(CUBIND_SCRATCH_ALIGNMENT - 1))

static size_t chunk_bytes = CUBIND_CHUNK_BYTES; /* the tests may lower it */

void cubind__set_chunk_bytes(size_t bytes) { chunk_bytes = bytes ? bytes : CUBIND_CHUNK_BYTES; }

size_t cubind__pipeline_chunk(const cubind_elementwise_shape *shape,
                              const cubind_host_arg *host_args, unsigned num_host_args) {
  size_t largest = 1, chunk;
  unsigned i;
  if (!shape->element_map || shape->scratch_index != CUBIND_NO_SCRATCH || num_host_args == 0 ||
      num_host_args > CUBIND__MAX_STAGED_ARGS)
    return 0;
  for (i = 0; i < num_host_args; i++) {
    if (host_args[i].count != shape->n) return 0; /* a table of its own size: one pass */
    if (host_args[i].elem_size > largest) largest = host_args[i].elem_size;
  }
  chunk = chunk_bytes / largest;
  return chunk > 0 && shape->n / 2 > chunk ? chunk : 0;
}

/* What both ways of running the chunks share. */
typedef struct pipeline_run {
  const cubind_module *module;
  unsigned kernel_index;
  const cubind_config *cfg;
  void **args;
  const cubind_host_arg *host_args;
  unsigned num_host_args;
  const cubind_elementwise_shape *shape;
  const cubind__kernel_slot *k;
  int device;
  size_t chunk, set_bytes;
  CUdeviceptr base;
  CUstream streams[CUBIND_PIPELINE_STREAMS];
} pipeline_run;

/* Points the kernel's parameters at chunk c's device buffers and launches it on its stream. */
static cubind_status launch_chunk(const pipeline_run *p, size_t c, size_t length) {
  CUdeviceptr set = p->base + (CUdeviceptr)(c % CUBIND_PIPELINE_STREAMS) * p->set_bytes;
  cubind_config on = *p->cfg;
  size_t offset = 0;
  unsigned i;
  on.stream = p->streams[c % CUBIND_PIPELINE_STREAMS];
  for (i = 0; i < p->num_host_args; i++) {
    *(void **)p->args[p->host_args[i].param_index] = (void *)(uintptr_t)(set + offset);
    offset += ALIGN_UP(p->chunk * p->host_args[i].elem_size);
  }
  *(size_t *)p->args[p->shape->count_index] = length;
  return cubind__launch_resolved("call", p->module, p->kernel_index, &on, p->args, p->k,
                                 p->device);
}

/*
 * Page-locked (or registered) buffers: each chunk's copies in, kernel and copies out queued on
 * its stream; the copy engines of both directions and the multiprocessors work at once.
 */
static const char *run_direct(pipeline_run *p, CUresult *r, cubind_status *status) {
  size_t c, done, offset;
  unsigned i;
  for (c = 0, done = 0; done < p->shape->n; c++) {
    size_t length = p->shape->n - done < p->chunk ? p->shape->n - done : p->chunk;
    CUdeviceptr set = p->base + (CUdeviceptr)(c % CUBIND_PIPELINE_STREAMS) * p->set_bytes;
    CUstream stream = p->streams[c % CUBIND_PIPELINE_STREAMS];
    for (i = 0, offset = 0; i < p->num_host_args; i++) {
      const cubind_host_arg *h = &p->host_args[i];
      if ((h->direction & CUBIND_DIRECTION_IN) &&
          (*r = cubind__drv.cuMemcpyHtoDAsync(set + offset, (char *)h->host + done * h->elem_size,
                                              length * h->elem_size, stream)) != CUDA_SUCCESS)
        return "cuMemcpyHtoDAsync of a chunk";
      offset += ALIGN_UP(p->chunk * h->elem_size);
    }
    if ((*status = launch_chunk(p, c, length)) != CUBIND_SUCCESS) return NULL;
    for (i = 0, offset = 0; i < p->num_host_args; i++) {
      const cubind_host_arg *h = &p->host_args[i];
      if ((h->direction & CUBIND_DIRECTION_OUT) &&
          (*r = cubind__drv.cuMemcpyDtoHAsync((char *)h->host + done * h->elem_size, set + offset,
                                              length * h->elem_size, stream)) != CUDA_SUCCESS)
        return "cuMemcpyDtoHAsync of a chunk";
      offset += ALIGN_UP(p->chunk * h->elem_size);
    }
    done += length;
  }
  return NULL;
}

/*
 * Pageable buffers, through the staging threads (hostcopy.h): step c copies chunk c in and
 * chunk c - 1 out (after its kernel) in one job, then launches chunk c, whose kernel runs while
 * the threads copy the next step. A set of device buffers is written again three steps after it
 * was last read, when its chunk's copies out are done.
 */
static const char *run_staged(pipeline_run *p, const unsigned char *kind, CUresult *r,
                              cubind_status *status) {
  cubind__host_segment segments[2 * CUBIND__MAX_STAGED_ARGS];
  size_t chunks = (p->shape->n + p->chunk - 1) / p->chunk, c, offset;
  unsigned i, n, failed_segment;
  const char *step = NULL;
  for (c = 0; c <= chunks; c++) {
    size_t first = c * p->chunk, previous = (c - 1) * p->chunk;
    size_t length = c < chunks ? (p->shape->n - first < p->chunk ? p->shape->n - first : p->chunk)
                               : 0;
    CUdeviceptr set = p->base + (CUdeviceptr)(c % CUBIND_PIPELINE_STREAMS) * p->set_bytes;
    CUdeviceptr previous_set =
        p->base + (CUdeviceptr)((c + CUBIND_PIPELINE_STREAMS - 1) % CUBIND_PIPELINE_STREAMS) *
                      p->set_bytes;
    size_t previous_length =
        c > 0 ? (p->shape->n - previous < p->chunk ? p->shape->n - previous : p->chunk) : 0;
    for (i = 0, n = 0, offset = 0; i < p->num_host_args; i++) {
      const cubind_host_arg *h = &p->host_args[i];
      int direct = kind[i] == CUBIND__COPY_DIRECT;
      if (length && (h->direction & CUBIND_DIRECTION_IN)) {
        cubind__host_segment in = {(char *)h->host + first * h->elem_size, set + offset,
                                   length * h->elem_size, 1, direct};
        segments[n++] = in;
      }
      if (previous_length && (h->direction & CUBIND_DIRECTION_OUT)) {
        cubind__host_segment out = {(char *)h->host + previous * h->elem_size,
                                    previous_set + offset, previous_length * h->elem_size, 0,
                                    direct};
        segments[n++] = out;
      }
      offset += ALIGN_UP(p->chunk * h->elem_size);
    }
    *r = cubind__hostcopy_run(
        segments, n, c > 0 ? &p->streams[(c - 1) % CUBIND_PIPELINE_STREAMS] : NULL, &step,
        &failed_segment);
    if (*r != CUDA_SUCCESS) return step ? step : "a staged copy";
    if (length && (*status = launch_chunk(p, c, length)) != CUBIND_SUCCESS) return NULL;
  }
  return NULL;
}

cubind_status cubind__pipeline(const char *what, const cubind_module *module,
                               unsigned kernel_index, const cubind_config *cfg, void **args,
                               const cubind_host_arg *host_args, unsigned num_host_args,
                               const cubind_elementwise_shape *shape, size_t chunk) {
  pipeline_run p;
  unsigned char kind[CUBIND__MAX_STAGED_ARGS];
  unsigned short hold[CUBIND__MAX_STAGED_ARGS]; /* staging.h: its record while the call runs */
  size_t saved_n, staged_bytes = 0;
  unsigned i, s;
  int any_staged = 0, pooled = 0, classified = 0;
  CUresult r = CUDA_SUCCESS;
  const char *failed = NULL;
  cubind_status status;

  memset(&p, 0, sizeof p);
  p.module = module;
  p.kernel_index = kernel_index;
  p.cfg = cfg;
  p.args = args;
  p.host_args = host_args;
  p.num_host_args = num_host_args;
  p.shape = shape;
  p.chunk = chunk;
  for (i = 0; i < num_host_args; i++) p.set_bytes += ALIGN_UP(chunk * host_args[i].elem_size);
  status = cubind__launch_prepare("call", module, kernel_index, cfg, &p.k, &p.device);
  if (status == CUBIND_SUCCESS)
    status = cubind__scratch(what, p.device, p.k->context,
                             CUBIND_PIPELINE_STREAMS * p.set_bytes, &p.base);
  if (status != CUBIND_SUCCESS) return status;

  for (s = 0; s < CUBIND_PIPELINE_STREAMS && !failed; s++)
    if ((r = cubind__drv.cuStreamCreate(&p.streams[s], CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS) {
      p.streams[s] = NULL;
      failed = "cuStreamCreate";
    }
  /* after what the caller queued on its stream (the kernel may read device memory it wrote) */
  if (!failed && (r = cubind__drv.cuStreamSynchronize(cfg->stream)) != CUDA_SUCCESS)
    failed = "cuStreamSynchronize of the call's stream";
  /* How the buffers move (staging.h): the staging threads when any is large and pageable. */
  if (!failed) {
    cubind__staging_classify(host_args, num_host_args, shape->n, kind, hold);
    classified = 1;
  }
  for (i = 0; classified && i < num_host_args; i++)
    if (kind[i] == CUBIND__COPY_STAGED)
      staged_bytes += shape->n * host_args[i].elem_size *
                      ((host_args[i].direction & CUBIND_DIRECTION_IN ? 1u : 0u) +
                       (host_args[i].direction & CUBIND_DIRECTION_OUT ? 1u : 0u));
  any_staged = staged_bytes > 0;
  if (!failed && any_staged) pooled = cubind__staging_acquire(p.k->context, staged_bytes);
  for (i = 0; !failed && any_staged && !pooled && i < num_host_args; i++)
    if (kind[i] == CUBIND__COPY_STAGED && cubind__staging_register(hold[i]))
      kind[i] = CUBIND__COPY_DIRECT; /* else: copied plainly */

  saved_n = *(size_t *)args[shape->count_index];
  if (!failed) failed = pooled ? run_staged(&p, kind, &r, &status) : run_direct(&p, &r, &status);
  *(size_t *)args[shape->count_index] = saved_n;

  /* Every path: the streams finish before the buffers are unregistered and the scratch reused. */
  for (s = 0; s < CUBIND_PIPELINE_STREAMS; s++) {
    CUresult synced;
    if (!p.streams[s]) continue;
    synced = cubind__drv.cuStreamSynchronize(p.streams[s]);
    if (synced != CUDA_SUCCESS && !failed && status == CUBIND_SUCCESS) {
      r = synced;
      failed = "cuStreamSynchronize of a chunk stream";
    }
    (void)cubind__drv.cuStreamDestroy(p.streams[s]);
  }
  if (pooled) cubind__hostcopy_release();
  for (i = 0; classified && i < num_host_args; i++)
    if (hold[i]) {
      CUresult unregistered = cubind__staging_release(hold[i]);
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
