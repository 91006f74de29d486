// libkfdsim-preload.so: the LD_PRELOAD front end of kfdsim.
//
// Lets unmodified programs (Debian's libhsakmt, ROCR, rocminfo, or a build
// of this library on the Linux platform) run on a simulated board. The shim
// is deliberately dumb: it decides whether a path or descriptor belongs to
// the simulator and forwards; every kernel behaviour lives in the core.
//
// Environment:
//   KFDSIM_TOPOLOGY=<tree>  captured sysfs topology tree (the dir with nodes/)
//   KFDSIM_BOARD=<name>     built-in board (used when KFDSIM_TOPOLOGY is unset)
//   KFDSIM_KFD_MINOR=<n>    KFD minor version to report (default 17)
//   KFDSIM_AMDGPU_PARAMS=<name=value,...>  amdgpu parameters the machine booted with
//   KFDSIM_TRACE=<file>     trace lines to <file>.<pid> (one file per process)
//   KFDSIM_FAULTS=<spec>    inject ioctl errors: ioctl=<name|0xcode>:<nth|N+|*>:<ERRNO>,...
//   KFDSIM_TMPDIR=<dir>     where the board's files are written (default /dev/shm)
// With neither KFDSIM_TOPOLOGY nor KFDSIM_BOARD set the shim is inert.
//
// Files: on first use the board's files (the KFD topology, /proc/cpuinfo,
// the CPU and NUMA trees under /sys/devices/system, /proc/modules,
// /sys/module/amdgpu, the device nodes) are written once into a private
// directory, and every path under those roots is redirected there, so
// opendir/readdir/stat/fopen behave like on a real system and nothing of the
// host's /sys or /proc leaks through. Child processes (rocminfo runs lsmod
// through a shell) inherit the directory through KFDSIM_ROOT_DIR; the
// process that wrote it removes it at exit.
//
// Devices: /dev/kfd and /dev/dri/renderD<n> are memfds created by the core;
// dup'ed descriptors are recognised by inode.
//
// Host unmaps: every munmap, and every new mapping (made where nothing was
// mapped, or replacing pages with MAP_FIXED), are reported to the
// simulator (kfdsim_host_unmapped) so SVM ranges follow the host mappings
// as the kernel's MMU notifier keeps them; unmaps by raw syscalls are
// noticed by the core at its next SVM or ALLOC call. A forked child that uses the
// parent's KFD descriptor gets EBADF, as from the kernel, and may reopen.
//
// Recursion: the core itself calls open/mmap/close; a per-thread guard
// sends every call made while the shim is working straight to libc.
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "hsakmt/hsakmt_faults.h"
#include "platform/sim/sim.h"

#define KFDSIM_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

// ---- real libc entry points ----------------------------------------------

struct Real {
  int (*open)(const char*, int, ...);
  int (*open64)(const char*, int, ...);
  int (*openat)(int, const char*, int, ...);
  int (*openat64)(int, const char*, int, ...);
  int (*open_2)(const char*, int);
  int (*open64_2)(const char*, int);
  int (*openat_2)(int, const char*, int);
  FILE* (*fopen)(const char*, const char*);
  FILE* (*fopen64)(const char*, const char*);
  DIR* (*opendir)(const char*);
  int (*stat)(const char*, struct stat*);
  int (*lstat)(const char*, struct stat*);
  int (*stat64)(const char*, struct stat64*);
  int (*lstat64)(const char*, struct stat64*);
  int (*fstatat)(int, const char*, struct stat*, int);
  int (*fstatat64)(int, const char*, struct stat64*, int);
  int (*fstat)(int, struct stat*);
  int (*fstat64)(int, struct stat64*);
  int (*fxstat)(int, int, struct stat*);
  int (*fxstat64)(int, int, struct stat64*);
  int (*xstat)(int, const char*, struct stat*);
  int (*lxstat)(int, const char*, struct stat*);
  int (*xstat64)(int, const char*, struct stat64*);
  int (*lxstat64)(int, const char*, struct stat64*);
  int (*access)(const char*, int);
  int (*faccessat)(int, const char*, int, int);
  ssize_t (*readlink)(const char*, char*, size_t);
  char* (*realpath)(const char*, char*);
  int (*ioctl)(int, unsigned long, ...);
  void* (*mmap)(void*, size_t, int, int, int, off_t);
  void* (*mmap64)(void*, size_t, int, int, int, off64_t);
  int (*close)(int);
  int (*get_nprocs)(void);
  int (*get_nprocs_conf)(void);
  long (*sysconf)(int);
};

Real g_real;
std::once_flag g_real_once;

template <typename T>
void Resolve(T* slot, const char* name) {
  *slot = reinterpret_cast<T>(dlsym(RTLD_NEXT, name));
}

