// A simulated AMD IOMMU performance-monitoring unit, as Linux exposes it:
// the perf PMU "amd_iommu_0" (its perf type and one file per event under
// /sys/bus/event_source/devices/amd_iommu_0/events, "csource=0x<id>"), the
// KFD topology's nodes/0/perf/iommu/max_concurrent that older kernels
// published next to it, and perf_event descriptors on it.
//
// Counters advance deterministically: every read of an enabled counter adds
// (csource + 1) * 16 to its count and 1000 ns to both of its times; a
// disabled counter reads the same values again. No host time is involved,
// so tests can predict every value.
//
// Threading: every member is thread-safe (one mutex). Descriptors are
// host memfds (so their numbers are real and unique); close them through
// Close so the counter is forgotten.
#ifndef HKE_PLATFORM_SIM_CORE_IOMMU_PMU_H_
#define HKE_PLATFORM_SIM_CORE_IOMMU_PMU_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace kfdsim {

class IommuPmu {
 public:
  // The perf type number served in .../amd_iommu_0/type.
  static constexpr uint32_t kPerfType = 25;
  // Counters usable at once unless Configure says otherwise (the KFD's
  // max_concurrent: 2 banks of 4 counters).
  static constexpr uint32_t kDefaultMaxConcurrent = 8;

  // `max_concurrent` 0 removes the PMU (no files, perf_open ENOENT).
  void Configure(uint32_t max_concurrent);

  // Files: true for the PMU's sysfs paths (whether served or not).
  bool OwnsPath(const std::string& path) const;
  // 0 and the content, ENOENT, or EISDIR for a directory.
  int ReadFile(const std::string& path, std::string* out) const;
  // Entry names and whether each is a directory; ENOTDIR / ENOENT.
  int ListDir(const std::string& path, std::vector<std::pair<std::string, bool>>* out) const;

  // perf_event on the PMU: ENOENT for another type (or no PMU), EINVAL for
  // a config whose csource (bits 0..7) is not an event or with other bits
  // set; EMFILE past 64 open counters.
  int Open(uint32_t type, uint64_t config, int* out_fd);
  bool OwnsFd(int fd);
  int Enable(int fd, bool enable);
  int Read(int fd, uint64_t out_values[3]);
  int Close(int fd);
  // Open counters (tests check that nothing leaked).
  uint32_t OpenCount();

 private:
  struct Counter {
    uint32_t csource = 0;
    bool enabled = false;
    uint64_t value = 0;
    uint64_t time_enabled = 0;
    uint64_t time_running = 0;
  };
  mutable std::mutex mu_;
  uint32_t max_concurrent_ = kDefaultMaxConcurrent;
  std::map<int, Counter> counters_;
};

}  // namespace kfdsim

#endif  // HKE_PLATFORM_SIM_CORE_IOMMU_PMU_H_
