// Checks the request numbers and structure sizes against the x86_64 values
// recorded in shared/reference/upstream-libhsakmt.md ("Full command values"
// and "Other nested ABI structs"), which cover the requests newer than the
// installed <linux/kfd_ioctl.h> (KFD 1.12+ and the DKMS range 0x80..0x85).
// The file is parsed at run time; a missing file or section fails the test.
//
// Architecture independence: every KFD structure holds only fixed-width
// members with 64-bit members at 8-byte offsets, so on every supported
// target (x86_64, aarch64, armhf EABI, riscv64: all align uint64_t to 8)
// sizes and request numbers equal the x86_64 ones. On a target where
// uint64_t is only 4-aligned (i386; not supported) CRIU_OP would shrink to
// 52 bytes, so only there is it excluded.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "lib/kfd/abi.h"
#include "lib/kfd/ioctl_table.h"

namespace k = hke::kfd;

namespace {

const char* const kReferencePath = HKE_SHARED_DIR "/reference/upstream-libhsakmt.md";

bool ReadFile(const char* path, std::string* out) {
  std::ifstream in(path);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

// The paragraph that starts with `marker`, up to the next blank line.
std::string Paragraph(const std::string& text, const std::string& marker) {
  const size_t start = text.find(marker);
  if (start == std::string::npos) return {};
  size_t end = text.find("\n\n", start);
  if (end == std::string::npos) end = text.size();
  std::string p = text.substr(start + marker.size(), end - start - marker.size());
  for (char& c : p) {
    if (c == '\n') c = ' ';
  }
  return p;
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  size_t e = s.find_last_not_of(" \t.;");
  if (b == std::string::npos || e == std::string::npos || e < b) return {};
  return s.substr(b, e - b + 1);
}

// "NAME 0x1234, OTHER NAME 0x..." -> {NAME: 0x1234, ...}
std::map<std::string, uint32_t> ParseCommandValues(const std::string& para) {
  std::map<std::string, uint32_t> out;
  std::stringstream ss(para);
  std::string item;
  while (std::getline(ss, item, ',')) {
    item = Trim(item);
    const size_t sp = item.rfind(' ');
    if (sp == std::string::npos) continue;
    const std::string value = item.substr(sp + 1);
    if (value.rfind("0x", 0) != 0) continue;
    out[Trim(item.substr(0, sp))] = static_cast<uint32_t>(std::strtoul(value.c_str(), nullptr, 16));
  }
  return out;
}

// "name 16 (...); name 40; ..." -> {name: 16, ...}
std::map<std::string, size_t> ParseStructSizes(const std::string& para) {
  std::map<std::string, size_t> out;
  std::stringstream ss(para);
  std::string item;
  while (std::getline(ss, item, ';')) {
    item = Trim(item);
    const size_t paren = item.find('(');
    if (paren != std::string::npos) item = Trim(item.substr(0, paren));
    const size_t sp = item.rfind(' ');
    if (sp == std::string::npos) continue;
    out[Trim(item.substr(0, sp))] = std::strtoul(item.c_str() + sp + 1, nullptr, 10);
  }
  return out;
}

// Reference spelling -> our table's request name.
std::string TableName(const std::string& ref) {
  static const std::map<std::string, std::string> aliases = {
      {"MAP", "MAP_MEMORY_TO_GPU"},
      {"UNMAP", "UNMAP_MEMORY_FROM_GPU"},
      {"SVM (base)", "SVM"},
      {"IPC_IMPORT", "IPC_IMPORT_HANDLE"},
      {"IPC_EXPORT", "IPC_EXPORT_HANDLE"},
  };
  auto it = aliases.find(ref);
  return "AMDKFD_IOC_" + (it != aliases.end() ? it->second : ref);
}

const k::IoctlInfo* ByName(const std::string& name) {
  size_t n = 0;
  const k::IoctlInfo* table = k::IoctlTable(&n);
  for (size_t i = 0; i < n; ++i) {
    if (name == table[i].name) return &table[i];
  }
  return nullptr;
}

bool ArchIndependent(const std::string& ref_name) {
  return alignof(uint64_t) == 8 || ref_name != "CRIU_OP";
}

}  // namespace

TEST_CASE("every request the reference lists has our x86_64 number and size") {
  std::string text;
  REQUIRE_MESSAGE(ReadFile(kReferencePath, &text), "missing reference file ", kReferencePath);
  const auto values = ParseCommandValues(Paragraph(text, "Full command values (x86-64):"));
  // 43 requests: 0x01..0x27 without the four deprecated debugger ones, and
  // five DKMS ones.
  REQUIRE(values.size() >= 40);
  for (const auto& entry : values) {
    const std::string& ref = entry.first;
    const uint32_t value = entry.second;
    INFO("reference name ", ref);
    const k::IoctlInfo* info = ByName(TableName(ref));
    REQUIRE(info != nullptr);
    if (!ArchIndependent(ref)) continue;
    CHECK(info->request == value);
    CHECK(info->size == k::IocSize(value));
    CHECK(info->nr == k::IocNr(value));
    CHECK(info->dir == k::IocDir(value));
    CHECK(k::IocType(info->request) == 'K');
    CHECK(k::FindIoctl(value) == info);
  }
}

TEST_CASE("the requests newer than KFD 1.11 and the DKMS range match the reference") {
  std::string text;
  REQUIRE_MESSAGE(ReadFile(kReferencePath, &text), "missing reference file ", kReferencePath);
  const auto v = ParseCommandValues(Paragraph(text, "Full command values (x86-64):"));
  const struct {
    const char* ref;
    uint32_t ours;
  } newer[] = {
      {"EXPORT_DMABUF", k::kIocExportDmabuf},
      {"RUNTIME_ENABLE", k::kIocRuntimeEnable},
      {"DBG_TRAP", k::kIocDbgTrap},
      {"CREATE_PROCESS", k::kIocCreateProcess},
      {"IPC_IMPORT", k::kIocIpcImportHandle},
      {"IPC_EXPORT", k::kIocIpcExportHandle},
      {"CROSS_MEMORY_COPY", k::kIocCrossMemoryCopy},
      {"RLC_SPM", k::kIocRlcSpm},
      {"PC_SAMPLE", k::kIocPcSample},
  };
  for (const auto& n : newer) {
    INFO(n.ref);
    auto it = v.find(n.ref);
    REQUIRE(it != v.end());
    CHECK(n.ours == it->second);
  }
  CHECK(k::IocSize(k::kIocCreateProcess) == 0);
  CHECK(k::IocDir(k::kIocCreateProcess) == k::kIocNone);
}

TEST_CASE("nested ABI structures have the sizes the reference records") {
  std::string text;
  REQUIRE_MESSAGE(ReadFile(kReferencePath, &text), "missing reference file ", kReferencePath);
  const auto sizes = ParseStructSizes(Paragraph(text, "Other nested ABI structs:"));
  const std::map<std::string, size_t> ours = {
      {"kfd_runtime_info", sizeof(k::RuntimeInfo)},
      {"kfd_context_save_area_header", sizeof(k::ContextSaveAreaHeader)},
      {"kfd_queue_snapshot_entry", sizeof(k::QueueSnapshotEntry)},
      {"kfd_dbg_device_info_entry", sizeof(k::DbgDeviceInfoEntry)},
      {"kfd_criu_bo_bucket", sizeof(k::CriuBoBucket)},
      {"kfd_criu_device_bucket", sizeof(k::CriuDeviceBucket)},
      {"kfd_pc_sample_info", sizeof(k::PcSampleInfo)},
      {"kfd_spm_buffer_header", sizeof(k::SpmBufferHeader)},
  };
  REQUIRE(sizes.size() == ours.size());
  for (const auto& entry : sizes) {
    const std::string& name = entry.first;
    const size_t size = entry.second;
    INFO(name);
    auto it = ours.find(name);
    REQUIRE(it != ours.end());
    CHECK(it->second == size);
  }
}

TEST_CASE("SVM requests of any attribute count resolve to AMDKFD_IOC_SVM") {
  const uint32_t with_two = k::IocWithSize(k::kIocSvm, 24 + 2 * 8);
  const uint32_t with_max = k::IocWithSize(k::kIocSvm, 24 + 2044 * 8);
  REQUIRE(k::RequestName(with_two) != nullptr);
  CHECK(std::string(k::RequestName(with_two)) == "AMDKFD_IOC_SVM");
  CHECK(std::string(k::RequestName(with_max)) == "AMDKFD_IOC_SVM");
  // Shorter than the fixed head: not an SVM request.
  CHECK(k::FindIoctl(k::IocWithSize(k::kIocSvm, 16)) == nullptr);
}
