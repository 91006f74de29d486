#include "platform/sim/topology/report.h"

#include <cstdio>

#include "platform/sim/topology/prop_text.h"

namespace kfdsim {
namespace {

std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string GfxName(uint32_t v) {
  // gfx_target_version MMmmss -> "gfx" major, minor and stepping in hex digits.
  char buf[32];
  std::snprintf(buf, sizeof(buf), "gfx%u%x%x", v / 10000, (v / 100) % 100, v % 100);
  return buf;
}

}  // namespace

std::string DescribeBoard(const Board& board) {
  using topo::Dec;
  const BoardDesc& d = board.desc;
  std::string s;
  s += "board " + d.name + ": KFD " + Dec(d.kfd_major) + "." + Dec(d.kfd_minor) + ", " +
       Dec(d.node_count) + " nodes, " + Dec(d.gpus.size()) + " GPUs, " + Dec(d.cpu_count) +
       " CPUs\n";
  size_t g = 0;
  for (uint32_t n = 0; n < d.node_count; ++n) {
    if (g < d.gpus.size() && d.gpus[g].node_id == n) {
      const GpuDesc& gpu = d.gpus[g++];
      s += "  node " + Dec(n) + ": GPU gpu_id " + Dec(gpu.gpu_id) + " renderD" +
           Dec(gpu.render_minor) + " " + GfxName(gpu.gfx_target_version) + " (" +
           Dec(gpu.gfx_target_version) + ") device " + Hex(gpu.device_id) + " rev " +
           Hex(gpu.pci_rev) + " family " + Dec(gpu.drm_family) + (gpu.is_apu ? " APU" : " dGPU") +
           ", " + Dec(gpu.cu_count) + " CUs, VRAM " + Dec(gpu.vram_bytes >> 20) + " MiB\n";
    } else {
      s += "  node " + Dec(n) + ": CPU\n";
    }
  }
  const AmdgpuParams& p = d.amdgpu_params;
  s += "amdgpu parameters: emu_mode " + std::to_string(p.emu_mode) + ", noretry " +
       std::to_string(p.noretry) + ", sched_policy " + std::to_string(p.sched_policy) + ", mes " +
       std::to_string(p.mes) + ", cwsr_enable " + std::to_string(p.cwsr_enable) + "\n";
  for (const GpuDesc& gpu : d.gpus) {
    s += "  node " + Dec(gpu.node_id) + ": retry faults " + (gpu.noretry ? "off" : "on") +
         " (noretry " + (p.noretry == -1 ? "-1: the " + GfxName(gpu.gfx_target_version) + " default"
                                          : std::to_string(p.noretry)) +
         ")\n";
  }
  s += "fill-ins (" + Dec(board.fill_report.size()) + "):\n";
  for (const std::string& line : board.fill_report) s += "  " + line + "\n";
  return s;
}

}  // namespace kfdsim
