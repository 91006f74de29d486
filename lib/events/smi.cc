// hsaKmtOpenSMI: the SMI event file of a GPU (KFD >= 1.3).
//
// Checks (upstream's order): the open device, the KFD minor version
// (UNSUPPORTED below 1.3), a GPU node (INVALID_NODE otherwise); then one
// SMI_EVENTS ioctl, whose reply is the new descriptor. The caller owns the
// descriptor: it writes a 64-bit event mask and reads text records, which
// hke_smi_record_parse (smi_record.cc) decodes.
#include "lib/core/text.h"
#include "lib/device/kfd_device.h"
#include "lib/events/events_internal.h"
#include "lib/memory/memory.h"

namespace hke::events {

using namespace internal;

Status OpenSmi(Context& ctx, uint32_t node, int* out_fd) {
  if (out_fd == nullptr) return InvalidArgument();
  HKE_RETURN_IF_ERROR(device::CheckOpen(ctx));
  if (device::KfdMinor(ctx) < kfd::kMinorSmiEvents) {
    return ctx.diag().Error(Unsupported(), kArea, "SMI events need KFD 1.3");
  }
  HKE_RETURN_IF_ERROR(memory::EnsureVm(ctx));
  const uint32_t gpu_id = memory::GpuIdOfNode(ctx, node);
  if (gpu_id == 0) {
    FixedText<96> t;
    t.Append("OpenSMI: node ").AppendU64(node).Append(" is not a GPU node");
    return ctx.diag().Error(InvalidNode(), kArea, t.c_str());
  }
  kfd::SmiEventsArgs a{};
  a.gpuid = gpu_id;
  const Status s = device::Ioctl(ctx, &a);
  if (!s.ok()) return ctx.diag().Failed(s, kArea, "SMI_EVENTS");
  if (a.anon_fd > 0x7fffffffu) {
    return ctx.diag().Error(Protocol(), kArea, "SMI_EVENTS returned no descriptor");
  }
  *out_fd = static_cast<int>(a.anon_fd);
  return Status::Ok();
}

}  // namespace hke::events
