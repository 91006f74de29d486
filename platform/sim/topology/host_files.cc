#include "platform/sim/topology/host_files.h"

#include "platform/sim/topology/prop_text.h"

namespace kfdsim {
namespace topo {
namespace {

const char* const kAmdFlags =
    "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr "
    "sse sse2 ht syscall nx mmxext fxsr_opt pdpe1gb rdtscp lm constant_tsc rep_good nopl";
const char* const kIntelFlags =
    "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts acpi "
    "mmx fxsr sse sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm constant_tsc arch_perfmon";

std::string Hex8(uint32_t v) {
  static const char kDigits[] = "0123456789abcdef";
  std::string s(8, '0');
  for (int i = 7; i >= 0; --i) {
    s[static_cast<size_t>(i)] = kDigits[v & 0xf];
    v >>= 4;
  }
  return s;
}

}  // namespace

std::string CpuList(uint32_t first, uint32_t count) {
  if (count <= 1) return Dec(first);
  return Dec(first) + "-" + Dec(first + count - 1);
}

std::string CpuMask(uint32_t first, uint32_t count, uint32_t cpu_count) {
  const uint32_t groups = cpu_count == 0 ? 1 : (cpu_count + 31) / 32;
  std::string out;
  for (uint32_t g = groups; g-- > 0;) {
    uint32_t word = 0;
    for (uint32_t bit = 0; bit < 32; ++bit) {
      const uint32_t cpu = g * 32 + bit;
      if (cpu >= first && cpu < first + count) word |= 1u << bit;
    }
    if (!out.empty()) out.push_back(',');
    out += Hex8(word);
  }
  return out;
}

void ChooseCpuModel(HostPlan* plan) {
  const bool intel = plan->vendor == "GenuineIntel";
  if (plan->vendor.empty()) plan->vendor = "AuthenticAMD";
  uint32_t per_node = 0;
  for (const CpuNodePlan& n : plan->nodes) per_node = n.count > per_node ? n.count : per_node;
  if (intel) {
    plan->cpu_family = 6;
    plan->cpu_model = 143;  // Sapphire Rapids
    plan->stepping = 8;
    if (plan->model_name.empty()) {
      plan->model_name =
          per_node >= 112 ? "Intel(R) Xeon(R) Platinum 8480+" : "Intel(R) Xeon(R) Gold 6430";
    }
    plan->caches = {{1, "Data", 48, 12, false},
                    {1, "Instruction", 32, 8, false},
                    {2, "Unified", 2048, 16, false},
                    {3, "Unified", 107520, 15, true}};
    plan->numa_distance_remote = 21;
    return;
  }
  const bool zen4 = per_node == 96 || per_node == 192;
  plan->cpu_family = 25;
  plan->cpu_model = zen4 ? 17 : 1;
  plan->stepping = 1;
  if (plan->model_name.empty()) {
    if (zen4) {
      plan->model_name = "AMD EPYC 9654 96-Core Processor";
    } else if (per_node >= 64) {
      plan->model_name = "AMD EPYC 7763 64-Core Processor";
    } else if (per_node >= 32) {
      plan->model_name = "AMD EPYC 7543 32-Core Processor";
    } else if (per_node >= 24) {
      plan->model_name = "AMD Ryzen 9 5900X 12-Core Processor";
    } else {
      plan->model_name = "AMD Ryzen 7 5800X 8-Core Processor";
    }
  }
  plan->caches = {{1, "Data", 32, 8, false},
                  {1, "Instruction", 32, 8, false},
                  {2, "Unified", zen4 ? 1024u : 512u, 8, false},
                  {3, "Unified", 32768, 16, true}};
  plan->numa_distance_remote = 32;
}

namespace {

struct ParamField {
  const char* name;
  int AmdgpuParams::*member;
};
constexpr ParamField kParamFields[] = {
    {"cwsr_enable", &AmdgpuParams::cwsr_enable}, {"emu_mode", &AmdgpuParams::emu_mode},
    {"mes", &AmdgpuParams::mes},                 {"noretry", &AmdgpuParams::noretry},
    {"sched_policy", &AmdgpuParams::sched_policy},
};

}  // namespace

bool ApplyAmdgpuParams(const std::string& spec, AmdgpuParams* params, std::string* why) {
  AmdgpuParams out = *params;
  size_t at = 0;
  while (at < spec.size()) {
    size_t end = spec.find(',', at);
    if (end == std::string::npos) end = spec.size();
    const std::string item = spec.substr(at, end - at);
    at = end + 1;
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    const std::string name = item.substr(0, eq);
    const ParamField* field = nullptr;
    for (const ParamField& f : kParamFields) field = name == f.name ? &f : field;
    if (field == nullptr || eq == std::string::npos) {
      *why = "'" + item + "' is not name=value with a served parameter (cwsr_enable, emu_mode, "
             "mes, noretry, sched_policy)";
      return false;
    }
    const std::string text = item.substr(eq + 1);
    size_t i = text.size() > 1 && text[0] == '-' ? 1 : 0;
    long long v = 0;
    bool ok = i < text.size() && text.size() - i <= 9;
    for (; ok && i < text.size(); ++i) {
      ok = text[i] >= '0' && text[i] <= '9';
      v = v * 10 + (text[i] - '0');
    }
    if (!ok) {
      *why = "'" + item + "': the value is not a decimal int";
      return false;
    }
    out.*field->member = static_cast<int>(text[0] == '-' ? -v : v);
  }
  *params = out;
  return true;
}

void ServeHostFiles(const HostPlan& plan, MapFileProvider* files) {
  const bool intel = plan.vendor == "GenuineIntel";
  const uint32_t n = plan.cpu_count;

  // /proc/cpuinfo: one block per logical CPU, each line well under the
  // thunk's 256-byte fgets buffer.
  std::string cpuinfo;
  cpuinfo.reserve(static_cast<size_t>(n) * 640);
  for (const CpuNodePlan& node : plan.nodes) {
    for (uint32_t j = 0; j < node.count; ++j) {
      const uint32_t cpu = node.first_cpu + j;
      const std::string apic = Dec(node.apic_base + j);
      cpuinfo += "processor\t: " + Dec(cpu) + "\n";
      cpuinfo += "vendor_id\t: " + plan.vendor + "\n";
      cpuinfo += "cpu family\t: " + Dec(plan.cpu_family) + "\n";
      cpuinfo += "model\t\t: " + Dec(plan.cpu_model) + "\n";
      cpuinfo += "model name\t: " + plan.model_name + "\n";
      cpuinfo += "stepping\t: " + Dec(plan.stepping) + "\n";
      cpuinfo += "cpu MHz\t\t: " + Dec(node.mhz) + ".000\n";
      cpuinfo +=
          "cache size\t: " + Dec(plan.caches.size() > 2 ? plan.caches[2].size_kb : 512) + " KB\n";
      cpuinfo += "physical id\t: " + Dec(node.socket) + "\n";
      cpuinfo += "siblings\t: " + Dec(node.count) + "\n";
      cpuinfo += "core id\t\t: " + Dec(j) + "\n";
      cpuinfo += "cpu cores\t: " + Dec(node.count) + "\n";
      cpuinfo += "apicid\t\t: " + apic + "\n";
      cpuinfo += "initial apicid\t: " + apic + "\n";
      cpuinfo += "fpu\t\t: yes\n";
      cpuinfo += "fpu_exception\t: yes\n";
      cpuinfo += "cpuid level\t: " + std::string(intel ? "32" : "16") + "\n";
      cpuinfo += "wp\t\t: yes\n";
      cpuinfo += "flags\t\t: " + std::string(intel ? kIntelFlags : kAmdFlags) + "\n";
      cpuinfo += "bogomips\t: " + Dec(static_cast<uint64_t>(node.mhz) * 2) + ".00\n";
      cpuinfo += "clflush size\t: 64\n";
      cpuinfo += "cache_alignment\t: 64\n";
      cpuinfo += "address sizes\t: 48 bits physical, 48 bits virtual\n";
      cpuinfo += "power management:\n\n";
    }
  }
  files->AddFile("/proc/cpuinfo", std::move(cpuinfo));

  // /sys/devices/system/cpu: the CPU directories own the cache trees; each
  // node<N>/cpu<K> is an alias of cpu<K>, as the kernel's symlinks are.
  const std::string all = CpuList(0, n) + "\n";
  files->AddFile("/sys/devices/system/cpu/possible", all);
  files->AddFile("/sys/devices/system/cpu/present", all);
  files->AddFile("/sys/devices/system/cpu/online", all);
  files->AddFile("/sys/devices/system/cpu/offline", "\n");
  files->AddFile("/sys/devices/system/cpu/kernel_max", "8191\n");
  std::string node_list;
  for (const CpuNodePlan& node : plan.nodes) {
    const std::string node_dir = "/sys/devices/system/node/node" + Dec(node.numa_node);
    for (uint32_t j = 0; j < node.count; ++j) {
      const uint32_t cpu = node.first_cpu + j;
      const std::string cpu_dir = "/sys/devices/system/cpu/cpu" + Dec(cpu);
      for (size_t i = 0; i < plan.caches.size(); ++i) {
        const CpuCacheLevel& c = plan.caches[i];
        const std::string dir = cpu_dir + "/cache/index" + Dec(i);
        const uint32_t first = c.node_shared ? node.first_cpu : cpu;
        const uint32_t count = c.node_shared ? node.count : 1;
        files->AddFile(dir + "/level", Dec(c.level) + "\n");
        files->AddFile(dir + "/type", std::string(c.type) + "\n");
        files->AddFile(dir + "/size", Dec(c.size_kb) + "K\n");
        files->AddFile(dir + "/coherency_line_size", "64\n");
        files->AddFile(dir + "/ways_of_associativity", Dec(c.ways) + "\n");
        files->AddFile(dir + "/physical_line_partition", "1\n");
        files->AddFile(dir + "/shared_cpu_list", CpuList(first, count) + "\n");
        files->AddFile(dir + "/shared_cpu_map", CpuMask(first, count, n) + "\n");
      }
      files->AddAlias(node_dir + "/cpu" + Dec(cpu), cpu_dir);
    }
    files->AddFile(node_dir + "/cpulist", CpuList(node.first_cpu, node.count) + "\n");
    files->AddFile(node_dir + "/cpumap", CpuMask(node.first_cpu, node.count, n) + "\n");
    std::string distance;
    for (const CpuNodePlan& other : plan.nodes) {
      if (!distance.empty()) distance.push_back(' ');
      distance += Dec(other.numa_node == node.numa_node ? 10 : plan.numa_distance_remote);
    }
    files->AddFile(node_dir + "/distance", distance + "\n");
    const uint64_t total_kb = node.mem_bytes / 1024;
    const uint64_t used_kb = total_kb / 32;
    const std::string prefix = "Node " + Dec(node.numa_node) + " ";
    files->AddFile(node_dir + "/meminfo",
                   prefix + "MemTotal:       " + Dec(total_kb) + " kB\n" + prefix +
                       "MemFree:        " + Dec(total_kb - used_kb) + " kB\n" + prefix +
                       "MemUsed:        " + Dec(used_kb) + " kB\n" + prefix +
                       "HugePages_Total:     0\n" + prefix + "HugePages_Free:      0\n");
    if (!node_list.empty()) node_list.push_back(',');
    node_list += Dec(node.numa_node);
  }
  node_list.push_back('\n');
  for (const char* f : {"possible", "online", "has_cpu", "has_memory", "has_normal_memory"}) {
    files->AddFile(std::string("/sys/devices/system/node/") + f, node_list);
  }

  // What lsmod (rocminfo's `lsmod | grep amdgpu`) reads.
  files->AddFile("/proc/modules", "amdgpu 9764864 0 - Live 0x0000000000000000\n");
  // The module's parameters; the ones not at their default were given on
  // the kernel command line (amdgpu.<name>=<value>).
  std::string cmdline = "BOOT_IMAGE=/boot/vmlinuz-kfdsim root=/dev/vda1 ro quiet";
  const AmdgpuParams defaults;
  for (const ParamField& f : kParamFields) {
    const int v = plan.amdgpu.*f.member;
    files->AddFile(std::string("/sys/module/amdgpu/parameters/") + f.name,
                   std::to_string(v) + "\n");
    if (v != defaults.*f.member) cmdline += std::string(" amdgpu.") + f.name + "=" + std::to_string(v);
  }
  files->AddFile("/proc/cmdline", cmdline + "\n");
  files->AddFile("/sys/module/amdgpu/initstate", "live\n");
  files->AddFile("/sys/module/amdgpu/refcnt", "0\n");
  files->AddDir("/sys/module/amdgpu/holders");

  files->AddDevice("/dev/kfd");
  files->AddDir("/dev/dri");
  for (uint32_t minor : plan.render_minors) files->AddDevice("/dev/dri/renderD" + Dec(minor));
}

}  // namespace topo
}  // namespace kfdsim
