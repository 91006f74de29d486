// The default context's configuration flags from this process's
// environment (HSA_USE_SVM, HSA_RESERVE_SVM), read in one pass over
// `environ` by the portable scanner. An archive member of its own so a
// board port can define it instead.
//
// Threading: called once, while the default context initialises; as
// getenv, it must not race with setenv/putenv in other threads.
#include <unistd.h>  // environ (_GNU_SOURCE)

#include "hsakmt/hsakmt_embedded.h"

extern "C" uint32_t hke_default_config_flags(void) {
  return hke_config_flags_from_environment(environ);
}
