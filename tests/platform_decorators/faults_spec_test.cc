// Fault spec parser and formatter: accepted specs and the rules they give,
// rejected specs with their status and byte offset, bounds, round trips.
#include <doctest/doctest.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "hsakmt/hsakmt_faults.h"

namespace {

constexpr uint32_t kAllocMemoryOfGpu = 0xc0284b16u;
constexpr uint32_t kGetVersion = 0x80084b01u;

hke_faults_rule Rule(uint32_t op, uint32_t when, uint64_t nth, int32_t error,
                     uint32_t request = 0) {
  hke_faults_rule r{};
  r.op = op;
  r.when = when;
  r.nth = nth;
  r.error = error;
  r.match_request = request != 0 ? 1 : 0;
  r.request = request;
  return r;
}

bool SameRule(const hke_faults_rule& a, const hke_faults_rule& b) {
  return a.op == b.op && a.when == b.when && a.nth == b.nth && a.error == b.error &&
         a.match_request == b.match_request && a.request == b.request && a.reserved == b.reserved;
}

std::vector<hke_faults_rule> ParseOk(const std::string& spec) {
  hke_faults_rule rules[HKE_FAULTS_MAX_RULES];
  size_t count = 0;
  size_t offset = 0;
  const uint32_t st =
      hke_faults_parse(spec.data(), spec.size(), rules, HKE_FAULTS_MAX_RULES, &count, &offset);
  INFO("spec: ", spec, " status: ", hke_faults_parse_status_name(st), " offset: ", offset);
  REQUIRE(st == HKE_FAULTS_PARSE_OK);
  return std::vector<hke_faults_rule>(rules, rules + count);
}

std::string Format(const std::vector<hke_faults_rule>& rules) {
  char buf[1024];
  size_t len = 0;
  REQUIRE(hke_faults_format(rules.data(), rules.size(), buf, sizeof(buf), &len) == 0);
  REQUIRE(std::strlen(buf) == len);
  return std::string(buf, len);
}

struct GoodSpec {
  std::string spec;
  std::vector<hke_faults_rule> rules;
  std::string canonical;  // what the formatter writes for the parsed rules
};

struct BadSpec {
  std::string spec;
  uint32_t status;
  size_t offset;
};

}  // namespace

