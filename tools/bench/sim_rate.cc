// hke-sim-rate: how fast the simulator serves ioctls through each of its two
// front ends, with no thunk in the way.
//
//   hke-sim-rate --front-end preload|inprocess --mix memory|churn|cheap
//                [--seconds S | --iterations N] [--board NAME] [--live N]
//
// preload:   the program's own open/ioctl/close calls, served by
//            libkfdsim-preload.so (run it with LD_PRELOAD and KFDSIM_BOARD or
//            KFDSIM_TOPOLOGY set, as hke-bench is run).
// inprocess: the same requests through hke_sim_platform()'s table (the
//            in-process front end the library's tests and tools use), on a
//            simulator created here for --board (default datacenter-4gpu).
//
// Set up once, untimed: /dev/kfd opened, GET_VERSION, the first GPU node's
// render node opened and ACQUIRE_VM'd, and for `cheap` an auto-reset signal
// event created. One iteration of a mix issues a fixed sequence of ioctls:
//   memory: ALLOC (GTT 4 KiB) + MAP + UNMAP + FREE, then the same for
//           VRAM 4 KiB: 8 ioctls (the four of a thunk's alloc-map-free cycle)
//   churn:  UNMAP + FREE of a random live BO, then ALLOC + MAP of a new one
//           (GTT 4 KiB) in its place: 4 ioctls on the BO table at its size
//   cheap:  GET_VERSION + SET_EVENT: 2 ioctls that do almost no work
// --live N (default 0; churn needs at least 1): N GTT 4 KiB BOs allocated
// and mapped to the GPU in setup, untimed, so that the simulator's per-BO
// bookkeeping is measured with N BOs live. Random choices come from one
// fixed-seed generator.
// Every ioctl's result is checked; a failure ends the run with status 1.
//
// Prints one JSON object: front_end, mix, board, live, iterations, ioctls,
// ns, ioctls_per_s. With --iterations it runs exactly that many (run.sh counts
// system calls per ioctl from two such runs under strace); with --seconds
// (default 0.5) it runs batches until that much time has passed.
// Single-threaded; owns the simulator it creates (in-process) and every
// descriptor it opens.
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "hsakmt/hsakmt_platform.h"
#include "lib/kfd/abi.h"
#include "platform/sim/inprocess/sim_platform.h"
#include "platform/sim/sim.h"

namespace {

namespace k = hke::kfd;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "hke-sim-rate: %s\n", what.c_str());
  std::exit(1);
}

// The three operations a mix needs from a front end; each returns 0 or an errno.
class FrontEnd {
 public:
  virtual ~FrontEnd() = default;
  virtual int Open(const char* path, int* fd) = 0;
  virtual int Ioctl(int fd, uint32_t request, void* arg) = 0;
  virtual int ReadFile(const char* path, std::string* out) = 0;
};

// Plain libc calls: under LD_PRELOAD the preload serves them.
class PreloadFrontEnd : public FrontEnd {
 public:
  int Open(const char* path, int* fd) override {
    *fd = ::open(path, O_RDWR | O_CLOEXEC);
    return *fd < 0 ? errno : 0;
  }
  int Ioctl(int fd, uint32_t request, void* arg) override {
    return ::ioctl(fd, static_cast<unsigned long>(request), arg) == 0 ? 0 : errno;
  }
  int ReadFile(const char* path, std::string* out) override {
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno;
    char buf[4096];
    ssize_t n = 0;
    out->clear();
    while ((n = ::read(fd, buf, sizeof(buf))) > 0) out->append(buf, static_cast<size_t>(n));
    const int err = n < 0 ? errno : 0;
    ::close(fd);
    return err;
  }
};

// hke_sim_platform()'s table over a simulator of its own.
class InProcessFrontEnd : public FrontEnd {
 public:
  explicit InProcessFrontEnd(const char* board) {
    kfdsim_options o{};
    o.struct_size = sizeof(o);
    o.board_name = board;
    char error[256] = {};
    if (kfdsim_create(&o, &sim_, error, sizeof(error)) != 0) Die(error);
    p_ = hke_sim_platform(sim_);
  }
  ~InProcessFrontEnd() override { kfdsim_destroy(sim_); }
  int Open(const char* path, int* fd) override {
    return p_.ops->open(p_.self, path, HKE_OPEN_RDWR | HKE_OPEN_CLOEXEC, fd);
  }
  int Ioctl(int fd, uint32_t request, void* arg) override {
    return p_.ops->ioctl(p_.self, fd, request, arg);
  }
  int ReadFile(const char* path, std::string* out) override {
    char buf[8192];
    size_t n = 0;
    if (int r = p_.ops->read_file(p_.self, path, buf, sizeof(buf), &n)) return r;
    out->assign(buf, n);
    return 0;
  }

