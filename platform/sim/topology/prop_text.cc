#include "platform/sim/topology/prop_text.h"

#include <cstring>

namespace kfdsim {
namespace topo {

std::string Dec(uint64_t v) {
  char buf[24];
  int n = 0;
  do {
    buf[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  std::string out;
  out.reserve(static_cast<size_t>(n));
  while (n > 0) out.push_back(buf[--n]);
  return out;
}

namespace {

bool IsKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Parses a whole decimal u64; false on empty, non-digit or overflow.
bool ParseU64(const char* s, size_t n, uint64_t* out) {
  if (n == 0) return false;
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    const uint64_t d = static_cast<uint64_t>(s[i] - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

bool IsNumberList(const char* s, size_t n) {
  if (n == 0) return false;
  bool digit_seen = false;
  for (size_t i = 0; i < n; ++i) {
    if (s[i] >= '0' && s[i] <= '9') {
      digit_seen = true;
    } else if (s[i] == ',' && digit_seen) {
      digit_seen = false;
    } else {
      return false;
    }
  }
  return digit_seen;
}

}  // namespace

bool PropText::Parse(const std::string& text, bool allow_list_values, std::string* why) {
  std::vector<Line> lines;
  size_t pos = 0;
  uint32_t line_no = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    const size_t next = end == std::string::npos ? text.size() : end + 1;
    if (end == std::string::npos) end = text.size();
    ++line_no;
    Line line;
    line.begin = pos;
    line.end = end;
    const char* s = text.data() + pos;
    const size_t n = end - pos;
    size_t blank = 0;
    while (blank < n && (s[blank] == ' ' || s[blank] == '\t')) ++blank;
    if (blank != n) {
      size_t k = 0;
      while (k < n && IsKeyChar(s[k])) ++k;
      size_t v = k;
      while (v < n && s[v] == ' ') ++v;
      if (k == 0 || v == k) {
        *why = "line " + Dec(line_no) + " is not `key value`";
        return false;
      }
      line.key_len = k;
      if (ParseU64(s + v, n - v, &line.value)) {
        line.numeric = true;
      } else if (!(allow_list_values && k == 11 && std::memcmp(s, "sibling_map", 11) == 0 &&
                   IsNumberList(s + v, n - v))) {
        *why = "line " + Dec(line_no) + " (" + std::string(s, k) +
               ") does not hold an unsigned 64-bit value";
        return false;
      }
    }
    lines.push_back(line);
    pos = next;
  }
  text_ = text;
  lines_ = std::move(lines);
  return true;
}

int PropText::Find(const char* key) const {
  const size_t len = std::strlen(key);
  for (size_t i = 0; i < lines_.size(); ++i) {
    const Line& l = lines_[i];
    if (l.key_len == len && text_.compare(l.begin, len, key) == 0) return static_cast<int>(i);
  }
  return -1;
}

bool PropText::Has(const char* key) const { return Find(key) >= 0; }

uint64_t PropText::Get(const char* key, uint64_t fallback) const {
  const int i = Find(key);
  if (i < 0 || !lines_[static_cast<size_t>(i)].numeric) return fallback;
  return lines_[static_cast<size_t>(i)].value;
}

void PropText::Splice(size_t line, size_t from, size_t to, const std::string& with) {
  text_.replace(from, to - from, with);
  const size_t removed = to - from;
  for (size_t i = line; i < lines_.size(); ++i) {
    Line& l = lines_[i];
    if (l.begin >= to) l.begin = l.begin - removed + with.size();
    if (l.end >= to) l.end = l.end - removed + with.size();
  }
}

bool PropText::Set(const char* key, uint64_t value, const char* after) {
  const std::string kv = std::string(key) + " " + Dec(value);
  const int i = Find(key);
  if (i >= 0) {
    const size_t at = static_cast<size_t>(i);
    if (lines_[at].numeric && lines_[at].value == value) return false;
    const size_t begin = lines_[at].begin, end = lines_[at].end;
    Splice(at + 1, begin, end, kv);
    lines_[at].end = begin + kv.size();
    lines_[at].value = value;
    lines_[at].numeric = true;
    return true;
  }
  // A last line without a newline gets one so the new line stays separate.
  if (!text_.empty() && text_.back() != '\n') text_.push_back('\n');
  const int a = after != nullptr ? Find(after) : -1;
  const size_t slot = a >= 0 ? static_cast<size_t>(a) + 1 : lines_.size();
  const size_t pos = slot < lines_.size() ? lines_[slot].begin : text_.size();
  Splice(slot, pos, pos, kv + "\n");
  Line line;
  line.begin = pos;
  line.end = pos + kv.size();
  line.key_len = std::strlen(key);
  line.value = value;
  line.numeric = true;
  lines_.insert(lines_.begin() + static_cast<std::ptrdiff_t>(slot), line);
  return true;
}

void PropText::AppendRaw(const std::string& text) {
  if (!text_.empty() && text_.back() != '\n') text_.push_back('\n');
  Line line;
  line.begin = text_.size();
  line.end = line.begin + text.size();
  const size_t sp = text.find(' ');
  line.key_len = sp == std::string::npos ? text.size() : sp;
  if (sp != std::string::npos) {
    uint64_t v = 0;
    if (ParseU64(text.data() + sp + 1, text.size() - sp - 1, &v)) {
      line.value = v;
      line.numeric = true;
    }
  }
  text_ += text;
  text_.push_back('\n');
  lines_.push_back(line);
}

}  // namespace topo
}  // namespace kfdsim
