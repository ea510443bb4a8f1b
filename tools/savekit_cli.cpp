// savekit — look into, check, edit and convert save stores and save files.
//
//   savekit list STORE                 keys, types, sizes
//   savekit get STORE KEY [--raw]      a value: objects as JSON, bytes as Base64
//   savekit set STORE KEY VALUE --type int|float|string|bytes|json
//   savekit delete STORE KEY
//   savekit export STORE > dump.json   every entry, type tags and bytes included
//   savekit import STORE < dump.json   the reverse: a lossless round trip
//   savekit verify STORE|DIR           checksums, what is recoverable, what would be lost
//   savekit slots list DIR [--json]    a slots folder's load menu (slots_commands.hpp)
//   savekit slots show DIR SLOT        its metadata, history and payload as JSON
//   savekit slots restore DIR SLOT GEN an older generation becomes the newest
//   savekit convert --from json|msgpack|base64 --to json|msgpack|base64 [FILE]
//   savekit keygen / seal / unseal / train-dict   sealed saves (seal_commands.hpp)
//
// A key or value that begins with '-' goes after "--" (options first):
//   savekit set --type int saves.prefs -- -hp 10
//
// Exit codes: 0 success; 1 failure (I/O, bad input, missing key, a value that does not
// decode); 2 usage; 3 the store is in use by another process; 4 verify found damage that
// opening would repair (something is lost); 5 verify found nothing intact; 6 verify found
// a store written by a newer savekit; 7 verify was given keys (--key-file) and a sealed
// entry or generation does not open: edited, or sealed for another slot or player.
#include <savekit/file_backend.hpp>
#include <savekit/prefs.hpp>
#include <savekit/savekit.hpp>

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_common.hpp"
#include "cli_files.hpp"
#include "slots_commands.hpp"
#include "standard_descriptors.hpp"
#if SAVEKIT_CLI_SEAL
#include "seal_commands.hpp"
#endif

// The JSON documents the program reads and writes.
namespace savekit_cli {

// ---- documents -------------------------------------------------------------------------------

// A sealed entry as export --key-file opened it: for reading only (import restores the
// sealed bytes, which stay the entry's value).
struct opened_entry {
  std::string type;
  std::optional<savekit::raw_json> value;
  std::optional<std::string> base64;
};

struct exported_entry {
  std::optional<std::string> key;         // when the key is UTF-8
  std::optional<std::string> key_base64;  // otherwise
  std::optional<std::string> type;
  std::optional<savekit::raw_json> value;  // the readable form, when it is exact
  std::optional<std::string> base64;       // otherwise the stored bytes
  std::optional<opened_entry> opened;      // a sealed entry, opened (export --key-file)
};

struct exported_store {
  std::optional<int> savekit_export;
  std::optional<std::vector<exported_entry>> entries;
};

struct listed_entry {
  std::optional<std::string> key;
  std::optional<std::string> key_base64;
  std::string type;
  std::size_t bytes = 0;
};

struct verify_report {
  std::string path;
  std::string verdict;
  std::uint32_t version = 0;
  std::uint64_t file_bytes = 0;
  std::uint64_t intact_bytes = 0;
  std::uint64_t commits = 0;
  std::uint64_t entries = 0;
  bool torn_tail = false;
  bool damaged = false;
  std::uint64_t intact_records_after_damage = 0;
  std::string problem;
  std::uint64_t sealed_entries = 0;
  std::string seals;                      // none, checked with the keys, not checked (no --key-file)
  std::vector<std::string> seals_failed;  // "KEY: error" for each sealed entry that does not open
};

}  // namespace savekit_cli

