#include <savekit/prefs.hpp>
#include <savekit/savekit.hpp>

#include <cstdio>

struct Hero {
  int level;
  std::string name;
};

int main() {
  std::string text = savekit::to_json(Hero{3, "hero"});
  auto back = savekit::from_json<Hero>(text);
  if (!back || back->level != 3) return 1;
  // The compiled part of the library links too.
  auto store = savekit::prefs::open(savekit::make_memory_backend());
  if (!store || !store->set("hero", *back) || !store->save() || store->get<Hero>("hero")->name != "hero") return 1;
  std::printf("%s\n", text.c_str());
}
