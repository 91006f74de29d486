// Where the kernel places a reservation: a platform whose mmap puts
// reservations below the GPU-visible range (as qemu-user's downward-
// searching allocator does for a 32-bit process once its cursor has passed
// below that range, even for a hint at the range's base) must not make
// allocations fail while free address space exists higher up.
#include <cstdint>
#include <vector>

#include "hsakmt/hsakmt_platform.h"
#include "tests/memory/support.h"

using memtest::SimBoard;

namespace {

// Wraps a platform. While armed, an anonymous PROT_NONE reservation asked
// without a hint or with a hint below kLow gets an address below kLow
// (found upward from kLowStart with FIXED_NOREPLACE, as a bottom-of-space
// allocator would); a hint at or above kLow is passed through and counted.
class LowPlacingPlatform {
 public:
  static constexpr uint64_t kLow = 0x10000000;  // above the simulated GPU range's 16 MiB base
  static constexpr uint64_t kLowStart = 0x200000;

  // Every other operation is the inner platform's, with its own `self`;
  // so the wrapping mmap finds its wrapper through `current` (one at a time).
  explicit LowPlacingPlatform(hke_platform inner) : inner_(inner) {
    ops_ = *inner.ops;
    ops_.mmap = &Mmap;
    current = this;
  }
  ~LowPlacingPlatform() { current = nullptr; }
  hke_platform platform() { return hke_platform{&ops_, inner_.self}; }

  bool armed = false;
  int low_placed = 0;   // reservations put below kLow
  int high_hints = 0;   // reservations asked with a hint at or above kLow

 private:
  static inline LowPlacingPlatform* current = nullptr;

  static int Mmap(void*, void* addr, size_t length, uint32_t prot, uint32_t flags, int fd,
                  uint64_t offset, void** out) {
    LowPlacingPlatform* w = current;
    const bool reservation = prot == HKE_PROT_NONE && (flags & HKE_MAP_ANONYMOUS) != 0 &&
                             (flags & (HKE_MAP_FIXED | HKE_MAP_FIXED_NOREPLACE)) == 0;
    const uint64_t hint = reinterpret_cast<uintptr_t>(addr);
    if (reservation && w->armed && hint < kLow) {
      for (uint64_t at = kLowStart; at + length <= kLow; at += 0x100000) {
        void* got = nullptr;
        if (w->inner_.ops->mmap(w->inner_.self, reinterpret_cast<void*>(static_cast<uintptr_t>(at)),
                                length, prot, flags | HKE_MAP_FIXED_NOREPLACE, fd, offset,
                                &got) != 0) {
          continue;
        }
        if (reinterpret_cast<uintptr_t>(got) == at) {
          ++w->low_placed;
          *out = got;
          return 0;
        }
        (void)w->inner_.ops->munmap(w->inner_.self, got, length);  // hint not honoured
      }
    }
    if (reservation && w->armed && hint >= kLow) ++w->high_hints;
    return w->inner_.ops->mmap(w->inner_.self, addr, length, prot, flags, fd, offset, out);
  }

  hke_platform inner_;
  hke_platform_ops ops_{};
};

}  // namespace

TEST_CASE("a reservation placed below the GPU range is retried with a high hint and the allocation lands in the range") {
  SimBoard b(nullptr, "datacenter-4gpu");
  LowPlacingPlatform low(hke_sim_platform(b.sim()));
  hke_config c{};
  c.struct_size = sizeof(c);
  c.platform = low.platform();
  REQUIRE(hke_default_context_configure(&c) == HKE_OK);
  REQUIRE(hsaKmtOpenKFD() == HSAKMT_STATUS_SUCCESS);
  HsaSystemProperties sys{};
  REQUIRE(hsaKmtAcquireSystemProperties(&sys) == HSAKMT_STATUS_SUCCESS);
  HsaMemFlags f{};
  f.ui32.HostAccess = 1;
  f.ui32.NonPaged = 1;
  low.armed = true;
  std::vector<void*> got;
  for (int i = 0; i < 8; ++i) {
    void* p = nullptr;
    REQUIRE(hsaKmtAllocMemory(0, 64 * 1024, f, &p) == HSAKMT_STATUS_SUCCESS);
    CHECK(reinterpret_cast<uintptr_t>(p) >= 0x1000000u);  // the simulated GPUVM base
    got.push_back(p);
  }
  low.armed = false;
  CHECK(low.low_placed >= 8);   // every allocation met a low placement first
  CHECK(low.high_hints >= 8);   // and was placed through the high hint
  for (void* p : got) CHECK(hsaKmtFreeMemory(p, 64 * 1024) == HSAKMT_STATUS_SUCCESS);
  CHECK(hke_memory_check(hke_default_context()) == HKE_OK);
  CHECK(hsaKmtCloseKFD() == HSAKMT_STATUS_SUCCESS);
}