void ResolveReal() {
  std::call_once(g_real_once, [] {
    Resolve(&g_real.open, "open");
    Resolve(&g_real.open64, "open64");
    Resolve(&g_real.openat, "openat");
    Resolve(&g_real.openat64, "openat64");
    Resolve(&g_real.open_2, "__open_2");
    Resolve(&g_real.open64_2, "__open64_2");
    Resolve(&g_real.openat_2, "__openat_2");
    Resolve(&g_real.fopen, "fopen");
    Resolve(&g_real.fopen64, "fopen64");
    Resolve(&g_real.opendir, "opendir");
    Resolve(&g_real.stat, "stat");
    Resolve(&g_real.lstat, "lstat");
    Resolve(&g_real.stat64, "stat64");
    Resolve(&g_real.lstat64, "lstat64");
    Resolve(&g_real.fstatat, "fstatat");
    Resolve(&g_real.fstatat64, "fstatat64");
    Resolve(&g_real.fstat, "fstat");
    Resolve(&g_real.fstat64, "fstat64");
    Resolve(&g_real.fxstat, "__fxstat");
    Resolve(&g_real.fxstat64, "__fxstat64");
    Resolve(&g_real.xstat, "__xstat");
    Resolve(&g_real.lxstat, "__lxstat");
    Resolve(&g_real.xstat64, "__xstat64");
    Resolve(&g_real.lxstat64, "__lxstat64");
    Resolve(&g_real.access, "access");
    Resolve(&g_real.faccessat, "faccessat");
    Resolve(&g_real.readlink, "readlink");
    Resolve(&g_real.realpath, "realpath");
    Resolve(&g_real.ioctl, "ioctl");
    Resolve(&g_real.mmap, "mmap");
    Resolve(&g_real.mmap64, "mmap64");
    Resolve(&g_real.close, "close");
    Resolve(&g_real.get_nprocs, "get_nprocs");
    Resolve(&g_real.get_nprocs_conf, "get_nprocs_conf");
    Resolve(&g_real.sysconf, "sysconf");
  });
}

// Calls made while this is nonzero (the shim's own work, the core's libc
// calls) go straight to libc. Initial-exec TLS: the shim is loaded with the
// program (LD_PRELOAD), so the variable sits in the static TLS block and a
// read is one instruction instead of a __tls_get_addr call per ioctl.
__attribute__((tls_model("initial-exec"))) thread_local int g_guard = 0;

struct Guard {
  Guard() { ++g_guard; }
  ~Guard() { --g_guard; }
  Guard(const Guard&) = delete;
  Guard& operator=(const Guard&) = delete;
};

// ---- shim state ----------------------------------------------------------

// Roots of the simulated namespace: a path equal to one of these or below
// it is served from the board, never from the host.
const char* const kRoots[] = {
    "/sys/devices/virtual/kfd", "/sys/class/kfd",  "/sys/devices/system/node",
    "/sys/devices/system/cpu",  "/sys/module/amdgpu", "/proc/cpuinfo",
    "/proc/modules",            "/proc/cmdline",    "/dev/kfd",
    "/dev/dri",
};

struct State {
  std::mutex mu;
  bool configured = false;  // KFDSIM_TOPOLOGY or KFDSIM_BOARD set
  kfdsim_t* sim = nullptr;
  pid_t sim_pid = 0;        // process the simulator state belongs to
  std::string root;         // materialised directory, no trailing slash
  pid_t root_owner = 0;     // process that must remove `root` at exit
  std::mutex trace_mu;      // guards trace_fd/trace_pid
  int trace_fd = -1;
  pid_t trace_pid = 0;
};

// The simulator of this process and the process it belongs to, readable
// without S().mu (munmap/mmap report host unmaps from any thread, even one
// inside the simulator's engines; taking the shim's lock there could
// invert the lock order).
std::atomic<kfdsim_t*> g_sim_ptr{nullptr};
std::atomic<pid_t> g_sim_pid{0};

State& S() {
  static State* s = new State();  // never destroyed: used until the very end
  return *s;
}

bool Configured() {
  static int configured = -1;
  if (configured < 0) {
    configured = (getenv("KFDSIM_TOPOLOGY") != nullptr || getenv("KFDSIM_BOARD") != nullptr) ? 1 : 0;
  }
  return configured == 1;
}

