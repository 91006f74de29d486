// The render-node GEM requests kfdsim serves (core/gem.cc): own definitions
// of the kernel layouts of DRM_IOCTL_GEM_CLOSE, DRM_IOCTL_PRIME_HANDLE_TO_FD
// / FD_TO_HANDLE and the amdgpu GEM ioctls (include/uapi/drm/drm.h and
// amdgpu_drm.h). All fixed-width, identical on every target;
// tests/sim_core/gem_test.cc checks them against libdrm's headers.
#ifndef HKE_PLATFORM_SIM_CORE_GEM_ABI_H_
#define HKE_PLATFORM_SIM_CORE_GEM_ABI_H_

#include <cstdint>

#include "lib/kfd/ioc.h"

namespace kfdsim::gem {

// Request numbers (the nr byte of type 'd'); amdgpu's are DRM_COMMAND_BASE + n.
constexpr uint8_t kNrGemClose = 0x09;
constexpr uint8_t kNrPrimeHandleToFd = 0x2d;
constexpr uint8_t kNrPrimeFdToHandle = 0x2e;
constexpr uint8_t kCommandBase = 0x40;
constexpr uint8_t kNrAmdgpuGemCreate = kCommandBase + 0x00;
constexpr uint8_t kNrAmdgpuGemMmap = kCommandBase + 0x01;
constexpr uint8_t kNrAmdgpuGemMetadata = kCommandBase + 0x06;
constexpr uint8_t kNrAmdgpuGemWaitIdle = kCommandBase + 0x07;
constexpr uint8_t kNrAmdgpuGemOp = kCommandBase + 0x10;
constexpr uint8_t kNrAmdgpuGemUserptr = kCommandBase + 0x11;

// AMDGPU_GEM_DOMAIN_*
constexpr uint64_t kDomainCpu = 0x1;
constexpr uint64_t kDomainGtt = 0x2;
constexpr uint64_t kDomainVram = 0x4;
constexpr uint64_t kDomainGds = 0x8;
constexpr uint64_t kDomainGws = 0x10;
constexpr uint64_t kDomainOa = 0x20;
constexpr uint64_t kDomainDoorbell = 0x40;
constexpr uint64_t kDomainMask = 0x3F;  // CPU | GTT | VRAM | GDS | GWS | OA

// AMDGPU_GEM_CREATE_*
constexpr uint64_t kCreateCpuAccessRequired = 1u << 0;
constexpr uint64_t kCreateNoCpuAccess = 1u << 1;
constexpr uint64_t kCreateCpuGttUswc = 1u << 2;
constexpr uint64_t kCreateVramCleared = 1u << 3;
constexpr uint64_t kCreateVmAlwaysValid = 1u << 6;
constexpr uint64_t kCreateExplicitSync = 1u << 7;
constexpr uint64_t kCreateEncrypted = 1u << 10;
constexpr uint64_t kCreateDiscardable = 1u << 12;
constexpr uint64_t kCreateGfx12Dcc = 1u << 16;
// What amdgpu_gem_create_ioctl accepts from user space (Linux 6.x).
constexpr uint64_t kCreateUserFlags = kCreateCpuAccessRequired | kCreateNoCpuAccess |
                                      kCreateCpuGttUswc | kCreateVramCleared |
                                      kCreateVmAlwaysValid | kCreateExplicitSync |
                                      kCreateEncrypted | kCreateDiscardable | kCreateGfx12Dcc;

// AMDGPU_GEM_USERPTR_*
constexpr uint32_t kUserptrReadonly = 1u << 0;
constexpr uint32_t kUserptrAnononly = 1u << 1;
constexpr uint32_t kUserptrValidate = 1u << 2;
constexpr uint32_t kUserptrRegister = 1u << 3;

constexpr uint32_t kMetadataOpSet = 1;
constexpr uint32_t kMetadataOpGet = 2;
constexpr uint32_t kMetadataMaxBytes = 256;  // data[64] dwords

constexpr uint32_t kOpGetGemCreateInfo = 0;
constexpr uint32_t kOpSetPlacement = 1;

// AMDGPU_TILING_TILE_SPLIT (SI..VI layouts)
constexpr uint32_t kTilingTileSplitShift = 9;
constexpr uint64_t kTilingTileSplitMask = 0x7;
constexpr uint32_t kFamilyCz = 135;  // AMDGPU_FAMILY_CZ: the last family with tile splits

// O_RDWR / O_CLOEXEC as DRM_RDWR / DRM_CLOEXEC (Linux values).
constexpr uint32_t kPrimeRdwr = 02;
constexpr uint32_t kPrimeCloexec = 02000000;

struct GemClose {
  uint32_t handle;
  uint32_t pad;
};
static_assert(sizeof(GemClose) == 8);

struct PrimeHandle {
  uint32_t handle;
  uint32_t flags;  // HANDLE_TO_FD: kPrimeCloexec | kPrimeRdwr
  int32_t fd;
};
static_assert(sizeof(PrimeHandle) == 12);

struct GemCreateIn {
  uint64_t bo_size;
  uint64_t alignment;
  uint64_t domains;
  uint64_t domain_flags;
};
union GemCreate {
  GemCreateIn in;
  struct {
    uint32_t handle;
    uint32_t _pad;
  } out;
};
static_assert(sizeof(GemCreate) == 32);

union GemMmap {
  struct {
    uint32_t handle;
    uint32_t _pad;
  } in;
  struct {
    uint64_t addr_ptr;  // the offset to mmap the render node at
  } out;
};
static_assert(sizeof(GemMmap) == 8);

struct GemUserptr {
  uint64_t addr;
  uint64_t size;
  uint32_t flags;
  uint32_t handle;  // out
};
static_assert(sizeof(GemUserptr) == 24);

struct GemMetadata {
  uint32_t handle;
  uint32_t op;
  struct {
    uint64_t flags;
    uint64_t tiling_info;
    uint32_t data_size_bytes;
    uint32_t data[64];
  } data;
};
static_assert(sizeof(GemMetadata) == 288);

union GemWaitIdle {
  struct {
    uint32_t handle;
    uint32_t flags;
    uint64_t timeout;
  } in;
  struct {
    uint32_t status;  // 0 idle, 1 busy
    uint32_t domain;
  } out;
};
static_assert(sizeof(GemWaitIdle) == 16);

struct GemOp {
  uint32_t handle;
  uint32_t op;
  uint64_t value;
};
static_assert(sizeof(GemOp) == 16);

namespace k = hke::kfd;
constexpr uint32_t kIocGemClose = k::IocEncode(k::kIocWrite, k::kDrmIocType, kNrGemClose, sizeof(GemClose));
constexpr uint32_t kIocPrimeHandleToFd =
    k::IocEncode(k::kIocReadWrite, k::kDrmIocType, kNrPrimeHandleToFd, sizeof(PrimeHandle));
constexpr uint32_t kIocPrimeFdToHandle =
    k::IocEncode(k::kIocReadWrite, k::kDrmIocType, kNrPrimeFdToHandle, sizeof(PrimeHandle));
constexpr uint32_t kIocGemCreate =
    k::IocEncode(k::kIocReadWrite, k::kDrmIocType, kNrAmdgpuGemCreate, sizeof(GemCreate));
constexpr uint32_t kIocGemMmap =
    k::IocEncode(k::kIocReadWrite, k::kDrmIocType, kNrAmdgpuGemMmap, sizeof(GemMmap));
constexpr uint32_t kIocGemMetadata =
    k::IocEncode(k::kIocReadWrite, k::kDrmIocType, kNrAmdgpuGemMetadata, sizeof(GemMetadata));
constexpr uint32_t kIocGemWaitIdle =
    k::IocEncode(k::kIocReadWrite, k::kDrmIocType, kNrAmdgpuGemWaitIdle, sizeof(GemWaitIdle));
constexpr uint32_t kIocGemOp = k::IocEncode(k::kIocReadWrite, k::kDrmIocType, kNrAmdgpuGemOp, sizeof(GemOp));
constexpr uint32_t kIocGemUserptr =
    k::IocEncode(k::kIocReadWrite, k::kDrmIocType, kNrAmdgpuGemUserptr, sizeof(GemUserptr));

}  // namespace kfdsim::gem

#endif  // HKE_PLATFORM_SIM_CORE_GEM_ABI_H_
