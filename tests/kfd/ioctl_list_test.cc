// The tables derived from the one KFD ioctl list (lib/kfd/ioctl_list.h)
// agree with it: every kIoc* request encodes the list's number, direction
// and structure size; IoctlOf maps each structure to its request; the name
// table holds exactly the list's KFD requests under AMDKFD_IOC_<NAME>. The
// simulator's table is checked against the same list in
// tests/sim_core/ioctl_list_test.cc. The list itself is checked against the
// kernel's header in abi_crosscheck_test.cc and against the recorded
// upstream values in abi_reference_test.cc.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include <doctest/doctest.h>

#include "lib/kfd/abi.h"
#include "lib/kfd/ioctl_list.h"
#include "lib/kfd/ioctl_table.h"

namespace k = hke::kfd;

namespace {

struct ListEntry {
  uint8_t nr;
  const char* name;  // AMDKFD_IOC_<NAME>
  uint8_t dir;
  size_t arg_size;
  bool variable;
  uint32_t major;
  uint32_t minor;
  uint32_t request;          // kIoc<Name>
  uint32_t trait_request;    // IoctlOf<Args>::kRequest
  bool trait_variable;       // IoctlOf<Args>::kVariable
};

#define HKE_TEST_ENTRY(nr, Name, NAME, dir, Args, kind, major, minor)                         \
  ListEntry{nr,                                                                               \
            "AMDKFD_IOC_" #NAME,                                                              \
            k::dir,                                                                           \
            k::IoctlArgSize<k::Args>(),                                                       \
            (k::kind) == k::kVariableSize,                                                    \
            major,                                                                            \
            minor,                                                                            \
            k::kIoc##Name,                                                                    \
            k::IoctlOf<k::Args>::kRequest,                                                    \
            k::IoctlOf<k::Args>::kVariable},
const ListEntry kList[] = {HKE_KFD_IOCTL_LIST(HKE_TEST_ENTRY)};
#undef HKE_TEST_ENTRY

}  // namespace

TEST_CASE("every list request encodes its number, direction and argument size with type K") {
  REQUIRE(sizeof(kList) / sizeof(kList[0]) == 44);  // 0x01..0x27 and five DKMS requests
  for (const ListEntry& e : kList) {
    INFO(e.name);
    CHECK(k::IocNr(e.request) == e.nr);
    CHECK(k::IocDir(e.request) == e.dir);
    CHECK(k::IocSize(e.request) == e.arg_size);
    CHECK(k::IocType(e.request) == k::kKfdIocType);
    const bool upstream = e.nr >= k::kKfdCommandStart && e.nr < k::kKfdCommandEnd;
    const bool dkms = e.nr >= k::kKfdDkmsCommandStart && e.nr < k::kKfdDkmsCommandEnd;
    CHECK((upstream || dkms));
    CHECK(e.major == k::kKfdMajorVersion);
    CHECK(e.minor <= k::kKfdNewestKnownMinor);
  }
  CHECK(k::IocSize(k::kIocCreateProcess) == 0);
  CHECK(k::IocDir(k::kIocCreateProcess) == k::kIocNone);
}

TEST_CASE("IoctlOf maps each argument structure to its own request and marks SVM variable-size") {
  std::set<uint32_t> requests;
  for (const ListEntry& e : kList) {
    INFO(e.name);
    CHECK(e.trait_request == e.request);
    CHECK(e.trait_variable == e.variable);
    CHECK(requests.insert(e.request).second);
  }
  CHECK(k::IoctlOf<k::SvmArgs>::kVariable);
  CHECK(k::IoctlOf<k::WaitEventsArgs>::kRequest == k::kIocWaitEvents);
  CHECK(k::IoctlOf<k::AllocMemoryOfGpuArgs>::kRequest == k::kIocAllocMemoryOfGpu);
}

TEST_CASE("the name table holds exactly the list's KFD requests under their AMDKFD_IOC names") {
  for (const ListEntry& e : kList) {
    INFO(e.name);
    const k::IoctlInfo* info = k::FindIoctl(e.request);
    REQUIRE(info != nullptr);
    CHECK(std::string(info->name) == e.name);
    CHECK(info->request == e.request);
    CHECK(info->nr == e.nr);
    CHECK(info->dir == e.dir);
    CHECK(info->size == e.arg_size);
    CHECK(info->variable_size == e.variable);
  }
  size_t n = 0;
  const k::IoctlInfo* table = k::IoctlTable(&n);
  size_t kfd_entries = 0;
  for (size_t i = 0; i < n; ++i) {
    if (k::IocType(table[i].request) == k::kKfdIocType) ++kfd_entries;
  }
  CHECK(kfd_entries == sizeof(kList) / sizeof(kList[0]));
}