bool UnderRoot(const char* path, const char* root) {
  const size_t n = strlen(root);
  return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

// The render nodes' sysfs devices (core/drm.cc, kfdsim_drm_sysfs): their
// own root, and the DRM major's entries of /sys/dev/char (the host's other
// character devices stay visible).
constexpr char kDrmDevicesRoot[] = "/sys/devices/kfdsim";
constexpr char kDrmCharPrefix[] = "/sys/dev/char/226:";

bool Owned(const char* path) {
  if (path == nullptr || path[0] != '/' || !Configured()) return false;
  for (const char* r : kRoots) {
    if (UnderRoot(path, r)) return true;
  }
  return UnderRoot(path, kDrmDevicesRoot) ||
         strncmp(path, kDrmCharPrefix, sizeof(kDrmCharPrefix) - 1) == 0;
}

bool IsDevicePath(const char* path) {
  return strcmp(path, "/dev/kfd") == 0 || strncmp(path, "/dev/dri/renderD", 16) == 0;
}

void WriteAll(int fd, const char* data, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return;
    }
    data += w;
    n -= static_cast<size_t>(w);
  }
}

// Per-process trace file: KFDSIM_TRACE.<pid>, opened on first use in each
// process so children never truncate a parent's log.
void TraceLine(const char* line, size_t length) {
  State& s = S();
  std::lock_guard<std::mutex> l(s.trace_mu);
  const pid_t pid = kfdsim_pid();
  if (s.trace_pid != pid) {
    s.trace_pid = pid;
    s.trace_fd = -1;
    const char* base = getenv("KFDSIM_TRACE");
    if (base != nullptr && base[0] != '\0') {
      std::string path = std::string(base) + "." + std::to_string(pid);
      s.trace_fd = g_real.open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    }
  }
  if (s.trace_fd >= 0) WriteAll(s.trace_fd, line, length);
}

void TraceSink(void*, const char* line, size_t length) { TraceLine(line, length); }

bool Tracing() {
  static int tracing = -1;
  if (tracing < 0) {
    const char* t = getenv("KFDSIM_TRACE");
    tracing = (t != nullptr && t[0] != '\0') ? 1 : 0;
  }
  return tracing == 1;
}

// One "path" line per file operation the program makes on a path in the
// simulated roots ("-> sim") or elsewhere under /sys, /proc or /dev
// ("-> host": what the simulation does not cover shows up here).
void TracePath(const char* op, const char* path, bool owned) {
  if (!Tracing() || path == nullptr) return;
  if (!owned && strncmp(path, "/sys/", 5) != 0 && strncmp(path, "/proc/", 6) != 0 &&
      strncmp(path, "/dev/", 5) != 0) {
    return;
  }
  std::string line = std::string("path ") + op + " " + path + (owned ? " -> sim\n" : " -> host\n");
  TraceLine(line.c_str(), line.size());
}

void ApplyFaults(kfdsim_t* sim) {
  const char* spec = getenv("KFDSIM_FAULTS");
  if (spec == nullptr || spec[0] == '\0') return;
  hke_faults_rule rules[HKE_FAULTS_MAX_RULES];
  size_t count = 0;
  size_t where = 0;
  const uint32_t st = hke_faults_parse(spec, strlen(spec), rules, HKE_FAULTS_MAX_RULES, &count, &where);
  if (st != HKE_FAULTS_PARSE_OK) {
    fprintf(stderr, "kfdsim: KFDSIM_FAULTS rejected at byte %zu: %s\n", where,
            hke_faults_parse_status_name(st));
    return;
  }
  for (size_t i = 0; i < count; ++i) {
    const hke_faults_rule& r = rules[i];
    if (r.op != HKE_FAULTS_OP_IOCTL || !r.match_request) {
      fprintf(stderr, "kfdsim: KFDSIM_FAULTS rule %zu ignored: only ioctl=<request> rules apply\n", i);
      continue;
    }
    const uint32_t key = r.request & 0xFFFFu;
    const uint32_t nth = r.when == HKE_FAULTS_WHEN_EVERY ? 1u : static_cast<uint32_t>(r.nth);
    const uint32_t times = r.when == HKE_FAULTS_WHEN_NTH ? 1u : 0u;
    kfdsim_add_fault(sim, key, r.error, nth, times);
  }
}

// Creates the simulator for this process (locked by the caller).
kfdsim_t* SimLocked() {
  State& s = S();
  const pid_t pid = kfdsim_pid();
  if (s.sim != nullptr && s.sim_pid != pid) {
    // A forked child: start over as a new process of the same board.
    kfdsim_reset_process(s.sim);
    s.sim_pid = pid;
    g_sim_pid.store(pid, std::memory_order_release);
  }
  if (s.sim != nullptr) return s.sim;
  kfdsim_options o;
  memset(&o, 0, sizeof(o));
  o.struct_size = sizeof(o);
  o.tree_dir = getenv("KFDSIM_TOPOLOGY");
  o.board_name = getenv("KFDSIM_BOARD");
  if (const char* m = getenv("KFDSIM_KFD_MINOR")) o.kfd_minor = static_cast<uint32_t>(atoi(m));
  o.amdgpu_params = getenv("KFDSIM_AMDGPU_PARAMS");
  if (Tracing()) {
    o.trace = &TraceSink;
    o.trace_user = nullptr;
  }
  char error[512] = {0};
  kfdsim_t* sim = nullptr;
  const int r = kfdsim_create(&o, &sim, error, sizeof(error));
  if (r != 0) {
    fprintf(stderr, "kfdsim: cannot load the board: %s\n", error[0] ? error : strerror(r));
    return nullptr;
  }
  ApplyFaults(sim);
  s.sim = sim;
  s.sim_pid = pid;
  g_sim_pid.store(pid, std::memory_order_release);
  g_sim_ptr.store(sim, std::memory_order_release);
  return sim;
}

