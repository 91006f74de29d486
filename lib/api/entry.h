// What every lib/api source shares: the default context the hsaKmt*
// functions run on, the context behind an HsaKFDContext (hsakmtctx.h), the
// status of a call the context cannot serve, the status of a kernel call,
// and a pointer as the u64 the KFD ABI carries.
//
// The pattern of an entry point with a Ctx twin: the body is a function of
// namespace hke::api that runs only on a context,
//   HSAKMT_STATUS Foo(Context& ctx, args...);
//   hsaKmtFoo(args...)  { return OnDefault(Required(a), Foo, args...); }
//   hsaKmtFooCtx(HsaKFDContext* c, args...)
//                       { return OnCtx(c, Required(a), Foo, args...); }
// and the pair is one line of the file's list (HKE_API_TWINS, below): the
// wrapper makes the checks that come before the device (the arguments
// upstream requires first, then a usable context) so no body repeats them. Both run the body
// inside a shared hold of the context's open gate
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

// The check of the arguments upstream requires before it looks at the
// device: INVALID_PARAMETER when one is missing (a null pointer, a count or
// id of 0), SUCCESS otherwise (always, for none).
template <typename... Args>
constexpr HSAKMT_STATUS Required(const Args&... args) {
  return (static_cast<bool>(args) && ...) ? HSAKMT_STATUS_SUCCESS : HSAKMT_STATUS_INVALID_PARAMETER;
}

// Runs `body(*ctx, args...)` on the default context inside a shared hold
// of its open gate. Before that: `first`, the status of the checks upstream
// makes before it looks at the device (Required, or a file's own), when it
// is not SUCCESS; then kNoContext without a usable default context. Every
// other check is the body's.
template <typename... Params, typename... Args>
HSAKMT_STATUS OnDefault(HSAKMT_STATUS first, HSAKMT_STATUS (*body)(Context&, Params...),
                        Args&&... args) {
  Context* ctx = Default();
  if (first != HSAKMT_STATUS_SUCCESS) return first;
  if (ctx == nullptr) return kNoContext;
  SharedGate g(ctx->open_gate());
  return body(*ctx, static_cast<Args&&>(args)...);
}

// Runs `body(*ctx, args...)` on the context behind `c`, inside a shared
// hold of its open gate: INVALID_PARAMETER (before anything else) when
// there is none, then `first` when it is not SUCCESS.
template <typename... Params, typename... Args>
HSAKMT_STATUS OnCtx(HsaKFDContext* c, HSAKMT_STATUS first,
                    HSAKMT_STATUS (*body)(Context&, Params...), Args&&... args) {
  Context* ctx = FromKfdCtx(c);
  if (ctx == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  if (first != HSAKMT_STATUS_SUCCESS) return first;
  SharedGate g(ctx->open_gate());
  return body(*ctx, static_cast<Args&&>(args)...);
}

// A call whose kernel refusal upstream reports as ERROR: any errno is
// ERROR (the errno itself reaches the diagnostics callback); the library's
// own reasons map as ToHsakmt says.
inline HSAKMT_STATUS KernelCallStatus(Status s) {
  if (s.domain() == HKE_DOMAIN_ERRNO) return HSAKMT_STATUS_ERROR;
  return ToHsakmt(s);
}

inline uint64_t Addr(const void* p) {
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p));
}

}  // namespace hke::api

// The twins of one entry point, from one line of a file's list:
//   X(Name, Body, (parameters), (arguments), First(arguments...))
// defines hsaKmt<Name>(parameters), which runs Body(ctx, arguments) on the
// default context (OnDefault), and hsaKmt<Name>Ctx(HsaKFDContext* ctx,
// parameters), which runs it on `ctx` (OnCtx). First is the check upstream
// makes before it looks at the device: Required(the arguments it refuses
// with INVALID_PARAMETER when null or 0), `Required()` when there are none,
// or a file's own check function. Body and First are functions of
// namespace hke::api; Body takes `Context&`. Each lib/api file
// lists its twins in one macro (HKE_EVENTS_API, ...) expanded with this one
// inside its extern "C" block; a new twin is one line there plus its body.
// Entry points with a shape of their own (open/close, the deprecated
// debugger calls, the context-less PMC trace calls) are written out by
// hand.
#define HKE_API_UNPAREN(...) __VA_ARGS__
#define HKE_API_COMMA(...) __VA_OPT__(, ) __VA_ARGS__
#define HKE_API_TWINS(Name, Body, Params, Args, First)                                     \
  HSAKMT_STATUS HSAKMTAPI hsaKmt##Name(HKE_API_UNPAREN Params) {                           \
    return ::hke::api::OnDefault(::hke::api::First, ::hke::api::Body HKE_API_COMMA Args);  \
  }                                                                                        \
  HSAKMT_STATUS HSAKMTAPI hsaKmt##Name##Ctx(HsaKFDContext* ctx HKE_API_COMMA Params) {     \
    return ::hke::api::OnCtx(ctx, ::hke::api::First, ::hke::api::Body HKE_API_COMMA Args); \
  }

// An entry point without a Ctx twin (the SPM, PC-sampling and deprecated
// debugger calls run on the default context only), from a line of the
// same shape: only hsaKmt<Name>.
#define HKE_API_DEFAULT_ONLY(Name, Body, Params, Args, First)                             \
  HSAKMT_STATUS HSAKMTAPI hsaKmt##Name(HKE_API_UNPAREN Params) {                          \
    return ::hke::api::OnDefault(::hke::api::First, ::hke::api::Body HKE_API_COMMA Args); \
  }

#endif  // HKE_LIB_API_ENTRY_H_
