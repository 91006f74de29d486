/*
 * Simulator-fidelity checks through this library's public API, run as an
 * unmodified program under libkfdsim-preload.so (the LD_PRELOAD front end;
 * the in-process front end runs the same contracts in tests/misc_api and
 * tests/queues). One scenario per run, named by argv[1]:
 *
 *   dbg-events  DBG_TRAP ENABLE (hsaKmtDebugTrapIoctl) with a FIFO as the
 *               debugger's event file: hsaKmtRuntimeEnable and
 *               hsaKmtCreateQueue each write one '.', QUERY_DEBUG_EVENT
 *               names the queue's GPU; hsaKmtDbgEnable (the KFD descriptor
 *               as the event file) works alongside.
 *
 *   queue-buffers  the kernel's queue buffer check (KFD 1.17): an SDMA ring
 *               size beyond its 4 KiB GTT buffer is refused (ERROR) and
 *               leaves no queue; the buffer with its own size makes one.
 *
 *   amdgpu-params  /sys/module/amdgpu/parameters/{emu_mode,noretry,
 *               sched_policy,mes,cwsr_enable} read with fopen as a consumer
 *               does, compared with argv[2] ("name=value,..."), and
 *               hsaKmtGetXNACKMode compared with argv[3].
 *
 *   share-fork  hsaKmtShareMemory and hsaKmtExportDMABufHandle of a VRAM
 *               buffer in the parent; a forked child (a new process of the
 *               same simulated machine) reopens KFD, imports both
 *               (hsaKmtRegisterSharedHandle + hsaKmtMapMemoryToGPU,
 *               hsaKmtRegisterGraphicsHandleToNodes on the inherited
 *               descriptor), sees the parent's bytes, writes its own, and
 *               still reads them after the parent freed the buffer and
 *               closed the descriptor. The child reports through its exit
 *               status (a bit per failed step).
 *
 * Prints one "<check> ok" or "<check> FAILED ..." line per check; exits 0
 * when every check passed, 1 otherwise, 2 on a usage error.
 * Single-threaded.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hsakmt/hsakmt.h"

static int failures;

static void check(const char* what, int ok, const char* detail) {
  printf("%s %s%s%s\n", what, ok ? "ok" : "FAILED", ok ? "" : " ", ok ? "" : detail);
  if (!ok) ++failures;
}

/* The KFD DBG_TRAP argument block (kfd_ioctl_dbg_trap_args, 32 bytes). */
struct dbg_trap {
  uint32_t pid;
  uint32_t op;
  union {
    struct {
      uint64_t exception_mask;
      uint64_t rinfo_ptr;
      uint32_t rinfo_size;
      uint32_t dbg_fd;
    } enable;
    struct {
      uint64_t exception_mask;
      uint32_t gpu_id;
      uint32_t queue_id;
    } query;
    uint8_t raw[24];
  } u;
};

enum { kOpEnable = 0, kOpDisable = 1, kOpQueryDebugEvent = 11 };
#define EC_MASK(code) (1ull << ((code)-1))
enum { kEcQueueNew = 31, kEcProcessRuntime = 48 };

static HSAKMT_STATUS trap(struct dbg_trap* a) {
  HSAuint64 ret = 0;
  a->pid = (uint32_t)getpid();
  return hsaKmtDebugTrapIoctl((struct kfd_ioctl_dbg_trap_args*)a, NULL, &ret);
}

static int drain(int fd) {
  char buf[64];
  int n = 0;
  ssize_t r;
  while ((r = read(fd, buf, sizeof(buf))) > 0) n += (int)r;
  return n;
}

static uint32_t first_gpu_node(uint32_t* gpu_id) {
  HsaSystemProperties sys;
  if (hsaKmtAcquireSystemProperties(&sys) != HSAKMT_STATUS_SUCCESS) return UINT32_MAX;
  for (uint32_t n = 0; n < sys.NumNodes; ++n) {
    HsaNodeProperties p;
    if (hsaKmtGetNodeProperties(n, &p) == HSAKMT_STATUS_SUCCESS && p.NumFComputeCores != 0) {
      *gpu_id = p.KFDGpuID;
      return n;
    }
  }
  return UINT32_MAX;
}

