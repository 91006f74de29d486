// kfdsim render nodes as libdrm sees them: the ioctls DRM_IOCTL_VERSION,
// DRM_IOCTL_GET_CLIENT, DRM_IOCTL_GET_UNIQUE and DRM_IOCTL_AMDGPU_INFO
// (ACCEL_WORKING, DEV_INFO, READ_MMR_REG), which is what libdrm_amdgpu's
// amdgpu_device_initialize() needs, and each node's device identity. The
// GEM requests (BOs created on the render node) are core/gem.cc's.
//
// Identity: libdrm_amdgpu keeps one amdgpu_device per DRM device and finds
// an existing one by comparing the primary-node names libdrm derives from
// each descriptor (fstat's st_rdev -> /sys/dev/char/<maj>:<min>/device/drm
// -> "card<n>"); when it cannot derive a name it takes the descriptors for
// the same device, and a thunk then hands one render file to ACQUIRE_VM for
// two GPUs. So every render node has, as on real hardware, its own device
// number 226:<render minor> (DeviceNumber; the front end reports it from
// fstat/stat with S_IFCHR) and its own sysfs device (DrmSysfs): per GPU, in
// board order i, the directory /sys/devices/kfdsim/<slot> where slot is the
// PCI address "DDDD:BB:DD.F" from the node's domain and location_id (a GPU
// sharing an earlier GPU's address, a compute partition, is the platform
// device "amdgpu_xcp_<i>" as the kernel makes it), holding vendor, device,
// subsystem_vendor, subsystem_device, revision, class, uevent (DRIVER,
// PCI_CLASS, PCI_ID, PCI_SUBSYS_ID, PCI_SLOT_NAME), the subsystem and
// driver links, and drm/card<i> and drm/renderD<minor> (dev, uevent, a
// device link back); /sys/dev/char/226:<i> and 226:<minor> link to those.
// The primary node card<i> exists in sysfs only: no /dev/dri/card<i> is
// served (nothing the thunks use opens one). GET_UNIQUE answers the same
// PCI address ("pci:DDDD:BB:DD.F"; a partition: its parent's), although a
// real render node refuses it with EACCES (like GET_CLIENT below, answered
// so that a thunk asking gets each GPU's own bus).
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
#include <cstdio>
#include <cstring>
#include <string>

#include "lib/kfd/drm_abi.h"
#include "platform/sim/core/simulator.h"
#include "platform/sim/core/util.h"
#include "platform/sim/sim.h"

