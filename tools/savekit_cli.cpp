// savekit — look into, check, edit and convert save stores and save files.
//
//   savekit list STORE                 keys, types, sizes
//   savekit get STORE KEY [--raw]      a value: objects as JSON, bytes as Base64
//   savekit set STORE KEY VALUE --type int|float|string|bytes|json
//   savekit delete STORE KEY
//   savekit export STORE > dump.json   every entry, type tags and bytes included
//   savekit import STORE < dump.json   the reverse: a lossless round trip
//   savekit verify STORE|DIR           checksums, what is recoverable, what would be lost
//                                      (these: store_commands.hpp)
//   savekit slots list DIR [--json]    a slots folder's load menu (slots_commands.hpp)
//   savekit slots show DIR SLOT        its metadata, history and payload as JSON
//   savekit slots restore DIR SLOT GEN an older generation becomes the newest
//   savekit show FILE [KEY|SLOT]       the typed tree: wire formats, offsets, sizes (inspect_commands.hpp)
//   savekit diff A B [--key K]         what changed: exit 0 the same, 1 different, 2 trouble
//   savekit edit STORE KEY | DIR SLOT  as JSON in $EDITOR, types kept, a new commit or generation
//   savekit schema SCHEMA FILE [KEY]   a save against a JSON Schema
//   savekit convert --from json|msgpack|base64 --to json|msgpack|base64 [FILE] (convert_command.hpp)
//   savekit keygen / seal / unseal / train-dict   sealed saves (seal_commands.hpp)
//   savekit cloud status|sync|resolve DIR   cloud sync with savekit-server (cloud_commands.hpp)
//
// A key or value that begins with '-' goes after "--" (options first):
//   savekit set --type int saves.prefs -- -hp 10
//
// Exit codes: 0 success; 1 failure (I/O, bad input, missing key, a value that does not
// decode); 2 usage; 3 the store is in use by another process; 4 verify found damage that
// opening would repair (something is lost); 5 verify found nothing intact; 6 verify found
// a store written by a newer savekit; 7 verify was given keys (--key-file) and a sealed
// entry or generation does not open: edited, or sealed for another slot or player; 8 cloud
// sync met a conflict (or one is open); 9 cloud sync could not reach the server, or it refused.
//
// Each command family is a file with its setup_…(CLI::App&, int& exit_code), as CLI11's
// subcommands-in-files example: this file only wires them. A new command goes in its
// family's file (or a new one, set up here).
#include <CLI/CLI.hpp>

#include "cli_common.hpp"
#include "convert_command.hpp"
#include "inspect_commands.hpp"
#include "slots_commands.hpp"
#include "standard_descriptors.hpp"
#include "store_commands.hpp"
#if SAVEKIT_CLI_SEAL
#include "seal_commands.hpp"
#endif
#if SAVEKIT_CLI_CLOUD
#include "cloud_commands.hpp"
#endif

int main(int argc, char** argv) {
  using namespace savekit_cli;
  if (!savekit_tools::make_standard_descriptors_valid()) return failure;  // before any file is opened
  CLI::App app{"savekit: look into, check, edit and convert save stores and save files"};
  // Only --help: with -h, an argument such as "-hp" or "-hero" was taken for the help flag.
  app.set_help_flag("--help", "Print this help message and exit");
  app.require_subcommand(1);
  app.footer(
      "A key or value that begins with '-' goes after \"--\", options first: savekit set --type int s.prefs -- -hp "
      "10\n"
      "Exit codes: 0 success, 1 failure, 2 usage, 3 store in use, 4 verify: recoverable damage, 5 verify: nothing "
      "intact, 6 verify: written by a newer savekit, 7 verify with keys: a seal is broken, 8 cloud: a "
      "conflict, 9 cloud: the server failed.");
  int exit_code = usage;  // the command that runs sets it
  setup_store_commands(app, exit_code);
  setup_slots_commands(app, exit_code);
  setup_convert_command(app, exit_code);
  setup_inspect_commands(app, exit_code);
#if SAVEKIT_CLI_SEAL
  setup_seal_commands(app, exit_code);
#endif
#if SAVEKIT_CLI_CLOUD
  setup_cloud_commands(app, exit_code);
#endif
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? ok : usage;
  }
  return exit_code;
}
