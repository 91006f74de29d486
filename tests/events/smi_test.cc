// hsaKmtOpenSMI: the SMI event descriptor of a GPU node; hke_smi_record_parse:
// the records read from it; the simulator's records (VM fault, GPU reset).
#include <poll.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tests/events/support.h"

using evtest::Join;
using evtest::SimBoard;

TEST_CASE("OpenSMI issues SMI_EVENTS for the node's gpu_id and hands back a writable descriptor") {
  SimBoard b(nullptr, "datacenter-4gpu");
  b.Open();
  uint32_t gpu_node = 0, gpu_id = 0;
  for (uint32_t n = 0; n < b.num_nodes() && gpu_id == 0; ++n) {
    HsaNodeProperties p{};
    REQUIRE(hsaKmtGetNodeProperties(n, &p) == HSAKMT_STATUS_SUCCESS);
    if (p.KFDGpuID != 0) {
      gpu_node = n;
      gpu_id = p.KFDGpuID;
    }
  }
  REQUIRE(gpu_id != 0);
  b.ClearTrace();
  int fd = -1;
  REQUIRE(hsaKmtOpenSMI(gpu_node, &fd) == HSAKMT_STATUS_SUCCESS);
  CHECK(fd >= 0);
  CHECK(Join(b.Ioctls()) == "SMI_EVENTS ");
  const auto in = b.Args("SMI_EVENTS");
  REQUIRE(in.size() == 1);
  CHECK(SimBoard::As<hke::kfd::SmiEventsArgs>(in[0]).gpuid == gpu_id);
  const uint64_t mask = HSA_SMI_EVENT_MASK_FROM_INDEX(HSA_SMI_EVENT_VMFAULT);
  CHECK(write(fd, &mask, sizeof(mask)) == static_cast<ssize_t>(sizeof(mask)));
  CHECK(close(fd) == 0);
}

TEST_CASE("OpenSMI refuses a CPU node, an unknown node and a NULL output before any ioctl") {
  SimBoard b(nullptr, "datacenter-4gpu");
  b.Open();
  b.ClearTrace();
  int fd = -7;
  CHECK(hsaKmtOpenSMI(0, &fd) == HSAKMT_STATUS_INVALID_NODE_UNIT);  // node 0 is a CPU
  CHECK(hsaKmtOpenSMI(b.num_nodes(), &fd) == HSAKMT_STATUS_INVALID_NODE_UNIT);
  CHECK(hsaKmtOpenSMI(1, nullptr) == HSAKMT_STATUS_INVALID_PARAMETER);
  CHECK(fd == -7);
  CHECK(b.Ioctls().empty());
}

