/*
 * call.c: cubind_module_call, behind `<kernel>_call` (PyCUDA's In/Out/InOut): every host
 * buffer checked before anything runs, device scratch sized for all of them, large pageable
 * buffers through the staging threads (staging.h, hostcopy.h), copies in, the launch
 * (launch.h), copies out, one synchronisation, registrations undone on every path.
 */
#include <stdint.h>
#include <stdio.h>

#include "call.h"
#include "driver.h"
#include "elementwise.h"
#include "error.h"
#include "hostcopy.h"
#include "launch.h"
#include "pipeline.h"
#include "result.h"
#include "scratch.h"
#include "staging.h"


/* A host buffer's bytes, rounded up to the scratch alignment. */
#define ALIGN_UP(bytes)                                                                            \
  (((bytes) + CUBIND_SCRATCH_ALIGNMENT - 1) & ~(size_t)(CUBIND_SCRATCH_ALIGNMENT - 1))

/* Names a host argument's parameter: "parameter 0 'a'". */
static const char *param_name(const cubind_module *module, unsigned kernel_index, unsigned i) {
  const cubind_kernel_info *kernel = &module->kernels[kernel_index];
  return i < kernel->num_params && kernel->params ? kernel->params[i].name : "?";
}

/*
 * Checks one host argument before anything runs: its parameter, its count (CUBIND_COUNT_INVALID:
 * the generated code found the count expression negative or overflowing), count * elem_size,
 * a NULL buffer with elements. *bytes: its size.
 */
static cubind_status check_host_arg(const char *what, const cubind_module *module,
                                    unsigned kernel_index, unsigned i, const cubind_host_arg *h,
                                    size_t *bytes) {
  unsigned p = h->param_index;
  if (p >= module->kernels[kernel_index].num_params)
    return cubind__fail(CUBIND_ERROR_INVALID_VALUE,
                        "%s: host argument %u names parameter %u; the kernel has %u", what, i, p,
                        module->kernels[kernel_index].num_params);
  if (h->count == CUBIND_COUNT_INVALID) {
    if (h->count_text)
      return cubind__fail(CUBIND_ERROR_SIZE_OVERFLOW,
                          "%s: parameter %u '%s': its element count '%s' is negative or does "
                          "not fit in size_t (nothing was copied or launched)",
                          what, p, param_name(module, kernel_index, p), h->count_text);
    return cubind__fail(CUBIND_ERROR_SIZE_OVERFLOW,
                        "%s: parameter %u '%s': its element count is CUBIND_COUNT_INVALID "
                        "((size_t)-1: a negative count converted to size_t?) (nothing was copied "
                        "or launched)",
                        what, p, param_name(module, kernel_index, p));
  }
  if (h->count != 0 && h->elem_size > SIZE_MAX / h->count)
    return cubind__fail(CUBIND_ERROR_SIZE_OVERFLOW,
                        "%s: parameter %u '%s': %zu elements%s%s%s of %zu bytes overflow size_t",
                        what, p, param_name(module, kernel_index, p), h->count,
                        h->count_text ? " ('" : "", h->count_text ? h->count_text : "",
                        h->count_text ? "')" : "", h->elem_size);
  *bytes = h->count * h->elem_size;
  if (*bytes != 0 && !h->host)
    return cubind__fail(CUBIND_ERROR_INVALID_VALUE,
                        "%s: parameter %u '%s': the host buffer is NULL but holds %zu elements",
                        what, p, param_name(module, kernel_index, p), h->count);
  return CUBIND_SUCCESS;
}

/* cubind__check_host_args: see call.h. */
cubind_status cubind__check_host_args(const char *what, const cubind_module *module,
                                      unsigned kernel_index, const cubind_host_arg *host_args,
                                      unsigned num_host_args, size_t *arena_bytes) {
  size_t total = 0;
  unsigned i;
  if (!host_args && num_host_args > 0)
    return cubind__fail(CUBIND_ERROR_INVALID_VALUE, "cubind_module_call: host_args is NULL");
  for (i = 0; i < num_host_args; i++) {
    size_t bytes = 0;
    cubind_status status = check_host_arg(what, module, kernel_index, i, &host_args[i], &bytes);
    if (status != CUBIND_SUCCESS) return status;
    if (bytes > SIZE_MAX - total - (CUBIND_SCRATCH_ALIGNMENT - 1))
      return cubind__fail(CUBIND_ERROR_SIZE_OVERFLOW, "%s: the host buffers together exceed size_t",
                          what);
    total += ALIGN_UP(bytes);
  }
  *arena_bytes = total;
  return CUBIND_SUCCESS;
}

