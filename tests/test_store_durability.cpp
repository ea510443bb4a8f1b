// The file backend's durability contract, tested by injecting a fault at every I/O
// operation of a run of commits and compactions, by cutting the power (losing whatever
// was not synced), and by damaging a store file at every offset. After each, reopening
// must give the last or the one-before-last committed state: never a mix, never wrong
// data reported as good.
#include <savekit/prefs.hpp>
#include <savekit/transcode.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "crc32c.hpp"
#include "support/fault_fs.hpp"
#include "support/store_file.hpp"

using savekit::errc;
using test_support::fault_fs;

namespace {

using state = std::map<std::string, std::string>;  // key -> value as a string

constexpr const char* store_path = "/saves/game.prefs";
// Small thresholds, so that the runs below compact several times.
constexpr savekit::file_backend_options small_log{.compact_ratio = 1.5, .compact_min_bytes = 256};

// Commit i of the scenario: changes three keys, sometimes deletes one, once clears all.
void apply_change(savekit::prefs& p, state& model, int i) {
  std::string value(static_cast<std::size_t>(i * 7 % 50), static_cast<char>('a' + i % 26));
  value += std::to_string(i);
  auto set = [&](const std::string& key, const std::string& v) {
    ASSERT_TRUE(p.set_string(key, v));
    model[key] = v;
  };
  set("k" + std::to_string(i % 5), value);
  set("counter", std::to_string(i));
  set("blob" + std::to_string(i % 3), std::string(static_cast<std::size_t>(i % 4) * 40, 'x'));
  if (i % 4 == 3 && model.count("k1")) {
    ASSERT_TRUE(p.delete_key("k1"));
    model.erase("k1");
  }
  if (i == 9) {
    p.delete_all();
    model.clear();
    set("after_clear", "yes");
  }
}

state read_state(const savekit::prefs& p) {
  state out;
  for (const auto& key : p.keys()) out[key] = p.get_string(key, "<not a string>");
  return out;
}

// The states after 0, 1, 2, ... commits of the scenario.
std::vector<state> expected_states(int commits) {
  std::vector<state> states{{}};
  auto p = savekit::prefs::open(savekit::make_memory_backend());
  state model;
  for (int i = 0; i < commits; ++i) {
    apply_change(*p, model, i);
    states.push_back(model);
  }
  return states;
}

struct run_result {
  int acknowledged = 0;  // commits whose save() returned success
  bool crashed = false;
};

// Opens the store on fs and commits `commits` times; a failed save() is retried once.
run_result run_scenario(fault_fs& fs, int commits) {
  run_result result;
  auto p = savekit::prefs::open(savekit::make_file_backend(store_path, fs, small_log));
  if (!p) {
    result.crashed = fs.crashed();
    return result;
  }
  state model;
  for (int i = 0; i < commits; ++i) {
    apply_change(*p, model, i);
    if (!p->save() && (fs.crashed() || !p->save())) {
      result.crashed = fs.crashed();
      return result;
    }
    ++result.acknowledged;
  }
  return result;
}

constexpr int scenario_commits = 40;

}  // namespace

TEST(StoreDurability, CleanRunReopensToTheLastState) {
  fault_fs fs;
  run_result run = run_scenario(fs, scenario_commits);
  ASSERT_EQ(run.acknowledged, scenario_commits);
  fs.power_cut();
  auto reopened = savekit::prefs::open(savekit::make_file_backend(store_path, fs, small_log));
  ASSERT_TRUE(reopened) << reopened.error().to_string();
  EXPECT_EQ(read_state(*reopened), expected_states(scenario_commits).back());
  EXPECT_FALSE(reopened->recovery().recovered);
}

