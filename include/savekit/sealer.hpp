// savekit/sealer.hpp — what save slots seal their payloads with (savekit/slots.hpp), kept
// apart from the sealing itself (savekit/seal.hpp, the savekit::seal library: zstd and
// libsodium), so that slots depend on neither.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "savekit/error.hpp"

namespace savekit {

class payload_sealer {
 public:
  virtual ~payload_sealer() = default;
  // Seals a slot's payload, bound to the slot's name, the schema version it was saved with
  // and `binding`: bytes stored outside the seal that decide how the payload is read (for
  // slots, its encoding and compact layout: docs/slot-format.md), covered but not stored.
  virtual result<std::string> seal(std::string_view payload, std::string_view slot, std::uint32_t schema_version,
                                   std::string_view binding) const = 0;
  // Opens it: errc::tampered (edited, sealed for another slot, or read with another
  // binding), key_not_held, ...
  virtual result<std::string> unseal(std::string_view sealed, std::string_view slot, std::uint32_t schema_version,
                                     std::string_view binding) const = 0;
  // Whether what it opens was proven to come from a key holder (a MAC or encryption), not
  // only checked for damage.
  virtual bool authenticates() const = 0;
};

}  // namespace savekit
