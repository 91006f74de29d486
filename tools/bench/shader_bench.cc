// hke-shader-bench: how fast the simulator's shader cores run kernels, on
// the in-process simulator through this project's library (the same path
// as tests/sim_shader): wave-instructions per second of an ALU loop and of a
// copy kernel, and the copy kernel's bytes per second against memcpy on the
// same machine.
//
//   hke-shader-bench [--board NAME] [--bytes N] [--repeat N] [--json FILE]
//
// Cases (kernels from tests/sim_shader/kernels/bench.s, assembled at build
// time by clang-14):
//   alu   alu_loop: 64 waves x 20,000 rounds of 8 VALU + 3 SALU instructions
//   copy  copy16: a grid-stride dwordx4 GLOBAL copy of --bytes (default
//         64 MiB) from GTT to VRAM by 4096 work-items, the shape of a
//         runtime's aligned blit copy
//   user  copy16 from registered user memory (hsaKmtRegisterMemoryToNodes
//         of malloc'd pages) to VRAM: the simulator reads user pages through
//         checked copies (a kernel never crashes it on unmapped memory)
//   memcpy  the same bytes host to host, the baseline
// Each is timed --repeat times (default 3) from the doorbell to the
// completion event (hsaKmtWaitOnEvent) and the best run is reported, with
// wave-instructions from kfdsim_shader_instructions. Prints a Markdown
// table; --json writes one JSON object. Exit status 0 on success, 1 when a
// kernel fails or gives wrong bytes, 2 on bad usage.
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "hsakmt/hsakmt.h"
#include "hsakmt/hsakmt_embedded.h"
#include "hsakmt/hsakmt_linux.h"
#include "platform/sim/inprocess/sim_platform.h"
#include "platform/sim/sim.h"
#include "sim_shader_kernels.h"
#include "tests/sim_shader/code_object.h"

namespace {

struct Options {
  const char* board = "datacenter-4gpu";
  uint64_t bytes = 64ull << 20;
  int repeat = 3;
  const char* json = nullptr;
};

[[noreturn]] void Die(const char* what, int status = 1) {
  std::fprintf(stderr, "hke-shader-bench: %s\n", what);
  std::exit(status);
}

void Check(bool ok, const char* what) {
  if (!ok) Die(what);
}

uint64_t Va(const void* p) { return reinterpret_cast<uintptr_t>(p); }

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The simulated board, an AQL queue laid out like ROCR's amd_queue_t, a
// completion signal with an event mailbox, and the loaded kernels.
class Rig {
 public:
  explicit Rig(const char* board) {
    kfdsim_options o{};
    o.struct_size = sizeof(o);
    o.board_name = board;
    char error[512] = {};
    if (kfdsim_create(&o, &sim_, error, sizeof(error)) != 0) Die(error);
    platform_ = hke_sim_platform(sim_);
    hke_config c{};
    c.struct_size = sizeof(c);
    c.platform = platform_;
    Check(hke_default_context_configure(&c) == HKE_OK, "configure the default context");
    Check(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS, "hsaKmtOpenKFD");
    HsaSystemProperties sys{};
    Check(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS, "topology");
    for (uint32_t n = 0; n < sys.NumNodes && node_ == ~0u; ++n) {
      HsaNodeProperties p{};
      Check(hsaKmtGetNodeProperties(n, &p) == HSAKMT_STATUS_SUCCESS, "node properties");
      if (p.NumFComputeCores != 0 && p.EngineId.ui32.Major == 9) {
        node_ = n;
        gfx_ = p.EngineId.ui32.Major * 10000 + p.EngineId.ui32.Minor * 100 + p.EngineId.ui32.Stepping;
      }
    }
    Check(node_ != ~0u, "the board has no gfx9 GPU");
    ring_ = static_cast<uint8_t*>(Gtt(kRing));
    for (uint64_t i = 0; i < kRing; i += 64) *reinterpret_cast<uint16_t*>(ring_ + i) = 1;
    queue_ = static_cast<uint8_t*>(Gtt(4096));
    signal_ = static_cast<int64_t*>(Gtt(4096));
    HsaEventDescriptor d{};
    d.EventType = HSA_EVENTTYPE_SIGNAL;
    d.NodeId = node_;
    d.SyncVar.SyncVarSize = sizeof(HSAuint64);
    Check(hsaKmtCreateEvent(&d, false, false, &done_) == HSAKMT_STATUS_SUCCESS, "event");
    q_.Queue_read_ptr_aql = reinterpret_cast<HSAuint64*>(queue_ + 128);
    q_.Queue_write_ptr_aql = reinterpret_cast<HSAuint64*>(queue_ + 56);
    Check(hsaKmtCreateQueue(node_, HSA_QUEUE_COMPUTE_AQL, 100, HSA_QUEUE_PRIORITY_NORMAL, ring_, kRing,
                            nullptr, &q_) == HSAKMT_STATUS_SUCCESS,
          "hsaKmtCreateQueue");
    const shadertest::CodeObject* co = shadertest::kBench.For(gfx_);
    Check(co != nullptr, "no code object for this target");
    const shadertest::CodeObjectImage image(co->bytes, co->size);
    auto* mem = static_cast<uint8_t*>(Gtt(image.Span()));
    Check(image.CopyTo(mem), "load the code object");
    uint64_t kd = 0;
    Check(image.Symbol("copy16.kd", &kd), "copy16");
    copy16_ = Va(mem) + kd;
    Check(image.Symbol("alu_loop.kd", &kd), "alu_loop");
    alu_ = Va(mem) + kd;
  }
  ~Rig() {
    (void)hsaKmtDestroyQueue(q_.QueueId);
    (void)hsaKmtDestroyEvent(done_);
    while (hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS) {
    }
    hke_config c{};
    c.struct_size = sizeof(c);
    c.platform = hke_linux_platform();
    (void)hke_default_context_configure(&c);
    kfdsim_destroy(sim_);
  }

