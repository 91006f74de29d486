// The kernel calls behind the event API, compared with what Debian's
// libhsakmt 5.2.3 issues on the same kind of board
// (../shared/reference/debian-5.2.3-on-a-fake-kfd.md, section 2):
//   CreateEvent(SIGNAL), first event on a dGPU: ALLOC_MEMORY_OF_GPU with
//     flags 0xd6000002 (GTT | UNCACHED | COHERENT | NO_SUBSTITUTE |
//     EXECUTABLE | WRITABLE) for the 32 KiB page, mmap of the render fd,
//     MAP_MEMORY_TO_GPU, then CREATE_EVENT (0xc0204b08) with
//     event_page_offset = that BO handle, type 0 and the caller's node_id;
//   WaitOnEvent: WAIT_EVENTS (0xc0184b0c) {num_events 1, wait_for_all 1,
//     timeout};
//   SetEvent / DestroyEvent: SET_EVENT (0x40084b0a) / DESTROY_EVENT
//     (0x40084b09) with {event_id}.
#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "tests/events/support.h"

using evtest::Create;
using evtest::Desc;
using evtest::Join;
using evtest::SimBoard;
namespace k = hke::kfd;

namespace {

uint64_t Hex(const std::string& line, const char* key) {
  const size_t p = line.find(key);
  REQUIRE(p != std::string::npos);
  return std::stoull(line.substr(p + std::strlen(key)), nullptr, 16);
}

}  // namespace

