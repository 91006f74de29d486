// The gfx9-family boards every kernel test runs on: the built-in
// apu-embedded (gfx90c) and datacenter-4gpu (gfx90a), and the captured
// trees with gfx906 (mixed-gfx906-gfx1102-gfx1032) and gfx942
// (mi300x-8gpu-cpx) nodes.
#ifndef HKE_TESTS_SIM_SHADER_BOARDS_H_
#define HKE_TESTS_SIM_SHADER_BOARDS_H_

#include <vector>

namespace shadertest {

struct BoardRef {
  const char* name;
  const char* tree;   // fixture tree, or null
  const char* board;  // built-in board, or null
};

inline std::vector<BoardRef> Gfx9Boards() {
  return {
      {"apu-embedded (gfx90c)", nullptr, "apu-embedded"},
      {"datacenter-4gpu (gfx90a)", nullptr, "datacenter-4gpu"},
      {"mixed-gfx906-gfx1102-gfx1032 (gfx906)", "mixed-gfx906-gfx1102-gfx1032", nullptr},
      {"mi300x-8gpu-cpx (gfx942)", "mi300x-8gpu-cpx", nullptr},
  };
}

}  // namespace shadertest

#endif  // HKE_TESTS_SIM_SHADER_BOARDS_H_
