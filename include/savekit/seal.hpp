// savekit/seal.hpp — sealed saves: zstd compression, and libsodium integrity or encryption.
//
//   savekit::keyring keys{savekit::seal_key::generate(1).value()};
//   savekit::seal_context where{.name = "slot1", .schema_version = 3, .player = "p-42"};
//   savekit::result<std::string> sealed = savekit::seal(save_bytes, {}, where, &keys);  // zstd + AEAD
//   savekit::result<std::string> bytes = savekit::unseal(*sealed, &keys, where);
//
// A sealed save is an envelope (docs/sealed-format.md): a 24-byte header (magic,
// version, algorithms, key id, dictionary id, original size), a nonce for encryption, the
// body (compressed, then encrypted), and a tag. Protection is one of
//   none — a BLAKE2b-256 digest: damage is found, edits are not prevented;
//   mac  — keyed BLAKE2b-256 (libsodium crypto_generichash): readable, but an edit without
//          the key is found;
//   aead — XChaCha20-Poly1305-IETF (libsodium), a random 192-bit nonce per seal: unreadable
//          and tamper-evident.
// The header and the context (a slot or key name, a schema version, a player id) are
// covered by the digest, MAC or AEAD tag: a save copied into another slot or another
// player's folder does not open. Every failed check is errc::tampered; a key the keyring
// lacks is errc::key_not_held; an algorithm or version this build lacks is
// errc::unsupported_algorithm. A declared original size above unseal_options'
// max_original_bytes is refused before anything is allocated, and a body that inflates
// to anything but its declared size is errc::tampered.
//
// A reader that holds keys opens only saves with a MAC or AEAD (unseal_options::
// minimum_protection): anyone can write a digest-only save. Each mode uses its own subkey,
// derived from the key (libsodium's crypto_kdf). A key inside the game deters casual
// editing; it does not stop a player who reads the binary (docs/sealed.md). The compiled part is the savekit::seal
// library (libzstd, libsodium).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "savekit/error.hpp"
#include "savekit/sealer.hpp"

namespace savekit {

inline constexpr std::size_t seal_key_bytes = 32;

enum class seal_compression : std::uint8_t { none = 0, zstd = 1 };
enum class seal_protection : std::uint8_t { none = 0, mac = 1, aead = 2 };
std::string_view to_string(seal_compression c) noexcept;
std::string_view to_string(seal_protection p) noexcept;

// A 32-byte secret key and the id saves sealed with it record (so that a keyring can pick
// the right one after a rotation). The subkeys each protection uses are derived once, when
// the key is made, not at every seal. Wiped from memory when destroyed.
class seal_key {
 public:
  static result<seal_key> generate(std::uint32_t id);  // from the system's random source
  static result<seal_key> from_bytes(std::uint32_t id, std::span<const std::byte> bytes);  // exactly 32 bytes
  seal_key(const seal_key&);
  seal_key& operator=(const seal_key&);
  ~seal_key();
  std::uint32_t id() const { return id_; }
  std::span<const unsigned char, seal_key_bytes> bytes() const {
    return std::span<const unsigned char, seal_key_bytes>{bytes_};
  }

 private:
  seal_key() = default;
  void derive_subkeys();
  std::uint32_t id_ = 0;
  std::array<unsigned char, seal_key_bytes> bytes_{};
  std::array<unsigned char, seal_key_bytes> mac_subkey_{};
  std::array<unsigned char, seal_key_bytes> aead_subkey_{};
  friend const unsigned char* subkey_of(const seal_key& key, seal_protection protection);
};

// The keys a game holds: the current one seals, any of them opens (rotation).
class keyring {
 public:
  keyring() = default;
  explicit keyring(seal_key current) { add(std::move(current)); }
  // Adds a key (replacing one of the same id); the first added is current until use() says otherwise.
  void add(seal_key key);
  status use(std::uint32_t id);  // errc::key_not_held if it is not held
  const seal_key* current() const;
  const seal_key* find(std::uint32_t id) const;
  bool empty() const { return keys_.empty(); }

