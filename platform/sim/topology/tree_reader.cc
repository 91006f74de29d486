// Reads a captured KFD sysfs topology directory into a RawTree. Only the
// structure is checked here; values are judged by Normalise().
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "platform/sim/topology/raw_tree.h"

namespace kfdsim {
namespace topo {
namespace {

constexpr size_t kSysfsPage = 4096;

bool IsDir(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// Reads a whole sysfs-sized file. 0, ENOENT, or EFBIG for a file longer than
// one page (the thunk would silently truncate it).
int ReadSmallFile(const std::string& path, std::string* out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  char buf[kSysfsPage + 1];
  size_t got = 0;
  while (got < sizeof(buf)) {
    const ssize_t n = ::read(fd, buf + got, sizeof(buf) - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      ::close(fd);
      return e;
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  if (got > kSysfsPage) return EFBIG;
  out->assign(buf, got);
  return 0;
}

bool ParseIndex(const char* name, uint32_t* out) {
  if (name[0] == '\0') return false;
  if (name[0] == '0' && name[1] != '\0') return false;  // no leading zeros
  uint64_t v = 0;
  for (const char* p = name; *p != '\0'; ++p) {
    if (*p < '0' || *p > '9') return false;
    v = v * 10 + static_cast<uint64_t>(*p - '0');
    if (v > 0xffffu) return false;
  }
  *out = static_cast<uint32_t>(v);
  return true;
}

struct Numbered {
  uint32_t index;
  bool is_dir;
  bool operator<(const Numbered& o) const { return index < o.index; }
};

// Lists the numeric entries of `dir` in ascending order. Returns false and
// sets *bad to the first entry whose name is not a plain number.
bool ListNumeric(const std::string& dir, std::vector<Numbered>* out, std::string* bad) {
  out->clear();
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return true;
  bool ok = true;
  while (struct dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    uint32_t idx = 0;
    if (!ParseIndex(e->d_name, &idx)) {
      *bad = e->d_name;
      ok = false;
      break;
    }
    const bool is_dir =
        e->d_type == DT_DIR || (e->d_type == DT_UNKNOWN && IsDir(dir + "/" + e->d_name));
    out->push_back({idx, is_dir});
  }
  ::closedir(d);
  std::sort(out->begin(), out->end());
  return ok;
}

int Fail(int err, const std::string& path, const std::string& what, std::string* error) {
  *error = path + ": " + what;
  return err;
}

int ReadProps(const std::string& path, bool list_values, PropText* props, std::string* error) {
  std::string text;
  const int rc = ReadSmallFile(path, &text);
  if (rc == ENOENT) return Fail(EINVAL, path, "missing", error);
  if (rc == EFBIG) return Fail(EINVAL, path, "longer than one sysfs page (4096 bytes)", error);
  if (rc != 0) return Fail(rc, path, "cannot be read", error);
  if (text.find_first_not_of(" \t\n") == std::string::npos) {
    return Fail(EINVAL, path, "empty", error);
  }
  std::string why;
  if (!props->Parse(text, list_values, &why)) return Fail(EINVAL, path, why, error);
  return 0;
}

int ReadEntries(const std::string& tree, const std::string& rel, bool list_values,
                bool with_used_memory, std::vector<RawEntry>* out, std::string* error) {
  const std::string dir = tree + "/" + rel;
  std::vector<Numbered> ids;
  std::string bad;
  if (!ListNumeric(dir, &ids, &bad)) {
    return Fail(EINVAL, dir + "/" + bad, "entry name is not a number", error);
  }
  for (const Numbered& id : ids) {
    RawEntry e;
    e.index = id.index;
    e.origin = rel + "/" + Dec(id.index);
    const std::string base = tree + "/" + e.origin;
    if (!id.is_dir) return Fail(EINVAL, base, "is not a directory", error);
    int rc = ReadProps(base + "/properties", list_values, &e.props, error);
    if (rc != 0) return rc;
    if (with_used_memory) {
      std::string used;
      rc = ReadSmallFile(base + "/used_memory", &used);
      if (rc == 0) {
        e.has_used_memory = true;
        e.used_memory = used;
      } else if (rc != ENOENT) {
        return Fail(EINVAL, base + "/used_memory", "cannot be read", error);
      }
    }
    out->push_back(std::move(e));
  }
  return 0;
}

int ReadOptional(const std::string& path, bool* has, std::string* text, std::string* error) {
  const int rc = ReadSmallFile(path, text);
  if (rc == ENOENT) {
    *has = false;
    return 0;
  }
  if (rc != 0) return Fail(EINVAL, path, "cannot be read (or longer than 4096 bytes)", error);
  *has = true;
  return 0;
}

}  // namespace

int ReadTreeDir(const std::string& dir_in, RawTree* out, std::string* error) {
  std::string dir = dir_in;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  if (!IsDir(dir)) return Fail(ENOENT, dir, "is not a directory", error);
  const std::string nodes = dir + "/nodes";
  if (!IsDir(nodes)) return Fail(ENOENT, nodes, "missing (not a KFD topology tree)", error);

  RawTree tree;
  const size_t slash = dir.find_last_of('/');
  tree.name = slash == std::string::npos ? dir : dir.substr(slash + 1);
  tree.root = dir;
  int rc =
      ReadOptional(dir + "/generation_id", &tree.has_generation_id, &tree.generation_id, error);
  if (rc != 0) return rc;
  rc = ReadOptional(dir + "/system_properties", &tree.has_system_properties,
                    &tree.system_properties, error);
  if (rc != 0) return rc;

  std::vector<Numbered> ids;
  std::string bad;
  if (!ListNumeric(nodes, &ids, &bad)) {
    return Fail(EINVAL, nodes + "/" + bad, "node directory name is not a number", error);
  }
  if (ids.empty()) return Fail(EINVAL, nodes, "holds no nodes", error);
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i].index != i) {
      return Fail(EINVAL, nodes + "/" + Dec(i), "missing (node ids must be 0..N-1)", error);
    }
  }
  tree.nodes.resize(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    RawNode& n = tree.nodes[i];
    n.origin = "nodes/" + Dec(i);
    const std::string base = dir + "/" + n.origin;
    if (!ids[i].is_dir) return Fail(EINVAL, base, "is not a directory", error);
    rc = ReadProps(base + "/properties", false, &n.props, error);
    if (rc != 0) return rc;
    rc = ReadOptional(base + "/gpu_id", &n.has_gpu_id, &n.gpu_id, error);
    if (rc != 0) return rc;
    rc = ReadOptional(base + "/name", &n.has_name, &n.name, error);
    if (rc != 0) return rc;
    rc = ReadEntries(dir, n.origin + "/mem_banks", false, true, &n.mem_banks, error);
    if (rc != 0) return rc;
    rc = ReadEntries(dir, n.origin + "/caches", true, false, &n.caches, error);
    if (rc != 0) return rc;
    rc = ReadEntries(dir, n.origin + "/io_links", false, false, &n.io_links, error);
    if (rc != 0) return rc;
    rc = ReadEntries(dir, n.origin + "/p2p_links", false, false, &n.p2p_links, error);
    if (rc != 0) return rc;
  }
  *out = std::move(tree);
  return 0;
}

}  // namespace topo
}  // namespace kfdsim
