// A structure-aware store fuzzer. The input is a program, not a file: it builds a store
// file of records with valid checksums (kinds, flags, sequence numbers, keys, value types
// and values mostly right, sometimes wrong), optionally damages it (a flipped bit, a cut,
// a zero-filled tail, garbage), opens it, calls every typed getter on what loaded, then
// runs sets, deletes, saves with injected I/O faults and power cuts, and checks after each
// reopen that the store holds the last acknowledged state or one a failed save carried.
// (fuzz_store_open feeds raw bytes, which rarely pass a checksum.)
#include <fuzzer/FuzzedDataProvider.h>
#include <savekit/prefs.hpp>

#include <map>
#include <string>

#include "../support/fault_fs.hpp"
#include "../support/store_file.hpp"
#include "fuzz_common.hpp"

namespace {

using state = std::map<std::string, savekit::stored_value>;
constexpr const char* path = "/saves/fuzz.prefs";

std::string fuzz_key(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange(0, 9)) {
    case 0:
      return in.ConsumeRandomLengthString(1100);  // empty, long, any byte
    default:
      return "k" + std::to_string(in.ConsumeIntegralInRange(0, 7));
  }
}

// A value for a type tag: mostly what savekit writes for it, sometimes any bytes.
std::string fuzz_value(FuzzedDataProvider& in, std::uint8_t type) {
  if (in.ConsumeIntegralInRange(0, 3) == 0) return in.ConsumeRandomLengthString(64);
  std::string out;
  switch (type) {
    case 1:
      savekit::to_msgpack(in.ConsumeIntegral<std::int64_t>(), out);
      return out;
    case 2:
      savekit::to_msgpack(in.ConsumeFloatingPoint<double>(), out);
      return out;
    case 5:
    case 6: {
      fuzz::World world;
      world.status.lv = in.ConsumeIntegral<int>();
      world.save.Name = in.ConsumeRandomLengthString(16);
      savekit::to_msgpack(world, out,
                          {.form = type == 5 ? savekit::msgpack_form::map : savekit::msgpack_form::compact});
      return out;
    }
    case 7:
      return savekit::to_json(seeds::seed_status());
    default:
      return in.ConsumeRandomLengthString(32);
  }
}

std::string build_store(FuzzedDataProvider& in) {
  std::string file = test_support::store_header(in.ConsumeIntegralInRange(0, 20) == 0 ? 2 : 1);
  std::uint64_t sequence = in.ConsumeIntegral<std::uint8_t>();
  int records = in.ConsumeIntegralInRange(0, 8);
  for (int r = 0; r < records; ++r) {
    std::vector<test_support::store_op> ops;
    int count = in.ConsumeIntegralInRange(0, 5);
    for (int i = 0; i < count; ++i) {
      test_support::store_op op;
      op.erase = in.ConsumeIntegralInRange(0, 4) == 0;
      op.key = fuzz_key(in);
      op.type = in.ConsumeIntegralInRange(0, 20) == 0 ? in.ConsumeIntegral<std::uint8_t>()
                                                      : in.ConsumeIntegralInRange<std::uint8_t>(1, 7);
      op.value = fuzz_value(in, op.type);
      ops.push_back(std::move(op));
    }
    std::uint8_t flags = r == 0 ? 1 : 0;
    if (in.ConsumeIntegralInRange(0, 15) == 0) flags = in.ConsumeIntegral<std::uint8_t>();
    std::uint8_t kind = in.ConsumeIntegralInRange(0, 30) == 0 ? in.ConsumeIntegral<std::uint8_t>() : 1;
    std::uint64_t this_sequence =
        in.ConsumeIntegralInRange(0, 15) == 0 ? in.ConsumeIntegral<std::uint64_t>() : sequence;
    file += test_support::commit_record(this_sequence, ops, flags, kind);
    sequence = this_sequence + 1;
  }
  switch (in.ConsumeIntegralInRange(0, 5)) {
    case 0:
      if (!file.empty()) {
        std::size_t at = in.ConsumeIntegralInRange<std::size_t>(0, file.size() - 1);
        file[at] = static_cast<char>(file[at] ^ (1 << in.ConsumeIntegralInRange(0, 7)));
      }
      break;
    case 1:
      file.resize(in.ConsumeIntegralInRange<std::size_t>(0, file.size()));
      break;
    case 2:
      file.append(in.ConsumeIntegralInRange<std::size_t>(1, 64), '\0');
      break;
    case 3:
      file += in.ConsumeRandomLengthString(64);
      break;
    default:
      break;
  }
  return file;
}

