// The default context's GFX version overrides: upstream's
// HSA_OVERRIDE_GFX_VERSION and HSA_OVERRIDE_GFX_VERSION_<node> from this
// process's environment, read in one pass over `environ` by the portable
// scanner. An archive member of its own, like default_platform.cc, so a
// board port can define either function and keep the other.
//
// Threading: called once, while the default context initialises; as
// getenv, it must not race with setenv/putenv in other threads.
#include <unistd.h>  // environ (_GNU_SOURCE)

#include "hsakmt/hsakmt_embedded.h"

extern "C" hke_status_t hke_default_gfx_overrides(hke_gfx_override* out, uint32_t capacity,
                                                  uint32_t* out_count) {
  return hke_gfx_overrides_from_environment(environ, out, capacity, out_count, nullptr, nullptr);
}
