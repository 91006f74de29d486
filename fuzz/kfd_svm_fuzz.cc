// Fuzzes the SVM command builder and the GET_ATTR reply decoder.
// Invariants: a built command's _IOC size field equals the bytes written
// and 24 + 8 * nattr, its dir/type/nr are those of AMDKFD_IOC_SVM, nattr
// never exceeds 2044, and nothing (buffer, request, byte count) is written
// on failure. A GET command decodes back to the attributes it was built
// from.
#include <cstdint>
#include <cstring>

#include "fuzz/fuzz_input.h"
#include "lib/kfd/encode.h"
#include "lib/kfd/ioctl_table.h"

namespace k = hke::kfd;
using hke::fuzz::Input;
using hke::fuzz::Poisoned;

namespace {

constexpr uint32_t kMaxFuzzAttrs = 2100;  // a little past the cap
k::SvmAttribute g_attrs[kMaxFuzzAttrs];
unsigned char g_buf[24 + 8 * kMaxFuzzAttrs];
unsigned char g_ref[sizeof(g_buf)];

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > hke::fuzz::kMaxInput) return 0;
  Input in(data, size);
  const uint64_t start = in.Addr();
  const uint64_t len = in.Addr();
  const uint32_t op = in.U8() % 3;
  const uint32_t page_shift = 12 + in.U8() % 5;  // 4K..64K, sometimes odd sizes below
  const uint64_t page = in.Bool() ? (1ull << page_shift) : k::kDefaultPageSize;
  // nattr: mostly what the input provides, sometimes a large count near the cap.
  uint32_t nattr = static_cast<uint32_t>(in.remaining() / sizeof(k::SvmAttribute));
  const uint8_t sel = in.U8();
  if ((sel & 3) == 0) nattr = 2040 + sel % 8;
  if ((sel & 3) == 1 && in.remaining() < 8) nattr = 0xFFFFFFFFu;
  const uint32_t stored = nattr < kMaxFuzzAttrs ? nattr : kMaxFuzzAttrs;
  // Attributes come from the input while it lasts; a forced large count is
  // padded with valid ones (cheap, so large commands stay fast to build).
  for (uint32_t i = 0; i < stored; ++i) {
    if (in.remaining() >= 5) {
      g_attrs[i].type = in.U8() % 9;  // 8 is one past the last known type
      g_attrs[i].value = in.U32();
    } else {
      g_attrs[i] = k::SvmAttribute{i % 5, i};
    }
  }
  size_t capacity = sizeof(g_buf);
  if (sel & 4) capacity = (sel >> 3) * 97u % sizeof(g_buf);

  std::memset(g_buf, 0xA5, sizeof(g_buf));
  std::memcpy(g_ref, g_buf, sizeof(g_buf));
  Poisoned<uint32_t> req;
  Poisoned<size_t> bytes;
  const k::SvmAttribute* attrs = nattr <= kMaxFuzzAttrs ? g_attrs : nullptr;
  const hke::Status s = k::BuildSvmCommand(start, len, op, attrs, nattr, g_buf, capacity, &req.v,
                                           &bytes.v, page);
  if (!s.ok()) {
    HKE_FUZZ_ASSERT(req.untouched());
    HKE_FUZZ_ASSERT(bytes.untouched());
    HKE_FUZZ_ASSERT(std::memcmp(g_buf, g_ref, sizeof(g_buf)) == 0);
    return 0;
  }
  HKE_FUZZ_ASSERT(nattr <= k::kSvmMaxAttributes);
  HKE_FUZZ_ASSERT(bytes.v == 24 + size_t{8} * nattr);
  HKE_FUZZ_ASSERT(bytes.v <= capacity);
  HKE_FUZZ_ASSERT(k::IocSize(req.v) == bytes.v);
  HKE_FUZZ_ASSERT(k::IocDir(req.v) == k::kIocReadWrite);
  HKE_FUZZ_ASSERT(k::IocType(req.v) == 'K');
  HKE_FUZZ_ASSERT(k::IocNr(req.v) == 0x20);
  const k::IoctlInfo* info = k::FindIoctl(req.v);
  HKE_FUZZ_ASSERT(info != nullptr && info->variable_size);
  // Bytes past the command are never written.
  HKE_FUZZ_ASSERT(std::memcmp(g_buf + bytes.v, g_ref + bytes.v, sizeof(g_buf) - bytes.v) == 0);
  k::SvmArgs head{};
  std::memcpy(&head, g_buf, sizeof(head));
  HKE_FUZZ_ASSERT(head.start_addr == start && head.size == len && head.op == op &&
                  head.nattr == nattr);
  HKE_FUZZ_ASSERT(start != 0 && len != 0 && start % page == 0 && len % page == 0);

  if (op == k::kSvmOpGetAttr) {
    static k::SvmAttribute back[kMaxFuzzAttrs];
    const hke::Status d =
        k::DecodeSvmGetReply(g_buf, bytes.v, start, len, nattr, back, kMaxFuzzAttrs);
    HKE_FUZZ_ASSERT(d.ok());
    HKE_FUZZ_ASSERT(nattr == 0 || std::memcmp(back, g_attrs, size_t{8} * nattr) == 0);
    // A corrupted head or attribute type must be refused without output.
    if (nattr > 0) {
      g_buf[24 + (sel % nattr) * 8] ^= static_cast<unsigned char>(0x80 | sel);
      Poisoned<k::SvmAttribute[4]> small;
      const hke::Status d2 = k::DecodeSvmGetReply(g_buf, bytes.v, start, len, nattr, small.v,
                                                  nattr < 4 ? nattr : 4);
      if (!d2.ok()) HKE_FUZZ_ASSERT(small.untouched());
    }
  }
  return 0;
}
