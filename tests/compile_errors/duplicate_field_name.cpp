// expect: field names \(and renamed_from names\) must be unique
// Two members named alike, in a struct of numbers only nested in another.
#include <savekit/msgpack.hpp>

struct Pair {
  int a = 0;
  int b = 0;
  static constexpr auto savekit_fields() {
    return savekit::fields(savekit::field("a", &Pair::a), savekit::field("a", &Pair::b));
  }
};
struct Outer {
  Pair pair;
};

int main() {
  std::vector<std::byte> out;
  savekit::to_msgpack(Outer{}, out);
}
