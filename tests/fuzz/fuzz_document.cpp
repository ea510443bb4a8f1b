// Any bytes as a document (MessagePack; JSON when the first byte is 'J'): what reads
// writes back and reads again to the same bytes; a migration chain of every edit runs
// on it (compact documents named through a layout first) and its result either reads
// into a struct or says why — never a crash.
#include <savekit/document.hpp>
#include <savekit/slots.hpp>

#include "fuzz_common.hpp"

namespace {

struct Migrated {
  std::string name;
  int health = 0;
  std::map<std::string, int> items;
  std::optional<std::vector<seeds::InventoryItem>> bag;
};

const std::vector<savekit::migration_step> steps = {
    {2,
     [](savekit::document& d) -> savekit::status {
       d.rename("hp", "health");
       return {};
     }},
    {3, [](savekit::document& d) { return d.move("stats.items", "items"); }},
    {4,
     [](savekit::document& d) -> savekit::status {
       (void)d.erase("a[0].b");
       (void)d.put("x.y[0]", 1);
       if (d.is_object()) (void)d.set("name", "fuzz");
       return {};
     }},
};

const std::vector<std::string> layout = {"$@0=name", "$@1=health",    "$@2=items",
                                         "$@3=bag",  "$.bag?[]@0=Id", "$.bag?[]@1=Quantity"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input = fuzz::as_text(data, size);
  const bool json = !input.empty() && input[0] == 'J';
  auto d = json ? savekit::document::from_json(input.substr(1), {.max_depth = 64, .max_memory = 1 << 24})
                : savekit::document::from_msgpack(input, {.max_depth = 64, .max_memory = 1 << 24});
  if (!d) return 0;
  std::vector<std::byte> packed = d->to_msgpack();
  auto again = savekit::document::from_msgpack(packed);
  FUZZ_CHECK(again && again->to_msgpack() == packed);  // bytes: NaN is not equal to itself
  if (auto text = d->to_json(); text) FUZZ_CHECK(savekit::document::from_json(*text));

  savekit::document named = savekit::detail::name_compact_document(*d, layout);
  for (savekit::document* doc : {&*d, &named}) {
    if (!savekit::migrate(*doc, steps, 1, 4)) continue;
    Migrated into;
    (void)savekit::from_msgpack(doc->to_msgpack(), into);  // reads or says why
  }
  return 0;
}
