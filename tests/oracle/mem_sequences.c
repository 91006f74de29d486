/*
 * Memory oracle: runs a fixed list of named scenarios through the public
 * memory API (<hsakmt/hsakmt.h> only) and prints one line per API call:
 *
 *   <scenario> <call> status=<n> [key=value ...]
 *
 * with only values that are not addresses (sizes, flags, node numbers,
 * relations such as cpu=ptr meaning "CPUAddress equals the pointer the
 * allocation returned"). Built from this one source against Debian's
 * libhsakmt 5.2.3 (HKE_ORACLE_DEBIAN, Debian's /usr/include/hsakmt.h),
 * against hsakmt-embedded and against upstream's current libhsakmt (its own
 * header, upstream_build.sh). tests/oracle/mem_compare.sh runs a reference
 * and ours under libkfdsim-preload.so with KFDSIM_TRACE set and compares,
 * scenario by scenario, the printed lines and the KFD/DRM ioctls of the
 * trace.
 *
 * Markers: before each scenario the program calls
 * access("/dev/hke-oracle-mem/<scenario>", F_OK), and right after each API
 * call access("/dev/hke-oracle-mem-call/<call>", F_OK). The paths do not
 * exist (ENOENT, nothing else happens), but the preload traces every file
 * operation under /dev in the same stream as the ioctls, in order
 * ("path access /dev/hke-oracle-mem/<scenario> -> host"), so the trace can
 * be cut per scenario and each ioctl attributed to the call that issued it;
 * the libraries never make such calls themselves.
 *
 * A scenario whose entry point or flag Debian's 5.2.3 header lacks
 * (AllocMemoryAlign, AvailableMemory, ExportDMABufHandle, OnlyAddress,
 * NoAddress, Contiguous) prints "<scenario> skipped reason=not-in-5.2.3"
 * in the Debian build; it still has its marker, so its trace segment is
 * empty. A call that depends on an earlier one that failed is not made
 * (the later lines are simply missing); cleanup calls are made only for
 * what succeeded.
 *
 *   mem_sequences            run every scenario
 *   mem_sequences --list     print the scenario names
 * Exit status: 0 when hsaKmtOpenKFD and hsaKmtAcquireSystemProperties
 * succeeded (the run is a usable reference whatever the other statuses),
 * 1 otherwise, 2 usage.
 *
 * Single-threaded.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifdef HKE_ORACLE_DEBIAN
#include <hsakmt.h>
#define HAVE_NEWER_API 0 /* AllocMemoryAlign, AvailableMemory, dma-buf export, newer flags */
#else
#include "hsakmt/hsakmt.h"
#define HAVE_NEWER_API 1
#endif

#define MARKER_DIR "/dev/hke-oracle-mem/"
#define CALL_MARKER_DIR "/dev/hke-oracle-mem-call/"
#define MAX_NODES 256

#define KiB ((uint64_t)1024)
#define MiB (1024 * KiB)

/* Topology as the library reports it. */
static HSAuint32 g_num_nodes;
static HSAuint32 g_gpu_nodes[MAX_NODES]; /* node ids of GPU nodes, ascending */
static HSAuint32 g_num_gpus;
static HSAuint32 g_gpu;     /* first GPU node: where device memory comes from */
static HSAuint32 g_cpu = 0; /* system memory node */

static void mark(const char* scenario) {
  char path[256];
  fflush(stdout);
  snprintf(path, sizeof(path), MARKER_DIR "%s", scenario);
  (void)access(path, F_OK); /* fails with ENOENT; only the trace line matters */
  printf("%s begin\n", scenario);
}

/* Marks the end of an API call in the trace: the ioctls since the previous
 * marker are this call's. Spaces in the name become '_'. */
static void call_mark(const char* call) {
  char path[256];
  int n = snprintf(path, sizeof(path), CALL_MARKER_DIR "%s", call);
  for (int i = 0; i < n && i < (int)sizeof(path); ++i) {
    if (path[i] == ' ') path[i] = '_';
  }
  (void)access(path, F_OK);
}

/* One output line: scenario, call, status, then the caller's key=value
 * text. Called right after every API call, so it also marks the call's end
 * in the trace. */
