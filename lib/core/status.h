// Status values inside the library: a thin C++ view over hke_status_t.
//
// A Status is OK (all bits zero) or carries a domain and a code: either an
// API reason (HKE_STATUS_*) or a Linux errno exactly as the platform or the
// kernel returned it. Functions return Status by value and mark it
// [[nodiscard]]; there are no exceptions.
#ifndef HKE_LIB_CORE_STATUS_H_
#define HKE_LIB_CORE_STATUS_H_

#include <cstdint>

#include "hsakmt/hsakmt_embedded.h"

namespace hke {

class [[nodiscard]] Status {
 public:
  constexpr Status() = default;
  constexpr explicit Status(hke_status_t raw) : raw_(raw) {}

  static constexpr Status Ok() { return Status(); }
  static constexpr Status Api(hke_api_code code) {
    return Status((static_cast<hke_status_t>(HKE_DOMAIN_API) << 32) | static_cast<uint32_t>(code));
  }
  // `error` is a positive Linux errno; 0 is mapped to INTERNAL because a
  // failed call that reports no error is itself a bug.
  static constexpr Status Errno(int error) {
    return error > 0 ? Status((static_cast<hke_status_t>(HKE_DOMAIN_ERRNO) << 32) |
                              static_cast<uint32_t>(error))
                     : Api(HKE_STATUS_INTERNAL);
  }

  constexpr bool ok() const { return raw_ == 0; }
  constexpr hke_status_t raw() const { return raw_; }
  constexpr uint32_t domain() const { return static_cast<uint32_t>(raw_ >> 32); }
  constexpr uint32_t code() const { return static_cast<uint32_t>(raw_); }
  constexpr bool is_errno(int error) const {
    return domain() == HKE_DOMAIN_ERRNO && code() == static_cast<uint32_t>(error);
  }
  constexpr bool is_api(hke_api_code c) const {
    return domain() == HKE_DOMAIN_API && code() == static_cast<uint32_t>(c);
  }
  constexpr bool operator==(Status o) const { return raw_ == o.raw_; }
  constexpr bool operator!=(Status o) const { return raw_ != o.raw_; }

 private:
  hke_status_t raw_ = 0;
};

inline constexpr Status InvalidArgument() { return Status::Api(HKE_STATUS_INVALID_ARGUMENT); }
inline constexpr Status OutOfRange() { return Status::Api(HKE_STATUS_OUT_OF_RANGE); }
inline constexpr Status Unsupported() { return Status::Api(HKE_STATUS_UNSUPPORTED); }
inline constexpr Status Exhausted() { return Status::Api(HKE_STATUS_RESOURCE_EXHAUSTED); }
inline constexpr Status Overflow() { return Status::Api(HKE_STATUS_OVERFLOW); }
inline constexpr Status Protocol() { return Status::Api(HKE_STATUS_PROTOCOL); }
inline constexpr Status NotImplemented() { return Status::Api(HKE_STATUS_NOT_IMPLEMENTED); }
inline constexpr Status FailedPrecondition() { return Status::Api(HKE_STATUS_FAILED_PRECONDITION); }
inline constexpr Status BufferTooSmall() { return Status::Api(HKE_STATUS_BUFFER_TOO_SMALL); }
inline constexpr Status InvalidHandle() { return Status::Api(HKE_STATUS_INVALID_HANDLE); }
inline constexpr Status AlreadyExists() { return Status::Api(HKE_STATUS_ALREADY_EXISTS); }
inline constexpr Status NotFound() { return Status::Api(HKE_STATUS_NOT_FOUND); }
inline constexpr Status InvalidNode() { return Status::Api(HKE_STATUS_INVALID_NODE); }

// A structure's invariant check: Fail records the broken invariant (and
// returns false, for `return report.Fail("...")`); Result is OK when
// the check held, else INTERNAL with the reason published to *reason (when
// reason is not null).
class InvariantReport {
 public:
  bool Fail(const char* why) {
    why_ = why;
    return false;
  }
  Status Result(bool held, const char** reason) const {
    if (held) return Status::Ok();
    if (reason != nullptr) *reason = why_;
    return Status::Api(HKE_STATUS_INTERNAL);
  }

 private:
  const char* why_ = nullptr;
};

// Short static name ("ok", "ENOMEM", "INVALID_ARGUMENT"); never null.
const char* StatusName(Status s);

}  // namespace hke

// Propagates a non-OK status to the caller.
#define HKE_RETURN_IF_ERROR(expr)            \
  do {                                       \
    ::hke::Status hke_status_tmp_ = (expr);  \
    if (!hke_status_tmp_.ok()) return hke_status_tmp_; \
  } while (0)

#endif  // HKE_LIB_CORE_STATUS_H_