TEST(StoreDurability, FaultAtEveryOperation) {
  std::vector<state> expected = expected_states(scenario_commits);
  fault_fs clean;
  run_scenario(clean, scenario_commits);
  const int operations = clean.operations();
  ASSERT_GT(operations, 3 * scenario_commits);  // writes, syncs, and the compactions' operations

  int runs = 0;
  for (auto kind : {fault_fs::fault::fail, fault_fs::fault::short_write, fault_fs::fault::crash}) {
    for (int at = 0; at < operations; ++at) {
      for (double keep : {0.0, 0.5, 1.0}) {
        SCOPED_TRACE("fault " + std::to_string(static_cast<int>(kind)) + " at operation " + std::to_string(at) +
                     ", unsynced bytes kept " + std::to_string(keep));
        fault_fs fs;
        fs.arm(kind, at);
        run_result run = run_scenario(fs, scenario_commits);
        if (kind != fault_fs::fault::crash) {
          EXPECT_FALSE(run.crashed);
        }
        fs.power_cut(keep);
        fs.restart();
        auto reopened = savekit::prefs::open(savekit::make_file_backend(store_path, fs, small_log));
        ASSERT_TRUE(reopened) << reopened.error().to_string();
        state got = read_state(*reopened);
        // The last acknowledged commit, or the one in flight when the fault hit.
        bool last = got == expected[static_cast<std::size_t>(run.acknowledged)];
        bool in_flight =
            run.acknowledged < scenario_commits && got == expected[static_cast<std::size_t>(run.acknowledged) + 1];
        ASSERT_TRUE(last || in_flight) << "acknowledged " << run.acknowledged;
        // The reopened store keeps working.
        ASSERT_TRUE(reopened->set_string("after", "crash"));
        ASSERT_TRUE(reopened->save());
        ++runs;
      }
    }
  }
  EXPECT_GT(runs, 1000);
}

TEST(StoreDurability, DamageAtEveryOffsetIsDetected) {
  // A store of a few commits, no compaction: header + records.
  fault_fs fs;
  std::vector<state> expected{{}};
  {
    auto p = savekit::prefs::open(savekit::make_file_backend(store_path, fs, {.compact_min_bytes = 1 << 30}));
    ASSERT_TRUE(p);
    state model;
    for (int i = 0; i < 6; ++i) {
      apply_change(*p, model, i);
      ASSERT_TRUE(p->save());
      expected.push_back(model);
    }
  }
  const std::string original = fs.durable_content(store_path);
  ASSERT_GT(original.size(), 100u);
  auto is_committed_state = [&](const state& s) {
    for (const state& e : expected)
      if (s == e) return true;
    return false;
  };
  int recovered = 0;
  for (std::size_t offset = 0; offset < original.size(); ++offset) {
    for (int variant = 0; variant < 2; ++variant) {
      std::string damaged = original;
      if (variant == 0)
        damaged[offset] = static_cast<char>(damaged[offset] ^ (1 << (offset % 8)));  // a bit flip
      else
        damaged.resize(offset);  // a cut
      fault_fs disk;
      disk.plant(store_path, damaged);
      auto reopened = savekit::prefs::open(savekit::make_file_backend(store_path, disk));
      if (!reopened) {
        // Only a damaged header leaves nothing intact.
        EXPECT_LT(offset, 16u) << "offset " << offset;
        EXPECT_EQ(reopened.error().code(), errc::corrupt_store);
        continue;
      }
      ASSERT_TRUE(is_committed_state(read_state(*reopened))) << "variant " << variant << " offset " << offset;
      if (reopened->recovery().recovered) ++recovered;
    }
  }
  EXPECT_GT(recovered, static_cast<int>(original.size()));  // damage was reported, not hidden
}

namespace {

// A store of `commits` commits, no compaction, and the state after each.
std::string six_commit_store(std::vector<state>& expected, int commits = 6) {
  fault_fs fs;
  expected = {{}};
  auto p = savekit::prefs::open(savekit::make_file_backend(store_path, fs, {.compact_min_bytes = 1 << 30}));
  EXPECT_TRUE(p);
  state model;
  for (int i = 0; i < commits; ++i) {
    apply_change(*p, model, i);
    EXPECT_TRUE(p->save());
    expected.push_back(model);
  }
  return fs.durable_content(store_path);
}

// Where the last record of an intact store file starts (records: u32 length, u32 CRC, payload).
std::size_t last_record_offset(const std::string& content) {
  std::size_t at = 16;
  for (;;) {
    std::uint32_t length = 0;
    for (int i = 3; i >= 0; --i) length = (length << 8) | static_cast<unsigned char>(content[at + i]);
    if (at + 8 + length >= content.size()) return at;
    at += 8 + length;
  }
}

}  // namespace

