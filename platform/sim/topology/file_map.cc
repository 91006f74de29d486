#include "platform/sim/topology/file_map.h"

#include <errno.h>

#include <algorithm>

namespace kfdsim {
namespace topo {

bool NaturalLess(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const bool da = a[i] >= '0' && a[i] <= '9';
    const bool db = b[j] >= '0' && b[j] <= '9';
    if (da && db) {
      size_t ie = i, je = j;
      while (ie < a.size() && a[ie] >= '0' && a[ie] <= '9') ++ie;
      while (je < b.size() && b[je] >= '0' && b[je] <= '9') ++je;
      size_t is = i, js = j;
      while (is + 1 < ie && a[is] == '0') ++is;
      while (js + 1 < je && b[js] == '0') ++js;
      if (ie - is != je - js) return ie - is < je - js;
      const int c = a.compare(is, ie - is, b, js, je - js);
      if (c != 0) return c < 0;
      i = ie;
      j = je;
      continue;
    }
    if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

MapFileProvider::Entry* MapFileProvider::Ensure(const std::string& path, FileKind kind) {
  if (entries_.empty()) entries_.reserve(1 << 15);
  auto ins = entries_.try_emplace(path);
  Entry* e = &ins.first->second;  // element addresses survive rehashing
  if (!ins.second) {
    if (e->kind != kind) {
      if (kind == FileKind::kDir) dirs_.push_back(e);
      e->kind = kind;
      ListInParent(path, kind, true);
    }
    return e;
  }
  e->kind = kind;
  if (kind == FileKind::kDir) dirs_.push_back(e);
  ListInParent(path, kind, !aliases_.empty() && aliases_.count(path) != 0);
  return e;
}

void MapFileProvider::ListInParent(const std::string& path, FileKind kind, bool scan) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos || path.size() <= 1) return;
  Entry* parent = Ensure(slash == 0 ? std::string("/") : path.substr(0, slash), FileKind::kDir);
  std::string name = path.substr(slash + 1);
  if (scan) {
    for (DirEntry& d : parent->children) {
      if (d.name == name) {
        d.kind = kind;
        return;
      }
    }
  }
  parent->children.push_back(DirEntry{std::move(name), kind});
}

void MapFileProvider::AddFile(const std::string& path, std::string content) {
  Ensure(path, FileKind::kFile)->content = std::move(content);
}

void MapFileProvider::AddDevice(const std::string& path) { Ensure(path, FileKind::kDevice); }

void MapFileProvider::AddDir(const std::string& path) { Ensure(path, FileKind::kDir); }

void MapFileProvider::AddAlias(const std::string& from, const std::string& to) {
  aliases_[from] = to;
  if (entries_.find(from) == entries_.end()) ListInParent(from, FileKind::kDir, true);
}

void MapFileProvider::AddRoot(const std::string& root) { roots_.push_back(root); }

void MapFileProvider::Finish() {
  for (Entry* dir : dirs_) {
    std::sort(dir->children.begin(), dir->children.end(),
              [](const DirEntry& x, const DirEntry& y) { return NaturalLess(x.name, y.name); });
  }
}

const MapFileProvider::Entry* MapFileProvider::Resolve(const std::string& path, int* err) const {
  auto it = entries_.find(path);
  if (it != entries_.end()) return &it->second;
  *err = ENOENT;
  if (path.empty() || path[0] != '/') return nullptr;
  // An aliased prefix: rewrite it and look the result up once.
  if (!aliases_.empty()) {
    for (size_t cut = path.size(); cut > 1; cut = path.find_last_of('/', cut - 1)) {
      if (cut != path.size() && path[cut] != '/') continue;
      auto a = aliases_.find(path.substr(0, cut));
      if (a != aliases_.end()) {
        auto t = entries_.find(a->second + path.substr(cut));
        if (t != entries_.end()) return &t->second;
        break;
      }
      if (cut == 0) break;
    }
  }
  // A regular file used as a directory is ENOTDIR, as the kernel says.
  for (size_t cut = path.find_last_of('/'); cut != std::string::npos && cut > 0;
       cut = path.find_last_of('/', cut - 1)) {
    auto p = entries_.find(path.substr(0, cut));
    if (p != entries_.end()) {
      if (p->second.kind != FileKind::kDir) *err = ENOTDIR;
      break;
    }
  }
  return nullptr;
}

int MapFileProvider::Kind(const std::string& path, FileKind* out) const {
  int err = 0;
  const Entry* e = Resolve(path, &err);
  if (e == nullptr) return err;
  *out = e->kind;
  return 0;
}

int MapFileProvider::Read(const std::string& path, std::string* out) const {
  int err = 0;
  const Entry* e = Resolve(path, &err);
  if (e == nullptr) return err;
  if (e->kind == FileKind::kDir) return EISDIR;
  if (e->kind != FileKind::kFile) return EINVAL;  // device nodes are opened, not read
  *out = e->content;
  return 0;
}

int MapFileProvider::List(const std::string& path, std::vector<DirEntry>* out) const {
  int err = 0;
  const Entry* e = Resolve(path, &err);
  if (e == nullptr) return err;
  if (e->kind != FileKind::kDir) return ENOTDIR;
  *out = e->children;
  return 0;
}

bool MapFileProvider::Owns(const std::string& path) const {
  for (const std::string& r : roots_) {
    if (path.size() >= r.size() && path.compare(0, r.size(), r) == 0 &&
        (path.size() == r.size() || path[r.size()] == '/')) {
      return true;
    }
  }
  return false;
}

std::vector<std::string> MapFileProvider::AllPaths() const {
  std::vector<std::string> out;
  for (const auto& kv : entries_) {
    if (kv.second.kind == FileKind::kFile || kv.second.kind == FileKind::kDevice) {
      out.push_back(kv.first);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace topo
}  // namespace kfdsim