static void* gtt(uint32_t node, uint64_t size) {
  HsaMemFlags f;
  memset(&f, 0, sizeof(f));
  f.ui32.HostAccess = 1;
  f.ui32.NonPaged = 1;
  f.ui32.ExecuteAccess = 1;
  void* p = NULL;
  if (hsaKmtAllocMemory(0, size, f, &p) != HSAKMT_STATUS_SUCCESS) return NULL;
  HsaMemMapFlags mf;
  memset(&mf, 0, sizeof(mf));
  HSAuint64 va = 0;
  if (hsaKmtMapMemoryToGPUNodes(p, size, &va, mf, 1, &node) != HSAKMT_STATUS_SUCCESS) return NULL;
  return p;
}

static int dbg_events(void) {
  uint32_t gpu_id = 0;
  const uint32_t node = first_gpu_node(&gpu_id);
  if (node == UINT32_MAX) {
    check("gpu-node", 0, "no GPU node");
    return 1;
  }
  char dir[] = "/tmp/hke-fifo-XXXXXX";
  if (mkdtemp(dir) == NULL) return 1;
  char path[64];
  snprintf(path, sizeof(path), "%s/events", dir);
  if (mkfifo(path, 0600) != 0) return 1;
  const int fifo = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
  uint8_t rinfo[16];
  struct dbg_trap a;
  memset(&a, 0, sizeof(a));
  a.op = kOpEnable;
  a.u.enable.rinfo_ptr = (uintptr_t)rinfo;
  a.u.enable.rinfo_size = sizeof(rinfo);
  a.u.enable.dbg_fd = (uint32_t)fifo;
  a.u.enable.exception_mask = EC_MASK(kEcQueueNew) | EC_MASK(kEcProcessRuntime);
  check("dbg-enable-fifo", fifo >= 0 && trap(&a) == HSAKMT_STATUS_SUCCESS, "DBG_TRAP ENABLE");
  int r_debug = 0;
  check("runtime-enable", hsaKmtRuntimeEnable(&r_debug, true) == HSAKMT_STATUS_SUCCESS, "");
  check("runtime-event-byte", drain(fifo) == 1, "expected one byte for EC_PROCESS_RUNTIME");
  void* ring = gtt(node, 4096);
  HsaQueueResource q;
  memset(&q, 0, sizeof(q));
  const HSAKMT_STATUS qs = ring == NULL ? HSAKMT_STATUS_ERROR
                                        : hsaKmtCreateQueue(node, HSA_QUEUE_SDMA, 100,
                                                            HSA_QUEUE_PRIORITY_NORMAL, ring, 4096,
                                                            NULL, &q);
  check("create-queue", qs == HSAKMT_STATUS_SUCCESS, "");
  check("queue-event-byte", drain(fifo) == 1, "expected one byte for EC_QUEUE_NEW");
  memset(&a, 0, sizeof(a));
  a.op = kOpQueryDebugEvent;
  a.u.query.exception_mask = EC_MASK(kEcQueueNew) | EC_MASK(kEcProcessRuntime);
  const HSAKMT_STATUS s = trap(&a);
  check("query-debug-event",
        s == HSAKMT_STATUS_SUCCESS && a.u.query.gpu_id == gpu_id &&
            (a.u.query.exception_mask & EC_MASK(kEcQueueNew)) != 0,
        "QUERY_DEBUG_EVENT did not name the new queue's GPU");
  if (qs == HSAKMT_STATUS_SUCCESS) hsaKmtDestroyQueue(q.QueueId);
  memset(&a, 0, sizeof(a));
  a.op = kOpDisable;
  check("dbg-disable", trap(&a) == HSAKMT_STATUS_SUCCESS, "");
  /* The thunk's own path: the KFD descriptor as the event file. */
  void* info = NULL;
  HSAuint32 size = 0;
  check("dbg-enable-kfd-fd", hsaKmtDbgEnable(&info, &size) == HSAKMT_STATUS_SUCCESS && size == 16,
        "");
  check("dbg-disable-kfd-fd", hsaKmtDbgDisable() == HSAKMT_STATUS_SUCCESS, "");
  close(fifo);
  unlink(path);
  rmdir(dir);
  return 0;
}