TEST_CASE("CreateEvent on a dGPU: ALLOC of the GTT|UNCACHED page, mmap, MAP, CREATE_EVENT(handle), as Debian 5.2.3") {
  SimBoard b(nullptr, "datacenter-4gpu");
  b.Open();
  b.ClearTrace();
  HsaEventDescriptor d = Desc(HSA_EVENTTYPE_SIGNAL, 1);
  HsaEvent* e = nullptr;
  REQUIRE(hsaKmtCreateEvent(&d, false, false, &e) == HSAKMT_STATUS_SUCCESS);
  INFO(b.AllDiags());
  const auto calls = b.Calls();
  INFO(Join(calls));
  REQUIRE(calls.size() == 4);
  CHECK(calls[0] == "ALLOC_MEMORY_OF_GPU");
  CHECK(calls[1].rfind("mmap:renderD", 0) == 0);
  CHECK(calls[2] == "MAP_MEMORY_TO_GPU");
  CHECK(calls[3] == "CREATE_EVENT");

  const auto alloc_in = b.Args("ALLOC_MEMORY_OF_GPU");
  const auto alloc_out = b.Args("ALLOC_MEMORY_OF_GPU", "out=");
  REQUIRE(alloc_in.size() == 1);
  REQUIRE(alloc_out.size() == 1);
  CHECK(SimBoard::As<k::AllocMemoryOfGpuArgs>(alloc_in[0]).flags == 0xd6000002u);
  CHECK(SimBoard::As<k::AllocMemoryOfGpuArgs>(alloc_in[0]).size == 0x8000u);
  CHECK(SimBoard::As<k::AllocMemoryOfGpuArgs>(alloc_in[0]).gpu_id != 0u);
  const uint64_t handle = SimBoard::As<k::AllocMemoryOfGpuArgs>(alloc_out[0]).handle;
  const uint64_t offset = SimBoard::As<k::AllocMemoryOfGpuArgs>(alloc_out[0]).mmap_offset;

  // The CPU view of the page: the BO from the render node, 32 KiB.
  const auto mm = b.Mmaps();
  REQUIRE(mm.size() == 1);
  CHECK(Hex(mm[0], "len=0x") == 0x8000u);
  CHECK(Hex(mm[0], "off=0x") == offset);

  // Mapped to every GPU of the board.
  const auto map_in = b.Args("MAP_MEMORY_TO_GPU");
  REQUIRE(map_in.size() == 1);
  CHECK(SimBoard::As<k::MapMemoryToGpuArgs>(map_in[0]).handle == handle);
  CHECK(SimBoard::As<k::MapMemoryToGpuArgs>(map_in[0]).n_devices == 4u);

  const auto create_in = b.Args("CREATE_EVENT");
  const auto create_out = b.Args("CREATE_EVENT", "out=");
  REQUIRE(create_in.size() == 1);
  CHECK(SimBoard::As<k::CreateEventArgs>(create_in[0]).event_page_offset == handle);
  CHECK(SimBoard::As<k::CreateEventArgs>(create_in[0]).event_type == 0u);
  CHECK(SimBoard::As<k::CreateEventArgs>(create_in[0]).auto_reset == 1u);  // ManualReset false
  CHECK(SimBoard::As<k::CreateEventArgs>(create_in[0]).node_id == 1u);
  CHECK(e->EventId == SimBoard::As<k::CreateEventArgs>(create_out[0]).event_id);
  CHECK(e->EventId == SimBoard::As<k::CreateEventArgs>(create_out[0]).event_slot_index);

  // The next event needs no page.
  b.ClearTrace();
  HsaEvent* e2 = Create();
  CHECK(Join(b.Calls()) == "CREATE_EVENT ");
  const auto second_in = b.Args("CREATE_EVENT");
  REQUIRE(second_in.size() == 1);
  CHECK(SimBoard::As<k::CreateEventArgs>(second_in[0]).event_page_offset == 0u);

  // Wait, set, destroy: one call each, shaped as Debian's.
  b.ClearTrace();
  CHECK(hsaKmtWaitOnEvent(e, 7) == HSAKMT_STATUS_WAIT_TIMEOUT);
  CHECK(hsaKmtSetEvent(e) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtDestroyEvent(e) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtDestroyEvent(e2) == HSAKMT_STATUS_SUCCESS);
  CHECK(Join(b.Ioctls()) == "WAIT_EVENTS SET_EVENT DESTROY_EVENT DESTROY_EVENT ");
  const auto wait = b.Args("WAIT_EVENTS");
  CHECK(SimBoard::As<k::WaitEventsArgs>(wait[0]).num_events == 1u);
  CHECK(SimBoard::As<k::WaitEventsArgs>(wait[0]).wait_for_all == 1u);
  CHECK(SimBoard::As<k::WaitEventsArgs>(wait[0]).timeout == 7u);
  for (const char* name : {"SET_EVENT", "DESTROY_EVENT"}) {
    const auto a = b.Args(name);
    REQUIRE(!a.empty());
    REQUIRE(a[0].size() == 8);
    // SetEventArgs and DestroyEventArgs: the event id alone.
    const uint32_t id = std::strcmp(name, "SET_EVENT") == 0
                            ? SimBoard::As<k::SetEventArgs>(a[0]).event_id
                            : SimBoard::As<k::DestroyEventArgs>(a[0]).event_id;
    CHECK(id == SimBoard::As<k::CreateEventArgs>(create_out[0]).event_id);
  }
  // The request codes Debian issues.
  for (const std::string& l : b.Trace()) {
    if (l.find("WAIT_EVENTS") != std::string::npos) CHECK(l.find("req=0xc0184b0c") != std::string::npos);
    if (l.find("SET_EVENT") != std::string::npos) CHECK(l.find("req=0x40084b0a") != std::string::npos);
    if (l.find("DESTROY_EVENT") != std::string::npos) CHECK(l.find("req=0x40084b09") != std::string::npos);
  }
}

