// The trace decorator: an hke_platform that forwards every call to an inner
// platform and reports each call as one line of text to a sink.
//
// Line format (see platform/README.md for the full grammar):
//   <seq> <op> <key>=<value> ... -> <result> [<key>=<value> ...]\n
// e.g.
//   7 ioctl fd=3 req=0xc0284b16 name=AMDKFD_IOC_ALLOC_MEMORY_OF_GPU size=40 in=00..ff -> ok out=00..ff
//   8 open path=/dev/kfd flags=RDWR|CLOEXEC -> ENOENT
// <result> is "ok" or the errno name (E<number> for errnos without a name);
// the values after it are the call's outputs and appear only on success.
//
// Memory: the caller owns the hke_trace storage; the decorator uses no heap.
// Each line is built in a stack buffer of HKE_TRACE_LINE_MAX + 1 bytes in
// the calling thread.
//
// Threading: the decorator is as thread-safe as its inner platform. The
// sequence number is taken atomically when a call starts, so numbers are
// unique and follow call start order; lines of concurrent calls may reach
// the sink in a different order. The sink may be called from several
// threads at once.
#ifndef HSAKMT_HSAKMT_TRACE_H_
#define HSAKMT_HSAKMT_TRACE_H_

#include <stddef.h>
#include <stdint.h>

#include "hsakmt/hsakmt_platform.h"

#ifdef __cplusplus
extern "C" {
#endif

// Longest line handed to the sink, in bytes, including the final '\n'.
#define HKE_TRACE_LINE_MAX 4096u
// Argument bytes shown per hex field (ioctl in/out, read_fd data); longer
// buffers show this many bytes followed by "...".
#define HKE_TRACE_HEX_MAX 512u
// Characters shown per path after escaping; longer paths end in "...".
#define HKE_TRACE_PATH_MAX 1024u

// Receives one complete line: `length` bytes ending in '\n', followed by a
// NUL that `length` does not count. `line` is valid only during the call.
// Called from the thread that made the platform call, possibly from several
// threads at once.
typedef void (*hke_trace_sink_fn)(void* user, const char* line, size_t length);

// Size of the decorator's state.
#define HKE_TRACE_STATE_SIZE 256u

// Caller-owned decorator state; opaque. Must stay at the same address and
// outlive every use of the platform returned by hke_trace_platform().
typedef struct hke_trace {
  union {
    uint64_t align_u64;
    void* align_ptr;
    unsigned char bytes[HKE_TRACE_STATE_SIZE];
  } opaque;
} hke_trace;

// Initialises `trace` to wrap `inner`, reporting to `sink(user, ...)`.
// `inner.ops` must provide open, close, ioctl and read_file; operations it
// leaves NULL (or lacks, for an older struct_size) are NULL in the traced
// table too. The first call gets sequence number 1. Returns 0, or EINVAL
// (NULL trace/sink/ops, missing required operation) leaving `*trace`
// untouched. Not thread-safe against use of the same `trace`.
int hke_trace_init(hke_trace* trace, hke_platform inner, hke_trace_sink_fn sink, void* user);

// The traced platform; valid while `trace` is. `trace` must be initialised.
hke_platform hke_trace_platform(hke_trace* trace);

// Sequence number the next call will get.
uint64_t hke_trace_next_sequence(const hke_trace* trace);

// A sink that writes each line to the file descriptor encoded in `user`
// (see hke_trace_fd_user) with write(2), retrying short writes and EINTR.
// Other write errors drop the rest of the line. Concurrent lines are not
// interleaved by this sink on pipes (lines <= PIPE_BUF) or O_APPEND files;
// otherwise the caller serialises.
void hke_trace_fd_sink(void* user, const char* line, size_t length);

// The `user` value that makes hke_trace_fd_sink write to `fd`.
static inline void* hke_trace_fd_user(int fd) { return (void*)(intptr_t)fd; }

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // HSAKMT_HSAKMT_TRACE_H_
