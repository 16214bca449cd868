/*
 * error.c: status names and messages (from CUBIND_STATUS_TABLE), the per-thread last-error
 * message and the error hook.
 */
#include <stdarg.h>
#include <stdio.h>

#include "error.h"

static CUBIND_THREAD_LOCAL char last_error[CUBIND_MESSAGE_SIZE];

static cubind_error_hook error_hook;
static void *error_hook_data;

const char *cubind_status_string(cubind_status status) {
  switch (status) {
#define CUBIND_STATUS_CASE_(name, value, message)                                                  \
  case name:                                                                                       \
    return message;
    CUBIND_STATUS_TABLE(CUBIND_STATUS_CASE_)
#undef CUBIND_STATUS_CASE_
  }
  return "unknown cubind status";
}

const char *cubind_status_name(cubind_status status) {
  switch (status) {
#define CUBIND_STATUS_CASE_(name, value, message)                                                  \
  case name:                                                                                       \
    return #name;
    CUBIND_STATUS_TABLE(CUBIND_STATUS_CASE_)
#undef CUBIND_STATUS_CASE_
  }
  return "CUBIND_UNKNOWN_STATUS";
}

const char *cubind_last_error(void) { return last_error; }

void cubind_set_error_hook(cubind_error_hook hook, void *user_data) {
  /* Atomic stores keep a late change well-defined; the documented rule is "set it first". */
  __atomic_store_n(&error_hook_data, user_data, __ATOMIC_RELAXED);
  __atomic_store_n(&error_hook, hook, __ATOMIC_RELEASE);
}

/* Sets the message and calls the hook: both failure entries. */
static cubind_status fail_v(cubind_status status, const char *fmt, va_list ap) {
  cubind_error_hook hook;
  vsnprintf(last_error, sizeof last_error, fmt, ap);
  hook = __atomic_load_n(&error_hook, __ATOMIC_ACQUIRE);
  if (hook) hook(status, last_error, __atomic_load_n(&error_hook_data, __ATOMIC_RELAXED));
  return status;
}

cubind_status cubind__fail(cubind_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  status = fail_v(status, fmt, ap);
  va_end(ap);
  return status;
}

cubind_status cubind_fail(cubind_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  status = fail_v(status, fmt, ap);
  va_end(ap);
  return status;
}