TEST_CASE("fault spec parser accepts well-formed specs and yields the rules they spell") {
  const std::vector<GoodSpec> good = {
      {"", {}, ""},
      {"open:1:ENOENT", {Rule(HKE_FAULTS_OP_OPEN, HKE_FAULTS_WHEN_NTH, 1, ENOENT)}, "open:1:ENOENT"},
      {"ioctl:3:ENOMEM,mmap:*:EAGAIN",
       {Rule(HKE_FAULTS_OP_IOCTL, HKE_FAULTS_WHEN_NTH, 3, ENOMEM),
        Rule(HKE_FAULTS_OP_MMAP, HKE_FAULTS_WHEN_EVERY, 0, EAGAIN)},
       "ioctl:3:ENOMEM,mmap:*:EAGAIN"},
      {"read_file:2+:EIO", {Rule(HKE_FAULTS_OP_READ_FILE, HKE_FAULTS_WHEN_FROM, 2, EIO)},
       "read_file:2+:EIO"},
      {"ioctl=0xc0284b16:1:12",
       {Rule(HKE_FAULTS_OP_IOCTL, HKE_FAULTS_WHEN_NTH, 1, ENOMEM, kAllocMemoryOfGpu)},
       "ioctl=AMDKFD_IOC_ALLOC_MEMORY_OF_GPU:1:ENOMEM"},
      {"ioctl=0XC0284B16:1:ENOMEM",
       {Rule(HKE_FAULTS_OP_IOCTL, HKE_FAULTS_WHEN_NTH, 1, ENOMEM, kAllocMemoryOfGpu)},
       "ioctl=AMDKFD_IOC_ALLOC_MEMORY_OF_GPU:1:ENOMEM"},
      {"ioctl=ALLOC_MEMORY_OF_GPU:1:ENOMEM",
       {Rule(HKE_FAULTS_OP_IOCTL, HKE_FAULTS_WHEN_NTH, 1, ENOMEM, kAllocMemoryOfGpu)},
       "ioctl=AMDKFD_IOC_ALLOC_MEMORY_OF_GPU:1:ENOMEM"},
      {"ioctl=AMDKFD_IOC_GET_VERSION:*:EBADF",
       {Rule(HKE_FAULTS_OP_IOCTL, HKE_FAULTS_WHEN_EVERY, 0, EBADF, kGetVersion)},
       "ioctl=AMDKFD_IOC_GET_VERSION:*:EBADF"},
      {"ioctl=0x12345678:1+:300",
       {Rule(HKE_FAULTS_OP_IOCTL, HKE_FAULTS_WHEN_FROM, 1, 300, 0x12345678u)},
       "ioctl=0x12345678:1+:300"},
      {"page_size:18446744073709551615:4095",
       {Rule(HKE_FAULTS_OP_PAGE_SIZE, HKE_FAULTS_WHEN_NTH, UINT64_MAX, 4095)},
       "page_size:18446744073709551615:4095"},
      {"clock_ns:007:EINTR", {Rule(HKE_FAULTS_OP_CLOCK_NS, HKE_FAULTS_WHEN_NTH, 7, EINTR)},
       "clock_ns:7:EINTR"},
      {"close:1:ENOTSUPP", {Rule(HKE_FAULTS_OP_CLOSE, HKE_FAULTS_WHEN_NTH, 1, 524)},
       "close:1:ENOTSUPP"},
  };
  for (const GoodSpec& g : good) {
    CAPTURE(g.spec);
    const std::vector<hke_faults_rule> got = ParseOk(g.spec);
    REQUIRE(got.size() == g.rules.size());
    for (size_t i = 0; i < got.size(); ++i) {
      CAPTURE(i);
      CHECK(SameRule(got[i], g.rules[i]));
      CHECK(hke_faults_rule_valid(&got[i]) == 1);
    }
    CHECK(Format(got) == g.canonical);
  }
}

TEST_CASE("fault spec parser knows every operation by its table name") {
  for (uint32_t op = 0; op < HKE_FAULTS_OP_COUNT; ++op) {
    const std::string name = hke_faults_op_name(op);
    const std::vector<hke_faults_rule> got = ParseOk(name + ":1:EIO");
    REQUIRE(got.size() == 1);
    CHECK(got[0].op == op);
  }
  CHECK(hke_faults_op_name(HKE_FAULTS_OP_COUNT) == nullptr);
  const std::vector<hke_faults_rule> all = ParseOk(
      "open:1:EIO,close:1:EIO,ioctl:1:EIO,mmap:1:EIO,munmap:1:EIO,madvise:1:EIO,read_file:1:EIO,"
      "list_dir:1:EIO,clock_ns:1:EIO,cpu_count:1:EIO,process_id:1:EIO,read_fd:1:EIO,"
      "page_size:1:EIO,mem_policy:1:EIO");
  REQUIRE(all.size() == HKE_FAULTS_OP_COUNT);
  for (uint32_t op = 0; op < HKE_FAULTS_OP_COUNT; ++op) CHECK(all[op].op == op);
}