// A store whose first record is a compaction's snapshot (its sequence number far from 0),
// then `commits` small commits; expected gets the state after each.
std::string compacted_store(std::vector<state>& expected, int commits = 4) {
  fault_fs fs;
  state model;
  {
    auto p = savekit::prefs::open(savekit::make_file_backend(store_path, fs, small_log));
    for (int i = 0; i < 60; ++i) {
      apply_change(*p, model, i);
      EXPECT_TRUE(p->save());
    }
  }
  expected = {model};
  auto p = savekit::prefs::open(savekit::make_file_backend(store_path, fs, {.compact_min_bytes = 1 << 30}));
  for (int i = 60; i < 60 + commits; ++i) {
    apply_change(*p, model, i);
    EXPECT_TRUE(p->save());
    expected.push_back(model);
  }
  return fs.durable_content(store_path);
}

// Damage to the file may cost the last commit (it cannot be told from an interrupted
// append) — never more, unless a copy of the damaged file is kept.
::testing::AssertionResult loses_at_most_the_last_commit(const std::string& damaged, const std::vector<state>& expected,
                                                         std::size_t last_record, std::size_t damage_starts,
                                                         int& copies) {
  fault_fs disk;
  disk.plant(store_path, damaged);
  auto reopened = savekit::prefs::open(savekit::make_file_backend(store_path, disk));
  if (!reopened) return ::testing::AssertionFailure() << reopened.error().to_string();
  state got = read_state(*reopened);
  if (got == expected.back()) return ::testing::AssertionSuccess();  // nothing lost
  const auto& report = reopened->recovery();
  if (!report.recovered) return ::testing::AssertionFailure() << "a different state, unreported";
  if (!report.damaged_copy.empty()) {
    ++copies;
    if (disk.durable_content(report.damaged_copy) == damaged) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "the copy differs from the damaged file";
  }
  if (damage_starts < last_record)
    return ::testing::AssertionFailure() << "cut without a copy, damage before the last record: " << report.detail;
  if (got != expected[expected.size() - 2])
    return ::testing::AssertionFailure() << "more than the last commit lost: " << report.detail;
  return ::testing::AssertionSuccess();
}

TEST(StoreDurability, NoSingleBitFlipLosesMoreThanTheLastCommitWithoutACopy) {
  // Regression: a flipped bit in an early record's length made the whole rest of the file
  // look like an interrupted append, and opening cut every later commit off, no copy kept.
  // Also on a compacted store, whose first record's sequence number is not 0 (regression:
  // the search for later intact records then missed them all).
  for (bool compacted : {false, true}) {
    std::vector<state> expected;
    const std::string original = compacted ? compacted_store(expected) : six_commit_store(expected);
    const std::size_t last_record = last_record_offset(original);
    int copies = 0;
    for (std::size_t offset = 16; offset < original.size(); ++offset) {
      for (int bit = 0; bit < 8; ++bit) {
        std::string damaged = original;
        damaged[offset] = static_cast<char>(damaged[offset] ^ (1 << bit));
        ASSERT_TRUE(loses_at_most_the_last_commit(damaged, expected, last_record, offset, copies))
            << (compacted ? "compacted store, " : "") << "offset " << offset << " bit " << bit;
      }
    }
    EXPECT_GT(copies, 0);
  }
}

TEST(StoreDurability, ADamagedFirstRecordOfACompactedStoreIsDamage) {
  // Regression: with the first record's header overwritten, the intact commits after it
  // were not found (their sequence numbers were compared with 0), and the store was cut to
  // nothing, no copy kept.
  std::vector<state> expected;
  const std::string original = compacted_store(expected);
  std::mt19937 rng(21);
  int copies = 0;
  for (int round = 0; round < 300; ++round) {
    std::string damaged = original;
    for (std::size_t i = 16; i < 24; ++i) damaged[i] = static_cast<char>(rng());
    ASSERT_TRUE(loses_at_most_the_last_commit(damaged, expected, last_record_offset(original), 16, copies))
        << "round " << round;
  }
  EXPECT_EQ(copies, 300);
}

