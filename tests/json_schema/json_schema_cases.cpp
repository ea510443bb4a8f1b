// The cases for savekit::json_schema's test against an independent validator (ajv, in
// validate.mjs): for a type that holds every kind savekit saves, its schema, saves savekit
// wrote for random values (valid/), and those saves mutated — a member missing, of the
// wrong type, an integer out of its range (invalid/). savekit's strict reader (from_json
// with error_on_missing_keys) must take every valid save and refuse every mutated one;
// validate.mjs then demands the same of the schema.
//   json_schema_cases OUT_DIR [COUNT]
#include <savekit/document.hpp>
#include <savekit/json.hpp>
#include <savekit/json_schema.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

namespace cases {

enum class Element : std::uint8_t { fire, water, earth };
enum class Rank : std::int16_t { low = -1, mid = 0, high = 1 };  // no names: numbers

struct Item {
  std::string id;
  std::uint16_t count = 0;
  std::optional<std::int32_t> charge;
  bool operator==(const Item&) const = default;
};

// A tree: a type that contains itself ($defs refer to themselves).
struct Quest {
  std::string title;
  std::vector<Quest> steps;
  bool operator==(const Quest&) const = default;
};

// A declared type: a renamed member, a skipped one.
class Hero {
 public:
  std::string name_;
  std::int64_t gold_ = 0;
  int scratch_ = 0;  // not saved
  static constexpr auto savekit_fields() {
    return savekit::fields(savekit::field("name", &Hero::name_),
                           savekit::field("gold", &Hero::gold_).renamed_from("money"));
  }
  bool operator==(const Hero& o) const { return name_ == o.name_ && gold_ == o.gold_; }
};

struct Save {
  bool alive = true;
  std::int8_t i8 = 0;
  std::uint8_t u8 = 0;
  std::int32_t i32 = 0;
  std::uint32_t u32 = 0;
  std::int64_t i64 = 0;
  std::uint64_t u64 = 0;
  float f32 = 0;
  double f64 = 0;
  std::string text;
  std::vector<std::byte> blob;
  std::array<std::int32_t, 3> position{};
  std::vector<Item> items;
  std::optional<std::string> nickname;
  std::unique_ptr<Item> equipped;
  std::variant<std::int32_t, std::string> tag;
  std::tuple<std::int32_t, std::string> pair;
  std::map<std::string, std::int32_t> stats;
  std::map<std::int32_t, double> by_level;
  Element element = Element::fire;
  Rank rank = Rank::mid;
  Quest quest;
  Hero hero;
  savekit::raw_json extra;
};

}  // namespace cases

template <>
struct savekit::enum_names<cases::Element> {
  static constexpr std::pair<cases::Element, std::string_view> values[] = {
      {cases::Element::fire, "fire"}, {cases::Element::water, "water"}, {cases::Element::earth, "earth"}};
};

namespace {

using cases::Save;

template <class Int>
Int any(std::mt19937_64& random) {
  return static_cast<Int>(random());  // every bit pattern: the limits too
}

Save random_save(std::mt19937_64& random) {
  auto below = [&](std::uint64_t n) { return random() % n; };
  Save s;
  s.alive = below(2) == 0;
  s.i8 = any<std::int8_t>(random);
  s.u8 = any<std::uint8_t>(random);
  s.i32 = below(4) == 0 ? std::numeric_limits<std::int32_t>::min() : any<std::int32_t>(random);
  s.u32 = any<std::uint32_t>(random);
  s.i64 = below(4) == 0 ? std::numeric_limits<std::int64_t>::max() : any<std::int64_t>(random);
  s.u64 = below(4) == 0 ? std::numeric_limits<std::uint64_t>::max() : any<std::uint64_t>(random);
  s.f32 = static_cast<float>(static_cast<double>(any<std::int32_t>(random)) / 7.0);
  s.f64 = below(5) == 0 ? std::numeric_limits<double>::quiet_NaN() : static_cast<double>(any<std::int64_t>(random)) / 3;
  s.text = "héros \"" + std::to_string(below(1000)) + "\"\n";
  for (std::uint64_t i = 0, n = below(6); i < n; ++i) s.blob.push_back(static_cast<std::byte>(random()));
  s.position = {any<std::int32_t>(random), 0, -1};
  for (std::uint64_t i = 0, n = below(4); i < n; ++i)
    s.items.push_back({"item" + std::to_string(i), any<std::uint16_t>(random),
                       below(2) ? std::optional<std::int32_t>{any<std::int32_t>(random)} : std::nullopt});
  if (below(2)) s.nickname = "nick";
  if (below(2)) s.equipped = std::make_unique<cases::Item>(cases::Item{"sword", 1, std::nullopt});
  if (below(2))
    s.tag = "tag";
  else
    s.tag = any<std::int32_t>(random);
  s.pair = {any<std::int32_t>(random), "second"};
  s.stats = {{"atk", any<std::int32_t>(random)}, {"def", 3}};
  s.by_level = {{-5, 0.5}, {any<std::int32_t>(random), 2.25}};
  s.element = static_cast<cases::Element>(below(3));
  s.rank = static_cast<cases::Rank>(static_cast<std::int16_t>(below(3)) - 1);
  s.quest = {"main", {{"step 1", {}}, {"step 2", {{"step 2a", {}}}}}};
  s.hero.name_ = "Aria";
  s.hero.gold_ = any<std::int64_t>(random);
  s.extra.text = below(2) ? R"({"any":[1,"thing"]})" : "";
  return s;
}

constexpr savekit::json_options strict{.error_on_missing_keys = true};

bool reader_takes(const std::string& json) { return savekit::from_json<Save>(json, strict).has_value(); }

void write_file(const std::filesystem::path& path, const std::string& text) { std::ofstream(path) << text; }

// A value of another JSON type than `like`'s.
savekit::document wrong_type(const savekit::document& like) {
  if (like.is_string()) return savekit::document{std::int64_t{7}};
  if (like.is_number() || like.as_bool()) return savekit::document{"not this"};
  if (like.is_array()) return savekit::document::object();
  if (like.is_object()) return savekit::document::array();
  return savekit::document::array();  // a null (an empty optional, a NaN) gets what no such member takes
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: json_schema_cases OUT_DIR [COUNT]\n");
    return 2;
  }
  const std::filesystem::path out = argv[1];
  const int count = argc > 2 ? std::atoi(argv[2]) : 40;
  std::filesystem::remove_all(out);
  std::filesystem::create_directories(out / "valid");
  std::filesystem::create_directories(out / "invalid");
  write_file(out / "schema.json", savekit::json_schema<Save>({.title = "cases::Save"}));

