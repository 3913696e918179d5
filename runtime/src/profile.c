/* Kernel profiles: the event buffer an instance records into while a
 * profiled model runs, and the hooks that model calls around each kernel.
 * The buffer of the run in progress is found through a thread-local
 * pointer, set for the duration of the entry call, so that the hooks take
 * no argument and instances on different threads never share a buffer. */
#define _GNU_SOURCE /* syscall(SYS_gettid) */

#include "internal.h"

#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct agl_profile {
  agl_profile_event *events;
  size_t capacity, count;
  uint64_t dropped;
};

static _Thread_local agl_profile *recording;

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int32_t thread_id(void) {
  static _Thread_local int32_t id;
  if (id == 0)
    id = (int32_t)syscall(SYS_gettid);
  return id;
}

agl_profile *agl_profile_create(size_t capacity) {
  agl_profile *profile = calloc(1, sizeof *profile);
  if (!profile)
    return NULL;
  profile->events = malloc(capacity * sizeof *profile->events);
  if (!profile->events) {
    free(profile);
    return NULL;
  }
  profile->capacity = capacity;
  return profile;
}

void agl_profile_destroy(agl_profile *profile) {
  if (!profile)
    return;
  free(profile->events);
  free(profile);
}

size_t agl_profile_read(const agl_profile *profile,
                        const agl_profile_event **events, uint64_t *dropped) {
  if (events)
    *events = profile ? profile->events : NULL;
  if (dropped)
    *dropped = profile ? profile->dropped : 0;
  return profile ? profile->count : 0;
}

void agl_profile_clear(agl_profile *profile) {
  if (profile) {
    profile->count = 0;
    profile->dropped = 0;
  }
}

agl_profile *agl_profile_record_into(agl_profile *profile) {
  agl_profile *previous = recording;
  recording = profile;
  return previous;
}

uint64_t agl_profile_begin(void) { return recording ? now_ns() : 0; }

void agl_profile_add(agl_profile *profile, int32_t kernel, uint64_t begin_ns,
                     uint64_t end_ns) {
  if (profile->count == profile->capacity) {
    ++profile->dropped;
    return;
  }
  agl_profile_event *event = &profile->events[profile->count++];
  event->kernel = kernel;
  event->thread = thread_id();
  event->begin_ns = begin_ns;
  event->end_ns = end_ns;
}

void agl_profile_drop(agl_profile *profile, uint64_t events) {
  profile->dropped += events;
}

uint64_t agl_profile_now_ns(void) { return now_ns(); }

void agl_profile_end(int32_t kernel, uint64_t begin_ns) {
  if (recording)
    agl_profile_add(recording, kernel, begin_ns, now_ns());
}
