// The store's bookkeeping against a plain map: random runs of set (every kind), delete,
// delete_all, saves that fail (an I/O fault, a refusing backend), saves that succeed,
// reopens, and — for the file backend — power cuts. After every step the store must show
// exactly the model's current state; after a reopen, exactly what was last acknowledged.
// Fixed seeds, bounded runs; a failure prints the seed and the step.
#include <savekit/prefs.hpp>

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "support/fault_fs.hpp"

using savekit::prefs;
using savekit::value_type;

namespace {

struct Small {
  int level = 0;
  std::string name;
  bool operator==(const Small&) const = default;
};

using model_state = std::map<std::string, savekit::stored_value>;

bool same(const savekit::stored_value& a, const savekit::stored_value& b) {
  return a.type == b.type && a.bytes == b.bytes;
}

// What the store shows, as the model holds it.
model_state observed(const prefs& p) {
  model_state out;
  for (const auto& key : p.keys()) out[key] = *p.get_raw(key);
  return out;
}

::testing::AssertionResult equal(const model_state& got, const model_state& want) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << got.size() << " keys, the model has " << want.size();
  for (const auto& [key, value] : want) {
    auto it = got.find(key);
    if (it == got.end()) return ::testing::AssertionFailure() << "missing key " << key;
    if (!same(it->second, value)) return ::testing::AssertionFailure() << "key " << key << " differs";
  }
  return ::testing::AssertionSuccess();
}

// One backend under test: opens stores over the same storage, makes saves fail, cuts power.
class store_harness {
 public:
  explicit store_harness(bool file) : file_(file) {}

  std::optional<prefs> open() {
    auto p = file_ ? prefs::open(savekit::make_file_backend("/saves/model.prefs", disk_, options_))
                   : prefs::open(savekit::make_memory_backend(memory_));
    if (!p) {
      ADD_FAILURE() << p.error().to_string();
      return std::nullopt;
    }
    return std::move(*p);
  }
  // Makes the next save fail somewhere inside (a write, a sync, a truncate...).
  void fail_next_save(std::mt19937& rng) {
    if (file_)
      disk_.arm(test_support::fault_fs::fault::fail, disk_.operations() + static_cast<int>(rng() % 3));
    else
      memory_->fail_commits = true;
  }
  void heal() {
    if (file_)
      disk_.arm(test_support::fault_fs::fault::none, -1);  // a fault the save did not reach is dropped
    else
      memory_->fail_commits = false;
  }
  bool can_cut_power() const { return file_; }
  void power_cut(double keep) { disk_.power_cut(keep); }

 private:
  bool file_;
  test_support::fault_fs disk_;
  std::shared_ptr<savekit::memory_storage> memory_ = std::make_shared<savekit::memory_storage>();
  // Small thresholds, so that runs compact often.
  savekit::file_backend_options options_{.compact_ratio = 1.5, .compact_min_bytes = 512};
};

class StoreModel : public ::testing::TestWithParam<std::string> {};

}  // namespace

INSTANTIATE_TEST_SUITE_P(Backends, StoreModel, ::testing::Values("memory", "file"));

TEST_P(StoreModel, RandomRunsMatchAPlainMap) {
  constexpr int seeds = 25, steps = 400;
  for (int seed = 1; seed <= seeds; ++seed) {
    std::mt19937 rng(static_cast<unsigned>(seed));
    store_harness harness(GetParam() == "file");
    std::optional<prefs> p = harness.open();
    ASSERT_TRUE(p);
    model_state committed, current;
    std::vector<model_state> in_flight;  // what the saves that failed since may have made durable
    auto key = [&] { return "key" + std::to_string(rng() % 12); };
    for (int step = 0; step < steps; ++step) {
      SCOPED_TRACE("seed " + std::to_string(seed) + " step " + std::to_string(step));
      int op = static_cast<int>(rng() % 100);
      std::string k = key();

      if (op < 15) {
        auto n = static_cast<std::int64_t>(rng()) - (1 << 30);
        ASSERT_TRUE(p->set_int(k, n));
        current[k] = *p->get_raw(k);
        ASSERT_EQ(p->get_int(k), n);
      } else if (op < 25) {
        double d = static_cast<double>(rng()) / 7.0;
        ASSERT_TRUE(p->set_float(k, d));
        current[k] = *p->get_raw(k);
      } else if (op < 40) {
        std::string v(rng() % 40, static_cast<char>(rng()));
        ASSERT_TRUE(p->set_string(k, v));
        current[k] = {value_type::string, v};
      } else if (op < 48) {
        std::vector<std::byte> v(rng() % 20, static_cast<std::byte>(rng()));
        ASSERT_TRUE(p->set_bytes(k, v));
        current[k] = {value_type::bytes, std::string(reinterpret_cast<const char*>(v.data()), v.size())};
      } else if (op < 56) {
        Small s{static_cast<int>(rng() % 100), std::string(rng() % 10, 'n')};
        auto encoding = static_cast<savekit::object_encoding>(rng() % 3);
        ASSERT_TRUE(p->set(k, s, encoding));
        current[k] = *p->get_raw(k);
        ASSERT_EQ(p->get<Small>(k).value_or(Small{}), s);
      } else if (op < 68) {
        auto deleted = p->delete_key(k);
        ASSERT_EQ(static_cast<bool>(deleted), current.erase(k) == 1);
      } else if (op < 70) {
        p->delete_all();
        current.clear();
      } else if (op < 85) {
        bool fail = rng() % 4 == 0;
        if (fail) harness.fail_next_save(rng);
        auto saved = p->save();
        harness.heal();
        if (saved) {
          committed = current;
          in_flight.clear();
          ASSERT_FALSE(p->has_pending_changes());
        } else {
          ASSERT_TRUE(fail) << saved.error().to_string();
          in_flight.push_back(current);
        }
      } else if (op < 93) {
        // Reopen: unsaved changes are gone (a failed save too), what was acknowledged is back.
        p.reset();
        p = harness.open();
        ASSERT_TRUE(p);
        current = committed;
        in_flight.clear();
      } else if (harness.can_cut_power()) {
        // The power goes (the store still open); on restart every acknowledged save is there
        // — or what one of the saves that failed since carried, whose data may have reached
        // the disk before the failure.
        harness.power_cut(static_cast<double>(rng() % 3) / 2.0);
        p.reset();
        p = harness.open();
        ASSERT_TRUE(p);
        model_state got = observed(*p);
        for (const model_state& carried : in_flight)
          if (equal(got, carried)) committed = carried;
        current = committed;
        in_flight.clear();
      }
      ASSERT_TRUE(equal(observed(*p), current));
      ASSERT_EQ(p->size(), current.size());
    }
  }
}
