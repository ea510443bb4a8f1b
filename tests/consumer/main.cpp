#include <savekit/prefs.hpp>
#include <savekit/savekit.hpp>
#if SAVEKIT_CONSUMER_SEAL
#include <savekit/seal.hpp>
#endif
#if SAVEKIT_CONSUMER_CLOUD
#include <unistd.h>
#include <savekit/cloud.hpp>

#include <filesystem>
#endif

#include <cstdio>
#include <cstring>

struct Hero {
  int level;
  std::string name;
};

int main() {
  if (std::strcmp(savekit::version, SAVEKIT_PACKAGE_VERSION) != 0) {
    std::printf("headers say %s, the package says %s\n", savekit::version, SAVEKIT_PACKAGE_VERSION);
    return 1;
  }
  std::string text = savekit::to_json(Hero{3, "hero"});
  auto back = savekit::from_json<Hero>(text);
  if (!back || back->level != 3) return 1;
  // The compiled part of the library links too.
  auto store = savekit::prefs::open(savekit::make_memory_backend());
  if (!store || !store->set("hero", *back) || !store->save() || store->get<Hero>("hero")->name != "hero") return 1;
#if SAVEKIT_CONSUMER_SEAL
  // savekit::seal links, with libzstd and libsodium found through the package.
  savekit::keyring keys{savekit::seal_key::generate(1).value()};
  savekit::seal_context where{.name = "hero", .schema_version = 1, .player = "p"};
  auto sealed = savekit::seal(text, {}, where, &keys);
  if (!sealed) return 1;
  auto opened = savekit::unseal(*sealed, &keys, where);
  if (!opened || *opened != text) return 1;
#endif
#if SAVEKIT_CONSUMER_CLOUD
  // savekit::cloud links, with libcurl found through the package: a sync opens on a folder.
  {
    const auto folder = std::filesystem::temp_directory_path() / ("savekit-consumer-" + std::to_string(::getpid()));
    bool synced = false;
    {
      auto slots = savekit::slots::open(folder.string());
      auto sync = slots ? savekit::cloud::sync::open(*slots, {.url = "http://127.0.0.1:1", .token = "t", .device = "d"})
                        : savekit::result<savekit::cloud::sync>{slots.error()};
      synced = sync && sync->status();
    }
    std::filesystem::remove_all(folder);
    if (!synced) return 1;
  }
#endif
  std::printf("%s\n", text.c_str());
}