// ---- materialised file tree ---------------------------------------------

struct Walker {
  kfdsim_t* sim;
  std::string root;
  bool failed = false;
};

void Materialise(Walker& w, const std::string& path);

int MaterialiseEntry(void* user, const char* name, uint32_t) {
  auto* ctx = static_cast<std::pair<Walker*, std::string>*>(user);
  Materialise(*ctx->first, ctx->second + "/" + name);
  return 0;
}

// Directories that are symbolic links on a real system become links here
// too, so each is written once: /sys/class/kfd/kfd and the per-node CPU
// entries /sys/devices/system/node/node<N>/cpu<K>.
bool AliasTarget(const std::string& path, std::string* out) {
  if (path == "/sys/class/kfd/kfd") {
    *out = "/sys/devices/virtual/kfd/kfd";
    return true;
  }
  const std::string node_prefix = "/sys/devices/system/node/node";
  if (path.compare(0, node_prefix.size(), node_prefix) != 0) return false;
  const size_t slash = path.find('/', node_prefix.size());
  if (slash == std::string::npos || path.compare(slash, 4, "/cpu") != 0) return false;
  const std::string cpu = path.substr(slash + 1);
  if (cpu.size() <= 3 || cpu.find_first_not_of("0123456789", 3) != std::string::npos) return false;
  *out = "/sys/devices/system/cpu/" + cpu;
  return true;
}

void Materialise(Walker& w, const std::string& path) {
  uint32_t kind = 0;
  if (kfdsim_file_kind(w.sim, path.c_str(), &kind) != 0) return;
  const std::string target = w.root + path;
  std::string alias;
  if (kind == KFDSIM_FILE_DIR && AliasTarget(path, &alias)) {
    if (symlink((w.root + alias).c_str(), target.c_str()) != 0 && errno != EEXIST) w.failed = true;
    return;
  }
  if (kind == KFDSIM_FILE_DIR) {
    if (mkdir(target.c_str(), 0755) != 0 && errno != EEXIST) w.failed = true;
    std::pair<Walker*, std::string> ctx(&w, path);
    kfdsim_list_dir(w.sim, path.c_str(), &MaterialiseEntry, &ctx);
    return;
  }
  std::string content;
  if (kind == KFDSIM_FILE_REGULAR) {
    std::vector<char> buf(4096);
    size_t n = 0;
    int r = kfdsim_read_file(w.sim, path.c_str(), buf.data(), buf.size(), &n);
    if (r == EFBIG) {
      buf.resize(n);
      r = kfdsim_read_file(w.sim, path.c_str(), buf.data(), buf.size(), &n);
    }
    if (r != 0) return;
    content.assign(buf.data(), n);
  }
  const int fd = g_real.open(target.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    w.failed = true;
    return;
  }
  WriteAll(fd, content.data(), content.size());
  g_real.close(fd);
}

// One entry of kfdsim_drm_sysfs written under the walker's root.
int MaterialiseDrmEntry(void* user, const char* path, uint32_t kind, const char* data, size_t length) {
  auto* w = static_cast<Walker*>(user);
  const std::string target = w->root + path;
  if (kind == KFDSIM_FILE_DIR) {
    if (mkdir(target.c_str(), 0755) != 0 && errno != EEXIST) w->failed = true;
  } else if (kind == KFDSIM_FILE_SYMLINK) {
    if (symlink(std::string(data, length).c_str(), target.c_str()) != 0 && errno != EEXIST) w->failed = true;
  } else {
    const int fd = g_real.open(target.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
      w->failed = true;
      return 0;
    }
    WriteAll(fd, data, length);
    g_real.close(fd);
  }
  return 0;
}

void MakeParents(const std::string& root, const std::string& path) {
  for (size_t i = 1; i < path.size(); ++i) {
    if (path[i] == '/') mkdir((root + path.substr(0, i)).c_str(), 0755);
  }
}

int RemoveEntry(const char* p, const struct stat*, int, struct FTW*) { return remove(p); }

void RemoveRootAtExit() {
  Guard g;
  State& s = S();
  if (!s.root.empty() && s.root_owner == kfdsim_pid()) {
    nftw(s.root.c_str(), &RemoveEntry, 32, FTW_DEPTH | FTW_PHYS);
  }
}

