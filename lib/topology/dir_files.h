// Reading the files of one topology directory through a descriptor of that
// directory (the platform's read_file_at), so the kernel walks only each
// file's short name instead of its whole absolute path, and listing that
// directory through the same descriptor (list_dir_fd), so a directory that
// is both listed and read is opened once.
//
// DirFiles names a directory by its absolute path (caller storage that
// must outlive it). The first Read or List opens the directory (open with
// HKE_OPEN_DIRECTORY), only on a table with read_file_at; later Reads of
// files below it open them relative to that descriptor, and List lists it
// through the descriptor when the table also has list_dir_fd; the
// destructor closes it. Without read_file_at, when the directory cannot be
// opened, or for a path that is not below it, Read is read_file on the
// absolute path: the statuses a caller sees for a file are then those of
// read_file, and a failed directory open only costs the shortcut (a
// missing directory shows as the file's own ENOENT). List is likewise
// list_dir on the path without list_dir_fd or the descriptor, so a
// missing directory shows as list_dir's own ENOENT.
//
// Threading: owned by one reader on one thread; the descriptor is never
// shared.
#ifndef HKE_LIB_TOPOLOGY_DIR_FILES_H_
#define HKE_LIB_TOPOLOGY_DIR_FILES_H_

#include <cstddef>
#include <cstring>

#include "lib/core/platform.h"
#include "lib/core/status.h"

namespace hke::topology {

class DirFiles {
 public:
  // `dir`: the directory's absolute path, `dir_length` characters, without
  // a trailing '/'.
  DirFiles(const Platform& platform, const char* dir, size_t dir_length)
      : platform_(platform), dir_(dir), dir_length_(dir_length) {}
  DirFiles(const DirFiles&) = delete;
  DirFiles& operator=(const DirFiles&) = delete;
  // A failed close of a read-only directory loses nothing: ignored.
  ~DirFiles() { (void)platform_.Close(&fd_); }

  // Reads the file at absolute `path` (`length` characters) whole into
  // `buf` (Platform::ReadFile's contract).
  Status Read(const char* path, size_t length, char* buf, size_t capacity, size_t* out_length) {
    if (Below(path, length) && Fd() >= 0) {
      return platform_.ReadFileAt(fd_, path + dir_length_ + 1, buf, capacity, out_length);
    }
    return platform_.ReadFile(path, buf, capacity, out_length);
  }

  // Lists the directory itself (Platform::ListDir's contract).
  Status List(hke_dirent_fn fn, void* user) {
    if (dir_length_ != 0 && platform_.HasListDirFd() && Fd() >= 0) {
      return platform_.ListDirFd(fd_, fn, user);
    }
    return platform_.ListDir(dir_, fn, user);
  }

 private:
  bool Below(const char* path, size_t length) const {
    return dir_ != nullptr && dir_length_ != 0 && length > dir_length_ + 1 &&
           path[dir_length_] == '/' && std::memcmp(path, dir_, dir_length_) == 0;
  }

  int Fd() {
    if (!tried_) {
      tried_ = true;
      int fd = -1;
      if (platform_.HasReadFileAt() &&
          platform_.Open(dir_, HKE_OPEN_READ | HKE_OPEN_DIRECTORY, &fd).ok()) {
        fd_ = fd;
      }
    }
    return fd_;
  }

  const Platform& platform_;
  const char* dir_;
  size_t dir_length_;
  bool tried_ = false;
  int fd_ = -1;
};

}  // namespace hke::topology

#endif  // HKE_LIB_TOPOLOGY_DIR_FILES_H_