/* Fails the call for a staged copy: names the parameter behind segment `segment`. */
static cubind_status staged_copy_failed(const char *what, const cubind_module *module,
                                        unsigned kernel_index, const cubind_host_arg *host_args,
                                        const unsigned *segment_arg, unsigned segment, CUresult r,
                                        const char *step, const char *direction) {
  const cubind_host_arg *h = &host_args[segment_arg[segment]];
  return cubind__fail_cuda(r, CUBIND_ERROR_MEMCPY,
                           "%s: copying parameter %u '%s' (%zu bytes) %s through the staging "
                           "threads: %s failed",
                           what, h->param_index, param_name(module, kernel_index, h->param_index),
                           h->count * h->elem_size, direction, step ? step : "a copy");
}

cubind_status cubind__call(const cubind_module *module, unsigned kernel_index,
                          const cubind_config *cfg, void **args, const cubind_host_arg *host_args,
                          unsigned num_host_args, const cubind_elementwise_shape *shape) {
  const cubind__kernel_slot *k = NULL;
  unsigned char kind[CUBIND__MAX_STAGED_ARGS];    /* cubind__copy_kind of host argument i */
  unsigned short hold[CUBIND__MAX_STAGED_ARGS];   /* staging.h: its record while the call runs */
  cubind__host_segment segments[CUBIND__MAX_STAGED_ARGS];
  unsigned segment_arg[CUBIND__MAX_STAGED_ARGS]; /* the host argument behind each segment */
  unsigned num_segments = 0, failed_segment = 0, num_classified = 0;
  int any_staged = 0, pooled = 0;
  CUdeviceptr base = 0;
  size_t total = 0, offset, staged_bytes = 0;
  unsigned i;
  int device = 0;
  CUresult r;
  const char *step = NULL;
  char what[512];
  cubind_status status = cubind__check_launch("call", module, kernel_index, cfg, args);
  if (status != CUBIND_SUCCESS) return status;
  cubind__describe_launch(what, sizeof what, "call", module, kernel_index, cfg);

  /* Validate every host argument and size the arena before anything runs. */
  status = cubind__check_host_args(what, module, kernel_index, host_args, num_host_args, &total);
  if (status != CUBIND_SUCCESS) return status;
  if (num_host_args > 0) {
    status = cubind__staging_check(what);
    if (status != CUBIND_SUCCESS) return status;
  }
  if (shape) { /* an element map over large buffers: in chunks, overlapped */
    size_t chunk = cubind__pipeline_chunk(shape, host_args, num_host_args);
    if (chunk)
      return cubind__pipeline(what, module, kernel_index, cfg, args, host_args, num_host_args,
                              shape, chunk);
  }

  status = cubind__launch_prepare("call", module, kernel_index, cfg, &k, &device);
  if (status == CUBIND_SUCCESS && total > 0)
    status = cubind__scratch(what, device, k->context, total, &base);
  if (status != CUBIND_SUCCESS) return status;

  /* How each buffer moves (staging.h): large pageable ones through the staging threads, or,
     when those are busy, page-locked in place for the call. */
  num_classified = num_host_args < CUBIND__MAX_STAGED_ARGS ? num_host_args
                                                           : CUBIND__MAX_STAGED_ARGS;
  cubind__staging_classify(host_args, num_classified, 0, kind, hold);
  for (i = 0; i < num_classified; i++)
    if (kind[i] == CUBIND__COPY_STAGED)
      staged_bytes += host_args[i].count * host_args[i].elem_size *
                      ((host_args[i].direction & CUBIND_DIRECTION_IN ? 1u : 0u) +
                       (host_args[i].direction & CUBIND_DIRECTION_OUT ? 1u : 0u));
  any_staged = staged_bytes > 0;
  if (any_staged) pooled = cubind__staging_acquire(k->context, staged_bytes);
  for (i = 0; any_staged && !pooled && i < num_classified; i++)
    if (kind[i] == CUBIND__COPY_STAGED)
      kind[i] = cubind__staging_register(hold[i]) ? CUBIND__COPY_DIRECT : CUBIND__COPY_PLAIN;

  /* Copy in, and point each annotated parameter at its part of the arena. */
  offset = 0;
  for (i = 0; i < num_host_args; i++) {
    const cubind_host_arg *h = &host_args[i];
    size_t bytes = h->count * h->elem_size;
    CUdeviceptr dev = bytes ? base + offset : 0;
    if (bytes && (h->direction & CUBIND_DIRECTION_IN)) {
      if (i < CUBIND__MAX_STAGED_ARGS && kind[i] == CUBIND__COPY_STAGED) {
        cubind__host_segment segment = {h->host, dev, bytes, 1, 0};
        segment_arg[num_segments] = i;
        segments[num_segments++] = segment;
      } else if ((r = cubind__drv.cuMemcpyHtoDAsync(dev, h->host, bytes, cfg->stream)) !=
                 CUDA_SUCCESS) {
        (void)cubind__drv.cuStreamSynchronize(cfg->stream); /* let earlier copies finish */
        status = cubind__fail_cuda(r, CUBIND_ERROR_MEMCPY,
                                   "%s: copying parameter %u '%s' (%zu bytes) to the device: "
                                   "cuMemcpyHtoDAsync failed",
                                   what, h->param_index,
                                   param_name(module, kernel_index, h->param_index), bytes);
        goto finish;
      }
    }
    *(void **)args[h->param_index] = (void *)(uintptr_t)dev;
    offset += ALIGN_UP(bytes);
  }
  if (num_segments &&
      (r = cubind__hostcopy_run(segments, num_segments, NULL, &step, &failed_segment)) !=
          CUDA_SUCCESS) {
    (void)cubind__drv.cuStreamSynchronize(cfg->stream);
    status = staged_copy_failed(what, module, kernel_index, host_args, segment_arg,
                                failed_segment, r, step, "to the device");
    goto finish;
  }

  status = shape ? cubind__launch_shaped("call", module, kernel_index, cfg, args, k, device, shape)
                 : cubind__launch_resolved("call", module, kernel_index, cfg, args, k, device);
  if (status != CUBIND_SUCCESS) {
    (void)cubind__drv.cuStreamSynchronize(cfg->stream); /* the copies in must not outlive us */
    goto finish;
  }

  offset = 0;
  num_segments = 0;
  for (i = 0; i < num_host_args; i++) {
    const cubind_host_arg *h = &host_args[i];
    size_t bytes = h->count * h->elem_size;
    if (bytes && (h->direction & CUBIND_DIRECTION_OUT)) {
      if (i < CUBIND__MAX_STAGED_ARGS && kind[i] == CUBIND__COPY_STAGED) {
        cubind__host_segment segment = {h->host, base + offset, bytes, 0, 0};
        segment_arg[num_segments] = i;
        segments[num_segments++] = segment;
      } else if ((r = cubind__drv.cuMemcpyDtoHAsync(h->host, base + offset, bytes,
                                                    cfg->stream)) != CUDA_SUCCESS) {
        (void)cubind__drv.cuStreamSynchronize(cfg->stream);
        status = cubind__fail_cuda(r, CUBIND_ERROR_MEMCPY,
                                   "%s: copying parameter %u '%s' (%zu bytes) back to the host: "
                                   "cuMemcpyDtoHAsync failed",
                                   what, h->param_index,
                                   param_name(module, kernel_index, h->param_index), bytes);
        goto finish;
      }
    }
    offset += ALIGN_UP(bytes);
  }
  if (num_segments &&
      (r = cubind__hostcopy_run(segments, num_segments, &cfg->stream, &step, &failed_segment)) !=
          CUDA_SUCCESS) {
    (void)cubind__drv.cuStreamSynchronize(cfg->stream);
    status = staged_copy_failed(what, module, kernel_index, host_args, segment_arg,
                                failed_segment, r, step, "back to the host");
    goto finish;
  }
  r = cubind__drv.cuStreamSynchronize(cfg->stream);
  if (r != CUDA_SUCCESS)
    status = cubind__fail_cuda(r, CUBIND_ERROR_STREAM, "%s: cuStreamSynchronize failed", what);

finish:
  /* Every path here has synchronised the stream and the staging threads' copies are done: no
     copy uses a registered buffer or a staging slot any more. */
  if (pooled) cubind__hostcopy_release();
  for (i = 0; i < num_classified; i++)
    if (hold[i] && (r = cubind__staging_release(hold[i])) != CUDA_SUCCESS &&
        status == CUBIND_SUCCESS) {
      const cubind_host_arg *h = &host_args[i];
      status = cubind__fail_cuda(r, CUBIND_ERROR_CUDA,
                                 "%s: cuMemHostUnregister of parameter %u '%s' failed", what,
                                 h->param_index, param_name(module, kernel_index, h->param_index));
    }
  return status;
}

cubind_status cubind_module_call(const cubind_module *module, unsigned kernel_index,
                                 const cubind_config *cfg, void **args,
                                 const cubind_host_arg *host_args, unsigned num_host_args) {
  return cubind__call(module, kernel_index, cfg, args, host_args, num_host_args, NULL);
}