TEST_CASE("fault spec parser rejects malformed specs at the offending byte") {
  const std::vector<BadSpec> bad = {
      {"opn:1:EIO", HKE_FAULTS_PARSE_BAD_OP, 0},
      {":1:EIO", HKE_FAULTS_PARSE_BAD_OP, 0},
      {" open:1:EIO", HKE_FAULTS_PARSE_BAD_OP, 0},
      {"open :1:EIO", HKE_FAULTS_PARSE_BAD_OP, 0},
      {"OPEN:1:EIO", HKE_FAULTS_PARSE_BAD_OP, 0},
      {"open", HKE_FAULTS_PARSE_EXPECTED_COLON, 4},
      {"open,close:1:EIO", HKE_FAULTS_PARSE_EXPECTED_COLON, 4},
      {"open:1", HKE_FAULTS_PARSE_EXPECTED_COLON, 6},
      {"open:1,EIO", HKE_FAULTS_PARSE_EXPECTED_COLON, 6},
      {"open:1=EIO", HKE_FAULTS_PARSE_EXPECTED_COLON, 6},
      {"open::EIO", HKE_FAULTS_PARSE_BAD_NTH, 5},
      {"open:0:EIO", HKE_FAULTS_PARSE_BAD_NTH, 5},
      {"open:x:EIO", HKE_FAULTS_PARSE_BAD_NTH, 5},
      {"open:+:EIO", HKE_FAULTS_PARSE_BAD_NTH, 5},
      {"open:0+:EIO", HKE_FAULTS_PARSE_BAD_NTH, 5},
      {"open:1++:EIO", HKE_FAULTS_PARSE_BAD_NTH, 5},
      {"open:+1:EIO", HKE_FAULTS_PARSE_BAD_NTH, 5},
      {"open:-1:EIO", HKE_FAULTS_PARSE_BAD_NTH, 5},
      {"open:**:EIO", HKE_FAULTS_PARSE_BAD_NTH, 5},
      {"open:*+:EIO", HKE_FAULTS_PARSE_BAD_NTH, 5},
      {"open:1 :EIO", HKE_FAULTS_PARSE_BAD_NTH, 5},
      {"open:18446744073709551616:EIO", HKE_FAULTS_PARSE_BAD_NTH, 5},
      {"open:1:", HKE_FAULTS_PARSE_BAD_ERRNO, 7},
      {"open:1:EFOO", HKE_FAULTS_PARSE_BAD_ERRNO, 7},
      {"open:1:eio", HKE_FAULTS_PARSE_BAD_ERRNO, 7},
      {"open:1:E", HKE_FAULTS_PARSE_BAD_ERRNO, 7},
      {"open:1:0", HKE_FAULTS_PARSE_BAD_ERRNO, 7},
      {"open:1:4096", HKE_FAULTS_PARSE_BAD_ERRNO, 7},
      {"open:1:99999999999999999999999", HKE_FAULTS_PARSE_BAD_ERRNO, 7},
      {"open:1:-5", HKE_FAULTS_PARSE_BAD_ERRNO, 7},
      {"open:1:EIO ", HKE_FAULTS_PARSE_BAD_ERRNO, 7},
      {std::string("open:1:E\0IO", 11), HKE_FAULTS_PARSE_BAD_ERRNO, 7},
      {"open:1:EIO:", HKE_FAULTS_PARSE_EXPECTED_COMMA, 10},
      {"open:1:EIO=x", HKE_FAULTS_PARSE_EXPECTED_COMMA, 10},
      {"open:1:EIO,", HKE_FAULTS_PARSE_BAD_OP, 11},
      {"open:1:EIO,,close:1:EIO", HKE_FAULTS_PARSE_BAD_OP, 11},
      {"open:1:EIO,close:2:EBADF,mmap:3:", HKE_FAULTS_PARSE_BAD_ERRNO, 32},
      {"open=0x1:1:EIO", HKE_FAULTS_PARSE_BAD_REQUEST, 4},
      {"ioctl=:1:EIO", HKE_FAULTS_PARSE_BAD_REQUEST, 6},
      {"ioctl=0x:1:EIO", HKE_FAULTS_PARSE_BAD_REQUEST, 6},
      {"ioctl=0x0:1:EIO", HKE_FAULTS_PARSE_BAD_REQUEST, 6},
      {"ioctl=0x123456789:1:EIO", HKE_FAULTS_PARSE_BAD_REQUEST, 6},
      {"ioctl=0xzz:1:EIO", HKE_FAULTS_PARSE_BAD_REQUEST, 6},
      {"ioctl=3226487574:1:EIO", HKE_FAULTS_PARSE_BAD_REQUEST, 6},
      {"ioctl=NOT_A_REQUEST:1:EIO", HKE_FAULTS_PARSE_BAD_REQUEST, 6},
      {"ioctl=alloc_memory_of_gpu:1:EIO", HKE_FAULTS_PARSE_BAD_REQUEST, 6},
      {"ioctl=ALLOC_MEMORY_OF_GPU,1:EIO", HKE_FAULTS_PARSE_EXPECTED_COLON, 25},
      {"ioctl=0xc0284b16=1:1:EIO", HKE_FAULTS_PARSE_EXPECTED_COLON, 16},
  };
  for (const BadSpec& b : bad) {
    CAPTURE(b.spec);
    hke_faults_rule rules[2];
    std::memset(rules, 0xA5, sizeof(rules));
    unsigned char before[sizeof(rules)];
    std::memcpy(before, rules, sizeof(rules));
    size_t count = 12345;
    size_t offset = 999;
    const uint32_t st = hke_faults_parse(b.spec.data(), b.spec.size(), rules, 2, &count, &offset);
    CHECK(hke_faults_parse_status_name(st) == std::string(hke_faults_parse_status_name(b.status)));
    CHECK(offset == b.offset);
    // Nothing is published on failure.
    CHECK(count == 12345);
    CHECK(std::memcmp(rules, before, sizeof(rules)) == 0);
  }
}