static int queue_buffers(void) {
  uint32_t gpu_id = 0;
  const uint32_t node = first_gpu_node(&gpu_id);
  void* ring = node == UINT32_MAX ? NULL : gtt(node, 4096);
  if (ring == NULL) {
    check("ring", 0, "no GPU node or no GTT ring");
    return 1;
  }
  HsaQueueResource q;
  memset(&q, 0, sizeof(q));
  q.QueueId = 0x1234;
  check("ring-beyond-buffer-refused",
        hsaKmtCreateQueue(node, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, 8192, NULL,
                          &q) == HSAKMT_STATUS_ERROR && q.QueueId == 0x1234,
        "an 8 KiB ring in a 4 KiB buffer was not refused, or the resource was written");
  check("ring-own-size-accepted",
        hsaKmtCreateQueue(node, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, 4096, NULL,
                          &q) == HSAKMT_STATUS_SUCCESS,
        "");
  check("destroy", hsaKmtDestroyQueue(q.QueueId) == HSAKMT_STATUS_SUCCESS, "");
  return 0;
}

static int amdgpu_params(const char* expected, int xnack) {
  char spec[256];
  snprintf(spec, sizeof(spec), "%s", expected);
  for (char* item = strtok(spec, ","); item != NULL; item = strtok(NULL, ",")) {
    char* eq = strchr(item, '=');
    if (eq == NULL) return 2;
    *eq = 0;
    char path[128];
    snprintf(path, sizeof(path), "/sys/module/amdgpu/parameters/%s", item);
    FILE* f = fopen(path, "r");
    int value = 12345;
    const int read = f != NULL && fscanf(f, "%d", &value) == 1;
    if (f != NULL) fclose(f);
    char what[160];
    snprintf(what, sizeof(what), "param-%s", item);
    char detail[160];
    snprintf(detail, sizeof(detail), "read %d (%s), expected %s", value, read ? "ok" : "unreadable",
             eq + 1);
    check(what, read && value == atoi(eq + 1), detail);
  }
  HSAint32 mode = -5;
  char detail[64];
  const HSAKMT_STATUS s = hsaKmtGetXNACKMode(&mode);
  snprintf(detail, sizeof(detail), "status %d mode %d, expected %d", (int)s, (int)mode, xnack);
  check("xnack-mode", s == HSAKMT_STATUS_SUCCESS && mode == xnack, detail);
  return 0;
}

static int share_child(uint32_t node, const HsaSharedMemoryHandle* h, int dmabuf_fd, uint64_t size,
                       int to_parent, int from_parent) {
  int bad = 0;
  if (hsaKmtOpenKFD() != HSAKMT_STATUS_SUCCESS) return 1; /* the fork rule: reopen */
  HsaSystemProperties sys;
  if (hsaKmtAcquireSystemProperties(&sys) != HSAKMT_STATUS_SUCCESS) return 2;
  void* q = NULL;
  HSAuint64 got = 0;
  if (hsaKmtRegisterSharedHandle(h, &q, &got) != HSAKMT_STATUS_SUCCESS || q == NULL) return 4;
  if (got != size) bad |= 8;
  if (hsaKmtMapMemoryToGPU(q, got, NULL) != HSAKMT_STATUS_SUCCESS) bad |= 16;
  volatile unsigned char* bytes = (volatile unsigned char*)q;
  if (bytes[12345] != 0x42) bad |= 32; /* the parent's bytes */
  bytes[7] = 0x99;                     /* seen by the parent */
  HsaGraphicsResourceInfo info;
  memset(&info, 0, sizeof(info));
  if (hsaKmtRegisterGraphicsHandleToNodes((HSAuint64)dmabuf_fd, &info, 1, &node) != HSAKMT_STATUS_SUCCESS ||
      (uint64_t)info.SizeInBytes != size) {
    bad |= 64;
  }
  const char imported = 'i';
  if (write(to_parent, &imported, 1) != 1) bad |= 128;
  char freed = 0;
  if (read(from_parent, &freed, 1) != 1 || freed != 'f') bad |= 256;
  if (bytes[12345] != 0x42 || bytes[8] != 0x77) bad |= 512; /* kept after the parent's free */
  if (hsaKmtUnmapMemoryToGPU(q) != HSAKMT_STATUS_SUCCESS) bad |= 1024;
  if (hsaKmtDeregisterMemory(q) != HSAKMT_STATUS_SUCCESS) bad |= 2048;
  if (info.MemoryAddress != NULL && hsaKmtDeregisterMemory(info.MemoryAddress) != HSAKMT_STATUS_SUCCESS) {
    bad |= 4096;
  }
  return bad;
}

