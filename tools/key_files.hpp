// Key files, for every command that opens or makes sealed saves and for the inspector page:
// text, one key per line, "ID BASE64" (32 bytes); the first line's key seals, all of them
// open; '#' starts a comment. Needs savekit::seal; nothing here knows the command line.
#pragma once

#include <savekit/seal.hpp>
#include <savekit/sealer.hpp>

#include <memory>
#include <string>

namespace savekit_cli {

// The keys of a key file; errc::key_not_held when path is empty or holds no key.
savekit::result<savekit::keyring> read_key_file(const std::string& path);

// A sealer with those keys for a player (savekit get --key-file, slots show --key-file, the page).
savekit::result<std::shared_ptr<const savekit::payload_sealer>> sealer_from_key_file(const std::string& path,
                                                                                     const std::string& player);

}  // namespace savekit_cli
