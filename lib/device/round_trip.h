// One KFD ioctl whose reply is checked: the request goes out through
// Ioctl, a kernel failure is reported as "<what> failed: <status>", and the
// reply is read by the request's kfd Decode function (which compares it
// with what was sent). Used by the modules whose calls are single round
// trips (node/, debug/).
//
// Thread-safe as Ioctl is; no state of its own.
#ifndef HKE_LIB_DEVICE_ROUND_TRIP_H_
#define HKE_LIB_DEVICE_ROUND_TRIP_H_

#include "lib/context/context.h"
#include "lib/device/kfd_device.h"

namespace hke::device {

// Sends *a and decodes the reply into *out. On a kernel failure the
// status is the kernel's; on a reply `decode` refuses, its status with
// `bad_reply` as the diagnostic. *out is written only on success.
template <class Args, class Result>
Status RoundTrip(Context& ctx, const char* area, const char* what, Args* a,
                 Status (*decode)(const Args& sent, const Args& reply, Result* out),
                 const char* bad_reply, Result* out) {
  const Args sent = *a;
  const Status s = Ioctl(ctx, a);
  if (!s.ok()) return ctx.diag().Failed(s, area, what);
  Result r{};
  const Status d = decode(sent, *a, &r);
  if (!d.ok()) return ctx.diag().Error(d, area, bad_reply);
  *out = r;
  return Status::Ok();
}

}  // namespace hke::device

#endif  // HKE_LIB_DEVICE_ROUND_TRIP_H_
