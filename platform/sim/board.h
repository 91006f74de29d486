// kfdsim board model: what the simulated kernel knows about the machine it
// pretends to be. A board comes from a captured sysfs topology tree or from
// a built-in description (platform/sim/topology/), and is consumed by the
// KFD core (platform/sim/core/) and the front ends.
//
// Ownership: a Board owns its file provider. Boards are immutable once
// loaded and may be read from any thread.
//
// The simulator lives in platform/: it may use the OS, the C++ standard
// library containers and the heap. It is built with -fno-exceptions
// -fno-rtti like the rest of platform/.
#ifndef HKE_PLATFORM_SIM_BOARD_H_
#define HKE_PLATFORM_SIM_BOARD_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kfdsim {

// One GPU node as the simulated kernel sees it. Values are those the served
// sysfs `properties` file states (after any fill-in), so the KFD core and
// the topology the thunk reads always agree.
struct GpuDesc {
  uint32_t node_id = 0;       // sysfs node index (nodes/<node_id>)
  uint32_t gpu_id = 0;        // KFD gpu_id, nonzero, unique
  uint32_t render_minor = 0;  // drm_render_minor: /dev/dri/renderD<minor>, 128..255
  uint32_t vendor_id = 0x1002;
  uint32_t device_id = 0;     // PCI device id
  uint32_t pci_rev = 0;       // PCI revision (DEV_INFO, marketing-name lookup)
  uint32_t gfx_target_version = 0;  // decimal MMmmss, e.g. 90010 for gfx90a
  uint32_t drm_family = 0;    // AMDGPU_FAMILY_* reported by DEV_INFO (141 = AI, ...)
  bool is_apu = false;        // integrated: no local memory, FUSION flag in DEV_INFO
  uint64_t vram_bytes = 0;    // local memory size (the BIOS carve-out on an APU)
  uint64_t vram_visible_bytes = 0;  // CPU-visible part (== vram_bytes with a large BAR)
  uint64_t gtt_bytes = 0;     // system memory the GPU may map (GTT)
  uint32_t simd_count = 0;
  uint32_t simd_per_cu = 0;
  uint32_t cu_count = 0;      // simd_count / simd_per_cu
  uint32_t num_xcc = 1;
  uint32_t array_count = 0;
  uint32_t simd_arrays_per_engine = 0;
  uint32_t cu_per_simd_array = 0;
  uint32_t max_waves_per_simd = 0;
  uint32_t wave_front_size = 64;
  uint32_t lds_size_in_kb = 64;
  uint32_t num_sdma_engines = 0;
  uint32_t num_sdma_xgmi_engines = 0;
  uint32_t num_sdma_queues_per_engine = 0;
  uint32_t num_cp_queues = 0;
  uint32_t num_gws = 0;
  uint32_t location_id = 0;
  uint32_t domain = 0;
  uint64_t hive_id = 0;
  uint64_t unique_id = 0;
  uint32_t max_engine_clk_fcompute = 0;  // MHz
  uint32_t capability = 0;
  uint32_t capability2 = 0;
  uint32_t debug_prop = 0;
  uint32_t cwsr_size = 0;       // per-queue context save area, 0 when sysfs has none
  uint32_t ctl_stack_size = 0;  // control stack, 0 when sysfs has none
  uint32_t gb_addr_config = 0;  // answer to READ_MMR_REG(gb_addr_config)
  // Retry faults off (gmc.noretry): the module's noretry, or for -1 (auto)
  // the GPU's default (amdgpu_gmc_noretry_set). Drives the XNACK mode.
  bool noretry = true;
};

// amdgpu module parameters the simulated machine was booted with, served as
// /sys/module/amdgpu/parameters/<name> (what consumers read: emu_mode by
// kfdtest and rocrtst, cwsr_enable by kfdtest, noretry, sched_policy and mes
// by scripts and tests). Defaults are the module's own, which a default
// install shows whatever the GPU: noretry -1 means "the GPU's default".
struct AmdgpuParams {
  int emu_mode = 0;
  int noretry = -1;
  int sched_policy = 0;  // 0 HWS, 1 HWS without oversubscription, 2 no HWS
  int mes = 0;
  int cwsr_enable = 1;
};

struct BoardDesc {
  std::string name;            // built-in name or the tree's directory name
  uint32_t kfd_major = 1;
  uint32_t kfd_minor = 17;     // KFD interface the simulated kernel reports
  uint32_t cpu_count = 0;      // logical CPUs (/proc/cpuinfo, get_nprocs)
  uint32_t node_count = 0;     // sysfs nodes, CPUs and GPUs
  std::vector<GpuDesc> gpus;   // in node order
  AmdgpuParams amdgpu_params;  // served under /sys/module/amdgpu/parameters
  // Host NUMA nodes served under /sys/devices/system/node (node<N>): one per
  // KFD CPU node, N = the CPU node's index. Empty for a hand-built board
  // without host files (the simulated host then has node 0 only).
  std::vector<uint32_t> numa_nodes;
};

// Entry kinds for FileProvider::Kind/List.
enum class FileKind : uint32_t { kNone = 0, kFile = 1, kDir = 2, kDevice = 3 };

struct DirEntry {
  std::string name;
  FileKind kind = FileKind::kNone;
};

// Answers every path the thunks read: the KFD topology under
// /sys/devices/virtual/kfd/kfd/topology (and /sys/class/kfd/kfd/topology),
// /proc/cpuinfo, /sys/devices/system/node/**, /sys/devices/system/cpu/**,
// /proc/modules, /sys/module/amdgpu/**, /dev/kfd and /dev/dri/renderD*
// (kind kDevice), /usr/share/libdrm/amdgpu.ids is NOT served (it is the
// host's data file). Paths are absolute and normalised ("/a/b", no "..").
// Return values are 0 or a positive errno (ENOENT, ENOTDIR, EISDIR).
class FileProvider {
 public:
  virtual ~FileProvider() = default;
  virtual int Kind(const std::string& path, FileKind* out) const = 0;
  virtual int Read(const std::string& path, std::string* out) const = 0;
  virtual int List(const std::string& path, std::vector<DirEntry>* out) const = 0;
  // True when `path` is inside the simulated namespace: a path under one of
  // the served roots that does not exist must not fall through to the host.
  virtual bool Owns(const std::string& path) const = 0;
};

struct Board {
  BoardDesc desc;
  std::unique_ptr<FileProvider> files;
  // What the loader filled in or corrected (one line each, human readable),
  // e.g. "nodes/2: gpu_id missing; served 43981 (derived from location_id)".
  std::vector<std::string> fill_report;
};

struct LoadOptions {
  uint32_t kfd_minor = 17;  // KFD version the board reports
  uint32_t cpu_count = 0;   // 0: derived from the tree (sum of cpu_cores_count)
  // amdgpu parameters the machine was booted with, "name=value,..." over
  // AmdgpuParams' defaults (e.g. "noretry=0"); an unknown name or a value
  // that is not a decimal int fails the load.
  std::string amdgpu_params;
};

// Implemented in platform/sim/topology/. Return 0 or an errno; on failure
// *error names the file that could not be understood and *out is untouched.
int LoadTreeBoard(const std::string& tree_dir, const LoadOptions& options, Board* out,
                  std::string* error);
int LoadBuiltinBoard(const std::string& name, const LoadOptions& options, Board* out,
                     std::string* error);
std::vector<std::string> BuiltinBoardNames();

}  // namespace kfdsim

#endif  // HKE_PLATFORM_SIM_BOARD_H_