  std::mt19937_64 random(1);
  int valid = 0, invalid = 0, problems = 0;
  // Integer members and a value past each end of their range.
  const std::map<std::string, std::pair<std::string, std::string>> past_range = {
      {"i8", {"-129", "128"}},
      {"u8", {"-1", "256"}},
      {"i32", {"-2147483649", "2147483648"}},
      {"u32", {"-1", "4294967296"}},
      // (64 bits: a validator that holds numbers as doubles, as ajv does, cannot tell the
      // last 2^11 values before a limit from those past it; these are past by more.)
      {"i64", {"-9223372036854777856", "9223372036854777856"}},
      {"u64", {"-1", "18446744073709555712"}},
      {"rank", {"-32769", "32768"}}};
  for (int i = 0; i < count; ++i) {
    const Save s = random_save(random);
    savekit::result<std::string> written = savekit::to_json(s);  // a result: Quest contains itself
    if (!written) {
      std::fprintf(stderr, "to_json: %s\n", written.error().to_string().c_str());
      return 1;
    }
    const std::string json = *written;
    if (!reader_takes(json)) {
      std::fprintf(stderr, "savekit's reader refuses what it wrote: %s\n", json.c_str());
      ++problems;
    }
    write_file(out / "valid" / (std::to_string(valid++) + ".json"), json);

    savekit::result<savekit::document> doc = savekit::document::from_json(json);
    if (!doc) {
      std::fprintf(stderr, "document refuses %s\n", json.c_str());
      return 1;
    }
    auto refused = [&](const std::string& what, const std::string& mutated) {
      if (reader_takes(mutated)) {
        std::fprintf(stderr, "savekit's reader takes a save with %s: %s\n", what.c_str(), mutated.c_str());
        ++problems;
      }
      write_file(out / "invalid" / (std::to_string(invalid++) + ".json"), mutated);
    };
    // One member of each kind a save has, mutated three ways (raw_json takes anything).
    const std::string name = std::string{savekit::detail::reflection<Save>::names[i % 24]};
    if (name == "extra") continue;
    savekit::document missing = *doc;
    missing.remove(name);
    refused(name + " missing", *missing.to_json());
    savekit::document wrong = *doc;
    // (An enum with names takes any number of its range too: a name it does not have is its wrong value.)
    if (!wrong.set(name, name == "element" ? savekit::document{"no such element"} : wrong_type(*doc->find(name))))
      return 1;
    refused(name + " of the wrong type", *wrong.to_json());
    if (auto range = past_range.find(name); range != past_range.end()) {
      const auto& [low, high] = range->second;
      for (const std::string& past : {low, high}) {
        // The number's text put in place of the member's (document keeps 64 bits only).
        savekit::document marked = *doc;
        if (!marked.set(name, savekit::document{"@@"})) return 1;
        std::string text = *marked.to_json();
        text.replace(text.find("\"@@\""), 4, past);
        refused(name + " = " + past, text);
      }
    }
  }
  std::printf("json_schema_cases: %d valid saves, %d mutated ones in %s\n", valid, invalid, out.c_str());
  if (problems) std::fprintf(stderr, "%d cases where savekit's reader disagrees\n", problems);
  return problems ? 1 : 0;
}
