// expect: compact keys must be unique
// Two members with one compact key, in a struct of numbers only nested in another: the
// writer must refuse the type at compile time (the slot count would be less than the
// member count, and the one-reservation bound would wrap).
#include <savekit/msgpack.hpp>

struct Pair {
  int a = 0;
  int b = 0;
  static constexpr auto savekit_fields() {
    return savekit::fields(savekit::field("a", &Pair::a).with_key(0), savekit::field("b", &Pair::b).with_key(0));
  }
};
struct Outer {
  Pair pair;
};

int main() {
  std::vector<std::byte> out;
  savekit::to_msgpack(Outer{}, out);
}