 private:
  kfdsim_t* sim_ = nullptr;
  hke_platform p_{};
};

void Check(int r, const char* what) {
  if (r != 0) Die(std::string(what) + " failed: " + std::strerror(r));
}

// The value of `key` in a topology properties file, or -1.
long long Property(const std::string& text, const std::string& key) {
  size_t at = 0;
  while ((at = text.find(key + " ", at)) != std::string::npos) {
    if (at == 0 || text[at - 1] == '\n') return std::atoll(text.c_str() + at + key.size() + 1);
    at += key.size();
  }
  return -1;
}

struct Rig {
  FrontEnd* fe = nullptr;
  int kfd = -1;
  uint32_t gpu_id = 0;
  uint32_t event_id = 0;

  void Setup(bool event) {
    Check(fe->Open("/dev/kfd", &kfd), "open /dev/kfd (preload: is LD_PRELOAD set?)");
    k::GetVersionArgs v{};
    Check(fe->Ioctl(kfd, k::kIocGetVersion, &v), "GET_VERSION");
    const std::string nodes = "/sys/devices/virtual/kfd/kfd/topology/nodes/";
    long long minor = -1;
    for (int n = 0; n < 256 && gpu_id == 0; ++n) {
      std::string id, props;
      if (fe->ReadFile((nodes + std::to_string(n) + "/gpu_id").c_str(), &id) != 0) break;
      if (std::atoll(id.c_str()) == 0) continue;
      Check(fe->ReadFile((nodes + std::to_string(n) + "/properties").c_str(), &props),
            "read a GPU node's properties");
      gpu_id = static_cast<uint32_t>(std::atoll(id.c_str()));
      minor = Property(props, "drm_render_minor");
    }
    if (gpu_id == 0 || minor < 0) Die("the board has no GPU node with a render minor");
    int drm = -1;
    Check(fe->Open(("/dev/dri/renderD" + std::to_string(minor)).c_str(), &drm), "open render node");
    k::AcquireVmArgs a{};
    a.drm_fd = static_cast<uint32_t>(drm);
    a.gpu_id = gpu_id;
    Check(fe->Ioctl(kfd, k::kIocAcquireVm, &a), "ACQUIRE_VM");
    if (event) {
      k::CreateEventArgs c{};
      c.event_type = k::kEventSignal;
      c.auto_reset = 1;
      Check(fe->Ioctl(kfd, k::kIocCreateEvent, &c), "CREATE_EVENT");
      event_id = c.event_id;
    }
  }

  // ALLOC + MAP of one 4 KiB buffer; its handle.
  uint64_t AllocMap(uint32_t flags, uint64_t va) {
    k::AllocMemoryOfGpuArgs a{};
    a.va_addr = va;
    a.size = 4096;
    a.gpu_id = gpu_id;
    a.flags = flags;
    Check(fe->Ioctl(kfd, k::kIocAllocMemoryOfGpu, &a), "ALLOC_MEMORY_OF_GPU");
    uint32_t ids[1] = {gpu_id};
    k::MapMemoryToGpuArgs m{};
    m.handle = a.handle;
    m.device_ids_array_ptr = reinterpret_cast<uintptr_t>(ids);
    m.n_devices = 1;
    Check(fe->Ioctl(kfd, k::kIocMapMemoryToGpu, &m), "MAP_MEMORY_TO_GPU");
    return a.handle;
  }
  // UNMAP + FREE of a mapped buffer.
  void UnmapFree(uint64_t handle) {
    uint32_t ids[1] = {gpu_id};
    k::UnmapMemoryFromGpuArgs u{};
    u.handle = handle;
    u.device_ids_array_ptr = reinterpret_cast<uintptr_t>(ids);
    u.n_devices = 1;
    Check(fe->Ioctl(kfd, k::kIocUnmapMemoryFromGpu, &u), "UNMAP_MEMORY_FROM_GPU");
    k::FreeMemoryOfGpuArgs f{};
    f.handle = handle;
    Check(fe->Ioctl(kfd, k::kIocFreeMemoryOfGpu, &f), "FREE_MEMORY_OF_GPU");
  }
  // ALLOC + MAP + UNMAP + FREE of one 4 KiB buffer.
  void Cycle(uint32_t flags, uint64_t va) { UnmapFree(AllocMap(flags, va)); }

