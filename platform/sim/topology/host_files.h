// The host-side files a KFD machine also shows: /proc/cpuinfo, the NUMA and
// CPU-cache trees under /sys/devices/system, /proc/modules, /sys/module/amdgpu,
// /proc/cmdline and the device nodes. Built from a HostPlan the normaliser
// derives from the topology, so the thunk's apicid matching and libnuma's
// view agree with the KFD nodes.
#ifndef HKE_PLATFORM_SIM_TOPOLOGY_HOST_FILES_H_
#define HKE_PLATFORM_SIM_TOPOLOGY_HOST_FILES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "platform/sim/board.h"
#include "platform/sim/topology/file_map.h"

namespace kfdsim {
namespace topo {

struct CpuNodePlan {
  uint32_t numa_node = 0;  // == the KFD node index (the thunk opens node<index>)
  uint32_t first_cpu = 0;  // logical CPU numbers first_cpu .. first_cpu+count-1
  uint32_t count = 0;
  uint64_t apic_base = 0;  // == the node's cpu_core_id_base
  uint32_t socket = 0;
  uint64_t mem_bytes = 0;
  uint32_t mhz = 0;
};

struct CpuCacheLevel {
  uint32_t level;
  const char* type;  // "Data", "Instruction", "Unified"
  uint32_t size_kb;
  uint32_t ways;
  bool node_shared;  // shared by every CPU of the NUMA node, else private
};

struct HostPlan {
  std::string vendor;  // "AuthenticAMD" / "GenuineIntel"
  std::string model_name;
  uint32_t cpu_family = 0;
  uint32_t cpu_model = 0;
  uint32_t stepping = 0;
  std::vector<CpuCacheLevel> caches;
  uint32_t numa_distance_remote = 32;
  uint32_t cpu_count = 0;
  std::vector<CpuNodePlan> nodes;
  std::vector<uint32_t> render_minors;
  AmdgpuParams amdgpu;  // /sys/module/amdgpu/parameters, and /proc/cmdline when not default
};

// Applies "name=value,..." (names: emu_mode, noretry, sched_policy, mes,
// cwsr_enable; values decimal ints, '-' allowed) over *params. False with
// *why set, and *params untouched, on an unknown name or a bad value.
bool ApplyAmdgpuParams(const std::string& spec, AmdgpuParams* params, std::string* why);

// Fills vendor, model, family and caches from the vendor and the per-node
// CPU count unless the plan already names a model.
void ChooseCpuModel(HostPlan* plan);

void ServeHostFiles(const HostPlan& plan, MapFileProvider* files);

// "a-b" / "a" list and the kernel's comma-grouped hex mask of CPUs [first, first+count).
std::string CpuList(uint32_t first, uint32_t count);
std::string CpuMask(uint32_t first, uint32_t count, uint32_t cpu_count);

}  // namespace topo
}  // namespace kfdsim

#endif  // HKE_PLATFORM_SIM_TOPOLOGY_HOST_FILES_H_