// The directory owned paths are redirected to; empty when unavailable.
const std::string& RootLocked() {
  State& s = S();
  if (!s.root.empty()) return s.root;
  const char* inherited = getenv("KFDSIM_ROOT_DIR");
  struct stat st;
  if (inherited != nullptr && g_real.stat(inherited, &st) == 0 && S_ISDIR(st.st_mode)) {
    s.root = inherited;
    return s.root;
  }
  kfdsim_t* sim = SimLocked();
  if (sim == nullptr) return s.root;
  // A memory-backed directory keeps the one-time write of thousands of
  // small files cheap: KFDSIM_TMPDIR, else /dev/shm, else TMPDIR, else /tmp.
  std::string base;
  const char* candidates[] = {getenv("KFDSIM_TMPDIR"), "/dev/shm", getenv("TMPDIR"), "/tmp"};
  for (const char* c : candidates) {
    if (c != nullptr && c[0] != '\0' && g_real.access(c, W_OK | X_OK) == 0) {
      base = c;
      break;
    }
  }
  std::string templ = base + "/kfdsim.XXXXXX";
  std::vector<char> name(templ.begin(), templ.end());
  name.push_back('\0');
  if (mkdtemp(name.data()) == nullptr) {
    fprintf(stderr, "kfdsim: cannot create a directory for the board's files: %s\n", strerror(errno));
    return s.root;
  }
  Walker w{sim, std::string(name.data())};
  for (const char* r : kRoots) {
    MakeParents(w.root, r);
    Materialise(w, r);
  }
  MakeParents(w.root, "/sys/dev/char");
  kfdsim_drm_sysfs(sim, &MaterialiseDrmEntry, &w);
  if (w.failed) fprintf(stderr, "kfdsim: some board files could not be written under %s\n", name.data());
  s.root = w.root;
  s.root_owner = kfdsim_pid();
  setenv("KFDSIM_ROOT_DIR", s.root.c_str(), 1);
  atexit(&RemoveRootAtExit);
  return s.root;
}

// Rewrites an owned path into the materialised tree; returns `path`
// unchanged when it is not owned (or the tree is unavailable).
const char* Redirect(const char* op, const char* path, std::string* storage) {
  const bool owned = Owned(path);
  TracePath(op, path, owned);
  if (!owned) return path;
  Guard g;
  std::lock_guard<std::mutex> l(S().mu);
  const std::string& root = RootLocked();
  if (root.empty()) return path;
  *storage = root + path;
  return storage->c_str();
}

// The simulator, if this process has one and fd may be one of its
// descriptors (*forked: it was created by a parent process); whether fd is
// simulated is left to the caller.
kfdsim_t* SimOfProcess(int fd, bool* forked) {
  *forked = false;
  if (!Configured() || fd < 0) return nullptr;
  Guard g;
  State& s = S();
  std::lock_guard<std::mutex> l(s.mu);
  if (s.sim == nullptr) return nullptr;
  if (s.sim_pid != kfdsim_pid()) *forked = true;
  return s.sim;
}

kfdsim_t* SimForFd(int fd, bool* forked) {
  *forked = false;
  if (!Configured() || fd < 0) return nullptr;
  Guard g;
  State& s = S();
  std::lock_guard<std::mutex> l(s.mu);
  if (s.sim == nullptr || !kfdsim_owns_fd(s.sim, fd)) return nullptr;
  if (s.sim_pid != kfdsim_pid()) *forked = true;
  return s.sim;
}

int OpenDevice(const char* path, int flags) {
  Guard g;
  kfdsim_t* sim = nullptr;
  {
    std::lock_guard<std::mutex> l(S().mu);
    sim = SimLocked();
  }
  if (sim == nullptr) {
    errno = ENOENT;
    return -1;
  }
  int fd = -1;
  const int r = kfdsim_open(sim, path, flags, &fd);
  if (r != 0) {
    errno = r;
    return -1;
  }
  return fd;
}

int OpenCommon(const char* path, int flags, mode_t mode, bool large) {
  ResolveReal();
  if (g_guard == 0 && path != nullptr && Owned(path) && IsDevicePath(path)) {
    return OpenDevice(path, flags);
  }
  std::string storage;
  const char* p = g_guard == 0 ? Redirect("open", path, &storage) : path;
  return large ? g_real.open64(p, flags, mode) : g_real.open(p, flags, mode);
}

}  // namespace

// ---- interposed entry points ----------------------------------------------

KFDSIM_EXPORT int open(const char* path, int flags, ...) {
  mode_t mode = 0;
  if (flags & (O_CREAT | O_TMPFILE)) {
    va_list ap;
    va_start(ap, flags);
    mode = static_cast<mode_t>(va_arg(ap, int));
    va_end(ap);
  }
  return OpenCommon(path, flags, mode, false);
}