// Every getter on every key: none may crash, and each says why when it fails.
void read_everything(const savekit::prefs& p) {
  for (const std::string& key : p.keys()) {
    auto raw = p.get_raw(key);
    FUZZ_CHECK(raw);
    (void)p.try_get_int(key);
    (void)p.try_get_float(key);
    (void)p.try_get_string(key);
    (void)p.get_bytes(key);
    (void)p.get<fuzz::World>(key);
    (void)p.get<seeds::Status>(key);
    auto typed = p.type_of(key);
    FUZZ_CHECK(typed && savekit::is_known(*typed));
  }
}

state snapshot(const savekit::prefs& p) {
  state out;
  for (const std::string& key : p.keys()) out[key] = *p.get_raw(key);
  return out;
}

bool same(const state& a, const state& b) {
  if (a.size() != b.size()) return false;
  for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib)
    if (ia->first != ib->first || ia->second.type != ib->second.type || ia->second.bytes != ib->second.bytes)
      return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const std::string planted = build_store(in);
  test_support::fault_fs fs;
  fs.plant(path, planted);
  savekit::file_backend_options options{.compact_ratio = 1.2 + in.ConsumeIntegralInRange(0, 20) / 10.0,
                                        .compact_min_bytes = in.ConsumeIntegralInRange<std::uint64_t>(0, 2048)};
  auto opened = savekit::prefs::open(savekit::make_file_backend(path, fs, options));
  if (!opened) {
    auto code = opened.error().code();
    FUZZ_CHECK(code == savekit::errc::corrupt_store || code == savekit::errc::unsupported_version);
    FUZZ_CHECK(fs.durable_content(path) == planted);  // refused files are left as they were
    return 0;
  }
  savekit::prefs& p = *opened;
  const auto& report = p.recovery();
  if (!report.damaged_copy.empty()) FUZZ_CHECK(fs.durable_content(report.damaged_copy) == planted);
  read_everything(p);

  state acknowledged = snapshot(p);
  // What the saves that failed since then carried: each may have reached the disk before
  // it failed (a write that got through, a sync that did not report), never part of one.
  std::vector<state> in_flight;
  while (in.remaining_bytes() > 0) {
    switch (in.ConsumeIntegralInRange(0, 6)) {
      // (Every input is consumed in its own statement: the order in which a compiler
      // evaluates function arguments is unspecified, and a crash must replay anywhere.)
      case 0: {
        std::string key = fuzz_key(in);
        (void)p.set_string(key, in.ConsumeRandomLengthString(40));
        break;
      }
      case 1: {
        std::string key = fuzz_key(in);
        (void)p.set_int(key, in.ConsumeIntegral<std::int64_t>());
        break;
      }
      case 2:
        (void)p.delete_key(fuzz_key(in));
        break;
      case 3:
        if (in.ConsumeIntegralInRange(0, 9) == 0) p.delete_all();
        break;
      case 4: {
        // A save, perhaps with a fault at one of its next operations.
        if (in.ConsumeBool()) {
          auto kind =
              in.ConsumeBool() ? test_support::fault_fs::fault::fail : test_support::fault_fs::fault::short_write;
          fs.arm(kind, fs.operations() + in.ConsumeIntegralInRange(0, 6));
        }
        state before_save = snapshot(p);
        if (p.save()) {
          acknowledged = before_save;
          in_flight.clear();
        } else {
          in_flight.push_back(before_save);
        }
        fs.arm(test_support::fault_fs::fault::none, -1);
        break;
      }
      default: {
        // The power goes; the next "process" opens the store.
        fs.power_cut(in.ConsumeIntegralInRange(0, 2) / 2.0);
        fs.restart();
        auto again = savekit::prefs::open(savekit::make_file_backend(path, fs, options));
        FUZZ_CHECK(again);
        state got = snapshot(*again);
        bool known = same(got, acknowledged);
        for (const state& s : in_flight) known = known || same(got, s);
        FUZZ_CHECK(known);
        read_everything(*again);
        return 0;
      }
    }
  }
  return 0;
}
