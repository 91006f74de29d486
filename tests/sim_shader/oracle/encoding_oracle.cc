// The encoding oracle: Debian's llvm-mc-14 (--disassemble) against the
// shader interpreter, per gfx9 target LLVM 14 knows (gfx900, gfx906,
// gfx908, gfx90a). For every opcode of every encoding family, a canonical
// instruction word in three forms (ordinary register operands, fewer
// operands, the opcode alone) is given to both: an opcode llvm-mc cannot
// decode in any form must stop the interpreter's wave as an illegal
// instruction in every form, never run. Opcodes llvm-mc decodes but the
// interpreter refuses in every decodable form are reported (the
// unsupported set, see platform/sim/core/shader/README.md); at least 80%
// of the decodable opcodes execute.
//
// Host only (llvm-mc-14 runs next to the test); registered by
// tests/sim_shader/CMakeLists.txt with the tool's path as argument.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "platform/sim/core/shader/gfx.h"
#include "platform/sim/core/shader/sandbox.h"

namespace {

using kfdsim::shader::Sandbox;
using kfdsim::shader::WaveError;
using kfdsim::shader::WaveState;

struct Word {
  uint32_t w[2];
  unsigned n;  // dwords
  std::string family;
  uint32_t op;
};

// Each opcode of each family in three forms: ordinary register operands,
// the same with the later operand fields zero, and the opcode alone (LLVM's
// decoder requires unused operand fields to be zero, hardware ignores
// them; an opcode exists for llvm-mc when any form decodes).
constexpr unsigned kForms = 3;

std::vector<Word> Sweep() {
  std::vector<Word> out;
  auto one = [&](const char* f, uint32_t op, uint32_t base, const uint32_t (&forms)[kForms]) {
    for (uint32_t x : forms) out.push_back({{base | x, 0}, 1, f, op});
  };
  auto two = [&](const char* f, uint32_t op, uint32_t base, const uint32_t (&w1)[kForms],
                 const uint32_t (&x0)[kForms]) {
    for (unsigned i = 0; i < kForms; ++i) out.push_back({{base | x0[i], w1[i]}, 2, f, op});
  };
  for (uint32_t op = 0; op < 0x60; ++op) one("SOP2", op, 0x80000000u | op << 23, {4u << 16 | 2u << 8, 4u << 16, 0});
  for (uint32_t op = 0; op < 0x1D; ++op) one("SOPK", op, 0xB0000000u | op << 23, {4u << 16 | 0x10u, 4u << 16, 0});
  for (uint32_t op = 0; op < 256; ++op) one("SOP1", op, 0xBE800000u | op << 8, {4u << 16 | 2u, 4u << 16, 0});
  for (uint32_t op = 0; op < 128; ++op) one("SOPC", op, 0xBF000000u | op << 16, {2u << 8, 2u << 8, 0});
  for (uint32_t op = 0; op < 128; ++op) one("SOPP", op, 0xBF800000u | op << 16, {0, 1, 0});
  for (uint32_t op = 0; op < 256; ++op) one("VOP1", op, 0x7E000000u | op << 9, {2u << 17 | 0x101u, 2u << 17, 0});
  for (uint32_t op = 0; op < 62; ++op) one("VOP2", op, op << 25, {2u << 17 | 3u << 9 | 0x101u, 2u << 17 | 3u << 9 | 0x80u, 0});
  for (uint32_t op = 0; op < 256; ++op) one("VOPC", op, 0x7C000000u | op << 17, {3u << 9 | 0x101u, 3u << 9, 0});
  for (uint32_t op = 0; op < 1024; ++op) {
    two("VOP3", op, 0xD0000000u | op << 16, {0x101u | 0x103u << 9 | 0x104u << 18, 0x101u | 0x103u << 9, 0},
        {2u, 2u, 0});
  }
  for (uint32_t op = 0; op < 256; ++op) {
    two("SMEM", op, 0xC0000000u | op << 18, {0x10u, 0, 0}, {1u << 17 | 4u << 6 | 1u, 4u << 6, 0});
  }
  for (uint32_t seg = 0; seg < 3; ++seg) {
    const uint32_t off = seg == 0 ? 0u : 0x7Fu << 16;  // FLAT has no saddr; GLOBAL/SCRATCH: off
    for (uint32_t op = 0; op < 128; ++op) {
      two(seg == 0 ? "FLAT" : seg == 1 ? "SCRATCH" : "GLOBAL", op, 0xDC000000u | op << 18 | seg << 14,
          {4u << 24 | off | 6u << 8 | 2u, 4u << 24 | off | 2u, off}, {0, 0, 0});
    }
  }
  for (uint32_t op = 0; op < 256; ++op) {
    two("DS", op, 0xD8000000u | op << 17, {4u << 24 | 6u << 16 | 5u << 8 | 2u, 4u << 24 | 5u << 8 | 2u, 0},
        {0, 0, 0});
  }
  for (uint32_t op = 0; op < 128; ++op) {
    two("MUBUF", op, 0xE0000000u | op << 18, {0x80u << 24 | 1u << 16 | 4u << 8 | 2u, 0x80u << 24 | 1u << 16, 0},
        {0, 0, 0});
  }
  return out;
}

struct LlvmView {
  bool valid = false;
  std::string text;  // what llvm-mc printed for the word
};

// Runs llvm-mc over `words`, each on its own line followed by two marker
// lines; returns the tool's stdout and stderr.
void RunLlvm(const std::string& tool, const std::string& tag, const char* cpu,
             const std::vector<const Word*>& words, std::string* out_text, std::string* err_text) {
  const std::string base = std::string(HKE_BINARY_DIR) + "/tests/sim_shader/oracle_" + cpu + tag;
  {
    std::ofstream f(base + ".in");
    for (const Word* w : words) {
      for (unsigned i = 0; i < w->n; ++i) {
        for (unsigned b = 0; b < 4; ++b) {
          char hex[8];
          std::snprintf(hex, sizeof(hex), "0x%02x ", (w->w[i] >> (8 * b)) & 0xFF);
          f << hex;
        }
      }
      // Two markers (s_setprio 3, s_setprio 2): an instruction that takes a
      // literal swallows the first; the second always closes the word.
      f << "\n0x03 0x00 0x8f 0xbf\n0x02 0x00 0x8f 0xbf\n";
    }
  }
  const std::string cmd = tool + " -triple amdgcn -mcpu=" + cpu + " --disassemble < " + base + ".in > " +
                          base + ".out 2> " + base + ".err";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::ifstream o(base + ".out"), e(base + ".err");
  std::stringstream so, se;
  so << o.rdbuf();
  se << e.rdbuf();
  *out_text = so.str();
  *err_text = se.str();
}

// llvm-mc's view of every word: whether it decodes (a warning names the
// line of each word it cannot), then the text of the ones that do (a
// second run over those alone, so one text per closing marker).
std::vector<LlvmView> AskLlvm(const std::string& tool, const char* cpu, const std::vector<Word>& words) {
  std::vector<const Word*> all;
  for (const Word& w : words) all.push_back(&w);
  std::string out, err;
  RunLlvm(tool, "_all", cpu, all, &out, &err);
  std::vector<LlvmView> views(words.size());
  for (LlvmView& v : views) v.valid = true;
  std::istringstream es(err);
  std::string line;
  while (std::getline(es, line)) {
    // "<stdin>:LINE:COL: warning: invalid instruction encoding"
    if (line.rfind("<stdin>:", 0) != 0 || line.find("invalid instruction encoding") == std::string::npos) continue;
    const unsigned long ln = std::stoul(line.substr(8));
    if (ln % 3 == 1 && (ln - 1) / 3 < views.size()) views[(ln - 1) / 3].valid = false;
  }
  std::vector<const Word*> good;
  std::vector<size_t> index;
  for (size_t i = 0; i < words.size(); ++i) {
    if (views[i].valid) {
      good.push_back(&words[i]);
      index.push_back(i);
    }
  }
  RunLlvm(tool, "_valid", cpu, good, &out, &err);
  CHECK(err.find("invalid instruction encoding") == std::string::npos);
  std::istringstream os(out);
  size_t k = 0;
  while (std::getline(os, line) && k < index.size()) {
    if (line.find(".text") != std::string::npos || line.find("s_setprio 3") != std::string::npos) continue;
    if (line.find("s_setprio 2") != std::string::npos) {
      ++k;
      continue;
    }
    views[index[k]].text += line;
  }
  CHECK(k == index.size());
  return views;
}

std::string Hex(const Word& w) {
  char b[32];
  if (w.n == 1) {
    std::snprintf(b, sizeof(b), "%08x", w.w[0]);
  } else {
    std::snprintf(b, sizeof(b), "%08x %08x", w.w[0], w.w[1]);
  }
  return b;
}

}  // namespace