TEST_CASE("OpenSMI needs an open device and KFD 1.3") {
  {
    SimBoard b(nullptr, "apu-embedded");
    int fd = -7;
    CHECK(hsaKmtOpenSMI(1, &fd) == HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  }
  SimBoard b(nullptr, "apu-embedded", /*kfd_minor=*/2);
  b.Open();
  int fd = -7;
  CHECK(hsaKmtOpenSMI(1, &fd) == HSAKMT_STATUS_NOT_SUPPORTED);
  CHECK(fd == -7);
}

// ---- SMI records (hke_smi_record_parse) -------------------------------------

namespace {

struct Parsed {
  hke_status_t status;
  hke_smi_record r;
  size_t consumed;
};

Parsed Parse(const std::string& s) {
  Parsed p{};
  p.consumed = 12345;
  std::memset(&p.r, 0xA5, sizeof(p.r));
  // An exact-size heap copy: ASan sees any read past the end.
  std::vector<char> copy(s.begin(), s.end());
  p.status = hke_smi_record_parse(copy.data(), copy.size(), &p.r, &p.consumed);
  return p;
}

bool Untouched(const Parsed& p) {
  hke_smi_record pattern;
  std::memset(&pattern, 0xA5, sizeof(pattern));
  return p.consumed == 12345 && std::memcmp(&p.r, &pattern, sizeof(pattern)) == 0;
}

constexpr hke_status_t kProtocol = (hke_status_t{1} << 32) | HKE_STATUS_PROTOCOL;
constexpr hke_status_t kUnavailable = (hke_status_t{1} << 32) | HKE_STATUS_UNAVAILABLE;
constexpr hke_status_t kInvalid = (hke_status_t{1} << 32) | HKE_STATUS_INVALID_ARGUMENT;

}  // namespace

TEST_CASE("every SMI record layout of the KFD parses into its members") {
  {
    const Parsed p = Parse("1 4d2:rocminfo\n");
    REQUIRE(p.status == HKE_OK);
    CHECK(p.consumed == 15);
    CHECK(p.r.event == HSA_SMI_EVENT_VMFAULT);
    CHECK(p.r.pid == 0x4d2);
    CHECK(std::string(p.r.text) == "rocminfo");
    CHECK(p.r.present == HKE_SMI_HAS_TEXT);
  }
  {
    const Parsed p = Parse("2 ffffffffffffffff:1f\n");
    REQUIRE(p.status == HKE_OK);
    CHECK(p.r.throttle_bitmask == UINT64_MAX);
    CHECK(p.r.throttle_counter == 0x1f);
    CHECK(p.r.present == HKE_SMI_HAS_THROTTLE);
  }
  {
    const Parsed p = Parse("3 7 RAS_ERROR\n");
    REQUIRE(p.status == HKE_OK);
    CHECK(p.r.event == HSA_SMI_EVENT_GPU_PRE_RESET);
    CHECK(p.r.reset_seq == 7);
    CHECK(std::string(p.r.text) == "RAS_ERROR");
    CHECK(p.r.present == (HKE_SMI_HAS_RESET | HKE_SMI_HAS_TEXT));
  }
  {
    const Parsed p = Parse("5 123456789 -4242 @7f0000(200) 0->b1f2 b1f2:0 1\n");
    REQUIRE(p.status == HKE_OK);
    CHECK(p.r.event == HSA_SMI_EVENT_MIGRATE_START);
    CHECK(p.r.timestamp_ns == 123456789);
    CHECK(p.r.pid == 4242);
    CHECK(p.r.address == 0x7f0000);
    CHECK(p.r.size == 0x200);
    CHECK(p.r.from_node == 0);
    CHECK(p.r.to_node == 0xb1f2);
    CHECK(p.r.prefetch_node == 0xb1f2);
    CHECK(p.r.preferred_node == 0);
    CHECK(p.r.trigger == 1);
    CHECK(p.r.present == (HKE_SMI_HAS_TIMESTAMP | HKE_SMI_HAS_ADDRESS | HKE_SMI_HAS_MIGRATION |
                          HKE_SMI_HAS_TRIGGER));
  }
  {
    const Parsed p = Parse("6 99 -1 @10(1) b1f2->0 3 -12\n");
    REQUIRE(p.status == HKE_OK);
    CHECK(p.r.from_node == 0xb1f2);
    CHECK(p.r.to_node == 0);
    CHECK(p.r.trigger == 3);
    CHECK(p.r.error_code == -12);
    CHECK((p.r.present & HKE_SMI_HAS_ERROR) != 0);
  }
  {
    const Parsed p = Parse("7 5 -77 @deadbeef(c2a1) W\n");
    REQUIRE(p.status == HKE_OK);
    CHECK(p.r.event == HSA_SMI_EVENT_PAGE_FAULT_START);
    CHECK(p.r.address == 0xdeadbeef);
    CHECK(p.r.node == 0xc2a1);
    CHECK(p.r.flag == 'W');
    CHECK(p.r.present ==
          (HKE_SMI_HAS_TIMESTAMP | HKE_SMI_HAS_ADDRESS | HKE_SMI_HAS_NODE | HKE_SMI_HAS_FLAG));
  }
  {
    const Parsed p = Parse("8 6 -77 @deadbeef(c2a1) M\n");
    REQUIRE(p.status == HKE_OK);
    CHECK(p.r.flag == 'M');
  }
  {
    const Parsed p = Parse("9 1000 -5 b1f2 2\n");
    REQUIRE(p.status == HKE_OK);
    CHECK(p.r.event == HSA_SMI_EVENT_QUEUE_EVICTION);
    CHECK(p.r.node == 0xb1f2);
    CHECK(p.r.trigger == 2);
  }
  {
    const Parsed p = Parse("b 1000 -5 @400(10) b1f2 0\n");
    REQUIRE(p.status == HKE_OK);
    CHECK(p.r.event == HSA_SMI_EVENT_UNMAP_FROM_GPU);
    CHECK(p.r.address == 0x400);
    CHECK(p.r.size == 0x10);
    CHECK(p.r.node == 0xb1f2);
    CHECK(p.r.trigger == 0);
  }
}

TEST_CASE("SMI layouts that changed between kernels parse in each form") {
  // GPU reset without a cause (first profiler kernels).
  Parsed p = Parse("4 2\n");
  REQUIRE(p.status == HKE_OK);
  CHECK(p.r.reset_seq == 2);
  CHECK(p.r.present == HKE_SMI_HAS_RESET);
  // Migration end without the error code.
  p = Parse("6 99 -1 @10(1) b1f2->0 3\n");
  REQUIRE(p.status == HKE_OK);
  CHECK((p.r.present & HKE_SMI_HAS_ERROR) == 0);
  // Queue restore: without a flag, with 'R' (rescheduled), '0', and the NUL
  // some kernels printed by mistake before the newline.
  p = Parse("a 1000 -5 b1f2\n");
  REQUIRE(p.status == HKE_OK);
  CHECK((p.r.present & HKE_SMI_HAS_FLAG) == 0);
  p = Parse("a 1000 -5 b1f2 R\n");
  REQUIRE(p.status == HKE_OK);
  CHECK(p.r.flag == 'R');
  p = Parse(std::string("a 1000 -5 b1f2 \0\n", 17));
  REQUIRE(p.status == HKE_OK);
  CHECK(p.r.flag == '\0');
  CHECK(p.consumed == 17);
}

TEST_CASE("an SMI event this parser does not know keeps its fields as text") {
  Parsed p = Parse("c 77 -9 3\n");
  REQUIRE(p.status == HKE_OK);
  CHECK(p.r.event == 12);
  CHECK(std::string(p.r.text) == "77 -9 3");
  CHECK(p.r.timestamp_ns == 77);
  CHECK(p.r.pid == 9);
  CHECK(p.r.present == (HKE_SMI_HAS_TEXT | HKE_SMI_HAS_TIMESTAMP));
  p = Parse("3f anything at all\n");
  REQUIRE(p.status == HKE_OK);
  CHECK(std::string(p.r.text) == "anything at all");
  CHECK(p.r.present == HKE_SMI_HAS_TEXT);
}

TEST_CASE("malformed SMI records are PROTOCOL and leave every output as it was") {
  const char* bad[] = {
      "\n",                                       // no event
      "0 x\n",                                    // event 0 is not used
      "40 x\n",                                   // 64 is the ALL_PROCESS flag
      "100000000 x\n",                            // event beyond 32 bits
      "1\n",                                      // no blank after the event
      "1 zz\n",                                   // pid not hex
      "1 4d2\n",                                  // no ':' after the pid
      "2 1:\n",                                   // counter missing
      "2 10000000000000000:1\n",                  // bitmask beyond 64 bits
      "3 \n",                                     // no sequence number
      "3 1 \n",                                   // a blank, then no cause
      "5 1 -2 @3(4) 5->6 7:8\n",                  // trigger missing
      "5 1 -2 @3(4) 5->6 7:8 9 extra\n",          // trailing field
      "6 1 -2 @3(4) 5->6 x\n",                    // trigger not a number
      "6 1 -2 @3(4) 5->6 1 2147483648\n",         // error beyond int32
      "7 1 -2 @3(100000000) W\n",                 // node beyond 32 bits
      "7 1 -2 @3(4)  W\n",                        // two blanks
      "7 1 -2 @3(4) \n",                          // flag missing
      "8 9223372036854775808 -2 @3(4) M\n",       // timestamp beyond int64
      "9 1 -2147483648 3 4\n",                    // pid beyond int32
      "9 1 2 3 4\n",                              // pid without its '-'
      "a 1 -2\n",                                 // node missing
      "a 1 -2 3 RR\n",                            // flag of two characters
      "b 1 -2 @3(4) 5\n",                         // trigger missing
      "c\n",                                      // unknown event, no blank
  };
  std::vector<std::string> cases(std::begin(bad), std::end(bad));
  cases.push_back(std::string("1 4d2:a\0b\n", 10));  // a NUL inside a text field
  cases.push_back(std::string("c 1\0\n", 6));
  for (const std::string& s : cases) {
    CAPTURE(s);
    const Parsed p = Parse(s);
    CHECK(p.status == kProtocol);
    CHECK(Untouched(p));
  }
  // A line of HKE_SMI_RECORD_MAX bytes has no room for its '\n'.
  std::string long_line = "1 1:" + std::string(HKE_SMI_RECORD_MAX - 4, 'x') + "\n";
  Parsed p = Parse(long_line);
  CHECK(p.status == kProtocol);
  CHECK(Untouched(p));
  // One byte shorter fits.
  long_line = "1 1:" + std::string(HKE_SMI_RECORD_MAX - 5, 'x') + "\n";
  p = Parse(long_line);
  CHECK(p.status == HKE_OK);
  CHECK(p.consumed == HKE_SMI_RECORD_MAX);
  CHECK(std::strlen(p.r.text) == HKE_SMI_RECORD_MAX - 5);
}

TEST_CASE("SMI records split across reads are UNAVAILABLE until the newline; consumed walks a buffer") {
  const std::string stream = "9 1000 -5 b1f2 2\n1 4d2:a b\na 1001 -5 b1f2\n";
  // Every proper prefix of the first record is incomplete.
  const size_t first = stream.find('\n') + 1;
  for (size_t n = 0; n < first; ++n) {
    CAPTURE(n);
    const Parsed p = Parse(stream.substr(0, n));
    CHECK(p.status == kUnavailable);
    CHECK(Untouched(p));
  }
  std::vector<uint32_t> events;
  size_t at = 0;
  while (at < stream.size()) {
    hke_smi_record r{};
    size_t used = 0;
    REQUIRE(hke_smi_record_parse(stream.data() + at, stream.size() - at, &r, &used) == HKE_OK);
    events.push_back(r.event);
    at += used;
  }
  CHECK(events == std::vector<uint32_t>{9, 1, 10});
  CHECK(at == stream.size());
  hke_smi_record r{};
  size_t used = 0;
  CHECK(hke_smi_record_parse(nullptr, 1, &r, &used) == kInvalid);
  CHECK(hke_smi_record_parse("1 1:x\n", 6, nullptr, &used) == kInvalid);
  CHECK(hke_smi_record_parse("1 1:x\n", 6, &r, nullptr) == kInvalid);
  CHECK(hke_smi_record_parse(nullptr, 0, &r, &used) == kUnavailable);
}

namespace {

// Reads whatever the descriptor has within `ms` milliseconds.
std::string ReadAvailable(int fd, int ms) {
  std::string out;
  for (;;) {
    pollfd pfd{fd, POLLIN, 0};
    if (poll(&pfd, 1, out.empty() ? ms : 50) <= 0) break;
    char buf[512];
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

std::vector<hke_smi_record> ParseAll(const std::string& s) {
  std::vector<hke_smi_record> out;
  size_t at = 0;
  while (at < s.size()) {
    hke_smi_record r{};
    size_t used = 0;
    REQUIRE(hke_smi_record_parse(s.data() + at, s.size() - at, &r, &used) == HKE_OK);
    out.push_back(r);
    at += used;
  }
  return out;
}

}  // namespace

TEST_CASE("an SMI descriptor receives the selected events of its GPU: a VM fault, a reset") {
  SimBoard b(nullptr, "datacenter-4gpu");
  b.Open();
  std::vector<std::pair<uint32_t, uint32_t>> gpus;  // node, gpu_id
  for (uint32_t n = 0; n < b.num_nodes(); ++n) {
    HsaNodeProperties p{};
    REQUIRE(hsaKmtGetNodeProperties(n, &p) == HSAKMT_STATUS_SUCCESS);
    if (p.KFDGpuID != 0) gpus.emplace_back(n, p.KFDGpuID);
  }
  REQUIRE(gpus.size() >= 2);
  int fd = -1, other = -1;
  REQUIRE(hsaKmtOpenSMI(gpus[0].first, &fd) == HSAKMT_STATUS_SUCCESS);
  REQUIRE(hsaKmtOpenSMI(gpus[1].first, &other) == HSAKMT_STATUS_SUCCESS);
  const uint64_t mask = HSA_SMI_EVENT_MASK_FROM_INDEX(HSA_SMI_EVENT_VMFAULT) |
                        HSA_SMI_EVENT_MASK_FROM_INDEX(HSA_SMI_EVENT_GPU_PRE_RESET);
  REQUIRE(write(fd, &mask, sizeof(mask)) == static_cast<ssize_t>(sizeof(mask)));
  REQUIRE(write(other, &mask, sizeof(mask)) == static_cast<ssize_t>(sizeof(mask)));

  REQUIRE(kfdsim_inject_memory_exception(b.sim(), gpus[0].second, 0x7000, 1, 0) == 0);
  REQUIRE(kfdsim_inject_hw_exception(b.sim(), gpus[0].second, 0, 1, 0) == 0);
  const auto records = ParseAll(ReadAvailable(fd, 2000));
  REQUIRE(records.size() == 2);  // POST_RESET was not selected
  CHECK(records[0].event == HSA_SMI_EVENT_VMFAULT);
  CHECK(records[0].pid == static_cast<uint32_t>(getpid()));
  char comm[32] = {};
  FILE* f = std::fopen("/proc/self/comm", "r");
  REQUIRE(f != nullptr);
  REQUIRE(std::fgets(comm, sizeof(comm), f) != nullptr);
  std::fclose(f);
  comm[std::strcspn(comm, "\n")] = '\0';
  CHECK(std::string(records[0].text) == comm);
  CHECK(records[1].event == HSA_SMI_EVENT_GPU_PRE_RESET);
  CHECK(records[1].reset_seq >= 1);
  // The other GPU's descriptor saw nothing of GPU 0.
  CHECK(ReadAvailable(other, 100).empty());
  // A new mask replaces the old one: now only migrations.
  const uint64_t mig = HSA_SMI_EVENT_MASK_FROM_INDEX(HSA_SMI_EVENT_MIGRATE_END);
  REQUIRE(write(fd, &mig, sizeof(mig)) == static_cast<ssize_t>(sizeof(mig)));
  CHECK(kfdsim_smi_emit(b.sim(), gpus[0].second, HSA_SMI_EVENT_VMFAULT, "1:x") == 0);
  CHECK(kfdsim_smi_emit(b.sim(), gpus[0].second, HSA_SMI_EVENT_MIGRATE_END,
                        "5 -6 @10(2) 0->b1f2 0 0") == 1);
  const auto more = ParseAll(ReadAvailable(fd, 2000));
  REQUIRE(more.size() == 1);
  CHECK(more[0].event == HSA_SMI_EVENT_MIGRATE_END);
  CHECK(more[0].size == 2);
  CHECK(close(fd) == 0);
  CHECK(close(other) == 0);
  // A closed client is forgotten, not an error.
  CHECK(kfdsim_smi_emit(b.sim(), gpus[0].second, HSA_SMI_EVENT_MIGRATE_END, "5 -6 @10(2) 0->1 0") ==
        0);
}
