// A sysfs `key value` properties file held as text lines, so a captured file
// is served byte for byte except for the keys the loader corrects.
//
// Ownership: a value type; not shared between threads while it is mutated.
#ifndef HKE_PLATFORM_SIM_TOPOLOGY_PROP_TEXT_H_
#define HKE_PLATFORM_SIM_TOPOLOGY_PROP_TEXT_H_

#include <cstdint>
#include <string>
#include <vector>

namespace kfdsim {
namespace topo {

class PropText {
 public:
  // Accepts lines of `<key> <decimal u64>`; blank lines are kept as they are.
  // With `allow_list_values`, a `sibling_map` line may hold a comma-separated
  // list. Returns false with *why describing the first bad line.
  bool Parse(const std::string& text, bool allow_list_values, std::string* why);

  bool Has(const char* key) const;
  // The value of `key`, or `fallback` when the key is absent.
  uint64_t Get(const char* key, uint64_t fallback = 0) const;
  // Replaces the value of an existing key in place (same line position, same
  // line ending). An absent key is inserted after `after` when that key
  // exists, else appended. Returns true when the served text changed.
  bool Set(const char* key, uint64_t value, const char* after = nullptr);
  // Appends a line verbatim (used to author files; `line` has no newline).
  void AppendRaw(const std::string& line);

  const std::string& Render() const { return text_; }
  bool empty() const { return lines_.empty(); }

 private:
  // A line of text_: [begin, end) without its newline; key_len 0 for blank lines.
  struct Line {
    size_t begin = 0;
    size_t end = 0;
    size_t key_len = 0;
    uint64_t value = 0;
    bool numeric = false;
  };
  int Find(const char* key) const;
  // Replaces text_[from, to) with `with`, shifting the lines after it.
  void Splice(size_t line, size_t from, size_t to, const std::string& with);
  std::string text_;  // the served bytes
  std::vector<Line> lines_;
};

// Decimal text of `v` (no locale, no heap beyond the returned string).
std::string Dec(uint64_t v);

}  // namespace topo
}  // namespace kfdsim

#endif  // HKE_PLATFORM_SIM_TOPOLOGY_PROP_TEXT_H_
