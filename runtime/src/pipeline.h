/*
 * pipeline.h (pipeline.c): `<kernel>_call` of an element map (CUBIND_VECTORIZE) over large host
 * buffers, in chunks that overlap copies in, the kernel and copies out on several streams.
 */
#ifndef CUBIND_PIPELINE_H
#define CUBIND_PIPELINE_H

#include "internal.h"

/*
 * cubind__pipeline_chunk: the elements per chunk when this call runs in chunks, else 0: an
 * element map (shape->element_map) whose every host buffer holds shape->n elements, with n
 * above two chunks (a chunk: the policy's bytes, CUBIND_CHUNK_BYTES by default, of the largest
 * element).
 */
CUBIND_INTERNAL size_t cubind__pipeline_chunk(const cubind_elementwise_shape *shape,
                                              const cubind_host_arg *host_args,
                                              unsigned num_host_args);

/*
 * cubind__pipeline: the call in chunks of `chunk` elements (host buffers already checked; `cfg`
 * never NULL): ordered after the work queued on cfg->stream, large pageable buffers through the
 * staging threads as cubind__call does, CUBIND_PIPELINE_STREAMS streams of its own taking chunks in
 * turn, each chunk's device buffers reused by the next chunk of the same stream. Each element is
 * computed once by the same code as in one pass, so the results are identical. Returns when
 * every stream is done.
 */
CUBIND_INTERNAL cubind_status cubind__pipeline(const char *what, const cubind_module *module,
                                               unsigned kernel_index, const cubind_config *cfg,
                                               void **args, const cubind_host_arg *host_args,
                                               unsigned num_host_args,
                                               const cubind_elementwise_shape *shape,
                                               size_t chunk);

/* For the tests: the bytes of the largest element's chunk (0: the default). */
CUBIND_INTERNAL void cubind__set_chunk_bytes(size_t bytes);

#endif /* CUBIND_PIPELINE_H */