TEST_CASE("the first event of any kind brings the dGPU page, as upstream allocates it") {
  SimBoard b(nullptr, "datacenter-4gpu");
  b.Open();
  b.ClearTrace();
  HsaEvent* m = Create(true, false, HSA_EVENTTYPE_MEMORY);
  CHECK(Join(b.Calls()).find("ALLOC_MEMORY_OF_GPU") == 0);
  HsaEvent* s = Create();
  CHECK(b.Count("ALLOC_MEMORY_OF_GPU") == 1);
  CHECK(s->EventData.HWData2 != 0);
  CHECK(hsaKmtDestroyEvent(m) == HSAKMT_STATUS_SUCCESS);
  CHECK(hsaKmtDestroyEvent(s) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("CreateEvent on an APU: CREATE_EVENT without a page, then mmap of /dev/kfd at the EVENTS offset") {
  SimBoard b(evtest::CombinedApuTree(), nullptr);
  b.Open();
  b.ClearTrace();
  // Events without a slot do not map the page.
  HsaEvent* m = Create(true, false, HSA_EVENTTYPE_MEMORY);
  CHECK(Join(b.Calls()) == "CREATE_EVENT ");
  b.ClearTrace();
  HsaEvent* e = Create();
  CHECK(Join(b.Calls()) == "CREATE_EVENT mmap:kfd ");
  const auto create_in = b.Args("CREATE_EVENT");
  const auto create_out = b.Args("CREATE_EVENT", "out=");
  CHECK(SimBoard::As<k::CreateEventArgs>(create_in[0]).event_page_offset == 0u);
  const uint64_t offset = SimBoard::As<k::CreateEventArgs>(create_out[0]).event_page_offset;
  CHECK((offset >> k::kMmapTypeShift) == k::kMmapTypeEvents);
  const auto mm = b.Mmaps();
  REQUIRE(mm.size() == 1);
  CHECK(Hex(mm[0], "off=0x") == offset);
  CHECK(Hex(mm[0], "len=0x") == 0x8000u);
  CHECK(b.Stats().page_va == Hex(mm[0], "-> ok addr=0x"));
  b.ClearTrace();
  HsaEvent* e2 = Create();
  CHECK(Join(b.Calls()) == "CREATE_EVENT ");
  for (HsaEvent* x : {m, e, e2}) CHECK(hsaKmtDestroyEvent(x) == HSAKMT_STATUS_SUCCESS);
}

TEST_CASE("concurrent first CreateEvents allocate one dGPU page and hand it over once") {
  SimBoard b(nullptr, "datacenter-4gpu");
  b.Open();
  b.ClearTrace();
  constexpr int kThreads = 8;
  std::vector<HsaEvent*> ev(kThreads, nullptr);
  std::vector<std::thread> t;
  std::atomic<int> go{0};
  for (int i = 0; i < kThreads; ++i) {
    t.emplace_back([&, i] {
      go.fetch_add(1);
      while (go.load() < kThreads) {
      }
      HsaEventDescriptor d = Desc();
      if (hsaKmtCreateEvent(&d, true, false, &ev[i]) != HSAKMT_STATUS_SUCCESS) ev[i] = nullptr;
    });
  }
  for (auto& x : t) x.join();
  INFO(b.AllDiags());
  CHECK(b.Count("ALLOC_MEMORY_OF_GPU") == 1);
  size_t with_page = 0;
  for (const auto& a : b.Args("CREATE_EVENT")) {
    with_page += SimBoard::As<k::CreateEventArgs>(a).event_page_offset != 0;
  }
  CHECK(with_page == 1);
  for (HsaEvent* e : ev) {
    REQUIRE(e != nullptr);
    CHECK(e->EventData.HWData2 >= b.Stats().page_va);
    CHECK(e->EventData.HWData2 < b.Stats().page_va + 0x8000);
    CHECK(hsaKmtDestroyEvent(e) == HSAKMT_STATUS_SUCCESS);
  }
}

TEST_CASE("a failed first CREATE_EVENT frees the dGPU page again and the next create starts over") {
  SimBoard b(nullptr, "datacenter-4gpu");
  b.Open();
  b.ClearTrace();
  kfdsim_add_fault(b.sim(), k::kIocCreateEvent & 0xFFFFu, ENOMEM, 1, 1);
  HsaEventDescriptor d = Desc();
  HsaEvent* e = nullptr;
  CHECK(hsaKmtCreateEvent(&d, true, false, &e) == HSAKMT_STATUS_NO_MEMORY);
  CHECK(e == nullptr);
  CHECK(Join(b.Ioctls()) ==
        "ALLOC_MEMORY_OF_GPU MAP_MEMORY_TO_GPU CREATE_EVENT! UNMAP_MEMORY_FROM_GPU "
        "FREE_MEMORY_OF_GPU ");
  CHECK(b.Stats().live == 0);
  b.ClearTrace();
  e = Create();
  CHECK(Join(b.Ioctls()) == "ALLOC_MEMORY_OF_GPU MAP_MEMORY_TO_GPU CREATE_EVENT ");
  CHECK(hsaKmtDestroyEvent(e) == HSAKMT_STATUS_SUCCESS);
}