static int share_fork(void) {
  uint32_t gpu_id = 0;
  const uint32_t node = first_gpu_node(&gpu_id);
  if (node == UINT32_MAX) {
    check("gpu-node", 0, "no GPU node");
    return 1;
  }
  const uint64_t size = 1 << 20;
  HsaMemFlags f;
  memset(&f, 0, sizeof(f));
  f.ui32.NonPaged = 1;
  f.ui32.HostAccess = 1;
  void* p = NULL;
  check("alloc", hsaKmtAllocMemory(node, size, f, &p) == HSAKMT_STATUS_SUCCESS, "VRAM with host access");
  if (p == NULL) return 1;
  memset(p, 0x42, size);
  HsaSharedMemoryHandle h;
  check("share", hsaKmtShareMemory(p, size, &h) == HSAKMT_STATUS_SUCCESS, "");
  int fd = -1;
  HSAuint64 off = 0;
  check("export-dmabuf", hsaKmtExportDMABufHandle(p, size, &fd, &off) == HSAKMT_STATUS_SUCCESS, "");
  int up[2], down[2];
  if (pipe(up) != 0 || pipe(down) != 0) return 1;
  fflush(stdout);
  const pid_t pid = fork();
  if (pid < 0) return 1;
  if (pid == 0) {
    close(up[0]);
    close(down[1]);
    _exit(share_child(node, (const HsaSharedMemoryHandle*)&h, fd, size, up[1], down[0]));
  }
  close(up[1]);
  close(down[0]);
  char imported = 0;
  const int child_imported = read(up[0], &imported, 1) == 1 && imported == 'i';
  check("child-imported", child_imported, "the child did not report its imports");
  if (child_imported) {
    check("child-bytes-seen", ((unsigned char*)p)[7] == 0x99, "the child's byte is not in the parent's buffer");
    ((unsigned char*)p)[8] = 0x77;
  }
  check("free", hsaKmtFreeMemory(p, size) == HSAKMT_STATUS_SUCCESS, "");
  close(fd);
  const char freed = 'f';
  signal(SIGPIPE, SIG_IGN); /* a child that failed early closed its end: EPIPE, not death */
  check("signal-child", write(down[1], &freed, 1) == 1, "");
  int st = 0;
  char detail[64];
  const int waited = waitpid(pid, &st, 0) == pid;
  snprintf(detail, sizeof(detail), "child status 0x%x", st);
  check("child", waited && WIFEXITED(st) && WEXITSTATUS(st) == 0, detail);
  close(up[0]);
  close(down[1]);
  return 0;
}

int main(int argc, char** argv) {
  const int params = argc == 4 && strcmp(argv[1], "amdgpu-params") == 0;
  if (argc != 2 && !params) {
    fprintf(stderr, "usage: fidelity_api dbg-events|queue-buffers|share-fork|amdgpu-params SPEC XNACK\n");
    return 2;
  }
  if (hsaKmtOpenKFD() != HSAKMT_STATUS_SUCCESS) {
    check("open", 0, "hsaKmtOpenKFD");
    return 1;
  }
  int r = 2;
  if (strcmp(argv[1], "dbg-events") == 0) r = dbg_events();
  if (strcmp(argv[1], "queue-buffers") == 0) r = queue_buffers();
  if (strcmp(argv[1], "share-fork") == 0) r = share_fork();
  if (params) r = amdgpu_params(argv[2], atoi(argv[3]));
  hsaKmtCloseKFD();
  if (r == 2) fprintf(stderr, "fidelity_api: unknown scenario '%s'\n", argv[1]);
  return r != 0 ? r : (failures != 0);
}