TEST(StoreDurability, GarbageOverMiddleRecordsIsDamage) {
  // Regression: garbage over a run of records in the middle, ending some records before the
  // end, was sometimes taken for an interrupted append: the intact records after it were
  // cut, no copy kept.
  std::vector<state> expected;
  const std::string original = six_commit_store(expected, 60);
  const std::size_t last_record = last_record_offset(original);
  std::mt19937 rng(22);
  int copies = 0;
  for (std::size_t at = 16; at + 400 + 240 < original.size(); at += 7) {
    std::string damaged = original;
    for (std::size_t i = at; i < at + 400; ++i) damaged[i] = static_cast<char>(rng());
    ASSERT_TRUE(loses_at_most_the_last_commit(damaged, expected, last_record, at, copies)) << "garbage at " << at;
  }
  EXPECT_GT(copies, 0);
}

TEST(StoreDurability, FilesCraftedToDefeatTheSearchCostLinearTime) {
  // Regression: a record claiming more than the file holds, whose payload brings its
  // checksum back every 4 bytes, made every open quadratic (58 s for 256 KB); 300 fake
  // record starts claiming the rest of the file made it checksum the file 300 times. Each
  // file here is a few MB; before, each open took minutes to hours. (This suite runs under a
  // ctest timeout: a hang fails it.)
  using savekit::detail::crc32c;
  std::string header = test_support::store_header();
  std::string first = test_support::commit_record(0, {{false, "a", 3, "1"}}, 1);
  // 1. The checksum trap, after an intact first record: kind and sequence number right.
  std::string payload = {0x01, 0x01, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x00};
  const std::uint32_t stored = crc32c(payload.data(), payload.size());
  // Four bytes that bring the running CRC back to `stored`: CRC-32C is invertible over 32 bits.
  std::uint32_t state_before = ~stored, back = state_before;
  const auto& table = savekit::detail::crc32c_tables[0];
  for (int k = 0; k < 4; ++k) {
    for (std::uint32_t i = 0; i < 256; ++i)
      if ((table[i] >> 24) == (back >> 24)) {
        back = ((back ^ table[i]) << 8) | i;
        break;
      }
  }
  std::uint32_t word = state_before ^ back;
  std::string trap = header + first;
  test_support::put_le(trap, 0xFFFFFFF0u, 4);
  test_support::put_le(trap, stored, 4);
  trap += payload;
  while (trap.size() < (std::size_t{4} << 20)) trap.append(reinterpret_cast<const char*>(&word), 4);
  // 2. Hundreds of plausible record starts, each claiming the rest of the file.
  std::string starts = header + first;
  test_support::put_le(starts, 11, 4);
  test_support::put_le(starts, 0x12345678, 4);  // a checksum that does not match
  starts.append(11, '\7');
  std::size_t base = starts.size();
  starts.resize(std::size_t{8} << 20, '\x55');
  for (std::size_t i = 0; i < 300; ++i) {
    std::size_t q = base + 17 * i;
    std::string fake;
    test_support::put_le(fake, starts.size() - q - 8, 4);
    test_support::put_le(fake, 0x12345678, 4);
    fake.push_back(1);
    test_support::put_le(fake, 2 + i, 8);
    starts.replace(q, fake.size(), fake);
  }
  for (const std::string* file : {&trap, &starts}) {
    fault_fs disk;
    disk.plant(store_path, *file);
    auto p = savekit::prefs::open(savekit::make_file_backend(store_path, disk));
    ASSERT_TRUE(p) << p.error().to_string();
    EXPECT_EQ(p->get_string("a"), "1");
    EXPECT_TRUE(p->recovery().recovered);
    // No prefix of the trap parses: it is what an interrupted append of a huge record
    // leaves. The fake starts exhaust the search: not provably torn, so a copy is kept.
    if (file == &starts) {
      EXPECT_FALSE(p->recovery().damaged_copy.empty()) << p->recovery().detail;
    }
  }
}