static void line(const char* scenario, const char* call, HSAKMT_STATUS s, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void line(const char* scenario, const char* call, HSAKMT_STATUS s, const char* fmt, ...) {
  call_mark(call);
  printf("%s %s status=%d", scenario, call, (int)s);
  if (fmt != NULL && fmt[0] != '\0') {
    va_list ap;
    va_start(ap, fmt);
    putchar(' ');
    vprintf(fmt, ap);
    va_end(ap);
  }
  putchar('\n');
}

static void skipped(const char* scenario, const char* reason) {
  printf("%s skipped reason=%s\n", scenario, reason);
}

/* How an address relates to the pointer of the allocation (no address is
 * ever printed): 0, ptr (equal), ptr+<hex> (inside, offset), other. */
static const char* relation(uint64_t value, const void* ptr, uint64_t size, char* buf, size_t n) {
  const uint64_t p = (uint64_t)(uintptr_t)ptr;
  if (value == 0) return "0";
  if (value == p) return "ptr";
  if (value > p && value - p < size) {
    snprintf(buf, n, "ptr+0x%llx", (unsigned long long)(value - p));
    return buf;
  }
  return "other";
}

static void print_nodes(char* out, size_t n, const HSAuint32* nodes, HSAuint32 count) {
  size_t used = 0;
  out[0] = '\0';
  if (nodes == NULL) {
    snprintf(out, n, count == 0 ? "-" : "<null>");
    return;
  }
  if (count == 0) {
    snprintf(out, n, "-");
    return;
  }
  for (HSAuint32 i = 0; i < count && used + 12 < n; ++i) {
    used += (size_t)snprintf(out + used, n - used, "%s%u", i ? "," : "", nodes[i]);
  }
}

static void query(const char* sc, const char* what, const void* at, const void* base,
                  uint64_t size, const void* user_data) {
  HsaPointerInfo info;
  memset(&info, 0, sizeof(info));
  HSAKMT_STATUS s = hsaKmtQueryPointerInfo(at, &info);
  char call[64];
  snprintf(call, sizeof(call), "QueryPointerInfo(%s)", what);
  if (s != HSAKMT_STATUS_SUCCESS) {
    line(sc, call, s, NULL);
    return;
  }
  char reg[256], mapped[256], cpu[32], gpu[32], node[16];
  /* A node number the topology does not have is printed as "invalid" (Debian
   * 5.2.3 leaves Node uninitialised for IPC imports on some boards). */
  if (info.Node < g_num_nodes) {
    snprintf(node, sizeof(node), "%u", info.Node);
  } else {
    snprintf(node, sizeof(node), "invalid");
  }
  print_nodes(reg, sizeof(reg), info.RegisteredNodes, info.NRegisteredNodes);
  print_nodes(mapped, sizeof(mapped), info.MappedNodes, info.NMappedNodes);
  line(sc, call, s,
       "type=%d node=%s memflags=0x%08x size=0x%llx cpu=%s gpu=%s nreg=%u reg=%s nmapped=%u "
       "mapped=%s userdata=%s",
       (int)info.Type, node, (unsigned)info.MemFlags.Value,
       (unsigned long long)info.SizeInBytes,
       relation((uint64_t)(uintptr_t)info.CPUAddress, base, size, cpu, sizeof(cpu)),
       relation(info.GPUAddress, base, size, gpu, sizeof(gpu)), info.NRegisteredNodes, reg,
       info.NMappedNodes, mapped,
       info.UserData == NULL ? "0" : (info.UserData == user_data ? "set" : "other"));
}

static const char* alt_text(HSAuint64 alt, const void* p, uint64_t size, char* buf, size_t n) {
  return relation(alt, p, size, buf, n);
}

/* ---- allocation scenarios ------------------------------------------------ */

enum map_mode { MAP_ONE, MAP_ALL_GPUS };

/* AllocMemory (or AllocMemoryAlign when align != 0), map, query at the
 * start and inside, unmap, free, query after free. */
static void alloc_cycle(const char* sc, HSAuint32 node, uint64_t size, HsaMemFlags flags,
                        uint64_t align, enum map_mode mode) {
  void* p = NULL;
  HSAKMT_STATUS s;
  char b1[32];
  const char* call = "AllocMemory";
#if HAVE_NEWER_API
  if (align != 0) {
    call = "AllocMemoryAlign";
    s = hsaKmtAllocMemoryAlign(node, size, align, flags, &p);
  } else {
    s = hsaKmtAllocMemory(node, size, flags, &p);
  }
#else
  (void)align;
  s = hsaKmtAllocMemory(node, size, flags, &p);
#endif
  if (s == HSAKMT_STATUS_SUCCESS) {
    line(sc, call, s, "node=%u size=0x%llx flags=0x%08x align=0x%llx ptr=%s page_aligned=%d%s",
         node, (unsigned long long)size, (unsigned)flags.Value, (unsigned long long)align,
         p == NULL ? "0" : "set", ((uintptr_t)p & 4095) == 0,
         align != 0 ? (((uintptr_t)p & (align - 1)) == 0 ? " align_ok=1" : " align_ok=0") : "");
  } else {
    line(sc, call, s, "node=%u size=0x%llx flags=0x%08x align=0x%llx", node,
         (unsigned long long)size, (unsigned)flags.Value, (unsigned long long)align);
    return;
  }
  HSAuint64 alt = 0;
  if (mode == MAP_ONE) {
    s = hsaKmtMapMemoryToGPU(p, size, &alt);
    line(sc, "MapMemoryToGPU", s, "alt_va=%s", alt_text(alt, p, size, b1, sizeof(b1)));
  } else {
    HsaMemMapFlags mf;
    memset(&mf, 0, sizeof(mf));
    s = hsaKmtMapMemoryToGPUNodes(p, size, &alt, mf, g_num_gpus, g_gpu_nodes);
    line(sc, "MapMemoryToGPUNodes", s, "nodes=%u alt_va=%s", g_num_gpus,
         alt_text(alt, p, size, b1, sizeof(b1)));
  }
  const int mapped = s == HSAKMT_STATUS_SUCCESS;
  query(sc, "start", p, p, size, NULL);
  if (size > 4096) query(sc, "inside", (const char*)p + size / 2, p, size, NULL);
  if (mapped) {
    s = hsaKmtUnmapMemoryToGPU(p);
    line(sc, "UnmapMemoryToGPU", s, NULL);
  }
  s = hsaKmtFreeMemory(p, size);
  line(sc, "FreeMemory", s, NULL);
  if (s == HSAKMT_STATUS_SUCCESS) query(sc, "after-free", p, p, size, NULL);
}

static HsaMemFlags flags0(void) {
  HsaMemFlags f;
  memset(&f, 0, sizeof(f));
  return f;
}

/* System memory the way ROCR allocates it: paged, host-accessible. */
static HsaMemFlags sys_paged(void) {
  HsaMemFlags f = flags0();
  f.ui32.HostAccess = 1;
  f.ui32.PageSize = HSA_PAGE_SIZE_4KB;
  return f;
}

/* Non-paged (pinned, GTT) system memory. */
static HsaMemFlags sys_gtt(void) {
  HsaMemFlags f = sys_paged();
  f.ui32.NonPaged = 1;
  return f;
}

/* Device-local memory, no CPU access. */
static HsaMemFlags vram(void) {
  HsaMemFlags f = flags0();
  f.ui32.NonPaged = 1;
  f.ui32.PageSize = HSA_PAGE_SIZE_4KB;
  return f;
}

static HsaMemFlags vram_host(void) {
  HsaMemFlags f = vram();
  f.ui32.HostAccess = 1;
  return f;
}

typedef struct {
  const char* name;
  int on_gpu;       /* node: the first GPU node, else node 0 */
  uint64_t size;
  HsaMemFlags (*base)(void);
  void (*tweak)(HsaMemFlags*);
  uint64_t align;   /* nonzero: hsaKmtAllocMemoryAlign (newer API) */
  int newer;        /* needs the newer API or a newer flag */
  enum map_mode map;
} alloc_scenario;

static void t_none(HsaMemFlags* f) { (void)f; }
static void t_coarse(HsaMemFlags* f) { f->ui32.CoarseGrain = 1; }
static void t_uncached(HsaMemFlags* f) { f->ui32.Uncached = 1; }
static void t_readonly(HsaMemFlags* f) { f->ui32.ReadOnly = 1; }
static void t_exec(HsaMemFlags* f) { f->ui32.ExecuteAccess = 1; }
static void t_aql(HsaMemFlags* f) { f->ui32.AQLQueueMemory = 1; }
static void t_nosub(HsaMemFlags* f) { f->ui32.NoSubstitute = 1; }
static void t_nonuma(HsaMemFlags* f) { f->ui32.NoNUMABind = 1; }
static void t_page64k(HsaMemFlags* f) { f->ui32.PageSize = HSA_PAGE_SIZE_64KB; }
static void t_scratch(HsaMemFlags* f) {
  f->ui32.Scratch = 1;
  f->ui32.HostAccess = 0;
}
#if HAVE_NEWER_API
static void t_only_address(HsaMemFlags* f) { f->ui32.OnlyAddress = 1; }
static void t_no_address(HsaMemFlags* f) { f->ui32.NoAddress = 1; }
static void t_contiguous(HsaMemFlags* f) { f->ui32.Contiguous = 1; }
#endif

static const alloc_scenario kAllocScenarios[] = {
    {"sys-paged-host", 0, 2 * MiB, sys_paged, t_none, 0, 0, MAP_ONE},
    {"sys-paged-coarse", 0, 64 * KiB, sys_paged, t_coarse, 0, 0, MAP_ONE},
    {"sys-paged-readonly", 0, 64 * KiB, sys_paged, t_readonly, 0, 0, MAP_ONE},
    {"sys-paged-exec", 0, 64 * KiB, sys_paged, t_exec, 0, 0, MAP_ONE},
    {"sys-paged-nosubstitute", 0, 64 * KiB, sys_paged, t_nosub, 0, 0, MAP_ONE},
    {"sys-paged-nonumabind", 0, 64 * KiB, sys_paged, t_nonuma, 0, 0, MAP_ONE},
    {"sys-paged-all-gpus", 0, 64 * KiB, sys_paged, t_none, 0, 0, MAP_ALL_GPUS},
    {"sys-gtt", 0, 64 * KiB, sys_gtt, t_none, 0, 0, MAP_ONE},
    {"sys-gtt-coarse", 0, 64 * KiB, sys_gtt, t_coarse, 0, 0, MAP_ONE},
    {"sys-gtt-uncached", 0, 64 * KiB, sys_gtt, t_uncached, 0, 0, MAP_ONE},
    {"sys-gtt-readonly", 0, 64 * KiB, sys_gtt, t_readonly, 0, 0, MAP_ONE},
    {"sys-gtt-exec", 0, 64 * KiB, sys_gtt, t_exec, 0, 0, MAP_ONE},
    {"sys-gtt-aql", 0, 64 * KiB, sys_gtt, t_aql, 0, 0, MAP_ONE},
    {"vram-nohost", 1, 64 * KiB, vram, t_none, 0, 0, MAP_ONE},
    {"vram-host", 1, 64 * KiB, vram_host, t_none, 0, 0, MAP_ONE},
    {"vram-host-coarse", 1, 64 * KiB, vram_host, t_coarse, 0, 0, MAP_ONE},
    {"vram-uncached", 1, 64 * KiB, vram_host, t_uncached, 0, 0, MAP_ONE},
    {"vram-readonly", 1, 64 * KiB, vram_host, t_readonly, 0, 0, MAP_ONE},
    {"vram-exec", 1, 64 * KiB, vram_host, t_exec, 0, 0, MAP_ONE},
    {"vram-aql", 1, 64 * KiB, vram_host, t_aql, 0, 0, MAP_ONE},
    {"vram-nosubstitute", 1, 64 * KiB, vram, t_nosub, 0, 0, MAP_ONE},
    {"vram-page64k", 1, 2 * MiB, vram, t_page64k, 0, 0, MAP_ONE},
    {"vram-all-gpus", 1, 64 * KiB, vram_host, t_none, 0, 0, MAP_ALL_GPUS},
    {"vram-scratch", 1, 64 * KiB, vram, t_scratch, 0, 0, MAP_ONE},
#if HAVE_NEWER_API
    {"vram-only-address", 1, 64 * KiB, vram, t_only_address, 0, 1, MAP_ONE},
    {"vram-no-address", 1, 64 * KiB, vram, t_no_address, 0, 1, MAP_ONE},
    {"vram-contiguous", 1, 2 * MiB, vram, t_contiguous, 0, 1, MAP_ONE},
    {"vram-align-64k", 1, 64 * KiB, vram, t_none, 64 * KiB, 1, MAP_ONE},
    {"vram-align-2m", 1, 2 * MiB, vram, t_none, 2 * MiB, 1, MAP_ONE},
    {"sys-gtt-align-2m", 0, 64 * KiB, sys_gtt, t_none, 2 * MiB, 1, MAP_ONE},
#else
    {"vram-only-address", 1, 0, NULL, NULL, 0, 1, MAP_ONE},
    {"vram-no-address", 1, 0, NULL, NULL, 0, 1, MAP_ONE},
    {"vram-contiguous", 1, 0, NULL, NULL, 0, 1, MAP_ONE},
    {"vram-align-64k", 1, 0, NULL, NULL, 0, 1, MAP_ONE},
    {"vram-align-2m", 1, 0, NULL, NULL, 0, 1, MAP_ONE},
    {"sys-gtt-align-2m", 0, 0, NULL, NULL, 0, 1, MAP_ONE},
#endif
};

static void run_alloc_scenario(const alloc_scenario* a) {
  mark(a->name);
  if (a->newer && !HAVE_NEWER_API) {
    skipped(a->name, "not-in-5.2.3");
    return;
  }
  HsaMemFlags f = a->base();
  a->tweak(&f);
  alloc_cycle(a->name, a->on_gpu ? g_gpu : g_cpu, a->size, f, a->align, a->map);
}

/* ---- other scenarios ------------------------------------------------------- */

/* Page-aligned anonymous memory that is not the library's. */
static void* host_buffer(size_t size) {
  void* p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return NULL;
  memset(p, 0x5a, size);
  return p;
}

static void sc_user_data(void) {
  const char* sc = "user-data";
  mark(sc);
  void* p = NULL;
  const uint64_t size = 64 * KiB;
  HSAKMT_STATUS s = hsaKmtAllocMemory(g_cpu, size, sys_paged(), &p);
  line(sc, "AllocMemory", s, "node=%u size=0x%llx", g_cpu, (unsigned long long)size);
  if (s != HSAKMT_STATUS_SUCCESS) return;
  static int cookie;
  s = hsaKmtSetMemoryUserData(p, &cookie);
  line(sc, "SetMemoryUserData", s, NULL);
  query(sc, "start", p, p, size, &cookie);
  s = hsaKmtSetMemoryUserData((char*)p + 4096, NULL);
  line(sc, "SetMemoryUserData(inside)", s, NULL);
  query(sc, "start", p, p, size, &cookie);
  s = hsaKmtFreeMemory(p, size);
  line(sc, "FreeMemory", s, NULL);
}

static void sc_query_unknown(void) {
  const char* sc = "query-unknown";
  mark(sc);
  const size_t size = 64 * KiB;
  void* buf = host_buffer(size);
  if (buf == NULL) {
    skipped(sc, "host-mmap-failed");
    return;
  }
  query(sc, "host-buffer", buf, buf, size, NULL);
  HSAKMT_STATUS s = hsaKmtSetMemoryUserData(buf, buf);
  line(sc, "SetMemoryUserData", s, NULL);
  s = hsaKmtUnmapMemoryToGPU(buf);
  line(sc, "UnmapMemoryToGPU", s, NULL);
  s = hsaKmtDeregisterMemory(buf);
  line(sc, "DeregisterMemory", s, NULL);
  munmap(buf, size);
}

/* RegisterMemory (to all GPUs) or RegisterMemoryToNodes (every GPU node)
 * or RegisterMemoryWithFlags, then map, query, unmap, deregister. */
enum reg_mode { REG_ALL, REG_NODES, REG_FLAGS };

static void sc_register(const char* sc, enum reg_mode mode, size_t size, size_t offset) {
  mark(sc);
  void* buf = host_buffer(size + offset);
  if (buf == NULL) {
    skipped(sc, "host-mmap-failed");
    return;
  }
  void* p = (char*)buf + offset;
  HSAKMT_STATUS s;
  char b1[32];
  if (mode == REG_ALL) {
    s = hsaKmtRegisterMemory(p, size);
    line(sc, "RegisterMemory", s, "size=0x%llx offset=0x%llx", (unsigned long long)size,
         (unsigned long long)offset);
  } else if (mode == REG_NODES) {
    s = hsaKmtRegisterMemoryToNodes(p, size, g_num_gpus, g_gpu_nodes);
    line(sc, "RegisterMemoryToNodes", s, "size=0x%llx nodes=%u", (unsigned long long)size,
         g_num_gpus);
  } else {
    HsaMemFlags f = flags0();
    f.ui32.HostAccess = 1;
    f.ui32.CoarseGrain = 1;
    s = hsaKmtRegisterMemoryWithFlags(p, size, f);
    line(sc, "RegisterMemoryWithFlags", s, "size=0x%llx flags=0x%08x", (unsigned long long)size,
         (unsigned)f.Value);
  }
  if (s == HSAKMT_STATUS_SUCCESS) {
    HSAuint64 alt = 0;
    if (mode == REG_NODES) {
      HsaMemMapFlags mf;
      memset(&mf, 0, sizeof(mf));
      s = hsaKmtMapMemoryToGPUNodes(p, size, &alt, mf, g_num_gpus, g_gpu_nodes);
      line(sc, "MapMemoryToGPUNodes", s, "nodes=%u alt_va=%s", g_num_gpus,
           alt_text(alt, p, size, b1, sizeof(b1)));
    } else {
      s = hsaKmtMapMemoryToGPU(p, size, &alt);
      line(sc, "MapMemoryToGPU", s, "alt_va=%s", alt_text(alt, p, size, b1, sizeof(b1)));
    }
    const int mapped = s == HSAKMT_STATUS_SUCCESS;
    query(sc, "start", p, p, size, NULL);
    if (mapped) {
      s = hsaKmtUnmapMemoryToGPU(p);
      line(sc, "UnmapMemoryToGPU", s, NULL);
    }
    s = hsaKmtDeregisterMemory(p);
    line(sc, "DeregisterMemory", s, NULL);
    query(sc, "after-deregister", p, p, size, NULL);
  }
  munmap(buf, size + offset);
}

static void sc_available(void) {
  const char* sc = "available-memory";
  mark(sc);
#if HAVE_NEWER_API
  for (HSAuint32 i = 0; i < g_num_gpus; ++i) {
    HSAuint64 bytes = 0;
    char call[64];
    snprintf(call, sizeof(call), "AvailableMemory(node %u)", g_gpu_nodes[i]);
    HSAKMT_STATUS s = hsaKmtAvailableMemory(g_gpu_nodes[i], &bytes);
    line(sc, call, s, "bytes=0x%llx", (unsigned long long)bytes);
  }
  HSAuint64 bytes = 0;
  HSAKMT_STATUS s = hsaKmtAvailableMemory(g_cpu, &bytes);
  line(sc, "AvailableMemory(cpu node)", s, NULL);
#else
  skipped(sc, "not-in-5.2.3");
#endif
}

static void sc_xnack(void) {
  const char* sc = "xnack";
  mark(sc);
  HSAint32 mode = -7;
  HSAKMT_STATUS s = hsaKmtGetXNACKMode(&mode);
  line(sc, "GetXNACKMode", s, "mode=%d", (int)mode);
  const HSAint32 original = mode;
  s = hsaKmtSetXNACKMode(1);
  line(sc, "SetXNACKMode(1)", s, NULL);
  mode = -7;
  s = hsaKmtGetXNACKMode(&mode);
  line(sc, "GetXNACKMode", s, "mode=%d", (int)mode);
  s = hsaKmtSetXNACKMode(0);
  line(sc, "SetXNACKMode(0)", s, NULL);
  mode = -7;
  s = hsaKmtGetXNACKMode(&mode);
  line(sc, "GetXNACKMode", s, "mode=%d", (int)mode);
  if (original == 0 || original == 1) {
    s = hsaKmtSetXNACKMode(original);
    line(sc, "SetXNACKMode(original)", s, NULL);
  }
}

static void print_attrs(const char* sc, const char* call, HSAKMT_STATUS s,
                        const HSA_SVM_ATTRIBUTE* a, unsigned n) {
  char text[512];
  size_t used = 0;
  text[0] = '\0';
  for (unsigned i = 0; i < n && used + 32 < sizeof(text); ++i) {
    used += (size_t)snprintf(text + used, sizeof(text) - used, "%s%u:0x%x", i ? "," : "",
                             (unsigned)a[i].type, (unsigned)a[i].value);
  }
  line(sc, call, s, "attrs=%s", text);
}

static void sc_svm(void) {
  const char* sc = "svm";
  mark(sc);
  const size_t size = 2 * MiB;
  void* buf = host_buffer(size);
  if (buf == NULL) {
    skipped(sc, "host-mmap-failed");
    return;
  }
  HSA_SVM_ATTRIBUTE set[] = {
      {HSA_SVM_ATTR_PREFERRED_LOC, g_gpu},
      {HSA_SVM_ATTR_ACCESS, g_gpu},
      {HSA_SVM_ATTR_SET_FLAGS, HSA_SVM_FLAG_COHERENT | HSA_SVM_FLAG_HOST_ACCESS},
      {HSA_SVM_ATTR_GRANULARITY, 9},
  };
  HSAKMT_STATUS s = hsaKmtSVMSetAttr(buf, size, 4, set);
  print_attrs(sc, "SVMSetAttr", s, set, 4);
  HSA_SVM_ATTRIBUTE get[] = {
      {HSA_SVM_ATTR_PREFERRED_LOC, 0}, {HSA_SVM_ATTR_PREFETCH_LOC, 0},
      {HSA_SVM_ATTR_ACCESS, g_gpu},    {HSA_SVM_ATTR_SET_FLAGS, 0},
      {HSA_SVM_ATTR_CLR_FLAGS, 0},     {HSA_SVM_ATTR_GRANULARITY, 0},
  };
  s = hsaKmtSVMGetAttr(buf, size, 6, get);
  print_attrs(sc, "SVMGetAttr", s, get, 6);
  HSA_SVM_ATTRIBUTE clr[] = {{HSA_SVM_ATTR_CLR_FLAGS, HSA_SVM_FLAG_COHERENT},
                             {HSA_SVM_ATTR_NO_ACCESS, g_gpu}};
  s = hsaKmtSVMSetAttr(buf, size, 2, clr);
  print_attrs(sc, "SVMSetAttr", s, clr, 2);
  HSA_SVM_ATTRIBUTE bad[] = {{HSA_SVM_ATTR_ACCESS, g_cpu}};
  s = hsaKmtSVMSetAttr(buf, size, 1, bad);
  print_attrs(sc, "SVMSetAttr(cpu node)", s, bad, 1);
  /* The range is left mapped on purpose: the simulator keeps SVM ranges
   * after munmap (no MMU notifier), and a later allocation that reused the
   * address would then fail with EADDRINUSE. */
}

static void sc_export_dmabuf(void) {
  const char* sc = "export-dmabuf";
  mark(sc);
#if HAVE_NEWER_API
  void* p = NULL;
  const uint64_t size = 2 * MiB;
  HSAKMT_STATUS s = hsaKmtAllocMemory(g_gpu, size, vram_host(), &p);
  line(sc, "AllocMemory", s, "node=%u size=0x%llx", g_gpu, (unsigned long long)size);
  if (s != HSAKMT_STATUS_SUCCESS) return;
  int fd = -1;
  HSAuint64 offset = ~0ull;
  s = hsaKmtExportDMABufHandle((char*)p + 64 * KiB, 64 * KiB, &fd, &offset);
  line(sc, "ExportDMABufHandle(inside)", s, "fd=%s offset=0x%llx", fd >= 0 ? "set" : "none",
       (unsigned long long)offset);
  if (s == HSAKMT_STATUS_SUCCESS && fd >= 0) close(fd);
  s = hsaKmtFreeMemory(p, size);
  line(sc, "FreeMemory", s, NULL);
#else
  skipped(sc, "not-in-5.2.3");
#endif
}

static void sc_share(const char* sc, HSAuint32 node, HsaMemFlags flags) {
  mark(sc);
  void* p = NULL;
  const uint64_t size = 2 * MiB;
  char b1[32];
  HSAKMT_STATUS s = hsaKmtAllocMemory(node, size, flags, &p);
  line(sc, "AllocMemory", s, "node=%u size=0x%llx flags=0x%08x", node, (unsigned long long)size,
       (unsigned)flags.Value);
  if (s != HSAKMT_STATUS_SUCCESS) return;
  HsaSharedMemoryHandle h;
  memset(&h, 0, sizeof(h));
  s = hsaKmtShareMemory(p, size, &h);
  line(sc, "ShareMemory", s, NULL);
  if (s == HSAKMT_STATUS_SUCCESS) {
    void* q = NULL;
    HSAuint64 qsize = 0;
    s = hsaKmtRegisterSharedHandle((const HsaSharedMemoryHandle*)&h, &q, &qsize);
    line(sc, "RegisterSharedHandle", s, "size=0x%llx ptr=%s", (unsigned long long)qsize,
         q == NULL ? "0" : (q == p ? "same" : "new"));
    if (s == HSAKMT_STATUS_SUCCESS) {
      HSAuint64 alt = 0;
      s = hsaKmtMapMemoryToGPU(q, qsize, &alt);
      line(sc, "MapMemoryToGPU(import)", s, "alt_va=%s", alt_text(alt, q, qsize, b1, sizeof(b1)));
      const int mapped = s == HSAKMT_STATUS_SUCCESS;
      query(sc, "import", q, q, qsize, NULL);
      if (mapped) {
        s = hsaKmtUnmapMemoryToGPU(q);
        line(sc, "UnmapMemoryToGPU(import)", s, NULL);
      }
      s = hsaKmtDeregisterMemory(q);
      line(sc, "DeregisterMemory(import)", s, NULL);
    }
  }
  s = hsaKmtFreeMemory(p, size);
  line(sc, "FreeMemory", s, NULL);
}

/* ---- events and queues (issues 6 and 7) ------------------------------------ */

static HsaEvent* make_event(const char* sc, const char* call, HSA_EVENTTYPE type, bool manual) {
  HsaEventDescriptor d;
  memset(&d, 0, sizeof(d));
  d.EventType = type;
  d.NodeId = g_gpu;
  d.SyncVar.SyncVarSize = sizeof(HSAuint64);
  HsaEvent* e = NULL;
  HSAKMT_STATUS s = hsaKmtCreateEvent(&d, manual, false, &e);
  line(sc, call, s, "type=%d manual=%d", (int)type, (int)manual);
  return s == HSAKMT_STATUS_SUCCESS ? e : NULL;
}

static void sc_events(void) {
  const char* sc = "events";
  mark(sc);
  HsaEvent* sig = make_event(sc, "CreateEvent(signal)", HSA_EVENTTYPE_SIGNAL, false);
  HsaEvent* man = make_event(sc, "CreateEvent(signal,manual)", HSA_EVENTTYPE_SIGNAL, true);
  HsaEvent* mem = make_event(sc, "CreateEvent(memory)", HSA_EVENTTYPE_MEMORY, true);
  if (sig != NULL) {
    line(sc, "WaitOnEvent(unset,0ms)", hsaKmtWaitOnEvent(sig, 0), NULL);
    line(sc, "SetEvent", hsaKmtSetEvent(sig), NULL);
    line(sc, "WaitOnEvent(set,0ms)", hsaKmtWaitOnEvent(sig, 0), NULL);
    line(sc, "WaitOnEvent(auto-reset,0ms)", hsaKmtWaitOnEvent(sig, 0), NULL);
  }
  if (man != NULL) {
    line(sc, "SetEvent(manual)", hsaKmtSetEvent(man), NULL);
    line(sc, "ResetEvent(manual)", hsaKmtResetEvent(man), NULL);
    line(sc, "WaitOnEvent(manual,0ms)", hsaKmtWaitOnEvent(man, 0), NULL);
  }
  if (sig != NULL && man != NULL) {
    HsaEvent* both[2] = {sig, man};
    line(sc, "SetEvent(manual,again)", hsaKmtSetEvent(man), NULL);
    line(sc, "WaitOnMultipleEvents(any,0ms)", hsaKmtWaitOnMultipleEvents(both, 2, false, 0), NULL);
    line(sc, "WaitOnMultipleEvents(all,0ms)", hsaKmtWaitOnMultipleEvents(both, 2, true, 0), NULL);
  }
  if (mem != NULL) line(sc, "DestroyEvent(memory)", hsaKmtDestroyEvent(mem), NULL);
  if (man != NULL) line(sc, "DestroyEvent(manual)", hsaKmtDestroyEvent(man), NULL);
  if (sig != NULL) line(sc, "DestroyEvent(signal)", hsaKmtDestroyEvent(sig), NULL);
}

/* One queue of `type`: ring (GTT, mapped to the GPU), create, CU mask (compute
 * queues), update, destroy, free. AQL queues get their pointers in GTT. */
static void sc_queue(const char* sc, HSA_QUEUE_TYPE type, uint64_t ring_size) {
  mark(sc);
  void* ring = NULL;
  HSAKMT_STATUS s = hsaKmtAllocMemory(0, ring_size, sys_gtt(), &ring);
  line(sc, "AllocMemory(ring)", s, "size=0x%llx", (unsigned long long)ring_size);
  if (s != HSAKMT_STATUS_SUCCESS) return;
  s = hsaKmtMapMemoryToGPUNodes(ring, ring_size, NULL, (HsaMemMapFlags){0}, 1, &g_gpu);
  line(sc, "MapMemoryToGPUNodes(ring)", s, NULL);
  void* ptrs = NULL;
  if (type == HSA_QUEUE_COMPUTE_AQL) {
    s = hsaKmtAllocMemory(0, 4096, sys_gtt(), &ptrs);
    line(sc, "AllocMemory(pointers)", s, NULL);
  }
  HsaQueueResource q;
  memset(&q, 0, sizeof(q));
  if (ptrs != NULL) {
    q.Queue_read_ptr_aql = (HSAuint64*)ptrs;
    q.Queue_write_ptr_aql = (HSAuint64*)ptrs + 8;
  }
  s = hsaKmtCreateQueue(g_gpu, type, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, ring_size, NULL, &q);
  line(sc, "CreateQueue", s, "type=%d", (int)type);
  if (s == HSAKMT_STATUS_SUCCESS) {
    if (type == HSA_QUEUE_COMPUTE_AQL || type == HSA_QUEUE_COMPUTE) {
      HSAuint32 mask[2] = {0x0000FFFFu, 0x0u};
      line(sc, "SetQueueCUMask", hsaKmtSetQueueCUMask(q.QueueId, 64, mask), NULL);
    }
    line(sc, "UpdateQueue", hsaKmtUpdateQueue(q.QueueId, 50, HSA_QUEUE_PRIORITY_HIGH, ring, ring_size,
                                              NULL), NULL);
    line(sc, "DestroyQueue", hsaKmtDestroyQueue(q.QueueId), NULL);
  }
  if (ptrs != NULL) line(sc, "FreeMemory(pointers)", hsaKmtFreeMemory(ptrs, 4096), NULL);
  line(sc, "UnmapMemoryToGPU(ring)", hsaKmtUnmapMemoryToGPU(ring), NULL);
  line(sc, "FreeMemory(ring)", hsaKmtFreeMemory(ring, ring_size), NULL);
}

/* ---- driver ---------------------------------------------------------------- */

static int sc_init(void) {
  const char* sc = "init";
  mark(sc);
  HSAKMT_STATUS s = hsaKmtOpenKFD();
  line(sc, "OpenKFD", s, NULL);
  if (s != HSAKMT_STATUS_SUCCESS) return 1;
  HsaSystemProperties sys;
  memset(&sys, 0, sizeof(sys));
  s = hsaKmtAcquireSystemProperties(&sys);
  if (s != HSAKMT_STATUS_SUCCESS) {
    line(sc, "AcquireSystemProperties", s, NULL);
    return 1;
  }
  g_num_nodes = sys.NumNodes;
  g_num_gpus = 0;
  for (HSAuint32 n = 0; n < sys.NumNodes && n < MAX_NODES; ++n) {
    HsaNodeProperties np;
    memset(&np, 0, sizeof(np));
    if (hsaKmtGetNodeProperties(n, &np) != HSAKMT_STATUS_SUCCESS) continue;
    if (np.NumFComputeCores > 0) {
      g_gpu_nodes[g_num_gpus++] = n;
    }
  }
  g_gpu = g_num_gpus > 0 ? g_gpu_nodes[0] : 0;
  line(sc, "AcquireSystemProperties", s, "nodes=%u gpus=%u first_gpu=%u", g_num_nodes,
       g_num_gpus, g_gpu);
  return g_num_gpus > 0 ? 0 : 1;
}

static void sc_close(void) {
  const char* sc = "close";
  mark(sc);
  HSAKMT_STATUS s = hsaKmtReleaseSystemProperties();
  line(sc, "ReleaseSystemProperties", s, NULL);
  s = hsaKmtCloseKFD();
  line(sc, "CloseKFD", s, NULL);
}

static const char* const kOtherScenarios[] = {
    "user-data", "query-unknown", "register", "register-offset", "register-to-nodes",
    "register-with-flags", "available-memory", "xnack", "svm", "export-dmabuf",
    "share-vram", "share-gtt", "events", "queue-sdma", "queue-compute", "queue-aql"};

int main(int argc, char** argv) {
  if (argc == 2 && strcmp(argv[1], "--list") == 0) {
    puts("init");
    for (size_t i = 0; i < sizeof(kAllocScenarios) / sizeof(kAllocScenarios[0]); ++i) {
      puts(kAllocScenarios[i].name);
    }
    for (size_t i = 0; i < sizeof(kOtherScenarios) / sizeof(kOtherScenarios[0]); ++i) {
      puts(kOtherScenarios[i]);
    }
    puts("close");
    return 0;
  }
  if (argc != 1) {
    fprintf(stderr, "usage: %s [--list]\n", argv[0]);
    return 2;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (sc_init() != 0) return 1;
  for (size_t i = 0; i < sizeof(kAllocScenarios) / sizeof(kAllocScenarios[0]); ++i) {
    run_alloc_scenario(&kAllocScenarios[i]);
  }
  sc_user_data();
  sc_query_unknown();
  sc_register("register", REG_ALL, 64 * KiB, 0);
  sc_register("register-offset", REG_ALL, 64 * KiB - 256, 256);
  sc_register("register-to-nodes", REG_NODES, 64 * KiB, 0);
  sc_register("register-with-flags", REG_FLAGS, 64 * KiB, 0);
  sc_available();
  sc_xnack();
  sc_svm();
  sc_export_dmabuf();
  sc_share("share-vram", g_gpu, vram_host());
  sc_share("share-gtt", g_cpu, sys_gtt());
  sc_events();
  sc_queue("queue-sdma", HSA_QUEUE_SDMA, 4 * KiB);
  sc_queue("queue-compute", HSA_QUEUE_COMPUTE, 4 * KiB);
  sc_queue("queue-aql", HSA_QUEUE_COMPUTE_AQL, 64 * KiB);
  sc_close();
  return 0;
}
