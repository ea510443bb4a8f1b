// Sealed saves in the browser (savekit/seal.hpp over zstd and libsodium built with emcc from
// Debian's sources): slots over IndexedDB that seal their saves, and envelopes crossing
// between the native build and the page, in both directions:
//   native -> page: idb_tests.html fetches what the native test_portability sealed (when the
//     build tree has it) into Module.nativeSealed before the suite starts; each must open here.
//   page -> native: the page seals the portable world and leaves the envelope in
//     window.sealedInPage; run_browser_tests.mjs writes it out and the native test_portability
//     (open-sealed) opens it.
#include <emscripten/emscripten.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "page_test.hpp"
#include "savekit/indexeddb.hpp"
#include "savekit/savekit.hpp"
#include "savekit/seal.hpp"
#include "support/portable_world.hpp"

// The native envelopes idb_tests.html fetched: their names, and one's bytes (malloc'd).
EM_JS(char*, native_sealed_names, (), {
  var names = Object.keys(Module.nativeSealed || {}).join('\n');
  var size = lengthBytesUTF8(names) + 1;
  var out = _malloc(size);
  stringToUTF8(names, out, size);
  return out;
});
EM_JS(char*, native_sealed_bytes, (const char* name, int* size), {
  var bytes = Module.nativeSealed[UTF8ToString(name)];
  var out = _malloc(Math.max(bytes.length, 1));
  HEAPU8.set(bytes, out);
  HEAP32[size >> 2] = bytes.length;
  return out;
});
EM_JS(void, report_native_opened, (int count), { window.nativeSealedOpened = count; });
EM_JS(void, leave_sealed_in_page, (const char* bytes, int size),
      { window.sealedInPage = Array.from(HEAPU8.subarray(bytes, bytes + size)); });

namespace {

using namespace page_test;

std::optional<savekit::slots> sealed_folder;
std::shared_ptr<const savekit::payload_sealer> sealer() {
  return savekit::make_slot_sealer(portable::keys(), {.level = 3}, "player-7");
}

// The folder opens on its heads: the save is fetched before it is read.
step load_hero() {
  return [](next_fn next) {
    if (!sealed_folder) return next();
    sealed_folder->load_async("hero", [next](savekit::status loaded) {
      CHECK(loaded.has_value());
      next();
    });
  };
}

step open_sealed_folder(std::shared_ptr<const savekit::payload_sealer> with) {
  return [with](next_fn next) {
    savekit::web::indexeddb_slots_options options;
    options.slots.sealer = with;
    savekit::web::open_slots(
        "sealed",
        [next](savekit::result<savekit::slots> opened, const savekit::web::storage_info&) {
          CHECK(opened.has_value());
          if (!opened) std::printf("  open failed: %s\n", opened.error().message().c_str());
          if (opened) sealed_folder = std::move(*opened);
          next();
        },
        options);
  };
}

test_case sealed_slots_survive_a_reopen() {
  return {"sealed saves: slots over IndexedDB seal, and open after a reopen only with the key",
          {open_sealed_folder(sealer()),
           [](next_fn next) {
             if (!sealed_folder) return next();
             sealed_folder->write_async("hero", portable::make_world(), {.title = "sealed in the page"},
                                        [next](savekit::status saved) {
                                          CHECK(saved.has_value());
                                          next();
                                        });
           },
           [](next_fn next) {
             sealed_folder.reset();
             next();
           },
           open_sealed_folder(sealer()), load_hero(),
           [](next_fn next) {
             if (sealed_folder) {
               auto world = sealed_folder->read<portable::World>("hero");
               CHECK(world && *world == portable::make_world());
               auto info = sealed_folder->info("hero");
               CHECK(info && info->sealed && info->meta.title == "sealed in the page");
             }
             sealed_folder.reset();
             next();
           },
           open_sealed_folder(nullptr),  // no key: the menu shows it, the save stays shut
           load_hero(),
           [](next_fn next) {
             if (sealed_folder) {
               auto world = sealed_folder->read<portable::World>("hero");
               CHECK(!world && world.error().code() == savekit::errc::key_not_held);
               CHECK(sealed_folder->info("hero").has_value());
             }
             sealed_folder.reset();
             next();
           }}};
}

// Every envelope the native build sealed opens here to the same JSON; then one sealed here
// is left for the native build to open.
test_case envelopes_cross_between_native_and_page() {
  return {"sealed saves: envelopes sealed natively open in the page, and the page seals one for native",
          {[](next_fn next) {
            std::string json;
            savekit::to_json(portable::make_world(), json);
            const savekit::keyring keys = portable::keys();
            char* names = native_sealed_names();
            std::vector<std::string> envelopes;
            std::optional<savekit::zstd_dictionary> dictionary;
            for (std::string_view rest = names; !rest.empty();) {
              const std::size_t end = rest.find('\n');
              std::string name{rest.substr(0, end)};
              rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
              int size = 0;
              char* bytes = native_sealed_bytes(name.c_str(), &size);
              std::string content(bytes, static_cast<std::size_t>(size));
              std::free(bytes);
              if (name == "game.dict") {
                auto loaded = savekit::zstd_dictionary::from_bytes(std::move(content));
                CHECK(loaded.has_value());
                if (loaded) dictionary = std::move(*loaded);
              } else {
                envelopes.push_back(std::move(content));
              }
            }
            std::free(names);
            int opened_count = 0;
            for (const std::string& envelope : envelopes) {
              savekit::unseal_options open{.minimum_protection = savekit::seal_protection::none};
              if (dictionary) open.dictionaries.push_back(&*dictionary);
              auto opened = savekit::unseal(envelope, &keys, portable::sealed_context, open);
              CHECK(opened && *opened == json);
              if (!opened) std::printf("  unseal failed: %s\n", opened.error().to_string().c_str());
              if (opened && *opened == json) ++opened_count;
            }
            report_native_opened(opened_count);
            auto sealed =
                savekit::seal(json, {.protection = savekit::seal_protection::aead}, portable::sealed_context, &keys);
            CHECK(sealed.has_value());
            if (sealed) leave_sealed_in_page(sealed->data(), static_cast<int>(sealed->size()));
            next();
          }}};
}

}  // namespace

std::vector<test_case> make_seal_tests() {
  return {sealed_slots_survive_a_reopen(), envelopes_cross_between_native_and_page()};
}
void seal_tests_reset() { sealed_folder.reset(); }