  void* Gtt(uint64_t size) { return Alloc(0, size, false); }
  // Page-aligned host memory registered and mapped for the GPU; *gpuva is
  // the address its kernels use.
  void* User(uint64_t size, uint64_t* gpuva) {
    size = (size + 4095) / 4096 * 4096;
    void* p = std::aligned_alloc(4096, size);
    Check(p != nullptr, "aligned_alloc");
    Check(hsaKmtRegisterMemoryToNodes(p, size, 1, &node_) == HSAKMT_STATUS_SUCCESS, "hsaKmtRegisterMemoryToNodes");
    HSAuint64 va = 0;
    Check(hsaKmtMapMemoryToGPUNodes(p, size, &va, HsaMemMapFlags{}, 1, &node_) == HSAKMT_STATUS_SUCCESS,
          "hsaKmtMapMemoryToGPUNodes (user memory)");
    *gpuva = va;
    return p;
  }
  void* Vram(uint64_t size) { return Alloc(node_, size, true); }
  uint64_t copy16() const { return copy16_; }
  uint64_t alu() const { return alu_; }
  uint32_t gfx() const { return gfx_; }

  uint64_t Instructions() {
    uint64_t n = 0;
    Check(kfdsim_shader_instructions(sim_, &n) == 0, "kfdsim_shader_instructions");
    return n;
  }

  // One 1-D dispatch in workgroups of 256; returns its wall time (s).
  double Dispatch(uint64_t kernel, uint32_t items, const void* args, size_t args_size) {
    void* kernarg = kernarg_ != nullptr ? kernarg_ : (kernarg_ = Gtt(4096));
    std::memcpy(kernarg, args, args_size);
    signal_[1] = 1;                                             // value
    *reinterpret_cast<uint64_t*>(&signal_[2]) = done_->EventData.HWData2;  // event mailbox
    *reinterpret_cast<uint32_t*>(&signal_[3]) = done_->EventId;
    const uint64_t index = next_++;
    uint8_t* p = ring_ + (index * 64) % kRing;
    std::memset(p + 2, 0, 62);
    const uint16_t setup = 1, wg = 256;
    std::memcpy(p + 2, &setup, 2);
    std::memcpy(p + 4, &wg, 2);
    const uint16_t one = 1;
    std::memcpy(p + 6, &one, 2);
    std::memcpy(p + 8, &one, 2);
    const uint32_t grid[3] = {items, 1, 1};
    std::memcpy(p + 12, grid, 12);
    const uint64_t ka = Va(kernarg), sig = Va(signal_);
    std::memcpy(p + 32, &kernel, 8);
    std::memcpy(p + 40, &ka, 8);
    std::memcpy(p + 56, &sig, 8);
    const double t0 = Now();
    __atomic_store_n(reinterpret_cast<uint16_t*>(p), static_cast<uint16_t>(2u | (1u << 8) | (2u << 9) | (2u << 11)),
                     __ATOMIC_RELEASE);
    __atomic_store_n(q_.Queue_write_ptr_aql, next_, __ATOMIC_RELEASE);
    __atomic_store_n(q_.Queue_DoorBell_aql, index, __ATOMIC_RELEASE);
    Check(hsaKmtWaitOnEvent(done_, 600000) == HSAKMT_STATUS_SUCCESS, "kernel completion");
    const double t = Now() - t0;
    Check(__atomic_load_n(&signal_[1], __ATOMIC_ACQUIRE) == 0, "completion signal");
    return t;
  }