namespace {

using namespace savekit_cli;

// ---- input and output ------------------------------------------------------------------------

// An entry names its key one way: as text when the key is UTF-8, as Base64 otherwise.
template <class Entry>
void name_key(Entry& entry, const std::string& key) {
  if (valid_utf8(key))
    entry.key = key;
  else
    entry.key_base64 = savekit::base64_encode(key);
}

std::string_view as_text(const std::vector<std::byte>& b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

std::optional<savekit::value_type> type_from_name(std::string_view name) {
  for (auto t = static_cast<int>(savekit::value_type::integer); savekit::is_known(static_cast<savekit::value_type>(t));
       ++t) {
    auto type = static_cast<savekit::value_type>(t);
    if (savekit::to_string(type) == name) return type;
  }
  return std::nullopt;
}

enum class store_access { read, write, write_existing };

savekit::result<savekit::prefs> open_store(const std::string& path, store_access access) {
  bool read_only = access == store_access::read;
  savekit::file_backend_options options;
  options.read_only = read_only;
  options.create_if_missing = access == store_access::write;
  auto store = savekit::prefs::open(savekit::make_file_backend(path, savekit::posix_file_system(), options));
  if (store && !read_only && store->recovery().recovered) {
    const auto& r = store->recovery();
    warn(path, "the store was damaged and has been repaired: " + r.detail + "; " + std::to_string(r.bytes_discarded) +
                   " bytes left out" +
                   (r.damaged_copy.empty() ? "" : "; the damaged file is kept as " + r.damaged_copy));
  }
  return store;
}

void warn_if_damaged(const std::string& path, const savekit::prefs& store, const char* shown) {
  if (store.recovery().recovered)
    warn(path, std::string("damaged; ") + shown + " the newest intact state (" + store.recovery().detail +
                   "); run `savekit verify`");
}

// ---- values as text --------------------------------------------------------------------------

// Encodes a command-line or imported value as the bytes stored for type.
savekit::result<std::string> encode_value(savekit::value_type type, std::string_view text, bool text_is_json) {
  using savekit::value_type;
  auto bad = [&](std::string what) { return savekit::error{savekit::errc::invalid_value, 0, what}; };
  std::string out;
  switch (type) {
    case value_type::integer: {
      auto n = savekit::from_json<std::int64_t>(text);
      if (!n) return bad("not an integer: " + std::string(text));
      savekit::to_msgpack(*n, out);
      return out;
    }
    case value_type::floating: {
      auto d = savekit::from_json<double>(text);
      if (!d) return bad("not a number: " + std::string(text));
      savekit::to_msgpack(*d, out);
      return out;
    }
    case value_type::string: {
      if (!text_is_json) return std::string(text);
      auto s = savekit::from_json<std::string>(text);
      if (!s) return s.error();
      return *s;
    }
    case value_type::sealed:  // its bytes, as Base64 (checked by set_raw: a sealed save's shape)
    case value_type::bytes: {
      std::string_view b64 = text;
      std::string unquoted;
      if (text_is_json) {
        auto s = savekit::from_json<std::string>(text);
        if (!s) return s.error();
        unquoted = *s;
        b64 = unquoted;
      }
      auto bytes = savekit::base64_decode(b64);
      if (!bytes) return bytes.error();
      return std::string(as_text(*bytes));
    }
    case value_type::json: {
      if (auto checked = savekit::json_to_msgpack(text); !checked) return checked.error();
      return std::string(text);
    }
    case value_type::msgpack:
    case value_type::msgpack_compact: {
      auto packed = savekit::json_to_msgpack(text);
      if (!packed) return packed.error();
      return std::string(as_text(*packed));
    }
    case value_type::end_of_known_types:
      break;
  }
  return bad("unknown type");
}

// The value as JSON text when that text encodes back to exactly the stored bytes (so an
// export imports back to the identical store); nullopt when only the raw bytes are exact
// (NaN, a string that is not UTF-8, float32 MessagePack, a non-minimal integer encoding,
// JSON with surrounding whitespace...).
std::optional<std::string> exact_json(const savekit::stored_value& v) {
  using savekit::value_type;
  std::optional<std::string> text;
  switch (v.type) {
    case value_type::integer:
      if (auto n = savekit::from_msgpack<std::int64_t>(v.bytes)) text = savekit::to_json(*n);
      break;
    case value_type::floating:
      if (auto d = savekit::from_msgpack<double>(v.bytes); d && std::isfinite(*d)) text = savekit::to_json(*d);
      break;
    case value_type::string:
      if (valid_utf8(v.bytes)) text = savekit::to_json(v.bytes);
      break;
    case value_type::bytes:
    case value_type::sealed:
      break;
    case value_type::json:
      text = v.bytes;
      break;
    case value_type::msgpack:
    case value_type::msgpack_compact:
      if (auto converted = savekit::msgpack_to_json(v.bytes)) text = std::move(*converted);
      break;
    case value_type::end_of_known_types:
      break;
  }
  if (!text) return std::nullopt;
  auto back = encode_value(v.type, *text, true);
  if (!back || *back != v.bytes) return std::nullopt;
  // What the export document will hold of it: raw_json keeps the text without the
  // whitespace around it, so that must not change it either.
  auto reread = savekit::from_json<savekit::raw_json>(*text);
  if (!reread || reread->text != *text) return std::nullopt;
  return text;
}

// A stored value that its getter cannot read (damage a checksum did not catch, or a store
// written by other tools): said, never printed as if it were good.
std::optional<savekit::error> undecodable(const savekit::stored_value& v) {
  savekit::status decodes = savekit::check_stored_value(v.type, v.bytes);
  if (decodes) return std::nullopt;
  return decodes.error();
}

// ---- commands --------------------------------------------------------------------------------

int cmd_list(const std::string& path, bool json) {
  auto store = open_store(path, store_access::read);
  if (!store) return report(path, store.error());
  output out;
  std::vector<listed_entry> listed;
  for (const std::string& key : store->keys()) {
    auto raw = store->get_raw(key);
    if (json) {
      listed_entry e{{}, {}, std::string(savekit::to_string(raw->type)), raw->bytes.size()};
      name_key(e, key);
      listed.push_back(std::move(e));
      continue;
    }
    char line[96];
    std::string shown = display_key(key);
    std::snprintf(line, sizeof line, " %-16s %10zu bytes", std::string(savekit::to_string(raw->type)).c_str(),
                  raw->bytes.size());
    out.line(shown + std::string(shown.size() < 32 ? 32 - shown.size() : 0, ' ') + line);
  }
  if (json) out.line(savekit::to_json(listed, document_options));
  warn_if_damaged(path, *store, "showing");
  return out.finish(ok);
}

// sealer: opens a sealed entry (--key-file); without one a sealed entry is an error.
int cmd_get(const std::string& path, const std::string& key, bool raw, bool pretty,
            const savekit::payload_sealer* sealer) {
  auto store = open_store(path, store_access::read);
  if (!store) return report(path, store.error());
  auto value = store->get_raw(key);
  if (!value) return report(path, value.error());
  warn_if_damaged(path, *store, "reading");
  if (value->type == savekit::value_type::sealed && !raw) {
    if (!sealer)
      return report(path + ": " + key,
                    savekit::error{savekit::errc::key_not_held, 0,
                                   "the entry is sealed: give the keys (--key-file), or `get --raw` for its bytes"});
    auto opened = store->open_sealed(key, *sealer);
    if (!opened) return report(path + ": " + key, opened.error());
    value = std::move(opened);
  }
  output out;
  if (raw) {
    out.write(value->bytes);
    return out.finish(ok);
  }
  using savekit::value_type;
  if (auto bad = undecodable(*value))
    return report(path + ": " + key,
                  savekit::error{bad->code(), bad->offset(),
                                 "the stored " + std::string(savekit::to_string(value->type)) + " does not decode (" +
                                     bad->message() + "); `get --raw` shows its bytes"});
  switch (value->type) {
    case value_type::string:
      if (valid_utf8(value->bytes)) {
        // On a terminal, control characters are shown escaped (a saved name could clear the
        // screen or retitle the window); piped, the text is as stored.
        out.line(::isatty(STDOUT_FILENO) ? terminal_safe(value->bytes, true, true) : value->bytes);
        break;
      }
      [[fallthrough]];
    case value_type::bytes:
      out.line(savekit::base64_encode(value->bytes));
      break;
    case value_type::integer:
      out.line(savekit::to_json(*savekit::from_msgpack<std::int64_t>(value->bytes)));
      break;
    case value_type::floating: {
      double d = *savekit::from_msgpack<double>(value->bytes);
      out.line(std::isnan(d) ? "NaN" : std::isinf(d) ? (d > 0 ? "Infinity" : "-Infinity") : savekit::to_json(d));
      break;
    }
    case value_type::json: {
      if (!pretty) {
        out.line(value->bytes);
        break;
      }
      auto packed = savekit::json_to_msgpack(value->bytes);
      if (!packed) return report_input(path + ": " + key, packed.error(), value->bytes, false);
      out.line(*savekit::msgpack_to_json(*packed, {.pretty = true}));
      break;
    }
    case value_type::msgpack:
    case value_type::msgpack_compact: {
      auto text = savekit::msgpack_to_json(value->bytes, {.pretty = pretty});
      if (!text) return report_input(path + ": " + key, text.error(), value->bytes, true);
      out.line(*text);
      break;
    }
    case value_type::sealed:  // opened above
    case value_type::end_of_known_types:
      break;
  }
  return out.finish(ok);
}

int cmd_set(const std::string& path, const std::string& key, const std::string& value, const std::string& type_name) {
  // A JSON value is stored as MessagePack (map form): compact, and `get` shows it as JSON.
  savekit::value_type type = type_name == "json" ? savekit::value_type::msgpack : *type_from_name(type_name);
  auto bytes = encode_value(type, value, false);
  if (!bytes) return report_input("value", bytes.error(), value, false);
  auto store = open_store(path, store_access::write);
  if (!store) return report(path, store.error());
  if (auto set = store->set_raw(key, type, *bytes); !set) return report(path, set.error());
  if (auto saved = store->save(); !saved) return report(path, saved.error());
  return ok;
}

int cmd_delete(const std::string& path, const std::string& key) {
  auto store = open_store(path, store_access::write_existing);  // a typo must not create a store
  if (!store) return report(path, store.error());
  if (auto deleted = store->delete_key(key); !deleted) return report(path, deleted.error());
  if (auto saved = store->save(); !saved) return report(path, saved.error());
  return ok;
}

// The value as an export document holds it: readable JSON when that is exact, else Base64.
template <class Entry>
void export_value(Entry& e, const savekit::stored_value& v) {
  e.type = std::string(savekit::to_string(v.type));
  if (auto text = exact_json(v))
    e.value = savekit::raw_json{*text};
  else
    e.base64 = savekit::base64_encode(v.bytes);
}

// sealer: also opens each sealed entry into "opened" (an entry that does not open fails the
// export, naming it); the sealed bytes stay the entry's value, so import restores them.
int cmd_export(const std::string& path, bool pretty, const savekit::payload_sealer* sealer) {
  auto store = open_store(path, store_access::read);
  if (!store) return report(path, store.error());
  exported_store doc{1, std::vector<exported_entry>{}};
  for (const std::string& key : store->keys()) {
    auto raw = store->get_raw(key);
    exported_entry e;
    name_key(e, key);
    export_value(e, *raw);
    if (sealer && raw->type == savekit::value_type::sealed) {
      auto opened = store->open_sealed(key, *sealer);
      if (!opened) return report(path + ": " + display_key(key), opened.error());
      export_value(e.opened.emplace(), *opened);
    }
    doc.entries->push_back(std::move(e));
  }
  output out;
  out.line(savekit::to_json(doc, {.pretty = pretty, .skip_null_members = true}));
  warn_if_damaged(path, *store, "exported");
  return out.finish(ok);
}

int cmd_import(const std::string& path, const std::string& file, bool replace) {
  std::string where = file.empty() || file == "-" ? "<stdin>" : file;
  auto input = read_input(file);
  if (!input) return report(where, input.error());
  auto doc = savekit::from_json<exported_store>(*input, {.error_on_unknown_keys = true});
  if (!doc) return report_input(where, doc.error(), *input, false);
  auto refuse = [&](const std::string& at, savekit::errc code, const std::string& what) {
    return report(at, savekit::error{code, 0, what});
  };
  if (!doc->savekit_export)
    return refuse(where, savekit::errc::missing_key, "not a savekit export (no \"savekit_export\")");
  if (*doc->savekit_export != 1) return refuse(where, savekit::errc::unsupported_version, "unknown export version");
  if (!doc->entries) return refuse(where, savekit::errc::missing_key, "no \"entries\"");
  // Every entry is checked before the store is touched: all of the document, or nothing.
  std::vector<std::pair<std::string, savekit::stored_value>> planned;
  for (std::size_t i = 0; i < doc->entries->size(); ++i) {
    const exported_entry& e = (*doc->entries)[i];
    std::string at = where + ": entry " + std::to_string(i);
    if (static_cast<bool>(e.key) == static_cast<bool>(e.key_base64))
      return refuse(at, savekit::errc::invalid_value, "an entry needs exactly one of key and key_base64");
    if (static_cast<bool>(e.value) == static_cast<bool>(e.base64))
      return refuse(at, savekit::errc::invalid_value, "an entry needs exactly one of value and base64");
    if (!e.type) return refuse(at, savekit::errc::missing_key, "an entry needs a type");
    auto type = type_from_name(*e.type);
    if (!type) return refuse(at, savekit::errc::invalid_value, "unknown type " + *e.type);
    std::string key;
    if (e.key) {
      key = *e.key;
    } else {
      auto k = savekit::base64_decode(*e.key_base64);
      if (!k) return report(at + ": key_base64", k.error());
      key = std::string(as_text(*k));
    }
    savekit::result<std::string> bytes = std::string{};
    if (e.base64) {
      auto b = savekit::base64_decode(*e.base64);
      if (!b) return report(at + ": base64", b.error());
      bytes = std::string(as_text(*b));
    } else {
      bytes = encode_value(*type, e.value->text, true);
    }
    if (!bytes) return report(at, bytes.error());
    planned.push_back({std::move(key), savekit::stored_value{*type, std::move(*bytes)}});
  }
  auto store = open_store(path, store_access::write);
  if (!store) return report(path, store.error());
  if (replace) store->delete_all();
  for (std::size_t i = 0; i < planned.size(); ++i) {
    const auto& [key, value] = planned[i];
    if (auto set = store->set_raw(key, value.type, value.bytes); !set)
      return report(where + ": entry " + std::to_string(i), set.error());  // nothing was saved
  }
  if (auto saved = store->save(); !saved) return report(path, saved.error());
  return ok;
}

// Sealed entries of the newest intact state: counted, and opened when there are keys.
void verify_seals(const std::string& path, const savekit::payload_sealer* sealer, verify_report& r) {
  auto store = open_store(path, store_access::read);
  if (!store) return;  // the checks above judged the file; nothing more to say of its entries
  for (const std::string& key : store->keys()) {
    auto raw = store->get_raw(key);
    if (!raw || raw->type != savekit::value_type::sealed) continue;
    ++r.sealed_entries;
    if (!sealer) continue;
    if (auto opened = store->open_sealed(key, *sealer); !opened)
      r.seals_failed.push_back(display_key(key) + ": " + opened.error().to_string());
  }
  r.seals = r.sealed_entries == 0 ? "none" : sealer ? "checked with the keys" : "not checked (no --key-file)";
}

int cmd_verify(const std::string& path, bool json, const savekit::payload_sealer* sealer) {
  auto check = savekit::check_store_file(path);
  if (!check) {
    if (check.error().code() == savekit::errc::locked) {
      std::fprintf(stderr,
                   "savekit: %s: in use: another process has the store open for writing; verify it when "
                   "that process has closed it\n",
                   terminal_safe(path, false).c_str());
      return in_use;
    }
    return report(path, check.error());
  }
  int code = check->newer_version                   ? newer_format
             : !check->header_ok                    ? nothing_intact
             : (check->torn_tail || check->damaged) ? recoverable
                                                    : ok;
  verify_report r{path,
                  code == ok             ? "intact"
                  : code == recoverable  ? "recoverable"
                  : code == newer_format ? "newer format"
                                         : "nothing intact",
                  check->version,
                  check->file_bytes,
                  check->intact_bytes,
                  check->commits,
                  check->entries,
                  check->torn_tail,
                  check->damaged,
                  check->intact_records_after_damage,
                  check->problem,
                  0,
                  "none",
                  {}};
  if (check->header_ok && !check->newer_version) verify_seals(path, sealer, r);
  if (!r.seals_failed.empty()) {
    code = seal_broken;
    r.verdict = "tampered";
  }
  output out;
  if (json) {
    out.line(savekit::to_json(r));
    return out.finish(code);
  }
  out.line(terminal_safe(path, false) + ": " + r.verdict);
  if (code == newer_format) {
    out.line("  written by a newer savekit (" + check->problem + "); this version neither judges nor changes it");
    return out.finish(code);
  }
  if (!check->header_ok) {
    out.line("  " + check->problem);
    return out.finish(code);
  }
  out.line("  format version " + std::to_string(check->version) + ", " + std::to_string(check->file_bytes) +
           " bytes, " + std::to_string(check->commits) + " intact commits, " + std::to_string(check->entries) +
           " keys in the newest intact state");
  if (r.sealed_entries)
    out.line("  " + std::to_string(r.sealed_entries) + " sealed entries, " +
             (sealer ? std::to_string(r.sealed_entries - r.seals_failed.size()) + " of them opened with the keys"
                     : std::string{"their seals not checked (no --key-file)"}));
  for (const std::string& failed : r.seals_failed) out.line("  sealed entry " + terminal_safe(failed, false));
  if (check->torn_tail || check->damaged) {
    out.line("  " + check->problem);
    std::uint64_t lost = check->file_bytes - check->intact_bytes;
    out.line("  opening would keep the first " + std::to_string(check->intact_bytes) + " bytes and lose " +
             std::to_string(lost) + " (" +
             (check->damaged ? "a damaged commit and everything after it; a copy is kept as .damaged"
                             : "an interrupted last commit") +
             ")");
  }
  return out.finish(code);
}

int cmd_convert(const std::string& from, const std::string& to, const std::string& file, const std::string& output_path,
                bool pretty) {
  std::string where = file.empty() || file == "-" ? "<stdin>" : file;
  auto input = read_input(file);
  if (!input) return report(where, input.error());
  // Everything goes through MessagePack bytes.
  std::vector<std::byte> packed;
  if (from == "json") {
    auto p = savekit::json_to_msgpack(*input);
    if (!p) return report_input(where, p.error(), *input, false);
    packed = std::move(*p);
  } else if (from == "base64") {
    std::string_view text = *input;
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
    auto p = savekit::base64_decode(text);
    if (!p) return report_input(where, p.error(), text, false);
    packed = std::move(*p);
  } else {
    const auto* data = reinterpret_cast<const std::byte*>(input->data());
    packed.assign(data, data + input->size());
  }
  // Check the MessagePack whatever the target, with JSON as the witness.
  auto json = savekit::msgpack_to_json(packed, {.pretty = pretty});
  if (!json) return report_input(where, json.error(), as_text(packed), true);
  std::string result;
  if (to == "json")
    result = *json + "\n";
  else if (to == "base64")
    result = savekit::base64_encode(packed) + "\n";
  else
    result = std::string(as_text(packed));
  if (output_path.empty() || output_path == "-") {
    output out;
    out.write(result);
    return out.finish(ok);
  }
  if (auto written = write_file(output_path, result); !written) return report(output_path, written.error());
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (!savekit_tools::make_standard_descriptors_valid()) return failure;  // before any file is opened
  CLI::App app{"savekit: look into, check, edit and convert save stores and save files"};
  // Only --help: with -h, an argument such as "-hp" or "-hero" was taken for the help flag.
  app.set_help_flag("--help", "Print this help message and exit");
  app.require_subcommand(1);
  app.footer(
      "A key or value that begins with '-' goes after \"--\", options first: savekit set --type int s.prefs -- -hp "
      "10\n"
      "Exit codes: 0 success, 1 failure, 2 usage, 3 store in use, 4 verify: recoverable damage, 5 verify: nothing "
      "intact, 6 verify: written by a newer savekit, 7 verify with keys: a seal is broken.");
  std::string store, key, value, type = "string", from, to, file, output_path;
  bool raw = false, pretty = false, json = false, replace = false;

  auto* list = app.add_subcommand("list", "List keys with their types and sizes");
  list->add_option("STORE", store, "store file")->required();
  list->add_flag("--json", json, "machine-readable output");

  auto* get = app.add_subcommand("get", "Print a value: objects as JSON, numbers and strings as such, bytes as Base64");
  get->add_option("STORE", store, "store file")->required();
  get->add_option("KEY", key, "key")->required();
  get->add_flag("--raw", raw, "write the stored bytes unchanged");
  get->add_flag("--pretty", pretty, "indent JSON");

  auto* set = app.add_subcommand("set", "Set a value and commit it");
  set->add_option("STORE", store, "store file (created if missing)")->required();
  set->add_option("KEY", key, "key")->required();
  set->add_option("VALUE", value, "value (bytes: Base64; json: a JSON document, stored as MessagePack)")->required();
  set->add_option("--type", type, "int|float|string|bytes|json")
      ->check(CLI::IsMember({"int", "float", "string", "bytes", "json"}));

  auto* del = app.add_subcommand("delete", "Delete a key and commit");
  del->add_option("STORE", store, "store file")->required();
  del->add_option("KEY", key, "key")->required();

  auto* exp = app.add_subcommand("export", "Write every entry as a JSON document (lossless: types and bytes kept)");
  exp->add_option("STORE", store, "store file")->required();
  exp->add_flag("--pretty", pretty, "indent");
  // --key-file and --player, where a command opens sealed entries or payloads
  std::string key_file, player;
  [[maybe_unused]] auto open_sealed_with = [&](CLI::App* command, const char* what) {
    command->add_option("--key-file", key_file, what);
    command->add_option("--player", player, "the player id the sealed saves are bound to");
  };

  auto* imp = app.add_subcommand("import", "Set the entries of an export document and commit them");
  imp->add_option("STORE", store, "store file (created if missing)")->required();
  imp->add_option("FILE", file, "export document (default: standard input)");
  imp->add_flag("--replace", replace, "delete every existing entry first");

  auto* ver = app.add_subcommand(
      "verify",
      "Check every record (a store) or generation (a slots folder); say what is recoverable and what would "
      "be lost");
  ver->add_option("STORE", store, "store file or slots folder")->required();
  ver->add_flag("--json", json, "machine-readable output");

  auto* slots = app.add_subcommand("slots", "Look into a slots folder (savekit/slots.hpp): list, show, restore");
  slots->require_subcommand(1);
  std::string folder, slot;
  std::uint64_t generation = 0;
  auto* slots_list = slots->add_subcommand("list", "The load menu: every slot's newest save, newest first");
  slots_list->add_option("DIR", folder, "slots folder")->required();
  slots_list->add_flag("--json", json, "machine-readable output");
  auto* slots_show = slots->add_subcommand("show", "A slot's metadata, history and payload, as JSON");
  slots_show->add_option("DIR", folder, "slots folder")->required();
  slots_show->add_option("SLOT", slot, "slot name")->required();
  slots_show->add_flag("--pretty", pretty, "indent");
  auto* slots_restore = slots->add_subcommand("restore", "Make a kept generation the slot's newest again");
  slots_restore->add_option("DIR", folder, "slots folder")->required();
  slots_restore->add_option("SLOT", slot, "slot name")->required();
  slots_restore->add_option("GENERATION", generation, "generation (see `savekit slots show`)")->required();

  auto* conv = app.add_subcommand("convert", "Convert a save between JSON, MessagePack and Base64 (of MessagePack)");
  conv->add_option("--from", from, "json|msgpack|base64")
      ->required()
      ->check(CLI::IsMember({"json", "msgpack", "base64"}));
  conv->add_option("--to", to, "json|msgpack|base64")->required()->check(CLI::IsMember({"json", "msgpack", "base64"}));
  conv->add_option("FILE", file, "input (default: standard input)");
  conv->add_option("-o,--output", output_path, "output file (default: standard output)");
  conv->add_flag("--pretty", pretty, "indent JSON output");

#if SAVEKIT_CLI_SEAL
  open_sealed_with(get, "keys that open a sealed entry");
  open_sealed_with(exp, "keys: each sealed entry is also written opened (\"opened\"; import keeps it sealed)");
  open_sealed_with(ver, "keys: sealed entries and generations are opened, and a broken seal is exit 7");
  open_sealed_with(slots_show, "keys that open a sealed payload");
  seal_arguments sealing;
  std::uint32_t key_id = 1;
  std::size_t dictionary_bytes = 16 * 1024;
  std::vector<std::string> samples;
  auto bind_context = [&](CLI::App* command) {
    command->add_option("--name", sealing.name, "the slot or key name it is bound to");
    command->add_option("--schema", sealing.schema_version, "the schema version it is bound to");
    command->add_option("--player", sealing.player, "the player id it is bound to");
  };
  auto* keygen = app.add_subcommand("keygen", "Write a new random 32-byte key to a key file (\"ID BASE64\")");
  keygen->add_option("--id", key_id, "the key's id (1 or more; stored in each sealed save)");
  keygen->add_option("-o,--output", output_path, "a new key file (default: standard output); never replaces one");
  bool add_key = false;
  keygen->add_flag("--add", add_key, "put the new key first in the existing key file -o names (rotation)");
  auto* seal = app.add_subcommand("seal", "Compress (zstd) and protect (MAC or encryption) a save");
  seal->add_option("FILE", sealing.input, "the save (default: standard input)");
  seal->add_option("-o,--output", sealing.output, "sealed file (default: standard output)");
  seal->add_option("--key-file", sealing.key_file, "keys; the first one seals");
  seal->add_option("--protection", sealing.protection, "aead|mac|none")->check(CLI::IsMember({"aead", "mac", "none"}));
  seal->add_option("--compression", sealing.compression, "zstd|none")->check(CLI::IsMember({"zstd", "none"}));
  seal->add_option("--level", sealing.level, "zstd level, 1 to 19");
  seal->add_option("--dict", sealing.dictionary, "a zstd dictionary (savekit train-dict)");
  bind_context(seal);
  auto* unseal = app.add_subcommand("unseal", "Check and open a sealed save (exit 1 if it was tampered with)");
  unseal->add_option("FILE", sealing.input, "the sealed save (default: standard input)");
  unseal->add_option("-o,--output", sealing.output, "the save (default: standard output)");
  unseal->add_option("--key-file", sealing.key_file, "keys; any of them opens");
  unseal->add_option("--dict", sealing.dictionaries, "zstd dictionaries it may need");
  unseal->add_option("--max-bytes", sealing.max_bytes, "refuse a save that declares more bytes than this");
  bind_context(unseal);
  auto* train = app.add_subcommand("train-dict", "Train a zstd dictionary from sample saves");
  train->add_option("SAMPLES", samples, "sample saves")->required();
  train->add_option("-o,--output", output_path, "dictionary file")->required();
  train->add_option("--size", dictionary_bytes, "the dictionary's maximum size in bytes");
#endif

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? ok : usage;
  }
  std::shared_ptr<const savekit::payload_sealer> sealer;
#if SAVEKIT_CLI_SEAL
  if (!key_file.empty()) {
    auto made = sealer_from_key_file(key_file, player);
    if (!made) return report(key_file, made.error());
    sealer = std::move(*made);
  }
#endif
  if (*list) return cmd_list(store, json);
  if (*get) return cmd_get(store, key, raw, pretty, sealer.get());
  if (*set) return cmd_set(store, key, value, type);
  if (*del) return cmd_delete(store, key);
  if (*exp) return cmd_export(store, pretty, sealer.get());
  if (*imp) return cmd_import(store, file, replace);
  if (*ver) {
    struct stat st {};
    if (::stat(store.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return cmd_verify_slots(store, json, sealer);
    return cmd_verify(store, json, sealer.get());
  }
  if (*slots_list) return cmd_slots_list(folder, json);
  if (*slots_show) return cmd_slots_show(folder, slot, pretty, sealer);
  if (*slots_restore) return cmd_slots_restore(folder, slot, generation);
  if (*conv) return cmd_convert(from, to, file, output_path, pretty);
#if SAVEKIT_CLI_SEAL
  if (*keygen) return cmd_keygen(key_id, output_path, add_key);
  if (*seal) return cmd_seal(sealing);
  if (*unseal) return cmd_unseal(sealing);
  if (*train) return cmd_train_dict(samples, output_path, dictionary_bytes);
#endif
  return usage;
}
