// Per-node codecs: SET_MEMORY_POLICY, GET_CLOCK_COUNTERS, SET_TRAP_HANDLER.
#include "lib/kfd/encode.h"
#include "lib/kfd/encode_internal.h"

namespace hke::kfd {

using internal::IsAligned;
using internal::RangeFits;

namespace {

constexpr bool KnownPolicy(uint32_t p) {
  return p == kCachePolicyCoherent || p == kCachePolicyNonCoherent;
}

}  // namespace

Status EncodeSetMemoryPolicy(const MemoryPolicyRequest& req, SetMemoryPolicyArgs* out) {
  if (out == nullptr || req.gpu_id == 0 || !ValidPageSize(req.page_size)) {
    return InvalidArgument();
  }
  if (!KnownPolicy(req.default_policy) || !KnownPolicy(req.alternate_policy)) {
    return InvalidArgument();
  }
  if (!IsAligned(req.alternate_base, req.page_size) ||
      !IsAligned(req.alternate_size, req.page_size)) {
    return InvalidArgument();
  }
  if (!RangeFits(req.alternate_base, req.alternate_size)) return Overflow();
  if ((req.misc_process_flag & ~kProcFlagMfmaHighPrecision) != 0) return InvalidArgument();
  SetMemoryPolicyArgs a{};
  a.alternate_aperture_base = req.alternate_base;
  a.alternate_aperture_size = req.alternate_size;
  a.gpu_id = req.gpu_id;
  a.default_policy = req.default_policy;
  a.alternate_policy = req.alternate_policy;
  a.misc_process_flag = req.misc_process_flag;
  *out = a;
  return Status::Ok();
}

Status EncodeGetClockCounters(uint32_t gpu_id, GetClockCountersArgs* out) {
  if (out == nullptr) return InvalidArgument();
  GetClockCountersArgs a{};
  a.gpu_id = gpu_id;
  *out = a;
  return Status::Ok();
}

Status DecodeGetClockCounters(const GetClockCountersArgs& sent, const GetClockCountersArgs& reply,
                              ClockSample* out) {
  if (out == nullptr) return InvalidArgument();
  if (reply.gpu_id != sent.gpu_id || reply.system_clock_freq == 0) return Protocol();
  if (sent.gpu_id == 0 && reply.gpu_clock_counter != 0) return Protocol();
  *out = ClockSample{reply.gpu_clock_counter, reply.cpu_clock_counter, reply.system_clock_counter,
                     reply.system_clock_freq};
  return Status::Ok();
}

Status EncodeSetTrapHandler(uint32_t gpu_id, uint64_t tba, uint64_t tma, SetTrapHandlerArgs* out) {
  if (out == nullptr || gpu_id == 0) return InvalidArgument();
  SetTrapHandlerArgs a{};
  a.tba_addr = tba;
  a.tma_addr = tma;
  a.gpu_id = gpu_id;
  *out = a;
  return Status::Ok();
}

}  // namespace hke::kfd
