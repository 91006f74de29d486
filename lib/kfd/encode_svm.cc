// The SVM command builder: a fixed SvmArgs head plus a variable number of
// attributes, whose total length is carried in the request's size field.
#include <cstring>

#include "lib/core/checked.h"
#include "lib/kfd/encode.h"
#include "lib/kfd/encode_internal.h"

namespace hke::kfd {

using internal::IsAligned;
using internal::RangeFits;

namespace {

bool ValidAttribute(const SvmAttribute& a) {
  if (a.type > kSvmAttrLast) return false;
  if ((a.type == kSvmAttrSetFlags || a.type == kSvmAttrClrFlags) &&
      (a.value & ~kSvmFlagKnownMask) != 0) {
    return false;
  }
  return true;
}

}  // namespace

Status SvmCommandBytes(uint32_t nattr, size_t* out_bytes) {
  if (out_bytes == nullptr) return InvalidArgument();
  if (nattr > kSvmMaxAttributes) return Overflow();
  size_t attr_bytes = 0;
  size_t total = 0;
  if (!CheckedMul<size_t>(nattr, sizeof(SvmAttribute), &attr_bytes) ||
      !CheckedAdd<size_t>(sizeof(SvmArgs), attr_bytes, &total) || total > kIocMaxSize) {
    return Overflow();
  }
  *out_bytes = total;
  return Status::Ok();
}

Status BuildSvmCommand(uint64_t start, uint64_t size, uint32_t op, const SvmAttribute* attrs,
                       uint32_t nattr, void* out_buffer, size_t capacity, uint32_t* out_request,
                       size_t* out_bytes, uint64_t page_size) {
  if (out_buffer == nullptr || out_request == nullptr || out_bytes == nullptr) {
    return InvalidArgument();
  }
  if (!ValidPageSize(page_size)) return InvalidArgument();
  if (start == 0 || size == 0) return InvalidArgument();
  if (!IsAligned(start, page_size) || !IsAligned(size, page_size)) return InvalidArgument();
  if (!RangeFits(start, size)) return Overflow();
  if (op != kSvmOpSetAttr && op != kSvmOpGetAttr) return InvalidArgument();
  if (nattr > 0 && attrs == nullptr) return InvalidArgument();
  size_t bytes = 0;
  HKE_RETURN_IF_ERROR(SvmCommandBytes(nattr, &bytes));
  for (uint32_t i = 0; i < nattr; ++i) {
    if (!ValidAttribute(attrs[i])) return InvalidArgument();
  }
  if (capacity < bytes) return BufferTooSmall();

  const uint32_t request = IocWithSize(kIocSvm, static_cast<uint32_t>(bytes));
  // The size field must carry exactly the byte count (never truncated).
  if (IocSize(request) != bytes || IocNr(request) != IocNr(kIocSvm) ||
      IocDir(request) != kIocReadWrite) {
    return Overflow();
  }

  SvmArgs head{};
  head.start_addr = start;
  head.size = size;
  head.op = op;
  head.nattr = nattr;
  auto* dst = static_cast<unsigned char*>(out_buffer);
  std::memcpy(dst, &head, sizeof(head));
  if (nattr > 0) std::memcpy(dst + sizeof(head), attrs, bytes - sizeof(head));
  *out_request = request;
  *out_bytes = bytes;
  return Status::Ok();
}

Status DecodeSvmGetReply(const void* reply, size_t bytes, uint64_t start, uint64_t size,
                         uint32_t nattr, SvmAttribute* out_attrs, uint32_t out_capacity) {
  if (reply == nullptr || (nattr > 0 && out_attrs == nullptr)) return InvalidArgument();
  size_t expected = 0;
  HKE_RETURN_IF_ERROR(SvmCommandBytes(nattr, &expected));
  if (bytes != expected) return InvalidArgument();
  if (out_capacity < nattr) return BufferTooSmall();
  const auto* src = static_cast<const unsigned char*>(reply);
  SvmArgs head{};
  std::memcpy(&head, src, sizeof(head));
  if (head.start_addr != start || head.size != size || head.op != kSvmOpGetAttr ||
      head.nattr != nattr) {
    return Protocol();
  }
  for (uint32_t i = 0; i < nattr; ++i) {
    SvmAttribute a{};
    std::memcpy(&a, src + sizeof(head) + size_t{i} * sizeof(SvmAttribute), sizeof(a));
    if (a.type > kSvmAttrLast) return Protocol();
  }
  if (nattr > 0) std::memcpy(out_attrs, src + sizeof(head), expected - sizeof(head));
  return Status::Ok();
}

}  // namespace hke::kfd
