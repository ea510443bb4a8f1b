// Any bytes as the newest generation file of a slot: listing, reading, the history and
// the thumbnail never crash and never fail for it — a file that is not intact is set
// aside and the slot falls back to the intact generation before it — and the slot takes
// a new save afterwards.
#include <savekit/slots.hpp>

#include "../support/fault_fs.hpp"
#include "fuzz_common.hpp"
#include "seed_types.hpp"
#include "slot_checksums.hpp"
#include "slot_format.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  test_support::fault_fs fs;
  const seeds::SaveGame first = seeds::seed_save_game();
  {
    auto s = savekit::slots::open("/saves", {.fs = &fs});
    FUZZ_CHECK(s);
    FUZZ_CHECK(s->write("slot1", first, {.title = "first"}));
  }
  std::string file(fuzz::as_text(data, size));
  if (!file.empty() && (file[0] & 1)) file = fuzz::with_checksums(file.substr(1));
  fs.plant("/saves/s-slot1.2.slot", file);
  auto s = savekit::slots::open("/saves", {.fs = &fs});
  FUZZ_CHECK(s);
  auto menu = s->list();
  FUZZ_CHECK(menu && menu->size() == 1);
  auto history = s->history("slot1");
  FUZZ_CHECK(history && !history->empty());
  (void)s->thumbnail("slot1");
  savekit::read_report report;
  auto read = s->read<seeds::SaveGame>("slot1", &report);
  if (read) {
    // The planted generation (intact), or the one before it, whole.
    FUZZ_CHECK(report.generation == 2 || (report.generation == 1 && *read == first));
  } else {
    // Intact bytes that are not a SaveGame, or from a newer savekit: said so, never hidden.
    auto code = read.error().code();
    FUZZ_CHECK(code != savekit::errc::not_found && code != savekit::errc::damaged && code != savekit::errc::io_error);
  }
  if (report.fell_back()) FUZZ_CHECK(read && report.generation == 1);
  seeds::SaveGame next = first;
  next.HighScore = 42;
  FUZZ_CHECK(s->write("slot1", next));
  auto again = s->read<seeds::SaveGame>("slot1");
  FUZZ_CHECK(again && *again == next);
  return 0;
}
