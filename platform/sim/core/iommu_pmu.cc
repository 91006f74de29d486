// The simulated IOMMU PMU; see iommu_pmu.h.
#include "platform/sim/core/iommu_pmu.h"

#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>

namespace kfdsim {
namespace {

// The IOMMU PMU's events as Linux names them, with their counter source.
struct Event {
  const char* name;
  uint32_t csource;
};
constexpr Event kEvents[] = {
    {"mem_pass_untrans", 0x01},      {"mem_pass_pretrans", 0x02},
    {"mem_pass_excl", 0x03},         {"mem_target_abort", 0x04},
    {"mem_trans_total", 0x05},       {"mem_iommu_tlb_pte_hit", 0x06},
    {"mem_iommu_tlb_pte_mis", 0x07}, {"mem_iommu_tlb_pde_hit", 0x08},
    {"mem_iommu_tlb_pde_mis", 0x09}, {"mem_dte_hit", 0x0a},
    {"mem_dte_mis", 0x0b},           {"page_tbl_read_tot", 0x0c},
    {"page_tbl_read_nst", 0x0d},     {"page_tbl_read_gst", 0x0e},
    {"int_dte_hit", 0x0f},           {"int_dte_mis", 0x10},
    {"cmd_processed", 0x11},         {"cmd_processed_inv", 0x12},
    {"tlb_inv", 0x13},               {"smi_recv", 0x17},
    {"smi_blk", 0x18},
};

constexpr char kPmuDir[] = "/sys/bus/event_source/devices/amd_iommu_0";
constexpr char kEventsDir[] = "/sys/bus/event_source/devices/amd_iommu_0/events";
constexpr char kFormatDir[] = "/sys/bus/event_source/devices/amd_iommu_0/format";
constexpr char kKfdPerfDir[] = "/sys/devices/virtual/kfd/kfd/topology/nodes/0/perf";
constexpr char kKfdIommuDir[] = "/sys/devices/virtual/kfd/kfd/topology/nodes/0/perf/iommu";
constexpr char kMaxConcurrent[] =
    "/sys/devices/virtual/kfd/kfd/topology/nodes/0/perf/iommu/max_concurrent";
constexpr uint32_t kMaxOpen = 64;

bool StartsWith(const std::string& s, const char* prefix) {
  const std::string p(prefix);
  return s.size() >= p.size() && s.compare(0, p.size(), p) == 0 &&
         (s.size() == p.size() || s[p.size()] == '/');
}

const Event* FindEvent(const std::string& name) {
  for (const Event& e : kEvents) {
    if (name == e.name) return &e;
  }
  return nullptr;
}

}  // namespace

void IommuPmu::Configure(uint32_t max_concurrent) {
  std::lock_guard<std::mutex> g(mu_);
  max_concurrent_ = max_concurrent;
}

bool IommuPmu::OwnsPath(const std::string& path) const {
  return StartsWith(path, kPmuDir) || StartsWith(path, kKfdPerfDir);
}

int IommuPmu::ReadFile(const std::string& path, std::string* out) const {
  std::lock_guard<std::mutex> g(mu_);
  if (max_concurrent_ == 0) return ENOENT;
  if (path == kPmuDir || path == kEventsDir || path == kFormatDir || path == kKfdPerfDir ||
      path == kKfdIommuDir) {
    return EISDIR;
  }
  if (path == std::string(kPmuDir) + "/type") {
    *out = std::to_string(kPerfType) + "\n";
    return 0;
  }
  if (path == std::string(kFormatDir) + "/csource") {
    *out = "config:0-7\n";
    return 0;
  }
  if (path == kMaxConcurrent) {
    *out = std::to_string(max_concurrent_) + "\n";
    return 0;
  }
  const std::string events = std::string(kEventsDir) + "/";
  if (path.compare(0, events.size(), events) == 0) {
    const Event* e = FindEvent(path.substr(events.size()));
    if (e == nullptr) return ENOENT;
    char text[32];
    std::snprintf(text, sizeof(text), "csource=0x%02x\n", e->csource);
    *out = text;
    return 0;
  }
  return ENOENT;
}

int IommuPmu::ListDir(const std::string& path,
                      std::vector<std::pair<std::string, bool>>* out) const {
  std::lock_guard<std::mutex> g(mu_);
  if (max_concurrent_ == 0) return ENOENT;
  std::vector<std::pair<std::string, bool>> list;
  if (path == kPmuDir) {
    list = {{"events", true}, {"format", true}, {"type", false}};
  } else if (path == kEventsDir) {
    for (const Event& e : kEvents) list.emplace_back(e.name, false);
  } else if (path == kFormatDir) {
    list = {{"csource", false}};
  } else if (path == kKfdPerfDir) {
    list = {{"iommu", true}};
  } else if (path == kKfdIommuDir) {
    list = {{"max_concurrent", false}};
  } else {
    std::string ignored;
    return ReadFile(path, &ignored) == 0 ? ENOTDIR : ENOENT;
  }
  *out = std::move(list);
  return 0;
}

int IommuPmu::Open(uint32_t type, uint64_t config, int* out_fd) {
  if (out_fd == nullptr) return EINVAL;
  std::lock_guard<std::mutex> g(mu_);
  if (max_concurrent_ == 0 || type != kPerfType) return ENOENT;
  if (config > 0xff) return EINVAL;
  bool known = false;
  for (const Event& e : kEvents) known = known || e.csource == config;
  if (!known) return EINVAL;
  if (counters_.size() >= kMaxOpen) return EMFILE;
  const int fd = memfd_create("kfdsim-perf", MFD_CLOEXEC);
  if (fd < 0) return errno;
  Counter c;
  c.csource = static_cast<uint32_t>(config);
  counters_[fd] = c;
  *out_fd = fd;
  return 0;
}

bool IommuPmu::OwnsFd(int fd) {
  std::lock_guard<std::mutex> g(mu_);
  return counters_.count(fd) != 0;
}

int IommuPmu::Enable(int fd, bool enable) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = counters_.find(fd);
  if (it == counters_.end()) return EBADF;
  it->second.enabled = enable;
  return 0;
}

int IommuPmu::Read(int fd, uint64_t out_values[3]) {
  if (out_values == nullptr) return EINVAL;
  std::lock_guard<std::mutex> g(mu_);
  auto it = counters_.find(fd);
  if (it == counters_.end()) return EBADF;
  Counter& c = it->second;
  if (c.enabled) {
    c.value += (uint64_t{c.csource} + 1) * 16;
    c.time_enabled += 1000;
    c.time_running += 1000;
  }
  out_values[0] = c.value;
  out_values[1] = c.time_enabled;
  out_values[2] = c.time_running;
  return 0;
}

int IommuPmu::Close(int fd) {
  {
    std::lock_guard<std::mutex> g(mu_);
    if (counters_.erase(fd) == 0) return EBADF;
  }
  return ::close(fd) == 0 ? 0 : errno;
}

uint32_t IommuPmu::OpenCount() {
  std::lock_guard<std::mutex> g(mu_);
  return static_cast<uint32_t>(counters_.size());
}

}  // namespace kfdsim
