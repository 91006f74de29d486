// kfdsim render-node ioctls: DRM_IOCTL_VERSION, DRM_IOCTL_GET_CLIENT and
// DRM_IOCTL_AMDGPU_INFO (ACCEL_WORKING, DEV_INFO, READ_MMR_REG), which is
// what libdrm_amdgpu's amdgpu_device_initialize() needs. The GEM requests
// (BOs created on the render node) are core/gem.cc's.
//
// Dispatch follows drm_ioctl(): the nr selects the ioctl; the bytes copied
// in are the user's size when both the user's and the kernel's directions
// include "write", the bytes copied back the user's size when both include
// "read" (also after a failure), and the rest of the kernel's structure is
// zero. Unknown nr (neither here nor in gem.cc) -> EINVAL (recorded as unknown).
// Replies: VERSION 3.49 "amdgpu" (each string copied up to the user's
// length, the length fields set to the full lengths); GET_CLIENT index 0 ->
// authenticated, pid/uid of the process, other indices -> EINVAL (a real
// render node refuses GET_CLIENT with EACCES; libdrm 2.4.114 copes with both,
// the brief asks for success). AMDGPU_INFO: return_pointer and return_size
// must be nonzero (EINVAL); at most return_size bytes are written; unknown
// queries -> EINVAL; READ_MMR_REG: count > 128 -> EINVAL, registers outside
// the readable set (GB_ADDR_CONFIG 0x263e, MC_ARB_RAMCFG 0x9d8, the tile
// mode tables 0x2644..0x2673) -> EFAULT.
//
// Threading: reads immutable board data only.
#include <errno.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "lib/kfd/drm_abi.h"
#include "platform/sim/core/simulator.h"
#include "platform/sim/core/util.h"