 private:
  static constexpr uint64_t kRing = 4096;

  void* Alloc(uint32_t node, uint64_t size, bool vram) {
    size = (size + 4095) / 4096 * 4096;
    HsaMemFlags f{};
    f.ui32.HostAccess = 1;
    f.ui32.NonPaged = 1;
    if (vram) {
      f.ui32.CoarseGrain = 1;
    } else {
      f.ui32.ExecuteAccess = 1;
    }
    void* p = nullptr;
    Check(hsaKmtAllocMemory(node, size, f, &p) == HSAKMT_STATUS_SUCCESS, "hsaKmtAllocMemory");
    Check(hsaKmtMapMemoryToGPUNodes(p, size, nullptr, HsaMemMapFlags{}, 1, &node_) == HSAKMT_STATUS_SUCCESS,
          "hsaKmtMapMemoryToGPUNodes");
    return p;
  }

  kfdsim_t* sim_ = nullptr;
  hke_platform platform_{};
  uint32_t node_ = ~0u;
  uint32_t gfx_ = 0;
  uint8_t* ring_ = nullptr;
  uint8_t* queue_ = nullptr;
  int64_t* signal_ = nullptr;
  void* kernarg_ = nullptr;
  HsaEvent* done_ = nullptr;
  HsaQueueResource q_{};
  uint64_t next_ = 0;
  uint64_t copy16_ = 0, alu_ = 0;
};

struct Result {
  double seconds = 1e30;
  uint64_t instructions = 0;
};

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) Die(("missing value for " + a).c_str(), 2);
      return argv[++i];
    };
    if (a == "--board") {
      opt.board = value();
    } else if (a == "--bytes") {
      opt.bytes = std::strtoull(value(), nullptr, 0);
    } else if (a == "--repeat") {
      opt.repeat = std::atoi(value());
    } else if (a == "--json") {
      opt.json = value();
    } else {
      std::fprintf(stderr, "usage: hke-shader-bench [--board NAME] [--bytes N] [--repeat N] [--json FILE]\n");
      return 2;
    }
  }
  if (opt.bytes < 4096 || opt.bytes % 16 != 0 || opt.bytes / 16 > 0xFFFFFFFFull || opt.repeat < 1) {
    Die("--bytes must be a multiple of 16 of at least 4096, --repeat at least 1", 2);
  }
  Rig rig(opt.board);

  // ALU: 64 waves x 20,000 rounds.
  constexpr uint32_t kAluItems = 64 * 64, kRounds = 20000;
  auto* alu_out = static_cast<uint32_t*>(rig.Gtt(kAluItems * 4));
  Result alu;
  for (int r = 0; r < opt.repeat; ++r) {
    struct {
      uint64_t out;
      uint32_t iterations;
    } args{Va(alu_out), kRounds};
    const uint64_t before = rig.Instructions();
    const double t = rig.Dispatch(rig.alu(), kAluItems, &args, sizeof(args));
    if (t < alu.seconds) {
      alu.seconds = t;
      alu.instructions = rig.Instructions() - before;
    }
  }

  // Copy: GTT -> VRAM.
  const uint64_t n16 = opt.bytes / 16;
  auto* src = static_cast<uint8_t*>(rig.Gtt(opt.bytes));
  auto* dst = static_cast<uint8_t*>(rig.Vram(opt.bytes));
  for (uint64_t i = 0; i < opt.bytes; i += 8) {
    const uint64_t v = i * 0x9E3779B97F4A7C15ull;
    std::memcpy(src + i, &v, 8);
  }
  // Best of --repeat copies of opt.bytes from `from` (GPU VA `from_va`) to
  // dst, each checked.
  constexpr uint32_t kCopyItems = 4096;
  auto best_copy = [&](const uint8_t* from, uint64_t from_va, const char* wrong) {
    Result best;
    for (int r = 0; r < opt.repeat; ++r) {
      std::memset(dst, 0, opt.bytes);
      struct {
        uint64_t src, dst;
        uint32_t n, total;
      } args{from_va, Va(dst), static_cast<uint32_t>(n16), kCopyItems};
      const uint64_t before = rig.Instructions();
      const double t = rig.Dispatch(rig.copy16(), kCopyItems, &args, sizeof(args));
      Check(std::memcmp(from, dst, opt.bytes) == 0, wrong);
      if (t < best.seconds) {
        best.seconds = t;
        best.instructions = rig.Instructions() - before;
      }
    }
    return best;
  };
  const Result copy = best_copy(src, Va(src), "the copy kernel gave wrong bytes");

  // Copy: registered user memory -> VRAM (the same kernel and sizes).
  uint64_t user_va = 0;
  auto* user = static_cast<uint8_t*>(rig.User(opt.bytes, &user_va));
  std::memcpy(user, src, opt.bytes);
  const Result ucopy = best_copy(user, user_va, "the copy kernel gave wrong bytes from user memory");

  // memcpy baseline, host to host, pages touched first.
  std::vector<uint8_t> a(opt.bytes, 1), b(opt.bytes, 2);
  double memcpy_s = 1e30;
  for (int r = 0; r < opt.repeat + 2; ++r) {
    const double t0 = Now();
    std::memcpy(b.data(), a.data(), opt.bytes);
    const double t = Now() - t0;
    if (t < memcpy_s) memcpy_s = t;
  }
  Check(b[opt.bytes / 2] == 1, "memcpy");

  const double mb = static_cast<double>(opt.bytes) / 1e6;
  const double alu_rate = static_cast<double>(alu.instructions) / alu.seconds;
  const double copy_rate = static_cast<double>(copy.instructions) / copy.seconds;
  const double copy_mbs = mb / copy.seconds, memcpy_mbs = mb / memcpy_s;
  const double ucopy_rate = static_cast<double>(ucopy.instructions) / ucopy.seconds;
  const double ucopy_mbs = mb / ucopy.seconds;
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  std::printf("hke-shader-bench: board %s (gfx_target_version %u), best of %d, %s\n\n", opt.board, rig.gfx(),
              opt.repeat, host);
  std::printf("| case | time | wave-instructions | wave-instructions/s | bytes/s |\n");
  std::printf("|---|---|---|---|---|\n");
  std::printf("| alu (64 waves x %u rounds) | %.3f s | %llu | %.3g | |\n", kRounds, alu.seconds,
              static_cast<unsigned long long>(alu.instructions), alu_rate);
  std::printf("| copy16 %.1f MB GTT->VRAM | %.3f s | %llu | %.3g | %.1f MB/s |\n", mb, copy.seconds,
              static_cast<unsigned long long>(copy.instructions), copy_rate, copy_mbs);
  std::printf("| copy16 %.1f MB user->VRAM | %.3f s | %llu | %.3g | %.1f MB/s |\n", mb, ucopy.seconds,
              static_cast<unsigned long long>(ucopy.instructions), ucopy_rate, ucopy_mbs);
  std::printf("| memcpy %.1f MB host->host | %.4f s | | | %.1f MB/s |\n", mb, memcpy_s, memcpy_mbs);
  std::printf("\ncopy16 runs at 1/%.1f of memcpy (from user memory: 1/%.1f)\n", memcpy_mbs / copy_mbs,
              memcpy_mbs / ucopy_mbs);
  if (opt.json != nullptr) {
    FILE* f = std::fopen(opt.json, "w");
    if (f == nullptr) Die("cannot write --json");
    std::fprintf(f,
                 "{\"board\":\"%s\",\"gfx_target_version\":%u,\"bytes\":%llu,\"alu_wave_instructions_per_s\":%.6g,"
                 "\"copy_wave_instructions_per_s\":%.6g,\"copy_bytes_per_s\":%.6g,\"user_copy_bytes_per_s\":%.6g,"
                 "\"memcpy_bytes_per_s\":%.6g}\n",
                 opt.board, rig.gfx(), static_cast<unsigned long long>(opt.bytes), alu_rate, copy_rate,
                 copy_mbs * 1e6, ucopy_mbs * 1e6, memcpy_mbs * 1e6);
    std::fclose(f);
  }
  return 0;
}