TEST_CASE("every opcode llvm-mc-14 cannot decode stops the interpreter as an illegal instruction (gfx900, gfx906, gfx908, gfx90a)") {
  const char* tool = std::getenv("HKE_LLVM_MC");
  REQUIRE_MESSAGE(tool != nullptr, "HKE_LLVM_MC names llvm-mc-14 (set by CTest)");
  const std::vector<Word> words = Sweep();
  const std::pair<const char*, uint32_t> targets[] = {
      {"gfx900", 90000}, {"gfx906", 90006}, {"gfx908", 90008}, {"gfx90a", 90010}};
  for (const auto& [cpu, version] : targets) {
    const std::string target = cpu;
    CAPTURE(target);
    const std::vector<LlvmView> llvm = AskLlvm(tool, cpu, words);
    Sandbox box(kfdsim::shader::TraitsFor(version), 65536);
    std::map<std::string, std::vector<std::string>> unsupported;  // family -> llvm's text
    size_t valid = 0, executed = 0, wrong = 0;
    std::ostringstream ran_invalid;
    for (size_t i = 0; i + kForms <= words.size(); i += kForms) {
      bool any_valid = false, valid_runs = false, any_runs = false;
      std::string text, ran;
      for (size_t f = i; f < i + kForms; ++f) {
        const Word& w = words[f];
        uint32_t code[4] = {w.w[0], w.w[1], 0xBF810000u, 0xBF810000u};  // then s_endpgm
        if (w.n == 1) code[1] = 0xBF810000u;
        box.Load(code, sizeof(code));
        // Keep memory operands inside the sandbox: s[0:1], s[2:3] and v[2:3]
        // point into its main region, s[4:7] is a raw V# over it.
        auto& wave = box.wave();
        for (unsigned sg = 0; sg < 4; sg += 2) {
          wave.sgpr[sg] = static_cast<uint32_t>(Sandbox::kBase + 4096);
          wave.sgpr[sg + 1] = static_cast<uint32_t>(Sandbox::kBase >> 32);
        }
        wave.sgpr[4] = static_cast<uint32_t>(Sandbox::kBase);
        wave.sgpr[5] = static_cast<uint32_t>(Sandbox::kBase >> 32);
        wave.sgpr[6] = 4096;
        for (unsigned l = 0; l < kfdsim::shader::kLanes; ++l) {
          wave.v[2][l] = static_cast<uint32_t>(Sandbox::kBase + 8192) + 16 * l;
          wave.v[3][l] = static_cast<uint32_t>(Sandbox::kBase >> 32);
        }
        box.Run(1);
        const bool illegal = wave.state == WaveState::kError && wave.error == WaveError::kIllegalInstruction;
        if (!illegal) {
          any_runs = true;
          ran = Hex(w);
        }
        if (llvm[f].valid) {
          if (!any_valid) text = llvm[f].text;
          any_valid = true;
          if (!illegal) valid_runs = true;
        }
      }
      const Word& w = words[i];
      if (any_valid) {
        ++valid;
        if (valid_runs) {
          ++executed;
        } else {
          unsupported[w.family].push_back(text + " [op " + std::to_string(w.op) + "]");
        }
      } else if (any_runs) {
        ++wrong;
        ran_invalid << "\n  " << w.family << " op " << w.op << ": " << ran;
      }
    }
    INFO("words llvm-mc cannot decode that the interpreter ran:" << ran_invalid.str());
    CHECK(wrong == 0);
    std::ostringstream report;
    report << cpu << ": " << executed << " of " << valid << " decodable canonical words execute; unsupported:";
    for (const auto& [family, texts] : unsupported) {
      report << "\n  " << family << " (" << texts.size() << "):";
      for (const std::string& t : texts) {
        const size_t a = t.find_first_not_of(" \t");
        if (a == std::string::npos) continue;
        const size_t b = t.find_first_of(" \t", a);
        report << " " << t.substr(a, b == std::string::npos ? std::string::npos : b - a)
               << t.substr(t.rfind(" ["));
      }
    }
    MESSAGE(report.str());
    // The instructions ROCR's blit kernels and the test kernels rely on are
    // all among the executed ones (the kernel tests run them); a floor keeps
    // this report honest about coverage.
    CHECK(executed * 10 >= valid * 8);
  }
}
