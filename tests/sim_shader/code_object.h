// The layout of an AMDGPU code object as clang-14/ld.lld-14 link it (ELF64,
// ET_DYN): its PT_LOAD segments and the offsets of symbols, enough to copy
// the image into GPU memory and find a kernel descriptor ("<name>.kd").
// Header-only, no test framework: the shader tests' rig and the shader
// benchmark (tools/bench/shader_bench.cc) load the embedded kernels with it.
// Every read is bounds-checked; malformed input gives false / 0.
#ifndef HKE_TESTS_SIM_SHADER_CODE_OBJECT_H_
#define HKE_TESTS_SIM_SHADER_CODE_OBJECT_H_

#include <cstdint>
#include <cstring>
#include <string>

namespace shadertest {

class CodeObjectImage {
 public:
  CodeObjectImage(const uint8_t* elf, uint64_t size) : elf_(elf), size_(size) {}

  // Bytes the image spans from address 0 (0 when malformed).
  uint64_t Span() const {
    uint64_t span = 0;
    for (uint16_t i = 0; i < Get<uint16_t>(56); ++i) {
      const uint64_t ph = Get<uint64_t>(32) + 56ull * i;
      if (Get<uint32_t>(ph) != 1) continue;  // PT_LOAD
      const uint64_t end = Get<uint64_t>(ph + 16) + Get<uint64_t>(ph + 40);
      if (end > span) span = end;
    }
    return Valid() ? span : 0;
  }
  // Copies the PT_LOAD segments to `image` (Span() bytes, zeroed).
  bool CopyTo(uint8_t* image) const {
    if (!Valid()) return false;
    for (uint16_t i = 0; i < Get<uint16_t>(56); ++i) {
      const uint64_t ph = Get<uint64_t>(32) + 56ull * i;
      if (Get<uint32_t>(ph) != 1) continue;
      const uint64_t off = Get<uint64_t>(ph + 8), vaddr = Get<uint64_t>(ph + 16);
      const uint64_t filesz = Get<uint64_t>(ph + 32);
      if (off > size_ || filesz > size_ - off) return false;
      std::memcpy(image + vaddr, elf_ + off, filesz);
    }
    return true;
  }
  // The address of symbol `name` in the image; false when absent.
  bool Symbol(const std::string& name, uint64_t* value) const {
    if (!Valid()) return false;
    const uint64_t shoff = Get<uint64_t>(40);
    for (uint16_t i = 0; i < Get<uint16_t>(60); ++i) {
      const uint64_t sh = shoff + 64ull * i;
      if (Get<uint32_t>(sh + 4) != 2) continue;  // SHT_SYMTAB
      const uint64_t strtab = Get<uint64_t>(shoff + 64ull * Get<uint32_t>(sh + 40) + 24);
      const uint64_t symoff = Get<uint64_t>(sh + 24), symsize = Get<uint64_t>(sh + 32);
      for (uint64_t s = 0; s + 24 <= symsize; s += 24) {
        const uint64_t at = strtab + Get<uint32_t>(symoff + s);
        if (at >= size_) continue;
        const char* str = reinterpret_cast<const char*>(elf_ + at);
        if (strnlen(str, size_ - at) == name.size() && name == str) {
          *value = Get<uint64_t>(symoff + s + 8);
          return true;
        }
      }
    }
    return false;
  }

 private:
  bool Valid() const { return size_ > 64 && std::memcmp(elf_, "\x7f" "ELF", 4) == 0; }
  template <typename T>
  T Get(uint64_t off) const {
    T v{};
    if (off <= size_ && sizeof(T) <= size_ - off) std::memcpy(&v, elf_ + off, sizeof(v));
    return v;
  }

  const uint8_t* elf_;
  uint64_t size_;
};

}  // namespace shadertest

#endif  // HKE_TESTS_SIM_SHADER_CODE_OBJECT_H_