KFDSIM_EXPORT int open64(const char* path, int flags, ...) {
  mode_t mode = 0;
  if (flags & (O_CREAT | O_TMPFILE)) {
    va_list ap;
    va_start(ap, flags);
    mode = static_cast<mode_t>(va_arg(ap, int));
    va_end(ap);
  }
  return OpenCommon(path, flags, mode, true);
}

KFDSIM_EXPORT int __open_2(const char* path, int flags) { return OpenCommon(path, flags, 0, false); }
KFDSIM_EXPORT int __open64_2(const char* path, int flags) { return OpenCommon(path, flags, 0, true); }

static int OpenatCommon(int dirfd, const char* path, int flags, mode_t mode, bool large) {
  ResolveReal();
  if (path != nullptr && path[0] == '/') {
    if (g_guard == 0 && Owned(path) && IsDevicePath(path)) return OpenDevice(path, flags);
    std::string storage;
    const char* p = g_guard == 0 ? Redirect("openat", path, &storage) : path;
    return large ? g_real.openat64(dirfd, p, flags, mode) : g_real.openat(dirfd, p, flags, mode);
  }
  return large ? g_real.openat64(dirfd, path, flags, mode) : g_real.openat(dirfd, path, flags, mode);
}

KFDSIM_EXPORT int openat(int dirfd, const char* path, int flags, ...) {
  mode_t mode = 0;
  if (flags & (O_CREAT | O_TMPFILE)) {
    va_list ap;
    va_start(ap, flags);
    mode = static_cast<mode_t>(va_arg(ap, int));
    va_end(ap);
  }
  return OpenatCommon(dirfd, path, flags, mode, false);
}

KFDSIM_EXPORT int openat64(int dirfd, const char* path, int flags, ...) {
  mode_t mode = 0;
  if (flags & (O_CREAT | O_TMPFILE)) {
    va_list ap;
    va_start(ap, flags);
    mode = static_cast<mode_t>(va_arg(ap, int));
    va_end(ap);
  }
  return OpenatCommon(dirfd, path, flags, mode, true);
}

KFDSIM_EXPORT int __openat_2(int dirfd, const char* path, int flags) {
  return OpenatCommon(dirfd, path, flags, 0, false);
}

KFDSIM_EXPORT FILE* fopen(const char* path, const char* mode) {
  ResolveReal();
  std::string storage;
  return g_real.fopen(g_guard == 0 ? Redirect("fopen", path, &storage) : path, mode);
}

KFDSIM_EXPORT FILE* fopen64(const char* path, const char* mode) {
  ResolveReal();
  std::string storage;
  return g_real.fopen64(g_guard == 0 ? Redirect("fopen", path, &storage) : path, mode);
}

KFDSIM_EXPORT DIR* opendir(const char* path) {
  ResolveReal();
  std::string storage;
  return g_real.opendir(g_guard == 0 ? Redirect("opendir", path, &storage) : path);
}

