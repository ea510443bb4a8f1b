// --key-file and --player (key_options.hpp).
#include "key_options.hpp"

#if SAVEKIT_CLI_SEAL
#include "key_files.hpp"
#endif

namespace savekit_cli {

void add_key_options([[maybe_unused]] CLI::App& command, [[maybe_unused]] key_options& keys,
                     [[maybe_unused]] const char* what) {
#if SAVEKIT_CLI_SEAL
  command.add_option("--key-file", keys.key_file, what);
  command.add_option("--player", keys.player, "the player id the sealed saves are bound to");
#endif
}

savekit::result<std::shared_ptr<const savekit::payload_sealer>> sealer_of([[maybe_unused]] const key_options& keys) {
#if SAVEKIT_CLI_SEAL
  if (!keys.key_file.empty()) return sealer_from_key_file(keys.key_file, keys.player);
#endif
  return std::shared_ptr<const savekit::payload_sealer>{};
}

}  // namespace savekit_cli
