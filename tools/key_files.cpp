// Key files (key_files.hpp): the keys of "ID BASE64" lines.
#include "key_files.hpp"

#include <savekit/base64.hpp>
#include <savekit/seal.hpp>

#include <charconv>

#include "cli_files.hpp"

namespace savekit_cli {

// "ID BASE64" lines; the first key seals.
savekit::result<savekit::keyring> read_key_file(const std::string& path) {
  if (path.empty())
    return savekit::error{savekit::errc::key_not_held, 0, "this needs a key: --key-file (savekit keygen makes one)"};
  auto text = read_input(path);
  if (!text) return std::move(text).error();
  savekit::keyring keys;
  std::size_t line_number = 0, at = 0;
  while (at < text->size()) {
    std::size_t end = text->find('\n', at);
    if (end == std::string::npos) end = text->size();
    std::string_view line = std::string_view{*text}.substr(at, end - at);
    at = end + 1;
    ++line_number;
    if (std::size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r' || line.back() == '\t')) line.remove_suffix(1);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    if (line.empty()) continue;
    auto bad = [&](const std::string& what) {
      return savekit::error{savekit::errc::invalid_value, 0,
                            path + " line " + std::to_string(line_number) + ": " + what + " (expected \"ID BASE64\")"};
    };
    std::uint32_t id = 0;
    auto [rest, ec] = std::from_chars(line.data(), line.data() + line.size(), id);
    if (ec != std::errc{} || rest == line.data() + line.size() || *rest != ' ' || id == 0)
      return bad("no key id (1 or more)");
    std::string_view encoded = line.substr(static_cast<std::size_t>(rest - line.data()) + 1);
    auto bytes = savekit::base64_decode(encoded);
    if (!bytes) return bad("the key is not Base64");
    auto key = savekit::seal_key::from_bytes(id, *bytes);
    if (!key) return bad(key.error().message());
    keys.add(std::move(*key));
  }
  if (keys.empty()) return savekit::error{savekit::errc::key_not_held, 0, path + " holds no key"};
  return keys;
}

savekit::result<std::shared_ptr<const savekit::payload_sealer>> sealer_from_key_file(const std::string& path,
                                                                                     const std::string& player) {
  auto keys = read_key_file(path);
  if (!keys) return std::move(keys).error();
  savekit::unseal_options open;
  open.minimum_protection = savekit::seal_protection::mac;
  return savekit::make_slot_sealer(std::move(*keys), {}, player, std::move(open));
}

}  // namespace savekit_cli