TEST_CASE("fault spec parser reports the first rule beyond the capacity") {
  std::string spec;
  for (unsigned i = 0; i <= HKE_FAULTS_MAX_RULES; ++i) spec += std::string(i ? "," : "") + "cpu_count:1:EIO";
  hke_faults_rule rules[HKE_FAULTS_MAX_RULES + 4];
  size_t count = 0;
  size_t offset = 0;
  // The capacity is capped at HKE_FAULTS_MAX_RULES even when the caller offers more.
  CHECK(hke_faults_parse(spec.data(), spec.size(), rules, HKE_FAULTS_MAX_RULES + 4, &count,
                         &offset) == HKE_FAULTS_PARSE_TOO_MANY_RULES);
  CHECK(offset == HKE_FAULTS_MAX_RULES * 16);  // "cpu_count:1:EIO," is 16 bytes
  CHECK(hke_faults_parse(spec.data(), 16 * 3 - 1, rules, 2, &count, &offset) ==
        HKE_FAULTS_PARSE_TOO_MANY_RULES);
  CHECK(offset == 32);
  CHECK(hke_faults_parse(spec.data(), 16 * 3 - 1, rules, 3, &count, &offset) == HKE_FAULTS_PARSE_OK);
  CHECK(count == 3);
}

TEST_CASE("fault spec parser reads exactly len bytes") {
  // Bytes after len are garbage that would fail the parse if read.
  const std::string spec = "open:1:EIO,garbage";
  std::vector<hke_faults_rule> one = ParseOk(spec.substr(0, 10));
  hke_faults_rule rules[4];
  size_t count = 0;
  size_t offset = 0;
  REQUIRE(hke_faults_parse(spec.data(), 10, rules, 4, &count, &offset) == HKE_FAULTS_PARSE_OK);
  REQUIRE(count == 1);
  CHECK(SameRule(rules[0], one[0]));
  // A shorter len cuts the errno name: "EI" is not an errno.
  CHECK(hke_faults_parse(spec.data(), 9, rules, 4, &count, &offset) == HKE_FAULTS_PARSE_BAD_ERRNO);
  CHECK(offset == 7);
  // An exact-size heap buffer with no terminator (out-of-bounds reads trip ASan).
  const std::string exact = "mmap:2+:ENOMEM";
  std::vector<char> heap(exact.begin(), exact.end());
  REQUIRE(hke_faults_parse(heap.data(), heap.size(), rules, 4, &count, &offset) == HKE_FAULTS_PARSE_OK);
  CHECK(count == 1);
  CHECK(rules[0].when == HKE_FAULTS_WHEN_FROM);
}

