// The composition root of the self-test tree: it may include the state
// header its README lists, not the module's other headers.
#include "lib/api/state.h"
#include "lib/api/entry.h"