#define KFDSIM_PATH_WRAPPER(ret, name, real_field, params, path_arg, ...) \
  KFDSIM_EXPORT ret name params {                                        \
    ResolveReal();                                                       \
    std::string storage;                                                 \
    const char* p = g_guard == 0 ? Redirect(#name, path_arg, &storage) : path_arg; \
    return g_real.real_field(__VA_ARGS__);                               \
  }

// Device identity: a simulated render node is a memfd (a regular file) and
// its /dev/dri path a file in the private directory; stat and fstat report
// what the kernel's node has instead, a character device with the number
// the core gives it (226:<render minor>), so that libdrm tells the GPUs
// apart (core/drm.cc). Only successful calls from outside the shim change.
template <typename St>
void AsDeviceByPath(int result, const char* path, St* st) {
  if (result != 0 || g_guard != 0 || st == nullptr || !Owned(path) || !IsDevicePath(path)) return;
  Guard g;
  kfdsim_t* sim = nullptr;
  {
    std::lock_guard<std::mutex> l(S().mu);
    sim = SimLocked();
  }
  uint32_t major = 0, minor = 0;
  if (sim == nullptr || kfdsim_device_number(sim, -1, path, &major, &minor) != 0) return;
  st->st_mode = (st->st_mode & 07777) | S_IFCHR;
  st->st_rdev = makedev(major, minor);
  st->st_size = 0;
}

template <typename St>
void AsDeviceByFd(int result, int fd, St* st) {
  if (result != 0 || g_guard != 0 || st == nullptr) return;
  bool forked = false;
  kfdsim_t* sim = SimForFd(fd, &forked);
  if (sim == nullptr) return;
  Guard g;
  uint32_t major = 0, minor = 0;
  if (kfdsim_device_number(sim, fd, nullptr, &major, &minor) != 0) return;
  st->st_mode = (st->st_mode & 07777) | S_IFCHR;
  st->st_rdev = makedev(major, minor);
  st->st_size = 0;
}

#define KFDSIM_STAT_WRAPPER(ret, name, real_field, params, path_arg, st_arg, ...) \
  KFDSIM_EXPORT ret name params {                                               \
    ResolveReal();                                                              \
    std::string storage;                                                        \
    const char* p = g_guard == 0 ? Redirect(#name, path_arg, &storage) : path_arg; \
    const ret r = g_real.real_field(__VA_ARGS__);                               \
    AsDeviceByPath(r, path_arg, st_arg);                                        \
    return r;                                                                   \
  }

KFDSIM_STAT_WRAPPER(int, stat, stat, (const char* path, struct stat* st), path, st, p, st)
KFDSIM_STAT_WRAPPER(int, lstat, lstat, (const char* path, struct stat* st), path, st, p, st)
KFDSIM_STAT_WRAPPER(int, stat64, stat64, (const char* path, struct stat64* st), path, st, p, st)
KFDSIM_STAT_WRAPPER(int, lstat64, lstat64, (const char* path, struct stat64* st), path, st, p, st)
KFDSIM_STAT_WRAPPER(int, __xstat, xstat, (int ver, const char* path, struct stat* st), path, st, ver, p, st)
KFDSIM_STAT_WRAPPER(int, __lxstat, lxstat, (int ver, const char* path, struct stat* st), path, st, ver, p, st)
KFDSIM_STAT_WRAPPER(int, __xstat64, xstat64, (int ver, const char* path, struct stat64* st), path, st, ver, p, st)
KFDSIM_STAT_WRAPPER(int, __lxstat64, lxstat64, (int ver, const char* path, struct stat64* st), path, st, ver, p, st)
KFDSIM_STAT_WRAPPER(int, fstatat, fstatat, (int dirfd, const char* path, struct stat* st, int flags), path, st, dirfd, p, st, flags)
KFDSIM_STAT_WRAPPER(int, fstatat64, fstatat64, (int dirfd, const char* path, struct stat64* st, int flags), path, st, dirfd, p, st, flags)

KFDSIM_EXPORT int fstat(int fd, struct stat* st) {
  ResolveReal();
  const int r = g_real.fstat(fd, st);
  AsDeviceByFd(r, fd, st);
  return r;
}

KFDSIM_EXPORT int fstat64(int fd, struct stat64* st) {
  ResolveReal();
  const int r = g_real.fstat64(fd, st);
  AsDeviceByFd(r, fd, st);
  return r;
}

KFDSIM_EXPORT int __fxstat(int ver, int fd, struct stat* st) {
  ResolveReal();
  const int r = g_real.fxstat(ver, fd, st);
  AsDeviceByFd(r, fd, st);
  return r;
}

KFDSIM_EXPORT int __fxstat64(int ver, int fd, struct stat64* st) {
  ResolveReal();
  const int r = g_real.fxstat64(ver, fd, st);
  AsDeviceByFd(r, fd, st);
  return r;
}
KFDSIM_PATH_WRAPPER(int, access, access, (const char* path, int mode), path, p, mode)
KFDSIM_PATH_WRAPPER(int, faccessat, faccessat, (int dirfd, const char* path, int mode, int flags), path, dirfd, p, mode, flags)
KFDSIM_PATH_WRAPPER(ssize_t, readlink, readlink, (const char* path, char* buf, size_t size), path, p, buf, size)

KFDSIM_EXPORT char* realpath(const char* path, char* resolved) {
  ResolveReal();
  // An owned path resolves to itself: programs compare it with what they
  // asked for, not with the private directory behind it.
  if (g_guard == 0 && Owned(path)) {
    std::string storage;
    struct stat st;
    if (g_real.stat(Redirect("realpath", path, &storage), &st) != 0) return nullptr;
    const size_t n = strlen(path);
    if (resolved == nullptr) {
      char* out = static_cast<char*>(malloc(n + 1));
      if (out == nullptr) return nullptr;
      memcpy(out, path, n + 1);
      return out;
    }
    if (n >= PATH_MAX) {
      errno = ENAMETOOLONG;
      return nullptr;
    }
    memcpy(resolved, path, n + 1);
    return resolved;
  }
  return g_real.realpath(path, resolved);
}

KFDSIM_EXPORT int ioctl(int fd, unsigned long request, ...) {
  va_list ap;
  va_start(ap, request);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  ResolveReal();
  if (g_guard == 0) {
    bool forked = false;
    if (kfdsim_t* sim = SimOfProcess(fd, &forked)) {
      Guard g;
      if (forked) {
        if (kfdsim_owns_fd(sim, fd)) {  // the kernel refuses a KFD descriptor used by another process
          errno = EBADF;
          return -1;
        }
      } else {
        int owned = 0;
        const int r = kfdsim_ioctl_owned(sim, fd, request, arg, &owned);
        if (owned) {
          if (r != 0) {
            errno = r;
            return -1;
          }
          return 0;
        }
      }
    }
  }
  return g_real.ioctl(fd, request, arg);
}

// Tells the simulator (if this process has one) that host pages went
// away, so SVM ranges there are split or removed as the kernel's MMU
// notifier does. Never creates the simulator.
static void NotifyUnmapped(const void* addr, size_t length) {
  // munmap/mmap run from malloc and the loader long before (or without)
  // any simulator: no lock, no allocation on this path.
  if (g_guard != 0) return;
  kfdsim_t* sim = g_sim_ptr.load(std::memory_order_acquire);
  if (sim == nullptr || g_sim_pid.load(std::memory_order_acquire) != kfdsim_pid()) return;
  Guard g;
  kfdsim_host_unmapped(sim, addr, length);
}

static void* MmapCommon(void* addr, size_t length, int prot, int flags, int fd, uint64_t offset,
                        bool large) {
  ResolveReal();
  if (g_guard == 0 && (flags & MAP_ANONYMOUS) == 0) {
    bool forked = false;
    if (kfdsim_t* sim = SimOfProcess(fd, &forked)) {
      Guard g;
      if (forked) {
        if (kfdsim_owns_fd(sim, fd)) {
          errno = EBADF;
          return MAP_FAILED;
        }
      } else {
        void* out = nullptr;
        int owned = 0;
        const int r = kfdsim_mmap_owned(sim, addr, length, prot, flags, fd, offset, &out, &owned);
        if (owned) {
          if (r != 0) {
            errno = r;
            return MAP_FAILED;
          }
          return out;
        }
      }
    }
  }
  void* p = large ? g_real.mmap64(addr, length, prot, flags, fd, static_cast<off64_t>(offset))
                  : g_real.mmap(addr, length, prot, flags, fd, static_cast<off_t>(offset));
  // A new mapping lies where nothing was mapped, or replaced what was
  // (MAP_FIXED): no SVM range survives there (the MMU notifier's unmap).
  if (p != MAP_FAILED) NotifyUnmapped(p, length);
  return p;
}

KFDSIM_EXPORT void* mmap(void* addr, size_t length, int prot, int flags, int fd, off_t offset) {
  uint64_t off;
  static_assert(sizeof(off_t) <= sizeof(off), "off_t fits");
  off = static_cast<uint64_t>(offset);
  return MmapCommon(addr, length, prot, flags, fd, off, false);
}

KFDSIM_EXPORT void* mmap64(void* addr, size_t length, int prot, int flags, int fd, off64_t offset) {
  return MmapCommon(addr, length, prot, flags, fd, static_cast<uint64_t>(offset), true);
}

KFDSIM_EXPORT int munmap(void* addr, size_t length) {
  // The raw system call: no symbol lookup, so it is safe however early.
  const int r = static_cast<int>(syscall(SYS_munmap, addr, length));
  if (r == 0) {
    const int saved = errno;
    NotifyUnmapped(addr, length);
    errno = saved;
  }
  return r;
}

KFDSIM_EXPORT int close(int fd) {
  ResolveReal();
  if (g_guard == 0) {
    bool forked = false;
    if (kfdsim_t* sim = SimForFd(fd, &forked)) {
      Guard g;
      if (!forked) {
        const int r = kfdsim_close(sim, fd);
        if (r != 0) {
          errno = r;
          return -1;
        }
        return 0;
      }
    }
  }
  return g_real.close(fd);
}

static int BoardCpus(int fallback) {
  if (g_guard != 0 || !Configured()) return fallback;
  Guard g;
  std::lock_guard<std::mutex> l(S().mu);
  kfdsim_t* sim = SimLocked();
  const uint32_t n = sim != nullptr ? kfdsim_cpu_count(sim) : 0;
  return n != 0 ? static_cast<int>(n) : fallback;
}

KFDSIM_EXPORT int get_nprocs(void) {
  ResolveReal();
  return BoardCpus(g_real.get_nprocs());
}

KFDSIM_EXPORT int get_nprocs_conf(void) {
  ResolveReal();
  return BoardCpus(g_real.get_nprocs_conf());
}

KFDSIM_EXPORT long sysconf(int name) {
  ResolveReal();
  if (name == _SC_NPROCESSORS_ONLN || name == _SC_NPROCESSORS_CONF) {
    return BoardCpus(static_cast<int>(g_real.sysconf(name)));
  }
  return g_real.sysconf(name);
}
