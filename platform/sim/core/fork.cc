// kfdsim and fork(): a child process must not inherit a simulator lock
// that another thread held when the parent forked (the engine thread holds
// proc_mu_ while it steps the queues; a waiter holds ev_mu_ between its
// condition-variable sleeps). Without care, the child's first ioctl then
// blocks forever on a lock whose owner does not exist in the child.
//
// Every Simulator registers itself here while it is alive. One set of
// pthread_atfork handlers (installed with the first simulator) takes the
// registry lock and then every lock of every registered simulator, in the
// simulator's lock order (dev_mu_, proc_mu_, ev_mu_, smi_mu_, engine_.mu,
// hook_mu_), then the share registry's process mutex (share_registry.h),
// before the fork, and releases them after it in both the parent and the
// child. The child then finds every lock free; its own
// state (no engine thread, inherited queues) is handled by the existing
// fork checks (EngineThread::ForgetIfForked, the library's reset).
//
// The order is the one the simulator's code nests its locks in; the
// prepare handler waits for each holder to finish its critical section,
// which never waits for anything the forking thread holds.
#include <pthread.h>

#include <algorithm>
#include <mutex>
#include <vector>

#include "platform/sim/core/simulator.h"

namespace kfdsim {

namespace {

std::mutex& RegistryMutex() {
  static std::mutex mu;
  return mu;
}

std::vector<Simulator*>& Registry() {
  static std::vector<Simulator*> sims;
  return sims;
}

void Prepare() {
  RegistryMutex().lock();
  for (Simulator* s : Registry()) s->LockForFork();
  ShareRegistry::LockForFork();  // registry calls nest inside proc_mu_ (share.cc)
}

void Release() {
  ShareRegistry::UnlockForFork();
  for (auto it = Registry().rbegin(); it != Registry().rend(); ++it) (*it)->UnlockForFork();
  RegistryMutex().unlock();
}

}  // namespace

void Simulator::RegisterForFork() {
  static std::once_flag once;
  std::call_once(once, [] { (void)pthread_atfork(&Prepare, &Release, &Release); });
  std::lock_guard<std::mutex> l(RegistryMutex());
  Registry().push_back(this);
}

void Simulator::UnregisterForFork() {
  std::lock_guard<std::mutex> l(RegistryMutex());
  auto& r = Registry();
  r.erase(std::remove(r.begin(), r.end(), this), r.end());
}

void Simulator::LockForFork() {
  dev_mu_.lock();
  proc_mu_.lock();
  ev_mu_.lock();
  smi_mu_.lock();
  engine_.mu.lock();
  hook_mu_.lock();
}

void Simulator::UnlockForFork() {
  hook_mu_.unlock();
  engine_.mu.unlock();
  smi_mu_.unlock();
  ev_mu_.unlock();
  proc_mu_.unlock();
  dev_mu_.unlock();
}

}  // namespace kfdsim
