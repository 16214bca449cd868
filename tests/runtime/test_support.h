/*
 * test_support.h: what the runtime tests share: a synthetic fatbin, a module descriptor written
 * exactly as cubind-gen writes one (docs/architecture.md), its stubs, and a helper that runs a
 * scenario on a fresh thread and brings back its status and message.
 */
#ifndef CUBIND_TEST_SUPPORT_H
#define CUBIND_TEST_SUPPORT_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cubind/cubind.h>
#include <cubind/generated.h>

#include "fake_cuda.h"

/*
 * A fatbin as nvcc lays it out (container header, then entries with kind and sm arch), holding
 * sm_80 and sm_90 cubins and sm_90 PTX; the payloads are filler. Returns the size written.
 */
static size_t build_fatbin(unsigned char *buf, size_t size) {
  static const struct {
    unsigned short kind;
    unsigned arch;
  } entries[] = {{2, 80}, {2, 90}, {1, 90}};
  size_t pos = 16, i;
  unsigned long long payload;
  unsigned magic = 0xBA55ED50u;
  unsigned short version = 1, header = 16;
  memset(buf, 0, size);
  for (i = 0; i < 3; i++) {
    unsigned entry_header = 64;
    unsigned long long entry_size = 16;
    memcpy(buf + pos, &entries[i].kind, 2);
    memcpy(buf + pos + 4, &entry_header, 4);
    memcpy(buf + pos + 8, &entry_size, 8);
    memcpy(buf + pos + 28, &entries[i].arch, 4);
    pos += entry_header + entry_size;
  }
  payload = pos - 16;
  memcpy(buf, &magic, 4);
  memcpy(buf + 4, &version, 2);
  memcpy(buf + 6, &header, 2);
  memcpy(buf + 8, &payload, 8);
  return pos;
}

/* ---- what cubind-gen would generate for vec.cu ---------------------------------------------- */

static unsigned char cubind_fatbin_vec[512] __attribute__((aligned(16)));
static size_t cubind_fatbin_vec_size;

static const cubind_param_info doublify_params[] = {{"a", 0, 8}, {"n", 8, 4}};
static const cubind_kernel_info vec_kernels[] = {
    {"doublify", "doublify", doublify_params, 2},
    {"noop", "noop", NULL, 0},
    {"small", "small", doublify_params, 2},
};
static cubind_module vec_module = {CUBIND_ABI_VERSION,
                                   "vec",
                                   cubind_fatbin_vec,
                                   &cubind_fatbin_vec_size,
                                   vec_kernels,
                                   3,
                                   NULL,
                                   NULL, NULL, 0};

static __attribute__((unused)) cubind_status doublify_launch(const cubind_config *cfg, float *a,
                                                             int n) {
  void *args[2] = {&a, &n};
  return cubind_module_launch(&vec_module, 0, cfg, args);
}

static __attribute__((unused)) cubind_status doublify_call(const cubind_config *cfg, float *a,
                                                           int n) {
  void *args[2] = {&a, &n};
  cubind_host_arg host[1] = {{0, CUBIND_DIRECTION_INOUT, (void *)a, (size_t)(n), sizeof(float)}};
  return cubind_module_call(&vec_module, 0, cfg, args, host, 1);
}

static __attribute__((unused)) cubind_status noop_launch(const cubind_config *cfg) {
  return cubind_module_launch(&vec_module, 1, cfg, NULL);
}

/* Sets the fake up as the driver: call first in main(). */
static __attribute__((unused)) void use_fake_driver(void) {
  cubind_fatbin_vec_size = build_fatbin(cubind_fatbin_vec, sizeof cubind_fatbin_vec);
  if (cubind_set_driver_library(FAKE_CUDA_PATH) != CUBIND_SUCCESS) {
    fprintf(stderr, "cubind_set_driver_library: %s\n", cubind_last_error());
    exit(1);
  }
}

/* ---- running a scenario on a thread of its own --------------------------------------------- */

typedef struct outcome {
  cubind_status status;
  char message[1024];
} outcome;

typedef struct thread_job {
  cubind_status (*fn)(void *arg);
  void *arg;
  outcome result;
} thread_job;

static void *thread_job_main(void *p) {
  thread_job *job = p;
  job->result.status = job->fn(job->arg);
  snprintf(job->result.message, sizeof job->result.message, "%s", cubind_last_error());
  return NULL; /* the thread's scratch goes with it (pthread key destructor) */
}

/* Runs fn(arg) on a new thread (a thread with no context and no scratch yet). */
static __attribute__((unused)) outcome in_new_thread(cubind_status (*fn)(void *), void *arg) {
  thread_job job;
  pthread_t t;
  job.fn = fn;
  job.arg = arg;
  job.result.status = CUBIND_ERROR_CUDA;
  strcpy(job.result.message, "the thread did not start");
  if (pthread_create(&t, NULL, thread_job_main, &job) == 0) pthread_join(t, NULL);
  return job.result;
}

#endif /* CUBIND_TEST_SUPPORT_H */
