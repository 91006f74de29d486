// Self-test input of no_cxx_runtime_gate.sh: what makes an archive need
// the C++ runtime although it uses no heap and no exceptions. Never linked.
namespace hke_gate_bad {

struct Counter {
  Counter();
  ~Counter();
  int value;
};

// A function-local static with a constructor and a destructor:
// __cxa_guard_acquire/release, __cxa_atexit and __dso_handle.
int LocalStatic() {
  static Counter c;
  return c.value;
}

// A class with a pure virtual function and a virtual destructor: the vtable
// names __cxa_pure_virtual, the deleting destructor calls operator delete.
struct Shape {
  virtual ~Shape();
  virtual int Area() const = 0;
};
Shape::~Shape() = default;

// A 16-byte atomic load: no target here inlines it, so it is a libatomic
// call (__atomic_load_16; the generic __atomic_load on 32-bit targets).
struct Wide {
  unsigned long long low, high;
};
Wide LoadWide(Wide* w) {
  Wide r;
  __atomic_load(w, &r, __ATOMIC_SEQ_CST);
  return r;
}

}  // namespace hke_gate_bad
