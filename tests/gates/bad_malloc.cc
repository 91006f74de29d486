// Deliberately violates the no-heap rule; the gate self-test checks that the
// gate rejects an archive containing this object.
#include <cstdlib>

extern "C" void* hke_gate_selftest_allocates(unsigned long n) { return std::malloc(n); }
