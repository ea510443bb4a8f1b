// The savekit program's commands for sealed saves (savekit/seal.hpp, docs/sealed.md):
//   savekit keygen --id N -o KEYFILE              a new random key, in a key file
//   savekit seal FILE -o OUT --key-file KEYS ...  compress and protect a save
//   savekit unseal FILE -o OUT --key-file KEYS    check and open one (exit 1: tampered, ...)
//   savekit train-dict SAMPLES... -o game.dict    a zstd dictionary from sample saves
// A key file is text: one key per line, "ID BASE64" (32 bytes); the first line's key seals,
// all of them open; '#' starts a comment.
#pragma once

#include <savekit/error.hpp>
#include <savekit/sealer.hpp>

#include <CLI/CLI.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace savekit_cli {

struct seal_arguments {
  std::string input, output, key_file, compression = "zstd", protection = "aead", dictionary;
  std::vector<std::string> dictionaries;  // unseal: any of these
  int level = 3;
  std::string name, player;
  std::uint32_t schema_version = 0;
  std::uint64_t max_bytes = std::uint64_t{1} << 30;
};

// Adds keygen, seal, unseal and train-dict to app; the one that runs leaves its exit code in
// exit_code.
void setup_seal_commands(CLI::App& app, int& exit_code);

// Writes a new key. To a file: a new one (an existing file is refused: every save sealed with
// its keys would be lost), or with add, as the first line of an existing key file (the new
// key seals; the old ones still open what they sealed).
int cmd_keygen(std::uint32_t id, const std::string& output, bool add);
int cmd_seal(const seal_arguments& args);
int cmd_unseal(const seal_arguments& args);
int cmd_train_dict(const std::vector<std::string>& samples, const std::string& output, std::size_t capacity);

}  // namespace savekit_cli
