// Any bytes as what a server answers the sync: a list, a slot's kept versions, an error
// answer (a 412's slot), an ETag, a time, a save's metadata and a downloaded generation file. Each parser returns a
// value or an error and never crashes; what a parser accepts holds its promises (a listed
// name is a slot name, a version is positive; a generation file parses back to itself).
#include "cloud/wire.hpp"
#include "fuzz_common.hpp"
#include "slot_checksums.hpp"
#include "slot_sync_access.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  using namespace savekit::cloud::detail;
  if (auto listing = parse_listing(text)) {
    for (const auto* list : {&listing->live, &listing->deleted})
      for (const remote_entry& e : *list) {
        FUZZ_CHECK(savekit::slots::check_name(e.name));
        FUZZ_CHECK(e.version > 0 && e.bytes >= 0);
      }
  } else {
    FUZZ_CHECK(listing.error().code() == savekit::errc::network);
  }
  if (auto kept = parse_versions(text, "slot1")) {
    for (const remote_entry& v : *kept) FUZZ_CHECK(v.name == "slot1" && v.version > 0 && v.bytes >= 0);
  } else {
    FUZZ_CHECK(kept.error().code() == savekit::errc::network);
  }
  if (auto answer = parse_error_answer(text); answer && answer->slot) FUZZ_CHECK(answer->slot->version > 0);
  if (auto version = parse_etag(text)) FUZZ_CHECK(*version > 0);
  (void)parse_rfc3339(text);
  remote_entry e;
  read_meta(text, e);
  // As a generation file, raw and with its checksums made right (to get past them).
  std::string file(text);
  if (!file.empty() && (file[0] & 1)) file = fuzz::with_checksums(file.substr(1));
  if (auto parsed = savekit::detail::parse_generation_file(file)) {
    FUZZ_CHECK(savekit::slots::check_name(parsed->name));
    (void)savekit::detail::content_of(parsed->header, parsed->meta, parsed->compact_layout, parsed->payload);
  }
  return 0;
}
