// kfdsim reply tamper: the seam through which tests make the simulated
// kernel answer with hostile values (aperture bounds, counts, handles,
// offsets, event slots, ...) that a correct kernel never produces.
//
// Contract (see Simulator::SetReplyTamper and kfdsim_set_tamper):
//  - Ioctl() calls TamperReply once per ioctl it dispatched to the KFD or
//    render-node table, successful or not, after the handler ran and its
//    argument was copied back. Injected faults, unknown requests and fds
//    the simulator does not own are not offered to the tamper.
//  - The tamper sees a copy of the caller's argument as the caller would
//    receive it (`size` = the request's size field; nullptr/0 when the
//    request carries no argument or the caller's buffer is unreadable) and
//    the handler's result. What it writes into the copy is copied back to
//    the caller when the request's direction includes "read" (the caller
//    expects a reply there); its return value is the result the caller
//    gets (0 or a positive errno).
//  - Data the handler wrote through pointers inside the argument (the
//    aperture array, AMDGPU_INFO's return buffer, WAIT_EVENTS' event data)
//    is already in the caller's memory: the tamper edits it there.
//
// The trace marks a call "tampered" when the tamper changed the result or
// the bytes copied back (edits made through pointers are not seen).
//
// Threading: the function and its user pointer are read under hook_mu_
// (a leaf lock, as for the trace sink) and called with no simulator lock
// held, from the calling thread, possibly from several threads at once. A
// call already past the read may still reach a tamper that was replaced
// or cleared meanwhile.
#include <errno.h>

#include <vector>

#include "lib/kfd/ioc.h"
#include "platform/sim/core/simulator.h"
#include "platform/sim/core/util.h"

namespace kfdsim {

namespace k = hke::kfd;

void Simulator::SetReplyTamper(ReplyTamper fn, void* user) {
  std::lock_guard<std::mutex> hl(hook_mu_);
  tamper_ = fn;
  tamper_user_ = fn != nullptr ? user : nullptr;
  tamper_armed_.store(fn != nullptr, std::memory_order_release);
}

int Simulator::TamperReply(uint32_t request, void* arg, int result, bool* tampered) {
  if (root_ != nullptr) return root_->TamperReply(request, arg, result, tampered);
  if (!tamper_armed_.load(std::memory_order_acquire)) return result;
  ReplyTamper fn = nullptr;
  void* user = nullptr;
  {
    std::lock_guard<std::mutex> hl(hook_mu_);
    fn = tamper_;
    user = tamper_user_;
  }
  if (fn == nullptr) return result;
  const uint32_t size = k::IocSize(request);
  std::vector<uint8_t> reply(size);
  const bool readable =
      size != 0 && UserRead(reply.data(), reinterpret_cast<uintptr_t>(arg), size) == 0;
  const std::vector<uint8_t> before = reply;
  const int out = fn(user, request, readable ? reply.data() : nullptr, readable ? size : 0, result);
  const bool copy_back = readable && (k::IocDir(request) & k::kIocRead) != 0;
  *tampered = out != result || (copy_back && reply != before);
  if (copy_back && reply != before &&
      UserWrite(reinterpret_cast<uintptr_t>(arg), reply.data(), size) != 0) {
    return EFAULT;
  }
  return out;
}

}  // namespace kfdsim
