// A sealed slot's newest generation changed by someone without the key, structure-aware:
// the input edits an authentic sealed generation (compact form, so that its layout and
// encoding matter) and every CRC is made valid again, so that only the seal stands between
// the edit and the game. However it is edited, a folder opened with the sealer never reads
// a value the key holder did not write: it reads one of the two authentic saves, or says
// why not (tampered, a newer format, damaged) — and never crashes.
//   first input byte even: the rest is XORed into the authentic file from a 16-bit offset;
//   odd: the rest is the whole file. Either way the checksums are made valid.
#include <savekit/seal.hpp>
#include <savekit/slots.hpp>

#include <array>

#include "../support/fault_fs.hpp"
#include "fuzz_common.hpp"
#include "seed_types.hpp"
#include "slot_checksums.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto sealer = [] {
    std::array<std::byte, savekit::seal_key_bytes> bytes;
    bytes.fill(std::byte{0x5A});
    return savekit::make_slot_sealer(
        savekit::keyring{*savekit::seal_key::from_bytes(1, bytes)},
        {.compression = savekit::seal_compression::none, .protection = savekit::seal_protection::mac}, "player");
  }();
  test_support::fault_fs fs;
  const seeds::SaveGame first = seeds::seed_save_game();
  seeds::SaveGame second = first;
  second.HighScore = 7;
  const savekit::write_options compact{.encoding = savekit::object_encoding::msgpack_compact};
  std::string authentic;
  {
    auto s = savekit::slots::open("/saves", {.fs = &fs, .sealer = sealer});
    FUZZ_CHECK(s);
    FUZZ_CHECK(s->write("slot1", first, {.title = "first"}, compact));
    FUZZ_CHECK(s->write("slot1", second, {.title = "second"}, compact));
  }
  authentic = fs.durable_content("/saves/s-slot1.2.slot");
  FUZZ_CHECK(!authentic.empty());
  std::string file;
  if (size > 0 && (data[0] & 1) == 0) {
    file = authentic;
    const std::size_t at = size >= 3 ? (std::size_t{data[1]} | std::size_t{data[2]} << 8) : 0;
    for (std::size_t i = 3; i < size && at + i - 3 < file.size(); ++i) file[at + i - 3] ^= static_cast<char>(data[i]);
  } else {
    file = std::string(fuzz::as_text(data, size).substr(size > 0 ? 1 : 0));
  }
  fs.plant("/saves/s-slot1.2.slot", fuzz::with_checksums(file));
  const bool unchanged = fuzz::with_checksums(file) == authentic;

  auto s = savekit::slots::open("/saves", {.fs = &fs, .sealer = sealer});
  FUZZ_CHECK(s);
  (void)s->list();
  (void)s->history("slot1");
  savekit::read_report report;
  auto read = s->read<seeds::SaveGame>("slot1", &report);
  if (read) {
    // Never a value the key holder did not write. (The first save's file put in the second's
    // place reads as the first: the seal does not bind the generation — docs/sealed.md.)
    FUZZ_CHECK(*read == second || *read == first);
  } else {
    FUZZ_CHECK(!unchanged);
    const auto code = read.error().code();
    FUZZ_CHECK(code == savekit::errc::tampered || code == savekit::errc::unsupported_version ||
               code == savekit::errc::incompatible_layout || code == savekit::errc::newer_schema ||
               code == savekit::errc::unsupported_algorithm || code == savekit::errc::key_not_held ||
               code == savekit::errc::value_too_large);
  }
  auto payload = s->read_generation("slot1", 2);
  if (payload && payload->encoding == savekit::object_encoding::msgpack_compact) {
    auto value = savekit::from_msgpack<seeds::SaveGame>(payload->bytes);
    if (value) FUZZ_CHECK(*value == second || *value == first);
  }
  return 0;
}
