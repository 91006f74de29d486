// The default context's platform: Linux. Kept in its own object file so a
// static link that provides its own hke_default_platform() does not pull it.
#include "hsakmt/hsakmt_embedded.h"
#include "hsakmt/hsakmt_linux.h"

extern "C" hke_platform hke_default_platform(void) { return hke_linux_platform(); }