  // The --live BOs: handles and VAs (past the memory mix's two).
  std::vector<uint64_t> live_handles, live_vas;
  uint64_t seed = 0x9e3779b97f4a7c15ull;
  void Populate(uint32_t n) {
    for (uint32_t i = 0; i < n; ++i) {
      live_vas.push_back(kVa + 0x200000 + uint64_t{i} * 4096);
      live_handles.push_back(AllocMap(kGtt, live_vas.back()));
    }
  }
  uint64_t Random() {  // xorshift64
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
  }

  // One iteration of the mix; returns the ioctls it issued.
  uint64_t Iteration(bool memory, bool churn) {
    if (churn) {
      const size_t slot = static_cast<size_t>(Random() % live_handles.size());
      UnmapFree(live_handles[slot]);
      live_handles[slot] = AllocMap(kGtt, live_vas[slot]);
      return 4;
    }
    if (memory) {
      Cycle(k::kAllocMemGtt | k::kAllocMemWritable | k::kAllocMemNoSubstitute, kVa);
      Cycle(k::kAllocMemVram | k::kAllocMemWritable | k::kAllocMemNoSubstitute,
            kVa + 0x100000);
      return 8;
    }
    k::GetVersionArgs v{};
    Check(fe->Ioctl(kfd, k::kIocGetVersion, &v), "GET_VERSION");
    k::SetEventArgs s{};
    s.event_id = event_id;
    Check(fe->Ioctl(kfd, k::kIocSetEvent, &s), "SET_EVENT");
    return 2;
  }

  static constexpr uint64_t kVa = 0x1000000000ull;  // inside every board's GPUVM aperture
  static constexpr uint32_t kGtt = k::kAllocMemGtt | k::kAllocMemWritable | k::kAllocMemNoSubstitute;
};

}  // namespace

int main(int argc, char** argv) {
  std::string front_end, mix, board = "datacenter-4gpu";
  double seconds = 0.5;
  long long iterations = -1;
  long long live = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) Die(a + " needs a value");
      return argv[++i];
    };
    if (a == "--front-end") front_end = value();
    else if (a == "--mix") mix = value();
    else if (a == "--board") board = value();
    else if (a == "--seconds") seconds = std::atof(value());
    else if (a == "--iterations") iterations = std::atoll(value());
    else if (a == "--live") live = std::atoll(value());
    else Die("unknown argument " + a + " (see the header of tools/bench/sim_rate.cc)");
  }
  if ((front_end != "preload" && front_end != "inprocess") ||
      (mix != "memory" && mix != "churn" && mix != "cheap") || live < 0 || live > (1 << 24) ||
      (mix == "churn" && live == 0)) {
    Die("usage: hke-sim-rate --front-end preload|inprocess --mix memory|churn|cheap "
        "[--seconds S | --iterations N] [--board NAME] [--live N] (churn: N >= 1)");
  }
  if (front_end == "preload") {
    // The preload serves the board named in its environment.
    if (const char* b = std::getenv("KFDSIM_BOARD")) board = b;
    else if (const char* t = std::getenv("KFDSIM_TOPOLOGY")) board = t;
  }
  std::unique_ptr<FrontEnd> fe;
  if (front_end == "inprocess") fe = std::make_unique<InProcessFrontEnd>(board.c_str());
  else fe = std::make_unique<PreloadFrontEnd>();
  Rig rig;
  rig.fe = fe.get();
  const bool memory = mix == "memory";
  const bool churn = mix == "churn";
  rig.Setup(mix == "cheap");
  rig.Populate(static_cast<uint32_t>(live));
  rig.Iteration(memory, churn);  // warm-up: first-use allocations in the simulator

  using Clock = std::chrono::steady_clock;
  uint64_t ioctls = 0;
  long long done = 0;
  const auto start = Clock::now();
  auto elapsed = Clock::duration::zero();
  if (iterations >= 0) {
    for (; done < iterations; ++done) ioctls += rig.Iteration(memory, churn);
    elapsed = Clock::now() - start;
  } else {
    const auto budget = std::chrono::duration<double>(seconds);
    do {
      for (int b = 0; b < 64; ++b, ++done) ioctls += rig.Iteration(memory, churn);
      elapsed = Clock::now() - start;
    } while (elapsed < budget);
  }
  const double ns = static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count());
  std::printf("{\"front_end\":\"%s\",\"mix\":\"%s\",\"board\":\"%s\",\"live\":%lld,"
              "\"iterations\":%lld,\"ioctls\":%llu,\"ns\":%.0f,\"ioctls_per_s\":%.0f}\n",
              front_end.c_str(), mix.c_str(), board.c_str(), live, done,
              static_cast<unsigned long long>(ioctls), ns, ns > 0 ? ioctls * 1e9 / ns : 0.0);
  return 0;
}
