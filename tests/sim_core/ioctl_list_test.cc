// The simulator's KFD dispatch table agrees with the one ioctl list
// (lib/kfd/ioctl_list.h): every listed request it serves is refused with
// ENOTTY (and counted unknown) on a board one minor older than the list's
// first version, and served under the list's AMDKFD_IOC_<NAME> from that
// version on. CROSS_MEMORY_COPY is the one listed request it does not serve.
#include <doctest/doctest.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "lib/kfd/ioctl_list.h"
#include "platform/sim/sim.h"
#include "tests/sim_core/sim_fixture.h"

namespace {

using namespace simtest;

struct Listed {
  const char* name;
  uint32_t request;
  uint32_t minor;
};

#define KFDSIM_TEST_ENTRY(nr, Name, NAME, dir, Args, kind, major, minor) \
  Listed{"AMDKFD_IOC_" #NAME, k::kIoc##Name, minor},
const Listed kListed[] = {HKE_KFD_IOCTL_LIST(KFDSIM_TEST_ENTRY)};
#undef KFDSIM_TEST_ENTRY

struct Trace {
  std::vector<std::string> lines;
  static void Fn(void* u, const char* line, size_t n) {
    static_cast<Trace*>(u)->lines.emplace_back(line, n);
  }
};

// Issues `request` with a zeroed argument of its own size on a fresh board
// of KFD 1.`minor`; the errno, and the trace line's name in *name.
int Issue(const Listed& e, uint32_t minor, std::string* name, uint64_t* unknown) {
  Sim s(TwoGpuBoard(minor));
  Trace t;
  s.sim->SetTraceSink(Trace::Fn, &t);
  alignas(8) static uint8_t zero[k::kIocMaxSize + 1];
  std::fill(std::begin(zero), std::end(zero), 0);
  const int r = s.Io(e.request, static_cast<void*>(zero));
  s.sim->SetTraceSink(nullptr, nullptr);
  *unknown = s.sim->unknown_requests();
  name->clear();
  for (const std::string& l : t.lines) {
    const size_t at = l.find(" name=");
    if (l.find(" ioctl ") == std::string::npos || at == std::string::npos) continue;
    *name = l.substr(at + 6, l.find(' ', at + 6) - (at + 6));
  }
  return r;
}

}  // namespace

TEST_CASE("sim serves every listed KFD request from the list's first version on, under its name") {
  size_t served = 0;
  for (const Listed& e : kListed) {
    INFO(e.name);
    std::string name;
    uint64_t unknown = 0;
    const int r = Issue(e, e.minor, &name, &unknown);
    if (e.request == k::kIocCrossMemoryCopy) {
      CHECK(r == ENOTTY);
      CHECK(unknown == 1);
      CHECK(name == "?");
      continue;
    }
    CHECK(unknown == 0);
    CHECK(name == e.name);
    ++served;
    if (e.minor == 0) continue;
    const int older = Issue(e, e.minor - 1, &name, &unknown);
    CHECK(older == ENOTTY);
    CHECK(unknown == 1);
    CHECK(name == "?");
  }
  CHECK(served == sizeof(kListed) / sizeof(kListed[0]) - 1);
}
