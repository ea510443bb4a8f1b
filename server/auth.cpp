#include "auth.hpp"

#include <savekit/base64.hpp>
#include <savekit/json.hpp>
#include <savekit/slots.hpp>

#include <sodium.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <span>
#include <sstream>
#include <vector>

namespace savekit::server {
namespace {

constexpr std::string_view token_prefix = "sk1.";
constexpr std::size_t max_token_chars = 1024;  // a player id of 128 bytes fits many times over

struct token_payload {
  std::string player;
  std::int64_t expires = 0;
};

status sodium_ready() {
  static const int initialized = sodium_init();  // thread-safe, idempotent
  if (initialized < 0) return error{errc::io_error, 0, "libsodium could not initialize"};
  return {};
}

std::array<unsigned char, crypto_auth_hmacsha256_BYTES> mac_of(const token_secret& secret,
                                                               std::string_view signed_part) {
  crypto_auth_hmacsha256_state state;
  crypto_auth_hmacsha256_init(&state, reinterpret_cast<const unsigned char*>(secret.bytes().data()),
                              secret.bytes().size());
  crypto_auth_hmacsha256_update(&state, reinterpret_cast<const unsigned char*>(signed_part.data()), signed_part.size());
  std::array<unsigned char, crypto_auth_hmacsha256_BYTES> mac{};
  crypto_auth_hmacsha256_final(&state, mac.data());
  sodium_memzero(&state, sizeof state);
  return mac;
}

error tampered(const char* why) { return error{errc::tampered, 0, std::string{"the token is not valid: "} + why}; }

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

}  // namespace

token_secret::~token_secret() {
  if (!bytes_.empty()) sodium_memzero(bytes_.data(), bytes_.size());
}

result<token_secret> token_secret::from_bytes(std::string_view bytes) {
  if (bytes.size() < min_bytes)
    return error{
        errc::invalid_value, 0,
        "a token secret is at least " + std::to_string(min_bytes) + " bytes, not " + std::to_string(bytes.size())};
  token_secret secret;
  secret.bytes_.assign(bytes);
  return secret;
}

result<token_secret> token_secret::from_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return error{errc::io_error, 0, "cannot read the secret file " + path + ": " + std::strerror(errno)};
  std::ostringstream text;
  text << in.rdbuf();
  std::string content = text.str();
  auto decoded = base64_decode(trim(content));
  sodium_memzero(content.data(), content.size());
  if (!decoded)
    return error{errc::invalid_value, 0,
                 "the secret file " + path +
                     " holds no Base64 secret (savekit-server secret makes one): " + decoded.error().message()};
  auto secret = from_bytes({reinterpret_cast<const char*>(decoded->data()), decoded->size()});
  sodium_memzero(decoded->data(), decoded->size());
  return secret;
}

result<token_secret> token_secret::generate() {
  if (status ready = sodium_ready(); !ready) return std::move(ready).error();
  std::string bytes(min_bytes, '\0');
  randombytes_buf(bytes.data(), bytes.size());
  auto secret = from_bytes(bytes);
  sodium_memzero(bytes.data(), bytes.size());
  return secret;
}

std::string token_secret::base64() const { return base64_encode(bytes_); }

status check_player_id(std::string_view player) {
  if (status valid = slots::check_name(player); !valid)
    return error{errc::invalid_name, valid.error().offset(),
                 "a player id follows the slot name rule: " + valid.error().message()};
  return {};
}

result<std::string> issue_token(const token_secret& secret, std::string_view player,
                                std::chrono::system_clock::time_point expires) {
  if (status ready = sodium_ready(); !ready) return std::move(ready).error();
  if (status valid = check_player_id(player); !valid) return std::move(valid).error();
  token_payload payload{std::string{player},
                        std::chrono::duration_cast<std::chrono::seconds>(expires.time_since_epoch()).count()};
  std::string token{token_prefix};
  token += base64_encode(to_json(payload), base64_alphabet::url);
  const auto mac = mac_of(secret, token);
  token += '.';
  token += base64_encode(std::span{reinterpret_cast<const std::byte*>(mac.data()), mac.size()}, base64_alphabet::url);
  return token;
}

result<token_claims> verify_token(const token_secret& secret, std::string_view token,
                                  std::chrono::system_clock::time_point now) {
  if (status ready = sodium_ready(); !ready) return std::move(ready).error();
  if (token.size() > max_token_chars) return tampered("too long");
  if (token.substr(0, token_prefix.size()) != token_prefix) return tampered("it does not start with sk1.");
  // One spelling per token: base64url without padding (a deny-list or a log can key on it).
  if (token.find('=') != std::string_view::npos) return tampered("it holds padding");
  const std::size_t dot = token.rfind('.');
  if (dot < token_prefix.size()) return tampered("no signature");
  const std::string_view signed_part = token.substr(0, dot);
  std::vector<std::byte> mac;
  if (!base64_decode(token.substr(dot + 1), mac, base64_alphabet::url) || mac.size() != crypto_auth_hmacsha256_BYTES)
    return tampered("the signature is not 32 bytes of base64url");
  // The signature first, in constant time: nothing of an unsigned payload is read.
  const auto expected = mac_of(secret, signed_part);
  if (crypto_verify_32(reinterpret_cast<const unsigned char*>(mac.data()), expected.data()) != 0)
    return tampered("the signature does not match");
  std::vector<std::byte> payload_bytes;
  if (!base64_decode(signed_part.substr(token_prefix.size()), payload_bytes, base64_alphabet::url))
    return tampered("the payload is not base64url");
  auto payload = from_json<token_payload>(
      std::string_view{reinterpret_cast<const char*>(payload_bytes.data()), payload_bytes.size()},
      {.error_on_unknown_keys = true, .error_on_missing_keys = true});
  if (!payload) return tampered("the payload is not {\"player\":…,\"expires\":…}");
  if (!check_player_id(payload->player)) return tampered("the player id is not valid");
  const std::int64_t seconds = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  if (payload->expires <= seconds) return error{errc::invalid_value, 0, "the token has expired"};
  return token_claims{std::move(payload->player), payload->expires};
}

result<std::chrono::seconds> parse_duration(std::string_view text) {
  std::int64_t count = 0;
  const char* end = text.data() + text.size();
  auto [rest, ec] = std::from_chars(text.data(), end, count);
  if (ec != std::errc{} || count <= 0)
    return error{errc::invalid_value, 0, "a duration is a positive number and a unit: 30d, 12h, 15m or 90s"};
  std::string_view unit{rest, static_cast<std::size_t>(end - rest)};
  std::int64_t scale = unit.empty() || unit == "s" ? 1
                       : unit == "m"               ? 60
                       : unit == "h"               ? 3600
                       : unit == "d"               ? 86400
                                                   : 0;
  if (scale == 0 || count > std::int64_t{100} * 365 * 86400 / scale)
    return error{errc::invalid_value, 0, "a duration is a positive number and a unit (s, m, h, d), up to 100 years"};
  return std::chrono::seconds{count * scale};
}

}  // namespace savekit::server
