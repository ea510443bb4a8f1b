#include <savekit/prefs.hpp>
#include <savekit/savekit.hpp>

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
  std::printf("%s\n", text.c_str());
}
