// expect: two declared fields name one member
// Two declared fields over one member: a reader would read it twice per struct and count
// its vector's memory twice against max_memory (a valid save refused as too large), so the
// declaration must be refused at compile time (found by an attack review of the fast path).
#include <savekit/msgpack.hpp>

#include <vector>

struct Twice {
  std::vector<int> values;
  static constexpr auto savekit_fields() {
    return savekit::fields(savekit::field("a", &Twice::values), savekit::field("b", &Twice::values));
  }
};

int main() {
  std::vector<std::byte> out;
  savekit::to_msgpack(Twice{}, out);
}
