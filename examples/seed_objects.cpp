// Shows the seed studies' two objects in every savekit format, with sizes, and checks
// that each one loads back equal — what `savekit convert` and the benchmark build on.
#include <savekit/savekit.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "seed_types.hpp"

namespace {

std::string hex(const std::vector<std::byte>& bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (std::byte b : bytes) {
    if (!out.empty()) out += ' ';
    out += digits[std::to_integer<int>(b) >> 4];
    out += digits[std::to_integer<int>(b) & 15];
  }
  return out;
}

template <class T>
bool show(const char* title, const T& value) {
  std::printf("== %s\n", title);
  bool all_equal = true;
  auto report = [&](const char* format, std::size_t size, const std::string& shown, bool equal) {
    std::printf("%-28s %4zu bytes  %s  %s\n", format, size, equal ? "round trip ok" : "ROUND TRIP FAILED",
                shown.c_str());
    all_equal = all_equal && equal;
  };

  std::string json = savekit::to_json(value);
  auto from_json = savekit::from_json<T>(json);
  report("JSON", json.size(), json, from_json && *from_json == value);

  for (auto form : {savekit::msgpack_form::map, savekit::msgpack_form::compact}) {
    auto bytes = savekit::to_msgpack(value, {.form = form});
    auto back = savekit::from_msgpack<T>(bytes);
    report(form == savekit::msgpack_form::map ? "MessagePack (map form)" : "MessagePack (compact form)", bytes.size(),
           hex(bytes), back && *back == value);
    if (form == savekit::msgpack_form::compact) {
      std::string text = savekit::base64_encode(bytes);
      auto decoded = savekit::base64_decode(text);
      auto from_text = decoded ? savekit::from_msgpack<T>(*decoded) : savekit::result<T>(decoded.error());
      report("MessagePack compact + Base64", text.size(), text, from_text && *from_text == value);
    }
  }
  auto transcoded = savekit::msgpack_to_json(savekit::to_msgpack(value));
  report("MessagePack -> JSON", transcoded ? transcoded->size() : 0, transcoded ? *transcoded : "",
         transcoded && *transcoded == json);
  return all_equal;
}

}  // namespace

int main() {
  bool ok = show("SaveGame (001_d5e3661d5f46bbe1.txt)", seeds::seed_save_game());
  ok = show("Status (000_ff233063f927945e.txt)", seeds::seed_status()) && ok;
  std::puts(ok ? "all round trips ok" : "a round trip FAILED");
  return ok ? 0 : 1;
}