TEST(StoreDurability, AZeroFilledTailIsAnInterruptedAppend) {
  // Some file systems, after a crash during an extending append, leave the new size with
  // zeros where the data never arrived: that is a torn append, not damage.
  std::vector<state> expected;
  const std::string original = six_commit_store(expected);
  for (std::size_t zeros : {1u, 7u, 8u, 100u, 5000u}) {
    fault_fs disk;
    disk.plant(store_path, original + std::string(zeros, '\0'));
    auto reopened = savekit::prefs::open(savekit::make_file_backend(store_path, disk));
    ASSERT_TRUE(reopened);
    EXPECT_EQ(read_state(*reopened), expected.back());
    EXPECT_TRUE(reopened->recovery().recovered);
    EXPECT_TRUE(reopened->recovery().damaged_copy.empty()) << reopened->recovery().detail;
    EXPECT_EQ(disk.durable_content(store_path), original) << zeros;  // the zeros are cut off
  }
  // The last record's payload partly zeroed (its length already on disk): torn as well.
  std::string tail_zeroed = original;
  for (std::size_t i = tail_zeroed.size() - 5; i < tail_zeroed.size(); ++i) tail_zeroed[i] = 0;
  fault_fs disk;
  disk.plant(store_path, tail_zeroed);
  auto reopened = savekit::prefs::open(savekit::make_file_backend(store_path, disk));
  ASSERT_TRUE(reopened);
  EXPECT_EQ(read_state(*reopened), expected[expected.size() - 2]);
  EXPECT_TRUE(reopened->recovery().damaged_copy.empty()) << reopened->recovery().detail;
}

TEST(StoreDurability, RecordsFromANewerSavekitAreRefusedNotRewritten) {
  // Regression: unknown flag bits were accepted silently, and an unknown value type or
  // record kind was taken for damage — the store then rewritten without the newer data.
  using test_support::commit_record;
  using test_support::store_op;
  const std::string base =
      test_support::store_header() + commit_record(0, {}, 1) + commit_record(1, {{false, "a", 3, "x"}});
  struct newer_case {
    const char* what;
    std::string record;
  };
  newer_case cases[] = {
      {"flag bit 1", commit_record(2, {{false, "b", 3, "y"}}, 0x02)},
      {"flag bit 7", commit_record(2, {}, 0x81)},
      {"an unknown value type",
       commit_record(2, {{false, "b", static_cast<std::uint8_t>(savekit::value_type::end_of_known_types), "y"}})},
      {"record kind 2", commit_record(2, {}, 0, 2)},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const std::string content = base + c.record + commit_record(3, {{false, "c", 3, "z"}});
    for (bool read_only : {false, true}) {
      fault_fs disk;
      disk.plant(store_path, content);
      auto opened = savekit::prefs::open(savekit::make_file_backend(store_path, disk, {.read_only = read_only}));
      ASSERT_FALSE(opened);
      EXPECT_EQ(opened.error().code(), errc::unsupported_version) << opened.error().to_string();
      EXPECT_EQ(disk.durable_content(store_path), content);  // not repaired, not touched
      EXPECT_EQ(disk.durable_content(std::string(store_path) + ".damaged"), "");
    }
  }
  // The same base opens: the builder writes what docs/store-format.md describes.
  fault_fs disk;
  disk.plant(store_path, base);
  auto opened = savekit::prefs::open(savekit::make_file_backend(store_path, disk));
  ASSERT_TRUE(opened) << opened.error().to_string();
  EXPECT_EQ(opened->get_string("a"), "x");
  EXPECT_FALSE(opened->recovery().recovered);
}

TEST(StoreDurability, ADamagedLengthInTheLastRecordIsDamageNotATornTail) {
  // An interrupted append leaves a prefix of a record; a whole record whose length field
  // claims more than the file holds had its length damaged: keep a copy.
  std::vector<state> expected;
  const std::string original = six_commit_store(expected);
  const std::size_t last_record = last_record_offset(original);
  std::string damaged = original;
  damaged[last_record + 1] = static_cast<char>(damaged[last_record + 1] ^ 0x10);  // +4096 bytes
  fault_fs disk;
  disk.plant(store_path, damaged);
  auto reopened = savekit::prefs::open(savekit::make_file_backend(store_path, disk));
  ASSERT_TRUE(reopened);
  EXPECT_EQ(read_state(*reopened), expected[expected.size() - 2]);
  EXPECT_FALSE(reopened->recovery().damaged_copy.empty()) << reopened->recovery().detail;
  EXPECT_EQ(disk.durable_content(reopened->recovery().damaged_copy), damaged);
}

