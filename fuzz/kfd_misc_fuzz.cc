// Fuzzes the small pure helpers: _IOC field decoding and the ioctl table,
// mmap-offset encoding, and the GET_VERSION decoder. Invariants: a request
// FindIoctl resolves has the entry's dir/type/nr and (for fixed-size
// requests) exactly its size; encode/decode of mmap offsets round-trips;
// rebuilding a request from its decoded fields gives it back; a version
// other than major 1 is refused without output.
#include <cstdint>
#include <cstring>

#include "fuzz/fuzz_input.h"
#include "lib/kfd/encode.h"
#include "lib/kfd/ioctl_table.h"

namespace k = hke::kfd;
using hke::fuzz::Input;
using hke::fuzz::Poisoned;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > hke::fuzz::kMaxInput) return 0;
  Input in(data, size);

  const uint32_t req = in.U32();
  HKE_FUZZ_ASSERT(k::IocEncode(k::IocDir(req), k::IocType(req), k::IocNr(req), k::IocSize(req)) ==
                  req);
  const k::IoctlInfo* info = k::FindIoctl(req);
  if (info != nullptr) {
    HKE_FUZZ_ASSERT(info->name != nullptr && k::RequestName(req) == info->name);
    HKE_FUZZ_ASSERT(k::IocDir(req) == info->dir && k::IocNr(req) == info->nr);
    HKE_FUZZ_ASSERT(k::IocType(req) == k::IocType(info->request));
    if (info->variable_size) HKE_FUZZ_ASSERT(k::IocSize(req) >= info->size);
    else HKE_FUZZ_ASSERT(req == info->request && k::IocSize(req) == info->size);
  } else {
    HKE_FUZZ_ASSERT(k::RequestName(req) == nullptr);
  }

  k::MmapOffset m{in.U8() % 5u, in.Bool() ? in.U32() : in.U32() & 0xFFFF,
                  in.Bool() ? in.U64() : in.U64() & k::kMmapValueMask};
  Poisoned<uint64_t> off;
  if (k::EncodeMmapOffset(m, &off.v).ok()) {
    k::MmapOffset back{};
    HKE_FUZZ_ASSERT(k::DecodeMmapOffset(off.v, &back).ok());
    HKE_FUZZ_ASSERT(back.type == m.type && back.gpu_id == m.gpu_id && back.value == m.value);
  } else {
    HKE_FUZZ_ASSERT(off.untouched());
  }
  const uint64_t raw = in.U64();
  Poisoned<k::MmapOffset> dec;
  if (k::DecodeMmapOffset(raw, &dec.v).ok()) {
    uint64_t again = 0;
    HKE_FUZZ_ASSERT(k::EncodeMmapOffset(dec.v, &again).ok() && again == raw);
  } else {
    HKE_FUZZ_ASSERT(dec.untouched());
  }

  k::GetVersionArgs v{in.U32() % 3, in.U32()};
  Poisoned<k::KfdVersion> ver;
  if (k::DecodeGetVersion(v, &ver.v).ok()) {
    HKE_FUZZ_ASSERT(ver.v.major == 1 && ver.v.minor == v.minor_version);
  } else {
    HKE_FUZZ_ASSERT(v.major_version != 1 && ver.untouched());
  }
  return 0;
}
