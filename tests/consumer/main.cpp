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
  std::printf("%s\n", text.c_str());
}