TEST(StoreDurability, DamagedRecordIsReportedAndAFileCopyKept) {
  fault_fs fs;
  {
    auto p = savekit::prefs::open(savekit::make_file_backend(store_path, fs, {.compact_min_bytes = 1 << 30}));
    ASSERT_TRUE(p);
    for (int i = 0; i < 3; ++i) {
      ASSERT_TRUE(p->set_int("n", i));
      ASSERT_TRUE(p->save());
    }
  }
  std::string content = fs.durable_content(store_path);
  // Flip a byte inside the payload of the second record, which a third one follows. The
  // first record is the new store's empty snapshot: 8 bytes of record header, 11 of payload.
  std::size_t second_record = 16 + 8 + 11;
  content[second_record + 8 + 3] ^= 0x40;
  fault_fs disk;
  disk.plant(store_path, content);
  auto reopened = savekit::prefs::open(savekit::make_file_backend(store_path, disk));
  ASSERT_TRUE(reopened);
  const auto& report = reopened->recovery();
  EXPECT_TRUE(report.recovered);
  EXPECT_FALSE(report.detail.empty());
  EXPECT_EQ(report.damaged_copy, std::string(store_path) + ".damaged");
  EXPECT_EQ(disk.durable_content(report.damaged_copy), content);
  EXPECT_FALSE(reopened->has_key("n"));  // the newest intact state: before the damaged commit
}

TEST(StoreDurability, NewerFormatIsRefused) {
  fault_fs fs;
  { ASSERT_TRUE(savekit::prefs::open(savekit::make_file_backend(store_path, fs))); }
  std::string content = fs.durable_content(store_path);
  content[8] = 2;  // format version 2 ...
  // ... with a valid header checksum, as a newer savekit would write it.
  fault_fs disk;
  disk.plant(store_path, content);
  auto reopened = savekit::prefs::open(savekit::make_file_backend(store_path, disk));
  ASSERT_FALSE(reopened);
  EXPECT_TRUE(reopened.error().code() == errc::unsupported_version || reopened.error().code() == errc::corrupt_store);
}

TEST(StoreDurability, ReadsAFileWrittenFromTheFormatDocument) {
  // tests/fuzz/corpus/store_open/three_commits.prefs was written by a Python script that
  // follows docs/store-format.md (with its own CRC-32C), not by savekit.
  std::ifstream in(std::string(SAVEKIT_SOURCE_DIR) + "/tests/fuzz/corpus/store_open/three_commits.prefs",
                   std::ios::binary);
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_EQ(content.size(), 110u);
  fault_fs disk;
  disk.plant(store_path, content);
  auto p = savekit::prefs::open(savekit::make_file_backend(store_path, disk));
  ASSERT_TRUE(p) << p.error().to_string();
  EXPECT_FALSE(p->recovery().recovered);
  EXPECT_EQ(p->keys(), (std::vector<std::string>{"name", "status"}));  // lv was erased by commit 2
  EXPECT_EQ(p->get_string("name"), std::string("a\0b", 3));
  EXPECT_EQ(*p->type_of("status"), savekit::value_type::msgpack);
  EXPECT_EQ(savekit::msgpack_to_json(p->get_raw("status")->bytes).value(), R"({"hp":10})");
}

