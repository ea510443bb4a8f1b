// expect: field names \(and renamed_from names\) must be unique
// An old name (renamed_from) that is also a current one: a reader could not tell which
// member a key names. Refused by the JSON writer too, for a struct nested in another.
#include <savekit/json.hpp>

struct Player {
  int health = 0;
  int hp = 0;
  static constexpr auto savekit_fields() {
    return savekit::fields(savekit::field("health", &Player::health).renamed_from("hp"),
                           savekit::field("hp", &Player::hp));
  }
};
struct Save {
  Player player;
};

int main() {
  std::string out;
  savekit::to_json(Save{}, out);
}