TEST_CASE("fault spec parser rejects NULL arguments") {
  hke_faults_rule rules[1];
  size_t count = 0;
  size_t offset = 7;
  CHECK(hke_faults_parse(nullptr, 3, rules, 1, &count, &offset) == HKE_FAULTS_PARSE_NULL_ARGUMENT);
  CHECK(offset == 0);
  CHECK(hke_faults_parse("open:1:EIO", 10, rules, 1, nullptr, &offset) ==
        HKE_FAULTS_PARSE_NULL_ARGUMENT);
  CHECK(hke_faults_parse("open:1:EIO", 10, nullptr, 1, &count, nullptr) ==
        HKE_FAULTS_PARSE_NULL_ARGUMENT);
  // An empty spec needs no storage at all.
  CHECK(hke_faults_parse(nullptr, 0, nullptr, 0, &count, nullptr) == HKE_FAULTS_PARSE_OK);
  CHECK(count == 0);
}

TEST_CASE("formatted rules parse back to the same rules") {
  const std::vector<std::string> specs = {
      "open:1:ENOENT,close:*:EINTR,ioctl=0xc0284b16:4+:ENOMEM",
      "ioctl=0xdeadbeef:2:77,mmap:18446744073709551615+:EAGAIN,read_fd:3:EIO",
      "list_dir:1:ENOTDIR,page_size:*:1,process_id:9:4095",
  };
  for (const std::string& s : specs) {
    CAPTURE(s);
    const std::vector<hke_faults_rule> first = ParseOk(s);
    const std::string text = Format(first);
    const std::vector<hke_faults_rule> second = ParseOk(text);
    REQUIRE(first.size() == second.size());
    for (size_t i = 0; i < first.size(); ++i) CHECK(SameRule(first[i], second[i]));
  }
}

TEST_CASE("fault spec formatter refuses invalid rules and short buffers") {
  const std::vector<hke_faults_rule> rules = ParseOk("open:1:ENOENT,mmap:*:ENOMEM");
  char buf[64];
  size_t len = 77;
  CHECK(hke_faults_format(rules.data(), rules.size(), buf, 10, &len) == ERANGE);
  CHECK(hke_faults_format(rules.data(), rules.size(), buf, 0, &len) == ERANGE);
  // Exactly the text plus its NUL fits.
  CHECK(hke_faults_format(rules.data(), rules.size(), buf, 27, &len) == ERANGE);
  CHECK(len == 77);
  CHECK(hke_faults_format(rules.data(), rules.size(), buf, 28, &len) == 0);
  CHECK(len == 27);
  CHECK(std::string(buf) == "open:1:ENOENT,mmap:*:ENOMEM");
  hke_faults_rule bad = rules[0];
  bad.error = 0;
  CHECK(hke_faults_format(&bad, 1, buf, sizeof(buf), &len) == EINVAL);
  CHECK(hke_faults_format(rules.data(), rules.size(), nullptr, 8, &len) == EINVAL);
  CHECK(hke_faults_format(nullptr, 0, buf, sizeof(buf), &len) == 0);
  CHECK(len == 0);
  CHECK(buf[0] == '\0');
}

TEST_CASE("every parse status has a distinct name") {
  std::vector<std::string> names;
  for (uint32_t s = HKE_FAULTS_PARSE_OK; s <= HKE_FAULTS_PARSE_TOO_MANY_RULES; ++s) {
    names.push_back(hke_faults_parse_status_name(s));
  }
  for (size_t i = 0; i < names.size(); ++i) {
    CHECK(names[i] != "unknown");
    for (size_t j = i + 1; j < names.size(); ++j) CHECK(names[i] != names[j]);
  }
  CHECK(std::string(hke_faults_parse_status_name(1000)) == "unknown");
}