TEST(StoreDurability, ReadOnlyOpenChangesNothing) {
  fault_fs fs;
  {
    auto p = savekit::prefs::open(savekit::make_file_backend(store_path, fs));
    ASSERT_TRUE(p->set_int("n", 1));
    ASSERT_TRUE(p->save());
    ASSERT_TRUE(p->set_int("n", 2));
    ASSERT_TRUE(p->save());
  }
  std::string content = fs.durable_content(store_path);
  std::string torn = content.substr(0, content.size() - 3);  // the last commit cut short
  fault_fs disk;
  disk.plant(store_path, torn);
  {
    auto p = savekit::prefs::open(savekit::make_file_backend(store_path, disk, {.read_only = true}));
    ASSERT_TRUE(p);
    EXPECT_EQ(p->get_int("n"), 1);
    EXPECT_TRUE(p->recovery().recovered);
    ASSERT_TRUE(p->set_int("n", 5));
    EXPECT_FALSE(p->save());  // read-only
  }
  EXPECT_EQ(disk.durable_content(store_path), torn);  // not repaired, not touched
  auto missing = savekit::prefs::open(savekit::make_file_backend("/nothing.prefs", disk, {.read_only = true}));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code(), errc::not_found);

  auto check = savekit::check_store_file(store_path, disk);
  ASSERT_TRUE(check);
  EXPECT_TRUE(check->header_ok);
  EXPECT_TRUE(check->torn_tail);
  EXPECT_FALSE(check->damaged);
  EXPECT_EQ(check->commits, 2u);  // the empty snapshot and the first commit
  EXPECT_EQ(check->file_bytes, torn.size());
  EXPECT_LT(check->intact_bytes, check->file_bytes);
}

TEST(StoreDurability, KeysNoStoreCanHoldAreNotLoaded) {
  // A store file may only hold what prefs accepts (keys of 1 to 1,024 bytes), so that
  // every entry it loads can be exported and imported again. A record with an empty or a
  // longer key was not written by savekit: damage, the file kept as a copy.
  using test_support::commit_record;
  for (const std::string& bad_key : {std::string{}, std::string(savekit::max_key_size + 1, 'k')}) {
    const std::string good = test_support::store_header() + commit_record(0, {{false, "a", 3, "1"}}, 1);
    const std::string content = good + commit_record(1, {{false, bad_key, 3, "x"}}) + commit_record(2, {});
    fault_fs disk;
    disk.plant(store_path, content);
    auto p = savekit::prefs::open(savekit::make_file_backend(store_path, disk));
    ASSERT_TRUE(p);
    EXPECT_EQ(p->keys(), std::vector<std::string>{"a"});
    EXPECT_TRUE(p->recovery().recovered);
    EXPECT_EQ(disk.durable_content(p->recovery().damaged_copy), content);
  }
}

TEST(StoreDurability, LostBytesOrNewerRecordsAfterDamageAreNotATornTail) {
  // Regression: bytes lost inside a small record (a lossy copy) moved the next intact record
  // closer than a whole record's size, so the search did not count it, and records from a
  // newer savekit after a damaged one did not count at all: either way the tail was cut as
  // an interrupted append, no copy kept.
  using test_support::commit_record;
  const std::string head = test_support::store_header() + commit_record(0, {{false, "a", 3, "1"}}, 1);
  const std::string second = commit_record(1, {{true, "zz", 0, ""}});
  const std::string third = commit_record(2, {{false, "b", 3, "2"}});
  for (std::size_t lost = 1; lost <= 8; ++lost) {
    std::string damaged = head + second.substr(0, second.size() - lost) + third;
    test_support::fault_fs disk;
    disk.plant(store_path, damaged);
    auto p = savekit::prefs::open(savekit::make_file_backend(store_path, disk));
    ASSERT_TRUE(p);
    EXPECT_FALSE(p->recovery().damaged_copy.empty()) << lost << " bytes lost: " << p->recovery().detail;
  }
  std::string newer = head + second;
  newer[head.size() + 1] ^= 0x40;  // the second record's length
  newer += commit_record(2, {{false, "b", 8, "from the future"}});
  test_support::fault_fs disk;
  disk.plant(store_path, newer);
  auto p = savekit::prefs::open(savekit::make_file_backend(store_path, disk));
  ASSERT_TRUE(p);
  EXPECT_FALSE(p->recovery().damaged_copy.empty()) << p->recovery().detail;
  EXPECT_EQ(disk.durable_content(p->recovery().damaged_copy), newer);
}
