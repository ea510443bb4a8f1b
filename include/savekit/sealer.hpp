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
  // Seals a slot's payload, bound to the slot's name and the schema version it was saved with.
  virtual result<std::string> seal(std::string_view payload, std::string_view slot,
                                   std::uint32_t schema_version) const = 0;
  // Opens it: errc::tampered (edited, or sealed for another slot), key_not_held, ...
  virtual result<std::string> unseal(std::string_view sealed, std::string_view slot,
                                     std::uint32_t schema_version) const = 0;
};

}  // namespace savekit
