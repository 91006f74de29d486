// The few DRM render-node requests the library issues (ioctl type 'd'):
// DRM_IOCTL_VERSION, DRM_IOCTL_GET_CLIENT and DRM_IOCTL_AMDGPU_INFO.
//
// Own definitions of the kernel layouts. Unlike the KFD structures, the
// generic DRM ones carry C `int`, `unsigned long` and pointers, so their
// sizes (and request numbers) differ between 64-bit and 32-bit targets:
// drm_version is 64 bytes on LP64 and 36 on ILP32, drm_client 40 and 24.
// `unsigned long`, size_t and pointers are the kernel's widths on every
// supported Linux target (LP64 or ILP32), so using them here reproduces the
// layout the native kernel expects. The amdgpu structures use only fixed
// widths and are identical everywhere.
#ifndef HKE_LIB_KFD_DRM_ABI_H_
#define HKE_LIB_KFD_DRM_ABI_H_

#include <cstddef>
#include <cstdint>

#include "lib/kfd/ioc.h"

namespace hke::kfd::drm {

struct Version {
  int32_t version_major;       // out
  int32_t version_minor;       // out
  int32_t version_patchlevel;  // out
  size_t name_len;             // in: capacity / out: full length
  char* name;                  // in, user buffer (not NUL terminated by the kernel)
  size_t date_len;
  char* date;
  size_t desc_len;
  char* desc;
};
static_assert(sizeof(Version) == (sizeof(void*) == 8 ? 64 : 36));

struct Client {
  int32_t idx;          // in, which client
  int32_t auth;         // out
  unsigned long pid;    // out
  unsigned long uid;    // out
  unsigned long magic;  // out
  unsigned long iocs;   // out
};
static_assert(sizeof(Client) == (sizeof(void*) == 8 ? 40 : 24));

// DRM_IOCTL_GET_UNIQUE: the device's bus id ("pci:DDDD:BB:DD.F").
struct Unique {
  size_t unique_len;  // in: capacity; out: full length (no NUL)
  char* unique;              // out: the text, not NUL-terminated
};
static_assert(sizeof(Unique) == 2 * sizeof(void*));

// drm_amdgpu_info.query values the library uses.
constexpr uint32_t kAmdgpuInfoAccelWorking = 0x00;
constexpr uint32_t kAmdgpuInfoReadMmrReg = 0x15;
constexpr uint32_t kAmdgpuInfoDevInfo = 0x16;

// drm_amdgpu_info_device.ids_flags bits.
constexpr uint64_t kAmdgpuIdsFlagsFusion = 0x1;
constexpr uint64_t kAmdgpuIdsFlagsPreemption = 0x2;
constexpr uint64_t kAmdgpuIdsFlagsTmz = 0x4;

struct AmdgpuQueryFw {
  uint32_t fw_type;
  uint32_t ip_instance;
  uint32_t index;
  uint32_t _pad;
};
static_assert(sizeof(AmdgpuQueryFw) == 16);

struct AmdgpuInfo {
  uint64_t return_pointer;  // in, user buffer the kernel writes to
  uint32_t return_size;     // in, at most this many bytes are written
  uint32_t query;           // in, kAmdgpuInfo*
  union {
    struct {
      uint32_t id;
      uint32_t _pad;
    } mode_crtc;
    struct {
      uint32_t type;
      uint32_t ip_instance;
    } query_hw_ip;
    struct {
      uint32_t dword_offset;
      uint32_t count;  // registers to read
      uint32_t instance;
      uint32_t flags;
    } read_mmr_reg;
    AmdgpuQueryFw query_fw;
    struct {
      uint32_t type;
      uint32_t offset;
    } vbios_info;
    struct {
      uint32_t type;
    } sensor_info;
    struct {
      uint32_t type;
    } video_cap;
  };
};
static_assert(sizeof(AmdgpuInfo) == 32);

// Reply of kAmdgpuInfoDevInfo, as far as libdrm 2.4.114 / Linux 6.1 define
// it. Newer kernels append fields; the kernel writes min(return_size, its
// own size), so a shorter reply buffer is always safe.
struct AmdgpuInfoDevice {
  uint32_t device_id;
  uint32_t chip_rev;
  uint32_t external_rev;
  uint32_t pci_rev;
  uint32_t family;
  uint32_t num_shader_engines;
  uint32_t num_shader_arrays_per_engine;
  uint32_t gpu_counter_freq;  // kHz
  uint64_t max_engine_clock;
  uint64_t max_memory_clock;
  uint32_t cu_active_number;
  uint32_t cu_ao_mask;
  uint32_t cu_bitmap[4][4];
  uint32_t enabled_rb_pipes_mask;
  uint32_t num_rb_pipes;
  uint32_t num_hw_gfx_contexts;
  uint32_t _pad;
  uint64_t ids_flags;  // kAmdgpuIdsFlags*
  uint64_t virtual_address_offset;
  uint64_t virtual_address_max;
  uint32_t virtual_address_alignment;
  uint32_t pte_fragment_size;
  uint32_t gart_page_size;
  uint32_t ce_ram_size;
  uint32_t vram_type;
  uint32_t vram_bit_width;
  uint32_t vce_harvest_config;
  uint32_t gc_double_offchip_lds_buf;
  uint64_t prim_buf_gpu_addr;
  uint64_t pos_buf_gpu_addr;
  uint64_t cntl_sb_buf_gpu_addr;
  uint64_t param_buf_gpu_addr;
  uint32_t prim_buf_size;
  uint32_t pos_buf_size;
  uint32_t cntl_sb_buf_size;
  uint32_t param_buf_size;
  uint32_t wave_front_size;
  uint32_t num_shader_visible_vgprs;
  uint32_t num_cu_per_sh;
  uint32_t num_tcc_blocks;
  uint32_t gs_vgt_table_depth;
  uint32_t gs_prim_buffer_depth;
  uint32_t max_gs_waves_per_vgt;
  uint32_t _pad1;
  uint32_t cu_ao_bitmap[4][4];
  uint64_t high_va_offset;
  uint64_t high_va_max;
  uint32_t pa_sc_tile_steering_override;
  uint64_t tcc_disabled_mask;  // 4 bytes of implicit padding before it
};
static_assert(sizeof(AmdgpuInfoDevice) == 368);
static_assert(offsetof(AmdgpuInfoDevice, tcc_disabled_mask) == 360);

constexpr uint8_t kDrmCommandBase = 0x40;
constexpr uint8_t kDrmAmdgpuInfoNr = 0x05;

// The DRM requests the library or the simulator serves, one line each:
//   X(nr, Name, NAME, direction, argument struct)
// nr is the request's number (a driver command is kDrmCommandBase + its
// own number), NAME the kernel's DRM_IOCTL_<NAME>. The kIoc<Name>
// constants, the library's name table (ioctl_table.cc) and the simulator's
// DRM dispatch (platform/sim/core/drm.cc) are derived from it.
#define HKE_DRM_IOCTL_LIST(X)                                                          \
  X(0x00, Version, VERSION, kIocReadWrite, Version)                                    \
  X(0x01, GetUnique, GET_UNIQUE, kIocReadWrite, Unique)                                \
  X(0x05, GetClient, GET_CLIENT, kIocReadWrite, Client)                                \
  X(kDrmCommandBase + kDrmAmdgpuInfoNr, AmdgpuInfo, AMDGPU_INFO, kIocWrite, AmdgpuInfo)

#define HKE_DRM_IOC_CONSTANT(nr, Name, NAME, dir, Args) \
  constexpr uint32_t kIoc##Name = IocEncode(dir, kDrmIocType, nr, sizeof(Args));
HKE_DRM_IOCTL_LIST(HKE_DRM_IOC_CONSTANT)
#undef HKE_DRM_IOC_CONSTANT

}  // namespace hke::kfd::drm

#endif  // HKE_LIB_KFD_DRM_ABI_H_
