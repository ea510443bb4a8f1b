// Any bytes as the newest generation file of a slot: listing, reading, the history and
// the thumbnail never crash and never fail for it — a file that is not intact is set
// aside and the slot falls back to the intact generation before it — and the slot takes
// a new save afterwards.
#include <savekit/slots.hpp>

#include "../support/fault_fs.hpp"
#include "crc32c.hpp"
#include "fuzz_common.hpp"
#include "little_endian.hpp"
#include "seed_types.hpp"
#include "slot_format.hpp"

namespace {

// With the first byte odd, the rest gets valid checksums wherever its sizes allow, so
// that the fuzzer gets past them to the sizes, the metadata and the payload.
std::string with_checksums(std::string file) {
  using namespace savekit::detail;
  if (file.size() < slot_header_size) return file;
  auto put = [&](std::size_t at, std::uint32_t v) {
    std::string le;
    put_u32(le, v);
    file.replace(at, 4, le);
  };
  const std::uint64_t name = get_u32(file.data() + 48), meta = get_u32(file.data() + 52);
  const std::uint64_t thumbnail = get_u32(file.data() + 56), payload = get_u64(file.data() + 60);
  const std::uint64_t size = file.size() - slot_header_size;
  if (name + meta <= size) put(68, crc32c(file.data() + slot_header_size, name + meta));
  if (name + meta + thumbnail <= size) put(72, crc32c(file.data() + slot_header_size + name + meta, thumbnail));
  if (payload <= size && name + meta + thumbnail + payload == size)
    put(76, crc32c(file.data() + slot_header_size + name + meta + thumbnail, payload));
  put(80, crc32c(file.data(), 80));
  return file;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  test_support::fault_fs fs;
  const seeds::SaveGame first = seeds::seed_save_game();
  {
    auto s = savekit::slots::open("/saves", {.fs = &fs});
    FUZZ_CHECK(s);
    FUZZ_CHECK(s->write("slot1", first, {.title = "first"}));
  }
  std::string file(fuzz::as_text(data, size));
  if (!file.empty() && (file[0] & 1)) file = with_checksums(file.substr(1));
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
