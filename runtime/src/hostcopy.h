/*
 * hostcopy.h (hostcopy.c): copies between pageable host memory and the device near the link's
 * rate. One thread's memcpy into page-locked memory is slower than the link (8-10 GB/s), and so
 * is the driver's own pageable path; a pool of threads, each with two page-locked slots and a
 * stream of its own, copies chunks in parallel while the DMA of the previous chunk runs.
 *
 * One call uses the pool at a time: a call that finds it busy (another thread's call) or
 * unavailable copies another way (staging.h decides how), so nothing waits on the pool.
 */
#ifndef CUBIND_HOSTCOPY_H
#define CUBIND_HOSTCOPY_H

#include "internal.h"

/* The most threads the pool runs, the caller included (CUBIND_STAGING_THREADS' bound). */
#define CUBIND__HOSTCOPY_MAX_THREADS 16

/* One transfer of a job: host memory <-> device memory, in either direction. */
typedef struct cubind__host_segment {
  void *host;         /* the user's memory */
  CUdeviceptr device; /* device memory of the job's context */
  size_t bytes;
  int to_device; /* 1: host to device; 0: device to host */
  int direct;    /* the host memory is page-locked: copied by DMA, without a slot */
} cubind__host_segment;

/*
 * cubind__hostcopy_acquire: takes the pool for one call in `ctx` (current on the calling
 * thread), starting it on first use with `threads` threads (the caller counts as one). Returns 1
 * when the caller holds it (release with cubind__hostcopy_release), 0 when another call holds
 * it, `threads` is below 2, or it could not be started (threads, page-locked slots, streams):
 * then copy another way. Never blocks on another call.
 */
CUBIND_INTERNAL int cubind__hostcopy_acquire(CUcontext ctx, unsigned threads);

/* cubind__hostcopy_release: gives the pool back (after the last cubind__hostcopy_run). */
CUBIND_INTERNAL void cubind__hostcopy_release(void);

/*
 * cubind__hostcopy_run: copies every segment, the caller and the pool's threads taking chunks in
 * turn; segments to the host start after the work queued so far on *after (the stream whose
 * results they read; NULL: no such wait). Returns when every copy is done and the
 * pool's streams are idle: CUDA_SUCCESS, or the first failure with *failed naming the step and
 * *failed_segment the segment's index (the other segments' state is then unspecified).
 */
CUBIND_INTERNAL CUresult cubind__hostcopy_run(const cubind__host_segment *segments,
                                              unsigned num_segments, const CUstream *after,
                                              const char **failed, unsigned *failed_segment);

/*
 * cubind__hostcopy_shutdown: stops the pool's threads and frees its page-locked slots, streams
 * and events, if no call holds it (at exit, and from cubind_release_scratch). The next call
 * that needs it starts it again.
 */
CUBIND_INTERNAL void cubind__hostcopy_shutdown(void);

#endif /* CUBIND_HOSTCOPY_H */
