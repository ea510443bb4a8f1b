// The savekit program's commands for sealed saves (seal_commands.hpp).
#include "seal_commands.hpp"

#include <savekit/base64.hpp>
#include <savekit/seal.hpp>

#include <charconv>
#include <optional>

#include "cli_common.hpp"
#include "cli_files.hpp"
#include "key_files.hpp"

namespace savekit_cli {

namespace {

savekit::result<savekit::zstd_dictionary> read_dictionary(const std::string& path) {
  auto bytes = read_input(path);
  if (!bytes) return std::move(bytes).error();
  auto dictionary = savekit::zstd_dictionary::from_bytes(std::move(*bytes));
  if (!dictionary) return savekit::error{dictionary.error().code(), 0, path + ": " + dictionary.error().message()};
  return dictionary;
}

savekit::seal_context context_of(const seal_arguments& args) {
  return {.name = args.name, .schema_version = args.schema_version, .player = args.player};
}

}  // namespace

int cmd_keygen(std::uint32_t id, const std::string& output_path, bool add) {
  if (id == 0) return report("keygen", savekit::error{savekit::errc::invalid_value, 0, "key ids start at 1"});
  const bool to_file = !output_path.empty() && output_path != "-";
  if (add && !to_file)
    return report("keygen", savekit::error{savekit::errc::invalid_value, 0, "--add needs the key file (-o FILE)"});
  auto key = savekit::seal_key::generate(id);
  if (!key) return report("keygen", key.error());
  const auto bytes = key->bytes();
  std::string line = std::to_string(id) + " " +
                     savekit::base64_encode(std::span{reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()}) +
                     "\n";
  if (!to_file) return write_output(output_path, line);
  if (!add) {
    if (auto created = create_private_file(output_path, line); !created) {
      savekit::error e = std::move(created).error();
      if (e.code() == savekit::errc::already_exists)
        e = savekit::error{e.code(), 0,
                           "exists: a key file is never replaced (every save sealed with its keys would be lost); "
                           "--add puts the new key first in it, to rotate"};
      return report(output_path, e);
    }
    return ok;
  }
  // Rotation: the new key first (it seals), every old line kept after it (they still open).
  auto keys = read_key_file(output_path);
  if (!keys) return report(output_path, keys.error());
  if (keys->find(id))
    return report(output_path,
                  savekit::error{savekit::errc::already_exists, 0,
                                 "already holds key " + std::to_string(id) + ": give the new key another id"});
  auto old_lines = read_input(output_path);
  if (!old_lines) return report(output_path, old_lines.error());
  if (auto written = write_file(output_path, line + *old_lines); !written) return report(output_path, written.error());
  return ok;
}

int cmd_seal(const seal_arguments& args) {
  savekit::seal_options options;
  options.compression = args.compression == "none" ? savekit::seal_compression::none : savekit::seal_compression::zstd;
  options.protection = args.protection == "none"  ? savekit::seal_protection::none
                       : args.protection == "mac" ? savekit::seal_protection::mac
                                                  : savekit::seal_protection::aead;
  options.level = args.level;
  std::optional<savekit::keyring> keys;
  if (options.protection != savekit::seal_protection::none) {
    auto read = read_key_file(args.key_file);
    if (!read) return report(args.key_file.empty() ? "seal" : args.key_file, read.error());
    keys = std::move(*read);
  }
  std::optional<savekit::zstd_dictionary> dictionary;
  if (!args.dictionary.empty()) {
    auto read = read_dictionary(args.dictionary);
    if (!read) return report(args.dictionary, read.error());
    dictionary = std::move(*read);
    options.dictionary = &*dictionary;
  }
  auto input = read_input(args.input);
  if (!input) return report(args.input.empty() ? "standard input" : args.input, input.error());
  auto sealed = savekit::seal(*input, options, context_of(args), keys ? &*keys : nullptr);
  if (!sealed) return report("seal", sealed.error());
  return write_output(args.output, *sealed);
}

int cmd_unseal(const seal_arguments& args) {
  auto input = read_input(args.input);
  const std::string where = args.input.empty() ? "standard input" : args.input;
  if (!input) return report(where, input.error());
  auto info = savekit::inspect_sealed(*input);
  if (!info) return report(where, info.error());
  // Given keys, the file must prove it was sealed with one (a MAC at least): a digest-only
  // file, which anyone can make, is refused rather than "opened with my key".
  std::optional<savekit::keyring> keys;
  if (info->protection != savekit::seal_protection::none || !args.key_file.empty()) {
    if (args.key_file.empty())
      return report(where, savekit::error{savekit::errc::key_not_held, 8,
                                          "sealed with key " + std::to_string(info->key_id) +
                                              ": give the key file that holds it (--key-file)"});
    auto read = read_key_file(args.key_file);
    if (!read) return report(args.key_file.empty() ? where : args.key_file, read.error());
    keys = std::move(*read);
  }
  std::vector<savekit::zstd_dictionary> dictionaries;
  for (const std::string& path : args.dictionaries) {
    auto read = read_dictionary(path);
    if (!read) return report(path, read.error());
    dictionaries.push_back(std::move(*read));
  }
  savekit::unseal_options options;
  options.max_original_bytes = args.max_bytes;
  for (const auto& d : dictionaries) options.dictionaries.push_back(&d);
  auto opened = savekit::unseal(*input, keys ? &*keys : nullptr, context_of(args), options);
  if (!opened) return report(where, opened.error());
  return write_output(args.output, *opened);
}

int cmd_train_dict(const std::vector<std::string>& samples, const std::string& output_path, std::size_t capacity) {
  std::vector<std::string> contents;
  for (const std::string& path : samples) {
    auto read = read_input(path);
    if (!read) return report(path, read.error());
    contents.push_back(std::move(*read));
  }
  auto dictionary = savekit::zstd_dictionary::train(contents, capacity);
  if (!dictionary) return report("train-dict", dictionary.error());
  std::fprintf(stderr, "savekit: a %zu-byte dictionary, id %u, from %zu samples\n", dictionary->bytes().size(),
               dictionary->id(), samples.size());
  return write_output(output_path, dictionary->bytes());
}

void setup_seal_commands(CLI::App& app, int& exit_code) {
  struct options {
    seal_arguments sealing;
    std::uint32_t key_id = 1;
    std::string output;
    bool add_key = false;
    std::size_t dictionary_bytes = 16 * 1024;
    std::vector<std::string> samples;
  };
  auto o = std::make_shared<options>();
  auto bind_context = [&](CLI::App* command) {
    command->add_option("--name", o->sealing.name, "the slot or key name it is bound to");
    command->add_option("--schema", o->sealing.schema_version, "the schema version it is bound to");
    command->add_option("--player", o->sealing.player, "the player id it is bound to");
  };
  auto* keygen = app.add_subcommand("keygen", "Write a new random 32-byte key to a key file (\"ID BASE64\")");
  keygen->add_option("--id", o->key_id, "the key's id (1 or more; stored in each sealed save)");
  keygen->add_option("-o,--output", o->output, "a new key file (default: standard output); never replaces one");
  keygen->add_flag("--add", o->add_key, "put the new key first in the existing key file -o names (rotation)");
  keygen->callback([o, &exit_code] { exit_code = cmd_keygen(o->key_id, o->output, o->add_key); });

  auto* seal = app.add_subcommand("seal", "Compress (zstd) and protect (MAC or encryption) a save");
  seal->add_option("FILE", o->sealing.input, "the save (default: standard input)");
  seal->add_option("-o,--output", o->sealing.output, "sealed file (default: standard output)");
  seal->add_option("--key-file", o->sealing.key_file, "keys; the first one seals");
  seal->add_option("--protection", o->sealing.protection, "aead|mac|none")
      ->check(CLI::IsMember({"aead", "mac", "none"}));
  seal->add_option("--compression", o->sealing.compression, "zstd|none")->check(CLI::IsMember({"zstd", "none"}));
  seal->add_option("--level", o->sealing.level, "zstd level, 1 to 19");
  seal->add_option("--dict", o->sealing.dictionary, "a zstd dictionary (savekit train-dict)");
  bind_context(seal);
  seal->callback([o, &exit_code] { exit_code = cmd_seal(o->sealing); });

  auto* unseal = app.add_subcommand("unseal", "Check and open a sealed save (exit 1 if it was tampered with)");
  unseal->add_option("FILE", o->sealing.input, "the sealed save (default: standard input)");
  unseal->add_option("-o,--output", o->sealing.output, "the save (default: standard output)");
  unseal->add_option("--key-file", o->sealing.key_file, "keys; any of them opens");
  unseal->add_option("--dict", o->sealing.dictionaries, "zstd dictionaries it may need");
  unseal->add_option("--max-bytes", o->sealing.max_bytes, "refuse a save that declares more bytes than this");
  bind_context(unseal);
  unseal->callback([o, &exit_code] { exit_code = cmd_unseal(o->sealing); });

  auto* train = app.add_subcommand("train-dict", "Train a zstd dictionary from sample saves");
  train->add_option("SAMPLES", o->samples, "sample saves")->required();
  train->add_option("-o,--output", o->output, "dictionary file")->required();
  train->add_option("--size", o->dictionary_bytes, "the dictionary's maximum size in bytes");
  train->callback([o, &exit_code] { exit_code = cmd_train_dict(o->samples, o->output, o->dictionary_bytes); });
}

}  // namespace savekit_cli
