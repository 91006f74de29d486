// hsaKmtOpenKFD, hsaKmtCloseKFD, hsaKmtGetVersion on the default context.
#include "hsakmt/hsakmt.h"
#include "lib/api/entry.h"
#include "lib/api/status_map.h"
#include "lib/context/context.h"
#include "lib/device/kfd_device.h"
#include "lib/events/events.h"
#include "lib/memory/memory.h"
#include "lib/pmc/pmc.h"
#include "lib/queues/queues.h"

using hke::api::Default;

extern "C" {

HSAKMT_STATUS HSAKMTAPI hsaKmtOpenKFD(void) {
  hke::Context* ctx = Default();
  if (ctx == nullptr) return HSAKMT_STATUS_ERROR;
  hke::device::OpenResult r = hke::device::OpenResult::kOpened;
  hke::Status s = hke::device::Open(*ctx, &r);
  if (!s.ok()) {
    // Upstream reports a failed open of /dev/kfd as "channel not opened".
    if (s.domain() == HKE_DOMAIN_ERRNO) return HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED;
    return hke::api::ToHsakmt(s);
  }
  return r == hke::device::OpenResult::kAlreadyOpen ? HSAKMT_STATUS_KERNEL_ALREADY_OPENED
                                                     : HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtCloseKFD(void) {
  hke::Context* ctx = Default();
  if (ctx == nullptr) return HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED;
  // The last close destroys every queue and every event, then releases every memory object
  // and the MMIO pages while the descriptor still works (upstream frees the
  // MMIO BOs here too; the events page stays with the kernel). Memory the
  // kernel refuses to free keeps the device open: the close fails with that
  // status and can be retried.
  if (hke::device::LastReference(*ctx)) {
    hke::pmc::Teardown(*ctx);
    hke::queues::Teardown(*ctx);
    hke::events::Teardown(*ctx);
    const hke::Status t = hke::memory::Teardown(*ctx);
    if (!t.ok()) return hke::api::ToHsakmt(t);
  }
  return hke::api::ToHsakmt(hke::device::Close(*ctx));
}

HSAKMT_STATUS HSAKMTAPI hsaKmtGetVersion(HsaVersionInfo* VersionInfo) {
  if (VersionInfo == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  hke::Context* ctx = Default();
  if (ctx == nullptr) return HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED;
  uint32_t major = 0;
  uint32_t minor = 0;
  hke::Status s = hke::device::GetVersion(*ctx, &major, &minor);
  if (!s.ok()) return hke::api::ToHsakmt(s);
  VersionInfo->KernelInterfaceMajorVersion = major;
  VersionInfo->KernelInterfaceMinorVersion = minor;
  return HSAKMT_STATUS_SUCCESS;
}

}  // extern "C"