namespace kfdsim {

namespace k = hke::kfd;
namespace drm = hke::kfd::drm;

namespace {

constexpr uint32_t kDrmMajor = 226;

// The requests this file serves come from the library's DRM list
// (lib/kfd/drm_abi.h): number, the kernel's request code and its name.
struct DrmRequest {
  uint8_t nr;
  uint32_t kernel_cmd;
  const char* name;
};
#define KFDSIM_DRM_REQUEST(nr, Name, NAME, dir, Args) \
  DrmRequest{k::IocNr(drm::kIoc##Name), drm::kIoc##Name, "DRM_IOCTL_" #NAME},
constexpr DrmRequest kDrmRequests[] = {HKE_DRM_IOCTL_LIST(KFDSIM_DRM_REQUEST)};
#undef KFDSIM_DRM_REQUEST

constexpr uint8_t kNrVersion = k::IocNr(drm::kIocVersion);
constexpr uint8_t kNrGetUnique = k::IocNr(drm::kIocGetUnique);
constexpr uint8_t kNrGetClient = k::IocNr(drm::kIocGetClient);

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

// The PCI address of a GPU ("DDDD:BB:DD.F").
std::string PciSlot(const GpuDesc& g) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%04x:%02x:%02x.%x", g.domain & 0xFFFF, (g.location_id >> 8) & 0xFF,
                (g.location_id >> 3) & 0x1F, g.location_id & 7);
  return buf;
}

std::string Hex4(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0x%04x\n", v & 0xFFFF);
  return buf;
}

}  // namespace

int Simulator::DeviceNumber(int fd, const char* path, uint32_t* major, uint32_t* minor) {
  int gpu = -1;
  if (fd >= 0) {
    if (auto sec = RouteOf(fd)) return sec->DeviceNumber(fd, path, major, minor);
    IoctlCtx ctx;
    if (LookupFd(fd, &ctx) != 0 || ctx.kind != DevKind::kRender) return ENOENT;
    gpu = ctx.gpu;
  } else {
    static constexpr char kPrefix[] = "/dev/dri/renderD";
    if (path == nullptr || std::strncmp(path, kPrefix, sizeof(kPrefix) - 1) != 0) return ENOENT;
    const char* digits = path + sizeof(kPrefix) - 1;
    uint32_t m = 0;
    if (*digits == '\0' || std::strlen(digits) > 6) return ENOENT;
    for (const char* d = digits; *d != '\0'; ++d) {
      if (*d < '0' || *d > '9') return ENOENT;
      m = m * 10 + static_cast<uint32_t>(*d - '0');
    }
    gpu = RenderMinorGpu(m);
  }
  if (gpu < 0) return ENOENT;
  *major = kDrmMajor;
  *minor = board_.desc.gpus[static_cast<size_t>(gpu)].render_minor;
  return 0;
}

void Simulator::DrmSysfs(SysfsEntryFn fn, void* user) const {
  const auto& gpus = board_.desc.gpus;
  bool stop = false;
  auto emit = [&](const std::string& path, uint32_t kind, const std::string& data) {
    if (!stop) stop = fn(user, path.c_str(), kind, data.data(), data.size()) != 0;
  };
  emit("/sys/devices/kfdsim", KFDSIM_FILE_DIR, "");
  emit("/sys/dev", KFDSIM_FILE_DIR, "");
  emit("/sys/dev/char", KFDSIM_FILE_DIR, "");
  for (size_t i = 0; i < gpus.size() && !stop; ++i) {
    const GpuDesc& g = gpus[i];
    bool partition = false;
    for (size_t j = 0; j < i; ++j) {
      partition = partition || (gpus[j].domain == g.domain && gpus[j].location_id == g.location_id);
    }
    const std::string slot = PciSlot(g);
    const std::string name = partition ? "amdgpu_xcp_" + std::to_string(i) : slot;
    const std::string dir = "/sys/devices/kfdsim/" + name;
    char ids[16];
    std::snprintf(ids, sizeof(ids), "%04X:%04X", g.vendor_id & 0xFFFF, g.device_id & 0xFFFF);
    emit(dir, KFDSIM_FILE_DIR, "");
    if (partition) {
      emit(dir + "/uevent", KFDSIM_FILE_REGULAR, "DRIVER=amdgpu_xcp_drv\nMODALIAS=platform:amdgpu_xcp\n");
      emit(dir + "/subsystem", KFDSIM_FILE_SYMLINK, "../../../bus/platform");
    } else {
      emit(dir + "/vendor", KFDSIM_FILE_REGULAR, Hex4(g.vendor_id));
      emit(dir + "/device", KFDSIM_FILE_REGULAR, Hex4(g.device_id));
      emit(dir + "/subsystem_vendor", KFDSIM_FILE_REGULAR, Hex4(g.vendor_id));
      emit(dir + "/subsystem_device", KFDSIM_FILE_REGULAR, Hex4(g.device_id));
      char rev[16];
      std::snprintf(rev, sizeof(rev), "0x%02x\n", g.pci_rev & 0xFF);
      emit(dir + "/revision", KFDSIM_FILE_REGULAR, rev);
      emit(dir + "/class", KFDSIM_FILE_REGULAR, g.is_apu ? "0x030000\n" : "0x038000\n");
      emit(dir + "/uevent", KFDSIM_FILE_REGULAR,
           std::string("DRIVER=amdgpu\nPCI_CLASS=") + (g.is_apu ? "30000" : "38000") + "\nPCI_ID=" +
               ids + "\nPCI_SUBSYS_ID=" + ids + "\nPCI_SLOT_NAME=" + slot + "\n");
      emit(dir + "/subsystem", KFDSIM_FILE_SYMLINK, "../../../bus/pci");
      emit(dir + "/driver", KFDSIM_FILE_SYMLINK, "../../../bus/pci/drivers/amdgpu");
    }
    emit(dir + "/drm", KFDSIM_FILE_DIR, "");
    const std::pair<std::string, uint32_t> nodes[] = {
        {"card" + std::to_string(i), static_cast<uint32_t>(i)}, {"renderD" + std::to_string(g.render_minor), g.render_minor}};
    for (const auto& [node, minor] : nodes) {
      const std::string nd = dir + "/drm/" + node;
      const std::string number = std::to_string(kDrmMajor) + ":" + std::to_string(minor);
      emit(nd, KFDSIM_FILE_DIR, "");
      emit(nd + "/dev", KFDSIM_FILE_REGULAR, number + "\n");
      emit(nd + "/uevent", KFDSIM_FILE_REGULAR,
           "MAJOR=" + std::to_string(kDrmMajor) + "\nMINOR=" + std::to_string(minor) +
               "\nDEVNAME=dri/" + node + "\nDEVTYPE=drm_minor\n");
      emit(nd + "/device", KFDSIM_FILE_SYMLINK, "../../../" + name);
      emit(nd + "/subsystem", KFDSIM_FILE_SYMLINK, "../../../../../class/drm");
      emit("/sys/dev/char/" + number, KFDSIM_FILE_SYMLINK,
           "../../devices/kfdsim/" + name + "/drm/" + node);
    }
  }
}

int Simulator::DrmIoctl(IoctlCtx& c, unsigned long request, void* arg, const char** trace_name,
                        bool* unknown) {
  const uint32_t req = static_cast<uint32_t>(request);
  const uint8_t nr = k::IocNr(req);
  uint32_t kernel_cmd = 0;
  for (const DrmRequest& r : kDrmRequests) {
    if (r.nr != nr) continue;
    kernel_cmd = r.kernel_cmd;
    *trace_name = r.name;
  }
  if (kernel_cmd == 0) return DrmGemIoctl(c, request, arg, trace_name, unknown);  // core/gem.cc
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
  } else if (nr == kNrGetUnique) {
    // drm_getunique: copies min(capacity, length) bytes, reports the length.
    auto* u = reinterpret_cast<drm::Unique*>(kdata.data());
    size_t bus = 0;  // a partition reports its parent PCI device
    for (size_t j = 0; j < board_.desc.gpus.size(); ++j) {
      if (board_.desc.gpus[j].domain == g.domain && board_.desc.gpus[j].location_id == g.location_id) {
        bus = j;
        break;
      }
    }
    const std::string text = "pci:" + PciSlot(board_.desc.gpus[bus]);
    const size_t n = std::min(text.size(), static_cast<size_t>(u->unique_len));
    if (n != 0 && u->unique != nullptr) {
      result = UserWrite(reinterpret_cast<uintptr_t>(u->unique), text.data(), n);
    }
    u->unique_len = text.size();
  } else if (nr == kNrGetClient) {
    auto* cl = reinterpret_cast<drm::Client*>(kdata.data());
    if (cl->idx != 0) {
      result = EINVAL;
    } else {
      cl->auth = 1;
      cl->pid = static_cast<unsigned long>(SelfPid());
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
