/*
 * timer.c: an event pair around GPU work on a stream (PyCUDA's prepared_timed_call analog).
 */
#include "context.h"
#include "driver.h"
#include "error.h"
#include "result.h"

cubind_status cubind_timer_create(cubind_timer *timer) {
  CUresult r;
  cubind_status status;
  if (!timer) return cubind__fail(CUBIND_ERROR_INVALID_VALUE, "cubind_timer_create: timer is NULL");
  timer->start = timer->stop = NULL;
  timer->stream = NULL;
  status = cubind__enter("cubind_timer_create", NULL, NULL);
  if (status != CUBIND_SUCCESS) return status;
  r = cubind__drv.cuEventCreate(&timer->start, CU_EVENT_DEFAULT);
  if (r != CUDA_SUCCESS) {
    timer->start = NULL;
    return cubind__fail_cuda(r, CUBIND_ERROR_STREAM, "cubind_timer_create: cuEventCreate failed");
  }
  r = cubind__drv.cuEventCreate(&timer->stop, CU_EVENT_DEFAULT);
  if (r != CUDA_SUCCESS) {
    (void)cubind__drv.cuEventDestroy(timer->start); /* the first failure is the one reported */
    timer->start = timer->stop = NULL;
    return cubind__fail_cuda(r, CUBIND_ERROR_STREAM, "cubind_timer_create: cuEventCreate failed");
  }
  return CUBIND_SUCCESS;
}

cubind_status cubind_timer_start(cubind_timer *timer, CUstream stream) {
  CUresult r;
  cubind_status status;
  if (!timer || !timer->start)
    return cubind__fail(CUBIND_ERROR_INVALID_VALUE,
                        "cubind_timer_start: the timer is NULL or not created");
  status = cubind__enter("cubind_timer_start", NULL, NULL);
  if (status != CUBIND_SUCCESS) return status;
  r = cubind__drv.cuEventRecord(timer->start, stream);
  if (r != CUDA_SUCCESS)
    return cubind__fail_cuda(r, CUBIND_ERROR_STREAM,
                             "cubind_timer_start: cuEventRecord on stream 0x%llx failed",
                             CUBIND_STREAM_ARG(stream));
  timer->stream = stream;
  return CUBIND_SUCCESS;
}

cubind_status cubind_timer_stop(cubind_timer *timer, float *elapsed_ms) {
  CUresult r;
  const char *call;
  cubind_status status;
  if (!timer || !timer->stop || !elapsed_ms)
    return cubind__fail(CUBIND_ERROR_INVALID_VALUE,
                        "cubind_timer_stop: the timer is NULL or not created, or elapsed_ms is "
                        "NULL");
  status = cubind__enter("cubind_timer_stop", NULL, NULL);
  if (status != CUBIND_SUCCESS) return status;
  call = "cuEventRecord";
  r = cubind__drv.cuEventRecord(timer->stop, timer->stream);
  if (r == CUDA_SUCCESS) {
    call = "cuEventSynchronize";
    r = cubind__drv.cuEventSynchronize(timer->stop);
  }
  if (r == CUDA_SUCCESS) {
    call = "cuEventElapsedTime";
    r = cubind__drv.cuEventElapsedTime(elapsed_ms, timer->start, timer->stop);
  }
  if (r != CUDA_SUCCESS)
    return cubind__fail_cuda(r, CUBIND_ERROR_STREAM,
                             "cubind_timer_stop: %s on stream 0x%llx failed", call,
                             CUBIND_STREAM_ARG(timer->stream));
  return CUBIND_SUCCESS;
}

cubind_status cubind_timer_destroy(cubind_timer *timer) {
  CUresult r1 = CUDA_SUCCESS, r2 = CUDA_SUCCESS;
  cubind_status status;
  if (!timer || (!timer->start && !timer->stop)) return CUBIND_SUCCESS;
  status = cubind__enter("cubind_timer_destroy", NULL, NULL);
  if (status != CUBIND_SUCCESS) return status;
  /* An event whose destruction failed stays in the timer, so that a retry can free it. */
  if (timer->start && (r1 = cubind__drv.cuEventDestroy(timer->start)) == CUDA_SUCCESS)
    timer->start = NULL;
  if (timer->stop && (r2 = cubind__drv.cuEventDestroy(timer->stop)) == CUDA_SUCCESS)
    timer->stop = NULL;
  if (r1 != CUDA_SUCCESS || r2 != CUDA_SUCCESS)
    return cubind__fail_cuda(r1 != CUDA_SUCCESS ? r1 : r2, CUBIND_ERROR_STREAM,
                             "cubind_timer_destroy: cuEventDestroy failed");
  return CUBIND_SUCCESS;
}
