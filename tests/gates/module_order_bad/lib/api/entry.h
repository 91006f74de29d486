// A module above core.
#include "lib/core/upward.h"
