// kfdsim IdPool and IdTable (core/util.h): the lowest free id is handed
// out (the kernel's IDR), checked against a std::set model across the
// bitmap's word and level boundaries; IdTable finds, erases and iterates
// in index order.
#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "platform/sim/core/util.h"

namespace {

using kfdsim::IdPool;
using kfdsim::IdTable;

// The pool's contract in the simplest form: the ids not taken below the
// highest ever taken, and everything above it.
class ModelPool {
 public:
  explicit ModelPool(uint32_t base) : next_(base) {}
  uint32_t Peek() const { return free_.empty() ? next_ : *free_.begin(); }
  uint32_t Take() {
    const uint32_t id = Peek();
    if (free_.empty()) {
      ++next_;
    } else {
      free_.erase(free_.begin());
    }
    taken_.insert(id);
    return id;
  }
  void Release(uint32_t id) {
    if (taken_.erase(id) != 0) free_.insert(id);
  }
  const std::set<uint32_t>& taken() const { return taken_; }

 private:
  uint32_t next_;
  std::set<uint32_t> free_, taken_;
};

// xorshift64: a fixed sequence, the same on every run.
uint64_t Next(uint64_t* s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

TEST_CASE("sim IdPool hands out the lowest free id at or above its base") {
  IdPool pool(5);
  CHECK(pool.Peek() == 5);
  CHECK(pool.Take() == 5);
  CHECK(pool.Take() == 6);
  CHECK(pool.Take() == 7);
  pool.Release(6);
  CHECK_FALSE(pool.InUse(6));
  CHECK(pool.InUse(7));
  pool.Release(4);    // below the base: ignored
  pool.Release(100);  // never taken: ignored
  pool.Release(6);    // twice: ignored
  CHECK(pool.Peek() == 6);
  CHECK(pool.Take() == 6);
  CHECK(pool.Take() == 8);
  pool.Clear();
  CHECK(pool.Take() == 5);
}

TEST_CASE("sim IdPool agrees with the set model across word and level boundaries") {
  // 70,000 ids span three bitmap levels (64, 4096 and 262,144 ids per
  // top word); then random releases and takes, and every id released
  // from the top down and taken again.
  IdPool pool(0x40000000u);
  ModelPool model(0x40000000u);
  constexpr uint32_t kIds = 70000;
  for (uint32_t i = 0; i < kIds; ++i) REQUIRE(pool.Take() == model.Take());
  uint64_t seed = 0x9e3779b97f4a7c15ull;
  for (int step = 0; step < 200000; ++step) {
    const uint64_t r = Next(&seed);
    if (r % 3 == 0) {
      REQUIRE(pool.Peek() == model.Peek());
      REQUIRE(pool.Take() == model.Take());
    } else {
      // Mostly ids in use (spread over the whole range), sometimes anything.
      const uint32_t id = 0x40000000u + static_cast<uint32_t>((r >> 8) % (kIds + 64));
      REQUIRE(pool.InUse(id) == (model.taken().count(id) != 0));
      pool.Release(id);
      model.Release(id);
    }
  }
  // Whole 64-id words and 4096-id blocks freed and filled again.
  for (uint32_t id = 0x40000000u + 4096; id < 0x40000000u + 3 * 4096; ++id) {
    pool.Release(id);
    model.Release(id);
  }
  for (int i = 0; i < 3 * 4096; ++i) REQUIRE(pool.Take() == model.Take());
  const std::vector<uint32_t> taken(model.taken().rbegin(), model.taken().rend());
  for (uint32_t id : taken) {
    pool.Release(id);
    model.Release(id);
    REQUIRE(pool.Peek() == model.Peek());
  }
  CHECK(pool.Peek() == 0x40000000u);
  for (int i = 0; i < 300000; ++i) REQUIRE(pool.Take() == model.Take());  // a fourth level
  CHECK(pool.Peek() == 0x40000000u + 300000);
}

TEST_CASE("sim IdTable stores at the lowest free index and iterates in index order") {
  IdTable<std::string> table;
  std::map<uint32_t, std::string> model;
  for (int i = 0; i < 200; ++i) {
    const std::string v = "v" + std::to_string(i);
    const uint32_t idx = table.Add(v);
    CHECK(idx == static_cast<uint32_t>(i));
    model[idx] = v;
  }
  for (uint32_t idx : {150u, 3u, 199u, 64u, 0u, 65u, 198u}) {
    REQUIRE(table.Find(idx) != nullptr);
    table.Erase(idx);
    model.erase(idx);
    CHECK(table.Find(idx) == nullptr);
  }
  CHECK(table.Find(1000) == nullptr);
  CHECK(table.size() == model.size());
  std::vector<std::pair<uint32_t, std::string>> seen;
  for (const auto& [idx, v] : table) seen.emplace_back(idx, v);
  CHECK(seen == std::vector<std::pair<uint32_t, std::string>>(model.begin(), model.end()));
  // Reuse: lowest first; past the end once the holes are filled.
  for (uint32_t want : {0u, 3u, 64u, 65u, 150u, 198u, 199u, 200u}) CHECK(table.Add("new") == want);
  const IdTable<std::string>& ctable = table;
  CHECK(*ctable.Find(64) == "new");
  CHECK(*ctable.Find(63) == "v63");
}

}  // namespace