 private:
  std::vector<seal_key> keys_;
  std::uint32_t current_ = 0;
};

// A zstd dictionary (ZDICT format): small saves compress several times better with one
// trained on typical saves. The envelope records its id; unsealing needs the same one.
class zstd_dictionary {
 public:
  static result<zstd_dictionary> from_bytes(std::string bytes);
  // Trains one from sample saves (zstd's ZDICT_trainFromBuffer); capacity: its maximum size.
  static result<zstd_dictionary> train(const std::vector<std::string>& samples, std::size_t capacity = 16 * 1024);
  std::uint32_t id() const { return id_; }
  const std::string& bytes() const { return bytes_; }

  struct digested;  // zstd's prepared forms of it (per level), made once, shared by copies

 private:
  std::string bytes_;
  std::uint32_t id_ = 0;
  std::shared_ptr<digested> digested_;
  friend digested& digest_of(const zstd_dictionary&);
};

struct seal_options {
  seal_compression compression = seal_compression::zstd;
  int level = 3;                                // zstd's level (1..19 here; higher is smaller and slower)
  const zstd_dictionary* dictionary = nullptr;  // compress with this dictionary
  seal_protection protection = seal_protection::aead;
};

// What a sealed save is bound to: opened with any other context, it is errc::tampered.
struct seal_context {
  std::string_view name = {};        // the slot's or the key's name
  std::uint32_t schema_version = 0;  // of the type saved
  std::string_view player = {};      // a player id, or empty
  // Further bytes the seal covers without storing them: whatever decides how the opened
  // bytes are read, kept outside the seal by its container (save slots put the payload's
  // encoding and compact layout here, which their header and metadata carry).
  std::string_view binding = {};
};

struct unseal_options {
  std::uint64_t max_original_bytes = std::uint64_t{1} << 30;  // a larger declared size is refused unread
  std::vector<const zstd_dictionary*> dictionaries = {};      // the one the save names is used
  // The least protection a save must carry to open (a save with less is errc::tampered:
  // anyone can write a digest-only save). Unset: mac when a keyring with a key is given,
  // none otherwise.
  std::optional<seal_protection> minimum_protection = {};
};

// What a sealed save's header says (tools; nothing is checked but the header's shape).
struct sealed_info {
  std::uint8_t version = 0;
  seal_compression compression = seal_compression::none;
  seal_protection protection = seal_protection::none;
  std::uint32_t key_id = 0;
  std::uint32_t dictionary_id = 0;
  std::uint64_t original_bytes = 0;
  std::uint64_t sealed_bytes = 0;
};

// Whether bytes start like a sealed save (the magic). A save that does could still be damaged.
bool looks_sealed(std::string_view bytes) noexcept;
result<sealed_info> inspect_sealed(std::string_view sealed);

// Compresses, then protects. keys: needed for mac and aead (its current key seals).
result<std::string> seal(std::string_view plain, const seal_options& options, const seal_context& context,
                         const keyring* keys = nullptr);
// Checks, decrypts, decompresses. keys: needed for mac and aead (the key the save names).
result<std::string> unseal(std::string_view sealed, const keyring* keys, const seal_context& context,
                           const unseal_options& options = {});

// The same two into a string the caller keeps: its bytes are replaced and its capacity
// reused, so that a game sealing often allocates nothing per seal. On an error out holds
// nothing meaningful (it is cleared).
status seal_into(std::string& out, std::string_view plain, const seal_options& options, const seal_context& context,
                 const keyring* keys = nullptr);
status unseal_into(std::string& out, std::string_view sealed, const keyring* keys, const seal_context& context,
                   const unseal_options& options = {});

// Slots that seal their payloads (slots_options::sealer): sealed with options and the
// keyring's current key, each bound to its slot's name, the schema version and player.
// A save opens only with the protection options name, or more (open.minimum_protection
// unset). Dictionaries named in options and open must outlive the sealer.
std::shared_ptr<const payload_sealer> make_slot_sealer(keyring keys, seal_options options = {}, std::string player = {},
                                                       unseal_options open = {});

// The format's sizes, for tools and tests.
inline constexpr std::size_t sealed_header_bytes = 24;
inline constexpr std::size_t sealed_nonce_bytes = 24;  // aead only
inline constexpr std::size_t sealed_tag_bytes_aead = 16;
inline constexpr std::size_t sealed_tag_bytes_digest = 32;  // none and mac

}  // namespace savekit