namespace kfdsim {

namespace k = hke::kfd;
namespace drm = hke::kfd::drm;

namespace {

constexpr uint8_t kNrVersion = 0x00;
constexpr uint8_t kNrGetClient = 0x05;
constexpr uint8_t kNrAmdgpuInfo = drm::kDrmCommandBase + drm::kDrmAmdgpuInfoNr;

int CopyField(const char* value, size_t* len, char* buf) {
  const size_t full = std::strlen(value);
  const size_t n = std::min(full, *len);
  *len = full;
  if (n != 0 && buf != nullptr) {
    return UserWrite(reinterpret_cast<uintptr_t>(buf), value, n);
  }
  return 0;
}

void FillDevInfo(const GpuDesc& g, drm::AmdgpuInfoDevice* info) {
  std::memset(info, 0, sizeof(*info));
  info->device_id = g.device_id;
  info->chip_rev = 0;
  info->external_rev = 0;
  info->pci_rev = g.pci_rev;
  info->family = g.drm_family;
  const uint32_t sh_per_se = g.simd_arrays_per_engine != 0 ? g.simd_arrays_per_engine : 1;
  info->num_shader_engines = g.array_count != 0 ? g.array_count / sh_per_se : 1;
  info->num_shader_arrays_per_engine = sh_per_se;
  info->gpu_counter_freq = 100000;  // kHz
  info->max_engine_clock = uint64_t{g.max_engine_clk_fcompute} * 1000;
  info->cu_active_number = g.cu_count;
  for (uint32_t se = 0; se < 4 && se < info->num_shader_engines; ++se) {
    for (uint32_t sh = 0; sh < 4 && sh < sh_per_se; ++sh) {
      const uint32_t cus = std::min(g.cu_per_simd_array, 32u);
      info->cu_bitmap[se][sh] = cus >= 32 ? 0xFFFFFFFFu : ((1u << cus) - 1u);
      info->cu_ao_bitmap[se][sh] = info->cu_bitmap[se][sh];
    }
  }
  info->cu_ao_mask = info->cu_bitmap[0][0];
  info->ids_flags = g.is_apu ? drm::kAmdgpuIdsFlagsFusion : 0;
  const bool gfx9 = g.gfx_target_version >= 90000 || g.gfx_target_version == 0;
  info->virtual_address_offset = 0x200000;
  info->virtual_address_max = gfx9 ? (1ull << 47) : (1ull << 40);
  info->virtual_address_alignment = 4096;
  info->pte_fragment_size = 1u << 21;
  info->gart_page_size = 4096;
  info->wave_front_size = g.wave_front_size;
  info->num_shader_visible_vgprs = 256;
  info->num_cu_per_sh = g.cu_per_simd_array;
  if (gfx9) {
    info->high_va_offset = 0xFFFF800000000000ull;
    info->high_va_max = 0xFFFFFFFFFFE00000ull;
  }
}

bool ReadRegister(const GpuDesc& g, uint32_t dword, uint32_t* value) {
  if (dword == 0x263e) {
    *value = g.gb_addr_config;
    return true;
  }
  if (dword == 0x9d8 || (dword >= 0x2644 && dword <= 0x2673)) {
    *value = 0;
    return true;
  }
  return false;
}

}  // namespace

int Simulator::DrmIoctl(IoctlCtx& c, unsigned long request, void* arg, std::string* trace_name,
                        bool* unknown) {
  const uint32_t req = static_cast<uint32_t>(request);
  const uint8_t nr = k::IocNr(req);
  uint32_t kernel_cmd = 0;
  if (nr == kNrVersion) {
    kernel_cmd = drm::kIocVersion;
    *trace_name = "DRM_IOCTL_VERSION";
  } else if (nr == kNrGetClient) {
    kernel_cmd = drm::kIocGetClient;
    *trace_name = "DRM_IOCTL_GET_CLIENT";
  } else if (nr == kNrAmdgpuInfo) {
    kernel_cmd = drm::kIocAmdgpuInfo;
    *trace_name = "DRM_IOCTL_AMDGPU_INFO";
  } else {
    return DrmGemIoctl(c, request, arg, trace_name, unknown);  // core/gem.cc
  }
  const uint8_t both = static_cast<uint8_t>(k::IocDir(req) & k::IocDir(kernel_cmd));
  const uint32_t usize = k::IocSize(req);
  const uint32_t in_size = (both & k::kIocWrite) ? usize : 0;
  const uint32_t out_size = (both & k::kIocRead) ? usize : 0;
  std::vector<uint8_t> kdata(std::max({in_size, out_size, k::IocSize(kernel_cmd)}), 0);
  if (in_size != 0 && UserRead(kdata.data(), reinterpret_cast<uintptr_t>(arg), in_size) != 0) {
    return EFAULT;
  }
  const GpuDesc& g = board_.desc.gpus[static_cast<size_t>(c.gpu)];
  int result = 0;
  if (nr == kNrVersion) {
    auto* v = reinterpret_cast<drm::Version*>(kdata.data());
    v->version_major = 3;
    v->version_minor = 49;
    v->version_patchlevel = 0;
    result = CopyField("amdgpu", &v->name_len, v->name);
    if (result == 0) result = CopyField("20150101", &v->date_len, v->date);
    if (result == 0) result = CopyField("AMD GPU", &v->desc_len, v->desc);
  } else if (nr == kNrGetClient) {
    auto* cl = reinterpret_cast<drm::Client*>(kdata.data());
    if (cl->idx != 0) {
      result = EINVAL;
    } else {
      cl->auth = 1;
      cl->pid = static_cast<unsigned long>(getpid());
      cl->uid = static_cast<unsigned long>(getuid());
      cl->magic = 0;
      cl->iocs = 0;
    }
  } else {
    auto* info = reinterpret_cast<drm::AmdgpuInfo*>(kdata.data());
    const uint64_t out = info->return_pointer;
    const uint32_t size = info->return_size;
    if (out == 0 || size == 0) {
      result = EINVAL;
    } else if (info->query == drm::kAmdgpuInfoAccelWorking) {
      const uint32_t one = 1;
      result = UserWrite(out, &one, std::min<size_t>(size, sizeof(one)));
    } else if (info->query == drm::kAmdgpuInfoDevInfo) {
      drm::AmdgpuInfoDevice dev;
      FillDevInfo(g, &dev);
      result = UserWrite(out, &dev, std::min<size_t>(size, sizeof(dev)));
    } else if (info->query == drm::kAmdgpuInfoReadMmrReg) {
      const uint32_t count = info->read_mmr_reg.count;
      if (count > 128) {
        result = EINVAL;
      } else {
        std::vector<uint32_t> regs(count);
        for (uint32_t i = 0; i < count && result == 0; ++i) {
          if (!ReadRegister(g, info->read_mmr_reg.dword_offset + i, &regs[i])) result = EFAULT;
        }
        if (result == 0) {
          result = UserWrite(out, regs.data(), std::min<size_t>(size, count * sizeof(uint32_t)));
        }
      }
    } else {
      result = EINVAL;
    }
  }
  if (out_size != 0 && UserWrite(reinterpret_cast<uintptr_t>(arg), kdata.data(), out_size) != 0) {
    result = EFAULT;
  }
  return result;
}

}  // namespace kfdsim
