// A FIFO in a scratch directory, opened read-write and non-blocking: the
// usual debugger event file for DBG_TRAP ENABLE (both ends are this one
// open). Removed with the object. Not thread-safe.
#ifndef HKE_TESTS_SUPPORT_EVENT_FIFO_H_
#define HKE_TESTS_SUPPORT_EVENT_FIFO_H_

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "doctest/doctest.h"

namespace hketest {

class EventFifo {
 public:
  EventFifo() {
    char tmpl[] = "/tmp/hke-dbgfifo-XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    dir_ = tmpl;
    path_ = dir_ + "/events";
    REQUIRE(mkfifo(path_.c_str(), 0600) == 0);
    fd = open(path_.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
    REQUIRE(fd >= 0);
  }
  ~EventFifo() {
    close(fd);
    unlink(path_.c_str());
    rmdir(dir_.c_str());
  }
  EventFifo(const EventFifo&) = delete;
  EventFifo& operator=(const EventFifo&) = delete;

  // Reads every waiting byte (each must be the kernel's '.'); their count.
  int Drain() {
    char buf[64];
    int n = 0;
    for (ssize_t r; (r = read(fd, buf, sizeof(buf))) > 0;) {
      for (ssize_t i = 0; i < r; ++i) CHECK(buf[i] == '.');
      n += static_cast<int>(r);
    }
    return n;
  }

  int fd = -1;

 private:
  std::string dir_, path_;
};

}  // namespace hketest

#endif  // HKE_TESTS_SUPPORT_EVENT_FIFO_H_
