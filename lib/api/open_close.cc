// Opening and closing: hsaKmtOpenKFD, hsaKmtCloseKFD and hsaKmtGetVersion
// on the default context, their hsakmtctx.h twins for the primary
// (hsaKmtOpenKFDCtx, hsaKmtCloseKFDCtx), and hke_context_open / _close /
// _kfd_ctx for any context (lib/api/lifecycle.h).
#include <atomic>

#include "hsakmt/hsakmt.h"
#include "hsakmt/hsakmtctx.h"
#include "lib/api/entry.h"
#include "lib/api/lifecycle.h"
#include "lib/api/status_map.h"
#include "lib/context/context.h"
#include "lib/device/kfd_device.h"
#include "lib/events/events.h"
#include "lib/memory/memory.h"
#include "lib/pmc/pmc.h"
#include "lib/queues/queues.h"

using hke::api::Default;

namespace hke::api {

namespace {
std::atomic<SecondaryOfTagFn> g_secondary_of_tag{nullptr};
}  // namespace

void InstallSecondaryOfTag(SecondaryOfTagFn fn) {
  g_secondary_of_tag.store(fn, std::memory_order_release);
}

Context* SecondaryOfTag(uint32_t tag) {
  const SecondaryOfTagFn fn = g_secondary_of_tag.load(std::memory_order_acquire);
  return fn != nullptr ? fn(tag) : nullptr;
}

Status OpenReference(Context& ctx, bool* out_already_open) {
  ExclusiveGate gate(ctx);
  device::OpenResult r = device::OpenResult::kOpened;
  HKE_RETURN_IF_ERROR(device::Open(ctx, &r));
  *out_already_open = r == device::OpenResult::kAlreadyOpen;
  return Status::Ok();
}

Status CloseReference(Context& ctx) {
  ExclusiveGate gate(ctx);
  if (device::LastReference(ctx)) {
    pmc::Teardown(ctx);
    queues::Teardown(ctx);
    events::Teardown(ctx);
    HKE_RETURN_IF_ERROR(memory::Teardown(ctx));
  }
  return device::Close(ctx);
}

}  // namespace hke::api

extern "C" {

HSAKMT_STATUS HSAKMTAPI hsaKmtOpenKFD(void) {
  hke::Context* ctx = Default();
  if (ctx == nullptr) return HSAKMT_STATUS_ERROR;
  bool already = false;
  const hke::Status s = hke::api::OpenReference(*ctx, &already);
  if (!s.ok()) {
    // Upstream reports a failed open of /dev/kfd as "channel not opened".
    if (s.domain() == HKE_DOMAIN_ERRNO) return HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED;
    return hke::api::ToHsakmt(s);
  }
  return already ? HSAKMT_STATUS_KERNEL_ALREADY_OPENED : HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtCloseKFD(void) {
  hke::Context* ctx = Default();
  if (ctx == nullptr) return HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED;
  return hke::api::ToHsakmt(hke::api::CloseReference(*ctx));
}

HSAKMT_STATUS HSAKMTAPI hsaKmtOpenKFDCtx(HsaKFDContext** pCtx) {
  if (pCtx == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  const HSAKMT_STATUS r = hsaKmtOpenKFD();
  if (r == HSAKMT_STATUS_SUCCESS || r == HSAKMT_STATUS_KERNEL_ALREADY_OPENED) {
    *pCtx = hke_context_kfd_ctx(hke_default_context());
  }
  return r;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtCloseKFDCtx(void) { return hsaKmtCloseKFD(); }

HSAKMT_STATUS HSAKMTAPI hsaKmtGetVersion(HsaVersionInfo* VersionInfo) {
  if (VersionInfo == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  hke::Context* ctx = Default();
  if (ctx == nullptr) return HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED;
  hke::SharedGate g(ctx->open_gate());
  uint32_t major = 0;
  uint32_t minor = 0;
  hke::Status s = hke::device::GetVersion(*ctx, &major, &minor);
  if (!s.ok()) return hke::api::ToHsakmt(s);
  VersionInfo->KernelInterfaceMajorVersion = major;
  VersionInfo->KernelInterfaceMinorVersion = minor;
  return HSAKMT_STATUS_SUCCESS;
}

hke_status_t hke_context_open(hke_context* context, int* out_already_open) {
  if (context == nullptr || !context->impl.valid()) return hke::InvalidArgument().raw();
  bool already = false;
  const hke::Status s = hke::api::OpenReference(context->impl, &already);
  if (s.ok() && out_already_open != nullptr) *out_already_open = already ? 1 : 0;
  return s.raw();
}

hke_status_t hke_context_close(hke_context* context) {
  if (context == nullptr || !context->impl.valid()) return hke::InvalidArgument().raw();
  return hke::api::CloseReference(context->impl).raw();
}

struct _HsaKFDContext* hke_context_kfd_ctx(hke_context* context) {
  // An HsaKFDContext is the hke_context itself (lib/api/entry.h FromKfdCtx).
  return reinterpret_cast<struct _HsaKFDContext*>(context);
}

}  // extern "C"
