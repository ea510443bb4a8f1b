// Bearer tokens: a player id and an expiry, signed with the server's secret
// (HMAC-SHA256, libsodium), so that any server process holding the secret can check a
// token without a database lookup. The format is in docs/server.md, "Authentication":
//   sk1.<base64url(payload)>.<base64url(mac)>    payload: {"player":"p1","expires":1767225600}
#pragma once

#include <savekit/error.hpp>

#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace savekit::server {

// The secret tokens are signed with: at least 32 bytes, kept in a file as Base64 text
// (savekit-server secret writes one).
class token_secret {
 public:
  static constexpr std::size_t min_bytes = 32;
  static result<token_secret> from_bytes(std::string_view bytes);
  static result<token_secret> from_file(const std::string& path);
  static result<token_secret> generate();  // 32 random bytes
  std::string base64() const;              // what a secret file holds
  const std::string& bytes() const { return bytes_; }
  ~token_secret();
  token_secret(const token_secret&) = default;
  token_secret(token_secret&&) = default;
  token_secret& operator=(const token_secret&) = default;
  token_secret& operator=(token_secret&&) = default;

 private:
  token_secret() = default;
  std::string bytes_;
};

struct token_claims {
  std::string player;
  std::int64_t expires = 0;  // Unix seconds
};

// A player id: 1..128 bytes of UTF-8 without control characters (the slot name rule).
status check_player_id(std::string_view player);

// A token for player valid until expires; errc::invalid_name for a bad player id.
result<std::string> issue_token(const token_secret& secret, std::string_view player,
                                std::chrono::system_clock::time_point expires);

// The claims of a token that is well-formed, signed by secret and not expired at now;
// otherwise errc::tampered (a bad signature or shape) or errc::invalid_value (expired),
// with a message that never repeats the token.
result<token_claims> verify_token(const token_secret& secret, std::string_view token,
                                  std::chrono::system_clock::time_point now);

// "30d", "12h", "15m", "90s" or a number of seconds: errc::invalid_value otherwise.
result<std::chrono::seconds> parse_duration(std::string_view text);

}  // namespace savekit::server
