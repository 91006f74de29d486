// Includes a module above its own: the gate must refuse it.
#include "lib/api/entry.h"
