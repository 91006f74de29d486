// What every lib/api source shares: the default context the hsaKmt*
// functions run on, the context behind an HsaKFDContext (hsakmtctx.h), the
// status of a call the context cannot serve, the status of a kernel call,
// and a pointer as the u64 the KFD ABI carries.
//
// The pattern of an entry point with a Ctx twin: the body takes the
// context as `Context*` (nullptr: no usable context),
//   HSAKMT_STATUS Foo(Context* ctx, args...);
//   hsaKmtFoo(args...)             { return OnDefault(Foo, args...); }
//   hsaKmtFooCtx(HsaKFDContext* c, args...) { return OnCtx(c, Foo, args...); }
// and the pair is one line of the file's list (HKE_API_TWINS, below). Both
// run the body inside a shared hold of the context's open gate
// (lib/context/open_gate.h); an entry point written out by hand takes one
// with `SharedGate g(ctx->open_gate());` before it reads anything of the
// context. Only open and close (lib/api/lifecycle.h) take it exclusively.
#ifndef HKE_LIB_API_ENTRY_H_
#define HKE_LIB_API_ENTRY_H_

#include <cstdint>

#include "hsakmt/hsakmt.h"
#include "hsakmt/hsakmt_embedded.h"
#include "hsakmt/hsakmtctx.h"
#include "lib/api/status_map.h"
#include "lib/context/context.h"
#include "lib/core/status.h"

namespace hke::api {

// The default context (static storage), or null when it cannot be used.
inline Context* Default() {
  hke_context* c = hke_default_context();
  return c != nullptr ? &c->impl : nullptr;
}

// What an entry point returns when there is no usable default context.
inline constexpr HSAKMT_STATUS kNoContext = HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED;

// An HsaKFDContext is an hke_context (hke_context_kfd_ctx); the context
// when `c` is one that is initialised, nullptr for NULL or a deinitialised
// one. (A pointer that was never a context cannot be told apart safely;
// as upstream, passing one is undefined.)
inline Context* FromKfdCtx(HsaKFDContext* c) {
  if (c == nullptr) return nullptr;
  hke_context* h = reinterpret_cast<hke_context*>(c);
  return h->impl.valid() ? &h->impl : nullptr;
}

// Runs `body(ctx, args...)` on the default context inside a shared hold of
// its open gate; without a usable default context the body runs with
// nullptr (it returns its own status for that, after its argument checks).
template <typename... Params, typename... Args>
HSAKMT_STATUS OnDefault(HSAKMT_STATUS (*body)(Context*, Params...), Args&&... args) {
  Context* ctx = Default();
  if (ctx == nullptr) return body(nullptr, static_cast<Args&&>(args)...);
  SharedGate g(ctx->open_gate());
  return body(ctx, static_cast<Args&&>(args)...);
}

// Runs `body(ctx, args...)` on the context behind `c`, inside a shared
// hold of its open gate; INVALID_PARAMETER (before anything else) when
// there is none.
template <typename... Params, typename... Args>
HSAKMT_STATUS OnCtx(HsaKFDContext* c, HSAKMT_STATUS (*body)(Context*, Params...), Args&&... args) {
  Context* ctx = FromKfdCtx(c);
  if (ctx == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  SharedGate g(ctx->open_gate());
  return body(ctx, static_cast<Args&&>(args)...);
}

// A call whose kernel refusal upstream reports as ERROR: any errno is
// ERROR (the errno itself reaches the diagnostics callback); the library's
// own reasons map as ToHsakmt says.
inline HSAKMT_STATUS KernelCallStatus(Status s) {
  if (s.domain() == HKE_DOMAIN_ERRNO) return HSAKMT_STATUS_ERROR;
  return ToHsakmt(s);
}

inline uint64_t Addr(const void* p) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)); }

}  // namespace hke::api

// The twins of one entry point, from one line of a file's list:
//   X(Name, Body, (parameters), (arguments))
// defines hsaKmt<Name>(parameters), which runs Body(ctx, arguments) on the
// default context (OnDefault), and hsaKmt<Name>Ctx(HsaKFDContext* ctx,
// parameters), which runs it on `ctx` (OnCtx). Each lib/api file lists its
// twins in one macro (HKE_EVENTS_API, ...) expanded with this one inside
// its extern "C" block; a new twin is one line there plus its body. Entry
// points with a shape of their own (open/close, the deprecated debugger
// calls, the context-less PMC trace calls) are written out by hand.
#define HKE_API_UNPAREN(...) __VA_ARGS__
#define HKE_API_COMMA(...) __VA_OPT__(, ) __VA_ARGS__
#define HKE_API_TWINS(Name, Body, Params, Args)                                                 \
  HSAKMT_STATUS HSAKMTAPI hsaKmt##Name(HKE_API_UNPAREN Params) {                                \
    return ::hke::api::OnDefault(Body HKE_API_COMMA Args);                                      \
  }                                                                                             \
  HSAKMT_STATUS HSAKMTAPI hsaKmt##Name##Ctx(HsaKFDContext* ctx HKE_API_COMMA Params) {          \
    return ::hke::api::OnCtx(ctx, Body HKE_API_COMMA Args);                                     \
  }

#endif  // HKE_LIB_API_ENTRY_H_
